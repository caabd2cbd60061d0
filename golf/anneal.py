"""Simulated annealing over symmetric swaps, with the propose-evaluate-accept loop compiled.

One step: apply a random symmetric swap (:mod:`golf.moves`), score the graph with the
evaluator's compiled kernel, then keep or undo the swap:

* a disconnected result is rejected; so is a higher diameter, and a lower one is taken
  (``aspl_priority`` turns this off: then only the total counts);
* at equal diameter, the energy change is ``dE = d(total)/g`` (per orbit), plus, while the
  diameter is above its lower bound and ``tiebreak`` is on, ``w * (1 - progress) *
  d(peripheral)/g``, where ``peripheral`` counts the vertices whose eccentricity is the
  diameter (fewer of them is the way down to a smaller diameter; the weight fades out so that
  the end of the run optimises the total alone, since the bound may be out of reach);
* ``sa``: accepted when ``dE <= 0`` or with probability ``exp(-dE / T)``; ``hill``: when
  ``dE <= 0`` (plateau moves included);
* ``T`` cools geometrically from ``T0`` to ``T1`` over the step budget (without one, over the
  time limit), so that the same seed and backend give the same run on any machine.

The kernel is called with its level cap at the current diameter, so a move that would raise
the diameter is stopped after that many levels. The state lives in a few arrays (graph, best
graph, RNG state, counters) so that a checkpoint is a plain copy and a resumed run continues
bit for bit. One step is :func:`begin_step` then the kernel then :func:`end_step`; the CPU
search runs them in :func:`run_chunk`, compiled, without Python between steps; a driver that
must evaluate in Python (split over MPI ranks, on a GPU) calls the same two functions around
its own evaluation, and walks the same chain.
"""

from __future__ import annotations

import math
from enum import IntEnum

import numpy as np
from numba import njit, types
from numba.core.errors import TypingError
from numba.extending import overload

from golf.kernels.merge import OK
from golf.kernels.rng import rng_random, rng_seed
from golf.moves import UNDO_SIZE, propose_swap, undo_swap

__all__ = ["Annealer", "SC", "FL", "P", "TRACE_COLUMNS", "run_chunk", "begin_step", "end_step"]


class SC(IntEnum):
    """Slots of the int64 counter array ``sc`` (``len(SC)`` of them)."""
    STEP, CUR_D, CUR_TOTAL, CUR_PER, BEST_D, BEST_TOTAL, BEST_PER = range(7)
    ACCEPTED, EVALS, BEST_STEP, STOP, FAILED = range(7, 12)


class FL(IntEnum):
    """Slots of the float64 array ``fl``."""
    T0, T1, TIME_FRAC, PW, T, FRAC = range(6)


class P(IntEnum):
    """Slots of the int64 parameter array ``params``."""
    STEPS, HILL, ASPL_PRIORITY, TIEBREAK, D_BOUND, TOTAL_BOUND, G, TRACE_EVERY = range(8)


# stop reasons in sc[SC.STOP]
RUNNING, STOP_STEPS, STOP_BOUNDS, STOP_STUCK = 0, 1, 2, 3
# the compiled loop fills the first eight columns; the driver adds the elapsed seconds
TRACE_COLUMNS = ["step", "temperature", "diameter", "total", "best_diameter", "best_total",
                 "accepted", "evaluations", "seconds"]


@njit(cache=True)
def progress(sc, fl, params):
    """Fraction of the run done: of the step budget when there is one (so that a run is the
    same whatever the machine's speed; a time limit then only stops it early), else of the
    time limit."""
    if params[P.STEPS] > 0:
        return min(sc[SC.STEP] / params[P.STEPS], 1.0)
    return min(fl[FL.TIME_FRAC], 1.0)


