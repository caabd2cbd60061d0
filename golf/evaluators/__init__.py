"""The evaluator registry: one name per backend, one call shape, and ``auto``.

>>> ev = make_evaluator("bitset", n, d, g)      # doctest: +SKIP
>>> score = ev.evaluate(graph)                    # doctest: +SKIP
>>> score.diameter, score.total                   # doctest: +SKIP

Backends are imported lazily, so ``golf`` without SciPy or CuPy still works for the others.
"""

from __future__ import annotations

import importlib
import math

from golf.errors import GolfError
from golf.evaluators.base import DISCONNECTED, EXCEEDED, OK, Evaluator, Score, cpu_threads

__all__ = ["BACKENDS", "make_evaluator", "choose_backend", "Evaluator", "Score", "OK",
           "DISCONNECTED", "EXCEEDED"]

BACKENDS = {
    "reference": ("golf.evaluators.reference", "ReferenceEvaluator"),
    "bfs": ("golf.evaluators.bfs", "BfsEvaluator"),
    "bitset": ("golf.evaluators.bitset", "BitsetEvaluator"),
    "gpu-bitset": ("golf.evaluators.gpu_bitset", "GpuBitsetEvaluator"),
    "seidel": ("golf.evaluators.seidel", "SeidelEvaluator"),
}

_GPU = None


def gpu_available() -> bool:
    """CuPy imports and sees an NVIDIA GPU (checked once)."""
    global _GPU
    if _GPU is None:
        try:
            import cupy

            _GPU = cupy.cuda.runtime.getDeviceCount() > 0
        except Exception:
            _GPU = False
    return _GPU


def backend_class(name: str):
    try:
        module, cls = BACKENDS[name]
    except KeyError:
        raise GolfError(f"unknown backend '{name}'; expected one of: auto, "
                        f"{', '.join(BACKENDS)}") from None
    return getattr(importlib.import_module(module), cls)


def estimate_diameter(n: int, d: int) -> int:
    """Rough diameter of a random graph of degree ``d``: the Moore bound plus two levels
    (what random and annealed graphs reach in practice), or ``n/2`` for paths and cycles."""
    from golf.bounds import moore_bounds

    if d <= 2:
        return max(1, n // 2)
    b = moore_bounds(n, d).diameter
    return (b or n) + 2


# Measured on the 2-core Zen 4 machine (results/bench/eval_cpu.md): BFS costs ~3.6 ns per edge
# and source, the bit matrix ~0.15 ns per 64 sources, edge and level. Per 64 sources the bit
# matrix is therefore faster while the diameter stays below ~64 * 3.6 / 0.15 ~ 1500 levels; we
# switch to BFS well before that, at 1000.
BFS_DIAMETER = 1000
# per-rank estimates under MPI (same measurements): BFS 1.7-3.6 ns per edge and source; the
# bit matrix per 64-bit word, edge and level 0.15 ns at 8+ words a row, ~0.4 ns at 2-7 and
# ~0.8 ns at one word ((1000000,32,25000): 123 ms for 5 levels)
NS_PER_BFS_EDGE = 2.0


def _bitset_ns(n: int, d: int, D: int, words: int) -> float:
    """Estimated CPU nanoseconds of one bit-matrix evaluation over ``words`` column words."""
    per = 0.15 if words >= 8 else (0.4 if words >= 2 else 0.8)
    return per * n * d * D * words


# GPU estimates, measured on an H200 (results/gpu/bench_gpu.md): the bit matrix handles
# ~8.4e11 word x edge x level per second on mid-sized graphs ((65536,6,1): 3.6e9 in 4.3 ms)
# and ~1.2e12 on the largest ((1000000,32,1): 2.5e12 in 2.09 s); the lower rate is used. An
# evaluation costs ~0.06-0.12 ms of launches and the result read whatever its size;
# Seidel's int8 products run at ~4e14 multiply-adds per second ((16384, 2048): 2 in 20 ms)
GPU_WORD_EDGES_PER_S = 8e11
GPU_INT8_MACS_PER_S = 4e14
GPU_FIXED_SECONDS = 1e-4


def choose_backend(n: int, d: int, g: int = 1, threads: int | None = None,
                   ranks: int = 1, gpu: bool | None = None) -> tuple[str, str]:
    """Pick the backend for a problem and say why (the second element is the reason).

    ``ranks`` > 1: the evaluation is split over that many MPI ranks. The bit matrix splits
    into ``ceil(m/64)`` column words, BFS into ``m`` sources, so with many ranks and few words
    BFS can win: each backend is estimated at its per-rank share, from the measured costs."""
    threads = threads or cpu_threads()
    m = n // g
    D = estimate_diameter(n, d)
    words = (m + 63) // 64
    if gpu is None:
        gpu = gpu_available() and D <= BFS_DIAMETER
    if gpu:
        cpu = _bitset_ns(n, d, D, words) * 1e-9 / max(1, threads) / max(1, ranks)
        gbit = GPU_FIXED_SECONDS + n * d * D * words / GPU_WORD_EDGES_PER_S / max(1, ranks)
        seid = (GPU_FIXED_SECONDS + 2 * max(1, math.ceil(math.log2(max(D, 2))))
                * float(n) ** 3 / GPU_INT8_MACS_PER_S)
        if min(gbit, seid) < cpu:
            if seid < gbit:
                return "seidel", (f"seidel: dense graph (d={d} of n={n}): ~{seid * 1e3:.3g} ms "
                                  f"of int8 tensor-core products vs ~{gbit * 1e3:.3g} ms for the "
                                  f"GPU bit matrix and ~{cpu * 1e3:.3g} ms on the CPU")
            return "gpu-bitset", (f"gpu-bitset: ~{gbit * 1e3:.3g} ms on the GPU vs ~"
                                  f"{cpu * 1e3:.3g} ms on the CPU (estimates from measured "
                                  f"rates, results/gpu/bench_gpu.md)")
    if D > BFS_DIAMETER:
        return "bfs", (f"bfs: expected diameter ~{D} levels > {BFS_DIAMETER}: the bit matrix "
                       f"pays for every level, BFS only for every edge")
    if ranks > 1:
        per_rank = -(-words // ranks)
        bit = _bitset_ns(n, d, D, per_rank)
        bfs = NS_PER_BFS_EDGE * n * d * -(-m // ranks)
        name = "bfs" if bfs < bit else "bitset"
        return name, (f"{name}: split over {ranks} ranks, BFS's {m} sources "
                      f"({-(-m // ranks)} per rank) or the bit matrix's {words} column words "
                      f"({per_rank} per rank): estimated {bfs / 1e6:.3g} ms (bfs) vs "
                      f"{bit / 1e6:.3g} ms (bitset) per evaluation")
    return "bitset", (f"bitset: the {m} base sources pack into {words} 64-bit words and the "
                      f"expected diameter is ~{D} levels, so one pass over a neighbour row "
                      f"serves up to 64 sources; measured 13-320x faster than bfs at such "
                      f"diameters (results/bench/eval_cpu.md); threads <= {threads}")


def make_evaluator(name: str, n: int, d: int, g: int = 1, **options) -> Evaluator:
    """Build the evaluator ``name`` (or ``auto``) for graphs of shape ``(n, d, g)``.

    Options unknown to a backend are an error naming the option.
    """
    if name == "auto":
        comm = options.get("comm")
        name, _ = choose_backend(n, d, g, options.get("threads"),
                                 comm.size if comm is not None else 1)
    cls = backend_class(name)
    try:
        return cls(n, d, g, **options)
    except TypeError as exc:
        raise GolfError(f"backend '{name}': {exc}") from None
