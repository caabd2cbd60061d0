"""Exhaustive first-improvement descent (2-opt): a graph's swaps tried in turn until none
improves it, the local search of a memetic search (``search.local_search: descent``).

The tries are every pair of base slots ``(s1, s2)``, every rotation ``t`` of the second and
both ways of reconnecting (:func:`golf.engine.moves.swap_at`), the ``(m d)(m d + 1) g`` tries
:mod:`golf.engine.neighbourhood` enumerates, walked in an order of its own for each climb:
the slots in a random permutation ``perm``, the **rows** ``a = 0, 1, ...`` (pairs
``(perm[a], perm[b])`` for ``b >= a``), cyclically. A valid try is scored (golf's incremental
scoring, level-capped at the current diameter) and taken when it is **better** than the
current graph: a lower ``(diameter, total)``, or with the tie-break a lower peripheral count
at the same ``(diameter, total)`` above the diameter bound, as the annealer ranks them. The
walk goes on from the next try. It ends when ``m d`` rows in a row have taken nothing: every
try has then been made on the final graph, and no swap improves it (a local optimum of the
2-opt neighbourhood, within the length limit of a grid problem).

A try that leads to a swap already tried since the last improvement (the same orbits out and
in: :func:`golf.engine.neighbourhood.orbit_key`) is not scored again, while that record has
room (:data:`SEEN_CAP` swaps); a swap that leaves the graph as it is is never scored.

Scoring: on a compiled CPU backend one compiled loop (apply, call the kernel, take or undo);
on the others (the GPU, MPI-split evaluators) the next ``width`` tries are gathered and scored
with ``evaluate_many`` in one call, and the first better one in the walk's order is taken,
the walk going on right after it. Both take the same swaps and count the same evaluations
(the tries up to the one taken); the batched path scores more graphs than it counts.
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np
from numba import njit

from golf.engine.annealer import P, SC, take_move
from golf.engine.moves import swap_at, undo_swap
from golf.engine.neighbourhood import (MOVE_SIZE, apply_move, enter_new, moves_applied,
                                       orbits_hash, record_swap)
from golf.kernels.dispatch import call_kernel
from golf.kernels.merge import OK

__all__ = ["Descent", "CU", "SEEN_CAP"]

# swaps recorded for the record of swaps tried since the last improvement
SEEN_CAP = 1 << 20


class CU(IntEnum):
    """Slots of the walk's cursor."""
    A, B, T, FLIP = range(4)  # the next try: rows a, b of perm, rotation, way
    CLEAN = 4  # whole rows in a row in which nothing was taken
    DIRTY = 5  # the current row took a swap
    SEEN = 6  # swaps in the record


@njit(cache=True)
def _advance(cur, md, g):
    """The cursor to the try after the current one; a row's end counts it clean or not."""
    cur[CU.FLIP] += 1
    if cur[CU.FLIP] < 2:
        return
    cur[CU.FLIP] = 0
    cur[CU.T] += 1
    if cur[CU.T] < g:
        return
    cur[CU.T] = 0
    cur[CU.B] += 1
    if cur[CU.B] < md:
        return
    cur[CU.CLEAN] = 0 if cur[CU.DIRTY] else cur[CU.CLEAN] + 1
    cur[CU.DIRTY] = 0
    cur[CU.A] = (cur[CU.A] + 1) % md
    cur[CU.B] = cur[CU.A]


@njit(cache=True)
def next_swap(adj, n, g, perm, cur, undo, move, seen, table, reach=None, grp=None):
    """Apply the next valid try not made since the last improvement (its slots in ``move``,
    undone with ``undo``); False when the walk is over (no swap improves the graph)."""
    md = perm.shape[0]
    cap = seen.shape[0] - 1  # the last row: scratch once the record is full
    while cur[CU.CLEAN] < md:
        s1, s2 = perm[cur[CU.A]], perm[cur[CU.B]]
        t, flip = cur[CU.T], cur[CU.FLIP]
        _advance(cur, md, g)
        if not swap_at(adj, n, s1, s2, t, flip, undo, reach, grp):
            continue
        k = cur[CU.SEEN]
        row = k if k < cap else cap
        if not record_swap(adj, undo, move, seen[row], n, grp):
            undo_swap(adj, undo)  # the graph as it was
            continue
        if k < cap:
            if not enter_new(table, seen, k):
                undo_swap(adj, undo)  # tried since the last improvement
                continue
            cur[CU.SEEN] = k + 1
        return True
    return False


