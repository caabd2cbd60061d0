"""A host-switch graph as the search holds it: one row of ``r`` ports a switch.

The search (:mod:`golf.engine`) walks rows of slots, so a host-switch graph (:mod:`golf.
hostswitch.network`) is held as the ``s x r`` int32 array of its switches' ports:

``>= 0``                  a link to that switch (local ids ``0 .. s-1``), in both rows
``HOST_PORT`` (-2)        a port that holds a host
``-1``                    a free port

The hosts are interchangeable for every score, so the rows keep how many each switch holds,
not which: :func:`to_graph` numbers them switch by switch (hosts ``0 .. h_0-1`` on the first
switch, and so on). The swaps of :mod:`golf.engine.moves` read host ports as no link and
never pick them, so they rewire links alone and keep every switch's used ports;
:func:`golf.engine.moves.propose_host` moves hosts.

:func:`random_ports` lays a random connected start: the hosts spread evenly (``n // s`` or
one more a switch), a random spanning tree over the switches (those with more free ports
first), then the free ports paired at random, then every two switches with free ports left
and no link between them joined (so a port stays free only where no link can take it).
"""

from __future__ import annotations

import numpy as np

from golf.engine.moves import HOST_PORT
from golf.errors import GolfError
from golf.graph import Graph
from golf.hostswitch.network import HostSwitchGraph

__all__ = ["HOST_PORT", "PortGraph", "to_ports", "to_graph", "host_counts", "random_ports",
           "polarity_ports", "polarity_fits", "check_ports"]


def host_counts(ports) -> np.ndarray:
    """Hosts on each switch of the rows ``ports``, int64 ``(s,)``."""
    return (np.asarray(ports) == HOST_PORT).sum(axis=1).astype(np.int64)


def to_ports(net: HostSwitchGraph) -> np.ndarray:
    """The ``s x r`` port rows of ``net`` (links first, then hosts, then free ports)."""
    rows = net.switches.adj.copy()
    links = (rows >= 0).sum(axis=1)
    cols = np.arange(net.r)[None, :]
    hosts = net.host_counts[:, None]
    rows[(cols >= links[:, None]) & (cols < links[:, None] + hosts)] = HOST_PORT
    return np.ascontiguousarray(rows, dtype=np.int32)


def to_graph(n: int, r: int, ports) -> HostSwitchGraph:
    """The host-switch graph of the port rows (hosts numbered switch by switch)."""
    ports = np.asarray(ports, dtype=np.int32)
    s = ports.shape[0]
    counts = host_counts(ports)
    if counts.sum() != n:
        raise GolfError(f"the port rows hold {counts.sum()} hosts, expected n={n}")
    links = np.where(ports >= 0, ports, -1).astype(np.int32)
    links = -np.sort(-links, axis=1)  # links first, descending, then -1
    links = np.where(links >= 0, links, -1)
    host_switch = np.repeat(np.arange(s, dtype=np.int32), counts)
    return HostSwitchGraph(n, s, r, Graph(s, r, 1, links), host_switch)


def check_ports(ports, n: int, r: int) -> None:
    """Every rule of a host-switch graph on the rows: through :func:`to_graph` and
    :meth:`HostSwitchGraph.check` (links in both rows, no loop or repeat, ``n`` hosts, at most
    ``r`` ports a switch by construction)."""
    ports = np.asarray(ports)
    if ports.ndim != 2 or ports.shape[1] != r or (ports < HOST_PORT).any():
        raise GolfError(f"port rows must be (s, r={r}) of ids, -1 or {HOST_PORT}")
    to_graph(n, r, ports).check()


