"""What a run leaves: the files of its folder as it goes -- ``best.edges``, ``checkpoint.npz``,
``trace.csv`` and ``run.yaml`` (:mod:`golf.run.folder`), each written atomically by rank 0 --
and its summary at the end, once the best graph is re-checked. A run without a folder keeps
its result in memory only.

Every method is collective under MPI: every rank calls it and returns once rank 0 has
written (or all raise its error).
"""

from __future__ import annotations

import filecmp
import json
import os
import socket
import time

from golf.engine.annealer import SC
from golf.errors import GolfError
from golf.run.checkpoint import save_checkpoint
from golf.run.folder import CHECKPOINT
from golf.run.outputs import plot_trace, recheck_graph, write_trace
from golf.run.report import fmt_seconds

# the most of a run's time that periodic checkpoints spend writing best.edges, once a write
# takes a second or more (10^6 vertices: ~1 s; 10^7: ~10 s)
EDGES_SHARE = 0.05
# the most of a run's time that the re-check of its best graph may take (the SciPy reference
# only where it is predicted to fit; golf.evaluators.recheck_backend), and at least this
RECHECK_SHARE, RECHECK_MIN_S = 0.01, 2.0

__all__ = ["Records"]


def _os_error(rd, what: str, fn):
    """``fn()``, an OSError (a full disk, a folder made read-only) raised as a GolfError that
    names the run folder."""
    try:
        return fn()
    except OSError as exc:
        raise GolfError(f"{rd.path}: {what}: {exc}") from None


