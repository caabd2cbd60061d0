"""The driver of one search: set-up, the loop over chunks of steps, and the end.

The loop hands the annealer chunks of steps sized to last ~0.2 s (responsive to signals,
cheap to leave compiled code); between chunks it records the trace, writes checkpoints every
``checkpoint_every`` seconds, prints progress, exchanges states between MPI chains and stops
on the step or time limit, the bounds, or SIGINT/SIGTERM (after writing a checkpoint). Under
MPI every decision is taken once for all ranks (:mod:`golf.run.coordinate`).

A search with a run folder writes the files of :mod:`golf.run.folder`; one without (the Python
API's default) keeps its result in memory.

Stopping at any moment. A fresh run writes its first checkpoint (and best.edges) as soon as
its start state exists -- after the ``g: auto`` trials, the evaluator, the start graph and the
temperatures, before the first step (and before the first call of the compiled loop, which
compiles it). A run killed before that has computed nothing that a start does not compute
again: ``golf resume`` then starts it from the beginning (a step-limited run still ends where
an uninterrupted one would). From the first checkpoint on, two generations are kept
(:mod:`golf.run.checkpoint`), so a kill at any moment leaves a whole one.

Signals under ``mpiexec``: Open MPI's launcher (PRRTE, Open MPI 5) does not pass SIGINT or
SIGTERM on and wait: it sends every rank SIGCONT, 0.25 s later SIGTERM and another 0.25 s later
SIGKILL (measured with Open MPI 5.0.11, whose PRRTE offers no setting for it). A rank has a
quarter of a second after its SIGTERM: enough to finish its chunk and write the checkpoint when
it is in the loop, not when the signal finds it still setting up (importing, compiling,
sampling temperatures: ten seconds and more on a loaded machine), nor when the ranks are stuck.

Why a SIGINT to ``mpiexec`` 15 s into a two-rank chains run once in eight tries left no
checkpoint, no best.edges and a ``.lock``: the first checkpoint came only after
``checkpoint_every`` (60 s by default), so everything hung on the one written at the signal,
and either of two things kept that from being written before SIGKILL. (1) The ranks were
still setting up. (2) The ranks were stuck: the progress line (every ``progress_every``
seconds) sums the chains' rates with an ``allreduce``, and each rank decided on its own clock
whether it was time; ranks a moment apart disagreed now and then, one entered the
``allreduce`` while the other went on to the next collective, and the job hung (two of four
1.2 M-step chains runs hung that way; none since rank 0 decides,
:meth:`golf.run.coordinate.Coordinator.decide`). A hung job cannot act on a signal, and
SIGKILL took it with nothing on disk. Now a checkpoint exists from the first step on, and a
kill before it is resumed by starting again. A ``.lock`` left by SIGKILL names a process that
is gone (or a zombie: :func:`golf.run.folder._alive`), and the next ``golf run`` or
``golf resume`` on that host takes it over.

Every other way out of :meth:`Search.start` and :meth:`Search.resume` releases the lock: the
signal handlers are installed before the lock is taken (no KeyboardInterrupt or default
SIGTERM death while it is held), rank 0 releases it in a ``finally``, and under MPI a rank
that fails alone -- whose error ends the job through ``MPI_Abort``, which kills rank 0 where it
waits in a collective, before its ``finally`` -- removes it first (:meth:`Search._release`).
After an error every rank raised together, or a signal, the ranks leave together, once rank 0
has written its files and released the lock (a rank that exits non-zero first would have the
launcher kill rank 0 mid-write).
"""

from __future__ import annotations

import filecmp
import json
import math
import os
import signal
import socket
import time

from golf.engine.annealer import FL, SC, P, StopReason, schedule
from golf.errors import AgreedError, GolfError, Interrupted
from golf.run.checkpoint import Picked, load_checkpoint, pick_checkpoint, save_checkpoint
from golf.run.coordinate import Coordinator, collective, next_chunk
from golf.run.folder import CHECKPOINT, OUTPUTS, SET_ASIDE, RunDir
from golf.run.outputs import plot_trace, recheck_graph, write_trace
from golf.run.phases import Phases
from golf.run.problem import Problem
from golf.run.report import Log, fmt_seconds, progress_line

