"""What every backend shares: the score, the call shape, what a backend declares about itself,
and how partial results combine.

Every backend computes, for a range of its *work units* (base sources for ``bfs``, 64-bit
column words for ``bitset``), four integers::

    out = [ecc, dist_sum, n_at_ecc, status]

``ecc`` the largest eccentricity among the sources of the range, ``dist_sum`` the sum of the
distances from those sources to all ``n`` vertices, ``n_at_ecc`` how many of those sources have
eccentricity ``ecc``, and ``status`` (``OK``, ``DISCONNECTED``, or ``EXCEEDED`` when the caller's
``max_level`` cut the search short). :func:`combine` merges such partial results, whether they
come from threads, chunks or MPI ranks, and :meth:`Evaluator.finish` turns the merged base-source
sums into the exact score of the whole graph: ``total = g * dist_sum / 2`` (with centre vertices,
:mod:`golf.graph`, the kernels weigh each base source by ``g`` themselves, and the factor is 1:
:attr:`Evaluator.weight`).

A backend is one class, a subclass of :class:`Evaluator`, that declares in one place:

``name``        its registry name
``summary``     one line on what it is
``options``     its constructor options, as :class:`golf.options.Spec` (the config schema, the
                command line and ``make_evaluator`` check them with the same rules)
``supports``    :class:`Capabilities`: batched evaluation in one launch, a compiled kernel the
                search loop calls in place, work split over MPI ranks, a GPU
``estimate``    its own cost estimate, from measured rates, that ``auto`` compares
``unavailable`` why it cannot run here (a missing package or device), or None
"""

from __future__ import annotations

import math
import os
from typing import NamedTuple

import numpy as np

from golf.errors import GolfError
from golf.graph import Graph
from golf.kernels.merge import DISCONNECTED, EXCEEDED, OK, merge_parts
from golf.options import INF, Spec

__all__ = ["Score", "Evaluator", "CompiledEvaluator", "GpuEvaluator", "Capabilities", "Estimate", "combine",
           "OK", "DISCONNECTED", "EXCEEDED", "THREADS", "CHUNK_WORDS", "DEVICE", "cpu_threads",
           "expected_diameter", "gpu_unavailable", "GPU_MAX_LEVELS"]

# options that several backends take: CPU threads, and the bit matrices' column chunk
THREADS = Spec("int?", None, (1, INF), "an integer >= 1, or null (all usable cores)")
CHUNK_WORDS = Spec("int?", None, (1, INF), "an integer >= 1 (64-bit words), or null (automatic)")
# the GPU backends' device
DEVICE = Spec("int?", None, (0, INF), "a GPU index >= 0, or null")


class Score(NamedTuple):
    """The exact score of a graph.

    n : int, the number of vertices
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


_new_tuple = tuple.__new__


def _entry_point(dispatcher, args):
    """The compiled function a Numba dispatcher runs for the types of ``args`` (no typing of
    the arguments at each call), or None where it cannot be found."""
    try:
        from numba import typeof

        return dispatcher.overloads[tuple(typeof(a) for a in args)].entry_point
    except (KeyError, AttributeError, ValueError):
        return None


class Capabilities(NamedTuple):
    """What a backend supports beyond ``evaluate``.

    batched : ``evaluate_many`` scores K graphs in one launch (without it, one after another)
    compiled : a Numba kernel that the search loop calls in place, without Python per step
    mpi_split : its work units split over MPI ranks (``parallel: {mode: evaluator}``)
    gpu : it runs on an NVIDIA GPU
    """

    batched: bool = False
    compiled: bool = False
    mpi_split: bool = False
    gpu: bool = False


class Estimate(NamedTuple):
    """A backend's estimate of one evaluation: ``seconds``, and ``note`` on what it is made of."""

    seconds: float
    note: str


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


_GPU_REASON: list = []


def gpu_unavailable() -> str | None:
    """Why the GPU backends cannot run here (no CuPy, no device), or None; checked once."""
    if not _GPU_REASON:
        reason = None
        try:
            import cupy

            if cupy.cuda.runtime.getDeviceCount() < 1:
                reason = "CuPy sees no NVIDIA GPU"
        except ImportError:
            reason = "CuPy is not installed (pip install 'golf[gpu]')"
        except Exception as exc:  # a driver or runtime error: no usable GPU
            reason = f"no usable GPU: {exc}"
        _GPU_REASON.append(reason)
    return _GPU_REASON[0]


