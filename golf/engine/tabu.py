"""Tabu search: every step scores many candidate swaps of one graph and takes the best one.

One step:

1. draw ``K`` distinct valid symmetric swaps of the current graph
   (:mod:`golf.engine.neighbourhood`: all of them when the neighbourhood is small), the share
   ``near_moves`` of them near swaps (two edges two hops apart), which find lower graphs where
   uniform swaps alone stall: from a (384, 3) graph at total 459333, 150 s on one core, half
   near swaps reached 458811 and 458733 (two seeds), uniform ones nothing lower;
2. score the ``K`` graphs, with the level cap at the current diameter (a swap that raises
   the diameter is stopped early): on a backend that scores a batch in one launch
   (``supports.batched``, the GPU) with ``evaluate_many`` on the ``K`` candidates' rows, on a
   compiled CPU backend in one compiled loop (apply, call the kernel, record, revert; with
   ``helpers``, one-thread evaluators of the same backend, that many more threads share the
   candidates, each on its own copy of the graph), and else with ``evaluate_many`` (one
   graph after another, split over MPI ranks where the evaluator is);
3. take the best candidate by ``(diameter, total, peripheral)`` -- even when it is worse than
   the current graph, which is how the search leaves a local minimum -- among those that are
   not tabu. A candidate is tabu when it adds back an orbit that one of the last ``tenure``
   steps removed, unless it beats the best graph found (aspiration). A candidate that raises
   the diameter is never taken, as in the annealer; with ``aspl_priority`` the diameter is
   ignored (no level cap) and the total alone decides. When no candidate qualifies the step
   makes no move.

A step from the best graph found that no step has checked yet (the start, or a new best the
last step found) scores every distinct swap of it instead of ``K`` (where the neighbourhood's
buffers hold them all: at most :data:`golf.engine.neighbourhood.FULL_TRIES` tries and
:data:`~golf.engine.neighbourhood.FULL_FACTOR` ``* K``), and is never a kick step: so the
search leaves no best graph behind while a single swap still goes lower, and a run of such
steps is a steepest descent. A drawn sample misses a lone improving swap: on (64, 8) at
``g = 1`` the polish's best graph of 3896 had one lower swap of its 49,332 (to 3893), one of
3916 four (to 3914), that ``K = 4096`` candidates a step had not drawn.

With a ``patience`` (a polish phase's), once that many steps have gone by without going below
every graph since the current start, the search goes on, with an empty tabu list, from the next
graph of the cycle: its other start
graphs (``pool``: the other chains' best graphs), then the best graph found, then the pool
again. Back at the best graph, the first ``kick`` steps take a random admissible candidate
(the first drawn) instead of the best one: the search leaves that graph's basin before it
descends again, where it would otherwise find its way back to the same local minimum (the
patience counts from the kicked graph, so a descent goes on while it finds lower graphs). The
best graph found stays.

The search stops at the step budget, at the lower bounds, when a step finds no valid swap at
all, or (the driver) at the time limit. The same seed, backend and ``K`` give the same run,
whichever of the scoring paths is used. The state is the annealer's arrays plus the tabu list
(the orbits removed by the last ``tenure`` steps), so a checkpoint resumes bit for bit.
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np
from numba import njit

from golf.engine.annealer import (FL, P, SC, TRACE_COLUMNS, Annealer, StopReason, reached_limit,
                         take_move, trace_row)
from golf.kernels.dispatch import call_kernel
from golf.kernels.merge import OK
from golf.engine.neighbourhood import (Neighbourhood, apply_move, draw_moves, moves_applied,
                                revert_move)

__all__ = ["TabuSearch", "PA", "choose_move", "polish_budget"]


class PA(IntEnum):
    """The slots of ``TabuSearch.pool_at``: where the search is in its cycle of start graphs."""
    NEXT = 0        # the next start graph's place in the cycle (the pool, then the best graph)
    START = 1       # the step the current start began at
    PATIENCE = 2    # steps since START_STEP before the next start (0: never)
    KICK = 3        # kick steps after each return to the best graph
    KICKS_LEFT = 4  # kick steps still to take
    START_D = 5     # the best (diameter, total) since the current start (after a kick: the
    START_TOTAL = 6  # kicked graph) and the step it was reached at (START or later)
    START_STEP = 7
    CHECK = 8       # 1: a step from a best graph not yet checked scores every swap
    CHECKED = 9     # the last step that scored every swap (-1: none)
    EVERY = 10      # 1 while the step scores every swap (no kick step)


# the slots a checkpoint keeps (the others are parameters; EVERY is set by each step)
STATE_SLOTS = [PA.NEXT, PA.START, PA.KICKS_LEFT, PA.START_D, PA.START_TOTAL, PA.START_STEP,
               PA.CHECKED]


@njit(cache=True, nogil=True)
def score_moves(tag, kargs, moves, t, T, k, cap, outs):
    """Score candidates ``t, t + T, ...`` below ``k`` with the kernel on ``kargs``' graph, in
    place: apply, call, record, revert (``t, T = 0, 1``: all of them). Without the GIL, so
    that ``T`` threads, each with its own ``kargs``, share a step's candidates."""
    adj = kargs[0]
    ctrl = kargs[1]
    out = kargs[2]
    ctrl[0] = cap
    for i in range(t, k, T):
        apply_move(adj, moves[i])
        call_kernel(tag, kargs)
        outs[i, :] = out
        revert_move(adj, moves[i])


