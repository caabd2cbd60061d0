"""The driver of one search: :class:`Search` takes the run folder's lock, then runs the
parts in turn -- the start (:mod:`golf.run.start`: the form, the start graph, the engine),
the loop (:mod:`golf.run.loop`: chunks of steps, the polish), the records
(:mod:`golf.run.records`: checkpoints as it goes, the summary at the end) -- and releases the
lock on every way out. Under MPI every decision is taken once for all ranks
(:mod:`golf.run.coordinate`).

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
waits in a collective, before its ``finally`` -- removes it first (``Search._release``).
After an error every rank raised together, or a signal, the ranks leave together, once rank 0
has written its files and released the lock (a rank that exits non-zero first would have the
launcher kill rank 0 mid-write).
"""

from __future__ import annotations

import signal
import time

from golf.engine.annealer import SC, StopReason
from golf.errors import AgreedError, GolfError, Interrupted
from golf.run.checkpoint import Picked, load_checkpoint, pick_checkpoint
from golf.run.coordinate import Coordinator, collective, next_chunk
from golf.run.folder import CHECKPOINT, OUTPUTS, SET_ASIDE, RunDir
from golf.run.loop import POLISH_PROBE_STEPS, Loop
from golf.run.phases import Phases
from golf.run.records import Records
from golf.run.report import Log
from golf.run.start import Starter

__all__ = ["Search", "Interrupted", "next_chunk", "POLISH_PROBE_STEPS"]


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
    and leaves the best graph in ``best_graph``, its score in ``best_score`` and the trace in
    ``trace_rows``). ``state`` is the :class:`golf.run.start.RunState` once the run is set
    up.
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
        self.best_graph = self.best_score = self.state = None
        self.records = None

    @property
    def trace_rows(self) -> list:
        """The trace rows so far (:data:`golf.engine.annealer.TRACE_COLUMNS`)."""
        return self.state.trace_rows if self.state is not None else []

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
        self.records = Records(self.run, rd, self.co, self.log)
        self.lock_token = None
        exc = None
        with _Signals() as sigs:
            try:
                picked = self._prepare(prepare)
                if rd is not None and self.rank0:
                    self.log = self.records.log = Log(rd.file("log.txt"), quiet=self.quiet)
                resume = self._load(picked) if resuming else None
                starter = Starter(self.cfg, self.co, self.log, self.phases)
                chose = self.cfg["problem"]["g"] == "auto"
                again = (f"'golf resume {rd.path}' starts the run again, trials included"
                         if rd is not None else "no run folder")
                auto_g = starter.choose_form(sigs, resume, self.records.resumed_from, again)
                if starter.resumed_method(resume):  # the method the duel chose
                    chose = True
                if resume is not None and chose:  # killed between the first checkpoint and
                    self.records.run_yaml()       # run.yaml: the form chosen in it now
                built = time.perf_counter()
                self.state = state = starter.engine(auto_g, resume,
                                                    self.records.resumed_from)
                starter.announce(state, self.run.name, resume is not None)
                if resume is None:
                    starter.begin(state, auto_g)
                    # the engine's set-up (the start graph, its first evaluations, the
                    # temperature samples) is on the run's clock
                    state.elapsed0 += time.perf_counter() - built
                    starter.duel(state, lambda: sigs.caught is not None)  # method: auto
                    starter.keep(state, auto_g)  # search.release: the trials' best
                loop = Loop(self.cfg, state, self.co, self.log, self.phases, self.records)
                stop, elapsed = loop.drive(sigs, fresh=resume is None)
                if stop == StopReason.INTERRUPTED:
                    self._interrupted(sigs)
                done = self.records.finish(state, stop, elapsed)
                if done is None:  # an MPI rank other than 0
                    return None
                summary, self.best_graph, self.best_score = done
                return summary
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
        self.records.resumed_from = self.records.last_checkpoint = picked.path
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


    def _interrupted(self, sigs) -> None:
        name = {signal.SIGINT: "SIGINT", signal.SIGTERM: "SIGTERM"}.get(sigs.caught, "signal")
        where = (f"checkpoint written to {self.records.last_checkpoint}; continue with: golf "
                 f"resume {self.rundir.path}" if self.rundir is not None else "no run folder")
        self.log(f"{name}: stopped at step {int(self.state.ann.sc[SC.STEP])}; {where}")
        raise Interrupted(128 + int(sigs.caught or signal.SIGINT))
