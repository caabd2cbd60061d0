"""The evaluator registry: one name per backend, one call shape, and ``auto``.

>>> ev = make_evaluator("bitset", n, d, g)      # doctest: +SKIP
>>> score = ev.evaluate(graph)                    # doctest: +SKIP
>>> score.diameter, score.total                   # doctest: +SKIP

Backends are imported lazily, so ``golf`` without SciPy or CuPy still works for the others.
"""

from __future__ import annotations

import importlib

from golf.errors import GolfError
from golf.evaluators.base import DISCONNECTED, EXCEEDED, OK, Evaluator, Score, cpu_threads

__all__ = ["BACKENDS", "make_evaluator", "choose_backend", "Evaluator", "Score", "OK",
           "DISCONNECTED", "EXCEEDED"]

BACKENDS = {
    "reference": ("golf.evaluators.reference", "ReferenceEvaluator"),
    "bfs": ("golf.evaluators.bfs", "BfsEvaluator"),
    "bitset": ("golf.evaluators.bitset", "BitsetEvaluator"),
}


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


def choose_backend(n: int, d: int, g: int = 1, threads: int | None = None) -> tuple[str, str]:
    """Pick the CPU backend for a problem and say why.

    The bit matrix handles 64 sources per memory access and so does ``~64/D`` times less work
    per source than BFS, where ``D`` is the diameter; measured (results/bench/eval_cpu.md) it is
    8-30x faster than ``bfs`` at Graph Golf diameters. BFS wins when the diameter is large
    (paths, cycles, degree 2: ``D`` grows like ``n``), because its work does not grow with ``D``.
    """
    threads = threads or cpu_threads()
    m = n // g
    D = estimate_diameter(n, d)
    words = (m + 63) // 64
    if D > 64:
        return "bfs", (f"bfs: expected diameter ~{D} levels > 64, so the bit matrix would touch "
                       f"each row more often than BFS touches each edge")
    return "bitset", (f"bitset: expected diameter ~{D} levels <= 64; the {m} base sources pack "
                      f"into {words} words, so each neighbour access serves up to 64 sources "
                      f"(bfs measured 8-30x slower at such diameters); threads={threads}")


def make_evaluator(name: str, n: int, d: int, g: int = 1, **options) -> Evaluator:
    """Build the evaluator ``name`` (or ``auto``) for graphs of shape ``(n, d, g)``.

    Options unknown to a backend are an error naming the option.
    """
    if name == "auto":
        name, _ = choose_backend(n, d, g, options.get("threads"))
    cls = backend_class(name)
    try:
        return cls(n, d, g, **options)
    except TypeError as exc:
        raise GolfError(f"backend '{name}': {exc}") from None