@njit(cache=True)
def _is_tabu(orbits, ring):
    for q in range(2, 4):
        if orbits[q] >= 0:
            for x in ring:
                if x == orbits[q]:
                    return True
    return False


@njit(cache=True)
def _before(a0, a1, a2, b0, b1, b2):
    return a0 < b0 or (a0 == b0 and (a1 < b1 or (a1 == b1 and a2 < b2)))


@njit(cache=True)
def choose_move(outs, orbits, k, ring, sc, params, first=False):
    """The index of the best admissible candidate among ``0..k-1`` (kernel results ``outs``),
    or -1: connected, no higher diameter (unless ``aspl_priority``), not tabu unless it beats
    the best graph found; the smallest ``(diameter, total, peripheral)`` wins (the first
    drawn among equals). ``first``: the first admissible one drawn (a kick step)."""
    w = params[P.WEIGHT]
    free = params[P.ASPL_PRIORITY]
    best, b0, b1, b2 = -1, 0, 0, 0
    for i in range(k):
        if outs[i, 3] != OK or (not free and outs[i, 0] > sc[SC.CUR_D]):
            continue
        d, total, per = outs[i, 0], w * outs[i, 1] // 2, w * outs[i, 2]
        k0 = 0 if free else d
        if best >= 0 and not _before(k0, total, per, b0, b1, b2):
            continue
        aspires = _before(d, total, 0, sc[SC.BEST_D], sc[SC.BEST_TOTAL], 0)
        if not aspires and _is_tabu(orbits[i], ring):
            continue
        best, b0, b1, b2 = i, k0, total, per
        if first:
            break
    return best


