"""The start of a run: its form and its engine.

:meth:`Starter.choose_form` resolves ``problem.g: auto`` (the trials of
:mod:`golf.run.portfolio`, or the form a resumed run's checkpoint records);
:meth:`Starter.start_graph` builds the start graph of ``problem.start`` at a form (the
problem kind's, :meth:`golf.problems.Problem.start_graph`); :meth:`Starter.engine` builds
what the run searches with -- the evaluator and the annealer (or tabu search), from the
trials' winner, the start graph, or a checkpoint's state -- as a :class:`RunState`; and
:meth:`Starter.begin` sets a fresh run's temperatures.
"""

from __future__ import annotations

import signal
import time
from dataclasses import dataclass, field

from golf.engine.annealer import SC, schedule
from golf.engine.memetic import climb_label
from golf.errors import GolfError, Interrupted
from golf.problems import Form, problem_of
from golf.run.coordinate import collective
from golf.run.report import fmt_seconds
from golf.run.setup import build_annealer, build_evaluator, build_memetic, cfg_at, form_config

__all__ = ["RunState", "Starter"]


@dataclass
class RunState:
    """What a run searches with and has done: the ``problem`` at its form (the polish phase's
    at its symmetry), the evaluator ``ev``, the annealer ``ann`` (or tabu search), the chain's
    ``seed``, the ``exchange`` among MPI chains (None without), this rank's ``gpu``, the run's
    ``meta`` data (temperatures, start, the trials' record, the polish), its ``trace_rows``,
    and ``elapsed0``, the seconds it had run before this process (the trials', or a resumed
    run's)."""

    problem: object
    ev: object
    ann: object
    seed: int
    exchange: object = None
    gpu: object = None
    meta: dict = field(default_factory=dict)
    trace_rows: list = field(default_factory=list)
    elapsed0: float = 0.0