# level-synchronous GPU kernels pay a device-wide barrier a level: beyond this many expected
# levels their estimates (rates measured on graphs of <= 12 levels) do not hold
GPU_MAX_LEVELS = 1000


def expected_diameter(n: int, d: int) -> int:
    """Rough diameter of a random graph of degree ``d``, for cost estimates: the Moore bound
    plus two levels (what random and annealed graphs reach in practice), or ``n/2`` for paths
    and cycles."""
    from golf.lower_bounds import moore_bounds

    if d <= 2:
        return max(1, n // 2)
    b = moore_bounds(n, d).diameter
    return (b or n) + 2


class Evaluator:
    """Base class of the backends: ``Evaluator(n, d, g, **options).evaluate(graph)``.

    An evaluator is built once for a problem shape ``(n, d, g)`` and then called many times on
    graphs of that shape (the search calls it every step); it allocates its work space once.
    ``batch`` is the number of graphs one :meth:`evaluate_many` call may hold (backends that
    score a batch in one launch size their buffers for it).

    Subclasses declare what the module docstring lists, set ``units`` (how many work units the
    problem has) and implement :meth:`partial`, which computes the result for the unit range
    ``[u0, u1)``. With an MPI communicator ``comm`` the units are split among the ranks and the
    parts are combined with ``Allreduce`` (see :mod:`golf.parallel`).
    """

    name = "?"
    summary = ""
    options: dict = {}
    supports = Capabilities()
    kernel = None

    # whether it scores graphs with centre vertices (golf.graph); the others refuse them
    takes_centres = True

    def __init__(self, n: int, d: int, g: int = 1, *, comm=None, batch: int = 1,
                 symmetry=None, centres: int = 0):
        n, d, g, c = int(n), int(d), int(g), int(centres)
        if n < 1 or d < 0 or g < 1 or c < 0 or (n - c) % g:
            raise GolfError(f"bad problem shape n={n}, d={d}, g={g}"
                            + (f", centres={c} (need g | n - centres)" if c else " (need g | n)"))
        if symmetry is not None and symmetry.g != g:
            raise GolfError(f"the group {symmetry.label} has order {symmetry.g}, not g={g}")
        if c and not self.takes_centres:
            raise GolfError(f"{self.name}: no centre-vertex form (centres={c}); use bitset, bfs "
                            f"or reference")
        self.n, self.d, self.g, self.m = n, d, g, (n - c) // g
        # the symmetry group (golf.group.Group; None: cyclic) and the centre vertices
        self.symmetry = symmetry
        self.centres = c
        # the factor from the kernels' sums to the graph's: each base source stands for g
        # vertices; with centres the kernels weigh the sources themselves
        self.weight = 1 if c else g
        self.comm = comm
        self.batch = max(1, int(batch))
        self.units = self.m + c
        self.unit_range = (0, self.units)
        # set by make_evaluator when 'auto' chose this backend: why, and the options of
        # other backends it left out
        self.auto_reason = None
        self.dropped_options: list[str] = []
        # set by golf.evaluators.build: the backend's estimate of one evaluation (None: none)
        self.estimate_seconds = None

    # -- what a backend declares ------------------------------------------------------------
    @classmethod
    def unavailable(cls) -> str | None:
        """Why this backend cannot run on this machine (a missing package or device), or None."""
        return None

    @classmethod
    def estimate(cls, n: int, d: int, g: int, *, threads: int, ranks: int) -> Estimate | None:
        """Seconds of one evaluation of a graph of shape ``(n, d, g)`` with ``threads`` CPU
        threads and the work split over ``ranks`` MPI ranks; None: never chosen by ``auto``
        (not available here, or not a backend for production runs)."""
        return None

    # -- the interface ----------------------------------------------------------------------
    def _split_units(self) -> None:
        """Set ``unit_range``: all of ``units``, or this rank's share under MPI."""
        self.unit_range = (0, self.units)
        if self.comm is not None:
            from golf.parallel import share

            self.unit_range = share(self.units, self.comm.rank, self.comm.size)

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

    def evaluate_many(self, adjs, max_levels=None) -> np.ndarray:
        """Score K graphs of this shape: ``adjs`` holds their base rows, shape ``(K, m, d')``
        with ``d' <= d``; ``max_levels`` one level cap a graph (default none). Returns the
        merged results, shape ``(K, 4)`` (``finish`` turns a row into a :class:`Score`).
        Backends with ``supports.batched`` score them in one launch; the others one after
        another."""
        adjs = self.batch_rows(adjs)
        levels = self.batch_levels(adjs.shape[0], max_levels)
        from golf.graph import Graph

        out = np.empty((adjs.shape[0], 4), dtype=np.int64)
        for k, adj in enumerate(adjs):
            out[k] = self.raw(Graph(self.n, adj.shape[1], self.g, adj, self.symmetry,
                                    self.centres), levels[k])
        return out

    def batch_rows(self, adjs) -> np.ndarray:
        """``adjs`` as a C-contiguous int32 array ``(K, m, d')``, or a GolfError."""
        adjs = np.ascontiguousarray(adjs, dtype=np.int32)
        if adjs.ndim != 3 or adjs.shape[1] != self.m or adjs.shape[2] > self.d:
            raise GolfError(f"{self.name}: evaluate_many needs base rows of shape (K, {self.m}, "
                            f"<= {self.d}), got {adjs.shape}")
        return adjs

    @staticmethod
    def batch_levels(K: int, max_levels) -> list[int]:
        if max_levels is None:
            return [0] * K
        levels = [int(x) for x in max_levels]
        if len(levels) != K:
            raise GolfError(f"{len(levels)} level caps for {K} graphs")
        return levels

    def scorer(self):
        """A function ``(adj, max_level) -> Score`` for base rows of this evaluator's shape;
        compiled backends bind their kernel call in it (see :class:`CompiledEvaluator`)."""
        from golf.graph import Graph

        return lambda adj, max_level=0: self.evaluate(
            Graph(self.n, adj.shape[1], self.g, adj, self.symmetry, self.centres), max_level)

    def finish(self, part) -> Score:
        """The :class:`Score` of a merged result ``[ecc, dist_sum, n_at_ecc, status]``."""
        ecc, dist_sum, n_at, status = part.tolist() if isinstance(part, np.ndarray) else part
        if status != OK:
            return Score(self.n, None, None, 0, status)
        if self.n == 1:
            return Score(1, 0, 0, 1, OK)
        return Score(self.n, ecc, self.weight * dist_sum // 2, self.weight * n_at, OK)

    def check_shape(self, graph) -> None:
        if (graph.form != (self.n, self.g, self.symmetry, self.centres)
                or graph.adj.shape[1] > self.d):
            def grp(x, c):
                return ("" if x is None else f" ({x.label})") + (f", centres={c}" if c else "")

            raise GolfError(f"{self.name}: evaluator built for n={self.n}, d={self.d}, "
                            f"g={self.g}{grp(self.symmetry, self.centres)}, got a graph with "
                            f"n={graph.n}, d={graph.adj.shape[1]}, "
                            f"g={graph.g}{grp(graph.group, graph.centres)}")

    def describe(self) -> str:
        """One line on how this evaluator will run (threads, chunks, ...)."""
        return self.name


class GpuEvaluator(Evaluator):
    """A backend on an NVIDIA GPU (CuPy): available where CuPy sees a GPU."""

    supports = Capabilities(gpu=True)

    @classmethod
    def unavailable(cls):
        return gpu_unavailable()

    @classmethod
    def estimated_levels(cls, n: int, d: int) -> int | None:
        """The expected diameter, for an estimate; None where no estimate holds (no GPU, or
        more levels than :data:`GPU_MAX_LEVELS`)."""
        D = expected_diameter(n, d)
        return None if gpu_unavailable() or D > GPU_MAX_LEVELS else D


class CompiledEvaluator(Evaluator):
    """A backend whose work is one compiled kernel call with the shape

        kernel(adj, ctrl, out, n, *scratch)

    ``ctrl = [max_level, u0, u1]`` (int64) says what to compute, ``out`` (4 int64) receives
    ``[ecc, dist_sum, n_at_ecc, status]``, ``n`` is the vertex count and ``scratch`` the
    backend's work space (:meth:`scratch`), whose last item is ``sym``: the arguments of
    :func:`golf.kernels.symmetry.twist_rows`, which gives the kernel cyclic rows for a
    non-cyclic group (empty arrays for the cyclic one). ``kernel_args(adj)``
    builds that tuple once; the search keeps it and calls the kernel from its compiled loop
    after each move (through ``tag``, see :mod:`golf.kernels.dispatch`), setting ``ctrl[0]`` as
    it goes, with no Python and no allocation per step.
    """

    supports = Capabilities(compiled=True, mpi_split=True)

    def __init__(self, n, d, g=1, *, comm=None, batch=1, symmetry=None, centres=0):
        from golf.kernels.dispatch import KernelTag
        from golf.kernels.symmetry import group_scratch

        super().__init__(n, d, g, comm=comm, batch=batch, symmetry=symmetry, centres=centres)
        # the kernels' last argument: what they expand the rows with (cyclic: empty arrays)
        self.sym = group_scratch(symmetry, self.n, self.m, self.d, self.centres)
        self.ctrl = np.zeros(3, dtype=np.int64)
        self.out = np.zeros(4, dtype=np.int64)
        self.tag = KernelTag(self.name, type(self).kernel)
        self._score = None  # scorer(), built at the first evaluation

    def _split_units(self) -> None:
        super()._split_units()
        self.ctrl[1:] = self.unit_range

    def scratch(self) -> tuple:
        """The kernel's arguments after ``(adj, ctrl, out, n)``."""
        raise NotImplementedError

    def kernel_args(self, adj) -> tuple:
        return (adj, self.ctrl, self.out, self.n, *self.scratch())

    def evaluate(self, graph, max_level=0):
        if self.comm is not None or type(graph) is not Graph:
            return self.finish(self.raw(graph, max_level))
        if (graph.n != self.n or graph.g != self.g or graph.adj.shape[1] > self.d
                or graph.group is not self.symmetry or graph.centres != self.centres):
            self.check_shape(graph)
        if self._score is None:
            self._score = self.scorer()
        return self._score(graph.adj, max_level)

    def scorer(self):
        """A function ``(adj, max_level) -> Score`` for the base rows of a
        :class:`~golf.graph.Graph` of this evaluator's shape (unchecked), without MPI: the
        kernel call with everything else bound beforehand. After the first call it calls the
        kernel's compiled entry point for those rows' type (a Graph's rows always have it:
        C-contiguous, aligned int32) instead of the dispatcher, which would type the 10-odd
        arguments again every time; a Python caller then pays, beyond the kernel, the
        argument conversion, the call and the Score (``golf.evaluate`` uses it directly)."""
        ctrl, out, n, g, finish = self.ctrl, self.out, self.n, self.weight, self.finish
        kernel, tail = self.kernel, self.kernel_args(None)[1:]
        call = None

        def score(adj, max_level=0):
            nonlocal call
            ctrl[0] = max_level
            if call is None:
                kernel(adj, *tail)  # compiles or loads the kernel for these types
                call = _entry_point(kernel, (adj, *tail)) or kernel
            else:
                call(adj, *tail)
            ecc, dist_sum, n_at, status = out.tolist()
            if status or n == 1:
                return finish((ecc, dist_sum, n_at, status))
            return _new_tuple(Score, (n, ecc, g * dist_sum // 2, g * n_at, OK))

        return score

    def evaluate_many(self, adjs, max_levels=None):
        # the kernel on each graph's rows in turn, without a Graph or copies per graph (the
        # K chains of a CPU search call this every step)
        if self.comm is not None:
            return super().evaluate_many(adjs, max_levels)
        adjs = self.batch_rows(adjs)
        levels = self.batch_levels(adjs.shape[0], max_levels)
        tail = self.kernel_args(None)[1:]
        out = np.empty((adjs.shape[0], 4), dtype=np.int64)
        for k in range(adjs.shape[0]):
            self.ctrl[0] = levels[k]
            self.kernel(adjs[k], *tail)
            out[k] = self.out
        return out

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
