"""The driver of one search: set-up, the loop over chunks of steps, and the end.

The loop hands the annealer chunks of steps sized to last ~0.2 s (responsive to signals,
cheap to leave compiled code); between chunks it records the trace, writes checkpoints every
``checkpoint_every`` seconds, prints progress, exchanges states between MPI chains and stops
on the step or time limit, the bounds, or SIGINT/SIGTERM (after writing a checkpoint). Under
MPI every decision is taken once for all ranks (:mod:`golf.run.coordinate`).

A search with a run folder writes the files of :mod:`golf.run.folder`; one without (the Python
API's default) keeps its result in memory.
"""

from __future__ import annotations

import json
import signal
import socket
import time

from golf.anneal import FL, SC, P, StopReason, schedule
from golf.errors import GolfError, Interrupted
from golf.run.checkpoint import load_checkpoint, save_checkpoint
from golf.run.coordinate import Coordinator, collective
from golf.run.folder import CHECKPOINT, OUTPUTS, RunDir
from golf.run.outputs import plot_trace, recheck_graph, write_trace
from golf.run.phases import Phases
from golf.run.problem import Problem
from golf.run.report import Log, fmt_seconds, progress_line

__all__ = ["Search", "Interrupted", "next_chunk"]


def next_chunk(chunk: int, seconds: float) -> int:
    """The next chunk of steps after ``chunk`` steps took ``seconds``: aimed at ~0.2 s
    (responsive to signals, cheap to leave compiled code), doubling while under 0.1 s."""
    grown = chunk * 2 if seconds < 0.1 else chunk * 0.2 / max(seconds, 1e-9)
    return int(min(max(1, grown), 1_000_000))


class _Signals:
    """SIGINT/SIGTERM set a flag that the run checks between chunks of steps."""

    def __init__(self):
        self.caught = None
        self._old = {}

    def __enter__(self):
        for sig in (signal.SIGINT, signal.SIGTERM):
            try:
                self._old[sig] = signal.signal(sig, self._handler)
            except ValueError:  # not the main thread
                pass
        return self

    def _handler(self, signum, frame):
        self.caught = signum

    def __exit__(self, *exc):
        for sig, old in self._old.items():
            signal.signal(sig, old)


