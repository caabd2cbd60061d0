"""What every evaluator shares: the score, the call shape, and how partial results combine.

Every backend computes, for a range of its *work units* (base sources for ``bfs``, 64-bit
column words for ``bitset``), four integers::

    out = [ecc, dist_sum, n_at_ecc, status]

``ecc`` the largest eccentricity among the sources of the range, ``dist_sum`` the sum of the
distances from those sources to all ``n`` vertices, ``n_at_ecc`` how many of those sources have
eccentricity ``ecc``, and ``status`` (``OK``, ``DISCONNECTED``, or ``EXCEEDED`` when the caller's
``max_level`` cut the search short). :func:`combine` merges such partial results, whether they
come from threads, chunks or MPI ranks, and :meth:`Evaluator.finish` turns the merged base-source
sums into the exact score of the whole graph: ``total = g * dist_sum / 2``.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

import numpy as np

from golf.errors import GolfError

__all__ = ["Score", "Evaluator", "CompiledEvaluator", "combine", "OK", "DISCONNECTED", "EXCEEDED", "cpu_threads"]

from golf.kernels.merge import DISCONNECTED, EXCEEDED, OK, merge_parts


@dataclass(frozen=True)
class Score:
    """The exact score of a graph.

    diameter : int or None (None: disconnected, or above the ``max_level`` asked for)
    total : int or None, the sum of the distances over all ``n(n-1)/2`` unordered pairs
    peripheral : int, vertices whose eccentricity equals the diameter (0 if disconnected)
    status : OK, DISCONNECTED or EXCEEDED
    """

    n: int
    diameter: int | None
    total: int | None
    peripheral: int = 0
    status: int = OK

    @property
    def connected(self) -> bool:
        return self.status == OK

    @property
    def aspl(self) -> float:
        """Average shortest path length; ``inf`` when disconnected (``0`` for ``n = 1``)."""
        if self.status != OK:
            return math.inf
        pairs = self.n * (self.n - 1) // 2
        return self.total / pairs if pairs else 0.0

    @property
    def key(self) -> tuple:
        """Sort key: smaller is better; every connected graph beats every disconnected one."""
        if self.status != OK:
            return (1, math.inf, math.inf, math.inf)
        return (0, self.diameter, self.total, self.peripheral)

    def as_dict(self) -> dict:
        return {"diameter": self.diameter, "total": self.total,
                "aspl": None if self.status != OK else self.aspl,
                "connected": self.connected, "peripheral": self.peripheral}


def combine(parts) -> np.ndarray:
    """Merge partial results ``[ecc, dist_sum, n_at_ecc, status]`` (the rows of ``parts``)."""
    out = np.zeros(4, dtype=np.int64)
    merge_parts(np.ascontiguousarray(parts, dtype=np.int64).reshape(-1, 4), out)
    return out


def cpu_threads() -> int:
    """Threads golf uses on the CPU: ``NUMBA_NUM_THREADS`` if set; else the usable cores,
    divided among the MPI ranks of this node when started under mpiexec (so that K ranks on a
    node of C cores use C/K threads each instead of oversubscribing it)."""
    env = os.environ.get("NUMBA_NUM_THREADS")
    if env:
        return max(1, int(env))
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    from golf.parallel import local_ranks

    return max(1, cores // local_ranks())


class Evaluator:
    """Base class of the backends: ``Evaluator(n, d, g, **options).evaluate(graph)``.

    An evaluator is built once for a problem shape ``(n, d, g)`` and then called many times on
    graphs of that shape (the search calls it every step); it allocates its work space once.

    Subclasses set ``name`` and ``units`` (how many work units the problem has) and implement
    :meth:`partial`, which computes the result for the unit range ``[u0, u1)``. With an MPI
    communicator ``comm`` the units are split among the ranks and the parts are combined with
    ``Allreduce`` (see :mod:`golf.parallel`).
    """

    name = "?"

    def __init__(self, n: int, d: int, g: int = 1, *, comm=None):
        n, d, g = int(n), int(d), int(g)
        if n < 1 or d < 0 or g < 1 or n % g:
            raise GolfError(f"bad problem shape n={n}, d={d}, g={g} (need g | n)")
        self.n, self.d, self.g, self.m = n, d, g, n // g
        self.comm = comm
        self.units = self.m
        self.unit_range = (0, self.m)

    def _split_units(self) -> None:
        """Set ``unit_range``: all of ``units``, or this rank's share under MPI."""
        self.unit_range = (0, self.units)
        if self.comm is not None:
            from golf.parallel import share

            self.unit_range = share(self.units, self.comm.rank, self.comm.size)

    # -- the interface ----------------------------------------------------------------------
    def partial(self, graph, u0: int, u1: int, max_level: int = 0) -> np.ndarray:
        raise NotImplementedError

    def evaluate(self, graph, max_level: int = 0) -> Score:
        """Exact score of ``graph``.

        ``max_level > 0`` lets the backend stop once it is clear that the diameter exceeds
        ``max_level``; the score then has ``status == EXCEEDED`` (the search uses this to
        reject moves early).
        """
        return self.finish(self.raw(graph, max_level))

    def raw(self, graph, max_level: int = 0) -> np.ndarray:
        """The merged result ``[ecc, dist_sum, n_at_ecc, status]`` over all work units (this
        process's share combined with the other ranks' under MPI), before :meth:`finish`."""
        self.check_shape(graph)
        part = self.partial(graph, *self.unit_range, max_level=max_level)
        if self.comm is not None:
            from golf.parallel import allreduce_parts

            part = allreduce_parts(self.comm, part)
        return part

    def finish(self, part) -> Score:
        ecc, dist_sum, n_at, status = (int(x) for x in part)
        if status != OK:
            return Score(self.n, None, None, 0, status)
        if self.n == 1:
            return Score(1, 0, 0, 1, OK)
        return Score(self.n, ecc, self.g * dist_sum // 2, self.g * n_at, OK)

    def check_shape(self, graph) -> None:
        if (graph.n, graph.g) != (self.n, self.g) or graph.adj.shape[1] > self.d:
            raise GolfError(f"{self.name}: evaluator built for n={self.n}, d={self.d}, "
                            f"g={self.g}, got a graph with n={graph.n}, d={graph.adj.shape[1]}, "
                            f"g={graph.g}")

    def describe(self) -> str:
        """One line on how this evaluator will run (threads, chunks, ...)."""
        return self.name


class CompiledEvaluator(Evaluator):
    """A backend whose work is one compiled kernel call with the shape

        kernel(adj, ctrl, out, *backend_arrays)

    ``ctrl = [max_level, u0, u1]`` (int64) says what to compute, ``out`` (4 int64) receives
    ``[ecc, dist_sum, n_at_ecc, status]``. ``kernel_args(adj)`` builds that tuple once; the
    search keeps it and calls the kernel from its compiled loop after each move, setting
    ``ctrl[0]`` as it goes, with no Python and no allocation per step.
    """

    def __init__(self, n, d, g=1, *, comm=None):
        super().__init__(n, d, g, comm=comm)
        self.ctrl = np.zeros(3, dtype=np.int64)
        self.out = np.zeros(4, dtype=np.int64)

    def _split_units(self) -> None:
        super()._split_units()
        self.ctrl[1:] = self.unit_range

    def kernel_args(self, adj) -> tuple:
        raise NotImplementedError

    def partial(self, graph, u0, u1, max_level=0):
        if u1 <= u0:
            return np.array([-1, 0, 0, OK], dtype=np.int64)
        keep = self.ctrl.copy()
        self.ctrl[:] = (max_level, u0, u1)
        try:
            self.kernel(*self.kernel_args(graph.adj))
        finally:
            self.ctrl[:] = keep
        return self.out.copy()
