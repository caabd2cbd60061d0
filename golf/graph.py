"""The g-symmetric graph: base rows, expansion to the full graph, edge lists, checks.

A graph on ``n`` vertices is *g-symmetric* when the rotation ``v -> (v + m) mod n`` with
``m = n / g`` maps it onto itself. Such a graph is stored as its ``m`` base rows: ``adj[i]`` holds
the neighbours of vertex ``i`` (``0 <= i < m``) as full vertex ids, ``-1`` marking an empty slot
(degrees may be below ``d``). Vertex ``v = k*m + i`` then has the neighbours
``(adj[i][j] + k*m) mod n``. ``g = 1`` is an ordinary graph.

With a non-cyclic symmetry group (``group``, a :class:`golf.group.Group` of order ``g``) the
same rows hold the graph, and vertex ``k*m + i`` has the neighbours ``adj[i][j]`` moved by the
group element ``k`` (:meth:`golf.group.Group.act`); the cyclic group is ``group=None``.

**Centre vertices** (``centres = c > 0``): ``n = g*m + c``. The ``g*m`` vertices ``0 .. g*m-1``
are numbered as above; the ``c`` vertices ``g*m .. n-1`` are *centres*, fixed by every group
element. A centre is adjacent to whole orbits: when base row ``i`` holds the centre ``z``, every
vertex ``k*m + i`` is adjacent to ``z`` (``g`` edges, one orbit), so a centre has degree ``g``
times the number of base rows that hold it, and needs ``g <= d``. Centres have no rows of their
own (their neighbours follow from the base rows) and no edges between them. This form serves
orders that no useful ``g`` divides (a prime, twice a prime): ``n = g*m + c`` for a ``g`` of
``n - c``.

An edge orbit (the ``g`` rotated copies of one edge) appears in the base rows once from each end:
the edge ``i -- w`` with ``w = k*m + i2`` sits in row ``i`` as ``w`` and in row ``i2`` as
``(i - k*m) mod n``. When ``g`` is even, the edge ``i -- i + n/2`` is its own rotation by ``n/2``:
that orbit has ``g/2`` edges and takes a single slot of row ``i``.
"""

from __future__ import annotations

import math

import numpy as np

from golf.errors import GolfError

__all__ = ["Graph", "check_form", "rotate_key", "sort_rows", "detect_symmetry", "edge_array", "MAX_ORDER",
           "SPARE_VERTICES", "order_limit", "check_rows"]

# the largest order golf handles: the base rows hold vertex ids as int32
MAX_ORDER = 2**31 - 1
# ids inferred from an edge list (no n given): E edges touch at most 2E vertices, and the
# largest id + 1 may leave at most this many more of them without an edge (see order_limit)
SPARE_VERTICES = 1024
# the base rows (m rows of d int32 slots) may hold at most ROW_SLOTS_PER_END slots for each
# edge end they store, or ROW_SLOTS_FLOOR slots (256 MiB) whatever the edges (see check_rows)
ROW_SLOTS_PER_END = 16
ROW_SLOTS_FLOOR = 2**26


def order_limit(num_edges: int) -> int:
    """The most vertices an edge list of ``num_edges`` edges may imply when no ``n`` is given:
    ``2 * num_edges + SPARE_VERTICES``. The edges touch at most ``2 * num_edges`` vertices; a
    larger id leaves the vertices below it without an edge, and golf allows
    :data:`SPARE_VERTICES` of those (a graph being built, ids from 1). Anything beyond is not a
    sensible graph of that file (a typo, another tool's labels): golf refuses it before it
    allocates anything sized by the id, so reading costs memory in proportion to the file."""
    return 2 * int(num_edges) + SPARE_VERTICES


