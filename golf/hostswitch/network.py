"""The host-switch graph of the Order/Radix problem: hosts, switches of radix ``r``, wiring.

A host-switch graph has ``n`` hosts and ``s`` switches. Every host has exactly one edge, to a
switch; switches connect to hosts and to each other; a switch has at most ``r`` edges (hosts
and switches alike); no self-loops, no duplicate edges, no host-host edges. In files (mnakao's
ORP format, :mod:`golf.hostswitch.orp_format`) hosts are ``0 .. n-1`` and switches
``n .. n+s-1``.

golf holds one in a form its kernels read directly:

``switches``     the switch-switch part as a :class:`golf.graph.Graph` on the ``s`` switches
                 (``g = 1``), rows of width ``r``: ``switches.adj[a]`` lists the switches
                 joined to switch ``a`` (local ids ``0 .. s-1``, -1 for a free slot);
``host_switch``  int32 ``(n,)``: the local id of each host's switch;
``host_counts``  int64 ``(s,)``: how many hosts each switch holds (derived).

A switch ``a`` then uses ``host_counts[a] + switches.base_degrees[a] <= r`` ports.
"""

from __future__ import annotations

import numpy as np

from golf.errors import GolfError
from golf.graph import MAX_ORDER, ROW_SLOTS_FLOOR, ROW_SLOTS_PER_END, Graph

__all__ = ["HostSwitchGraph", "Problems", "check_wiring", "SHOWN_PER_KIND"]

# problems of one kind that golf validate lists one by one; the rest are counted
SHOWN_PER_KIND = 10


class Problems:
    """The broken rules found in a host-switch file, each ``(line, kind, message)``.

    ``line`` orders them (0 for a problem of the whole file, listed after the lines); at most
    :data:`SHOWN_PER_KIND` of a kind are kept and the rest counted."""

    def __init__(self, source: str):
        self.source = source
        self.found: list = []
        self.count: dict = {}

    def __call__(self, line: int, kind: str, message: str) -> None:
        self.count[kind] = self.count.get(kind, 0) + 1
        if self.count[kind] <= SHOWN_PER_KIND:
            self.found.append((int(line) if line else 1 << 62, kind, message))

    def __len__(self) -> int:
        return sum(self.count.values())

    def messages(self) -> list[str]:
        """Every problem kept, by line, then one line for each kind with more."""
        out = [msg for _, _, msg in sorted(self.found, key=lambda t: t[0])]
        out += [f"{self.source}: {c - SHOWN_PER_KIND} more {kind}"
                for kind, c in self.count.items() if c > SHOWN_PER_KIND]
        return out

    def raise_first(self) -> None:
        """A GolfError with the first problem (by line) and how many more there are."""
        if self.found:
            first = self.messages()[0]
            more = len(self) - 1
            raise GolfError(first + (f" ({more} more problem{'s' if more != 1 else ''}: "
                                     f"golf validate lists them)" if more else ""))