__all__ = ["Search", "Interrupted", "next_chunk", "POLISH_PROBE_STEPS"]

# the tabu steps timed on each scoring path before a polish under a GPU backend picks one
POLISH_PROBE_STEPS = 3


def _os_error(rd, what: str, fn):
    """``fn()``, an OSError (a full disk, a folder made read-only) raised as a GolfError that
    names the run folder."""
    try:
        return fn()
    except OSError as exc:
        raise GolfError(f"{rd.path}: {what}: {exc}") from None


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
        self.form_notes = {}  # repr(form) -> the note of its start graph (trials)
        self.resumed_from = self.last_checkpoint = None

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
            for aside in rd.path.glob(f"{SET_ASIDE}*.edges"):
                aside.unlink()
            from golf.config import dump
            from golf.io import atomic_write

            atomic_write(rd.file("run.yaml"), dump(self.cfg))
            return Picked()

        return self._go(prepare if rd is not None else None)

    def resume(self) -> dict:
        """Continue the run of the folder from its checkpoint: ``checkpoint.npz``, or where
        that one is damaged or missing, the one before it (``checkpoint.prev.npz``; the log
        says so). A run that stopped before its first checkpoint starts from the beginning.
        See :func:`golf.run.checkpoint.pick_checkpoint`.

        What a fall-back means for the other files: ``trace.csv`` is rewritten from the
        checkpoint resumed from (the rows after it are dropped, and written again as the
        steps are run again), and a ``best.edges`` that is not the best graph of that
        checkpoint (the newer one's, or one written just before a kill) is kept as
        ``best.before-resume.edges`` before best.edges is rewritten; ``log.txt`` keeps all
        its lines. A step-limited run still ends exactly where an uninterrupted one would.
        """
        rd = self.rundir

        def prepare():
            if rd.file("summary.json").exists():
                raise GolfError(f"{rd.path}: this run has finished (summary.json); nothing to "
                                f"resume")
            rd.lock()
            return pick_checkpoint(rd.file(CHECKPOINT))

        return self._go(prepare, resuming=True)

    def _go(self, prepare, resuming=False) -> dict:
        """The run, from ``prepare`` (rank 0 takes the lock, returns the checkpoint to resume
        from) to the summary; every way out releases the lock (module docstring)."""
        rd = self.rundir
        self.log = Log(None, quiet=self.quiet or not self.rank0)
        self.lock_token = None
        exc = None
        with _Signals() as sigs:
            try:
                picked = self._prepare(prepare)
                if rd is not None and self.rank0:
                    self.log = Log(rd.file("log.txt"), quiet=self.quiet)
                resume = self._load(picked) if resuming else None
                self.auto_g = self._resolve_g(sigs, resume)
                self._set_up(resume)
                stop, elapsed = self._drive(sigs, fresh=resume is None)
                if stop == StopReason.INTERRUPTED:
                    self._interrupted(sigs)
                return self._finish(stop, elapsed)
            except BaseException as e:
                exc = e
                raise
            finally:
                self.log.close()
                self._release(exc)

    def _prepare(self, prepare) -> Picked:
        """Rank 0's ``prepare`` (a GolfError there stops every rank; an OSError becomes one
        naming the folder); every rank gets its answer and the lock's text."""
        if prepare is None:
            return Picked()
        rd = self.rundir

        def guarded():
            if not self.rank0:
                return None
            try:
                return prepare()
            except OSError as exc:
                raise GolfError(f"{rd.path}: {exc}") from None

        picked = collective(self.comm, guarded)
        if self.comm is not None:
            # the others need only to know what to load and the lock's text
            slim = None if picked is None else Picked(picked.path, None, picked.notes)
            slim, token = self.comm.bcast((slim, rd.token), root=0)
            if not self.rank0:
                picked = slim
            self.lock_token = token
        return picked

    def _load(self, picked: Picked):
        """The checkpoint ``picked`` names, on every rank (rank 0 has read it already); the
        notes of the pick go to the log. None: the run had not written its first checkpoint,
        and starts from the beginning."""
        for note in picked.notes:
            self.log(note)
        if picked.path is None:
            self.log("no checkpoint yet (the run stopped before its first one): starting the "
                     "run from the beginning")
            return None
        self.resumed_from = self.last_checkpoint = picked.path
        return collective(self.comm, lambda: picked.data if picked.data is not None else
                          load_checkpoint(picked.path))

    def _release(self, exc) -> None:
        """Give the lock back on the way out (``exc``: the exception leaving, or None).

        Rank 0 holds it and removes it. Under MPI, a rank other than 0 that fails alone
        (anything but an error all ranks raised together, or a signal) is about to end the job
        with ``MPI_Abort`` (:func:`golf.parallel.abort_on_error`), which kills rank 0 where it
        waits in a collective, before its ``finally`` runs: that rank removes the lock, if it
        is still this run's. After an agreed error or a signal the ranks leave together, once
        rank 0 has released it."""
        rd, comm = self.rundir, self.comm
        together = exc is None or isinstance(exc, (AgreedError, Interrupted))
        if rd is not None:
            if self.rank0:
                rd.unlock()
            elif not together and self.lock_token is not None:
                rd.unlock_if(self.lock_token)
        if comm is not None and together and exc is not None:
            comm.Barrier()

    # -- set-up -----------------------------------------------------------------------------
    def _resolve_g(self, sigs, resume):
        """``problem.g: auto``: the trials of :mod:`golf.run.portfolio` (a resumed run takes
        the form its checkpoint records), and the chosen form (g and group) in the config;
        None for a given g or a resumed run. run.yaml gets the chosen form once the first
        checkpoint is written (:meth:`_first_checkpoint`): a run stopped before it has no form
        chosen, and a resume starts it from the beginning, trials included."""
        if self.cfg["problem"]["g"] != "auto":
            return None
        if resume is not None:
            auto = resume["meta"].get("auto_g", {})
            g = auto.get("g")
            c = (auto.get("form") or {}).get("centres", 0)
            if (not isinstance(g, int) or g < 1 or not isinstance(c, int) or c < 0
                    or (self.cfg["problem"]["n"] - c) % g):
                raise GolfError(f"{self.resumed_from}: run.yaml says problem.g: auto and the "
                                f"checkpoint records no g chosen by the trials")
            self.cfg["problem"]["g"] = g
            self.cfg["problem"]["group"] = auto.get("group")
            self.cfg["problem"]["centres"] = c
            sw = (auto.get("form") or {}).get("switches")
            if sw:  # a host-switch problem's number of switches
                self.cfg["problem"].update(switches=sw, n=sw)
            self._write_run_yaml()  # killed between the first checkpoint and run.yaml
            return None
        from golf.run.portfolio import choose_form

        choice = collective(self.comm, lambda: choose_form(
            self.cfg, self.co, self.log, lambda: sigs.caught is not None, self._start_graph))
        if choice.interrupted:
            name = {signal.SIGINT: "SIGINT", signal.SIGTERM: "SIGTERM"}.get(sigs.caught,
                                                                           "signal")
            again = (f"'golf resume {self.rundir.path}' starts the run again, trials included"
                     if self.rundir is not None else "no run folder")
            self.log(f"{name}: stopped during the g: auto trials, before the first "
                     f"checkpoint; {again}")
            raise Interrupted(128 + int(sigs.caught or signal.SIGINT))
        for section, key, value in choice.form.changes():
            self.cfg[section][key] = value
        return choice

    def _start_graph(self, form=None):
        """The start graph of ``problem.start`` for ``form`` (a :class:`golf.run.portfolio.Form`,
        or an int g that is cyclic; default: the config's): random (also for null), circulant
        (the best one :func:`golf.starts.circulant.find_circulant` finds from the search seed;
        noted for the log in ``start_note``) or an edge-list file (in the problem's format:
        :class:`golf.run.problem.Problem`)."""
        if form is None or isinstance(form, int):
            p = self.cfg["problem"]
            g = form or p["g"]
            problem = Problem(p, g)
        else:
            p = form.config(self.cfg)["problem"]
            g = form.g
            problem = Problem(p)
        self.start_note = None
        graph = self._start_of(p, g, problem)
        if form is not None and not isinstance(form, int):
            self.form_notes[repr(form)] = self.start_note
        return graph

    def _start_of(self, p, g, problem):
        """:meth:`_start_graph`'s graph of the problem section ``p`` at ``g``."""
        s = self.cfg["search"]
        start = p["start"] or "random"
        if start == "random":
            return problem.random_graph(s["seed"])
        if start == "circulant":
            from golf.starts.circulant import find_circulant

            if problem.group is not None:
                raise GolfError("problem.start: circulant starts are cyclic, not "
                                f"{problem.group.label}")

            found = find_circulant(p["n"], p["d"], seed=s["seed"])
            self.start_note = (f"start graph: circulant {found.label()} (seed {s['seed']}): "
                               f"diameter {found.diameter}, ASPL {found.aspl:.10f}")
            return found.graph(g, p["d"])
        if start == "algebraic" and p.get("hosts") is not None:
            from golf.hostswitch.ports import PortGraph
            from golf.starts.switch_wiring import polarity_ports

            q = round((math.sqrt(4 * p["n"] - 3) - 1) / 2)  # n = q^2 + q + 1 switches
            self.start_note = (f"start graph: the polarity graph ER_{q} as the {p['n']} "
                               f"switches, the hosts spread evenly, free ports joined")
            return PortGraph(p["hosts"], polarity_ports(p["hosts"], p["d"], q, s["seed"]))
        if start == "algebraic":
            from golf.starts.algebraic import algebraic_graph

            graph, self.start_note = algebraic_graph(p["n"], p["d"], seed=s["seed"])
            return graph
        return problem.read(start)

    def _annealer(self, graph, ev, seed):
        from golf.engine.population import annealer_for

        s = self.cfg["search"]
        if s["method"] == "tabu":
            return self.phases.tabu(graph, ev, seed, reach=self.problem.reach(),
                                    bounds=self.bounds)
        return annealer_for(self.cfg, graph, ev, steps=self.phases.annealer_steps(), seed=seed,
                            trace_every=self.cfg["output"]["trace_every"], bounds=self.bounds,
                            reach=self.problem.reach())

    def _set_up(self, resume) -> None:
        """Evaluator, annealer (from the checkpoint when resuming), exchange, temperatures;
        every rank builds its own, then all agree (a bad config stops all, printed once)."""
        from golf.run.problem import build_evaluator

        cfg, comm, log = self.cfg, self.comm, self.log
        p, s = cfg["problem"], cfg["search"]
        # a run that had switched to search.polish_g goes on at that symmetry
        at_g = (resume["meta"].get("polish") or {}).get("g") if resume else None
        self.problem = Problem(p, at_g)
        self.bounds = self.problem.bounds()
        self.seed = s["seed"] + (comm.rank if self.co.chains else 0)

        def build():
            ev = build_evaluator(self._cfg_at(at_g), comm)
            won = self.auto_g.graph if self.auto_g is not None else None
            if won is not None:  # the winner's start, not the last trial's
                note = self.form_notes.get(repr(self.auto_g.form))
                self.start_note = (f"{note}; the run goes on from its trial's best graph"
                                   if note else None)
            ann = self._annealer(won if won is not None else self._start_graph(at_g), ev,
                                 self.seed)
            if resume is not None:
                ann = self.phases.resumed(ann, ev, self.seed, resume["meta"])
                ann.load_state(self.co.my_state(resume["states"], self.resumed_from))
            return ann, ev

        self.ann, self.ev = collective(comm, build)
        self.gpu = getattr(self.ev, "device", None)  # this rank's GPU (summary.json: mpi.gpus)
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
        s = cfg["search"]
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
        from golf.run.coordinate import Exchange

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
        if won and s["t0"] == "auto" and s["reheat"] < 1.0:  # not melting the winner again
            t0 = max(t1, t0 * s["reheat"])
            log(f"after the trials the run starts at T0={t0:.4g} (search.reheat "
                f"{s['reheat']:g} of the sampled T0)")
        factor = self.exchange.temperature_factor() if self.exchange else 1.0
        ann.set_temperatures(t0 * factor, t1 * factor)
        if self.exchange and self.exchange.replica:
            log(f"replica exchange: chain r anneals at {self.exchange.ladder:g}^r x the "
                f"schedule")
        return {"t0": t0, "t1": t1, "start": [st.diameter, st.total],
                "started": time.strftime("%Y-%m-%d %H:%M:%S")}

    # -- the loop ---------------------------------------------------------------------------
    def _drive(self, sigs, fresh: bool) -> tuple[StopReason, float]:
        """Chunks of steps until a stop; returns the stop reason and the elapsed seconds. A
        fresh run writes its first checkpoint before the first step; a resumed one makes
        best.edges and trace.csv those of its checkpoint."""
        o = self.cfg["output"]
        tlimit = self.cfg["search"]["time_limit"]
        chunk, self.best_written, self.dirty = 16, None, False
        if fresh:
            self._first_checkpoint()
        elif self.rundir is not None:
            self._match_files()
        t_start = time.perf_counter() - self.elapsed0
        last_ckpt = last_prog = time.perf_counter()
        evals0, t_rate = int(self.ann.sc[SC.EVALS]), time.perf_counter()
        while True:
            now = time.perf_counter()
            elapsed = now - t_start
            timed_out = tlimit is not None and elapsed >= tlimit
            # rank 0's clock decides for all (Coordinator.decide: the progress line's rate
            # is a collective; a rank's own clock would make the ranks disagree, and hang)
            stop, chunk, frac, want_ckpt, want_prog = self.co.decide(
                sigs.caught is not None, int(StopReason.TIME) if timed_out else 0, chunk,
                min(1.0, elapsed / tlimit) if tlimit else 0.0,
                now - last_ckpt >= o["checkpoint_every"], now - last_prog >= o["progress_every"])
            if want_ckpt and self.dirty:
                self._checkpoint(elapsed)
                last_ckpt = time.perf_counter()
            if stop:
                break
            chunk, stop = self._run_chunk(chunk, frac, t_start)
            if stop:
                break
            if want_prog:
                now = time.perf_counter()
                ann = self.ann
                evals = int(ann.sc[SC.EVALS])
                rate = self.co.rate((evals - evals0) / max(now - t_rate, 1e-9))
                evals0, t_rate, last_prog = evals, now, now
                self.log.progress(progress_line(
                    ann.sc, float(ann.fl[FL.T]), int(ann.params[P.STEPS]), self.problem.order,
                    self.bounds, rate, now - t_start, tlimit))
        elapsed = time.perf_counter() - t_start
        if self.dirty:  # not when nothing ran since the last one (a signal before any step)
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
        self.dirty = True
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
            self._polish_scoring(t_start)
            return 1, 0
        return chunk, done

    def _polish(self) -> None:
        """Switch to the polish phase: tabu search from the best graph found (at
        ``search.polish_g`` where that is smaller than the run's g)."""
        s, graph = self.cfg["search"], None
        pg = s["polish_g"]
        starts = self.ann.best_graphs(s["polish_starts"])
        if pg is not None and pg != self.cfg["problem"]["g"]:
            from golf.graph import Graph

            before = self.problem.grid
            self._use_g(pg)
            edges = [b.edges() for b in starts]
            if before is not None:  # the cells numbered for the new rotation (golf.grid)
                cells = before.cells()
                ids = self.problem.grid.vertex_of()[cells[:, 1], cells[:, 0]]
                edges = [ids[e] for e in edges]
            starts = [Graph.from_edges(e, n=b.n, g=pg, d=b.d) for e, b in zip(edges, starts)]
            graph = starts[0]
        self.ann = self.phases.switch(self.ann, self.ev, self.seed, self.meta, graph=graph,
                                      pool=starts[1:], reach=self.problem.reach())
        sc = self.ann.sc
        pairs = self.problem.order * (self.problem.order - 1) // 2
        self.log(f"polish: tabu search from the best graph (diameter {sc[SC.BEST_D]}, ASPL "
                 f"{sc[SC.BEST_TOTAL] / pairs:.10f}) at step {sc[SC.STEP]}, "
                 f"{s['neighbourhood']} candidates a step, tenure {s['tenure']}"
                 + (f", then from {len(starts) - 1} more graphs of the chains in turn"
                    if len(starts) > 1 else "")
                 + f", the next start after {s['polish_patience']} steps without going below "
                   f"the current one's best; back at the best graph, {s['polish_kick']} kick "
                   f"steps"
                 + (f", at g={pg}: {self.ev.describe()}" if graph is not None else ""))

    def _polish_scoring(self, t_start: float) -> None:
        """Under a GPU backend (not split over ranks), score the polish's candidates on the CPU
        instead (bitset's compiled loop) where that is faster, as timed on the first
        :data:`POLISH_PROBE_STEPS` steps of each: the two take the same steps
        (:meth:`golf.engine.tabu.TabuSearch.scored_by`), so the choice changes the speed, not the
        run. A step scores thousands of small graphs: on (64, 8), with 5 runs sharing an H200, the
        GPU took 13.6 steps/s and one core 60.5; on (384, 3) the GPU 13.8, the core 5.0
        (``results/quality/``, 2026-11-27). Not tried where the CPU's estimate
        (:meth:`golf.evaluators.bitset.BitsetEvaluator.estimate`) is over a second a step. A
        resumed polish scores with the run's backend."""
        from golf.evaluators import cpu_alternative
        from golf.run.problem import build_evaluator

        ann, ev = self.ann, self.ev
        if not ev.supports.gpu or self.cfg["parallel"]["mode"] == "evaluator":
            return
        g = ann.graph.g
        cfg = self._cfg_at(g)
        other = cpu_alternative(Problem(cfg["problem"]).shape, ann.neighbourhood)
        if other is None:
            return
        try:
            cpu = build_evaluator(dict(cfg, evaluator={"backend": other, "threads": 1}))
            twin = ann.scored_by(cpu)
        except GolfError:
            return
        seconds, rows = [], []
        for search in (ann, twin):  # from the same state: the twin is a copy
            search.run(1)  # compiled and warm
            t0 = time.perf_counter()
            rows.append(search.run(POLISH_PROBE_STEPS))
            seconds.append(time.perf_counter() - t0)
        stamp = time.perf_counter() - t_start
        kept = 1 if seconds[1] < seconds[0] else 0
        self.trace_rows.extend(r + [stamp] for r in rows[kept].tolist())
        if kept:
            self.ann, self.ev = twin, cpu
        rates = [POLISH_PROBE_STEPS / max(t, 1e-9) for t in seconds]
        self.log(f"polish: {rates[0]:.1f} steps/s on {ev.name}, {rates[1]:.1f} on bitset "
                 f"(one core): scored on {'bitset' if kept else ev.name}")

    def _use_g(self, g: int) -> None:
        """The run from here on at symmetry ``g`` (a divisor of its g): the problem and an
        evaluator built for it (every rank together). The config keeps the g it asked for."""
        from golf.run.problem import build_evaluator

        self.problem = Problem(self.cfg["problem"], g)
        self.ev = collective(self.comm, lambda: build_evaluator(self._cfg_at(g), self.comm))

    def _cfg_at(self, g):
        """The config with ``problem.g`` = ``g`` (None: the config itself)."""
        if g is None or g == self.cfg["problem"]["g"]:
            return self.cfg
        # another g (the polish phase's, 1 with a group or centres): cyclic, no centres
        return dict(self.cfg, problem=dict(self.cfg["problem"], g=g, group=None, centres=0))

    def _checkpoint(self, elapsed: float) -> None:
        """Write the best graph, then the checkpoint (every chain's state gathered on rank 0),
        then the trace, each atomically; nothing without a run folder. Collective under MPI:
        every rank returns once rank 0 has written (or all raise its error)."""
        rows, key, _ = self.co.best(self.ann)
        states = self.co.states(self.ann)
        self.dirty = False
        rd = self.rundir
        if rd is None:
            return

        def write():
            # the best graph first: whenever a checkpoint exists, so does a best.edges at
            # least as new as it
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
            self.last_checkpoint = rd.file(CHECKPOINT)

        self.co.first(lambda: _os_error(rd, "could not write the checkpoint", write))

    def _first_checkpoint(self) -> None:
        """A fresh run's checkpoint of its start state; then run.yaml gets the g that
        ``g: auto`` chose (so that a run.yaml with the chosen g always has a checkpoint
        beside it, which holds the trials' record)."""
        self._checkpoint(self.elapsed0)
        if self.auto_g is not None:
            self._write_run_yaml()

    def _write_run_yaml(self) -> None:
        """run.yaml from the config as it runs now (rank 0; collective)."""
        from golf.config import dump
        from golf.io import atomic_write

        rd = self.rundir
        if rd is not None:
            self.co.first(lambda: _os_error(rd, "could not write run.yaml", lambda: atomic_write(
                rd.file("run.yaml"), dump(self.cfg))))

    def _match_files(self) -> None:
        """A resumed run's best.edges and trace.csv made those of the checkpoint it resumed
        from. A best.edges that differs (the newest checkpoint was damaged and this is the one
        before it, or the run was killed between writing best.edges and its checkpoint) is
        kept as ``best.before-resume.edges``: it may be better than anything the resumed run
        finds (with a time limit; a step-limited run finds it again)."""
        rows, key, _ = self.co.best(self.ann)
        rd = self.rundir

        def write():
            best = self._graph_of(rows)
            best.check()
            self.problem.check(best)
            ours, old = rd.file(".best.edges.resumed.tmp"), rd.file("best.edges")
            self.problem.write(ours, best)
            if old.exists() and not filecmp.cmp(old, ours, shallow=False):
                aside = rd.set_aside_name()
                os.replace(old, aside)
                self.log(f"best.edges is not the best graph of {self.resumed_from.name} "
                         f"(diameter {key[0]}, total {key[1]}): kept as {aside.name}")
            os.replace(ours, old)
            self.best_written = key[:2]
            write_trace(rd.file("trace.csv"), self.trace_rows)

        self.co.first(lambda: _os_error(rd, "could not write best.edges", write))

    def _graph_of(self, rows):
        from golf.graph import sort_rows

        return self.ann.graph.with_rows(sort_rows(rows))

    def _interrupted(self, sigs) -> None:
        name = {signal.SIGINT: "SIGINT", signal.SIGTERM: "SIGTERM"}.get(sigs.caught, "signal")
        where = (f"checkpoint written to {self.last_checkpoint}; continue with: golf "
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
        gpus = self.comm.allgather(self.gpu) if self.comm is not None else [self.gpu]
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

        self.best_score = Score(self.problem.order, best_d, best_total, best_per)
        summary = self._summary(stop, elapsed, evals, (best_d, best_total), best_rank, recheck)
        if "auto_g" in self.meta:
            summary["auto_g"] = self.meta["auto_g"]
        if self.comm is not None:
            summary["mpi"] = {"ranks": self.comm.size, "mode": self.cfg["parallel"]["mode"]}
            if any(x is not None for x in gpus):  # each rank's GPU
                summary["mpi"]["gpus"] = gpus
            if per_chain is not None:
                summary["mpi"]["chains"] = per_chain
        rd = self.rundir
        if rd is not None:
            from golf.io import atomic_write

            summary["plot"] = (plot_trace(rd.file("convergence.png"), self.trace_rows,
                                          self.problem.order)
                               if self.cfg["output"]["plot"] else "plot disabled in the config")
            atomic_write(rd.file("summary.json"), json.dumps(summary, indent=1) + "\n")
        self._say_done(summary)
        return summary

    def _summary(self, stop, elapsed, evals, best, best_rank, recheck) -> dict:
        cfg, ann, b, meta = self.cfg, self.ann, self.bounds, self.meta
        p = cfg["problem"]
        n = self.problem.order
        pairs = n * (n - 1) // 2
        best_d, best_total = best
        if p.get("hosts") is not None:
            problem = {"kind": "host-switch", "hosts": n, "radix": p["d"],
                       "switches": p["n"]}
        elif p.get("grid") is None:
            problem = {"n": n, "d": p["d"], "g": p["g"]}
        else:
            problem = {"grid": p["grid"], "n": n, "d": p["d"], "r": p["r"], "g": p["g"]}
        return {
            "name": self.run.name,
            "problem": problem,
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