@njit(cache=True)
def begin_step(adj, n, st, sc, fl, params, undo, ctrl):
    """Start a step: stop if done, set the temperature, apply a random swap and set the
    kernel's level cap. Returns 1 (evaluate now), 0 (no valid swap found: step over) or
    -1 (stopped; ``sc[SC.STOP]`` says why)."""
    if params[P.STEPS] > 0 and sc[SC.STEP] >= params[P.STEPS]:
        sc[SC.STOP] = STOP_STEPS
        return -1
    if sc[SC.BEST_D] == params[P.D_BOUND] and sc[SC.BEST_TOTAL] == params[P.TOTAL_BOUND]:
        sc[SC.STOP] = STOP_BOUNDS
        return -1
    frac = progress(sc, fl, params)
    fl[FL.FRAC] = frac
    fl[FL.T] = fl[FL.T0] * (fl[FL.T1] / fl[FL.T0]) ** frac
    if not propose_swap(adj, n, params[P.G], st, undo):
        sc[SC.STEP] += 1
        sc[SC.FAILED] += 1
        if sc[SC.FAILED] > 1000 and sc[SC.FAILED] > sc[SC.STEP] // 2:
            sc[SC.STOP] = STOP_STUCK  # no valid swap exists (e.g. a complete graph)
            return -1
        return 0
    ctrl[0] = 0 if params[P.ASPL_PRIORITY] else sc[SC.CUR_D]
    return 1


