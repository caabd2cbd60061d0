"""The neighbourhood of one graph: K distinct symmetric swaps, each recorded so that it can be
applied to the graph (or to a copy of its rows) and reverted, without searching for it again.

A candidate is the swap :func:`golf.engine.moves.propose_swap` draws (or, for a small
neighbourhood, one of all the swaps :func:`golf.engine.moves.try_swap` accepts), kept as the
slots it changes::

    move[0]            number of changed slots (at most 4)
    move[1 + 4p : 5 + 4p]   row, slot, old value, new value of changed slot p

and as the orbits it removes and adds (``orbits = [removed, removed, added, added]``, -1 for
none): an orbit is named by its smallest base slot ``row * n + value`` (:func:`orbit_key`),
the same for every rotated copy of its edges. Two swaps that remove and add the same orbits
give the same graph; only one of them is kept, and a swap that adds back what it removes (the
graph unchanged) is left out.

The neighbourhood is enumerated when it is small: all pairs of slots, rotations and both ways
of reconnecting, ``(m d)(m d + 1) g`` tries, when that is at most ``ENUMERATE * K``; the
distinct swaps found are all kept if there are at most ``K`` of them, else ``K`` of them drawn
at random. Otherwise ``K`` distinct swaps are drawn with :func:`golf.engine.moves.propose_swap`, or
with :func:`golf.engine.moves.propose_near` for the share of near swaps asked (at most
``DRAWS * K`` draws; fewer are kept when the draws keep finding the same swaps).

A neighbourhood made ``full`` also holds every distinct swap when asked
(:func:`draw_moves` with ``every``), where the tries are at most :data:`FULL_TRIES` and at
most :data:`FULL_FACTOR` times ``K`` (at (64, 8), g = 1, 262,656 tries hold 49,332 distinct
swaps, 12 drawn steps of 4096): the tabu search scores all of them from a new best graph
(:mod:`golf.engine.tabu`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from golf.kernels.rng import rng_below
from golf.kernels.symmetry import act_inv
from golf.engine.moves import propose_near, propose_swap, swap_at, undo_swap

__all__ = ["MOVE_SIZE", "ENUMERATE", "DRAWS", "FULL_TRIES", "FULL_FACTOR", "orbit_key",
           "draw_moves", "apply_move", "revert_move", "moves_applied", "record_swap",
           "enter_new", "orbits_hash", "Neighbourhood"]

MOVE_SIZE = 17
ENUMERATE = 8
DRAWS = 4
# the most tries of a neighbourhood that can hold every distinct swap (its buffers take about
# 230 bytes a try: 58 MB at (64, 8), g = 1, 262,656 tries; (384, 3) at g = 1 has 1.3 M)
FULL_TRIES = 1 << 19
FULL_FACTOR = 128


@njit(cache=True)
def orbit_key(r, v, n, m, grp=None):
    """The name of the orbit of the edge ``r -- v`` (``r`` a base vertex): the smaller of its
    two base slots ``row * n + value`` (one slot for an orbit ``v -- v + n/2``); ``grp`` the
    symmetry group (None: cyclic, :mod:`golf.kernels.symmetry`)."""
    r2 = v % m
    v2 = act_inv(r, v - r2, n, grp)
    return min(r * n + v, r2 * n + v2)


@njit(cache=True)
def _put(orbits, at, key):
    """Add ``key`` to the pair ``orbits[at:at + 2]`` unless it is there; kept in order."""
    if orbits[at] == key or orbits[at + 1] == key:
        return
    if orbits[at] < 0:
        orbits[at] = key
    elif key < orbits[at]:
        orbits[at + 1] = orbits[at]
        orbits[at] = key
    else:
        orbits[at + 1] = key


@njit(cache=True)
def record_swap(adj, undo, move, orbits, n, grp):
    """Record the swap just applied (``undo`` holds its old slots): its slots and orbits.
    Returns False when it leaves the graph as it was."""
    m = adj.shape[0]
    count = undo[0]
    move[0] = count
    orbits[:] = -1
    for p in range(count):
        r, pos, old = undo[1 + 3 * p], undo[2 + 3 * p], undo[3 + 3 * p]
        new = adj[r, pos]
        move[1 + 4 * p] = r
        move[2 + 4 * p] = pos
        move[3 + 4 * p] = old
        move[4 + 4 * p] = new
        _put(orbits, 0, orbit_key(r, old, n, m, grp))
        _put(orbits, 2, orbit_key(r, new, n, m, grp))
    return orbits[0] != orbits[2] or orbits[1] != orbits[3]


@njit(cache=True)
def orbits_hash(o):
    """A hash of a swap's four orbit keys (:func:`record_swap`), for :func:`enter_new`'s
    table."""
    h = np.uint64(0x9E3779B97F4A7C15)
    for i in range(4):
        h = (h ^ np.uint64(o[i] + 1)) * np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(29)
    return h


@njit(cache=True)
def enter_new(table, orbits, k):
    """True if candidate ``k``'s orbits are not among the candidates in ``table`` (an open
    addressing table of candidate index + 1); then ``k`` is entered."""
    mask = np.uint64(table.shape[0] - 1)
    i = orbits_hash(orbits[k]) & mask
    while table[i]:
        j = table[i] - 1
        if (orbits[j, 0] == orbits[k, 0] and orbits[j, 1] == orbits[k, 1]
                and orbits[j, 2] == orbits[k, 2] and orbits[j, 3] == orbits[k, 3]):
            return False
        i = (i + np.uint64(1)) & mask
    table[i] = k + 1
    return True


@njit(cache=True)
def _keep(adj, n, undo, moves, orbits, table, k, grp):
    """Record the applied swap as candidate ``k`` and undo it; returns the new count (``k``
    again when the swap changes nothing or is already a candidate)."""
    if record_swap(adj, undo, moves[k], orbits[k], n, grp) and enter_new(table, orbits, k):
        k += 1
    undo_swap(adj, undo)
    return k


@njit(cache=True)
def _enumerate(adj, n, g, st, K, undo, moves, orbits, table, reach, grp):
    md = adj.shape[0] * adj.shape[1]
    k = 0
    for s1 in range(md):
        for s2 in range(s1, md):
            for t in range(g):
                for flip in range(2):
                    if swap_at(adj, n, s1, s2, t, flip, undo, reach, grp):
                        k = _keep(adj, n, undo, moves, orbits, table, k, grp)
    if k <= K:
        return k
    for i in range(K):  # K of the k at random (a partial Fisher-Yates shuffle)
        j = i + rng_below(st, k - i)
        for q in range(moves.shape[1]):
            moves[i, q], moves[j, q] = moves[j, q], moves[i, q]
        for q in range(4):
            orbits[i, q], orbits[j, q] = orbits[j, q], orbits[i, q]
    return K


@njit(cache=True)
def draw_moves(adj, n, g, st, K, enumerate_all, undo, moves, orbits, table, reach=None,
               grp=None, near_permille=0, every=False):
    """Up to ``K`` distinct valid swaps of ``adj`` (left unchanged) into ``moves`` and
    ``orbits``: all of them (or ``K`` drawn among all) when ``enumerate_all``, else drawn with
    the RNG state ``st``, each a near swap (:func:`golf.engine.moves.propose_near`) with
    probability ``near_permille / 1000``; ``every``: all of them, whatever ``K`` (the buffers
    must hold every try: a ``full`` :class:`Neighbourhood`). Returns how many."""
    table[:] = 0
    if every:
        return _enumerate(adj, n, g, st, moves.shape[0], undo, moves, orbits, table, reach,
                          grp)
    if enumerate_all:
        return _enumerate(adj, n, g, st, K, undo, moves, orbits, table, reach, grp)
    k = 0
    for _ in range(DRAWS * K):
        if k == K:
            break
        if near_permille > 0 and rng_below(st, 1000) < near_permille:
            drawn = propose_near(adj, n, st, undo, reach, 64, grp)
        else:
            drawn = propose_swap(adj, n, g, st, undo, reach, 64, grp)
        if drawn:
            k = _keep(adj, n, undo, moves, orbits, table, k, grp)
    return k


@njit(cache=True)
def apply_move(adj, move):
    """Write the new values of a recorded swap into ``adj``."""
    for p in range(move[0]):
        adj[move[1 + 4 * p], move[2 + 4 * p]] = move[4 + 4 * p]


@njit(cache=True)
def revert_move(adj, move):
    """Write back the old values of a recorded swap."""
    for p in range(move[0]):
        adj[move[1 + 4 * p], move[2 + 4 * p]] = move[3 + 4 * p]


@njit(cache=True)
def moves_applied(adj, moves, k0, k1, out):
    """``out[i]`` = ``adj`` with candidate ``k0 + i`` applied, for ``i < k1 - k0`` (the rows
    of a batch for ``evaluate_many``)."""
    for i in range(k1 - k0):
        out[i, :, :] = adj
        apply_move(out[i], moves[k0 + i])


class Neighbourhood:
    """Buffers for the ``K`` candidates of one graph of shape ``(n, d, g)``.

    ``enumerate_all`` is set when all ``(m d)(m d + 1) g`` tries cost at most ``ENUMERATE * K``
    (then the buffers hold every distinct swap before ``K`` are drawn). ``full``: the buffers
    hold every try where they do for ``enumerate_all`` or there are at most :data:`FULL_TRIES`
    and :data:`FULL_FACTOR` ``* K`` (``self.full`` says whether they do), so that a draw can
    take every distinct swap (``every``)."""

    def __init__(self, n: int, d: int, g: int, K: int, full: bool = False):
        m = n // g
        tries = m * d * (m * d + 1) * g
        self.K = int(K)
        self.enumerate_all = tries <= ENUMERATE * self.K
        self.full = bool(full) and (self.enumerate_all  # the buffers hold every try anyway
                                    or tries <= min(FULL_TRIES, FULL_FACTOR * self.K))
        cap = max(self.K, tries if self.enumerate_all or self.full else 0)
        self.moves = np.zeros((cap, MOVE_SIZE), dtype=np.int64)
        self.orbits = np.full((cap, 4), -1, dtype=np.int64)
        self.table = np.zeros(1 << (2 * cap - 1).bit_length(), dtype=np.int64)
        self.outs = np.zeros((cap, 4), dtype=np.int64)

    def draw(self, adj, n, g, st, undo, reach=None, grp=None, every=False) -> int:
        return draw_moves(adj, n, g, st, self.K, self.enumerate_all, undo, self.moves,
                          self.orbits, self.table, reach, grp, 0, every)
