"""Partial results and how they combine.

A backend computes, for a range of its work units, ``[ecc, dist_sum, n_at_ecc, status]``: the
largest eccentricity among the range's sources, the sum of their distances, how many of them
have eccentricity ``ecc``, and a status. Chunks, threads and MPI ranks each produce such a row;
:func:`merge_parts` folds them into the row of the whole range.
"""

from __future__ import annotations

from numba import njit

__all__ = ["OK", "DISCONNECTED", "EXCEEDED", "merge_parts", "merge_many"]

# status of a partial result: complete, graph disconnected, diameter above the level cap
OK, DISCONNECTED, EXCEEDED = 0, 1, 2


@njit(cache=True)
def merge_parts(res, out):
    """Fold partial results (rows ``[ecc, dist_sum, n_at_ecc, status]``, from chunks, threads
    or ranks) into ``out``. A row with ``ecc = -1`` (an empty range) changes nothing."""
    ecc = -1
    status = OK
    dist = 0
    for c in range(res.shape[0]):
        if res[c, 3] > status:
            status = res[c, 3]
        if res[c, 0] > ecc:
            ecc = res[c, 0]
        dist += res[c, 1]
    n_at = 0
    for c in range(res.shape[0]):
        if res[c, 0] == ecc:
            n_at += res[c, 2]
    out[0] = ecc
    out[1] = dist if status == OK else 0
    out[2] = n_at if status == OK else 0
    out[3] = status


@njit(cache=True)
def merge_many(res, out):
    """:func:`merge_parts` for K graphs at once: ``res`` (K, parts, 4) into ``out`` (K, 4)."""
    for k in range(res.shape[0]):
        merge_parts(res[k], out[k])


