"""Fitting a constructed graph to a pair ``(n, d)``: from a graph on ``N`` vertices with every
degree at most ``d``, a graph on exactly ``n`` vertices with every degree at most ``d`` that
keeps as much of the construction as it can.

* **Adding** ``n - N`` vertices, two ways; :func:`golf.starts.algebraic.fitted_edges` fits
  both and keeps the better. Spread (the default): the free slots of the old vertices
  (degree below ``d``) are dealt evenly over the new ones, in a random order, each to the new
  vertex with the fewest old neighbours that is not yet next to it; the rest of a new
  vertex's degree is left to the join below, which joins the new vertices among themselves
  (a new vertex that the other new ones cannot fill first splits old edges ``u -- v`` into
  ``u -- x -- v``: ``u`` and ``v`` keep their degree, ``x`` gains 2), and a vertex the joins
  leave two or more short splits edges at the end. Filled (``fill``): each new vertex in turn
  takes free slots drawn at random, then splits edges until its degree is ``d`` or ``d - 1``.
  ``ER_37`` plus 153 for (1560, 40): 2.044204 spread, 2.111734 filled (the first new
  vertices take all the old slots, the others split old edges); ``Levi_4`` less a
  pencil plus 4 for (40, 5), where no old slot is free: diameter 3 filled, 4 spread.
* **Deleting** ``N - n`` vertices: the vertices with the largest ids go.
* **Joining** the free slots (those the deleted vertices freed, and a construction's own below
  ``d``): the search swaps edges and never adds one, so a slot left free stays free. Up to
  :data:`NEAR_JOIN_MAX` vertices the join is greedy, in :data:`JOIN_ROUNDS` rounds: each
  round counts, for every pair ``u, v`` of vertices with a free slot and not adjacent, the
  pairs of vertices at distance 3 or more that an edge ``u -- v`` brings within 2 (``u`` and
  each neighbour of ``v``, ``v`` and each neighbour of ``u``, and ``u, v`` themselves, counted
  twice: two matrix products), and joins the pairs that count most, each vertex up to its free
  slots, a round's share of the slots. Above that order the slots are joined at random (a
  maximal matching of the stubs between vertices not yet adjacent). ``ER_41`` less 2 polar
  lines, 78 vertices deleted for (1560, 40): ASPL 2.05038 greedy (1.5 s on 2 cores), 2.05462
  at random; ``ER_59`` less 3 lines for (3250, 57): 2.05385 (9 s), 2.05680 at random.
* **Keeping diameter 3** (``diameter3``, for the incidence graphs of
  :mod:`golf.starts.incidence`): deleting a point or a line of such a graph leaves every pair
  of points on it (or lines through it) at distance 4, thousands of pairs, which the join
  above leaves in part. With ``diameter3`` each round first ranks the pairs ``u, v`` by the
  pairs at distance 4 or more that ``u -- v`` brings within 3 (``d(x, u) + d(v, y) <= 2``:
  three products over the far pairs' ends, one matrix product to find them), then by the
  count above. ``Levi_29`` less 16 vertices for (1726, 30): diameter 3, ASPL 2.461375 (the
  Moore bound 2.460870), where the plain join leaves diameter 4 (2.464451). The polarity
  graphs do without: their plain join reaches diameter 3, and ranking the far pairs first
  costs ``ER_41`` less 2 lines 0.0006 of ASPL on (1560, 40).

Deterministic for a seed: the same graph on every machine.
"""

from __future__ import annotations

import heapq

import numpy as np

from golf.errors import GolfError

__all__ = ["fit_edges", "neighbour_sets", "edge_pairs", "split_within_2", "NEAR_JOIN_MAX",
           "JOIN_ROUNDS"]

# the largest order whose free slots are joined greedily (two n x n products a round)
NEAR_JOIN_MAX = 4096
# rounds of the greedy join; each joins about 1/JOIN_ROUNDS of the slots
JOIN_ROUNDS = 10


def neighbour_sets(edges, n: int) -> list:
    """The neighbours of each of ``n`` vertices as sets to edit."""
    nbrs = [set() for _ in range(n)]
    for u, v in edges:
        nbrs[u].add(int(v))
        nbrs[v].add(int(u))
    return nbrs


def edge_pairs(nbrs: list, gone=frozenset()) -> np.ndarray:
    """The sorted ``u < v`` edges of neighbour sets (``nbrs[u]`` for each ``u`` of them: a
    neighbour may lie past the list's end); with ``gone``, those among the other vertices,
    numbered in their order from 0."""
    if gone:
        number = np.cumsum([v not in gone for v in range(len(nbrs))]) - 1
        nbrs = [{int(number[v]) for v in vs if v not in gone} for u, vs in enumerate(nbrs)
                if u not in gone]
    out = [(u, v) for u, vs in enumerate(nbrs) for v in vs if u < v]
    return np.array(sorted(out), dtype=np.int64).reshape(-1, 2)


