"""A memetic search (``search.method: memetic``): a population of graphs of one form,
crossover plus local search.

The population holds ``members`` graphs of one form, each with its exact score
``(diameter, total, peripheral)``. One **step** of the search:

* while members have not yet been climbed, the next ``brood`` of them is (the start graphs:
  the run's own, then random graphs of the form);
* after that, a **generation** of ``brood`` children:

  1. **Parents** by score and by distance: ``a`` wins a tournament of :data:`TOURNAMENT`
     members (the better score), ``b`` is the member of another draw of :data:`TOURNAMENT`
     farthest from ``a`` (the orbits one has and the other has not, :func:`distance`), so
     that the children mix graphs that differ.
  2. **Crossover** (:func:`golf.engine.crossover.crossover`): ``a``'s orbits at a ball of
     half the base vertices around a random root (on a grid, a block of the lattice: the
     cells of a square and its rotations), ``b``'s orbits that fit, a repair (on a grid
     within the length limit). A disconnected child is dropped (counted in
     ``sc[SC.FAILED]``).
  3. **Local search** (``local_search``):

     * ``hill``: the children climb together, ``local_steps`` hill-climbing steps each
       (:class:`golf.engine.population.BatchAnnealer` of ``method='hill'``, golf's
       incremental scoring: one compiled loop on a CPU backend, one launch a step for all
       children on a GPU, the chains on the device where the evaluator runs them there); a
       child ends at the best graph of its climb;
     * ``descent``: each child descends until no swap improves it
       (:class:`golf.engine.descent.Descent`, exhaustive first-improvement 2-opt: one
       compiled loop on a CPU backend, the tries scored in batches on a GPU).
  4. **Replacement** by crowding: each climbed child, in turn, takes the place of the member
     nearest it (:func:`distance`) among those that score worse, where no member has its rows
     (no copies). A child replaces a graph like itself rather than the worst one, so that the
     population keeps graphs that differ: with the worst replaced, a (96, 3) population at
     ``g = 1`` (32 members, 4 children a generation, 5000 steps a climb, one core) stopped
     improving after 8 s at total 19597; with crowding it reached 19520 after 140 s, where
     annealing (16 tempering chains) ended at 19532 in 180 s.

The search offers the interface of :class:`golf.engine.annealer.Annealer` to the run's loop:
``sc`` (``STEP``: the steps above; ``CUR_*``: the best child of the last step; ``BEST_*``: the
best member; ``ACCEPTED``: children that entered; ``EVALS``: every evaluation, the climbs'
included), ``run(nsteps)``, the best graphs, ``state``/``load_state``. It takes no temperature.
Under MPI (``parallel.mode: chains``) every rank holds a population, an island, and the
exchange offers each the best graph of all (:meth:`offer_best`), which enters as a child
does.

Each step draws from its own generator, seeded by the run's seed and the step's number, and
the climbs' chains from seeds drawn there: the same seed, start graphs, evaluator and brood
give the same run, and a checkpoint (the members, their scores, the counters) resumes it bit
for bit.
"""

from __future__ import annotations

import numpy as np

from golf.engine.annealer import FL, P, SC, TRACE_COLUMNS, StopReason, reached_limit
from golf.engine.crossover import ball, block, crossover, orbits
from golf.errors import GolfError

__all__ = ["Memetic", "distance", "refused", "TOURNAMENT", "LOCAL_STEPS", "MEMBERS",
           "LOCAL_SEARCHES", "climb_label"]

# members drawn for each parent
TOURNAMENT = 3
# the defaults of search.local_steps and search.members
LOCAL_STEPS = 5000
MEMBERS = 32
# the values of search.local_search
LOCAL_SEARCHES = ("hill", "descent")


def refused(kind: str, centres: int) -> str | None:
    """Why the memetic search cannot take a problem of ``kind`` (:mod:`golf.problems`) at a
    form with ``centres`` centre vertices (the crossover keeps no hosts of a host-switch
    problem, and no centres), or None."""
    if kind == "host-switch":
        return "the memetic search takes general graphs and grids, not a host-switch problem"
    if centres:
        return f"the memetic search takes no centre vertices (problem.centres: {centres})"
    return None


def climb_label(local_search: str, local_steps: int) -> str:
    """The local search of each child, in words (the run's log)."""
    if local_search == "descent":
        return "a descent until no swap improves it"
    return f"{local_steps:,} hill-climbing steps"


def distance(a, b) -> int:
    """The edge orbits that one of two graphs of one form has and the other has not."""
    return len(set(orbits(a)) ^ set(orbits(b)))


