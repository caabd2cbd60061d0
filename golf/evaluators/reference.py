"""``reference``: SciPy's ``csgraph`` BFS on the expanded graph. Slow and obvious.

It shares nothing with the fast backends but the :class:`~golf.graph.Graph` expansion: the full
graph is built as a SciPy sparse matrix from :meth:`Graph.edges`, and
``scipy.sparse.csgraph.shortest_path`` (unweighted) gives the distances from the base sources,
in blocks so memory stays bounded. For tests and for validating exports; SciPy is imported only
here (it is a test extra, not a runtime dependency).
"""

from __future__ import annotations

import numpy as np

from golf.errors import GolfError
from golf.evaluators.base import DISCONNECTED, EXCEEDED, OK, Capabilities, Evaluator
from golf.options import INF, Spec

__all__ = ["ReferenceEvaluator", "distance_matrix"]


def _csgraph():
    try:
        from scipy.sparse import csr_matrix
        from scipy.sparse.csgraph import shortest_path
    except ImportError:  # pragma: no cover - depends on the environment
        raise GolfError("the reference backend needs SciPy: pip install 'golf[test]'") from None
    return csr_matrix, shortest_path


def distance_matrix(graph, sources) -> np.ndarray:
    """Hop distances from ``sources`` to every vertex (``inf`` where unreachable)."""
    csr_matrix, shortest_path = _csgraph()
    e = graph.edges()
    n = graph.n
    a = csr_matrix((np.ones(len(e), dtype=np.int8), (e[:, 0], e[:, 1])), shape=(n, n))
    return shortest_path(a, method="D", directed=False, unweighted=True, indices=sources)


class ReferenceEvaluator(Evaluator):
    """SciPy BFS from every base source of the expanded graph.

    Parameters
    ----------
    block : int — sources per SciPy call (memory ``block * n * 8`` bytes; default 256)
    """

    name = "reference"
    summary = "scipy.sparse.csgraph BFS on the expanded graph; slow and obvious, for checks"
    options = {"block": Spec("int", 256, (1, INF), "an integer >= 1 (sources per SciPy call)")}
    supports = Capabilities(mpi_split=True)

    def __init__(self, n, d, g=1, *, block=256, comm=None, batch=1, symmetry=None,
                 centres=0):
        super().__init__(n, d, g, comm=comm, batch=batch, symmetry=symmetry, centres=centres)
        self.block = max(1, int(block))
        self._split_units()

    @classmethod
    def unavailable(cls):
        try:
            import scipy.sparse.csgraph  # noqa: F401
        except ImportError:
            return "SciPy is not installed (pip install 'golf[test]')"
        return None

    def partial(self, graph, u0, u1, max_level=0):
        # unit u: base source u (weighing g when there are centres), or centre n - c + u - m
        ecc, dist_sum, n_at = -1, 0, 0
        m, c = self.m, self.centres
        w = self.g if c else 1
        for b0 in range(u0, u1, self.block):
            units = np.arange(b0, min(u1, b0 + self.block))
            sources = np.where(units < m, units, self.n - c + units - m)
            weights = np.where(units < m, w, 1)
            dist = distance_matrix(graph, sources)
            if not np.isfinite(dist).all():
                return np.array([-1, 0, 0, DISCONNECTED], dtype=np.int64)
            rows = dist.max(axis=1).astype(np.int64)
            dist_sum += int((dist.sum(axis=1) * weights).sum(dtype=np.float64))
            top = int(rows.max())
            if 0 < max_level < top:  # as the level-by-level backends report a cap
                return np.array([max_level, 0, 0, EXCEEDED], dtype=np.int64)
            if top > ecc:
                ecc, n_at = top, 0
            if top == ecc:
                n_at += int(weights[rows == ecc].sum())
        return np.array([ecc, dist_sum, n_at, OK], dtype=np.int64)

    def describe(self) -> str:
        return (f"reference: SciPy csgraph BFS from {self.m} base sources"
                + (f" and {self.centres} centres" if self.centres else ""))
