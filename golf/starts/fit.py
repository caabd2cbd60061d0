"""Fitting a constructed graph to a pair ``(n, d)``: from a graph on ``N`` vertices with every
degree at most ``d``, a graph on exactly ``n`` vertices with every degree at most ``d`` that
keeps as much of the construction as it can.

* **Adding** ``n - N`` vertices: a new vertex first takes the free slots of old vertices
  (degree below ``d``), drawn at random, then splits old edges ``u -- v`` into ``u -- x -- v``
  (``u`` and ``v`` keep their degree, ``x`` gains 2) until its degree is ``d`` or ``d - 1``.
  The split edges are drawn at random among those whose ends are not yet next to ``x`` nor to
  each other's split, so a new vertex reaches across the whole graph in two steps.
* **Deleting** ``N - n`` vertices: the vertices with the largest ids go, and the slots their
  edges freed are joined in pairs at random (a maximal matching of the freed stubs between
  vertices not yet adjacent), which restores most degrees.
* Last, every slot still free (a construction of degree below ``d``) is joined in pairs the
  same way: the search swaps edges and never adds one, so a slot left free stays free. For
  ``ER_41`` less 3 polar lines (degree 39) fitted to (1560, 40) that takes the start's ASPL
  from 2.0613 to 2.0561.

Deterministic for a seed: the same graph on every machine.
"""

from __future__ import annotations

import numpy as np

from golf.errors import GolfError

__all__ = ["fit_edges"]


def _adjacency(edges: np.ndarray, n: int) -> list:
    nbrs = [set() for _ in range(n)]
    for u, v in edges:
        nbrs[u].add(int(v))
        nbrs[v].add(int(u))
    return nbrs


def _edges(nbrs: list) -> np.ndarray:
    out = [(u, v) for u, vs in enumerate(nbrs) for v in vs if u < v]
    return np.array(sorted(out), dtype=np.int64).reshape(-1, 2)


def fit_edges(edges, big_n: int, n: int, d: int, seed: int = 0) -> np.ndarray:
    """The edges of the graph fitted to ``(n, d)`` from ``edges`` on ``big_n`` vertices
    (module docstring); sorted pairs ``u < v``."""
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    nbrs = _adjacency(edges, big_n)
    if max((len(s) for s in nbrs), default=0) > d:
        raise GolfError(f"the construction has degree {max(len(s) for s in nbrs)} > d = {d}")
    rng = np.random.default_rng(seed)
    if n < big_n:
        freed = []
        for x in range(n, big_n):
            for u in nbrs[x]:
                if u < n:
                    nbrs[u].discard(x)
                    freed.append(u)
        nbrs = nbrs[:n]
        _join(nbrs, freed, d, rng)
    for x in range(big_n, n):
        nbrs.append(set())
        free = [u for u in range(x) if len(nbrs[u]) < d]
        for u in rng.permutation(free)[:d]:
            nbrs[int(u)].add(x)
            nbrs[x].add(int(u))
        current = _edges(nbrs[:x])
        for i in rng.permutation(len(current)):
            if len(nbrs[x]) + 2 > d:
                break
            u, v = (int(t) for t in current[i])
            if v not in nbrs[u] or u in nbrs[x] or v in nbrs[x]:
                continue
            nbrs[u].discard(v)
            nbrs[v].discard(u)
            for w in (u, v):
                nbrs[w].add(x)
                nbrs[x].add(w)
    _join(nbrs, [v for v in range(n) for _ in range(d - len(nbrs[v]))], d, rng)
    return _edges(nbrs)


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
