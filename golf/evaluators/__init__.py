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


# Measured on the 2-core Zen 4 machine (results/bench/eval_cpu.md): BFS costs ~3.6 ns per edge
# and source, the bit matrix ~0.15 ns per 64 sources, edge and level. Per 64 sources the bit
# matrix is therefore faster while the diameter stays below ~64 * 3.6 / 0.15 ~ 1500 levels; we
# switch to BFS well before that, at 1000.
BFS_DIAMETER = 1000


def choose_backend(n: int, d: int, g: int = 1, threads: int | None = None) -> tuple[str, str]:
    """Pick the CPU backend for a problem and say why (the second element is the reason)."""
    threads = threads or cpu_threads()
    m = n // g
    D = estimate_diameter(n, d)
    words = (m + 63) // 64
    if D > BFS_DIAMETER:
        return "bfs", (f"bfs: expected diameter ~{D} levels > {BFS_DIAMETER}: the bit matrix "
                       f"pays for every level, BFS only for every edge")
    return "bitset", (f"bitset: the {m} base sources pack into {words} 64-bit words and the "
                      f"expected diameter is ~{D} levels, so one pass over a neighbour row "
                      f"serves up to 64 sources; measured 13-320x faster than bfs at such "
                      f"diameters (results/bench/eval_cpu.md); threads <= {threads}")


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
