"""Start graphs of host-switch problems (:mod:`golf.hostswitch`), as the search's port rows
(:mod:`golf.hostswitch.ports`).

:func:`random_ports` lays a random connected start: the hosts spread evenly (``n // s`` or
one more a switch), a random spanning tree over the switches (those with more free ports
first), then the free ports paired at random, then every two switches with free ports left
and no link between them joined (so a port stays free only where no link can take it).

:func:`polarity_ports` puts the hosts on the switches of a polarity graph ``ER_q``
(:mod:`golf.starts.polarity`), whose diameter 2 gives h-diameter 4 at most;
:func:`polarity_fits` lists the ``q`` whose switches hold a problem's hosts.

:func:`spread_ports` builds the host-switch graph of an Order/Degree switch graph with the
hosts of a spread (:mod:`golf.hostswitch.spread`), the switches one host short the ones
farthest from the others.
"""

from __future__ import annotations

import numpy as np

from golf.errors import GolfError
from golf.hostswitch.ports import HOST_PORT

__all__ = ["random_ports", "polarity_ports", "polarity_fits", "spread_ports"]


def random_ports(n: int, s: int, r: int, seed: int = 0, attempts: int = 100,
                 hosts=None) -> np.ndarray:
    """Random connected port rows for ``n`` hosts on ``s`` switches of radix ``r`` (module
    docstring), the hosts as even as they go or ``hosts`` on each switch (``(s,)``, summing
    to ``n``); the same seed gives the same rows.

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
    if hosts is None:
        hosts = np.full(s, n // s, dtype=np.int64)
        hosts[: n % s] += 1
    else:
        hosts = np.asarray(hosts, dtype=np.int64)
        if hosts.shape != (s,) or hosts.sum() != n or (hosts < 0).any():
            raise GolfError(f"hosts on each switch: {s} counts >= 0 summing to n={n}, got "
                            f"{hosts.size} summing to {int(hosts.sum())}, least "
                            f"{int(hosts.min(initial=0))}")
    free = r - hosts
    if (free < 0).any() or (s > 1 and ((free < 1).any() or free.sum() < 2 * (s - 1))):
        raise GolfError(f"no connected host-switch graph has n={n} hosts on s={s} switches "
                        f"of radix r={r}: {hosts.min()}-{hosts.max()} hosts a switch leave "
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


def _short_switches(links: np.ndarray, spread) -> np.ndarray:
    """The :attr:`Spread.short` switches that hold one host fewer: those whose hosts are
    farthest from the others (the largest host-weighted distance sum in the switch graph
    with every switch full), which takes the most off the h-total."""
    from golf.evaluators.h_scoring import switch_sums

    s = spread.switches
    if not spread.short:
        return np.zeros(0, dtype=np.int64)
    counts = np.full(s, spread.base, dtype=np.int64)
    sources = np.arange(s, dtype=np.int64)
    wsum, far, reached = (np.zeros(s, dtype=np.int64) for _ in range(3))
    switch_sums(np.ascontiguousarray(links, dtype=np.int32), counts, sources, wsum, far,
                reached)
    return np.argsort(-wsum, kind="stable")[:spread.short]


def _heavy_switches(links: np.ndarray, spread, seed: int = 0) -> np.ndarray:
    """The :attr:`Spread.heavy` switches that hold one host over, each with a link fewer
    (``links`` edited in place): first switches with a free port; then the two ends of a
    link dropped, the link whose loss adds the least to its ends' host-weighted distance
    sums (and keeps their eccentricities and every switch reached) among up to
    :data:`DROP_DRAWS` drawn for ``seed`` between switches not yet chosen (where none of them
    does, one of them at random); an odd one last drops a link to a switch that stays as it
    is."""
    from golf.evaluators.h_scoring import switch_sums

    s, want = spread.switches, spread.heavy
    chosen: list[int] = []
    if not want:
        return np.zeros(0, dtype=np.int64)
    free = np.flatnonzero((links >= 0).sum(axis=1) < spread.degree)
    chosen += free[:want].tolist()
    counts = np.full(s, spread.base, dtype=np.int64)
    counts[chosen] += 1
    rng = np.random.default_rng(seed)

    def sums(pair):
        src = np.asarray(pair, dtype=np.int64)
        w, far, reached = (np.zeros(len(src), dtype=np.int64) for _ in range(3))
        switch_sums(links, counts, src, w, far, reached)
        return w.sum(), far.max(), reached.min()

    def drop(a, b):  # the link's two ports, freed
        ja = int(np.flatnonzero(links[a] == b)[0])
        jb = int(np.flatnonzero(links[b] == a)[0])
        links[a, ja] = links[b, jb] = -1
        return ja, jb

    while len(chosen) < want:
        taken = np.zeros(s, dtype=bool)
        taken[chosen] = True
        pairs = [(a, int(b)) for a in range(s) if not taken[a] for b in links[a]
                 if b > a and not taken[b]] if want - len(chosen) > 1 else []
        if not pairs:  # one left: a link of a switch not chosen, to any switch
            pairs = [(a, int(b)) for a in range(s) if not taken[a] for b in links[a] if b >= 0]
        best = None
        for i in rng.permutation(len(pairs))[:DROP_DRAWS].tolist():
            a, b = pairs[i]
            w0, far0, _ = sums((a, b))
            ja, jb = drop(a, b)
            w1, far1, reached = sums((a, b))
            links[a, ja], links[b, jb] = b, a
            if reached < counts.sum() or far1 > far0:
                continue
            if best is None or w1 - w0 < best[0]:
                best = (w1 - w0, a, b)
        if best is None:  # every drawn link cut a switch off or stretched a distance
            a, b = pairs[int(rng.integers(len(pairs)))]
        else:
            _, a, b = best
        drop(a, b)
        ends = [a, b] if want - len(chosen) > 1 and not taken[b] else [a]
        chosen += ends
        counts[ends] += 1
    return np.asarray(sorted(chosen), dtype=np.int64)


# links weighed for each link a switch one host over gives up (spread_ports)
DROP_DRAWS = 32


def spread_ports(spread, switch_graph):
    """The host-switch graph (a :class:`golf.hostswitch.ports.PortGraph`) of ``switch_graph``
    (a :class:`golf.graph.Graph` on the switches of ``spread``, a
    :class:`golf.hostswitch.spread.Spread`, of degree at most its ``degree``, any symmetry)
    with the hosts of the spread: each switch's links, then its hosts, then free ports."""
    from golf.graph import Graph
    from golf.hostswitch.network import HostSwitchGraph
    from golf.hostswitch.ports import PortGraph, to_ports

    s, r = spread.switches, spread.radix
    if switch_graph.n != s or switch_graph.degrees().max(initial=0) > spread.degree:
        raise GolfError(f"{spread.label}: a switch graph of {switch_graph.n} vertices, "
                        f"degree up to {switch_graph.degrees().max(initial=0)}, does not fit")
    indptr, indices = switch_graph.csr()
    links = np.full((s, r), -1, dtype=np.int32)
    for a in range(s):
        nb = indices[indptr[a]:indptr[a + 1]]
        links[a, :len(nb)] = nb
    counts = np.full(s, spread.base, dtype=np.int64)
    counts[_short_switches(links, spread)] -= 1
    counts[_heavy_switches(links, spread)] += 1
    links = -np.sort(-links, axis=1)  # the links first (a dropped one left a hole)
    net = HostSwitchGraph(spread.hosts, s, r, Graph(s, r, 1, links),
                          np.repeat(np.arange(s, dtype=np.int32), counts))
    return PortGraph(spread.hosts, to_ports(net))