@njit(cache=True)
def _forget(seen, table, count):
    """Empty the record of its ``count`` swaps."""
    if 8 * count >= table.shape[0]:
        table[:] = 0
        return
    mask = np.uint64(table.shape[0] - 1)
    for j in range(count):
        i = orbits_hash(seen[j]) & mask
        while table[i] != j + 1:
            i = (i + np.uint64(1)) & mask
        table[i] = 0


@njit(cache=True)
def _taken(cur, seen, table, count):
    """After a swap was taken: the record emptied, the walk's rows dirty again."""
    _forget(seen, table, count)
    cur[CU.SEEN] = 0
    cur[CU.CLEAN] = 0
    cur[CU.DIRTY] = 1


@njit(cache=True)
def better(out, sc, params):
    """The kernel's result ``out`` scores a better graph than the current one (module
    docstring)."""
    if out[3] != OK:
        return False
    w = params[P.WEIGHT]
    d, total, per = out[0], w * out[1] // 2, w * out[2]
    if not params[P.ASPL_PRIORITY] and d != sc[SC.CUR_D]:
        return d < sc[SC.CUR_D]
    if total != sc[SC.CUR_TOTAL]:
        return total < sc[SC.CUR_TOTAL]
    return params[P.TIEBREAK] and sc[SC.CUR_D] > params[P.D_BOUND] and per < sc[SC.CUR_PER]


@njit(cache=True)
def descend(tag, kargs, best_adj, sc, params, perm, cur, undo, move, seen, table, reach=None,
            grp=None):
    """The walk to its end without leaving compiled code (``kargs`` as in
    :func:`golf.engine.annealer.run_chunk`)."""
    adj, ctrl, out = kargs[0], kargs[1], kargs[2]
    g = params[P.G]
    n = g * adj.shape[0]
    while next_swap(adj, n, g, perm, cur, undo, move, seen, table, reach, grp):
        ctrl[0] = 0 if params[P.ASPL_PRIORITY] else sc[SC.CUR_D]
        call_kernel(tag, kargs)
        sc[SC.EVALS] += 1
        if better(out, sc, params):
            take_move(out, adj, best_adj, sc, params)
            _taken(cur, seen, table, cur[CU.SEEN])
        else:
            undo_swap(adj, undo)


@njit(cache=True)
def gather(adj, n, g, perm, cur, undo, moves, curs, seen, table, reach=None, grp=None):
    """The next ``len(moves)`` tries (fewer at the walk's end) into ``moves``, each with the
    cursor after it in ``curs``; the graph is left as it is. Returns how many."""
    k = 0
    while k < moves.shape[0] and next_swap(adj, n, g, perm, cur, undo, moves[k], seen, table,
                                           reach, grp):
        undo_swap(adj, undo)
        curs[k, :] = cur
        k += 1
    return k


@njit(cache=True)
def take_first(outs, k, adj, best_adj, moves, curs, cur, seen, table, sc, params):
    """Take the first better of the ``k`` gathered tries (the walk then goes on right after
    it); counts the tries up to it. Returns its index, or -1."""
    for i in range(k):
        if better(outs[i], sc, params):
            sc[SC.EVALS] += i + 1
            apply_move(adj, moves[i])
            take_move(outs[i], adj, best_adj, sc, params)
            count = cur[CU.SEEN]
            cur[:] = curs[i]
            _taken(cur, seen, table, count)
            return i
    sc[SC.EVALS] += k
    return -1