def random_ports(n: int, s: int, r: int, seed: int = 0, attempts: int = 100) -> np.ndarray:
    """Random connected port rows for ``n`` hosts on ``s`` switches of radix ``r`` (module
    docstring); the same seed gives the same rows.

    Raises
    ------
    GolfError
        When no connected graph of that shape exists: a switch with no port left for links
        while ``s > 1``, or fewer free ports than a tree over the switches needs
        (``s*r - n < 2(s-1)``), or hosts beyond the ports (``n > s*r``).
    """
    n, s, r = int(n), int(s), int(r)
    if n < 1 or s < 1 or r < 1:
        raise GolfError(f"hosts, switches and radix must be >= 1, got n={n}, s={s}, r={r}")
    hosts = np.full(s, n // s, dtype=np.int64)
    hosts[: n % s] += 1
    free = r - hosts
    if (free < 0).any() or (s > 1 and ((free < 1).any() or free.sum() < 2 * (s - 1))):
        raise GolfError(f"no connected host-switch graph has n={n} hosts on s={s} switches "
                        f"of radix r={r}: {n // s}-{-(-n // s)} hosts a switch leave "
                        f"{int(free.sum())} ports for links, a tree over {s} switches needs "
                        f"{2 * (s - 1)} and each switch one")
    rng = np.random.default_rng(int(seed))
    for _ in range(attempts):
        links = [set() for _ in range(s)]
        left = free.copy()
        # a random tree: each new switch joins one already placed that has a port left, the
        # switches with more free ports placed first
        order = rng.permutation(s)
        order = order[np.argsort(-free[order], kind="stable")]
        placed = [int(order[0])]
        ok = True
        for a in order[1:].tolist():
            open_ = [b for b in placed if left[b] > 0]
            if not open_:
                ok = False
                break
            b = open_[int(rng.integers(len(open_)))]
            links[a].add(b)
            links[b].add(a)
            left[a] -= 1
            left[b] -= 1
            placed.append(a)
        if not ok:
            continue
        # the free ports paired at random (a pair that would repeat a link or loop is dropped)
        stubs = rng.permutation(np.repeat(np.arange(s), left))
        for a, b in stubs[: len(stubs) // 2 * 2].reshape(-1, 2).tolist():
            if a != b and b not in links[a]:
                links[a].add(b)
                links[b].add(a)
                left[a] -= 1
                left[b] -= 1
        _fill(links, left, rng)
        return _rows(links, hosts, r)
    raise GolfError(f"could not lay a connected host-switch graph with n={n}, s={s}, r={r} "
                    f"in {attempts} attempts (seed {seed})")


def _rows(links, hosts, r) -> np.ndarray:
    """Port rows from each switch's set of linked switches and its number of hosts."""
    rows = np.full((len(links), r), -1, dtype=np.int32)
    for a in range(len(links)):
        row = sorted(links[a])
        rows[a, : len(row)] = row
        rows[a, len(row): len(row) + hosts[a]] = HOST_PORT
    return rows


def polarity_ports(n: int, r: int, q: int, seed: int = 0) -> np.ndarray:
    """The port rows of ``n`` hosts on the ``q^2 + q + 1`` switches of the polarity graph
    ``ER_q`` (:mod:`golf.starts.polarity`: diameter 2, so h-diameter 4 at most; degree
    ``q + 1``, ``q`` on its ``q + 1`` absolute points), the hosts spread evenly (``n // s``
    a switch, one more on the first ``n % s``, the absolute points first), then every two
    switches with free ports and no link joined (:func:`_join`: distances only shrink).

    Raises
    ------
    GolfError
        Where ``q`` is not a prime power, or a switch's links and hosts exceed ``r`` ports.
    """
    from golf.starts.polarity import polarity_edges, prime_power

    n, r, q = int(n), int(r), int(q)
    if prime_power(q) is None:
        raise GolfError(f"ER_q needs a prime power q, not {q}")
    s = q * q + q + 1
    links = [set() for _ in range(s)]
    for u, v in polarity_edges(q).tolist():
        links[u].add(v)
        links[v].add(u)
    deg = np.array([len(x) for x in links], dtype=np.int64)
    hosts = np.full(s, n // s, dtype=np.int64)
    hosts[np.argsort(deg, kind="stable")[: n % s]] += 1
    left = r - deg - hosts
    if n < s or (left < 0).any():
        raise GolfError(f"{n} hosts on the {s} switches of ER_{q} (degree {q + 1}) need "
                        f"{int((deg + hosts).max())} ports a switch and one host a switch; the "
                        f"radix is {r}")
    _join(links, left, np.random.default_rng(int(seed)))
    return _rows(links, hosts, r)


def polarity_fits(n: int, r: int) -> list[int]:
    """The prime powers ``q`` whose ``ER_q`` holds ``n`` hosts at radix ``r``
    (:func:`polarity_ports`: a host and ``q + 1`` links a switch at least), smallest first.

    >>> polarity_fits(4608, 36)[:3], polarity_fits(432, 12)
    ([16, 17, 19], [])
    """
    from golf.starts.polarity import prime_power

    out = []
    q = 2
    while q * q + q + 1 <= n:
        s = q * q + q + 1
        # the switches of degree q + 1 hold n // s hosts, or one more past the q + 1
        # absolute points' share of n % s
        most = n // s + (1 if n % s > q + 1 else 0)
        if prime_power(q) is not None and q + 1 + most <= r and q + n // s + (
                n % s > 0) <= r:
            out.append(q)
        q += 1
    return out


def _join(links, left, rng) -> None:
    """Join switches with free ports that are not linked yet, in random order, until no two
    such remain."""
    while True:
        open_ = [a for a in rng.permutation(len(left)).tolist() if left[a] > 0]
        joined = False
        for i, a in enumerate(open_):
            if left[a] == 0:
                continue
            for b in open_[i + 1:]:
                if left[b] > 0 and b not in links[a]:
                    links[a].add(b)
                    links[b].add(a)
                    left[a] -= 1
                    left[b] -= 1
                    joined = True
                    if left[a] == 0:
                        break
        if not joined:
            break


def _fill(links, left, rng) -> None:
    """Join switches with free ports that are not linked yet, in random order, until no two
    such remain: the pairing drops the pairs that would repeat a link, and on a dense switch
    graph (a few switches, many ports each: (128, 24) on 8 switches) those are many. Then a
    switch still left with two free ports or more takes the place of a link between two
    switches it is not linked to ((10000, 100) on 196 switches left one with 6), and two
    linked switches with a free port each take the place of a link x -- y as a -- x and
    b -- y (there, it left two with one each). No move of the search adds a link to a graph
    without free ports, so the start takes all it can."""
    _join(links, left, rng)
    # a switch left with two free ports or more, and no partner: a link x -- y away from it
    # becomes x -- a -- y (x and y keep their ports, a uses two of its own)
    for a in rng.permutation(len(left)).tolist():
        while left[a] >= 2:
            pairs = [(x, y) for x in range(len(links)) for y in links[x]
                     if x < y and a not in (x, y) and x not in links[a] and y not in links[a]]
            if not pairs:
                break
            x, y = pairs[int(rng.integers(len(pairs)))]
            links[x].discard(y)
            links[y].discard(x)
            for z in (x, y):
                links[a].add(z)
                links[z].add(a)
            left[a] -= 2
    # two switches with a free port each, already linked to each other: a link x -- y with x
    # not linked to a and y not linked to b becomes a -- x and b -- y (one link more)
    while True:
        open_ = [a for a in rng.permutation(len(left)).tolist() if left[a] > 0]
        if len(open_) < 2:
            break
        a, b = open_[0], open_[1]
        pairs = [(x, y) for x in range(len(links)) for y in links[x]
                 if x not in (a, b) and y not in (a, b) and x not in links[a]
                 and y not in links[b]]
        if not pairs:
            break
        x, y = pairs[int(rng.integers(len(pairs)))]
        links[x].discard(y)
        links[y].discard(x)
        for u, z in ((a, x), (b, y)):
            links[u].add(z)
            links[z].add(u)
        left[a] -= 1
        left[b] -= 1


class PortGraph(Graph):
    """The port rows of a host-switch graph as the search's graph: a
    :class:`golf.graph.Graph` on the ``s`` switches (``g = 1``, rows of width ``r``) whose rows
    also hold host ports, with the number of ``hosts``. :meth:`net` is the host-switch graph
    (:func:`to_graph`), :meth:`check` checks every rule."""

    __slots__ = ("hosts",)

    def __init__(self, hosts: int, ports):
        ports = np.asarray(ports, dtype=np.int32)
        super().__init__(ports.shape[0], ports.shape[1], 1, ports)
        self.hosts = int(hosts)

    def net(self) -> HostSwitchGraph:
        return to_graph(self.hosts, self.d, self.adj)

    def with_rows(self, adj) -> "PortGraph":
        return PortGraph(self.hosts, adj)

    def copy(self) -> "PortGraph":
        return PortGraph(self.hosts, self.adj.copy())

    def check(self) -> None:
        check_ports(self.adj, self.hosts, self.d)

    def edges(self) -> np.ndarray:
        """Every edge with the ORP file's ids (hosts, then switches)."""
        return self.net().edges()

    def __eq__(self, other) -> bool:
        if not isinstance(other, PortGraph):
            return NotImplemented
        return self.net() == other.net()

    def __repr__(self) -> str:
        return (f"PortGraph(hosts={self.hosts}, switches={self.n}, radix={self.d}, "
                f"links={int((self.adj >= 0).sum()) // 2})")