def fit_edges(edges, big_n: int, n: int, d: int, seed: int = 0,
              diameter3: bool = False, fill: bool = False) -> np.ndarray:
    """The edges of the graph fitted to ``(n, d)`` from ``edges`` on ``big_n`` vertices
    (module docstring); sorted pairs ``u < v``. ``diameter3``: the greedy join brings the
    pairs at distance 4 or more within 3 first. ``fill``: added vertices filled one by one,
    not spread (module docstring)."""
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    nbrs = neighbour_sets(edges, big_n)
    if max((len(s) for s in nbrs), default=0) > d:
        raise GolfError(f"the construction has degree {max(len(s) for s in nbrs)} > d = {d}")
    rng = np.random.default_rng(seed)
    if n < big_n:
        for x in range(n, big_n):
            for u in nbrs[x]:
                if u < n:
                    nbrs[u].discard(x)
        nbrs = nbrs[:n]
    if n > big_n:
        (_add_filled if fill else _add)(nbrs, big_n, n, d, rng)
    if n <= NEAR_JOIN_MAX:
        _join_near(nbrs, d, diameter3)
    _join(nbrs, [v for v in range(n) for _ in range(d - len(nbrs[v]))], d, rng)
    short = [x for x in range(n) if len(nbrs[x]) + 2 <= d] if n > big_n and not fill else []
    if short:  # a vertex left two or more short splits edges
        current = edge_pairs(nbrs)
        for x in short:
            _split_into(nbrs, x, d, rng, current=current)
    return edge_pairs(nbrs)


def split_within_2(edges, n: int, d: int, seed: int = 0, tries: int = 10000) -> np.ndarray:
    """The edges of a graph of diameter 2 with every vertex left two or more slots short of
    ``d`` (a join's odd ends) filled by splitting edges ``u -- v`` into ``u -- x -- v`` (one
    edge more, so the total falls by 2) where the diameter stays 2: ``u`` and ``v`` still
    reach every vertex within 2 without their edge (the only pairs it served). Edges are drawn
    at random (``seed``), at most ``tries`` for each split; a vertex no drawn edge serves is
    left short."""
    nbrs = neighbour_sets(edges, n)
    rng = np.random.default_rng(seed)

    def reaches_all(a):  # a within 2 of every vertex (its edge to the other end gone)
        seen = set(nbrs[a])
        for b in nbrs[a]:
            seen |= nbrs[b]
        return len(seen | {a}) == n

    for x in range(n):
        drawn = 0
        while len(nbrs[x]) + 2 <= d and drawn < tries:
            current = edge_pairs(nbrs)
            for i in rng.permutation(len(current))[:tries - drawn].tolist():
                drawn += 1
                u, v = (int(t) for t in current[i])
                if x in (u, v) or u in nbrs[x] or v in nbrs[x]:
                    continue
                _split(nbrs, u, v, x)
                if reaches_all(u) and reaches_all(v):
                    break
                _split(nbrs, u, v, x, undo=True)  # a pair would be 3 apart
            else:
                break
    return edge_pairs(nbrs)


def _split_into(nbrs: list, x: int, d: int, rng, keep: int = 0, current=None) -> None:
    """Split edges ``u -- v`` into ``u -- x -- v`` (``u`` and ``v`` keep their degree, ``x``
    gains 2), drawn at random among those whose ends are not yet next to ``x``, while ``x``
    has room for two more neighbours and more than ``keep`` free slots. ``current``: the
    edges to draw from (default: the graph's; an edge split since is skipped)."""
    if current is None:
        current = edge_pairs(nbrs)
    for i in rng.permutation(len(current)):
        if len(nbrs[x]) + 2 > d - keep:
            break
        u, v = (int(t) for t in current[i])
        if v not in nbrs[u] or u in nbrs[x] or v in nbrs[x]:
            continue
        _split(nbrs, u, v, x)


def _split(nbrs: list, u: int, v: int, x: int, undo: bool = False) -> None:
    """The edge ``u -- v`` becomes ``u -- x -- v`` (``undo``: back)."""
    for a, b in ((u, v), (v, u)):
        (nbrs[a].add if undo else nbrs[a].discard)(b)
    for w in (u, v):
        (nbrs[w].discard if undo else nbrs[w].add)(x)
        (nbrs[x].discard if undo else nbrs[x].add)(w)


def _add_filled(nbrs: list, big_n: int, n: int, d: int, rng) -> None:
    """Add vertices ``big_n .. n-1`` one by one (module docstring, ``fill``): each takes free
    slots of the vertices before it, drawn at random, then splits their edges until its
    degree is ``d`` or ``d - 1``."""
    for x in range(big_n, n):
        nbrs.append(set())
        free = [u for u in range(x) if len(nbrs[u]) < d]
        for u in rng.permutation(free)[:d]:
            nbrs[int(u)].add(x)
            nbrs[x].add(int(u))
        _split_into(nbrs, x, d, rng, current=edge_pairs(nbrs[:x]))


