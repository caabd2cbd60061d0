"""How many vertices a BFS from one source reaches in a graph given in CSR form.

``golf validate`` checks connectivity with it on the vertices its file touches: the CSR takes
memory in proportion to the edges, whatever the degrees (the base rows of
:class:`golf.graph.Graph` are as wide as the largest degree).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["reached_from"]


@njit(cache=True)
def reached_from(indptr, indices, src):
    """The number of vertices reachable from ``src`` (itself included) in the graph whose
    neighbours of ``v`` are ``indices[indptr[v]:indptr[v + 1]]``."""
    k = indptr.shape[0] - 1
    seen = np.zeros(k, dtype=np.bool_)
    queue = np.empty(k, dtype=np.int64)
    seen[src] = True
    queue[0] = src
    head = 0
    tail = 1
    while head < tail:
        v = queue[head]
        head += 1
        for p in range(indptr[v], indptr[v + 1]):
            u = indices[p]
            if not seen[u]:
                seen[u] = True
                queue[tail] = u
                tail += 1
    return tail
