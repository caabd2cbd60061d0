"""Index arithmetic of g-symmetric graphs (see :mod:`golf.graph`): vertex ``v = off + i`` with
``off`` a multiple of ``m = n / g`` is base row ``i`` rotated by ``off``, and its neighbours are
the base row's ids rotated by the same ``off``."""

from __future__ import annotations

from numba import njit

__all__ = ["rotated", "base_of"]


@njit(cache=True, inline="always")
def rotated(w, off, n):
    """Neighbour id ``(w + off) mod n`` for ``0 <= w, off < n`` without a division."""
    u = w + off
    if u >= n:
        u -= n
    return u


@njit(cache=True, inline="always")
def base_of(v, m):
    """Base row ``i`` and rotation ``off`` of vertex ``v = off + i`` (``off`` a multiple of m)."""
    k = v // m
    return v - k * m, k * m