def check_rows(n: int, d: int, g: int, num_edges: int, source: str = "<edges>") -> None:
    """Refuse base rows far larger than the edges need, before they are allocated.

    The rows take ``m = n/g`` rows of ``d`` slots (4 bytes each): every vertex as wide as the
    largest degree. That is what a Graph Golf graph (all degrees <= d) needs, but a star of
    ``E`` edges would take ``E^2`` slots and an ``n`` or ``d`` given far beyond the edges would
    take memory the file does not justify. Allowed: up to :data:`ROW_SLOTS_PER_END` slots for
    each of the ``2E/g`` edge ends the rows store, or :data:`ROW_SLOTS_FLOOR` slots, whichever
    is larger; and ``n <= MAX_ORDER``.

    Raises
    ------
    GolfError
        Naming ``source``, ``n``, ``d``, ``g``, the number of edges and the limit.
    """
    if n > MAX_ORDER:
        raise GolfError(f"{source}: n={n} is above the largest order golf handles, {MAX_ORDER} "
                        f"(vertex ids are 32-bit)")
    m = n // g
    slots = m * max(d, 1)
    allowed = max(ROW_SLOTS_FLOOR, ROW_SLOTS_PER_END * (2 * int(num_edges) // g))
    if slots > allowed:
        raise GolfError(
            f"{source}: n={n}, d={d}, g={g}: the base rows would take {m} x {max(d, 1)} slots "
            f"({4 * slots / 2**30:.1f} GiB) for {num_edges} edges; expected at most {allowed} "
            f"slots ({ROW_SLOTS_PER_END} per edge end, at least {ROW_SLOTS_FLOOR}): a degree, n "
            f"or d far above what the edges use")


def check_form(n: int, g: int, centres: int = 0, source: str = "") -> None:
    """Refuse a symmetry that does not fit ``n``: ``g`` must divide ``n - centres``, and
    centres need ``g >= 2`` and ``0 <= centres < n``."""
    at = f"{source}: " if source else ""
    if centres < 0 or (centres and centres >= n):
        raise GolfError(f"{at}centres must be in [0, n={n}), got {centres}")
    if isinstance(g, bool) or g < 1 or (n - centres) % g:
        what = f"n={n}" if not centres else f"n - centres = {n - centres}"
        raise GolfError(f"{at}g must be a positive divisor of {what}, got {g}")
    if centres and g < 2:
        raise GolfError(f"{at}centres need a symmetry g >= 2 (with g = 1 every vertex is "
                        f"already a base vertex)")


def rotate_key(u, v, shift, n):
    """Key ``u*n + v`` of the directed edge ``(u, v)`` rotated by ``shift``."""
    return ((u + shift) % n) * n + (v + shift) % n


def sort_rows(adj) -> np.ndarray:
    """Base rows in canonical form: each row's neighbours ascending, empty slots (-1) last
    (other negative marks, a host-switch graph's host ports, just before them)."""
    a = np.asarray(adj, dtype=np.int64)
    big = np.iinfo(np.int64).max
    s = np.sort(np.where(a < 0, big + a + 1, a), axis=1)
    return np.ascontiguousarray(np.where(s > big - 64, s - big - 1, s).astype(np.int32))


def edge_array(edges, source: str = "<edges>") -> np.ndarray:
    """``edges`` (any array-like of shape ``(k, 2)`` holding integers: a list of pairs, an
    integer NumPy array of any width, an empty list) as an int64 ``(k, 2)`` array; a
    GolfError naming ``source`` for another shape, non-integers or ids beyond int64."""
    try:
        arr = np.asarray(edges)
    except (ValueError, TypeError, OverflowError):  # ragged rows, unconvertible objects
        raise GolfError(f"{source}: expected a (k, 2) array of vertex ids (pairs of "
                        f"integers)") from None
    if arr.size == 0:
        return np.zeros((0, 2), dtype=np.int64)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise GolfError(f"{source}: expected a (k, 2) array of vertex ids, got shape "
                        f"{arr.shape}")
    if arr.dtype.kind == "u" and arr.max() > np.iinfo(np.int64).max:
        raise GolfError(f"{source}: vertex id {arr.max()} is too large")
    if arr.dtype.kind not in "iu":
        whole = arr.dtype.kind == "O" and all(
            isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in arr.flat)
        if not whole:
            raise GolfError(f"{source}: expected integer vertex ids, got {arr.dtype} values "
                            f"(first pair {arr[0].tolist()})")
        if any(not -2**63 <= x < 2**63 for x in arr.flat):
            raise GolfError(f"{source}: a vertex id does not fit 64 bits")
    return arr.astype(np.int64, copy=False)


def detect_symmetry(edges, n: int) -> int:
    """The largest ``g`` for which the graph is g-symmetric (rotation by ``n/g`` maps it onto
    itself); 1 when it has no such symmetry. The shifts that preserve a graph form a subgroup
    of Z_n, so the smallest working shift ``s`` (a divisor of ``n``) gives ``g = n/s``."""
    e = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    if len(e) == 0:
        return n
    u = np.concatenate([e[:, 0], e[:, 1]])
    v = np.concatenate([e[:, 1], e[:, 0]])
    keys = np.sort(u * n + v)
    small = [s for s in range(1, math.isqrt(n) + 1) if n % s == 0]  # O(sqrt n), not O(n)
    for s in sorted(set(small + [n // s for s in small]) - {n}):
        rot = np.sort(rotate_key(u, v, s, n))
        if np.array_equal(rot, keys):
            return n // s
    return 1


class Graph:
    """A g-symmetric undirected simple graph held as its base rows.

    Parameters
    ----------
    n : int
        Number of vertices.
    d : int
        Row width: the largest degree allowed (the ``d`` of the Order/Degree problem).
    g : int
        Number of groups; must divide ``n``.
    adj : array_like of shape ``(n // g, d)``
        Base rows (int32, ``-1`` = empty slot). Taken as is: use :meth:`check` to verify
        the invariants, :meth:`from_edges` to build from an edge list.
    group : golf.group.Group, optional
        The symmetry group, of order ``g`` (default: the cyclic group ``Z_g``).
    centres : int, default 0
        Centre vertices ``n - c .. n-1``, fixed by the group (module docstring); ``g`` must
        then divide ``n - c`` and be at least 2.
    """

    __slots__ = ("n", "d", "g", "group", "centres", "_adj")

    def __init__(self, n: int, d: int, g: int, adj, group=None, centres: int = 0):
        n, d, g, c = int(n), int(d), int(g), int(centres)
        if n < 1:
            raise GolfError(f"n must be >= 1, got {n}")
        check_form(n, g, c)
        if d < 0:
            raise GolfError(f"d must be >= 0, got {d}")
        if group is not None and group.g != g:
            raise GolfError(f"the group {group.label} has order {group.g}, not g={g}")
        self.n, self.d, self.g, self.group, self.centres = n, d, g, group, c
        self.adj = adj

    @property
    def adj(self) -> np.ndarray:
        """The base rows: a C-contiguous, aligned int32 array of shape ``(m, d)`` (the
        compiled kernels rely on it; assigning another array converts or refuses it)."""
        return self._adj

    @adj.setter
    def adj(self, value) -> None:
        adj = np.ascontiguousarray(value, dtype=np.int32)
        if not adj.flags.aligned:
            adj = adj.copy()
        if adj.shape != (self.m, self.d):
            raise GolfError(f"base rows must have shape ({self.m}, {self.d}), got "
                            f"{adj.shape}")
        self._adj = adj

    # -- basic properties -------------------------------------------------------------------
    @property
    def m(self) -> int:
        """Number of base vertices (``(n - centres) // g``)."""
        return (self.n - self.centres) // self.g

    @property
    def n_sym(self) -> int:
        """Vertices moved by the group, ``g*m`` (``n`` without centres); ids from here up are
        the centres."""
        return self.n - self.centres

    @property
    def base_degrees(self) -> np.ndarray:
        """Degree of each base vertex (every vertex ``k*m + i`` has ``base_degrees[i]``)."""
        return (self.adj >= 0).sum(axis=1)

    def centre_degrees(self) -> np.ndarray:
        """Degree of each centre, shape ``(centres,)``: ``g`` per base row that holds it."""
        w = self.adj[self.adj >= self.n_sym].astype(np.int64) - self.n_sym
        return np.bincount(w, minlength=self.centres)[: self.centres] * self.g

    def degrees(self) -> np.ndarray:
        """Degree of every vertex, shape ``(n,)``."""
        return np.concatenate([np.tile(self.base_degrees, self.g), self.centre_degrees()])

    @property
    def max_degree(self) -> int:
        return int(self.degrees().max()) if self.n else 0

    @property
    def num_edges(self) -> int:
        return (int(self.base_degrees.sum()) * self.g + int(self.centre_degrees().sum())) // 2

    def neighbors(self, v: int) -> np.ndarray:
        """Neighbours of vertex ``v`` (sorted)."""
        if not 0 <= v < self.n:
            raise GolfError(f"vertex {v} out of range [0, {self.n})")
        if v >= self.n_sym:  # a centre: every vertex of the orbits whose base row holds it
            rows = np.flatnonzero((self.adj == v).any(axis=1)).astype(np.int64)
            ks = np.arange(self.g, dtype=np.int64)[:, None]
            return np.sort((rows[None, :] + ks * self.m).ravel())
        k, i = divmod(int(v), self.m)
        row = self.adj[i]
        return np.sort(self.moved(row[row >= 0].astype(np.int64), k))

    def moved(self, w, k):
        """Vertex ids ``w`` moved by the group element(s) ``k`` (cyclic: ``(w + k*m) mod
        g*m``); centres stay where they are."""
        w = np.asarray(w, dtype=np.int64)
        k = np.asarray(k, dtype=np.int64)
        if self.group is None:
            out = (w + k * self.m) % self.n_sym
        else:
            out = self.group.act(np.minimum(w, self.n_sym - 1), k, self.m)
        return np.where(w >= self.n_sym, w, out) if self.centres else out

    def reverse_slots(self, i, w) -> tuple[np.ndarray, np.ndarray]:
        """The other end of the orbit of each base slot ``(i, w)`` (row ``i`` holds ``w =
        k*m + i2``, neither a centre): row ``i2`` holds ``i`` moved by ``k``'s inverse."""
        i = np.asarray(i, dtype=np.int64)
        w = np.asarray(w, dtype=np.int64)
        i2 = w % self.m
        if self.group is None:
            return i2, (i - (w - i2)) % self.n_sym
        return i2, self.group.act(i, self.group.inv(w // self.m), self.m)

    def with_rows(self, adj) -> "Graph":
        """A graph of this shape and group with other base rows."""
        return Graph(self.n, np.shape(adj)[1], self.g, adj, self.group, self.centres)

    def copy(self) -> "Graph":
        return Graph(self.n, self.d, self.g, self.adj.copy(), self.group, self.centres)

    @property
    def form(self) -> tuple:
        """``(n, g, group, centres)``: what two graphs must share to be scored alike."""
        return self.n, self.g, self.group, self.centres

    def __eq__(self, other) -> bool:
        if not isinstance(other, Graph):
            return NotImplemented
        return self.form == other.form and np.array_equal(
            np.sort(self.edges(), axis=0), np.sort(other.edges(), axis=0)
        )

    def __repr__(self) -> str:
        grp = "" if self.group is None else f", group={self.group.label}"
        cen = f", centres={self.centres}" if self.centres else ""
        return f"Graph(n={self.n}, d={self.d}, g={self.g}{grp}{cen}, edges={self.num_edges})"

    # -- expansion --------------------------------------------------------------------------
    def _directed_base(self):
        """Base slots as two arrays ``(i, w)``: row index and neighbour id."""
        rows, cols = np.nonzero(self.adj >= 0)
        return rows.astype(np.int64), self.adj[rows, cols].astype(np.int64)

    def directed_edges(self) -> tuple[np.ndarray, np.ndarray]:
        """Every directed edge ``(u, v)`` of the full graph (each undirected edge twice)."""
        i, w = self._directed_base()
        ks = np.arange(self.g, dtype=np.int64)[:, None]
        u = (i[None, :] + ks * self.m).ravel()
        v = self.moved(w[None, :], ks).ravel()
        if self.centres:  # the centres' ends of their orbits
            at = v >= self.n_sym
            u, v = np.concatenate([u, v[at]]), np.concatenate([v, u[at]])
        return u, v

    def _full_rows(self):
        """Every vertex's neighbours, ``(n, d)``, each row sorted with its empty slots last
        (as ``n``); None for a centre form. Vertex ``k*m + i`` is row ``i`` moved by ``k``,
        so the rows come in vertex order and only each row's few neighbours need sorting."""
        if self.centres or not self.adj.size:
            return None
        n, d = self.n, self.adj.shape[1]
        w = self.adj.reshape(1, -1).astype(np.int64)
        v = self.moved(np.maximum(w, 0), np.arange(self.g, dtype=np.int64)[:, None])
        v = np.where(w >= 0, v, n).reshape(n, d)
        v.sort(axis=1)
        return v

    def edges(self) -> np.ndarray:
        """The full edge list, shape ``(E, 2)``, each undirected edge once as ``u < v``,
        sorted by ``u`` then ``v``."""
        v = self._full_rows()
        if v is not None:
            u = np.broadcast_to(np.arange(self.n, dtype=np.int64)[:, None], v.shape)
            keep = (v > u) & (v < self.n)
            return np.stack([u[keep], v[keep]], axis=1)
        u, v = self.directed_edges()
        keep = u < v
        u, v = u[keep], v[keep]
        order = np.lexsort((v, u))
        return np.stack([u[order], v[order]], axis=1)

    def csr(self) -> tuple[np.ndarray, np.ndarray]:
        """The full graph in CSR form ``(indptr, indices)`` with sorted neighbour lists."""
        v = self._full_rows()
        indptr = np.zeros(self.n + 1, dtype=np.int64)
        if v is not None:
            full = v < self.n
            np.cumsum(full.sum(axis=1), out=indptr[1:])
            return indptr, v[full]
        u, v = self.directed_edges()
        order = np.lexsort((v, u))
        np.cumsum(np.bincount(u, minlength=self.n), out=indptr[1:])
        return indptr, v[order]

    # -- construction -----------------------------------------------------------------------
    @classmethod
    def from_edges(cls, edges, n: int | None = None, g: int = 1, d: int | None = None,
                   source: str = "<edges>", lines=None, group=None,
                   centres: int = 0) -> "Graph":
        """Build a g-symmetric graph from an undirected edge list.

        Parameters
        ----------
        edges : array_like of shape ``(k, 2)``
            Integer vertex ids from 0 (a list of pairs, or a NumPy array of any integer
            type); each undirected edge once, no self-loops, no duplicates
            (:func:`golf.io.read_edges` reports and removes those).
        n : int, optional
            Number of vertices (default: largest id + 1, which must be below
            :func:`order_limit` of the edge count: ``2E + 1024``).
        g : int or "auto"
            Symmetry to verify and exploit (``"auto"``: the largest that holds).
        d : int, optional
            Row width (default: the largest degree).
        source, lines :
            File name and per-edge line numbers, used in error messages.
        group : golf.group.Group, optional
            A non-cyclic symmetry group of order ``g`` to verify and exploit (vertex
            ``h*m + i`` is base vertex ``i`` moved by element ``h``; see :mod:`golf.group`).
        centres : int, default 0
            The last ``centres`` vertices are centres, fixed by the symmetry (see the module
            docstring): ``g`` divides ``n - centres``, and no two centres are adjacent.

        Returns
        -------
        Graph

        Raises
        ------
        GolfError
            On another shape than ``(k, 2)``, non-integer ids, an id out of range (without
            ``n``: an id of ``2E + 1024`` or more), a self-loop, a duplicate edge, a degree
            above ``d``, base rows far larger than the edges need (:func:`check_rows`), or,
            for ``g > 1``, an edge whose rotation by ``n/g`` is missing (named in the
            message). Every check runs before anything sized by ``n`` is allocated.

        Examples
        --------
        >>> from golf import Graph
        >>> c5 = Graph.from_edges([(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)], g="auto")
        >>> c5.n, c5.g, c5.num_edges
        (5, 5, 5)
        """
        e = edge_array(edges, source)
        where = (lambda k: f"{source}:{int(lines[k])}") if lines is not None else (
            lambda k: f"{source}: edge #{k + 1}")
        if len(e):
            neg = np.flatnonzero((e < 0).any(axis=1))
            if len(neg):
                k = neg[0]
                raise GolfError(f"{where(k)}: vertex id out of range (negative) in edge "
                                f"'{e[k, 0]} {e[k, 1]}' (ids start at 0; {len(neg)} such edges)")
        for name, value in (("n", n), ("d", d)):
            if value is not None and (isinstance(value, bool)
                                      or not isinstance(value, (int, np.integer))):
                raise GolfError(f"{source}: {name} must be an integer, got {value!r}")
        if d is not None and d < 0:
            raise GolfError(f"{source}: d must be >= 0, got {d}")
        if n is None:  # the largest id + 1, within what the edges can use
            n = int(e.max()) + 1 if len(e) else 1
            limit = order_limit(len(e))
            if n > limit:
                k = int(np.argmax(e.max(axis=1)))
                raise GolfError(
                    f"{where(k)}: vertex id {n - 1} is too large for {len(e)} edges: expected "
                    f"ids < {limit} ({len(e)} edges touch at most {2 * len(e)} vertices, and at "
                    f"most {SPARE_VERTICES} more may have no edge); give the vertex count n "
                    f"(golf eval --n) to allow larger ids")
        n = int(n)
        if n < 1:
            raise GolfError(f"{source}: n must be >= 1, got {n}")
        if n > MAX_ORDER:
            raise GolfError(f"{source}: n={n} is above the largest order golf handles, "
                            f"{MAX_ORDER} (vertex ids are 32-bit)")
        if len(e):
            bad = np.flatnonzero((e >= n).any(axis=1))
            if len(bad):
                k = bad[0]
                raise GolfError(f"{where(k)}: vertex id out of range [0, {n}) in edge "
                                f"'{e[k, 0]} {e[k, 1]}' ({len(bad)} such edges)")
            loops = np.flatnonzero(e[:, 0] == e[:, 1])
            if len(loops):
                k = loops[0]
                raise GolfError(f"{where(k)}: self-loop '{e[k, 0]} {e[k, 1]}'")
        if g == "auto" and group is not None:
            raise GolfError(f"{source}: g: auto finds cyclic symmetry only; give g={group.g} "
                            f"with the group {group.label}")
        if group is not None and g != group.g:
            raise GolfError(f"{source}: the group {group.label} has order {group.g}, not g={g}")
        centres = int(centres)
        if g == "auto" and centres:
            raise GolfError(f"{source}: g: auto finds cyclic symmetry without centres only; "
                            f"give g")
        if g == "auto":
            g = detect_symmetry(e, n)
        if isinstance(g, bool) or not isinstance(g, (int, np.integer)):
            raise GolfError(f"{source}: g={g} does not divide n={n}")
        if g < 1 or (n - centres) % g or centres:
            if not centres:
                raise GolfError(f"{source}: g={g} does not divide n={n}")
            check_form(n, int(g), centres, source)
        g = int(g)
        n_sym = n - centres
        if centres and len(e):
            both = np.flatnonzero((e >= n_sym).all(axis=1))
            if len(both):
                k = both[0]
                raise GolfError(f"{where(k)}: edge '{e[k, 0]} {e[k, 1]}' joins two centres "
                                f"(vertices >= {n_sym}); centres are adjacent to whole orbits "
                                f"only")
        u = np.concatenate([e[:, 0], e[:, 1]])
        v = np.concatenate([e[:, 1], e[:, 0]])
        skey = u * n + v  # n < 2^31: no overflow; sorted in place (memory: 10^8 edges)
        skey.sort()
        if (skey[1:] == skey[:-1]).any():  # the edge of the first repeat, by the stable order
            key = u * n + v
            order = np.argsort(key, kind="stable")
            dup = np.flatnonzero(key[order[1:]] == key[order[:-1]])
            k = order[dup[0] + 1] % len(e)
            raise GolfError(f"{where(k)}: duplicate edge '{e[k, 0]} {e[k, 1]}'")
        # degrees of the vertices with an edge (memory by the edges, not by n)
        if n <= len(u) + SPARE_VERTICES:  # a count a vertex costs no more than the edges
            ids, deg = None, np.bincount(u, minlength=n)
        else:
            ids, deg = np.unique(u, return_counts=True)
        maxdeg = int(deg.max()) if len(deg) else 0
        if d is None:
            d = maxdeg
        if maxdeg > d:
            v0 = int(np.argmax(deg)) if ids is None else int(ids[np.argmax(deg)])
            raise GolfError(f"{source}: vertex {v0} has degree {maxdeg} > d={d}")
        check_rows(n, int(d), g, len(e), source)
        m = n_sym // g
        # the generators of the group: the rotation by m, or the elements (0, 1) and (1, 0)
        gens = [] if g == 1 else [1] if group is None else [1, group.b]
        for gen in gens if len(e) else []:
            if group is None:
                def move(x):
                    return (x + m) % n_sym
                how = f"rotation v -> v+{m} mod {n_sym}"
            else:
                def move(x):
                    return group.act(np.minimum(x, n_sym - 1), gen, m)
                how = f"element {gen} of {group.label}"
            def moved_keys():
                if centres:
                    return (np.where(u >= n_sym, u, move(u)) * n
                            + np.where(v >= n_sym, v, move(v)))
                rot = move(u)
                rot *= n
                rot += move(v)
                return rot

            # the moved edges are the edges (both sets without repeats) when they sort alike:
            # a sort in place, not a search of each (random reads: minutes at 10^8 edges)
            rot = moved_keys()
            rot.sort()
            if np.array_equal(rot, skey):
                continue
            rot = moved_keys()  # in edge order, to name the first edge without its copy
            pos = np.searchsorted(skey, rot)
            pos[pos >= len(skey)] = 0
            missing = np.flatnonzero(skey[pos] != rot)
            if len(missing):
                k = missing[0]
                ru, rv = divmod(int(rot[k]), n)
                what = f"{g}-symmetric" if group is None else f"{group.label}-symmetric"
                raise GolfError(
                    f"{where(k % len(e))}: graph is not {what}: edge "
                    f"'{u[k]} {v[k]}' has no rotated copy '{min(ru, rv)} {max(ru, rv)}' "
                    f"({how}); {len(missing)} directed edges lack theirs")
        # base rows: neighbours of vertices 0..m-1, sorted, padded with -1
        su, sv = skey // n, skey % n
        take = su < m
        su, sv = su[take], sv[take]
        adj = np.full((m, d), -1, dtype=np.int32)
        start = np.zeros(m + 1, dtype=np.int64)
        np.cumsum(np.bincount(su, minlength=m), out=start[1:])
        slot = np.arange(len(su)) - start[su]
        adj[su, slot] = sv
        return cls(n, d, g, adj, group, centres)

    @classmethod
    def from_networkx(cls, G, g=1, d: int | None = None) -> "Graph":
        """Build a graph from a networkx graph (networkx is optional: a GolfError says how
        to install it when it is missing).

        The vertices are numbered in the order ``G.nodes()`` lists them (the ids themselves
        when they are ``0 .. n-1``); self-loops are an error.

        Parameters
        ----------
        G : networkx.Graph
            An undirected simple graph.
        g : int or "auto"
            Symmetry to verify and exploit, as in :meth:`from_edges`.
        d : int, optional
            Row width (default: the largest degree).

        Returns
        -------
        Graph

        Raises
        ------
        GolfError
            For a directed graph or a multigraph, a self-loop, or a symmetry ``g`` that does
            not hold.

        Examples
        --------
        >>> import networkx as nx
        >>> from golf import Graph
        >>> Graph.from_networkx(nx.petersen_graph())
        Graph(n=10, d=3, g=1, edges=15)
        """
        if G.is_directed() or G.is_multigraph():
            raise GolfError("from_networkx: expected an undirected simple graph (nx.Graph), "
                            f"got a {type(G).__name__}")
        nodes = list(G.nodes())
        n = len(nodes)
        if n == 0:
            raise GolfError("from_networkx: the graph has no vertices")
        if nodes == list(range(n)):
            edges = list(G.edges())
        else:
            index = {v: i for i, v in enumerate(nodes)}
            edges = [(index[u], index[v]) for u, v in G.edges()]
        return cls.from_edges(np.array(edges, dtype=np.int64).reshape(-1, 2), n=n, g=g, d=d,
                              source="from_networkx")

    def to_networkx(self):
        """The full graph as a ``networkx.Graph`` on the vertices ``0 .. n-1``.

        Returns
        -------
        networkx.Graph

        Raises
        ------
        GolfError
            networkx is not installed.

        Examples
        --------
        >>> from golf import random_graph
        >>> G = random_graph(12, 3, seed=1).to_networkx()
        >>> G.number_of_nodes(), G.number_of_edges()
        (12, 18)
        """
        nx = _networkx()
        G = nx.Graph()
        G.add_nodes_from(range(self.n))
        G.add_edges_from(self.edges().tolist())
        return G

    # -- checks -----------------------------------------------------------------------------
    def check(self) -> None:
        """Verify the invariants of the base rows; raise GolfError naming the first violation.

        Each slot holds a valid id or -1; no row holds a self-loop or the same neighbour twice;
        every slot has its reverse slot (the other end of the orbit), so the expanded graph is
        undirected and g-symmetric.
        """
        n, m, adj, n_sym = self.n, self.m, self.adj, self.n_sym
        if ((adj < -1) | (adj >= n)).any():
            i, j = np.argwhere((adj < -1) | (adj >= n))[0]
            raise GolfError(f"row {i} slot {j}: id {adj[i, j]} out of range")
        i, w = self._directed_base()
        if (w == i).any():
            k = int(np.flatnonzero(w == i)[0])
            raise GolfError(f"row {i[k]}: self-loop")
        key = i * n + w
        s = np.sort(key)
        if (s[1:] == s[:-1]).any():
            k = int(np.flatnonzero(s[1:] == s[:-1])[0])
            raise GolfError(f"row {s[k] // n}: neighbour {s[k] % n} appears twice")
        if self.centres:
            deg = self.centre_degrees()
            if deg.max() > self.d:
                z = int(np.argmax(deg))
                raise GolfError(f"centre {n_sym + z} has degree {deg[z]} > d={self.d}")
            sym = w < n_sym  # a centre's end of an orbit has no slot of its own
            i, w = i[sym], w[sym]
        i2, w2 = self.reverse_slots(i, w)
        pos = np.searchsorted(s, i2 * n + w2)
        pos[pos >= len(s)] = 0
        bad = np.flatnonzero(s[pos] != i2 * n + w2) if len(s) else []
        if len(bad):
            k = bad[0]
            raise GolfError(f"row {i[k]} holds {w[k]} but row {i2[k]} lacks its reverse {w2[k]}")


def _networkx():
    try:
        import networkx
    except ImportError:
        raise GolfError("networkx is not installed: pip install networkx (or "
                        "'golf[test]')") from None
    return networkx