def _member(score, graph) -> tuple:
    """A member: its score, its graph and the set of its edge orbits (for :func:`distance`
    to the others without taking the graph apart again)."""
    return score, graph, frozenset(orbits(graph))


class Memetic:
    """The memetic search over the population ``graphs`` (module docstring), scored by
    ``evaluator``.

    ``steps``: the step budget (0: none); ``seed``; ``local_search``: ``hill`` or ``descent``
    (module docstring); ``local_steps``: hill-climbing steps a child; ``brood``: children a
    generation (and start graphs a step), climbed together; ``bounds``: the problem's lower
    bounds (the search stops there); ``reach``: a grid problem's length limit
    (:meth:`golf.grid.Grid.reach`), kept by the crossover and the climbs; ``options``: the
    climbs' :class:`golf.engine.annealer.Annealer` keywords (moves, tie-break; the method is
    ``hill``)."""

    def __init__(self, graphs, evaluator, *, steps: int = 0, seed: int = 0,
                 local_steps: int = LOCAL_STEPS, brood: int = 1, bounds=None, reach=None,
                 options=None, local_search: str = "hill"):
        from golf.graph import sort_rows
        from golf.lower_bounds import moore_bounds

        if len(graphs) < 2:
            raise GolfError(f"a memetic population needs at least 2 graphs, got {len(graphs)}")
        if len({g.form for g in graphs}) != 1:
            raise GolfError("a memetic population holds graphs of one form")
        orbits(graphs[0])  # a form the crossover handles (no centre vertices)
        self.graph = graphs[0].copy()
        self.evaluator = evaluator
        self.seed = int(seed)
        self.local_steps = int(local_steps)
        if local_search not in LOCAL_SEARCHES:
            raise GolfError(f"local_search must be one of {LOCAL_SEARCHES}, got "
                            f"{local_search!r}")
        self.local_search = local_search
        self.brood = max(1, int(brood))
        self.bounds = bounds or moore_bounds(self.graph.n, self.graph.d)
        self.reach = None if reach is None else np.ascontiguousarray(reach, dtype=np.int64)
        self.options = dict(options or {}, method="hill", reach=self.reach)
        if self.graph.g == 1:
            self.options["voltage_moves"] = 0.0
        self.members = []
        for graph in graphs:
            s = evaluator.evaluate(graph)
            if not s.connected:
                raise GolfError("a start graph of the memetic population is disconnected; "
                                "the search needs connected ones")
            if not self.members:
                self.start_score = s
            self.members.append(_member((s.diameter, s.total, s.peripheral),
                                        graph.with_rows(sort_rows(graph.adj))))
        self.climbed = 0  # start graphs climbed so far
        self.took = False  # the last graph offered by the exchange entered
        self.lead = 0  # the best member (it stays the best until one scores lower)
        self.sc = np.zeros(len(SC), dtype=np.int64)
        self.fl = np.zeros(len(FL), dtype=np.float64)
        self.params = np.zeros(len(P), dtype=np.int64)
        self.params[P.STEPS] = int(steps)
        self.params[P.HILL] = 1
        self.params[P.G] = self.graph.g
        self.params[P.TRACE_EVERY] = 1
        self.params[P.D_BOUND] = self.bounds.diameter if self.bounds.diameter is not None else -1
        self.params[P.TOTAL_BOUND] = (self.bounds.total if self.bounds.total is not None
                                      else -1)
        self.sc[SC.EVALS] = len(graphs)
        self._descent = None
        if local_search == "descent":  # its annealer scores its graph as it is built
            from golf.engine.annealer import Annealer
            from golf.engine.descent import Descent

            self._descent = Descent(Annealer(self.graph, evaluator, bounds=self.bounds,
                                             **self.options))
            self.sc[SC.EVALS] += 1
        self._set_current(self.members[0][0])
        self._track_best()

    # -- the annealer's interface -------------------------------------------------------------
    def auto_temperatures(self, count=200):
        return 1.0, 1.0, "none (a memetic search climbs: no temperature)"

    def set_temperatures(self, t0, t1):
        self.fl[FL.T0], self.fl[FL.T1], self.fl[FL.T] = t0, t1, 0.0

    @property
    def stop_reason(self) -> StopReason:
        return StopReason(int(self.sc[SC.STOP]))

    @property
    def best(self):
        """``(score, graph)`` of the best member: the first to reach the lowest score (a
        member of the same score that comes later does not take its place, so that the best
        graph changes only with the best score)."""
        return self.members[self.lead][:2]

    @property
    def best_adj(self):
        return self.best[1].adj

    def best_graph(self):
        return self.best[1]

    def best_graphs(self, k: int) -> list:
        """Up to ``k`` members, best first (the first is :meth:`best_graph`)."""
        order = sorted(range(len(self.members)),
                       key=lambda j: (j != self.lead, self.members[j][0][:2], j))
        return [self.members[j][1] for j in order[:k]]

    def scores(self) -> list:
        """The members' ``(diameter, total)``."""
        return [m[0][:2] for m in self.members]

    def run(self, nsteps: int, time_frac: float = 0.0) -> np.ndarray:
        """Up to ``nsteps`` steps (module docstring); a trace row after each. The stop
        reason is set as soon as the budget or the bounds are reached."""
        rows = []
        sc = self.sc
        for _ in range(int(nsteps)):
            if reached_limit(sc, self.params):
                break
            self._step()
            rows.append([sc[SC.STEP], 0.0, sc[SC.CUR_D], sc[SC.CUR_TOTAL], sc[SC.BEST_D],
                         sc[SC.BEST_TOTAL], sc[SC.ACCEPTED], sc[SC.EVALS]])
            if reached_limit(sc, self.params):
                break
        return np.array(rows, dtype=np.float64).reshape(-1, len(TRACE_COLUMNS) - 1)

    # -- one step -----------------------------------------------------------------------------
    def _step(self) -> None:
        rng = np.random.default_rng([self.seed, int(self.sc[SC.STEP])])
        pop = self.members
        if self.climbed < len(pop):
            at = range(self.climbed, min(len(pop), self.climbed + self.brood))
            done = self._climb([pop[k] for k in at], rng)
            for k, member in zip(at, done):
                pop[k] = member
            self.climbed += len(at)
        else:
            children = []
            for _ in range(self.brood):
                child = self._child(rng)
                s = self.evaluator.evaluate(child)
                self.sc[SC.EVALS] += 1
                if s.connected:
                    children.append(((s.diameter, s.total, s.peripheral), child))
                else:
                    self.sc[SC.FAILED] += 1
            done = self._climb(children, rng) if children else []
            for member in done:
                self._offer(member)
        if done:
            self._set_current(min(m[0] for m in done))
        self.sc[SC.STEP] += 1
        self._track_best()

    def _child(self, rng):
        """A crossover child of two parents (module docstring)."""
        pop = self.members
        a = min(rng.choice(len(pop), TOURNAMENT), key=lambda k: pop[k][0][:2])
        others = [k for k in rng.choice(len(pop), TOURNAMENT) if k != a] or [
            (a + 1) % len(pop)]
        b = max(others, key=lambda k: (len(pop[a][2] ^ pop[k][2]), -k))
        ga = pop[a][1]
        if self.reach is None:
            keep = ball(ga, int(rng.integers(ga.m)), max(1, ga.m // 2))
        else:
            keep = block(ga, self.reach, int(rng.integers(ga.n)), max(1, ga.m // 2))
        return crossover(ga, pop[b][1], keep, rng, self.reach)

    def _climb(self, members, rng) -> list:
        """``(score, graph)`` of the best graph of a hill climb of ``local_steps`` from each
        of ``members``, climbed together, or of a descent from each in turn."""
        from golf.engine.population import BatchAnnealer
        from golf.graph import sort_rows

        if self.local_search == "descent":
            return [self._descend(m[:2], rng) for m in members]
        K = len(members)
        ba = BatchAnnealer(members[0][1], self.evaluator, K, population="none",
                           population_every=self.local_steps, exchange_every=0,
                           restart_fraction=0.0, steps=self.local_steps,
                           seed=int(rng.integers(2**62)), bounds=self.bounds,
                           trace_every=self.local_steps, **self.options)
        self.sc[SC.EVALS] += 1  # the batch's first graph, scored as it is built
        ba.set_temperatures(1.0, 1.0)  # unused by a hill climb
        for k, (score, graph) in enumerate(m[:2] for m in members):
            ba.adjs[k] = graph.adj
            ba.bests[k] = graph.adj
            for slots, value in zip(((SC.CUR_D, SC.BEST_D), (SC.CUR_TOTAL, SC.BEST_TOTAL),
                                     (SC.CUR_PER, SC.BEST_PER)), score):
                ba.scs[k, list(slots)] = value
        while not (ba.scs[:, SC.STOP] > 0).all():
            ba.run(self.local_steps)
        self.sc[SC.EVALS] += int(ba.scs[:, SC.EVALS].sum())
        return [_member((int(ba.scs[k, SC.BEST_D]), int(ba.scs[k, SC.BEST_TOTAL]),
                         int(ba.scs[k, SC.BEST_PER])),
                        self.graph.with_rows(sort_rows(ba.bests[k])))
                for k in range(K)]

    def _descend(self, member, rng) -> tuple:
        """The member (:func:`_member`) at the end of a descent from ``member``'s graph."""
        from golf.graph import sort_rows

        desc = self._descent
        ann = desc.ann
        score, graph = member
        desc.start(graph.adj, score)
        evals = int(ann.sc[SC.EVALS])
        desc.climb(rng)
        self.sc[SC.EVALS] += int(ann.sc[SC.EVALS]) - evals
        sc = ann.sc
        return _member((int(sc[SC.CUR_D]), int(sc[SC.CUR_TOTAL]), int(sc[SC.CUR_PER])),
                       self.graph.with_rows(sort_rows(ann.graph.adj)))

    def _offer(self, member) -> bool:
        """The ``member`` (:func:`_member`) takes the place of the member nearest it among
        those that score worse, where it is not one of them (module docstring); True when it
        entered."""
        pop, (score, graph, mine) = self.members, member
        worse = [k for k in range(len(pop)) if pop[k][0][:2] > score[:2]]
        if not worse or any(np.array_equal(graph.adj, m[1].adj) for m in pop):
            return False
        near = min(worse, key=lambda k: (len(mine ^ pop[k][2]), k))
        pop[near] = member
        self.sc[SC.ACCEPTED] += 1
        return True

    def _set_current(self, score) -> None:
        self.sc[SC.CUR_D], self.sc[SC.CUR_TOTAL], self.sc[SC.CUR_PER] = score

    def _track_best(self) -> None:
        lowest = min(self.scores())
        if self.members[self.lead][0][:2] != lowest:
            self.lead = self.scores().index(lowest)
        score = self.best[0]
        sc = self.sc
        if sc[SC.STEP] == 0 or score[:2] < (sc[SC.BEST_D], sc[SC.BEST_TOTAL]):
            sc[SC.BEST_D], sc[SC.BEST_TOTAL], sc[SC.BEST_PER] = score
            sc[SC.BEST_STEP] = sc[SC.STEP]

    # -- islands (MPI chains) -----------------------------------------------------------------
    def offer_best(self, rows, per) -> None:
        """The best graph of all ranks (its rows and ``(diameter, total, peripheral)``) enters
        the population as a child does (:meth:`_offer`)."""
        from golf.graph import sort_rows

        self.took = self._offer(_member(tuple(int(x) for x in per),
                                        self.graph.with_rows(sort_rows(rows))))
        if self.took:
            self._track_best()

    def restart_worst(self, rows=None, per=None) -> list:
        """Nothing restarts in a population: ``[0]`` where the last :meth:`offer_best` took
        its graph in (the exchange's log names the ranks that did), else ``[]``."""
        return [0] if self.took else []

    # -- checkpoints --------------------------------------------------------------------------
    def state(self) -> dict:
        """The members (``adj`` and ``best_adj``: their stacked rows), their scores, the
        climbed count and the best member (``rng``: a step's generator derives from the seed
        and the step), the counters."""
        adjs = np.stack([m[1].adj for m in self.members])
        return {"adj": adjs, "best_adj": adjs.copy(),
                "rng": np.array([self.seed, self.climbed, self.lead], dtype=np.int64),
                "sc": self.sc.copy(), "fl": self.fl.copy(),
                "scores": np.array([m[0] for m in self.members], dtype=np.int64)}

    def load_state(self, state: dict) -> None:
        """Take a population of the same form and size from :meth:`state`."""
        adjs = np.asarray(state["adj"])
        if adjs.shape != (len(self.members), *self.graph.adj.shape):
            raise GolfError(f"the checkpoint holds a population of shape {adjs.shape}, this "
                            f"run {(len(self.members), *self.graph.adj.shape)}; resume with "
                            f"search.members={adjs.shape[0]}")
        self.members = [_member(tuple(int(x) for x in s), self.graph.with_rows(adj.copy()))
                        for s, adj in zip(state["scores"], adjs)]
        self.climbed, self.lead = int(state["rng"][1]), int(state["rng"][2])
        self.sc[:] = state["sc"]
        self.sc[SC.STOP] = 0
        self.fl[:] = state["fl"]