@njit(cache=True)
def end_tabu_step(outs, k, adj, best_adj, moves, orbits, ring, sc, fl, params, trace, ntrace,
                  pool_at):
    """Take the chosen candidate (if any; in a kick step the first admissible one drawn),
    enter the orbits it removed in the tabu list (the list's slot of this step), keep the
    best since the current start (:class:`PA`), count, trace. Returns the new number of
    trace rows."""
    sc[SC.EVALS] += k
    kick = pool_at[PA.KICKS_LEFT] > 0 and pool_at[PA.EVERY] == 0
    i = choose_move(outs, orbits, k, ring, sc, params, kick)
    if kick:
        pool_at[PA.KICKS_LEFT] -= 1
    at = 2 * (sc[SC.STEP] % (ring.shape[0] // 2)) if ring.shape[0] else -1
    if i >= 0:
        apply_move(adj, moves[i])
        take_move(outs[i], adj, best_adj, sc, params)
        if kick or _before(sc[SC.CUR_D], sc[SC.CUR_TOTAL], 0, pool_at[PA.START_D],
                           pool_at[PA.START_TOTAL], 0):
            pool_at[PA.START_D] = sc[SC.CUR_D]
            pool_at[PA.START_TOTAL] = sc[SC.CUR_TOTAL]
            pool_at[PA.START_STEP] = sc[SC.STEP]
    if at >= 0:
        ring[at] = orbits[i, 0] if i >= 0 else -1
        ring[at + 1] = orbits[i, 1] if i >= 0 else -1
    sc[SC.STEP] += 1
    return trace_row(trace, ntrace, sc, fl, params)


@njit(cache=True)
def next_start(adj, best_adj, sc, ring, pool, pool_sc, pool_at):
    """Leave the current graph once ``PA.PATIENCE`` steps have gone by since the current start
    or the last step that went below every graph since it (``PA.START_STEP``), for the next
    start in the cycle ``pool[0], pool[1], ..., the best graph found, pool[0], ...``
    (``pool_sc``: the pool's scores); the tabu list is emptied. The
    candidates of a step are a random sample, so a start taken again leads elsewhere: the
    search returns to its best graph instead of circling where it stalled. The best graph
    stays. Back at the best graph, the next ``PA.KICK`` steps are kick steps: each takes a
    random admissible candidate (:func:`end_tabu_step`), so that the search leaves the best
    graph's basin before it descends again; the patience counts from the kicked graph."""
    if pool_at[PA.PATIENCE] <= 0 or sc[SC.STEP] - pool_at[PA.START_STEP] < pool_at[PA.PATIENCE]:
        return
    i = pool_at[PA.NEXT]
    if i < pool.shape[0]:
        adj[:, :] = pool[i]
        sc[SC.CUR_D] = pool_sc[i, 0]
        sc[SC.CUR_TOTAL] = pool_sc[i, 1]
        sc[SC.CUR_PER] = pool_sc[i, 2]
    else:
        adj[:, :] = best_adj
        sc[SC.CUR_D] = sc[SC.BEST_D]
        sc[SC.CUR_TOTAL] = sc[SC.BEST_TOTAL]
        sc[SC.CUR_PER] = sc[SC.BEST_PER]
        pool_at[PA.KICKS_LEFT] = pool_at[PA.KICK]
    ring[:] = -1
    pool_at[PA.NEXT] = (i + 1) % (pool.shape[0] + 1)
    pool_at[PA.START] = pool_at[PA.START_STEP] = sc[SC.STEP]
    pool_at[PA.START_D] = sc[SC.CUR_D]
    pool_at[PA.START_TOTAL] = sc[SC.CUR_TOTAL]


@njit(cache=True)
def _unchecked_best(adj, best_adj, sc, pool_at):
    """The current graph is the best graph found, and no step has scored every swap of it yet
    (where the neighbourhood can hold them all, ``PA.CHECK``)."""
    if (pool_at[PA.CHECK] == 0 or pool_at[PA.CHECKED] > sc[SC.BEST_STEP]
            or sc[SC.CUR_D] != sc[SC.BEST_D] or sc[SC.CUR_TOTAL] != sc[SC.BEST_TOTAL]):
        return False
    for i in range(adj.shape[0]):
        for j in range(adj.shape[1]):
            if adj[i, j] != best_adj[i, j]:
                return False
    return True


@njit(cache=True)
def begin_tabu_step(adj, best_adj, n, st, sc, params, undo, K, enumerate_all, moves, orbits,
                    table, ring, pool, pool_sc, pool_at, reach=None, grp=None):
    """Stop if done, else move to the next start graph where it is due (:func:`next_start`)
    and draw the candidates; returns how many (-1: stopped, the reason in ``sc[SC.STOP]``;
    no valid swap at all stops the search)."""
    if reached_limit(sc, params):
        return -1
    next_start(adj, best_adj, sc, ring, pool, pool_sc, pool_at)
    every = _unchecked_best(adj, best_adj, sc, pool_at)
    pool_at[PA.EVERY] = every
    if every:
        pool_at[PA.CHECKED] = sc[SC.STEP]
    # the moves take the vertices the group moves, g*m (n but for centre vertices)
    k = draw_moves(adj, params[P.G] * adj.shape[0], params[P.G], st, K, enumerate_all, undo,
                   moves, orbits, table, reach, grp, params[P.NEAR], every)
    if k == 0:
        sc[SC.STOP] = StopReason.STUCK
        return -1
    return k


@njit(cache=True)
def run_tabu_chunk(tag, kargs, best_adj, st, sc, fl, params, undo, K, enumerate_all, moves,
                   orbits, table, outs, ring, pool, pool_sc, pool_at, trace, nsteps, reach=None,
                   grp=None):
    """Up to ``nsteps`` tabu steps without leaving compiled code (``kargs`` as in
    :func:`golf.engine.annealer.run_chunk`). Returns the number of trace rows written."""
    adj = kargs[0]
    n = kargs[3]
    ntrace = 0
    for _ in range(nsteps):
        k = begin_tabu_step(adj, best_adj, n, st, sc, params, undo, K, enumerate_all, moves,
                            orbits, table, ring, pool, pool_sc, pool_at, reach, grp)
        if k < 0:
            break
        score_moves(tag, kargs, moves, 0, 1, k, cap_of(sc, params), outs)
        ntrace = end_tabu_step(outs, k, adj, best_adj, moves, orbits, ring, sc, fl, params,
                               trace, ntrace, pool_at)
    return ntrace


@njit(cache=True)
def cap_of(sc, params):
    """The kernel's level cap: the current diameter (none with ``aspl_priority``)."""
    return 0 if params[P.ASPL_PRIORITY] else sc[SC.CUR_D]


def polish_budget(steps: int, fraction: float, K: int) -> tuple[int, int]:
    """How a step budget splits between an annealing run and its tabu polish phase: the
    annealer's steps, and the tabu steps, which score ``K`` candidates each and get
    ``fraction`` of the budget's evaluations. ``(0, 0)`` without a step budget."""
    if steps <= 0:
        return 0, 0
    polish = int(round(steps * fraction))
    return max(1, steps - polish), -(-polish // K)


class TabuSearch(Annealer):
    """Tabu search over symmetric swaps, with the interface the run driver uses for
    :class:`golf.engine.annealer.Annealer` (whose state arrays, slots and trace it shares).

    Parameters
    ----------
    graph : Graph, the start (copied; the copy is the current graph)
    evaluator : any evaluator (see the module docstring for how the candidates are scored)
    steps : int, the step budget (0: none); a step scores up to ``neighbourhood`` candidates
    neighbourhood : int, ``K``, the candidates a step
    tenure : int, steps during which the orbits a step removed may not be added back (0: no
        tabu list)
    aspl_priority : bool, ignore the diameter (see the module docstring)
    seed, bounds, trace_every, reach : as for the annealer
    batched : None (by the evaluator: the compiled loop on a compiled CPU backend without MPI,
        else ``evaluate_many``), or True/False to force ``evaluate_many``/the compiled loop
    pool : more start graphs (Graphs of the same ``n``, ``d``, ``g``, connected), taken in
        turn: the search moves to the next one after ``patience`` steps without a new best
        (counted from the later of the best's step and the current start's), empties the
        tabu list and goes on from there; the best graph found stays. After the last one it
        goes back to the best graph found, then to the pool's first again.
    patience : int, steps without a new best before the next start graph (0: never; with an
        empty pool, the best graph found is the next start)
    kick : int, back at the best graph found, the steps that take a random admissible
        candidate instead of the best one (0: none)
    near_moves : float, the share of the drawn candidates that are near swaps
        (:func:`golf.engine.moves.propose_near`)
    helpers : more evaluators of ``evaluator``'s backend and shape, each on one thread: in the
        compiled loop, ``1 + len(helpers)`` threads share each step's candidates
        (:func:`score_moves`); the steps are the same, only faster
    """

    def __init__(self, graph, evaluator, *, steps=0, neighbourhood=4096, tenure=16,
                 aspl_priority=False, seed=0, bounds=None, trace_every=1000, batched=None,
                 reach=None, pool=(), patience=0, kick=0, near_moves=0.0, helpers=()):
        super().__init__(graph, evaluator, steps=steps, method="hill",
                         aspl_priority=aspl_priority, tiebreak=False, seed=seed, bounds=bounds,
                         trace_every=trace_every, reach=reach, near_moves=near_moves)
        self.batched = not self.compiled if batched is None else bool(batched)
        if not self.batched and not self.compiled:
            from golf.errors import GolfError

            raise GolfError(f"{evaluator.name}: no compiled kernel to score candidates with")
        self.helpers = tuple(helpers) if not self.batched else ()
        for h in self.helpers:
            if (type(h), h.n, h.d, h.g, h.symmetry, h.centres) != (
                    type(evaluator), evaluator.n, evaluator.d, evaluator.g, evaluator.symmetry,
                    evaluator.centres):
                from golf.errors import GolfError

                raise GolfError(f"a helper evaluator ({h.describe()}) is not of the search's "
                                f"backend and shape ({evaluator.describe()})")
        self.kset = (self.kargs, *(h.kernel_args(self.graph.adj.copy()) for h in self.helpers))
        self._threads = None  # the helpers' threads, started at the first shared step
        self.neighbourhood = int(neighbourhood)
        self.hood = Neighbourhood(graph.n_sym, graph.d, graph.g, neighbourhood, full=True)
        self.ring = np.full(2 * max(0, int(tenure)), -1, dtype=np.int64)
        width = evaluator.batch if evaluator.supports.batched else 32
        self.rows = np.zeros((max(1, min(self.hood.K, width)), graph.m, graph.d),
                             dtype=np.int32)
        self.set_pool(pool)
        self.pool_at = np.zeros(len(PA), dtype=np.int64)  # the cycle of start graphs
        self.pool_at[PA.PATIENCE] = max(0, int(patience))
        self.pool_at[PA.KICK] = max(0, int(kick))
        self.pool_at[PA.CHECK] = int(self.hood.full)
        self.pool_at[PA.CHECKED] = -1
        self._restart_at(int(self.sc[SC.STEP]))

    def _restart_at(self, step: int) -> None:
        """The current graph is a start from ``step`` on (its score the best since it)."""
        pa = self.pool_at
        pa[PA.START] = pa[PA.START_STEP] = step
        pa[PA.START_D], pa[PA.START_TOTAL] = self.sc[SC.CUR_D], self.sc[SC.CUR_TOTAL]

    def set_pool(self, graphs) -> None:
        """The start graphs after the current one (scored here, once)."""
        from golf.errors import GolfError

        g0 = self.graph
        self.pool = np.zeros((len(graphs), g0.m, g0.d), dtype=np.int32)
        self.pool_sc = np.zeros((len(graphs), 3), dtype=np.int64)
        for i, graph in enumerate(graphs):
            if (graph.d, graph.form) != (g0.d, g0.form):
                raise GolfError(f"start graph {i + 1} of the pool is ({graph.n}, {graph.d}, "
                                f"g={graph.g}), the search's is ({g0.n}, {g0.d}, g={g0.g})")
            score = self.evaluator.evaluate(graph)
            if not score.connected:
                raise GolfError(f"start graph {i + 1} of the pool is disconnected")
            self.pool[i] = graph.adj
            self.pool_sc[i] = score.diameter, score.total, score.peripheral

    def scored_by(self, evaluator, helpers=()) -> "TabuSearch":
        """This search from its present state, its candidates scored by ``evaluator`` (another
        exact backend for the same graphs; ``helpers`` as for the class). A step depends on
        the candidates' scores only, so the two take the same steps; only the speed
        differs."""
        twin = TabuSearch(self.graph, evaluator, steps=int(self.params[P.STEPS]),
                          neighbourhood=self.neighbourhood, tenure=self.ring.shape[0] // 2,
                          aspl_priority=bool(self.params[P.ASPL_PRIORITY]), seed=self.seed,
                          bounds=self.bounds, trace_every=int(self.params[P.TRACE_EVERY]),
                          reach=self.reach, patience=int(self.pool_at[PA.PATIENCE]),
                          kick=int(self.pool_at[PA.KICK]),
                          near_moves=self.params[P.NEAR] / 1000, helpers=helpers)
        twin.load_state(self.state())
        return twin

    # -- temperatures: none ---------------------------------------------------------------
    def auto_temperatures(self, count=200) -> tuple[float, float, str]:
        return 1.0, 1.0, "not used by tabu search"

    def set_temperatures(self, t0, t1):
        self.fl[FL.T0] = t0
        self.fl[FL.T1] = t1  # recorded only; FL.T stays 0 (the trace's temperature column)

    # -- running --------------------------------------------------------------------------
    def run(self, nsteps: int, time_frac: float = 0.0) -> np.ndarray:
        """Run up to ``nsteps`` steps; returns the trace rows written."""
        self.fl[FL.TIME_FRAC] = time_frac
        need = nsteps // int(self.params[P.TRACE_EVERY]) + 2
        if self.trace.shape[0] < need:
            self.trace = np.zeros((need, len(TRACE_COLUMNS) - 1), dtype=np.float64)
        h = self.hood
        if self.batched:
            k = self._run_batched(int(nsteps))
        elif self.helpers:
            k = self._run_shared(int(nsteps))
        else:
            k = run_tabu_chunk(self.evaluator.tag, self.kargs, self.best_adj, self.st, self.sc,
                               self.fl, self.params, self.undo, h.K, h.enumerate_all, h.moves,
                               h.orbits, h.table, h.outs, self.ring, self.pool, self.pool_sc,
                               self.pool_at, self.trace, int(nsteps), self.reach, self.grp)
        return self.trace[:k].copy()

    def _run_batched(self, nsteps: int) -> int:
        """The same steps with the candidates scored by ``evaluate_many`` in batches of
        ``len(self.rows)`` graphs."""
        adj, h = self.graph.adj, self.hood

        def score(k):
            caps = [int(cap_of(self.sc, self.params))] * len(self.rows)
            for k0 in range(0, k, len(self.rows)):
                k1 = min(k, k0 + len(self.rows))
                moves_applied(adj, h.moves, k0, k1, self.rows)
                h.outs[k0:k1] = self.evaluator.evaluate_many(self.rows[:k1 - k0],
                                                             caps[:k1 - k0])

        return self._steps(nsteps, score)

    def _steps(self, nsteps: int, score) -> int:
        """``nsteps`` steps, a step's ``k`` candidates scored by ``score(k)`` into
        ``hood.outs``."""
        adj, n, h = self.graph.adj, self.graph.n, self.hood
        ntrace = 0
        for _ in range(nsteps):
            k = begin_tabu_step(adj, self.best_adj, n, self.st, self.sc, self.params,
                                self.undo, h.K, h.enumerate_all, h.moves, h.orbits, h.table,
                                self.ring, self.pool, self.pool_sc, self.pool_at, self.reach,
                                self.grp)
            if k < 0:
                break
            score(k)
            ntrace = end_tabu_step(h.outs, k, adj, self.best_adj, h.moves, h.orbits,
                                   self.ring, self.sc, self.fl, self.params, self.trace, ntrace,
                                   self.pool_at)
        return ntrace

    def _run_shared(self, nsteps: int) -> int:
        """The same steps with the candidates shared by ``1 + len(helpers)`` threads
        (:func:`score_moves` without the GIL), each on its own copy of the current graph."""
        from concurrent.futures import ThreadPoolExecutor

        T, h, tag = len(self.kset), self.hood, self.evaluator.tag
        if self._threads is None:
            self._threads = ThreadPoolExecutor(T - 1, thread_name_prefix="golf-tabu")
        adj = self.graph.adj

        def share(t, k, cap):
            score_moves(tag, self.kset[t], h.moves, t, T, k, cap, h.outs)

        def score(k):
            cap = int(cap_of(self.sc, self.params))
            for kargs in self.kset[1:]:  # before the first thread moves the graph
                kargs[0][:, :] = adj
            rest = [self._threads.submit(share, t, k, cap) for t in range(1, T)]
            share(0, k, cap)
            for f in rest:
                f.result()

        return self._steps(nsteps, score)

    # -- checkpoints ----------------------------------------------------------------------
    def state(self) -> dict:
        """The annealer's state arrays, the tabu list and the start graphs (with their scores
        and where the search is among them)."""
        return dict(super().state(), tabu=self.ring.copy(), pool=self.pool.copy(),
                    pool_sc=self.pool_sc.copy(), pool_at=self.pool_at[STATE_SLOTS].copy())

    def load_state(self, state: dict) -> None:
        from golf.errors import GolfError

        if "tabu" not in state:
            raise GolfError("the checkpoint holds no tabu list: it is not from a tabu search")
        if state["tabu"].shape != self.ring.shape:
            raise GolfError(f"the checkpoint's tabu list is for search.tenure="
                            f"{state['tabu'].shape[0] // 2}, this run has "
                            f"{self.ring.shape[0] // 2}")
        super().load_state(state)
        self.ring[:] = state["tabu"]
        if "pool" in state:  # else a checkpoint of one start graph
            self.pool = np.array(state["pool"], dtype=np.int32)
            self.pool_sc = np.array(state["pool_sc"], dtype=np.int64)
            at = np.asarray(state["pool_at"])
            if at.shape[0] >= len(STATE_SLOTS) - 1:  # without CHECKED: none checked yet
                self.pool_at[PA.CHECKED] = -1
                self.pool_at[STATE_SLOTS[:at.shape[0]]] = at
            else:  # a checkpoint without kicks: (next, start); the patience counted from the
                # later of the start and the best graph found, as it then was
                self._restart_at(int(at[1]))
                self.pool_at[PA.NEXT] = at[0]
                self.pool_at[PA.START_STEP] = max(int(at[1]), int(self.sc[SC.BEST_STEP]))

    @classmethod
    def after(cls, ann, evaluator, *, steps, graph=None, reach=None, **kw) -> "TabuSearch":
        """A tabu search that continues the search ``ann`` (an annealer) from its best graph
        (or ``graph``: that graph at a smaller symmetry, scored by ``evaluator``, with
        ``reach`` the length limit of a grid problem at that symmetry): its step, evaluation
        and move counts go on from ``ann``'s, and ``steps`` is the step at which it stops
        (0: none)."""
        tabu = cls(ann.best_graph() if graph is None else graph, evaluator, steps=steps,
                   reach=ann.reach if reach is None else reach, bounds=ann.bounds, **kw)
        for k in (SC.STEP, SC.EVALS, SC.ACCEPTED, SC.BEST_STEP):
            tabu.sc[k] = ann.sc[k]
        tabu._restart_at(int(tabu.sc[SC.STEP]))
        tabu.set_temperatures(ann.fl[FL.T0], ann.fl[FL.T1])
        return tabu