def check_wiring(n: int, s: int, r: int, edges, lines, problems: Problems,
                 duplicates: list | None = None):
    """Check the edges of a host-switch graph against every rule; report each broken one.

    Parameters
    ----------
    n, s, r : int
        Hosts, switches and radix (each >= 1, ``n + s <= MAX_ORDER``).
    edges : ndarray of shape ``(E, 2)``
        Vertex ids as in the file (non-negative integers, hosts first).
    lines : ndarray of shape ``(E,)``
        The line of each edge, for the messages.
    problems : Problems
        Receives ``(line, kind, message)`` for every broken rule: an id ``>= n + s``, a
        self-loop, a host-host edge, a duplicate edge, a host's second edge, a switch with
        more than ``r`` edges, a host without an edge, and a file whose ``n`` or ``s * r``
        is far larger than its edges can use (nothing sized by them is allocated then).
    duplicates : list, optional
        Where to put the repeated edges, ``(line, first_line, u, v)`` each, instead of
        reporting them as problems; they are left out of the graph. Either way every line
        counts against the radix of its switches.

    Returns
    -------
    tuple or None
        ``(host_switch, switch_edges)`` (local switch ids; ``switch_edges`` ``(k, 2)`` with
        ``a < b``) when nothing is broken, else None.
    """
    from golf.io import repeated_edges

    src = problems.source
    e = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    lines = np.asarray(lines, dtype=np.int64)
    v = n + s

    def report(mask, kind, text):
        for k in np.flatnonzero(mask):
            problems(lines[k], kind, f"{src}:{lines[k]}: {text(k)}")
        return e[~mask], lines[~mask]

    def pair(k):
        return f"'{e[k, 0]} {e[k, 1]}'"

    e, lines = report(e.max(axis=1) >= v if len(e) else np.zeros(0, bool),
                      "ids out of range", lambda k: f"vertex id {e[k].max()} out of range in "
                      f"{pair(k)}: expected ids < n+s = {v} (hosts 0..{n - 1}, switches "
                      f"{n}..{v - 1})")
    e, lines = report(e[:, 0] == e[:, 1], "self-loops",
                      lambda k: f"self-loop {pair(k)} (an edge needs two distinct vertices)")
    e, lines = report(e.max(axis=1) < n if len(e) else np.zeros(0, bool), "host-host edges",
                      lambda k: f"edge {pair(k)} joins two hosts (hosts are 0..{n - 1}); a "
                      f"host's one edge goes to a switch")
    # the radix: every line takes a port of each switch it names (a duplicate line too: the
    # competition counts lines), and the (r+1)-th line at a switch is the first one too many
    ends = np.concatenate([e[:, 0], e[:, 1]])
    at = np.concatenate([lines, lines])
    on_switch = ends >= n
    ends, at = ends[on_switch], at[on_switch]
    order = np.lexsort((at, ends))
    ends, at = ends[order], at[order]
    starts = np.flatnonzero(np.r_[True, ends[1:] != ends[:-1]]) if len(ends) else ends
    for j0, c in zip(starts, np.diff(np.r_[starts, len(ends)])):
        if c > r:
            problems(at[j0 + r], "switches over the radix", f"{src}:{at[j0 + r]}: switch "
                     f"{ends[j0]} has {c} edges, more than the radix r={r} allows (hosts and "
                     f"switches alike); this line holds its edge number {r + 1}")
    keep, repeats = repeated_edges(e)
    for k, k0 in repeats:
        if duplicates is None:
            problems(lines[k], "duplicate edges", f"{src}:{lines[k]}: duplicate edge "
                     f"{pair(k)} (first on line {lines[k0]})")
        else:
            duplicates.append((int(lines[k]), int(lines[k0]), int(e[k, 0]), int(e[k, 1])))
    e, lines = e[keep], lines[keep]
    host = e.min(axis=1) < n
    he, hl = e[host], lines[host]
    h, w = he.min(axis=1), he.max(axis=1) - n
    # a host's second edge: the hosts sorted stably, so each host's first edge comes first
    order = np.argsort(h, kind="stable")
    hs = h[order]
    repeat = np.r_[False, hs[1:] == hs[:-1]]
    first = order[np.maximum.accumulate(np.where(repeat, 0, np.arange(len(hs))))]
    again = np.zeros(len(h), dtype=bool)
    again[order[repeat]] = True
    for k, k0 in zip(order[repeat], first[repeat]):
        problems(hl[k], "second edges of hosts", f"{src}:{hl[k]}: host {h[k]} has a second "
                 f"edge '{he[k, 0]} {he[k, 1]}' (its first is on line {hl[k0]}); a host has "
                 f"exactly one edge, to a switch")
    h, w = h[~again], w[~again]
    se = e[~host] - n
    if n > len(h):
        if n > 2 * len(e) + 1024:  # nothing sized by n: a header far beyond the file
            problems(0, "hosts without an edge", f"{src}: {n} hosts but {len(h)} host edges: "
                     f"every host needs exactly one edge, to a switch")
        else:
            has = np.zeros(n, dtype=bool)
            has[h] = True
            for x in np.flatnonzero(~has):
                problems(0, "hosts without an edge", f"{src}: host {x} has no edge (every "
                         f"host has exactly one edge, to a switch)")
    slots = s * r
    allowed = max(ROW_SLOTS_FLOOR, ROW_SLOTS_PER_END * 2 * len(e))
    if slots > allowed:
        problems(0, "oversized headers", f"{src}: {s} switches of radix {r} would take "
                 f"{slots} slots for {len(e)} edges; expected s*r <= {allowed} (a number of "
                 f"switches or a radix far above what the edges use)")
    if len(problems):
        return None
    host_switch = np.empty(n, dtype=np.int32)
    host_switch[h] = w
    se = np.sort(se, axis=1)
    return host_switch, se[np.lexsort((se[:, 1], se[:, 0]))]