class Starter:
    """The start of the run of a config ``cfg`` (module docstring); ``co`` is the run's
    :class:`golf.run.coordinate.Coordinator`, ``log`` its log, ``phases`` its
    :class:`golf.run.phases.Phases`."""

    def __init__(self, cfg: dict, co, log, phases):
        self.cfg, self.co, self.comm, self.log, self.phases = cfg, co, co.comm, log, phases
        self.note = None  # the start graph's note for the log
        self.form_notes: dict = {}  # repr(form) -> the note of its start graph (trials)

    def choose_form(self, sigs, resume, resumed_from, again: str):
        """``problem.g: auto``: the trials of :mod:`golf.run.portfolio` (a resumed run takes
        the form its checkpoint records), and the chosen form in the config (an algebraic
        start's polish from the end of the trials: :meth:`_polish_at_once`); returns the
        :class:`golf.run.portfolio.Choice` of the trials, None for a given g or a resumed
        run. ``sigs.caught`` says a signal came; ``again`` says how the run starts again, for
        the log when one stops the trials (then :class:`golf.errors.Interrupted`). The caller
        writes run.yaml with the chosen form once the first checkpoint is written: a run
        stopped before it has no form chosen, and a resume starts it from the beginning,
        trials included."""
        cfg = self.cfg
        if cfg["problem"]["g"] != "auto":
            return None
        if resume is not None:
            rec = resume["meta"].get("auto_g", {})
            where = f"{resumed_from}: run.yaml says problem.g: auto and the checkpoint"
            form = Form.from_record(dict(rec.get("form") or {}, g=rec.get("g"),
                                         group=rec.get("group")), where)
            if (cfg["problem"]["n"] - form.centres) % form.g:
                raise GolfError(f"{where} records no g chosen by the trials")
            self._apply(form)
            if rec.get("batch"):  # the population the trials' measured rate sized
                self.cfg["search"]["batch"] = int(rec["batch"]["chains"])
            self._polish_at_once(form, float(rec.get("seconds") or 0.0))
            return None
        from golf.run.portfolio import choose_form

        choice = collective(self.comm, lambda: choose_form(
            cfg, self.co, self.log, lambda: sigs.caught is not None, self.start_graph))
        if choice.interrupted:
            name = {signal.SIGINT: "SIGINT", signal.SIGTERM: "SIGTERM"}.get(sigs.caught,
                                                                           "signal")
            self.log(f"{name}: stopped during the g: auto trials, before the first "
                     f"checkpoint; {again}")
            raise Interrupted(128 + int(sigs.caught or signal.SIGINT))
        self._apply(choice.form)
        self._fit(choice)
        self._polish_at_once(choice.form, choice.seconds)
        return choice

    def _apply(self, form: Form) -> None:
        for section, key, value in form.changes():
            self.cfg[section][key] = value

    def _polish_at_once(self, form: Form, seconds: float) -> None:
        """A timed run with a polish phase whose trials chose an algebraic start polishes from
        the end of the trials (``seconds``): ``search.polish`` becomes the rest of the time.
        The hill climb such a form sets (:meth:`golf.problems.Form.changes`) takes no step
        down from the construction, where the polish goes on: (64, 8), 10-minute chases on
        2 CPU cores (2 ranks) stay at ER_8-line's total 3947 until the polish, and a polish
        that leaves its basin goes down through 3917 to 3896 in about two minutes; polished
        from the end of the trials they ended at 3896, 3896 and 3947 (seeds 1, 2, 3), the
        last half polished at 3916 (seeds 1 and 2)."""
        s = self.cfg["search"]
        limit = s["time_limit"]
        if form.start is None or s["polish"] <= 0 or not limit:
            return
        rest = 1.0 - seconds / limit
        if s["polish"] < rest < 1.0:
            s["polish"] = rest
            self.log(f"polish: from the end of the trials ({fmt_seconds(seconds)}), the form "
                     f"chosen being an algebraic start")

    def _fit(self, choice) -> None:
        """``search.min_steps``: after the trials of a timed run, a population of host chains
        keeps as many chains as each make ``min_steps`` steps in the annealing time left, at
        the winning trial's measured evaluations a second (without trials, the backend's
        estimate of an evaluation); recorded in the trials' record (``batch``), logged, and
        taken again on a resume."""
        from golf.run.portfolio import fit_batch

        s, record = self.cfg["search"], choice.record
        if (not s["min_steps"] or s["steps"] or not s["time_limit"] or s["batch"] <= 1
                or s["method"] in ("tabu", "memetic")):
            return
        won = record.get("winner") or {}
        if won.get("chains") == "device":  # the chains run side by side on the device
            return
        seconds, evaluations = won.get("stepping") or (0.0, 0)
        if evaluations:
            per, how = seconds / evaluations, "the winning trial's measured rate"
        else:
            from golf.evaluators import decide

            problem = problem_of(self.cfg["problem"])
            per = decide(problem.shape, self.cfg["evaluator"]["backend"], fallback=True,
                         threads=self.cfg["evaluator"].get("threads")).seconds
            how = "the backend's estimate"
        polish = s["polish"] if s["polish"] > 0 else 0.0
        left = max(0.0, s["time_limit"] * (1.0 - polish) - choice.seconds)
        chains = fit_batch(s["batch"], left, per, s["min_steps"])
        if chains >= s["batch"]:
            return
        record["batch"] = {"chains": chains, "asked": s["batch"], "per_evaluation": per,
                           "seconds": round(left, 3), "min_steps": s["min_steps"]}
        self.log(f"population: {chains} chains of the {s['batch']} asked, so that each makes "
                 f"{s['min_steps']:,} steps (search.min_steps) in the {left:.0f} s left at "
                 f"{1.0 / per:,.0f} evaluations/s ({how})")
        s["batch"] = chains

    def start_graph(self, form=None):
        """The start graph of ``problem.start`` for ``form`` (a :class:`golf.problems.Form`,
        or an int g that is cyclic; default: the config's): the problem kind's
        (:meth:`golf.problems.Problem.start_graph`), its note for the log in ``note``."""
        if form is None or isinstance(form, int):
            problem = problem_of(self.cfg["problem"], form)
        else:
            problem = problem_of(form_config(self.cfg, form)["problem"])
        graph, self.note = problem.start_graph(problem.section["start"],
                                               self.cfg["search"]["seed"])
        if form is not None and not isinstance(form, int):
            self.form_notes[repr(form)] = self.note
        return graph

    def _annealer(self, problem, graph, ev, seed, pool=None):
        """The run's engine from ``graph``; a memetic population from ``pool`` where given
        (the graphs of the trials' winner, :attr:`golf.run.portfolio.Choice.graphs`)."""
        s = self.cfg["search"]
        if s["method"] == "tabu":
            return self.phases.tabu(graph, ev, seed, reach=problem.reach(),
                                    bounds=problem.bounds())
        if s["method"] == "memetic":
            return build_memetic(self.cfg, problem, pool or [graph], ev,
                                 steps=self.phases.annealer_steps(), seed=seed)
        return build_annealer(self.cfg, problem, graph, ev, steps=self.phases.annealer_steps(),
                              seed=seed, trace_every=self.cfg["output"]["trace_every"])

    def engine(self, auto_g, resume, resumed_from) -> RunState:
        """The evaluator and the annealer (from the checkpoint when resuming; from the trials'
        winner after ``g: auto``); every rank builds its own, then all agree (a bad config
        stops all, printed once)."""
        cfg, comm, co = self.cfg, self.comm, self.co
        # a run that had switched to search.polish_g goes on at that symmetry
        at_g = (resume["meta"].get("polish") or {}).get("g") if resume else None
        problem = problem_of(cfg["problem"], at_g)
        seed = cfg["search"]["seed"] + (comm.rank if co.chains else 0)

        def build():
            ev = build_evaluator(cfg_at(cfg, at_g), comm)
            won = auto_g.graph if auto_g is not None else None
            if won is not None:  # the winner's start, not the last trial's
                note = self.form_notes.get(repr(auto_g.form))
                self.note = (f"{note}; the run goes on from its trial's best graph"
                             if note else None)
            pool = auto_g.graphs if auto_g is not None else None
            ann = self._annealer(problem, won if won is not None else self.start_graph(at_g),
                                 ev, seed, pool)
            if resume is not None:
                ann = self.phases.resumed(ann, ev, seed, resume["meta"], problem)
                ann.load_state(co.my_state(resume["states"], resumed_from))
            return ann, ev

        ann, ev = collective(comm, build)
        state = RunState(problem, ev, ann, seed, exchange=self._exchange(),
                         gpu=getattr(ev, "device", None))
        if resume is not None:
            state.meta = resume["meta"]
            state.trace_rows = [list(r) for r in resume["trace"]]
            state.elapsed0 = state.meta["elapsed"]
        return state

    def announce(self, state: RunState, name: str, resuming: bool) -> None:
        """The log's lines on the ranks, the problem and the evaluator."""
        cfg, comm, ev, log = self.cfg, self.comm, state.ev, self.log
        s = cfg["search"]
        mode = cfg["parallel"]["mode"]
        if comm is not None:
            log(f"MPI: {comm.size} ranks, parallel.mode={mode}" +
                (f" ({ev.units} work units; ranks {ev.units}-{comm.size - 1} idle)"
                 if mode == "evaluator" and ev.units < comm.size else ""))
        elif mode != "none":
            log(f"parallel.mode={mode} needs mpiexec with several ranks; running one chain")
        log(f"{'resuming' if resuming else 'starting'} {name}: {state.problem.label} "
            f"method={s['method']} seed={s['seed']}"
            + (" (+rank for each chain)" if self.co.chains else ""))
        log(f"evaluator: {ev.describe()}" + (f" (auto: {ev.auto_reason})" if ev.auto_reason
                                              else ""))
        shared = len(getattr(state.ann, "kset", ()))
        if shared > 1:
            log(f"tabu: a step's candidates shared by {shared} threads")
        if ev.dropped_options:
            log(f"evaluator options not taken by {ev.name}, left out: "
                f"{', '.join(ev.dropped_options)}")
        if resuming:
            log(f"continuing from step {int(state.ann.sc[SC.STEP])} "
                f"({fmt_seconds(state.elapsed0)} already run)")

    def _exchange(self):
        if not self.co.chains:
            return None
        from golf.run.coordinate import Exchange

        par = self.cfg["parallel"]
        return Exchange(self.comm, par["restart_fraction"], par["replica_exchange"],
                        par["temperature_ladder"], self.cfg["search"]["seed"])

    def begin(self, state: RunState, auto_g) -> None:
        """The start of a fresh run: the start score and the temperatures (sampled where
        'auto', one schedule for all chains), into the run's meta data; the trials' seconds
        count in the run's."""
        s, ann, log = self.cfg["search"], state.ann, self.log
        b = state.problem.bounds()
        st = ann.start_score
        if self.note:
            log(self.note)
        log(f"start: diameter {st.diameter}, ASPL {st.aspl:.10f}, bounds diameter "
            f"{b.diameter}, ASPL {float(b.aspl):.10f}")
        won = auto_g.sampled if auto_g is not None else None
        count = s["sample_moves"]
        if s["time_limit"] and not s["steps"]:  # timed: samples in a twentieth of the clock
            from golf.run.portfolio import sample_count

            count = sample_count(count, s["time_limit"] / 20, state.ev.estimate_seconds)
        t0, t1, how = schedule(s, lambda: won or ann.auto_temperatures(count))
        if self.comm is not None:  # rank 0's samples for every chain
            t0, t1, how = self.comm.bcast((t0, t1, how), root=0)
        if s["method"] == "memetic":
            pool = len(auto_g.graphs or ()) if auto_g is not None else 0
            whence = (f"{pool} graphs of the trials' winner's chains" if pool else
                      "the start graph")
            log(f"memetic: {s['members']} members ({whence} and {s['members'] - max(1, pool)} "
                f"random graphs of the form, each climbed first), {s['batch']} children a "
                f"generation, {climb_label(s['local_search'], s['local_steps'])} each")
        log(f"temperatures {how}" if how and s["t0"] == s["t1"] == "auto" else
            f"temperatures: T0={t0:.4g}, T1={t1:.4g}" + (f" ({how})" if how else ""))
        if won and s["t0"] == "auto" and s["reheat"] < 1.0:  # not melting the winner again
            t0 = max(t1, t0 * s["reheat"])
            log(f"after the trials the run starts at T0={t0:.4g} (search.reheat "
                f"{s['reheat']:g} of the sampled T0)")
        ex = state.exchange
        factor = ex.temperature_factor() if ex else 1.0
        ann.set_temperatures(t0 * factor, t1 * factor)
        if ex and ex.replica:
            log(f"replica exchange: chain r anneals at {ex.ladder:g}^r x the schedule")
        state.meta = {"t0": t0, "t1": t1, "start": [st.diameter, st.total],
                      "started": time.strftime("%Y-%m-%d %H:%M:%S")}
        state.trace_rows, state.elapsed0 = [], 0.0
        if auto_g is not None:
            state.meta["auto_g"], state.elapsed0 = auto_g.record, auto_g.seconds

    def keep(self, state: RunState, auto_g) -> None:
        """Where ``search.release`` handed the run to ``g = 1``, the trials' winner's best graph
        (:attr:`golf.run.portfolio.Choice.kept`) becomes the run's best: scored at ``g = 1``
        and offered to the engine (after the duel, which compares what the methods find).
        The winner's other graphs are kept in the run's meta data (``released_starts``, base
        rows), so that the polish phase, resumed or not, takes them among its starts
        (:meth:`golf.run.loop.Loop.polish`, dealt over the ranks of chains). (64, 8), 9-minute
        chases on an H200 released from cyclic g=8: 3890 and 3890 with these starts, 3892-3905
        without them (docs/chase.md)."""
        kept = auto_g.kept if auto_g is not None else None
        if not kept:
            return
        best = kept[0]
        score = collective(self.comm, lambda: state.ev.evaluate(best))
        state.ann.offer_best(best.adj, (score.diameter, score.total, score.peripheral))
        state.meta["released_starts"] = [g.adj.tolist() for g in kept[1:]]
        pairs = best.n * (best.n - 1) // 2
        self.log(f"the trials' best graph (diameter {score.diameter}, ASPL "
                 f"{score.total / pairs:.10f}) is the run's best until it finds a better one"
                 + (f"; {len(kept) - 1} more of its trial's graphs are starts of the polish"
                    if len(kept) > 1 else ""))

    def duel(self, state: RunState, stopped) -> None:
        """``search.method: auto`` on a fresh run: the duel of :mod:`golf.run.duel` where it
        applies (else annealing, and the log says why); ``stopped()``: a signal came."""
        s = self.cfg["search"]
        if s["method"] != "auto":
            return
        from golf.run.duel import duel, duel_applies

        why = duel_applies(self.cfg, state.problem, state.ev)
        if why is not None:
            s["method"] = "sa"
            state.meta["duel"] = {"won": "sa", "why": why}
            self.log(f"method: sa, without a duel: {why}")
            return

        def memetic(graphs):
            return collective(self.comm, lambda: build_memetic(
                self.cfg, state.problem, graphs, state.ev, steps=self.phases.annealer_steps(),
                seed=state.seed))

        duel(self.cfg, state, self.co, self.log, stopped, memetic, self.phases.time_frac)

    def resumed_method(self, resume) -> bool:
        """``search.method: auto`` in a resumed run's config: the method its duel chose, from
        the checkpoint (a run killed between its first checkpoint and run.yaml). True when
        the config changed."""
        s = self.cfg["search"]
        duel = (resume["meta"].get("duel") or {}) if resume is not None else {}
        won = duel.get("won")
        if s["method"] != "auto" or won is None:
            return False
        s["method"] = won
        if "exchange_every" in duel:  # the islands' interval a winning memetic search took
            self.cfg["parallel"]["exchange_every"] = int(duel["exchange_every"])
        return True
