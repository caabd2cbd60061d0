"""The tabu search of a run: ``method: tabu``, or the polish phase of an annealing run.

``search.method: tabu`` runs a :class:`golf.engine.tabu.TabuSearch` throughout. ``search.polish:
f`` (``sa`` or ``hill``) spends the last fraction ``f`` of the budget in tabu search from the best
graph the annealer found:

* with a step budget ``S`` the annealer gets ``S - round(f S)`` steps (its cooling runs over
  them), and the tabu phase ``f S`` evaluations, i.e. ``ceil(f S / neighbourhood)`` steps of
  ``neighbourhood`` candidates; the step count of the run goes on across the switch;
* with a time limit the annealer cools over the first ``1 - f`` of it;
* the switch comes when the annealer has spent its steps or ``1 - f`` of the time limit,
  whichever is first; a run that reaches the lower bounds before it has no polish phase;
* ``f`` is read when it is used: the trials of ``g: auto`` raise it to the rest of the time
  where they choose an algebraic start (:meth:`golf.run.start.Starter.choose_form`).

``search.polish_g`` (a divisor of ``problem.g``) runs the tabu phase at that smaller symmetry:
the annealer's best graph, which is also ``polish_g``-symmetric, is taken apart into the
``n / polish_g`` base rows of the new symmetry and scored by an evaluator built for it, so
swaps the larger ``g`` forbids become candidates. At ``g = 4`` no (64, 8) run has gone below
total 3930; tabu search from such a graph (every swap scored each step, about 49,300 at
``g = 1``; tenure 16, one CPU core, 240 s) reached 3904 at ``g = 1`` and 3926 at ``g = 2``;
from another annealed graph (3950) it found nothing better at ``g = 1`` in 273 steps.

``search.polish_starts: k`` hands the tabu search up to ``k - 1`` more start graphs: the other
chains' best graphs of a population (each distinct graph once, best first, at ``polish_g``),
taken in turn after ``search.polish_patience`` steps without going below the best graph since
the current start (:class:`golf.engine.tabu.TabuSearch`'s ``pool``); after the last, the polish
goes back to the best graph it has found, kicked by ``search.polish_kick`` random admissible
swaps, then to the pool again (with one start graph: to the best graph each time). Which graph
leads down is not told by its total: from 15 annealed (64, 8) graphs at ``g = 4`` (3930 to
3972), 500 tabu steps at ``g = 1`` reached 3885 and 3889 from two of 3936 and nothing better
from seven.

``search.polish_method: memetic`` makes the polish phase a memetic search
(:class:`golf.engine.memetic.Memetic`) at ``polish_g`` instead: its population the start
graphs (the best graph, then the pool), then random graphs of the form up to
``search.members``, each climbed first; its step count goes on from the annealer's, and with a
step budget it gets the tabu phase's evaluations (generations of ``batch`` climbs of
``local_steps``).

On a compiled CPU backend whose evaluations run on one thread (a small graph), a tabu step's
candidates are shared by the process's threads (:func:`golf.run.setup.tabu_helpers`; a chase's
CPU ranks have one thread each, a GPU rank the host's cores): the same steps, faster. On 16
cores of an H200 host, one tabu step of 4096 candidates at ``g = 1`` took 2.1x less time on 16
threads than on one on (64, 8), 1.9x on (96, 3) and 7.2x on (384, 3)
(``results/search/bench_search.md``, experiment ``tabu_threads``).

The switch is recorded in the run's meta data (``polish``: the step, the annealer's best,
with ``polish_g`` the new ``g`` and with more than one start graph their number,
``starts``), which the checkpoint keeps, so that a resumed run continues
in the phase it was in (at its symmetry).
"""

from __future__ import annotations

from golf.engine.annealer import FL, SC, StopReason
from golf.run.setup import tabu_helpers

__all__ = ["Phases"]