class HostSwitchGraph:
    """A host-switch graph: ``n`` hosts, ``s`` switches of radix ``r``.

    Parameters
    ----------
    n, s, r : int
        Hosts, switches and radix, each >= 1.
    switches : golf.graph.Graph
        The switch-switch edges: a graph on ``s`` vertices with ``g = 1`` and rows of width
        ``r`` (local switch ids; see the module docstring).
    host_switch : array_like of shape ``(n,)``
        The local id of each host's switch.

    Taken as given: :meth:`check` verifies the rules, :meth:`from_edges` builds one from an
    edge list and checks it.
    """

    __slots__ = ("n", "s", "r", "switches", "host_switch")

    def __init__(self, n: int, s: int, r: int, switches: Graph, host_switch):
        n, s, r = int(n), int(s), int(r)
        if n < 1 or s < 1 or r < 1:
            raise GolfError(f"hosts, switches and radix must be >= 1, got n={n}, s={s}, r={r}")
        if n + s > MAX_ORDER:
            raise GolfError(f"n+s={n + s} is above the largest order golf handles, "
                            f"{MAX_ORDER}")
        if (switches.n, switches.d, switches.g) != (s, r, 1):
            raise GolfError(f"the switch graph must have n=s={s}, d=r={r}, g=1, got "
                            f"n={switches.n}, d={switches.d}, g={switches.g}")
        hs = np.ascontiguousarray(host_switch, dtype=np.int32)
        if hs.shape != (n,):
            raise GolfError(f"host_switch must have shape ({n},), got {hs.shape}")
        self.n, self.s, self.r, self.switches, self.host_switch = n, s, r, switches, hs

    # -- what it is ---------------------------------------------------------------------
    @property
    def host_counts(self) -> np.ndarray:
        """How many hosts each switch holds, int64 ``(s,)``."""
        return np.bincount(self.host_switch, minlength=self.s).astype(np.int64)

    @property
    def ports_used(self) -> np.ndarray:
        """Edges at each switch, hosts and switches alike, int64 ``(s,)``."""
        return self.host_counts + self.switches.base_degrees.astype(np.int64)

    @property
    def num_edges(self) -> int:
        return self.n + self.switches.num_edges

    def edges(self) -> np.ndarray:
        """Every edge with the file's ids, ``(n + E_s, 2)`` int64: the host edges
        ``(host, n + switch)`` by host, then the switch edges ``(n + a, n + b)``, ``a < b``,
        sorted."""
        hosts = np.stack([np.arange(self.n, dtype=np.int64),
                          self.host_switch.astype(np.int64) + self.n], axis=1)
        return np.concatenate([hosts, self.switches.edges() + self.n])

    def check(self) -> None:
        """Verify every rule (see the module docstring).

        Raises
        ------
        GolfError
            Naming the broken rule and the vertices.
        """
        hs = self.host_switch
        if len(hs) and (hs.min() < 0 or hs.max() >= self.s):
            k = int(np.flatnonzero((hs < 0) | (hs >= self.s))[0])
            raise GolfError(f"host {k} is on switch {hs[k]}: expected a local switch id in "
                            f"[0, {self.s})")
        self.switches.check()
        over = np.flatnonzero(self.ports_used > self.r)
        if len(over):
            a = int(over[0])
            raise GolfError(f"switch {a + self.n} has {self.ports_used[a]} edges ("
                            f"{self.host_counts[a]} hosts), more than the radix r={self.r}")

    # -- construction -------------------------------------------------------------------
    @classmethod
    def from_edges(cls, n: int, s: int, r: int, edges, source: str = "<edges>",
                   lines=None) -> "HostSwitchGraph":
        """Build a host-switch graph from its edges (hosts ``0..n-1``, switches
        ``n..n+s-1``).

        Parameters
        ----------
        n, s, r : int
            Hosts, switches and radix, each >= 1.
        edges : array_like of shape ``(E, 2)``
            Non-negative integer vertex ids, each edge once.
        source, lines :
            The file name and the line of each edge, for the messages.

        Returns
        -------
        HostSwitchGraph

        Raises
        ------
        GolfError
            The first broken rule by line (:func:`check_wiring` lists them), with the count
            of the others.

        Examples
        --------
        >>> net = HostSwitchGraph.from_edges(4, 2, 3, [(0, 4), (1, 4), (2, 5), (3, 5), (4, 5)])
        >>> net.host_counts.tolist(), net.num_edges
        ([2, 2], 5)
        """
        n, s, r = int(n), int(s), int(r)
        if n < 1 or s < 1 or r < 1:
            raise GolfError(f"{source}: hosts, switches and radix must be >= 1, got n={n}, "
                            f"s={s}, r={r}")
        if n + s > MAX_ORDER:
            raise GolfError(f"{source}: n+s={n + s} is above the largest order golf "
                            f"handles, {MAX_ORDER}")
        e = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
        if (e < 0).any():
            k = int(np.flatnonzero((e < 0).any(axis=1))[0])
            raise GolfError(f"{source}: negative vertex id in edge '{e[k, 0]} {e[k, 1]}'")
        if lines is None:
            lines = np.arange(1, len(e) + 1)
        problems = Problems(source)
        found = check_wiring(n, s, r, e, lines, problems)
        problems.raise_first()
        return cls.from_wiring(n, s, r, *found)

    @classmethod
    def from_wiring(cls, n: int, s: int, r: int, host_switch, switch_edges
                    ) -> "HostSwitchGraph":
        """The graph of what :func:`check_wiring` returns: each host's local switch id and
        the switch-switch edges ``(k, 2)`` in local ids, each once (not checked again)."""
        se = np.asarray(switch_edges, dtype=np.int64).reshape(-1, 2)
        return cls(n, s, r, Graph(s, r, 1, _rows(s, r, se)), host_switch)

    def __eq__(self, other) -> bool:
        if not isinstance(other, HostSwitchGraph):
            return NotImplemented
        return ((self.n, self.s, self.r) == (other.n, other.s, other.r)
                and np.array_equal(self.host_switch, other.host_switch)
                and np.array_equal(self.switches.edges(), other.switches.edges()))

    def __repr__(self) -> str:
        return (f"HostSwitchGraph(n={self.n}, s={self.s}, r={self.r}, "
                f"switch_edges={self.switches.num_edges})")

    def copy(self) -> "HostSwitchGraph":
        return HostSwitchGraph(self.n, self.s, self.r, self.switches.copy(),
                               self.host_switch.copy())


def _rows(s: int, r: int, se) -> np.ndarray:
    """Rows of width ``r`` of the switch graph with the edges ``se`` (local ids, each once):
    each switch's neighbours in ascending order, then -1."""
    u = np.concatenate([se[:, 0], se[:, 1]])
    w = np.concatenate([se[:, 1], se[:, 0]])
    order = np.lexsort((w, u))
    u, w = u[order], w[order]
    start = np.zeros(s + 1, dtype=np.int64)
    np.cumsum(np.bincount(u, minlength=s), out=start[1:])
    adj = np.full((s, r), -1, dtype=np.int32)
    adj[u, np.arange(len(u)) - start[u]] = w
    return adj