# trades of the leaf-hub design proposed per leaf-hub link (hub_ports)
PACK_STEPS_PER_LINK = 20000


def hub_ports(spread, seed: int = 0, steps: int | None = None):
    """The host-switch graph (a :class:`golf.hostswitch.ports.PortGraph`) of a hub spread
    (:class:`golf.hostswitch.hubs.HubSpread`): leaves ``0 .. P-1`` (the short ones last),
    hubs after them. Each leaf's links go to distinct hubs, at random for ``seed``, then
    ``steps`` trades (:data:`PACK_STEPS_PER_LINK` a link when None) of
    :func:`golf.kernels.packing.pack` make as many pairs of leaves share a hub as they
    can; the hubs' ports left over are joined among hubs (:func:`_join`). Returns the graph
    and the pairs of leaves that share a hub."""
    from golf.hostswitch.ports import PortGraph
    from golf.kernels.packing import common_counts, pack
    from golf.kernels.rng import rng_seed

    if not spread.possible():
        raise GolfError(f"{spread.label}: no such design connects")
    P, B, r, h = spread.leaves, spread.hubs, spread.radix, spread.leaf_hosts
    own = np.full(P, spread.ports, dtype=np.int64)
    own[P - spread.short:] += 1  # a short leaf links to one hub more
    caps = np.asarray(spread.capacities, dtype=np.int64)
    rng = np.random.default_rng(int(seed))
    stubs = rng.permutation(np.repeat(np.arange(B), caps))
    width = int(own.max())
    hubs_of = np.full((P, width), -1, dtype=np.int32)
    starts = np.concatenate([[0], np.cumsum(own)])
    for a in range(P):
        hubs_of[a, :own[a]] = stubs[starts[a]:starts[a + 1]]
    _distinct_hubs(hubs_of, own, rng)
    members = np.full((B, int(caps.max())), -1, dtype=np.int32)
    fill = np.zeros(B, dtype=np.int64)
    for a in range(P):
        for j in hubs_of[a, :own[a]].tolist():
            members[j, fill[j]] = a
            fill[j] += 1
    common = common_counts(members, P)
    steps = PACK_STEPS_PER_LINK * spread.links if steps is None else int(steps)
    cover = pack(members, hubs_of, common, steps, 1.0, 0.05, rng_seed(int(seed)))
    links = [set() for _ in range(P + B)]
    for j in range(B):
        for a in members[j][members[j] >= 0].tolist():
            links[a].add(P + j)
            links[P + j].add(a)
    left = np.zeros(P + B, dtype=np.int64)
    left[P:] = r - caps
    _join(links, left, rng)  # among hubs alone: the leaves' links stay as designed
    hosts = np.concatenate([np.full(P, h, dtype=np.int64), np.zeros(B, dtype=np.int64)])
    hosts[P - spread.short:P] -= 1
    return PortGraph(spread.hosts, _rows(links, hosts, r)), int(cover)


def _distinct_hubs(hubs_of, own, rng) -> None:
    """Trade links between leaves until no leaf holds a hub twice (a random pairing of the
    links leaves a few repeats)."""
    P = len(own)
    for _ in range(1000 * int(own.sum())):
        repeats = [(a, i) for a in range(P) for i in range(own[a])
                   if (hubs_of[a, :own[a]] == hubs_of[a, i]).sum() > 1]
        if not repeats:
            return
        for a, i in repeats:
            b = int(rng.integers(P))
            k = int(rng.integers(own[b]))
            j, other = hubs_of[a, i], hubs_of[b, k]
            if b != a and other not in hubs_of[a, :own[a]] and j not in hubs_of[b, :own[b]]:
                hubs_of[a, i], hubs_of[b, k] = other, j
    raise GolfError("could not give every leaf distinct hubs")  # pragma: no cover