class Descent:
    """Descents of graphs of the form of ``annealer.graph``, scored by ``annealer``'s
    evaluator with its parameters (tie-break, diameter bound, weight), length limit and group
    (:class:`golf.engine.annealer.Annealer`: its ``adj``, counters and best graph are the
    descent's). ``batched``: None (the compiled loop where the annealer's is compiled, else
    ``evaluate_many``), or True to force ``evaluate_many``; ``width``: the tries it scores in
    one call (default: the evaluator's batch on a batched backend, else 1)."""

    def __init__(self, annealer, batched=None, width=None):
        self.ann = ann = annealer
        self.batched = not ann.compiled if batched is None else bool(batched) or not ann.compiled
        graph = ann.graph
        self.md = graph.m * graph.d
        tries = self.md * (self.md + 1) * graph.g
        cap = min(tries, SEEN_CAP)
        self.seen = np.full((cap + 1, 4), -1, dtype=np.int64)
        self.table = np.zeros(1 << (2 * cap - 1).bit_length(), dtype=np.int64)
        self.cur = np.zeros(len(CU), dtype=np.int64)
        ev = ann.evaluator
        if width is None:
            width = ev.batch if self.batched and ev.supports.batched else 1
        self.moves = np.zeros((width, MOVE_SIZE), dtype=np.int64)
        self.curs = np.zeros((width, len(CU)), dtype=np.int64)
        self.rows = np.zeros((width, graph.m, graph.d), dtype=np.int32)

    def start(self, adj, score) -> None:
        """Make the base rows ``adj``, of ``(diameter, total, peripheral)`` ``score``, the
        current and best graph."""
        ann = self.ann
        ann.graph.adj[:] = adj
        ann.best_adj[:] = adj
        for slots, value in zip(((SC.CUR_D, SC.BEST_D), (SC.CUR_TOTAL, SC.BEST_TOTAL),
                                 (SC.CUR_PER, SC.BEST_PER)), score):
            ann.sc[list(slots)] = value

    def climb(self, rng) -> None:
        """Descend from the annealer's current graph to a local optimum (module docstring);
        ``rng`` (a numpy Generator) orders the tries. The end graph is the best graph too:
        every swap taken was better, a swap of the tie-break (fewer peripheral vertices at an
        equal total) as well, which the annealer's best graph does not follow."""
        ann, sc = self.ann, self.ann.sc
        self._descend(rng)
        if (sc[SC.CUR_D], sc[SC.CUR_TOTAL]) == (sc[SC.BEST_D], sc[SC.BEST_TOTAL]):
            ann.best_adj[:] = ann.graph.adj
            sc[SC.BEST_PER] = sc[SC.CUR_PER]

    def _descend(self, rng) -> None:
        ann = self.ann
        perm = rng.permutation(self.md).astype(np.int64)
        _forget(self.seen, self.table, int(self.cur[CU.SEEN]))
        self.cur[:] = 0
        if not self.batched:
            descend(ann.evaluator.tag, ann.kargs, ann.best_adj, ann.sc, ann.params, perm,
                    self.cur, ann.undo, self.moves[0], self.seen, self.table, ann.reach,
                    ann.grp)
            return
        adj, g = ann.graph.adj, ann.graph.g
        n = g * ann.graph.m
        while True:
            k = gather(adj, n, g, perm, self.cur, ann.undo, self.moves, self.curs, self.seen,
                       self.table, ann.reach, ann.grp)
            if k == 0:
                return
            moves_applied(adj, self.moves, 0, k, self.rows)
            cap = 0 if ann.params[P.ASPL_PRIORITY] else int(ann.sc[SC.CUR_D])
            outs = ann.evaluator.evaluate_many(self.rows[:k], [cap] * k)
            take_first(outs, k, adj, ann.best_adj, self.moves, self.curs, self.cur, self.seen,
                       self.table, ann.sc, ann.params)