class Phases:
    """The tabu search of a run config: throughout (``method: tabu``), or from the switch
    on where the config asks for a polish phase."""

    def __init__(self, cfg: dict):
        self.cfg, self.s = cfg, cfg["search"]
        self.trace_every = cfg["output"]["trace_every"]
        self.polishing = False

    @property
    def fraction(self) -> float:
        """The polish phase's share of the budget: ``search.polish`` as the config says now
        (the trials' choice may change it: :meth:`golf.run.start.Starter.choose_form`), 0
        under ``method: tabu``."""
        return self.s["polish"] if self.s["method"] != "tabu" else 0.0

    def _tabu_kw(self, seed: int) -> dict:
        s = self.s
        return dict(neighbourhood=s["neighbourhood"], tenure=s["tenure"],
                    aspl_priority=s["aspl_priority"], seed=seed, trace_every=self.trace_every,
                    patience=s["polish_patience"], kick=s["polish_kick"],
                    near_moves=s["near_moves"])

    def _budget(self) -> tuple[int, int]:
        from golf.engine.tabu import polish_budget

        return polish_budget(self.s["steps"], self.fraction, self.s["neighbourhood"])

    def tabu(self, graph, ev, seed: int, reach=None, bounds=None):
        """The tabu search of ``method: tabu`` (``reach``: a grid problem's length limit)."""
        from golf.engine.tabu import TabuSearch

        kw = dict(self._tabu_kw(seed), patience=0)  # one start, no returns: a polish's rule
        return TabuSearch(graph, ev, steps=self.s["steps"], reach=reach, bounds=bounds,
                          helpers=tabu_helpers(self.cfg, ev), **kw)

    def annealer_steps(self) -> int:
        """The annealer's step budget: the run's, less the polish phase's share."""
        return self._budget()[0] if self.fraction else self.s["steps"]

    def time_frac(self, frac: float) -> float:
        """The annealer's fraction of its time: the run's ``frac`` of the time limit scaled to
        the part before the polish phase."""
        if not self.fraction or self.polishing:
            return frac
        return min(1.0, frac / (1.0 - self.fraction))

    def due(self, frac: float, stop: int) -> bool:
        """Switch now? ``frac``: the elapsed fraction of the time limit; ``stop``: the stop
        reason the annealer's last chunk ended with (agreed by the ranks)."""
        if not self.fraction or self.polishing:
            return False
        return stop == StopReason.STEPS or (stop == 0 and frac >= 1.0 - self.fraction)

    def switch(self, ann, ev, seed: int, meta: dict, graph=None, pool=(), reach=None,
               problem=None):
        """The tabu search that continues ``ann`` from its best graph (``graph``: that graph
        at ``search.polish_g``, ``ev`` its evaluator), then from the graphs of ``pool`` in
        turn (``search.polish_starts``); records the switch in ``meta``. ``problem``: the
        problem at the polish's symmetry (the random members of a memetic polish)."""
        step = int(ann.sc[SC.STEP])
        meta["polish"] = {"from_step": step,
                          "annealer_best": [int(ann.sc[SC.BEST_D]), int(ann.sc[SC.BEST_TOTAL])]}
        if pool:
            meta["polish"]["starts"] = 1 + len(pool)
        if graph is not None:
            meta["polish"]["g"] = graph.g
        if self.s["polish_method"] != "tabu":
            meta["polish"]["method"] = self.s["polish_method"]
        return self._after(ann, ev, seed, step, graph, pool, reach, problem)

    def resumed(self, ann, ev, seed: int, meta: dict, problem=None):
        """``ann``, or the search of the polish phase where ``meta`` says that the run had
        switched (its state is then loaded by the caller)."""
        if "polish" not in meta:
            return ann
        return self._after(ann, ev, seed, meta["polish"]["from_step"], problem=problem)

    def _after(self, ann, ev, seed, step, graph=None, pool=(), reach=None, problem=None):
        from golf.engine.tabu import TabuSearch

        self.polishing = True
        tabu_steps = self._budget()[1]
        if self.s["polish_method"] == "memetic":
            return self._memetic(ann, ev, seed, step, tabu_steps, graph, pool, problem)
        return TabuSearch.after(ann, ev, steps=step + tabu_steps if tabu_steps else 0,
                                graph=graph, pool=pool, reach=reach,
                                helpers=tabu_helpers(self.cfg, ev), **self._tabu_kw(seed))

    def _memetic(self, ann, ev, seed, step, tabu_steps, graph, pool, problem):
        """The memetic polish (module docstring), :func:`golf.run.setup.build_memetic` at the
        polish's ``problem``: its counts go on from ``ann``'s."""
        from golf.run.setup import build_memetic

        s = self.s
        climb = s["batch"] * s["local_steps"]  # evaluations of a generation
        steps = -(-tabu_steps * s["neighbourhood"] // climb) if tabu_steps else 0
        mem = build_memetic(self.cfg, problem, [ann.best_graph() if graph is None else graph,
                                                *pool], ev,
                            steps=step + steps if steps else 0, seed=seed)
        for k in (SC.STEP, SC.ACCEPTED, SC.BEST_STEP):
            mem.sc[k] = ann.sc[k]
        mem.sc[SC.EVALS] += ann.sc[SC.EVALS]
        mem.set_temperatures(ann.fl[FL.T0], ann.fl[FL.T1])
        return mem
