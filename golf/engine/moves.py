"""Symmetric 2-opt edge swaps on the base rows, and their exact undo.

A move picks two edge orbits through representatives ``(a, b)`` and ``(c, e)``, rotates the
second by a random ``t`` (``c' = c + t*m``, ``e' = e + t*m``), and replaces the pair of edges
with ``(a, c'), (b, e')`` or ``(a, e'), (b, c')`` -- on every rotated copy at once, so the
graph stays g-symmetric. In the base rows this frees the slots of the two old orbits and fills
the same slots with the new ones; the move is rejected (nothing changes) when that would
create a self-loop or a multi-edge, or when the new orbits do not use exactly the rows the old
ones free (so every degree stays the same). That row rule is what handles the orbits
``v -- v + n/2`` (one slot instead of two) without special cases: two such half orbits can merge
into one ordinary orbit, and picking the same orbit twice with ``t = g/2`` splits an ordinary
orbit into two half orbits.

Why swaps reach every g-symmetric graph with the same degrees, in principle: a g-symmetric
graph is a multigraph on the ``m`` base classes whose edges carry a rotation ("voltage") in
Z_g. A swap of two orbits is a 2-switch of that quotient multigraph, and since the relative
rotation ``t`` takes every value in Z_g, the new edges can receive every pair of voltages
that keeps the voltage sum around the switched 4-cycle (the only thing a swap preserves).
2-switches connect all realisations of a degree sequence (Hakimi; Taylor for the connected
case), and switching an edge with a rotated copy of another re-distributes voltages, so any
quotient and voltage assignment can be reached -- with the merge/split moves above moving
between graphs with different numbers of half orbits. (Moves that would pass through a
self-loop or multi-edge are rejected, as in every 2-switch chain on simple graphs.)

A second kind of move, the **voltage move**, takes one orbit ``a -- b`` and re-targets it to
another rotation of its far end, ``a -- b + t*m`` (``t != 0``): the quotient multigraph keeps
its edges and only that edge's voltage changes, so every degree stays the same. A swap can
change voltages only in pairs around a 4-cycle; the voltage move changes one alone, which
lets the search move between graphs with the same quotient in one step (it is the move of
the "voltage graph" view of symmetric graphs).

A third kind, the **near swap** (:func:`propose_near`), is a swap whose two edges lie two hops
apart: ``a -- b`` and ``c -- e`` with ``c`` a neighbour of ``b``, reconnected as ``a -- c``,
``b -- e``. It is one of the uniform swaps, drawn with a bias towards the local ones, which
change distances in one neighbourhood: from a good graph their uphill steps are smaller than a
uniform swap's (``scripts/bench_moves.py``).
:func:`propose_move` mixes the three kinds.

On a grid problem (:mod:`golf.grid`) every move takes ``reach``, the length limit and the cell
of every vertex: a move whose new edges are longer than the limit is rejected like one that
would make a multi-edge (the lattice's rotations keep lengths, so one edge of an orbit decides
for all). Without it (``None``, general graphs) Numba compiles the check away.

With a non-cyclic symmetry group (:mod:`golf.group`) every move takes ``grp``, the group as
:meth:`golf.group.Group.kernel` lays it out, and "rotated by ``t``" reads "moved by the group
element ``t``" (left multiplication): the quotient's edges then carry voltages in that group,
and the same argument holds. Without it (None, the cyclic group) Numba compiles the cyclic
arithmetic in.

A fourth kind, the **host move** (:func:`propose_host`), is for host-switch graphs
(:mod:`golf.hostswitch`), whose rows are the switches' ports: a slot ``HOST_PORT`` holds a
host, -1 is a free port, and an id a link to another switch. It moves one host to another
switch: onto a free port, or onto a port that holds a link ``b -- c``, which then becomes
``a -- c`` (the port the host left); and it links two free ports of switches not yet linked.
No move exceeds a switch's ports, so the radix holds; the swaps above never pick a host's
slot, so they rewire the links alone.

A fifth kind, the **slide** (:func:`propose_slide`), is for grid problems, where the best graphs
known leave a few slots free (the best-known (5x10, 4, 2) and (10x10, 4, 2) graphs have 99 and
198 edges, not 100 and 200): a slot left free where no edge within reach can take it is what the
length limit makes best there. Every move above keeps every degree, so it never reaches such a
graph. A slide changes degrees, one orbit at a time, and keeps the symmetry and the reach:

* it re-targets an edge ``a -- b`` to a vertex ``c`` near ``a`` with a free slot (``a -- c``): the
  free slot moves from ``c`` to ``b``, and the number of edges stays;
* it joins two vertices with free slots within reach (a *fill*: one orbit more);
* with a small share (:data:`DROP_SHARE`), or when no slot is free, it removes one orbit (a
  *drop*), which makes the free slots the other two kinds move.

A drop never lowers a distance and a fill never raises one, so the annealing keeps a free slot
only where moving it around pays; :func:`try_rewire` is the one orbit out, one orbit in (either
may be none) that all three are.

With centre vertices (:mod:`golf.graph`) the moves take ``n`` = ``g*m``, the vertices the
group moves: a slot that holds a centre (an id ``>= n``) is never picked, so the orbits at the
centres stay as the start graph laid them and every move is one among the other orbits.

Everything here is a small Numba function over the ``adj`` array; the search calls them from
its compiled loop. ``undo`` is a scratch int64 array (at least ``UNDO_SIZE``) that records the
changed slots so that :func:`undo_swap` restores them exactly.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from golf.hostswitch.ports import HOST_PORT
from golf.kernels.rng import rng_below
from golf.kernels.symmetry import act, act_inv

__all__ = ["UNDO_SIZE", "HOST_PORT", "HOST_MOVES", "DROP_SHARE", "propose_swap", "propose_voltage",
           "propose_near", "propose_host", "propose_slide", "propose_move", "swap_at",
           "undo_swap", "try_swap", "try_rewire", "new_undo"]

# HOST_PORT: a slot of a host-switch graph's switch rows that holds a host
# (golf.hostswitch.ports): not an edge to another switch, so no swap ever picks it; only
# propose_host moves it
# the fraction of a host-switch search's proposals that are host moves (propose_host)
HOST_MOVES = 0.3

# the share of slide moves (propose_slide) that remove an orbit (a drop), per 1000
DROP_SHARE = 62

# undo layout: [0] count, [1:13] (row, slot, old value) x 4; [16:48] scratch for try_swap
UNDO_SIZE = 48


@njit(cache=True)
def _slots(u, w, n, m, rows, vals, k, grp):
    """Append the base-row slots of the orbit of edge ``u -- w`` at ``rows/vals[k:]``;
    returns the new count (one slot for an orbit ``v -- v + n/2``, or for an orbit ``i --
    h*m + i`` with ``h`` an involution of a group ``grp``, else two)."""
    iu = u % m
    wv = act_inv(w, u - iu, n, grp)
    iw = w % m
    uv = act_inv(u, w - iw, n, grp)
    rows[k] = iu
    vals[k] = wv
    k += 1
    if iw != iu or uv != wv:
        rows[k] = iw
        vals[k] = uv
        k += 1
    return k


@njit(cache=True)
def _add_orbit(rows, vals, k, orows, ovals, ok):
    """Append the ``ok`` slots of another orbit to ``rows/vals[:k]`` unless they are already
    there (both edges in one orbit); returns the new count."""
    for p in range(k):
        if rows[p] == orows[0] and vals[p] == ovals[0]:
            return k
    for p in range(ok):
        rows[k] = orows[p]
        vals[k] = ovals[p]
        k += 1
    return k


@njit(cache=True)
def _find(adj, r, val):
    for j in range(adj.shape[1]):
        if adj[r, j] == val:
            return j
    return -1


@njit(cache=True, inline="always")
def _beyond(reach, u, v):
    """True when the cells of ``u`` and ``v`` are further apart than ``reach[0]`` (Manhattan
    distance; ``reach[3 + 2v]``, ``reach[4 + 2v]`` is the cell of vertex ``v``: the layout of
    :meth:`golf.grid.Grid.reach`)."""
    dx = reach[3 + 2 * u] - reach[3 + 2 * v]
    dy = reach[4 + 2 * u] - reach[4 + 2 * v]
    return (dx if dx >= 0 else -dx) + (dy if dy >= 0 else -dy) > reach[0]


@njit(cache=True, inline="always")
def cell_step(reach, n, v, dx, dy):
    """The vertex of the cell ``(dx, dy)`` away from the cell of ``v``, or -1 off the lattice
    (``reach`` as :meth:`golf.grid.Grid.reach` lays it out)."""
    w = reach[1]
    x = reach[3 + 2 * v] + dx
    y = reach[4 + 2 * v] + dy
    if x < 0 or x >= w or y < 0 or y >= reach[2]:
        return -1
    return reach[3 + 2 * n + y * w + x]


@njit(cache=True)
def _near(reach, n, a, st):
    """A random vertex whose cell is within the reach of ``a``'s (``a`` itself, or -1 for a
    step off the lattice: the caller draws again)."""
    r = reach[0]
    while True:
        dx = rng_below(st, 2 * r + 1) - r
        dy = rng_below(st, 2 * r + 1) - r
        if (dx if dx >= 0 else -dx) + (dy if dy >= 0 else -dy) <= r:
            break
    return cell_step(reach, n, a, dx, dy)


@njit(cache=True)
def try_swap(adj, n, a, b, c, e, x1, y1, x2, y2, undo, reach=None, grp=None):
    """Replace the orbits of ``a -- b`` and ``c -- e`` by those of ``x1 -- y1`` and
    ``x2 -- y2`` if the result is simple with the same degrees (and, with ``reach``, every new
    edge within the length limit: see :mod:`golf.grid`); record the change in ``undo``.
    Returns True when applied (``undo[0]`` = number of changed slots), False when rejected
    (``adj`` untouched). ``reach`` None (general graphs) compiles the length check away;
    ``grp`` None is the cyclic group (:mod:`golf.kernels.symmetry`)."""
    m = adj.shape[0]
    if x1 == y1 or x2 == y2:
        return False
    if reach is not None:
        # a rotation keeps lengths: one edge of each new orbit decides for the orbit
        if _beyond(reach, x1, y1) or _beyond(reach, x2, y2):
            return False
    # scratch views into undo (no allocation in the search's hot loop)
    rr = undo[16:20]
    rv = undo[20:24]
    ar = undo[24:28]
    av = undo[28:32]
    t_r = undo[32:34]
    t_v = undo[34:36]
    pos = undo[36:40]
    used = undo[40:44]
    # the old orbits (the second may be the first one again) and the new ones (both new edges
    # may lie in one orbit: two half orbits merging)
    nr = _add_orbit(rr, rv, _slots(a, b, n, m, rr, rv, 0, grp), t_r, t_v,
                    _slots(c, e, n, m, t_r, t_v, 0, grp))
    na = _slots(x1, y1, n, m, ar, av, 0, grp)
    na = _add_orbit(ar, av, na, t_r, t_v, _slots(x2, y2, n, m, t_r, t_v, 0, grp))
    if na != nr:
        return False
    # the added slots must be distinct and use the freed rows exactly (same multiset)
    for p in range(na):
        for q in range(p + 1, na):
            if ar[p] == ar[q] and av[p] == av[q]:
                return False
        cnt_a = 0
        cnt_r = 0
        for q in range(na):
            if ar[q] == ar[p]:
                cnt_a += 1
            if rr[q] == ar[p]:
                cnt_r += 1
        if cnt_a != cnt_r:
            return False
    # positions of the freed slots
    for p in range(nr):
        j = _find(adj, rr[p], rv[p])
        if j < 0:
            return False
        # a value can sit in a row once, but the same (row, value) can be listed once only
        for q in range(p):
            if rr[q] == rr[p] and pos[q] == j:
                return False
        pos[p] = j
    # an added value must not already be in its row (unless that slot is being freed)
    for p in range(na):
        r = ar[p]
        for j in range(adj.shape[1]):
            if adj[r, j] == av[p]:
                freed = False
                for q in range(nr):
                    if rr[q] == r and pos[q] == j:
                        freed = True
                if not freed:
                    return False
    # apply: the freed slots of each row receive that row's added values, in order
    for q in range(4):
        used[q] = 0
    undo[0] = nr
    for p in range(nr):
        r = rr[p]
        for q in range(na):
            if used[q] == 0 and ar[q] == r:
                used[q] = 1
                undo[1 + 3 * p] = r
                undo[2 + 3 * p] = pos[p]
                undo[3 + 3 * p] = adj[r, pos[p]]
                adj[r, pos[p]] = av[q]
                break
    return True


@njit(cache=True)
def propose_swap(adj, n, g, st, undo, reach=None, tries=64, grp=None):
    """Apply one random valid symmetric swap (drawing from the RNG state ``st``); returns
    False if ``tries`` proposals in a row were all invalid (the graph is then unchanged).

    On a grid (``reach``) the second orbit is drawn near the first: a random edge at a random
    vertex ``c`` within reach of ``a`` (the new edge ``a -- c`` must be short, so every valid
    swap can be drawn), where two edges drawn anywhere on a large lattice would almost never
    give two short new edges."""
    m = adj.shape[0]
    d = adj.shape[1]
    if d == 0:
        return False
    if reach is not None:
        for _ in range(tries):
            s1 = rng_below(st, m) * d + rng_below(st, d)
            c = _near(reach, n, np.int64(s1 // d), st)
            if c < 0:
                continue
            s2 = (c % m) * d + rng_below(st, d)
            if swap_at(adj, n, s1, s2, c // m, 0, undo, reach, grp):
                return True
        return False
    for _ in range(tries):
        s1 = rng_below(st, m) * d + rng_below(st, d)
        s2 = rng_below(st, m) * d + rng_below(st, d)
        t = rng_below(st, g)
        flip = rng_below(st, 2)
        if swap_at(adj, n, s1, s2, t, flip, undo, reach, grp):
            return True
    return False


@njit(cache=True)
def swap_at(adj, n, s1, s2, t, flip, undo, reach=None, grp=None):
    """The swap of the orbits through the flat base slots ``s1`` and ``s2`` (``row * d +
    slot``), the second moved by the group element ``t``, reconnected one way (``flip`` 0:
    ``(a, c'), (b, e')``) or the other; applied (True) if valid."""
    m, d = adj.shape
    b = adj[s1 // d, s1 % d]
    e = adj[s2 // d, s2 % d]
    if b < 0 or e < 0 or b >= n or e >= n:  # an empty slot, or a centre's orbit (fixed)
        return False
    a = np.int64(s1 // d)
    c = np.int64(s2 // d) + t * m
    e = act(np.int64(e), t * m, n, grp)
    b = np.int64(b)
    if flip == 0:
        return try_swap(adj, n, a, b, c, e, a, c, b, e, undo, reach, grp)
    return try_swap(adj, n, a, b, c, e, a, e, b, c, undo, reach, grp)


@njit(cache=True)
def propose_voltage(adj, n, g, st, undo, reach=None, tries=64, grp=None):
    """Apply one random valid voltage move (re-target a random orbit ``a -- b`` to
    ``a -- b + t*m``, ``0 < t < g``; for a group ``grp``, ``b`` moved by the element ``t``);
    returns False if ``tries`` proposals in a row were all invalid or ``g == 1`` (the graph is
    then unchanged)."""
    m = adj.shape[0]
    d = adj.shape[1]
    if d == 0 or g < 2:
        return False
    for _ in range(tries):
        i = rng_below(st, m)
        j = rng_below(st, d)
        t = 1 + rng_below(st, g - 1)
        b = adj[i, j]
        if b < 0 or b >= n:
            continue
        a = np.int64(i)
        b = np.int64(b)
        b2 = act(b, t * m, n, grp)
        if b % m == i and b2 == act_inv(a, b - i, n, grp):
            continue  # an orbit inside one class: the same orbit seen from its other end
        # one orbit out, one in: try_swap with each orbit given twice
        if try_swap(adj, n, a, b, a, b, a, b2, a, b2, undo, reach, grp):
            return True
    return False


@njit(cache=True)
def propose_near(adj, n, st, undo, reach=None, tries=64, grp=None):
    """Apply one random valid **near swap** (a "2-neighbour swing"): a random edge ``a -- b``,
    a random neighbour ``c != a`` of ``b`` and a random edge ``c -- e`` become ``a -- c`` and
    ``b -- e``, each on every rotated copy. Both new edges join vertices two hops apart (``a``
    and ``c`` through ``b``, ``b`` and ``e`` through ``c``), so the move rewires one small
    neighbourhood where a uniform swap joins far-apart vertices. Returns
    False if ``tries`` draws in a row were all invalid (the graph is then unchanged)."""
    m = adj.shape[0]
    d = adj.shape[1]
    if d == 0:
        return False
    for _ in range(tries):
        s1 = rng_below(st, m) * d + rng_below(st, d)
        j = rng_below(st, d)
        j2 = rng_below(st, d)
        b = adj[s1 // d, s1 % d]
        if b < 0 or b >= n:
            continue
        x = adj[b % m, j]
        if x < 0 or x >= n:
            continue
        c = act(np.int64(x), (b // m) * m, n, grp)  # b's neighbour: b's row moved to b
        y = adj[c % m, j2]
        if c == s1 // d or y < 0 or y >= n or act(np.int64(y), (c // m) * m, n,
                                                   grp) == s1 // d:
            continue  # c = a, or e = a (the same two edges again)
        if swap_at(adj, n, s1, (c % m) * d + j2, c // m, 0, undo, reach, grp):
            return True
    return False


@njit(cache=True)
def propose_host(adj, st, undo, tries=64):
    """Apply one random valid **host move** (module docstring) to the switch rows ``adj``: a
    random host port ``(a, j)`` and a random port ``(b, k)`` of another switch; a free port
    takes the host, a port that holds the link ``b -- c`` gives it to the host and the link
    becomes ``a -- c`` (rejected where ``c`` is ``a`` or already a neighbour of ``a``); a port
    holding a host changes nothing and is drawn again. Where the first port drawn is free
    and the second is a free port of a switch not linked to the first, the two are linked
    (:func:`try_rewire`; a host moved onto a free port leaves one behind, which a link can then
    take). Returns False if ``tries`` draws in a row were all invalid (nothing changed)."""
    s, d = adj.shape
    if s < 2 or d == 0:
        return False
    for _ in range(tries):
        a = rng_below(st, s)
        j = rng_below(st, d)
        if adj[a, j] == -1:  # a free port: a link to another switch's free port (a fill)
            b = rng_below(st, s)
            if adj[b, rng_below(st, d)] != -1:
                continue
            if try_rewire(adj, s, np.int64(-1), np.int64(-1), np.int64(a), np.int64(b), undo):
                return True
            continue
        if adj[a, j] != HOST_PORT:
            continue
        b = rng_below(st, s)
        k = rng_below(st, d)
        c = adj[b, k]
        if b == a or c == HOST_PORT:
            continue
        if c < 0:  # a free port
            undo[0] = 2
            undo[1], undo[2], undo[3] = a, j, HOST_PORT
            undo[4], undo[5], undo[6] = b, k, -1
            adj[a, j] = -1
            adj[b, k] = HOST_PORT
            return True
        if c == a or _find(adj, a, c) >= 0:
            continue
        p = _find(adj, c, b)
        undo[0] = 3
        undo[1], undo[2], undo[3] = a, j, HOST_PORT
        undo[4], undo[5], undo[6] = b, k, c
        undo[7], undo[8], undo[9] = c, p, b
        adj[a, j] = c
        adj[b, k] = HOST_PORT
        adj[c, p] = a
        return True
    return False


@njit(cache=True)
def try_rewire(adj, n, a, b, x, y, undo, reach=None, grp=None):
    """Remove the orbit of ``a -- b`` (none: ``a < 0``) and add the orbit of ``x -- y`` (none:
    ``x < 0``) in free slots (-1) of its rows, if the result is simple and, with ``reach``, the
    new edge within the length limit; record the change in ``undo`` (at most two slots freed
    and two taken). Returns True when applied, False when rejected (``adj`` untouched): the
    new orbit is already there (or is the removed one), it is a loop, or a row it needs has no
    free slot."""
    m = adj.shape[0]
    rr = undo[16:18]
    rv = undo[18:20]
    ar = undo[20:22]
    av = undo[22:24]
    pos = undo[24:26]
    nr = 0 if a < 0 else _slots(a, b, n, m, rr, rv, 0, grp)
    na = 0
    if x >= 0:
        if x == y or (reach is not None and _beyond(reach, x, y)):
            return False
        na = _slots(x, y, n, m, ar, av, 0, grp)
        for p in range(na):  # a multi-edge, or the removed orbit put back
            if _find(adj, ar[p], av[p]) >= 0:
                return False
    for p in range(nr):
        j = _find(adj, rr[p], rv[p])
        if j < 0:
            return False
        pos[p] = j
    k = 0
    for p in range(nr):
        undo[1 + 3 * k] = rr[p]
        undo[2 + 3 * k] = pos[p]
        undo[3 + 3 * k] = adj[rr[p], pos[p]]
        adj[rr[p], pos[p]] = -1
        k += 1
    for p in range(na):
        j = _find(adj, ar[p], -1)
        if j < 0:  # no room: put back what was changed
            undo[0] = k
            undo_swap(adj, undo)
            return False
        undo[1 + 3 * k] = ar[p]
        undo[2 + 3 * k] = j
        undo[3 + 3 * k] = -1
        adj[ar[p], j] = av[p]
        k += 1
    undo[0] = k
    return True


@njit(cache=True)
def _free_count(adj):
    """How many base slots are free (-1)."""
    count = 0
    for i in range(adj.shape[0]):
        for j in range(adj.shape[1]):
            if adj[i, j] == -1:
                count += 1
    return count


@njit(cache=True)
def _free_slot(adj, count, st):
    """The row of a free base slot drawn uniformly from the ``count`` there are (-1: none)."""
    if count == 0:
        return -1
    k = rng_below(st, count)
    for i in range(adj.shape[0]):
        for j in range(adj.shape[1]):
            if adj[i, j] == -1:
                if k == 0:
                    return i
                k -= 1
    return -1


@njit(cache=True)
def propose_slide(adj, n, st, undo, reach, tries=64, grp=None):
    """Apply one random valid **slide** (module docstring) on a grid (``reach``): at a
    vertex ``c`` with a free slot, either join ``c`` to a vertex within reach that has one
    too (a fill), or take a vertex ``a`` within reach of ``c`` and one of its edges
    ``a -- b`` and make it ``a -- c``; a drop (an edge's orbit removed) with the share
    :data:`DROP_SHARE` per 1000, or when no slot is free. Returns False if ``tries`` draws in
    a row were all invalid (the graph is then unchanged)."""
    m, d = adj.shape
    if d == 0:
        return False
    free = _free_count(adj)  # a refused draw changes nothing: counted once
    for _ in range(tries):
        c = _free_slot(adj, free, st)
        if c < 0 or rng_below(st, 1000) < DROP_SHARE:
            i = rng_below(st, m)
            b = adj[i, rng_below(st, d)]
            if b < 0 or b >= n:
                continue
            if try_rewire(adj, n, np.int64(i), np.int64(b), np.int64(-1), np.int64(-1), undo,
                          reach, grp):
                return True
            continue
        a = _near(reach, n, np.int64(c), st)
        if a < 0 or a == c:
            continue
        if rng_below(st, 2) == 0:  # a fill
            if try_rewire(adj, n, np.int64(-1), np.int64(-1), np.int64(c), a, undo, reach,
                          grp):
                return True
            continue
        x = adj[a % m, rng_below(st, d)]
        if x < 0 or x >= n:
            continue
        b = act(np.int64(x), (a // m) * m, n, grp)  # a's neighbour: a's row moved to a
        if b == c:
            continue
        if try_rewire(adj, n, a, b, a, np.int64(c), undo, reach, grp):
            return True
    return False


@njit(cache=True)
def propose_move(adj, n, g, st, undo, voltage_permille, reach=None, near_permille=0,
                 grp=None, host_permille=0, slide_permille=0):
    """A host move with probability ``host_permille / 1000`` (host-switch graphs), else a
    slide with probability ``slide_permille / 1000`` (grid problems: ``reach``), else a
    voltage move with probability ``voltage_permille / 1000`` (when ``g > 1``), else a near
    swap with probability ``near_permille / 1000``, else a uniform swap; with all four 0 it
    draws exactly what :func:`propose_swap` draws."""
    if host_permille > 0 and rng_below(st, 1000) < host_permille:
        if propose_host(adj, st, undo, 64):
            return True
    if reach is not None:
        if slide_permille > 0 and rng_below(st, 1000) < slide_permille:
            if propose_slide(adj, n, st, undo, reach, 64, grp):
                return True
    if voltage_permille > 0 and g > 1 and rng_below(st, 1000) < voltage_permille:
        if propose_voltage(adj, n, g, st, undo, reach, 64, grp):
            return True
    if near_permille > 0 and rng_below(st, 1000) < near_permille:
        if propose_near(adj, n, st, undo, reach, 64, grp):
            return True
    return propose_swap(adj, n, g, st, undo, reach, 64, grp)


@njit(cache=True)
def undo_swap(adj, undo):
    """Restore the slots recorded by the last successful swap."""
    for p in range(undo[0] - 1, -1, -1):
        adj[undo[1 + 3 * p], undo[2 + 3 * p]] = undo[3 + 3 * p]
    undo[0] = 0


def new_undo() -> np.ndarray:
    return np.zeros(UNDO_SIZE, dtype=np.int64)