@njit(cache=True)
def accept_move(out, st, sc, fl, params):
    """Decide on the evaluated move (``out`` = the kernel's result)."""
    if out[3] != OK:
        return False
    g = params[P.G]
    new_d = out[0]
    cur_d = sc[SC.CUR_D]
    if not params[P.ASPL_PRIORITY]:
        if new_d > cur_d:
            return False
        if new_d < cur_d:
            return True
    de = (g * out[1] // 2 - sc[SC.CUR_TOTAL]) / g
    if params[P.TIEBREAK] and cur_d > params[P.D_BOUND]:
        # fewer peripheral vertices at equal diameter; the weight fades over the run so that
        # the end polishes the total alone (the bound may be out of reach)
        de += fl[FL.PW] * (1.0 - fl[FL.FRAC]) * (out[2] - sc[SC.CUR_PER] // g)
    if de <= 0:
        return True
    if params[P.HILL]:
        return False
    return rng_random(st) < math.exp(-de / fl[FL.T])


@njit(cache=True)
def end_step(out, adj, best_adj, st, sc, fl, params, undo, trace, ntrace):
    """Finish a step after the evaluation: accept or undo, track the best, trace. Returns the
    new number of trace rows."""
    sc[SC.EVALS] += 1
    if accept_move(out, st, sc, fl, params):
        g = params[P.G]
        sc[SC.ACCEPTED] += 1
        sc[SC.CUR_D] = out[0]
        sc[SC.CUR_TOTAL] = g * out[1] // 2
        sc[SC.CUR_PER] = g * out[2]
        if (sc[SC.CUR_D] < sc[SC.BEST_D] or (sc[SC.CUR_D] == sc[SC.BEST_D]
                                             and sc[SC.CUR_TOTAL] < sc[SC.BEST_TOTAL])):
            sc[SC.BEST_D] = sc[SC.CUR_D]
            sc[SC.BEST_TOTAL] = sc[SC.CUR_TOTAL]
            sc[SC.BEST_PER] = sc[SC.CUR_PER]
            sc[SC.BEST_STEP] = sc[SC.STEP]
            best_adj[:, :] = adj
    else:
        undo_swap(adj, undo)
    sc[SC.STEP] += 1
    if sc[SC.STEP] % params[P.TRACE_EVERY] == 0 and ntrace < trace.shape[0]:
        trace[ntrace, 0] = sc[SC.STEP]
        trace[ntrace, 1] = fl[FL.T]
        trace[ntrace, 2] = sc[SC.CUR_D]
        trace[ntrace, 3] = sc[SC.CUR_TOTAL]
        trace[ntrace, 4] = sc[SC.BEST_D]
        trace[ntrace, 5] = sc[SC.BEST_TOTAL]
        trace[ntrace, 6] = sc[SC.ACCEPTED]
        trace[ntrace, 7] = sc[SC.EVALS]
        ntrace += 1
    return ntrace


def call_kernel(kargs):
    """Run the CPU kernel whose argument tuple is ``kargs`` (compiled code only)."""
    raise NotImplementedError("call_kernel is for compiled code; use Evaluator.evaluate")


# The CPU kernels by the length of their argument tuple (each backend's is distinct; a test
# checks it). Choosing the kernel from the arguments' type, at compile time, lets the search
# loop be cached on disk: a kernel passed as a value would make it uncacheable.
CPU_KERNELS = {10: ("golf.evaluators.bitset", "score"), 8: ("golf.evaluators.bfs", "score")}


@overload(call_kernel, inline="always")
def _call_kernel_impl(kargs):
    import importlib

    if not isinstance(kargs, types.BaseTuple) or len(kargs) not in CPU_KERNELS:
        raise TypingError(f"no CPU kernel takes {len(kargs)} arguments")
    module, name = CPU_KERNELS[len(kargs)]
    kernel = getattr(importlib.import_module(module), name)

    def impl(kargs):
        kernel(*kargs)

    return impl


@njit(cache=True)
def run_chunk(kargs, best_adj, st, sc, fl, params, undo, trace, nsteps):
    """Up to ``nsteps`` steps without leaving compiled code. ``kargs`` is the evaluator's
    argument tuple ``(adj, ctrl, out, ...)``: ``adj`` is the graph the moves change in place.
    Returns the number of trace rows written."""
    adj = kargs[0]
    ctrl = kargs[1]
    out = kargs[2]
    n = kargs[3]
    ntrace = 0
    for _ in range(nsteps):
        r = begin_step(adj, n, st, sc, fl, params, undo, ctrl)
        if r < 0:
            break
        if r == 0:
            continue
        call_kernel(kargs)
        ntrace = end_step(out, adj, best_adj, st, sc, fl, params, undo, trace, ntrace)
    return ntrace


@njit(cache=True)
def sample_moves(kargs, st, count, undo, dd, de):
    """Score ``count`` random swaps from the current graph (each undone): the change of
    diameter and of total per orbit, relative to ``kargs``' graph as evaluated first."""
    adj = kargs[0]
    ctrl = kargs[1]
    out = kargs[2]
    n = kargs[3]
    g = n // adj.shape[0]
    ctrl[0] = 0
    call_kernel(kargs)
    d0 = out[0]
    t0 = out[1]
    k = 0
    for _ in range(count * 4):
        if k == count:
            break
        if not propose_swap(adj, n, g, st, undo):
            continue
        call_kernel(kargs)
        if out[3] == OK:
            dd[k] = out[0] - d0
            de[k] = (out[1] - t0) / 2.0  # g * d(dist_sum) / 2 / g
            k += 1
        undo_swap(adj, undo)
    return k


class Annealer:
    """The search state and the loop around the compiled chunks.

    Parameters
    ----------
    graph : Graph, the start (copied; the copy is the current graph)
    evaluator : a CPU evaluator with ``kernel``/``kernel_args`` (the compiled path), or any
        evaluator (the Python path, one kernel call per step from Python)
    steps : int, the step budget (0: none; then ``time_limit`` drives the cooling)
    method : 'sa' or 'hill'
    aspl_priority, tiebreak, peripheral_weight : see the module docstring
    seed : int
    bounds : golf.bounds.Bounds of the problem
    trace_every : steps between trace rows
    """

    def __init__(self, graph, evaluator, *, steps=0, method="sa", aspl_priority=False,
                 tiebreak=True, peripheral_weight=1.0, seed=0, bounds=None, trace_every=1000):
        from golf.bounds import moore_bounds

        self.graph = graph.copy()
        self.evaluator = evaluator
        self.bounds = bounds or moore_bounds(graph.n, graph.d)
        self.seed = int(seed)
        self.st = rng_seed(self.seed)
        self.undo = np.zeros(UNDO_SIZE, dtype=np.int64)
        self.sc = np.zeros(len(SC), dtype=np.int64)
        self.fl = np.zeros(len(FL), dtype=np.float64)
        self.params = np.zeros(len(P), dtype=np.int64)
        self.params[P.STEPS] = int(steps)
        self.params[P.HILL] = int(method == "hill")
        self.params[P.ASPL_PRIORITY] = int(bool(aspl_priority))
        self.params[P.TIEBREAK] = int(bool(tiebreak))
        self.params[P.D_BOUND] = self.bounds.diameter if self.bounds.diameter is not None else -1
        self.params[P.TOTAL_BOUND] = self.bounds.total if self.bounds.total is not None else -1
        self.params[P.G] = graph.g
        self.params[P.TRACE_EVERY] = max(1, int(trace_every))
        self.fl[FL.PW] = float(peripheral_weight) * graph.m / 8.0
        self.best_adj = self.graph.adj.copy()
        if self.compiled:
            self.kargs = evaluator.kernel_args(self.graph.adj)
            self.ctrl, self.out = self.kargs[1], self.kargs[2]
        else:
            self.kargs = None
            self.ctrl = np.zeros(3, dtype=np.int64)
            self.out = np.zeros(4, dtype=np.int64)
        self.trace = np.zeros((1024, len(TRACE_COLUMNS) - 1), dtype=np.float64)
        score = evaluator.evaluate(self.graph)
        if not score.connected:
            from golf.errors import GolfError

            raise GolfError("the start graph is disconnected; the search needs a connected one")
        for k, v in ((SC.CUR_D, score.diameter), (SC.CUR_TOTAL, score.total),
                     (SC.CUR_PER, score.peripheral), (SC.BEST_D, score.diameter),
                     (SC.BEST_TOTAL, score.total), (SC.BEST_PER, score.peripheral)):
            self.sc[k] = v
        self.start_score = score

    # -- temperatures -----------------------------------------------------------------------
    def auto_temperatures(self, count=200) -> tuple[float, float, str]:
        """Sample ``count`` random swaps from the start graph (each undone; a separate RNG
        stream, so the chain itself does not depend on it) and choose

        * ``T0``: the median uphill energy change is accepted half of the time at the start;
        * ``T1``: an uphill change of the smallest size seen (at least half an orbit's unit)
          is accepted 1% of the time at the end.

        Returns ``(T0, T1, how)``."""
        st = rng_seed(self.seed ^ 0x5EED)
        dd = np.zeros(count, dtype=np.int64)
        de = np.zeros(count, dtype=np.float64)
        if self.compiled:
            k = sample_moves(self.kargs, st, count, self.undo, dd, de)
        else:
            k = self._sample_python(st, count, dd, de)
        up = de[:k][(dd[:k] == 0) & (de[:k] > 0)]
        if len(up) == 0:
            return 1.0, 0.01, f"no uphill move in {k} samples: T0=1, T1=0.01"
        t0 = float(np.median(up) / math.log(2))
        t1 = float(max(0.5, up.min()) / math.log(100))
        t1 = min(t1, t0)
        return t0, t1, (f"from {k} sampled swaps ({len(up)} uphill at equal diameter, median "
                        f"dE {np.median(up):.3g}): T0={t0:.4g}, T1={t1:.4g}")

    def _sample_python(self, st, count, dd, de):
        adj, n, g = self.graph.adj, self.graph.n, self.graph.g
        base = self.evaluator.raw(self.graph)
        k = 0
        for _ in range(count * 4):
            if k == count:
                break
            if not propose_swap(adj, n, g, st, self.undo):
                continue
            out = self.evaluator.raw(self.graph)
            if out[3] == OK:
                dd[k] = out[0] - base[0]
                de[k] = (out[1] - base[1]) / 2.0
                k += 1
            undo_swap(adj, self.undo)
        return k

    def set_temperatures(self, t0, t1):
        self.fl[FL.T0] = t0
        self.fl[FL.T1] = t1
        self.fl[FL.T] = t0

    # -- running ----------------------------------------------------------------------------
    @property
    def compiled(self) -> bool:
        """The whole step loop runs compiled (a CPU kernel, no MPI split)."""
        return hasattr(self.evaluator, "kernel") and self.evaluator.comm is None

    def run(self, nsteps: int, time_frac: float = 0.0) -> np.ndarray:
        """Run up to ``nsteps`` steps; returns the trace rows written. ``time_frac`` is the
        elapsed fraction of the time limit (the cooling follows it when there is no step
        budget)."""
        self.fl[FL.TIME_FRAC] = time_frac
        need = nsteps // int(self.params[P.TRACE_EVERY]) + 2
        if self.trace.shape[0] < need:
            self.trace = np.zeros((need, len(TRACE_COLUMNS) - 1), dtype=np.float64)
        if self.compiled:
            k = run_chunk(self.kargs, self.best_adj, self.st, self.sc, self.fl, self.params,
                          self.undo, self.trace, int(nsteps))
        else:
            k = self._run_python(int(nsteps))
        return self.trace[:k].copy()

    def _run_python(self, nsteps: int) -> int:
        """The same steps with the evaluation in Python (MPI split, GPU, reference): the same
        RNG draws and decisions as the compiled loop, so the same chain."""
        adj, n = self.graph.adj, self.graph.n
        ntrace = 0
        for _ in range(nsteps):
            r = begin_step(adj, n, self.st, self.sc, self.fl, self.params, self.undo, self.ctrl)
            if r < 0:
                break
            if r == 0:
                continue
            self.out[:] = self.evaluator.raw(self.graph, max_level=int(self.ctrl[0]))
            ntrace = end_step(self.out, adj, self.best_adj, self.st, self.sc, self.fl,
                              self.params, self.undo, self.trace, ntrace)
        return ntrace

    @property
    def stop_reason(self) -> int:
        return int(self.sc[SC.STOP])

    def best_graph(self):
        from golf.graph import Graph, sort_rows

        return Graph(self.graph.n, self.graph.d, self.graph.g, sort_rows(self.best_adj))

    # -- checkpoints ------------------------------------------------------------------------
    def state(self) -> dict:
        """Everything that changes during a run (arrays copied): graph, best graph, RNG state,
        counters and temperatures. The parameters come from the config, so a resumed run
        follows its config (unchanged: it continues bit for bit)."""
        return _state(self.graph.adj, self.best_adj, self.st, self.sc, self.fl)

    def load_state(self, state: dict) -> None:
        _load_state(state, self.graph.adj, self.best_adj, self.st, self.sc, self.fl)


_STATE_KEYS = ("adj", "best_adj", "rng", "sc", "fl")


def _state(*arrays) -> dict:
    return {k: a.copy() for k, a in zip(_STATE_KEYS, arrays)}


def _load_state(state, adj, best_adj, st, sc, fl) -> None:
    """Restore a chain's arrays (or K chains' stacked arrays) in place; the stop flag is
    cleared and the peripheral weight (a parameter) kept from the config."""
    if state["adj"].shape != adj.shape:
        from golf.errors import GolfError

        def chains(a):
            return a.shape[0] if a.ndim == 3 else 1

        raise GolfError(f"the checkpoint holds {chains(state['adj'])} chains on one GPU, this "
                        f"run {chains(adj)}; resume with search.batch={chains(state['adj'])}")
    pw = fl[..., FL.PW].copy()
    for k, a in zip(_STATE_KEYS, (adj, best_adj, st, sc, fl)):
        a[...] = state[k]
    sc[..., SC.STOP] = 0
    fl[..., FL.PW] = pw


# ------------------------------------------------------------------------------------------
# K chains on one GPU: one launch scores the K graphs of a step (the bulk computation)
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
    def stop_reason(self) -> int:
        return int(self.sc[SC.STOP])

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
        return _state(self.adjs, self.bests, self.sts, self.scs, self.fls)

    def load_state(self, state: dict) -> None:
        _load_state(state, self.adjs, self.bests, self.sts, self.scs, self.fls)

