"""Simulated annealing over symmetric swaps, with the propose-evaluate-accept loop compiled.

One step: apply a random symmetric swap (:mod:`golf.engine.moves`), score the graph with the
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
* a move is a voltage move with probability ``voltage_moves``, else a near swap (two edges
  two hops apart) with probability ``near_moves``, else a uniform symmetric 2-opt swap
  (:mod:`golf.engine.moves`);
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
from numba import njit

from golf.kernels.dispatch import call_kernel
from golf.kernels.merge import OK
from golf.kernels.rng import rng_random, rng_seed
from golf.engine.moves import UNDO_SIZE, propose_move, propose_swap, undo_swap

__all__ = ["Annealer", "StopReason", "SC", "FL", "P", "TRACE_COLUMNS", "run_chunk", "begin_step",
           "end_step", "accept_move", "reached_limit", "take_move", "trace_row",
           "search_options", "schedule"]


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
    VOLTAGE = 8  # voltage moves per 1000 proposals (golf.engine.moves.propose_move)
    SPEC = 9  # proposal streams (search.speculate; 1: moves and decisions share one stream)
    NEAR = 10  # near swaps per 1000 proposals (golf.engine.moves.propose_near)
    WEIGHT = 11  # the kernel's sums to the graph's (golf.evaluators.base.Evaluator.weight)
    HOSTS = 12  # host moves per 1000 proposals (golf.engine.moves.propose_host)
    SLIDE = 13  # slides per 1000 proposals on a grid (golf.engine.moves.propose_slide)


class StopReason(IntEnum):
    """Why a run stopped, in ``sc[SC.STOP]``: the compiled loop sets the first four, the driver
    the last two. A larger value wins when MPI ranks agree on one."""
    RUNNING, STEPS, BOUNDS, STUCK, TIME, INTERRUPTED = range(6)

    @property
    def label(self) -> str:
        return ("running", "step limit", "lower bounds reached", "no valid swap",
                "time limit", "interrupted")[self]


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
def begin_step(adj, n, st, sc, fl, params, undo, ctrl, reach=None, grp=None):
    """Start a step: stop if done, set the temperature, apply a random swap (within the
    length limit ``reach`` of a grid problem, :mod:`golf.grid`; within the group ``grp``,
    :mod:`golf.kernels.symmetry`) and set the kernel's level
    cap. Returns 1 (evaluate now), 0 (no valid swap found: step over) or -1 (stopped;
    ``sc[SC.STOP]`` says why)."""
    if reached_limit(sc, params):
        return -1
    frac = progress(sc, fl, params)
    fl[FL.FRAC] = frac
    fl[FL.T] = fl[FL.T0] * (fl[FL.T1] / fl[FL.T0]) ** frac
    pst = st
    if params[P.SPEC] > 1:  # the move from proposal stream step mod k (chain_streams)
        j = 4 + 4 * (sc[SC.STEP] % params[P.SPEC])
        pst = st[j:j + 4]
    # the moves take the vertices the group moves, g*m (n but for centre vertices)
    if not propose_move(adj, params[P.G] * adj.shape[0], params[P.G], pst, undo,
                        params[P.VOLTAGE], reach, params[P.NEAR], grp, params[P.HOSTS],
                        params[P.SLIDE]):
        sc[SC.STEP] += 1
        sc[SC.FAILED] += 1
        if sc[SC.FAILED] > 1000 and sc[SC.FAILED] > sc[SC.STEP] // 2:
            sc[SC.STOP] = StopReason.STUCK  # no valid swap exists (e.g. a complete graph)
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
    w = params[P.WEIGHT]
    de = (w * out[1] // 2 - sc[SC.CUR_TOTAL]) / g
    if params[P.TIEBREAK] and cur_d > params[P.D_BOUND]:
        # fewer peripheral vertices at equal diameter; the weight fades over the run so that
        # the end polishes the total alone (the bound may be out of reach)
        de += fl[FL.PW] * (1.0 - fl[FL.FRAC]) * ((w * out[2] - sc[SC.CUR_PER]) / g)
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
        take_move(out, adj, best_adj, sc, params)
    else:
        undo_swap(adj, undo)
    sc[SC.STEP] += 1
    return trace_row(trace, ntrace, sc, fl, params)


@njit(cache=True)
def reached_limit(sc, params):
    """True, with the reason in ``sc[SC.STOP]``, once the step budget is spent or the best
    graph is at the lower bounds."""
    if params[P.STEPS] > 0 and sc[SC.STEP] >= params[P.STEPS]:
        sc[SC.STOP] = StopReason.STEPS
        return True
    if sc[SC.BEST_D] == params[P.D_BOUND] and sc[SC.BEST_TOTAL] == params[P.TOTAL_BOUND]:
        sc[SC.STOP] = StopReason.BOUNDS
        return True
    return False


@njit(cache=True)
def take_move(out, adj, best_adj, sc, params):
    """The applied move, scored ``out`` by the kernel, makes ``adj`` the current graph:
    count it and keep the best graph."""
    w = params[P.WEIGHT]
    sc[SC.ACCEPTED] += 1
    sc[SC.CUR_D] = out[0]
    sc[SC.CUR_TOTAL] = w * out[1] // 2
    sc[SC.CUR_PER] = w * out[2]
    if (sc[SC.CUR_D] < sc[SC.BEST_D] or (sc[SC.CUR_D] == sc[SC.BEST_D]
                                         and sc[SC.CUR_TOTAL] < sc[SC.BEST_TOTAL])):
        sc[SC.BEST_D] = sc[SC.CUR_D]
        sc[SC.BEST_TOTAL] = sc[SC.CUR_TOTAL]
        sc[SC.BEST_PER] = sc[SC.CUR_PER]
        sc[SC.BEST_STEP] = sc[SC.STEP]
        best_adj[:, :] = adj


@njit(cache=True)
def trace_row(trace, ntrace, sc, fl, params):
    """Write a trace row (the columns of :data:`TRACE_COLUMNS` but the seconds) after every
    ``trace_every``-th step while ``trace`` has room; returns the new number of rows."""
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


@njit(cache=True)
def run_chunk(tag, kargs, best_adj, st, sc, fl, params, undo, trace, nsteps, reach=None,
              grp=None):
    """Up to ``nsteps`` steps without leaving compiled code. ``kargs`` is the argument tuple
    ``(adj, ctrl, out, n, ...)`` of the kernel of the backend ``tag`` names: ``adj`` is the
    graph the moves change in place. Returns the number of trace rows written."""
    adj = kargs[0]
    ctrl = kargs[1]
    out = kargs[2]
    n = kargs[3]
    ntrace = 0
    for _ in range(nsteps):
        r = begin_step(adj, n, st, sc, fl, params, undo, ctrl, reach, grp)
        if r < 0:
            break
        if r == 0:
            continue
        call_kernel(tag, kargs)
        ntrace = end_step(out, adj, best_adj, st, sc, fl, params, undo, trace, ntrace)
    return ntrace


@njit(cache=True)
def sample_moves(tag, kargs, params, st, count, undo, dd, de, reach=None, grp=None):
    """Score ``count`` random swaps from the current graph (each undone): the change of
    diameter and of total per orbit, relative to ``kargs``' graph as evaluated first."""
    adj = kargs[0]
    ctrl = kargs[1]
    out = kargs[2]
    g = params[P.G]
    n = g * adj.shape[0]  # the vertices the group moves
    per = params[P.WEIGHT] / (2.0 * g)  # a kernel sum's change in total per orbit
    ctrl[0] = 0
    call_kernel(tag, kargs)
    d0 = out[0]
    t0 = out[1]
    k = 0
    for _ in range(count * 4):
        if k == count:
            break
        if not propose_swap(adj, n, g, st, undo, reach, 64, grp):
            continue
        call_kernel(tag, kargs)
        if out[3] == OK:
            dd[k] = out[0] - d0
            de[k] = (out[1] - t0) * per
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
    voltage_moves : float, the fraction of proposals that are voltage moves (g > 1)
    near_moves : float, the fraction of the other proposals that are near swaps
        (:func:`golf.engine.moves.propose_near`)
    host_moves : float, the fraction of proposals that move a host (host-switch graphs,
        :func:`golf.engine.moves.propose_host`)
    slide_moves : float, the fraction of proposals that are slides (grid problems, with
        ``reach``: :func:`golf.engine.moves.propose_slide`; they change degrees)
    reach : None, or a grid problem's length limit (:meth:`golf.grid.Grid.reach`): every move
        keeps every edge within it
    seed : int
    bounds : golf.lower_bounds.Bounds of the problem
    trace_every : steps between trace rows
    """

    def __init__(self, graph, evaluator, *, steps=0, method="sa", aspl_priority=False,
                 tiebreak=True, peripheral_weight=1.0, voltage_moves=0.0, near_moves=0.0,
                 speculate=1, seed=0, bounds=None, trace_every=1000, reach=None,
                 host_moves=0.0, slide_moves=0.0):
        from golf.lower_bounds import moore_bounds

        self.graph = graph.copy()
        self.evaluator = evaluator
        self.bounds = bounds or moore_bounds(graph.n, graph.d)
        self.seed = int(seed)
        self.st = chain_streams(self.seed, speculate)
        self.undo = np.zeros(UNDO_SIZE, dtype=np.int64)
        self.reach = None if reach is None else np.ascontiguousarray(reach, dtype=np.int64)
        # the symmetry group for the moves (None: cyclic), golf.group.Group.kernel
        self.grp = None if graph.group is None else graph.group.kernel(graph.m)
        if getattr(evaluator, "symmetry", None) != graph.group:
            from golf.errors import GolfError

            raise GolfError(f"the evaluator is built for the symmetry group "
                            f"{getattr(evaluator, 'symmetry', None)}, the graph has "
                            f"{graph.group}")
        if getattr(evaluator, "centres", 0) != graph.centres:
            from golf.errors import GolfError

            raise GolfError(f"the evaluator is built for {getattr(evaluator, 'centres', 0)} "
                            f"centre vertices, the graph has {graph.centres}")
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
        self.params[P.WEIGHT] = getattr(evaluator, "weight", graph.g)
        self.params[P.TRACE_EVERY] = max(1, int(trace_every))
        self.params[P.VOLTAGE] = int(round(1000 * float(voltage_moves)))
        self.params[P.SPEC] = int(speculate)
        self.params[P.NEAR] = int(round(1000 * float(near_moves)))
        self.params[P.HOSTS] = int(round(1000 * float(host_moves)))
        self.params[P.SLIDE] = int(round(1000 * float(slide_moves))) if reach is not None else 0
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
    def auto_temperatures(self, count=200, descended=False) -> tuple[float, float, str]:
        """Sample ``count`` random swaps from the start graph (each undone; a separate RNG
        stream, so the chain itself does not depend on it) and choose

        * ``T0``: the median uphill energy change is accepted half of the time at the start;
        * ``T1``: an uphill change of the smallest size seen (at least half an orbit's unit)
          is accepted 1% of the time at the end.

        A start with no uphill move among the samples (a structured graph such as a circulant
        one, where nearly every swap improves the total) says nothing about the landscape the
        search will walk: the samples are then taken again after ``20 * count`` hill-climbing
        steps from it (on a copy). Returns ``(T0, T1, how)``."""
        st = rng_seed(self.seed ^ 0x5EED)
        dd = np.zeros(count, dtype=np.int64)
        de = np.zeros(count, dtype=np.float64)
        if self.compiled:
            k = sample_moves(self.evaluator.tag, self.kargs, self.params, st, count, self.undo,
                             dd, de, self.reach, self.grp)
        else:
            k = self._sample_python(st, count, dd, de)
        up = de[:k][(dd[:k] == 0) & (de[:k] > 0)]
        if len(up) == 0 and not descended and k > 0:
            probe = Annealer(self.graph, self.evaluator, method="hill", seed=self.seed ^ 0xD05E,
                             bounds=self.bounds, reach=self.reach,
                             voltage_moves=self.params[P.VOLTAGE] / 1000)
            probe.set_temperatures(1.0, 1.0)  # not used by hill climbing
            probe.run(20 * count)
            t0, t1, how = probe.auto_temperatures(count, descended=True)
            return t0, t1, (f"no uphill move in {k} samples from the start; after "
                            f"{20 * count} hill-climbing steps: {how}")
        if len(up) == 0:
            return 1.0, 0.01, f"no uphill move in {k} samples: T0=1, T1=0.01"
        t0 = float(np.median(up) / math.log(2))
        t1 = float(max(0.5, up.min()) / math.log(100))
        t1 = min(t1, t0)
        return t0, t1, (f"from {k} sampled swaps ({len(up)} uphill at equal diameter, median "
                        f"dE {np.median(up):.3g}): T0={t0:.4g}, T1={t1:.4g}")

    def _sample_python(self, st, count, dd, de):
        adj, n, g = self.graph.adj, self.graph.n_sym, self.graph.g
        per = self.params[P.WEIGHT] / (2.0 * g)
        base = self.evaluator.raw(self.graph)
        k = 0
        for _ in range(count * 4):
            if k == count:
                break
            if not propose_swap(adj, n, g, st, self.undo, self.reach, 64, self.grp):
                continue
            out = self.evaluator.raw(self.graph)
            if out[3] == OK:
                dd[k] = out[0] - base[0]
                de[k] = (out[1] - base[1]) * per
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
        return self.evaluator.supports.compiled and self.evaluator.comm is None

    def run(self, nsteps: int, time_frac: float = 0.0) -> np.ndarray:
        """Run up to ``nsteps`` steps; returns the trace rows written. ``time_frac`` is the
        elapsed fraction of the time limit (the cooling follows it when there is no step
        budget)."""
        self.fl[FL.TIME_FRAC] = time_frac
        need = nsteps // int(self.params[P.TRACE_EVERY]) + 2
        if self.trace.shape[0] < need:
            self.trace = np.zeros((need, len(TRACE_COLUMNS) - 1), dtype=np.float64)
        if self.compiled:
            k = run_chunk(self.evaluator.tag, self.kargs, self.best_adj, self.st, self.sc,
                          self.fl, self.params, self.undo, self.trace, int(nsteps), self.reach,
                          self.grp)
        else:
            k = self._run_python(int(nsteps))
        return self.trace[:k].copy()

    def _run_python(self, nsteps: int) -> int:
        """The same steps with the evaluation in Python (MPI split, GPU, reference): the same
        RNG draws and decisions as the compiled loop, so the same chain."""
        adj, n = self.graph.adj, self.graph.n
        ntrace = 0
        for _ in range(nsteps):
            r = begin_step(adj, n, self.st, self.sc, self.fl, self.params, self.undo, self.ctrl,
                           self.reach, self.grp)
            if r < 0:
                break
            if r == 0:
                continue
            self.out[:] = self.evaluator.raw(self.graph, max_level=int(self.ctrl[0]))
            ntrace = end_step(self.out, adj, self.best_adj, self.st, self.sc, self.fl,
                              self.params, self.undo, self.trace, ntrace)
        return ntrace

    @property
    def stop_reason(self) -> StopReason:
        return StopReason(int(self.sc[SC.STOP]))

    def best_graph(self):
        from golf.graph import sort_rows

        return self.graph.with_rows(sort_rows(self.best_adj))

    def best_graphs(self, k: int) -> list:
        """The best graphs of the search's chains, up to ``k`` (>= 1), best first: one chain."""
        return [self.best_graph()]

    def offer_best(self, rows, per) -> None:
        """Take a better graph found elsewhere (its base ``rows`` and ``per = (diameter,
        total, peripheral)``) as the best graph; the chain walks on from its own."""
        if (per[0], per[1]) < (self.sc[SC.BEST_D], self.sc[SC.BEST_TOTAL]):
            self.best_adj[:] = rows
            self.sc[SC.BEST_D], self.sc[SC.BEST_TOTAL], self.sc[SC.BEST_PER] = per

    # -- checkpoints ------------------------------------------------------------------------
    def state(self) -> dict:
        """Everything that changes during a run (arrays copied): graph, best graph, RNG state,
        counters and temperatures. The parameters come from the config, so a resumed run
        follows its config (unchanged: it continues bit for bit)."""
        return state_arrays(self.graph.adj, self.best_adj, self.st, self.sc, self.fl)

    def load_state(self, state: dict) -> None:
        load_state_arrays(state, self.graph.adj, self.best_adj, self.st, self.sc, self.fl)


def search_options(search: dict) -> dict:
    """The :class:`Annealer` keywords a run config's ``search`` section sets (the annealing
    of a tabu run's trials is ``sa``)."""
    return dict(method="hill" if search["method"] == "hill" else "sa",
                aspl_priority=search["aspl_priority"], tiebreak=search["tiebreak"],
                peripheral_weight=search["peripheral_weight"],
                voltage_moves=search["voltage_moves"], near_moves=search["near_moves"],
                slide_moves=search["slide_moves"], speculate=search["speculate"])


def schedule(search: dict, sample) -> tuple[float, float, str | None]:
    """``(T0, T1, how)`` of a run config's ``search`` section: its ``t0``/``t1``, and where
    one is ``auto`` the value ``sample()`` gives (:meth:`Annealer.auto_temperatures`' answer;
    ``how`` is its explanation, None when nothing was sampled). ``T1`` is at most ``T0``."""
    if search["t0"] != "auto" and search["t1"] != "auto":
        return search["t0"], search["t1"], None
    t0, t1, how = sample()
    t0 = t0 if search["t0"] == "auto" else search["t0"]
    return t0, min(t1 if search["t1"] == "auto" else search["t1"], t0), how


_STATE_KEYS = ("adj", "best_adj", "rng", "sc", "fl")


def chain_streams(seed: int, k: int = 1) -> np.ndarray:
    """A chain's RNG states: one xoshiro256** state (4 words) with ``k = 1``, where the moves
    and the decisions draw from it; with ``k > 1`` (``search.speculate``) the decisions' stream
    and then k proposal streams (4 + 4k words): step s draws its move from proposal stream
    s mod k, so that the moves of k consecutive steps from one state do not depend on each
    other's outcomes (a device chain proposes them at once, golf/evaluators/cuda/anneal.cu)."""
    if int(k) <= 1:
        return rng_seed(seed)
    return np.concatenate([rng_seed(seed)] + [rng_seed(seed + (j + 1) * 0x100000)
                                              for j in range(int(k))])


def state_arrays(*arrays) -> dict:
    """A chain's (or K chains' stacked) state arrays, copied, by checkpoint key."""
    return {k: a.copy() for k, a in zip(_STATE_KEYS, arrays)}


def load_state_arrays(state, adj, best_adj, st, sc, fl) -> None:
    """Restore a chain's arrays (or K chains' stacked arrays) in place; the stop flag is
    cleared and the peripheral weight (a parameter) kept from the config. One chain goes
    either way between a stack of one (a batch of 1, e.g. device chains) and a chain alone."""
    if state["adj"].shape != adj.shape and state["adj"].size == adj.size:
        state = {k: (np.reshape(state[k], a.shape) if np.size(state[k]) == a.size
                     else state[k])
                 for k, a in zip(_STATE_KEYS, (adj, best_adj, st, sc, fl))}
    if state["adj"].shape != adj.shape:
        from golf.errors import GolfError

        def chains(a):
            return a.shape[0] if a.ndim == 3 else 1

        raise GolfError(f"the checkpoint holds {chains(state['adj'])} chains on one GPU, this "
                        f"run {chains(adj)}; resume with search.batch={chains(state['adj'])}")
    if state["rng"].shape != st.shape:
        from golf.errors import GolfError

        def streams(a):
            return 1 if a.shape[-1] == 4 else a.shape[-1] // 4 - 1

        raise GolfError(f"the checkpoint's chains have {streams(state['rng'])} proposal "
                        f"stream(s), this run {streams(st)}; resume with "
                        f"search.speculate={streams(state['rng'])}")
    pw = fl[..., FL.PW].copy()
    for k, a in zip(_STATE_KEYS, (adj, best_adj, st, sc, fl)):
        a[...] = state[k]
    sc[..., SC.STOP] = 0
    fl[..., FL.PW] = pw
