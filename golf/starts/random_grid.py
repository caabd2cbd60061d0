"""Random grid graphs: simple, connected, rotation-symmetric, every edge within reach.

The start graphs of the grid category (:mod:`golf.grid`): the ``n = w*h`` cells of a
:class:`~golf.grid.Grid` numbered so that the lattice rotation (``g`` = 2: 180 degrees, 4: 90
degrees) is golf's symmetry ``v -> v + n/g``, so the result is an ordinary g-symmetric
:class:`~golf.graph.Graph` whose every edge joins two cells at Manhattan distance ``<= r``.

**Degrees.** Let ``c(v)`` be the number of other cells within distance ``r`` of cell ``v``
(``r = 0``: no limit, every other cell) and ``t(v) = min(d, c(v))``: a cell that cannot reach
``d`` others (a corner with ``r = 1`` reaches 2) is joined to all it can. Let ``S`` be the sum
of ``t`` over the ``m = n/g`` base cells (one cell of each orbit of the rotation): an edge orbit
takes two slots of the base rows, except an orbit ``v -- v + n/2`` (a cell joined to its
180-degree turn, possible only when ``g`` is even), which takes one. Then every vertex ``v``
gets degree exactly ``t(v)``, except when ``S`` is odd and no orbit can take a single slot --
``g = 1``, or no cell lies within ``r`` of its 180-degree turn (``r = 1`` on a lattice with
both sides even; with ``r >= 2`` the centre cells always do) -- where the ``g`` vertices of one
orbit of the rotation (one vertex for ``g = 1``; which one is random) get ``t(v) - 1``. That is
the fewest parity allows: the degrees of a g-symmetric graph are constant on each orbit, and
a degree sum needs an even count of slots outside single-slot orbits.
:func:`grid_target_degrees` returns ``t`` on the base cells and that count.

How it works (one compiled kernel; the 100x100 lattice with ``d = 8``, ``r = 4``, ``g = 4``
takes milliseconds):

1. Fill: the free slots of the base rows, in random order, are each joined to a random cell
   within reach that still has a free slot (the orbit of that edge: see
   :mod:`golf.starts.random`, whose orbit helpers are shared). When ``S`` is odd and a single-slot
   orbit exists, one is laid first.
2. Repair: a slot left free walks: join its cell to a random cell ``u`` within reach; if ``u``
   is full, drop a random orbit at ``u`` first, so that the free slot moves to that orbit's
   far end (a random alternating walk, as for matchings), until every slot is taken (or the
   one the parity rule leaves free).
3. Connect: while the graph has more than one component, symmetric 2-opt swaps within reach
   (:func:`golf.engine.moves.try_swap`, which keeps every degree, the symmetry and the reach)
   between an edge at a vertex outside the largest component and an edge of another
   component nearby are tried; a swap is kept when the component count does not grow, and
   one that grows it only when a second swap then brings the count below where it was (with
   ``r = 1``, two loops around the centre that the rotation maps to themselves cannot join
   directly: the ``g`` copies of the swap cut them into ``g`` loops, which join a third loop
   next). Connectivity is built step by step, not hoped for, and ``d = 2`` (a Hamiltonian
   cycle within reach) works the same way. Why not a fixed connected skeleton laid first, as
   :mod:`golf.starts.random` does: a cell that must take every cell in its reach (``r = 1``,
   ``d = 3``: every border cell) leaves no room for the skeleton's choice of edges at its
   neighbours, and with ``d = 2`` the skeleton would have to be the whole answer.

Each attempt is retried with further random draws; when all fail, a GolfError names the
lattice, ``d``, ``r`` and ``g``. That happens when no such graph exists -- ``d = 1`` beyond two
cells; ``d = 2`` with ``r = 1`` where no rotation-symmetric Hamiltonian cycle of lattice steps
exists (an odd lattice; ``g = 4`` with a side divisible by 4; ``g = 2`` when ``n/2`` and
``w + h`` differ in parity), which is refused at once with the reason -- and on crowded small
lattices where ``t`` itself is out of reach (3x3 with ``r = 2``, ``d = 6``: the centre would
need all 8 others; 3x4 with ``r = 2``, ``d = 7``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from golf.errors import GolfError
from golf.starts.random import orbit_ends, has_edge, remove_orbit, try_orbit, free_slots
from golf.graph import Graph, sort_rows
from golf.grid import Grid
from golf.kernels.rng import rng_below, rng_seed
from golf.engine.moves import UNDO_SIZE, cell_step, try_swap, undo_swap

__all__ = ["random_grid_graph", "grid_target_degrees", "reach_offsets", "reach_counts"]

# why an attempt failed (the kernel's return code)
_FILLED, _NOT_FILLED, _NOT_CONNECTED = 0, 1, 2


def reach_offsets(r: int) -> np.ndarray:
    """``(K, 2)`` int64: every step ``(dx, dy)`` with ``0 < |dx| + |dy| <= r``."""
    dx, dy = np.meshgrid(np.arange(-r, r + 1), np.arange(-r, r + 1), indexing="ij")
    keep = (np.abs(dx) + np.abs(dy) <= r) & ((dx != 0) | (dy != 0))
    return np.stack([dx[keep], dy[keep]], axis=1).astype(np.int64)


def reach_counts(grid: Grid) -> np.ndarray:
    """``(n,)`` int64: for every vertex, the number of other cells within the reach."""
    r = grid.limit
    c = grid.cells()
    x, y = c[:, 0], c[:, 1]
    count = np.zeros(grid.n, dtype=np.int64)
    for dx in range(-min(r, grid.w - 1), min(r, grid.w - 1) + 1):
        inside = (x + dx >= 0) & (x + dx < grid.w)
        k = r - abs(dx)
        count += np.where(inside, np.minimum(grid.h - 1, y + k) - np.maximum(0, y - k) + 1, 0)
    return count - 1


def _half_rows(grid: Grid) -> np.ndarray:
    """Base rows whose cell lies within reach of its 180-degree turn (g even; else none)."""
    if grid.g % 2:
        return np.zeros(0, dtype=np.int64)
    c = grid.cells()[: grid.m]
    far = np.abs(grid.w - 1 - 2 * c[:, 0]) + np.abs(grid.h - 1 - 2 * c[:, 1])
    return np.flatnonzero(far <= grid.limit).astype(np.int64)


def grid_target_degrees(grid: Grid, d: int) -> tuple[np.ndarray, int]:
    """The degrees :func:`random_grid_graph` gives (module docstring, "Degrees").

    Returns
    -------
    t : (m,) int64
        ``min(d, c(v))`` for the base cells ``v = 0 .. m-1``; vertex ``k*m + i`` is cell ``i``
        turned ``k`` times and has the same target ``t[i]``.
    short : int
        How many vertices get ``t(v) - 1``: 0, or ``g`` (the vertices of one orbit) when the
        slot count ``t.sum()`` is odd and no orbit ``v -- v + n/2`` is within reach.

    Examples
    --------
    >>> from golf.grid import Grid
    >>> t, short = grid_target_degrees(Grid(3, 3, r=1), 3)
    >>> t.reshape(3, 3).tolist(), short
    ([[2, 3, 2], [3, 3, 3], [2, 3, 2]], 1)
    """
    t = np.minimum(int(d), reach_counts(grid)[: grid.m])
    odd = int(t.sum()) % 2 == 1
    return t, (grid.g if odd and len(_half_rows(grid)) == 0 else 0)


def _no_cycle(grid: Grid) -> str | None:
    """Why no rotation-symmetric Hamiltonian cycle of lattice steps exists (``r = 1``, both
    sides >= 2; with ``d = 2`` that is what a connected graph must be), or None.

    Colour the cells like a chessboard: each step changes the colour. The rotation maps the
    cycle onto itself without fixing a cell, so it moves it along by ``n/g`` steps (times a
    number prime to ``g``; a reflection of the cycle would need two edges each joining a
    cell to its 180-degree turn, and a lattice has at most one such step) -- so ``n/g`` must
    be odd exactly when the rotation changes colours. It does for 90 degrees (even side),
    for 180 degrees when ``w + h`` is odd, and never for ``g = 1``."""
    w, h, g, m = grid.w, grid.h, grid.g, grid.m
    if grid.r != 1 or min(w, h) < 2:
        return None
    flips = {1: 0, 2: (w + h) % 2, 4: 1}[g]
    if m % 2 == flips:
        return None
    if g == 1:
        return ("that is a Hamiltonian cycle of lattice steps, and an odd lattice has none "
                "(each step changes the chessboard colour of the cell)")
    turn = "90-degree" if g == 4 else "180-degree"
    return (f"that is a Hamiltonian cycle of lattice steps that the {turn} turn maps onto "
            f"itself by moving it n/g={m} steps along; each step changes the chessboard "
            f"colour of the cell, so the turn would {'keep' if m % 2 == 0 else 'change'} "
            f"colours, but it {'changes' if flips else 'keeps'} them")


# -- the kernel ----------------------------------------------------------------------------
@njit(cache=True)
def _orbit_to(a, u, n, m, g):
    """``(b, t)`` of the orbit joining base vertex ``a`` to vertex ``u``, as
    :func:`golf.starts.random.try_orbit` takes it (``t = -1``: the orbit ``a -- a + n/2``;
    ``t = -2``: ``u == a``, no orbit)."""
    b = u % m
    t = u // m
    if b == a:
        if t == 0:
            return b, -2
        if 2 * t == g:
            return b, -1
    return b, t


@njit(cache=True, inline="always")
def _size(t):
    """Slots an orbit takes: one for ``a -- a + n/2``, else two."""
    return 1 if t == -1 else 2


@njit(cache=True, inline="always")
def _near(reach, offs, n, v, o):
    """The vertex at step ``offs[o]`` from the cell of ``v``, or -1 outside the lattice."""
    return cell_step(reach, n, v, offs[o, 0], offs[o, 1])


@njit(cache=True)
def _fill(adj, fill, cap, bits, reach, offs, n, m, g, st, stubs, perm):
    """Step 1: each free slot, in random order, joined to a random cell within reach that
    has a free slot (offsets tried in random order until one fits)."""
    ns = free_slots(fill, cap, m, st, stubs)
    k_all = offs.shape[0]
    for s in range(ns):
        a = stubs[s]
        if fill[a] >= cap[a]:
            continue
        for k in range(k_all):
            j = k + rng_below(st, k_all - k)
            perm[k], perm[j] = perm[j], perm[k]
            u = _near(reach, offs, n, a, perm[k])
            if u < 0:
                continue
            b, t = _orbit_to(a, u, n, m, g)
            if t == -2 or fill[b] >= cap[b]:
                continue
            if try_orbit(adj, fill, cap, bits, False, a, b, t, n, m, g):
                break


@njit(cache=True)
def _walk(adj, fill, cap, bits, reach, offs, n, m, g, st, allow, budget):
    """Step 2: move free slots by random alternating steps until at most ``allow`` remain.
    Returns False when ``budget`` steps did not do it."""
    free = 0
    for i in range(m):
        free += cap[i] - fill[i]
    a = -1
    k_all = offs.shape[0]
    for _ in range(budget):
        if free <= allow:
            return True
        if a < 0 or fill[a] >= cap[a]:
            start = rng_below(st, m)
            for q in range(m):
                i = (start + q) % m
                if fill[i] < cap[i]:
                    a = i
                    break
        u = _near(reach, offs, n, a, rng_below(st, k_all))
        if u < 0:
            continue
        b, t = _orbit_to(a, u, n, m, g)
        if t == -2:
            continue
        x, _y = orbit_ends(a, b, t, n, m, g)
        if has_edge(adj, fill, bits, False, a, x):
            continue
        if try_orbit(adj, fill, cap, bits, False, a, b, t, n, m, g):
            free -= _size(t)
            continue
        if fill[b] == 0:
            continue
        # u is full: drop a random orbit at u, so the free slot moves to its far end
        z = adj[b, rng_below(st, fill[b])]
        b2, t2 = _orbit_to(b, z, n, m, g)
        remove_orbit(adj, fill, bits, False, b, b2, t2, n, m, g)
        if try_orbit(adj, fill, cap, bits, False, a, b, t, n, m, g):
            free += _size(t2) - _size(t)
            if fill[b2] < cap[b2]:
                a = b2
        else:
            try_orbit(adj, fill, cap, bits, False, b, b2, t2, n, m, g)
    return free <= allow


@njit(cache=True)
def _find(parent, v):
    while parent[v] != v:
        parent[v] = parent[parent[v]]
        v = parent[v]
    return v


@njit(cache=True)
def _components(adj, n, m, comp):
    """Label every vertex with its component's root in ``comp``; returns the count."""
    for v in range(n):
        comp[v] = v
    count = n
    for k in range(n // m):
        for i in range(m):
            v = k * m + i
            for j in range(adj.shape[1]):
                w = adj[i, j]
                if w < 0:
                    continue
                ru = _find(comp, v)
                rw = _find(comp, (w + k * m) % n)
                if ru != rw:
                    comp[max(ru, rw)] = min(ru, rw)
                    count -= 1
    for v in range(n):
        comp[v] = _find(comp, v)
    return count


@njit(cache=True)
def _neighbour(adj, n, m, v, j):
    """The neighbour of vertex ``v`` in slot ``j`` of its base row (-1: empty slot)."""
    w = adj[v % m, j]
    if w < 0:
        return -1
    return (np.int64(w) + (v // m) * m) % n


@njit(cache=True)
def _outside_largest(comp, n, sizes, others):
    """Fill ``others`` with the vertices outside the largest component; returns how many."""
    sizes[:] = 0
    big = 0
    for v in range(n):
        sizes[comp[v]] += 1
        if sizes[comp[v]] > sizes[big]:
            big = comp[v]
    no = 0
    for v in range(n):
        if comp[v] != big:
            others[no] = v
            no += 1
    return no


@njit(cache=True)
def _join_swap(adj, n, m, offs, reach, st, comp, others, no, undo):
    """One random symmetric swap of an edge at a vertex of ``others[:no]`` with an edge of
    another component within reach: ``(a, b), (c, e) -> (a, c), (b, e)`` or ``(a, e), (b,
    c)``. True when applied (``undo`` records it)."""
    d = adj.shape[1]
    a = others[rng_below(st, no)]
    b = _neighbour(adj, n, m, a, rng_below(st, d))
    c = _near(reach, offs, n, a, rng_below(st, offs.shape[0]))
    if b < 0 or c < 0 or comp[c] == comp[a]:
        return False
    e = _neighbour(adj, n, m, c, rng_below(st, d))
    if e < 0:
        return False
    if rng_below(st, 2) == 0:
        return try_swap(adj, n, a, b, c, e, a, c, b, e, undo, reach)
    return try_swap(adj, n, a, b, c, e, a, e, b, c, undo, reach)


@njit(cache=True)
def _connect(adj, n, m, offs, reach, st, comp, trial, others, sizes, undo, undo2,
             proposals, lookahead, recounts):
    """Step 3: join components by symmetric swaps within reach. A swap is kept when the
    component count does not grow. One that grows it is kept only if one of ``lookahead``
    further swaps then brings the count below where it was: with ``r = 1`` two loops around
    the centre that the rotation maps to themselves cannot join directly (each of the ``g``
    copies of the swap cuts them, leaving ``g`` loops), only through such a second swap with
    a third loop. At most ``proposals`` draws between kept swaps and ``recounts`` counts
    since the count last dropped. Returns the final count (1: connected)."""
    count = _components(adj, n, m, comp)
    stall = 0
    while count > 1:
        no = _outside_largest(comp, n, sizes, others)
        kept = False
        for _ in range(proposals):
            if stall >= recounts:
                return count
            if not _join_swap(adj, n, m, offs, reach, st, comp, others, no, undo):
                continue
            now = _components(adj, n, m, trial)
            stall += 1
            if now > count:  # look one swap further before giving this one up
                no2 = _outside_largest(trial, n, sizes, others)
                for _ in range(lookahead):
                    if _join_swap(adj, n, m, offs, reach, st, trial, others, no2,
                                  undo2):
                        now2 = _components(adj, n, m, sizes)  # sizes: scratch labels
                        stall += 1
                        if now2 < count:
                            now = now2
                            trial[:] = sizes
                            break
                        undo_swap(adj, undo2)
                        if stall >= recounts:
                            break
                if now > count:
                    undo_swap(adj, undo)
                    no = _outside_largest(comp, n, sizes, others)
                    continue
            if now < count:
                stall = 0
            count = now
            comp[:] = trial
            kept = True
            break
        if not kept:
            return count
    return count


@njit(cache=True)
def _build(n, g, d, cap, offs, half_rows, allow, reach, seed, attempts):
    """Steps 1-3 of the module docstring, retried up to ``attempts`` times. Returns
    ``(adj, code)``: code 0 done, 1 the slots could not all be filled, 2 not connected."""
    m = n // g
    total = 0
    for i in range(m):
        total += cap[i]
    st = rng_seed(seed)
    adj = np.full((m, d), -1, dtype=np.int32)
    fill = np.zeros(m, dtype=np.int64)
    bits = np.zeros((1, 1), dtype=np.uint64)
    stubs = np.empty(total, dtype=np.int64)
    perm = np.arange(offs.shape[0])
    comp = np.empty(n, dtype=np.int64)
    trial = np.empty(n, dtype=np.int64)
    others = np.empty(n, dtype=np.int64)
    sizes = np.empty(n, dtype=np.int64)
    undo = np.zeros(UNDO_SIZE, dtype=np.int64)
    undo2 = np.zeros(UNDO_SIZE, dtype=np.int64)
    code = _FILLED
    for _attempt in range(attempts):
        adj[:, :] = -1
        fill[:] = 0
        if total % 2 == 1 and len(half_rows) > 0:
            a = half_rows[rng_below(st, len(half_rows))]
            try_orbit(adj, fill, cap, bits, False, a, a, -1, n, m, g)
        _fill(adj, fill, cap, bits, reach, offs, n, m, g, st, stubs, perm)
        if not _walk(adj, fill, cap, bits, reach, offs, n, m, g, st, allow,
                     200 * total + 20000):
            code = _NOT_FILLED
            continue
        if _connect(adj, n, m, offs, reach, st, comp, trial, others, sizes, undo,
                    undo2, 200000, 2000, 5000) > 1:
            code = _NOT_CONNECTED
            continue
        return adj, _FILLED
    return adj, code


def random_grid_graph(grid: Grid, d: int, seed: int = 0, attempts: int = 20) -> Graph:
    """A random simple connected ``grid.g``-symmetric graph on the cells of ``grid``, every
    edge of Manhattan length ``<= grid.r``, with the degrees of the module docstring.

    Parameters
    ----------
    grid : Grid
        The lattice, its reach ``r`` (0: no limit) and its rotation symmetry ``g``.
    d : int
        The largest degree.
    seed : int
        The graph is a function of ``(grid, d, seed)`` (and ``attempts``), on any machine.
    attempts : int
        Fresh tries before giving up.

    Returns
    -------
    Graph
        ``n = w*h`` vertices numbered as :class:`~golf.grid.Grid` says, row width ``d``,
        symmetry ``g``. Vertex ``v`` has degree ``t(v) = min(d, cells within r of v)``, but
        for the ``short`` vertices of one rotation orbit (``t(v) - 1``) that parity forces:
        :func:`grid_target_degrees`.

    Raises
    ------
    GolfError
        ``d < 0``; no connected graph can have these degrees (``d <= 1`` beyond two cells;
        ``d = 2`` with ``r = 1`` where no rotation-symmetric Hamiltonian cycle of lattice
        steps exists, the message says why); or ``attempts`` tries could not give every cell
        its degree within reach or connect the graph (see the module docstring). The message
        names ``w``, ``h``, ``d``, ``r`` and ``g``.

    Examples
    --------
    >>> from golf.grid import Grid
    >>> grid = Grid(10, 10, r=3, g=4)
    >>> graph = random_grid_graph(grid, 6, seed=1)
    >>> graph.n, graph.g, graph.max_degree, int(grid.lengths(graph.edges()).max()) <= 3
    (100, 4, 6, True)
    """
    d = int(d)
    w, h, r, g, n = grid.w, grid.h, grid.r, grid.g, grid.n
    what = f"the {w}x{h} grid (w={w}, h={h}) with d={d}, r={r}, g={g}"
    if d < 0:
        raise GolfError(f"d must be >= 0, got {d} ({what})")
    if n == 1:
        return Graph(1, d, 1, np.full((1, d), -1, dtype=np.int32))
    if d == 0 or (d == 1 and n > 2):
        raise GolfError(f"no connected graph on {what}: {n} cells cannot be connected with "
                        f"every degree <= {d}")
    if d == 2:
        why = _no_cycle(grid)
        if why:
            raise GolfError(f"no connected graph on {what} has the degrees asked for (every "
                            f"cell 2): {why}; use r >= 2 or d >= 3")
    cap, short = grid_target_degrees(grid, d)
    adj, code = _build(n, g, d, cap, reach_offsets(grid.limit), _half_rows(grid),
                       1 if short else 0, grid.reach(), int(seed), int(attempts))
    if code == _NOT_FILLED:
        raise GolfError(
            f"could not build a random graph on {what} in {attempts} attempts (seed {seed}): "
            f"the cells within reach cannot give every cell min(d, cells within r) edges "
            f"(too many cells need all their neighbours: try a smaller d or a larger r)")
    if code == _NOT_CONNECTED:
        raise GolfError(
            f"could not build a connected random graph on {what} in {attempts} attempts "
            f"(seed {seed}): no swap within reach joined the last components (try a larger "
            f"d or r, another g, or another seed)")
    return Graph(n, d, g, sort_rows(adj))
