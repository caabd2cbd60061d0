"""Moore lower bounds on the diameter and the ASPL of a graph with ``n`` vertices and degree
``<= d``.

Grow a tree from one vertex: level 1 holds at most ``d`` vertices, level ``j`` at most
``d (d-1)^(j-1)``. The diameter is at least the first level at which the tree can hold all ``n``
vertices; the ASPL is at least the mean depth when the other ``n - 1`` vertices fill the levels
greedily, shallowest first. Both are exact (integers and a :class:`fractions.Fraction`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from golf.errors import GolfError

__all__ = ["Bounds", "moore_bounds"]


@dataclass(frozen=True)
class Bounds:
    """Moore bounds for ``(n, d)``.

    diameter : int or None (None when no connected graph exists: ``d = 0 < n - 1`` or
        ``d = 1 < n - 1``)
    aspl : Fraction or None
    total : int or None, the matching lower bound on the sum over unordered pairs
        (``aspl * n(n-1)/2``, rounded up)
    """

    n: int
    d: int
    diameter: int | None
    aspl: Fraction | None

    @property
    def total(self) -> int | None:
        if self.aspl is None:
            return None
        t = self.aspl * self.n * (self.n - 1) / 2
        return -(-t.numerator // t.denominator)

    def as_dict(self) -> dict:
        return {
            "n": self.n,
            "d": self.d,
            "diameter_bound": self.diameter,
            "aspl_bound": float(self.aspl) if self.aspl is not None else None,
            "aspl_bound_fraction": str(self.aspl) if self.aspl is not None else None,
        }


def moore_bounds(n: int, d: int) -> Bounds:
    """Moore bounds on diameter and ASPL for order ``n`` and degree ``d``.

    Raises GolfError for ``n < 1`` or ``d < 0``. For ``n = 1`` both bounds are 0.
    """
    n, d = int(n), int(d)
    if n < 1:
        raise GolfError(f"n must be >= 1, got {n}")
    if d < 0:
        raise GolfError(f"d must be >= 0, got {d}")
    if n == 1:
        return Bounds(n, d, 0, Fraction(0))
    if d == 0 or (d == 1 and n > 2):
        return Bounds(n, d, None, None)
    remaining = n - 1
    level, width, depth_sum = 0, d, 0
    while remaining > 0:
        level += 1
        take = min(width, remaining)
        depth_sum += take * level
        remaining -= take
        width *= d - 1
        if width == 0:  # d == 1: only n == 2 reaches here, and it is done
            break
    return Bounds(n, d, level, Fraction(depth_sum, n - 1))