def _add(nbrs: list, big_n: int, n: int, d: int, rng) -> None:
    """Add vertices ``big_n .. n-1`` with the old free slots dealt evenly over them (module
    docstring): the slots in a random order, each to the new vertex with the fewest old
    neighbours that is not yet next to its vertex; then each new vertex splits old edges
    only for what the other new vertices cannot give it (``d`` less its old neighbours less
    ``n - big_n - 1``)."""
    added = n - big_n
    slots = [u for u in range(big_n) for _ in range(d - len(nbrs[u]))]
    per = min(d, -(-len(slots) // added))
    nbrs.extend(set() for _ in range(added))
    heap = [(0, x) for x in range(big_n, n)]  # (old neighbours, new vertex), least first
    for i in rng.permutation(len(slots)):
        u = slots[i]
        passed = []
        while heap and (heap[0][1] in nbrs[u]):
            passed.append(heapq.heappop(heap))
        if heap and heap[0][0] < per:
            count, x = heapq.heappop(heap)
            nbrs[x].add(u)
            nbrs[u].add(x)
            heapq.heappush(heap, (count + 1, x))
        for item in passed:
            heapq.heappush(heap, item)
    keep = added - 1
    old = edge_pairs(nbrs[:big_n])
    old = old[old[:, 1] < big_n]
    for x in range(big_n, n):
        if len(nbrs[x]) + keep + 2 <= d:
            _split_into(nbrs, x, d, rng, keep=keep, current=old)


def _join_near(nbrs: list, d: int, diameter3: bool = False) -> None:
    """Join free slots in pairs, greedily by the pairs of vertices each edge brings within
    distance 2 (module docstring); with ``diameter3`` first by the pairs at distance 4 or more
    it brings within 3. The slots no round could join stay free."""
    n = len(nbrs)
    adj = np.zeros((n, n), dtype=bool)
    for u, vs in enumerate(nbrs):
        adj[u, list(vs)] = True
    deg = adj.sum(axis=1)
    share = max(1, int((d - deg).clip(0).sum()) // (2 * JOIN_ROUNDS))
    eye = np.eye(n, dtype=bool)
    distant = diameter3  # pairs at distance >= 4 may be left (counted while there are)
    while True:
        free = np.flatnonzero(deg < d)
        if len(free) < 2:
            return
        a = adj.astype(np.float32)
        two = (a @ a) > 0
        far = ~(adj | two)
        np.fill_diagonal(far, False)
        sub = far[free].astype(np.float32) @ a
        gain = sub[:, free]
        gain = (gain + gain.T + 2 * far[np.ix_(free, free)]).astype(np.float64)
        if distant:
            gain4 = _brings_within_3(adj, two, eye, free)
            distant = gain4 is not None
            if distant:
                gain += (2 * n + 2) * gain4  # above any count of pairs brought within 2
        gain[adj[np.ix_(free, free)]] = -1
        np.fill_diagonal(gain, -1)
        joined = 0
        for k in np.argsort(-gain, axis=None, kind="stable"):
            i, j = divmod(int(k), len(free))
            if gain[i, j] < 0 or joined == share:
                break
            u, v = int(free[i]), int(free[j])
            if u < v and deg[u] < d and deg[v] < d and not adj[u, v]:
                adj[u, v] = adj[v, u] = True
                deg[u] += 1
                deg[v] += 1
                nbrs[u].add(v)
                nbrs[v].add(u)
                joined += 1
        if joined == 0:
            return


def _brings_within_3(adj, two, eye, free):
    """For ``u, v`` in ``free``: how many pairs ``x, y`` at distance 4 or more an edge ``u --
    v`` brings within 3 (``d(u, x) + d(v, y) <= 2``, either way round); None when no pair is
    that far. ``two``: the pairs joined by a path of length 2."""
    one = adj | eye
    within2 = one | two
    within3 = (within2.astype(np.float32) @ one.astype(np.float32)) > 0
    xs, ys = np.nonzero(np.triu(~within3, 1))
    if len(xs) == 0:
        return None
    exact2 = within2 & ~one

    def ends(m, cols):  # m's rows of the free vertices, columns of the far pairs' ends
        return m[np.ix_(free, cols)].astype(np.float32)

    # d(u, x) + d(v, y) <= 2: (<= 2, 0), (<= 1, 1), (0, 2)
    t = (ends(within2, xs) @ ends(eye, ys).T + ends(one, xs) @ ends(adj, ys).T
         + ends(eye, xs) @ ends(exact2, ys).T)
    return (t + t.T).astype(np.float64)


def _join(nbrs: list, stubs: list, d: int, rng) -> None:
    """Join the free slots ``stubs`` (a vertex once for each) in pairs, in an order drawn from
    ``rng``: each to the first waiting stub of a vertex that is neither it nor a neighbour
    (a maximal matching of the stubs between vertices not yet adjacent)."""
    waiting = []
    for i in rng.permutation(len(stubs)):
        u = stubs[i]
        partner = next((j for j, w in enumerate(waiting)
                        if w != u and w not in nbrs[u] and len(nbrs[w]) < d), None)
        if partner is None or len(nbrs[u]) >= d:
            waiting.append(u)
            continue
        w = waiting.pop(partner)
        nbrs[u].add(w)
        nbrs[w].add(u)