class Search:
    """One problem's search, from a validated :class:`golf.config.RunConfig`.

    ``run.path`` None: no run folder (nothing is written; :meth:`start` returns the summary
    and leaves the best graph in ``best_graph`` and the trace in ``trace_rows``).
    """

    def __init__(self, run, quiet=False, comm=None):
        self.run = run
        self.cfg = run.data
        self.rundir = RunDir(run.path) if run.path is not None else None
        self.quiet = quiet
        self.comm = comm
        self.co = Coordinator(comm, run.data["parallel"]["mode"] == "chains")
        self.phases = Phases(run.data)
        self.rank0 = self.co.rank0
        self.best_graph = self.best_score = None
        self.trace_rows: list = []
        self.start_note = None

    # -- entry points -----------------------------------------------------------------------
    def start(self, force=False) -> dict:
        """A fresh run; refuses a folder that holds one unless ``force``."""
        rd = self.rundir

        def prepare():
            if rd.has_run and not force:
                raise GolfError(f"{rd.path} already holds a run; continue it with 'golf resume "
                                f"{rd.path}', or start over with --force")
            rd.lock()
            for name in OUTPUTS:
                rd.file(name).unlink(missing_ok=True)
            from golf.config import dump
            from golf.io import atomic_write

            atomic_write(rd.file("run.yaml"), dump(self.cfg))

        if rd is not None:
            self.co.first(prepare)
        return self._go(resume=None)

    def resume(self) -> dict:
        """Continue the run of the folder from its checkpoint."""
        rd = self.rundir

        def prepare():
            if not rd.file(CHECKPOINT).exists():
                raise GolfError(f"{rd.path}: no {CHECKPOINT} to resume from")
            if rd.file("summary.json").exists():
                raise GolfError(f"{rd.path}: this run has finished (summary.json); nothing to "
                                f"resume")
            rd.lock()

        self.co.first(prepare)
        return self._go(resume=load_checkpoint(rd.file(CHECKPOINT)))

    def _go(self, resume) -> dict:
        rd = self.rundir
        path = rd.file("log.txt") if rd is not None and self.rank0 else None
        self.log = Log(path, quiet=self.quiet or not self.rank0)
        try:
            with _Signals() as sigs:
                self.auto_g = self._resolve_g(sigs)
                self._set_up(resume)
                stop, elapsed = self._drive(sigs)
                if stop == StopReason.INTERRUPTED:
                    self._interrupted(sigs)
                return self._finish(stop, elapsed)
        finally:
            self.log.close()
            if rd is not None and self.rank0:
                rd.unlock()

    # -- set-up -----------------------------------------------------------------------------
    def _resolve_g(self, sigs):
        """``problem.g: auto``: the trials of :mod:`golf.run.symmetry`, then the chosen g in
        the config and in run.yaml (so that a resume keeps it); None for a given g."""
        if self.cfg["problem"]["g"] != "auto":
            return None
        from golf.run.symmetry import choose_g

        choice = collective(self.comm, lambda: choose_g(
            self.cfg, self.co, self.log, lambda: sigs.caught is not None, self._start_graph))
        if choice.interrupted:
            name = {signal.SIGINT: "SIGINT", signal.SIGTERM: "SIGTERM"}.get(sigs.caught,
                                                                           "signal")
            self.log(f"{name}: stopped during the g: auto trials; nothing to resume, start "
                     f"the run again")
            raise Interrupted(128 + int(sigs.caught or signal.SIGINT))
        self.cfg["problem"]["g"] = choice.g
        if self.rundir is not None:
            from golf.config import dump
            from golf.io import atomic_write

            self.co.first(lambda: atomic_write(self.rundir.file("run.yaml"), dump(self.cfg)))
        return choice

    def _start_graph(self, g=None):
        """The start graph of ``problem.start`` for ``g`` (default: the config's): random
        (also for null), circulant (the best one :func:`golf.circulant.find_circulant` finds
        from the search seed; noted for the log in ``start_note``) or an edge-list file (in
        the problem's format: :class:`golf.run.problem.Problem`)."""
        p, s = self.cfg["problem"], self.cfg["search"]
        g = g or p["g"]
        problem = Problem(p, g)
        start = p["start"] or "random"
        if start == "random":
            return problem.random_graph(s["seed"])
        if start == "circulant":
            from golf.circulant import find_circulant

            found = find_circulant(p["n"], p["d"], seed=s["seed"])
            self.start_note = (f"start graph: circulant {found.label()} (seed {s['seed']}): "
                               f"diameter {found.diameter}, ASPL {found.aspl:.10f}")
            return found.graph(g, p["d"])
        return problem.read(start)

    def _annealer(self, graph, ev, seed):
        from golf.anneal import Annealer, search_options
        from golf.population import BatchAnnealer

        s, o = self.cfg["search"], self.cfg["output"]
        if s["method"] == "tabu":
            return self.phases.tabu(graph, ev, seed, reach=self.problem.reach(),
                                    bounds=self.bounds)
        kw = dict(steps=self.phases.annealer_steps(), seed=seed, trace_every=o["trace_every"],
                  bounds=self.bounds, reach=self.problem.reach(), **search_options(s))
        if s["batch"] > 1:
            par = self.cfg["parallel"]
            return BatchAnnealer(graph, ev, s["batch"], population=s["population"],
                                 population_every=s["population_every"], ladder=s["ladder"],
                                 exchange_every=par["exchange_every"],
                                 restart_fraction=par["restart_fraction"], **kw)
        return Annealer(graph, ev, **kw)

    def _set_up(self, resume) -> None:
        """Evaluator, annealer (from the checkpoint when resuming), exchange, temperatures;
        every rank builds its own, then all agree (a bad config stops all, printed once)."""
        from golf.evaluators import build_evaluator

        cfg, comm, log = self.cfg, self.comm, self.log
        p, s = cfg["problem"], cfg["search"]
        self.problem = Problem(p)
        self.bounds = self.problem.bounds()
        self.seed = s["seed"] + (comm.rank if self.co.chains else 0)

        def build():
            ev = build_evaluator(cfg, comm)
            won = self.auto_g.graph if self.auto_g is not None else None
            ann = self._annealer(won if won is not None else self._start_graph(), ev, self.seed)
            if resume is not None:
                where = self.rundir.file(CHECKPOINT)
                ann = self.phases.resumed(ann, ev, self.seed, resume["meta"])
                ann.load_state(self.co.my_state(resume["states"], where))
            return ann, ev

        self.ann, self.ev = collective(comm, build)
        self._announce(resume is not None)
        self.exchange = self._exchange()
        if resume is None:
            self.meta, self.trace_rows, self.elapsed0 = self._begin(), [], 0.0
            if self.auto_g is not None:  # the trials' seconds count in the run's
                self.meta["auto_g"], self.elapsed0 = self.auto_g.record, self.auto_g.seconds
        else:
            self.meta = resume["meta"]
            self.trace_rows = [list(r) for r in resume["trace"]]
            self.elapsed0 = self.meta["elapsed"]
            log(f"continuing from step {int(self.ann.sc[SC.STEP])} "
                f"({fmt_seconds(self.elapsed0)} already run)")

    def _announce(self, resuming: bool) -> None:
        cfg, comm, ev, log = self.cfg, self.comm, self.ev, self.log
        p, s = cfg["problem"], cfg["search"]
        mode = cfg["parallel"]["mode"]
        if comm is not None:
            log(f"MPI: {comm.size} ranks, parallel.mode={mode}" +
                (f" ({ev.units} work units; ranks {ev.units}-{comm.size - 1} idle)"
                 if mode == "evaluator" and ev.units < comm.size else ""))
        elif mode != "none":
            log(f"parallel.mode={mode} needs mpiexec with several ranks; running one chain")
        log(f"{'resuming' if resuming else 'starting'} {self.run.name}: {self.problem.label} "
            f"method={s['method']} seed={s['seed']}"
            + (" (+rank for each chain)" if self.co.chains else ""))
        log(f"evaluator: {ev.describe()}" + (f" (auto: {ev.auto_reason})" if ev.auto_reason
                                              else ""))
        if ev.dropped_options:
            log(f"evaluator options not taken by {ev.name}, left out: "
                f"{', '.join(ev.dropped_options)}")

    def _exchange(self):
        if not self.co.chains:
            return None
        from golf.parallel import Exchange

        par = self.cfg["parallel"]
        return Exchange(self.comm, par["restart_fraction"], par["replica_exchange"],
                        par["temperature_ladder"], self.cfg["search"]["seed"])

    def _begin(self) -> dict:
        """The start of a fresh run: the start score and the temperatures (sampled where
        'auto', one schedule for all chains); returns the run's meta data."""
        s, ann, log, b = self.cfg["search"], self.ann, self.log, self.bounds
        st = ann.start_score
        if self.start_note:
            log(self.start_note)
        log(f"start: diameter {st.diameter}, ASPL {st.aspl:.10f}, bounds diameter "
            f"{b.diameter}, ASPL {float(b.aspl):.10f}")
        won = self.auto_g.sampled if self.auto_g is not None else None
        t0, t1, how = schedule(s, lambda: won or ann.auto_temperatures(s["sample_moves"]))
        if self.comm is not None:  # rank 0's samples for every chain
            t0, t1, how = self.comm.bcast((t0, t1, how), root=0)
        log(f"temperatures {how}" if how and s["t0"] == s["t1"] == "auto" else
            f"temperatures: T0={t0:.4g}, T1={t1:.4g}" + (f" ({how})" if how else ""))
        factor = self.exchange.temperature_factor() if self.exchange else 1.0
        ann.set_temperatures(t0 * factor, t1 * factor)
        if self.exchange and self.exchange.replica:
            log(f"replica exchange: chain r anneals at {self.exchange.ladder:g}^r x the "
                f"schedule")
        return {"t0": t0, "t1": t1, "start": [st.diameter, st.total],
                "started": time.strftime("%Y-%m-%d %H:%M:%S")}

    # -- the loop ---------------------------------------------------------------------------
    def _drive(self, sigs) -> tuple[StopReason, float]:
        """Chunks of steps until a stop; returns the stop reason and the elapsed seconds."""
        o = self.cfg["output"]
        tlimit = self.cfg["search"]["time_limit"]
        t_start = time.perf_counter() - self.elapsed0
        last_ckpt = last_prog = time.perf_counter()
        chunk, self.best_written = 16, None
        evals0, t_rate = int(self.ann.sc[SC.EVALS]), time.perf_counter()
        while True:
            now = time.perf_counter()
            elapsed = now - t_start
            timed_out = tlimit is not None and elapsed >= tlimit
            stop, chunk, frac, want_ckpt = self.co.decide(
                sigs.caught is not None, int(StopReason.TIME) if timed_out else 0, chunk,
                min(1.0, elapsed / tlimit) if tlimit else 0.0,
                now - last_ckpt >= o["checkpoint_every"])
            if want_ckpt:
                self._checkpoint(elapsed)
                last_ckpt = time.perf_counter()
            if stop:
                break
            chunk, stop = self._run_chunk(chunk, frac, t_start)
            if stop:
                break
            now = time.perf_counter()
            if now - last_prog >= o["progress_every"]:
                ann = self.ann
                evals = int(ann.sc[SC.EVALS])
                rate = self.co.rate((evals - evals0) / max(now - t_rate, 1e-9))
                evals0, t_rate, last_prog = evals, now, now
                self.log.progress(progress_line(
                    ann.sc, float(ann.fl[FL.T]), int(ann.params[P.STEPS]), ann.graph.n,
                    self.bounds, rate, now - t_start, tlimit))
        elapsed = time.perf_counter() - t_start
        self._checkpoint(elapsed)
        return StopReason(stop), elapsed

    def _run_chunk(self, chunk: int, frac: float, t_start: float) -> tuple[int, int]:
        """``chunk`` steps (ending on an exchange point), the trace, the exchange; returns
        the next chunk's size and the agreed stop reason (0: go on)."""
        ann, exchange = self.ann, self.exchange
        every = self.cfg["parallel"]["exchange_every"]
        if exchange is not None:
            chunk = max(1, min(chunk, every - int(ann.sc[SC.STEP]) % every))
        t0 = time.perf_counter()
        rows = ann.run(chunk, time_frac=self.phases.time_frac(frac))
        dt = time.perf_counter() - t0
        stamp = time.perf_counter() - t_start
        self.trace_rows.extend(r + [stamp] for r in rows.tolist())
        chunk = next_chunk(chunk, dt)
        done = self.co.stop_reason(int(ann.stop_reason))
        if exchange is not None and (int(ann.sc[SC.STEP]) % every == 0 or done):
            info = exchange(ann)
            if info["restarted"] or info["swapped"]:
                self.log.to_file(f"exchange {exchange.round}: best on rank {info['best_rank']}, "
                                 f"restarted {info['restarted']}, {info['swapped']} replica "
                                 f"swaps")
        if self.phases.due(frac, done):
            self._polish()
            return 1, 0
        return chunk, done

    def _polish(self) -> None:
        """Switch to the polish phase: tabu search from the best graph found."""
        self.ann = self.phases.switch(self.ann, self.ev, self.seed, self.meta)
        s, sc = self.cfg["search"], self.ann.sc
        pairs = self.ann.graph.n * (self.ann.graph.n - 1) // 2
        self.log(f"polish: tabu search from the best graph (diameter {sc[SC.BEST_D]}, ASPL "
                 f"{sc[SC.BEST_TOTAL] / pairs:.10f}) at step {sc[SC.STEP]}, "
                 f"{s['neighbourhood']} candidates a step, tenure {s['tenure']}")

    def _checkpoint(self, elapsed: float) -> None:
        """Write the best graph, then the checkpoint (every chain's state gathered on rank 0),
        then the trace, each atomically; nothing without a run folder. Collective under MPI."""
        rows, key, _ = self.co.best(self.ann)
        states = self.co.states(self.ann)
        rd = self.rundir
        if not self.rank0 or rd is None:
            return
        # the best graph first: whenever a checkpoint exists, so does a best.edges at least
        # as new as it
        if key[:2] != self.best_written:
            best = self._graph_of(rows)
            best.check()
            self.problem.check(best)
            self.problem.write(rd.file("best.edges"), best)
            self.best_written = key[:2]
        meta = dict(self.meta, elapsed=elapsed, steps=int(self.ann.sc[SC.STEP]),
                    chains=len(states))
        save_checkpoint(rd.file(CHECKPOINT), meta, self.trace_rows, states)
        write_trace(rd.file("trace.csv"), self.trace_rows)

    def _graph_of(self, rows):
        from golf.graph import Graph, sort_rows

        g = self.ann.graph
        return Graph(g.n, g.d, g.g, sort_rows(rows))

    def _interrupted(self, sigs) -> None:
        name = {signal.SIGINT: "SIGINT", signal.SIGTERM: "SIGTERM"}.get(sigs.caught, "signal")
        where = (f"checkpoint written to {self.rundir.file(CHECKPOINT)}; continue with: golf "
                 f"resume {self.rundir.path}" if self.rundir is not None else "no run folder")
        self.log(f"{name}: stopped at step {int(self.ann.sc[SC.STEP])}; {where}")
        raise Interrupted(128 + int(sigs.caught or signal.SIGINT))

    # -- the end ----------------------------------------------------------------------------
    def _finish(self, stop: StopReason, elapsed: float) -> dict | None:
        """Re-check the best graph, write summary.json and the plot (rank 0); returns the
        summary (None on the other ranks)."""
        ann = self.ann
        rows, (best_d, best_total, best_per), best_rank = self.co.best(ann)
        per_chain, evals = self.co.chain_reports(ann, self.seed, int(ann.sc[SC.EVALS]))
        evals += self.meta.get("auto_g", {}).get("evaluations", 0)
        if not self.rank0:
            return None
        best = self.best_graph = self._graph_of(rows)
        self.problem.check(best)
        recheck = recheck_graph(best, self.cfg["problem"]["d"], self.ev.name)
        if (recheck.get("diameter"), recheck.get("total")) != (best_d, best_total):
            raise GolfError(f"internal error: the re-check of the best graph ({recheck}) "
                            f"disagrees with the search ({best_d}, {best_total}); best.edges "
                            f"kept from the last checkpoint")
        from golf.evaluators.base import Score

        self.best_score = Score(best.n, best_d, best_total, best_per)
        summary = self._summary(stop, elapsed, evals, (best_d, best_total), best_rank, recheck)
        if "auto_g" in self.meta:
            summary["auto_g"] = self.meta["auto_g"]
        if self.comm is not None:
            summary["mpi"] = {"ranks": self.comm.size, "mode": self.cfg["parallel"]["mode"]}
            if per_chain is not None:
                summary["mpi"]["chains"] = per_chain
        rd = self.rundir
        if rd is not None:
            from golf.io import atomic_write

            summary["plot"] = (plot_trace(rd.file("convergence.png"), self.trace_rows, best.n)
                               if self.cfg["output"]["plot"] else "plot disabled in the config")
            atomic_write(rd.file("summary.json"), json.dumps(summary, indent=1) + "\n")
        self._say_done(summary)
        return summary

    def _summary(self, stop, elapsed, evals, best, best_rank, recheck) -> dict:
        cfg, ann, b, meta = self.cfg, self.ann, self.bounds, self.meta
        p = cfg["problem"]
        n = p["n"]
        pairs = n * (n - 1) // 2
        best_d, best_total = best
        return {
            "name": self.run.name,
            "problem": {"n": n, "d": p["d"], "g": p["g"]} if p.get("grid") is None else
            {"grid": p["grid"], "n": n, "d": p["d"], "r": p["r"], "g": p["g"]},
            "seed": cfg["search"]["seed"],
            "method": cfg["search"]["method"],
            "backend": self.ev.name,
            "evaluator": self.ev.describe(),
            "steps": int(ann.sc[SC.STEP]),
            "evaluations": evals,
            "accepted": int(ann.sc[SC.ACCEPTED]),
            "seconds": round(elapsed, 3),
            "evaluations_per_s": evals / elapsed if elapsed > 0 else None,
            "stop_reason": stop.label,
            "start": {"diameter": meta["start"][0], "total": meta["start"][1],
                      "aspl": meta["start"][1] / pairs},
            "best": {"diameter": best_d, "total": best_total, "aspl": best_total / pairs,
                     "found_at_step": int(ann.sc[SC.BEST_STEP]) if best_rank == 0 else None,
                     "found_by_rank": best_rank},
            "bounds": {"diameter": b.diameter, "aspl": float(b.aspl),
                       "aspl_fraction": str(b.aspl), "total": b.total},
            "gaps": {"diameter": best_d - b.diameter,
                     "aspl": best_total / pairs - float(b.aspl)},
            "temperatures": {"t0": meta["t0"], "t1": meta["t1"]},
            "polish": meta.get("polish"),
            "recheck": recheck,
            "config": cfg,
            "started": meta.get("started"),
            "finished": time.strftime("%Y-%m-%d %H:%M:%S"),
            "host": socket.gethostname(),
        }

    def _say_done(self, s: dict) -> None:
        where = f"; {self.rundir.path}/best.edges" if self.rundir is not None else ""
        self.log(f"done ({s['stop_reason']}): best diameter {s['best']['diameter']}, ASPL "
                 f"{s['best']['aspl']:.10f} (gaps +{s['gaps']['diameter']}, "
                 f"+{s['gaps']['aspl']:.10f}); {s['evaluations']:,} evaluations in "
                 f"{fmt_seconds(s['seconds'])} ({s['evaluations_per_s'] or 0:,.0f}/s){where}")
        if s.get("plot", "written") != "written":
            self.log(f"convergence plot skipped: {s['plot']}")
