"""K chains whose steps are scored together: one ``evaluate_many`` call a step.

On a GPU that is one launch for the K graphs of a step (the "bulk computation" of Takafuji,
Nakano and Ito, "Accelerating GPU implementation of All Pairs Shortest Path Algorithm",
undated copy, see CITATION.cff); on the CPU the backends score them one after another. Each
chain walks exactly the chain of a single :class:`golf.anneal.Annealer` with its own seed,
apart from the periodic restarts of the worst chains from the best graph found.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from golf.anneal import (FL, P, SC, TRACE_COLUMNS, Annealer, StopReason, begin_step, end_step,
                         load_state_arrays, state_arrays)
from golf.kernels.rng import rng_seed
from golf.moves import UNDO_SIZE

__all__ = ["BatchAnnealer"]


@njit(cache=True)
def batch_begin(adjs, n, sts, scs, fls, params, undos, ctrls, need):
    """``begin_step`` for every chain; ``need[k]`` = 1 when chain k has a move to score.
    Returns the number of chains still running."""
    running = 0
    for k in range(adjs.shape[0]):
        r = begin_step(adjs[k], n, sts[k], scs[k], fls[k], params, undos[k], ctrls[k])
        need[k] = 1 if r > 0 else 0
        if r >= 0:
            running += 1
    return running


@njit(cache=True)
def batch_end(outs, adjs, bests, sts, scs, fls, params, undos, need, trace, ntrace):
    """``end_step`` for the chains that were scored; chain 0 writes the trace."""
    empty = trace[:0]
    for k in range(adjs.shape[0]):
        if need[k]:
            if k == 0:
                ntrace = end_step(outs[k], adjs[k], bests[k], sts[k], scs[k], fls[k], params,
                                  undos[k], trace, ntrace)
            else:
                end_step(outs[k], adjs[k], bests[k], sts[k], scs[k], fls[k], params, undos[k],
                         empty, 0)
    return ntrace


class BatchAnnealer:
    """``K`` independent chains (seeds ``seed .. seed+K-1``) whose steps are scored together
    by ``evaluator.evaluate_many`` (one launch for all ``K`` graphs). Every
    ``exchange_every`` steps the worst half of the chains restart from the best graph found.
    It offers the same interface as :class:`Annealer` to the run driver; ``sc`` shows the chain
    that holds the best graph, with the evaluations of all chains."""

    def __init__(self, graph, evaluator, K, *, exchange_every=20000, **kw):
        self.K = int(K)
        # chain 0 as a one-graph annealer: the start score, the temperature samples and the
        # parameters every chain shares
        base = self.first = Annealer(graph, evaluator, **kw)
        seed = base.seed
        self.evaluator = evaluator
        self.start_score = base.start_score
        self.params = base.params
        self.bounds = base.bounds
        K = self.K
        self.adjs = np.repeat(graph.adj[None], K, axis=0)
        from golf.graph import Graph

        self.graph = Graph(graph.n, graph.d, graph.g, self.adjs[0])  # chain 0, a view
        self.bests = self.adjs.copy()
        self.sts = np.stack([rng_seed(seed + k) for k in range(K)])
        self.scs = np.repeat(base.sc[None], K, axis=0)
        self.fls = np.repeat(base.fl[None], K, axis=0)
        self.undos = np.zeros((K, UNDO_SIZE), dtype=np.int64)
        self.ctrls = np.zeros((K, 3), dtype=np.int64)
        self.need = np.zeros(K, dtype=np.int64)
        self.outs = np.zeros((K, 4), dtype=np.int64)
        self.trace = np.zeros((1024, len(TRACE_COLUMNS) - 1), dtype=np.float64)
        self.exchange_every = int(exchange_every)
        self.seed = seed

    def auto_temperatures(self, count=200):
        return self.first.auto_temperatures(count)

    def set_temperatures(self, t0, t1):
        self.fls[:, FL.T0] = t0
        self.fls[:, FL.T1] = t1
        self.fls[:, FL.T] = t0
        self.first.set_temperatures(t0, t1)

    @property
    def _lead(self) -> int:
        keys = list(zip(self.scs[:, SC.BEST_D], self.scs[:, SC.BEST_TOTAL]))
        return min(range(self.K), key=lambda k: keys[k])

    @property
    def sc(self):
        out = self.scs[self._lead].copy()
        out[SC.EVALS] = self.scs[:, SC.EVALS].sum()
        out[SC.ACCEPTED] = self.scs[:, SC.ACCEPTED].sum()
        out[SC.STEP] = self.scs[:, SC.STEP].max()
        out[SC.STOP] = self.scs[:, SC.STOP].min() if (self.scs[:, SC.STOP] > 0).all() else 0
        return out

    @property
    def fl(self):
        return self.fls[self._lead]

    @property
    def best_adj(self):
        return self.bests[self._lead]

    @property
    def stop_reason(self) -> StopReason:
        return StopReason(int(self.sc[SC.STOP]))

    def best_graph(self):
        from golf.graph import Graph, sort_rows

        g = self.graph
        return Graph(g.n, g.d, g.g, sort_rows(self.best_adj))

    def run(self, nsteps: int, time_frac: float = 0.0) -> np.ndarray:
        self.fls[:, FL.TIME_FRAC] = time_frac
        need_rows = nsteps // int(self.params[P.TRACE_EVERY]) + 2
        if self.trace.shape[0] < need_rows:
            self.trace = np.zeros((need_rows, self.trace.shape[1]), dtype=np.float64)
        n = self.graph.n
        ntrace = 0
        for _ in range(int(nsteps)):
            if batch_begin(self.adjs, n, self.sts, self.scs, self.fls, self.params,
                           self.undos, self.ctrls, self.need) == 0:
                break
            if self.need.any():
                self.outs[:] = self.evaluator.evaluate_many(self.adjs, self.ctrls[:, 0])
            ntrace = batch_end(self.outs, self.adjs, self.bests, self.sts, self.scs, self.fls,
                               self.params, self.undos, self.need, self.trace, ntrace)
            step = int(self.scs[0, SC.STEP])
            if self.exchange_every and step % self.exchange_every == 0:
                self._restart_worst()
        return self.trace[:ntrace].copy()

    def _restart_worst(self) -> None:
        lead = self._lead
        order = sorted(range(self.K), key=lambda k: (self.scs[k, SC.CUR_D],
                                                     self.scs[k, SC.CUR_TOTAL]), reverse=True)
        for k in order[: self.K // 2]:
            if k == lead:
                continue
            self.adjs[k] = self.bests[lead]
            self.scs[k, SC.CUR_D] = self.scs[lead, SC.BEST_D]
            self.scs[k, SC.CUR_TOTAL] = self.scs[lead, SC.BEST_TOTAL]
            self.scs[k, SC.CUR_PER] = self.scs[lead, SC.BEST_PER]

    def state(self) -> dict:
        return state_arrays(self.adjs, self.bests, self.sts, self.scs, self.fls)

    def load_state(self, state: dict) -> None:
        load_state_arrays(state, self.adjs, self.bests, self.sts, self.scs, self.fls)