class Records:
    """The records of the run ``run`` (a :class:`golf.config.RunConfig`) in its folder
    ``rundir`` (None: no folder), its ranks' :class:`golf.run.coordinate.Coordinator`
    ``co`` and its log.

    ``dirty``: steps have run since the last checkpoint; ``last_checkpoint``: the newest one
    written or resumed from; ``resumed_from``: the checkpoint a resumed run started from."""

    def __init__(self, run, rundir, co, log):
        self.run, self.cfg, self.rundir, self.co, self.log = run, run.data, rundir, co, log
        self.comm = co.comm
        self.best_written = None  # (diameter, total) of the best.edges written
        self.dirty = False
        self.last_checkpoint = self.resumed_from = None
        self.edges_written = None  # (when, seconds) of the last best.edges written

    def run_yaml(self) -> None:
        """run.yaml from the config as it runs now."""
        from golf.config import dump
        from golf.io import atomic_write

        rd = self.rundir
        if rd is not None:
            self.co.first(lambda: _os_error(rd, "could not write run.yaml", lambda: atomic_write(
                rd.file("run.yaml"), dump(self.cfg))))

    def checkpoint(self, state, elapsed: float, final: bool = True) -> None:
        """Write the best graph, then the checkpoint (every chain's state gathered on rank 0),
        then the trace, each atomically. A periodic checkpoint (not ``final``) of a graph
        whose best.edges takes long to write (a million vertices and more) leaves the file
        as it is until :data:`EDGES_SHARE` of the time since its last write has covered
        that write's seconds; the checkpoint holds the best graph, and a resume or the
        final checkpoint writes the file."""
        rows, key, _ = self.co.best(state.ann)
        states = self.co.states(state.ann)
        self.dirty = False
        rd = self.rundir
        if rd is None:
            return

        def write():
            # the best graph first: whenever a checkpoint exists, so does a best.edges at
            # least as new as it (but for a periodic one that leaves a slow file as it is)
            if key[:2] != self.best_written and (final or self._edges_due()):
                tic = time.perf_counter()
                best = self.graph_of(state, rows)
                best.check()
                state.problem.check_graph(best)
                state.problem.write(rd.file("best.edges"), best)
                self.best_written = key[:2]
                self.edges_written = (tic, time.perf_counter() - tic)
            meta = dict(state.meta, elapsed=elapsed, steps=int(state.ann.sc[SC.STEP]),
                        chains=len(states))
            save_checkpoint(rd.file(CHECKPOINT), meta, state.trace_rows, states)
            write_trace(rd.file("trace.csv"), state.trace_rows)
            self.last_checkpoint = rd.file(CHECKPOINT)

        self.co.first(lambda: _os_error(rd, "could not write the checkpoint", write))

    def _edges_due(self) -> bool:
        """Whether a periodic checkpoint writes best.edges now: its last write took less than
        a second, or the time since has made it :data:`EDGES_SHARE` of the whole."""
        if self.edges_written is None:
            return True
        at, took = self.edges_written
        return took < 1.0 or took <= EDGES_SHARE * (time.perf_counter() - at)

    def first(self, state, chose_form: bool) -> None:
        """A fresh run's checkpoint of its start state; then, where ``g: auto``'s trials chose
        the form, run.yaml with it (so that a run.yaml with the chosen form always has a
        checkpoint beside it, which holds the trials' record)."""
        self.checkpoint(state, state.elapsed0)
        if chose_form:
            self.run_yaml()

    def match_files(self, state) -> None:
        """A resumed run's best.edges and trace.csv made those of the checkpoint it resumed
        from. A best.edges that differs (the newest checkpoint was damaged and this is the one
        before it, or the run was killed between writing best.edges and its checkpoint) is
        kept as ``best.before-resume.edges``: it may be better than anything the resumed run
        finds (with a time limit; a step-limited run finds it again)."""
        rows, key, _ = self.co.best(state.ann)
        rd = self.rundir

        def write():
            best = self.graph_of(state, rows)
            best.check()
            state.problem.check_graph(best)
            ours, old = rd.file(".best.edges.resumed.tmp"), rd.file("best.edges")
            state.problem.write(ours, best)
            if old.exists() and not filecmp.cmp(old, ours, shallow=False):
                aside = rd.set_aside_name()
                os.replace(old, aside)
                self.log(f"best.edges is not the best graph of {self.resumed_from.name} "
                         f"(diameter {key[0]}, total {key[1]}): kept as {aside.name}")
            os.replace(ours, old)
            self.best_written = key[:2]
            write_trace(rd.file("trace.csv"), state.trace_rows)

        self.co.first(lambda: _os_error(rd, "could not write best.edges", write))

    @staticmethod
    def graph_of(state, rows):
        from golf.graph import sort_rows

        return state.ann.graph.with_rows(sort_rows(rows))

    def finish(self, state, stop, elapsed: float):
        """Re-check the best graph, write summary.json and the plot (rank 0); returns
        ``(summary, best graph, its Score)`` (None on the other ranks)."""
        from golf.evaluators.base import Score

        ann, problem = state.ann, state.problem
        rows, (best_d, best_total, best_per), best_rank = self.co.best(ann)
        per_chain, evals = self.co.chain_reports(ann, state.seed, int(ann.sc[SC.EVALS]))
        evals += state.meta.get("auto_g", {}).get("evaluations", 0)
        gpus = self.comm.allgather(state.gpu) if self.comm is not None else [state.gpu]
        if not self.co.rank0:
            return None
        best = self.graph_of(state, rows)
        problem.check_graph(best)
        limit = self.cfg["search"].get("time_limit")
        recheck = recheck_graph(best, problem.d, state.ev.name,
                                max(RECHECK_MIN_S, RECHECK_SHARE * limit) if limit else None)
        if (recheck.get("diameter"), recheck.get("total")) != (best_d, best_total):
            raise GolfError(f"internal error: the re-check of the best graph ({recheck}) "
                            f"disagrees with the search ({best_d}, {best_total}); best.edges "
                            f"kept from the last checkpoint")
        score = Score(problem.order, best_d, best_total, best_per)
        summary = self._summary(state, stop, elapsed, evals, (best_d, best_total), best_rank,
                                recheck)
        for key in ("auto_g", "duel"):  # the trials' record, the duel's (method: auto)
            if key in state.meta:
                summary[key] = state.meta[key]
        if self.comm is not None:
            summary["mpi"] = {"ranks": self.comm.size, "mode": self.cfg["parallel"]["mode"]}
            if any(x is not None for x in gpus):  # each rank's GPU
                summary["mpi"]["gpus"] = gpus
            if per_chain is not None:
                summary["mpi"]["chains"] = per_chain
        rd = self.rundir
        if rd is not None:
            from golf.io import atomic_write

            summary["plot"] = (plot_trace(rd.file("convergence.png"), state.trace_rows,
                                          problem.order)
                               if self.cfg["output"]["plot"] else "plot disabled in the config")
            atomic_write(rd.file("summary.json"), json.dumps(summary, indent=1) + "\n")
        self._say_done(summary)
        return summary, best, score

    def _summary(self, state, stop, elapsed, evals, best, best_rank, recheck) -> dict:
        cfg, ann, meta, problem = self.cfg, state.ann, state.meta, state.problem
        b = problem.bounds()
        n = problem.order
        pairs = n * (n - 1) // 2
        best_d, best_total = best
        return {
            "name": self.run.name,
            "problem": problem_record(cfg["problem"]),
            "seed": cfg["search"]["seed"],
            "method": cfg["search"]["method"],
            "backend": state.ev.name,
            "evaluator": state.ev.describe(),
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
            # the run's clock when the best graph was found (None: another rank's)
            "best_found_at_seconds": (found_at(state.trace_rows, best) if best_rank == 0
                                      else None),
            "memetic": memetic_record(cfg["search"], int(ann.sc[SC.STEP]), elapsed),
            "bounds": {"diameter": b.diameter, "aspl": float(b.aspl),
                       "aspl_fraction": str(b.aspl), "total": b.total},
            "gaps": {"diameter": best_d - b.diameter,
                     "aspl": best_total / pairs - float(b.aspl)},
            "temperatures": {"t0": meta["t0"], "t1": meta["t1"]},
            # the warm-up's compilation before the trials, outside the run's clock
            "compile_seconds": meta.get("auto_g", {}).get("compile_seconds"),
            # the run's clock when its first step (after the trials) ended
            "first_step_seconds": meta.get("first_step_seconds"),
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


def found_at(rows, best) -> float | None:
    """The run's clock at the first trace row that holds the best graph's ``(diameter,
    total)`` (None where no row does: a run of fewer steps than a trace row's)."""
    for row in rows:
        if (int(row[4]), int(row[5])) == tuple(best):
            return round(float(row[-1]), 3)
    return None


def memetic_record(search: dict, steps: int, seconds: float) -> dict | None:
    """A memetic run's population in summary.json: its members, children a generation, climb,
    and how many generations and children it made (the first steps climb the start graphs,
    ``batch`` at a time), children a second; None for another method."""
    if search["method"] != "memetic":
        return None
    batch, members = search["batch"], search["members"]
    generations = max(0, steps - -(-members // batch))
    return {"members": members, "children_a_generation": batch,
            "local_search": search["local_search"], "local_steps": search["local_steps"],
            "generations": generations,
            "children": generations * batch,
            "children_per_s": generations * batch / seconds if seconds > 0 else None}


def problem_record(section: dict) -> dict:
    """The problem's record in summary.json: its kind's, at the config's form (the run's g,
    not a polish phase's)."""
    from golf.problems import problem_of

    return problem_of(section).summary()
