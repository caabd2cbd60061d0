"""A search run from a config: its folder, progress, checkpoints, outputs, resume and export.

A run folder ``<output.dir>/<name>/`` holds:

``run.yaml``        the config as run (defaults filled in, overrides applied)
``log.txt``         what the run printed, with times
``checkpoint.npz``  the whole search state, rewritten atomically every ``checkpoint_every``
                    seconds, on SIGINT/SIGTERM and at the end
``best.edges``      the best graph so far in the competition's format (atomic; re-checked)
``trace.csv``       step, temperature, current and best score every ``trace_every`` steps
``summary.json``    the result (written at the end)
``convergence.png`` the best and current ASPL over the steps (when matplotlib is installed)
``.lock``           present while a process works in the folder

Nothing is ever half-written: every file is written to a temporary file and renamed. A run
killed even with SIGKILL keeps its last checkpoint and best graph; ``golf resume DIR`` goes on
from the checkpoint and, for a step-limited run, reaches exactly the result of an
uninterrupted one.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import signal
import socket
import sys
import time
from pathlib import Path

import numpy as np

from golf.errors import AgreedError, GolfError

__all__ = ["run_config", "resume_run", "export_run", "RunDir", "Search"]

CHECKPOINT = "checkpoint.npz"
STOP_NAMES = {0: "running", 1: "step limit", 2: "lower bounds reached", 3: "no valid swap",
              4: "time limit", 5: "interrupted"}


# ------------------------------------------------------------------------------------------
class RunDir:
    """A run folder with an exclusive lock."""

    def __init__(self, path):
        self.path = Path(path)

    def file(self, name) -> Path:
        return self.path / name

    @property
    def has_run(self) -> bool:
        return self.file(CHECKPOINT).exists() or self.file("summary.json").exists()

    def lock(self) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        lock = self.file(".lock")
        me = f"{os.getpid()} {socket.gethostname()} {time.strftime('%Y-%m-%d %H:%M:%S')}\n"
        for _ in range(2):
            try:
                fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                try:
                    pid, host, *when = lock.read_text().split()
                    pid = int(pid)
                except (OSError, ValueError):
                    pid, host, when = -1, "?", []
                if host == socket.gethostname() and pid > 0 and _alive(pid):
                    raise GolfError(f"{self.path} is in use by another golf run (pid {pid}, "
                                    f"since {' '.join(when)}); wait for it or use another "
                                    f"output folder") from None
                if host != socket.gethostname():
                    raise GolfError(f"{self.path} is locked by a golf run on {host} (pid "
                                    f"{pid}); if that run is gone, delete {lock}") from None
                lock.unlink(missing_ok=True)  # stale: its process is gone
                continue
            with os.fdopen(fd, "w") as f:
                f.write(me)
            return
        raise GolfError(f"could not lock {self.path}")

    def unlock(self) -> None:
        self.file(".lock").unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Log:
    """Lines to the terminal (unless quiet) and to log.txt; a live progress line on a TTY."""

    def __init__(self, path=None, quiet=False, prefix=""):
        self.quiet = quiet
        self.prefix = prefix
        self.file = open(path, "a", buffering=1) if path else None
        self.tty = sys.stdout.isatty()
        self._live = False

    def __call__(self, msg: str, live: bool = False) -> None:
        stamp = time.strftime("%H:%M:%S")
        if self.file and not live:
            self.file.write(f"{stamp} {self.prefix}{msg}\n")
        if self.quiet:
            return
        if live and self.tty:
            sys.stdout.write("\r" + msg[:160].ljust(160))
            sys.stdout.flush()
            self._live = True
            return
        if self._live:
            sys.stdout.write("\n")
            self._live = False
        print(f"{self.prefix}{msg}", flush=True)

    def progress_to_file(self, msg: str) -> None:
        if self.file:
            self.file.write(f"{time.strftime('%H:%M:%S')} {self.prefix}{msg}\n")

    def close(self) -> None:
        if self._live and not self.quiet:
            sys.stdout.write("\n")
        if self.file:
            self.file.close()


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


def fmt_seconds(s: float) -> str:
    if not math.isfinite(s):
        return "?"
    s = int(s)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


# ------------------------------------------------------------------------------------------
class Search:
    """One problem's search, from a validated config, in a run folder."""

    def __init__(self, run, quiet=False, comm=None):
        self.run = run
        self.cfg = run.data
        self.rundir = RunDir(run.path)
        self.quiet = quiet
        self.comm = comm
        self.rank0 = comm is None or comm.rank == 0

    # -- set-up -----------------------------------------------------------------------------
    def _start_graph(self):
        from golf.generate import random_graph
        from golf.graph import Graph
        from golf.io import read_edges

        p, s = self.cfg["problem"], self.cfg["search"]
        if p["start"]:
            el = read_edges(p["start"])
            if el.duplicates:
                line, first, u, v = el.duplicates[0]
                raise GolfError(f"{p['start']}:{line}: duplicate edge '{u} {v}'")
            if el.max_id >= p["n"]:
                raise GolfError(f"{p['start']}: vertex id {el.max_id} >= n={p['n']}")
            return Graph.from_edges(el.edges, n=p["n"], g=p["g"], d=p["d"], source=p["start"],
                                    lines=el.lines)
        return random_graph(p["n"], p["d"], p["g"], seed=s["seed"])

    def _evaluator(self):
        from golf.evaluators import choose_backend, make_evaluator

        p, e = self.cfg["problem"], self.cfg["evaluator"]
        backend, why = e["backend"], None
        split = self.cfg["parallel"]["mode"] == "evaluator" and self.comm is not None
        if backend == "auto":
            backend, why = choose_backend(p["n"], p["d"], p["g"], e["threads"],
                                          self.comm.size if split else 1)
        opts = {}
        if e["threads"]:
            opts["threads"] = e["threads"]
        if e["chunk_words"] and backend in ("bitset", "gpu-bitset"):
            opts["chunk_words"] = e["chunk_words"]
        if backend == "gpu-bitset":
            opts["batch"] = self.cfg["search"]["batch"]
            opts.pop("threads", None)
        if split:
            opts["comm"] = self.comm
        ev = make_evaluator(backend, p["n"], p["d"], p["g"], **opts)
        return ev, why

    def _annealer(self, graph, ev, seed):
        from golf.anneal import Annealer, BatchAnnealer

        s, o = self.cfg["search"], self.cfg["output"]
        kw = dict(steps=s["steps"], method=s["method"], aspl_priority=s["aspl_priority"],
                  tiebreak=s["tiebreak"], peripheral_weight=s["peripheral_weight"], seed=seed,
                  trace_every=o["trace_every"])
        if s["batch"] > 1:
            return BatchAnnealer(graph, ev, s["batch"],
                                 exchange_every=self.cfg["parallel"]["exchange_every"], **kw)
        return Annealer(graph, ev, **kw)

    # -- the run ----------------------------------------------------------------------------
    def _rank0_first(self, fn):
        """Run ``fn`` on rank 0 only; a GolfError there is raised on every rank."""
        _collective(self.comm, lambda: fn() if self.rank0 else None)

    def start(self, force=False):
        rd = self.rundir

        def prepare():
            if rd.has_run and not force:
                raise GolfError(f"{rd.path} already holds a run; continue it with 'golf resume "
                                f"{rd.path}', or start over with --force")
            rd.lock()
            for name in (CHECKPOINT, "summary.json", "best.edges", "trace.csv", "log.txt",
                         "convergence.png"):
                rd.file(name).unlink(missing_ok=True)
            from golf.config import dump
            from golf.io import atomic_write

            atomic_write(rd.file("run.yaml"), dump(self.cfg))

        self._rank0_first(prepare)
        return self._go(resume=None)

    def resume(self):
        rd = self.rundir

        def prepare():
            if not rd.file(CHECKPOINT).exists():
                raise GolfError(f"{rd.path}: no {CHECKPOINT} to resume from")
            if rd.file("summary.json").exists():
                raise GolfError(f"{rd.path}: this run has finished (summary.json); nothing to "
                                f"resume")
            rd.lock()

        self._rank0_first(prepare)
        return self._go(resume=load_checkpoint(rd.file(CHECKPOINT)))

    def _go(self, resume):
        rd = self.rundir
        log = Log(rd.file("log.txt") if self.rank0 else None, quiet=self.quiet or not self.rank0)
        try:
            with _Signals() as sigs:
                return self._loop(resume, log, sigs)
        finally:
            log.close()
            if self.rank0:
                rd.unlock()

    @property
    def chains(self) -> bool:
        return self.comm is not None and self.cfg["parallel"]["mode"] == "chains"

    def _loop(self, resume, log, sigs):
        from golf.anneal import SC
        from golf.bounds import moore_bounds
        from golf.parallel import Exchange

        cfg, comm = self.cfg, self.comm
        p, s = cfg["problem"], cfg["search"]
        bounds = moore_bounds(p["n"], p["d"])
        seed = s["seed"] + (comm.rank if self.chains else 0)
        # set-up on every rank, then agree: a bad config stops every rank, printed once
        def setup():
            ev, why = self._evaluator()
            ann = self._annealer(self._start_graph(), ev, seed)
            if resume is not None:
                ann.load_state(self._my_state(resume))
            return ann, ev, why

        ann, ev, why = _collective(comm, setup)
        mode = cfg["parallel"]["mode"]
        if comm is not None:
            log(f"MPI: {comm.size} ranks, parallel.mode={mode}" +
                (f" ({ev.units} work units; ranks {ev.units}-{comm.size - 1} idle)"
                 if mode == "evaluator" and ev.units < comm.size else ""))
        elif mode != "none":
            log(f"parallel.mode={mode} needs mpiexec with several ranks; running one chain")
        log(f"{'resuming' if resume else 'starting'} {self.run.name}: n={p['n']} d={p['d']} "
            f"g={p['g']} method={s['method']} seed={s['seed']}"
            + (" (+rank for each chain)" if self.chains else ""))
        log(f"evaluator: {ev.describe()}" + (f" (auto: {why})" if why else ""))
        exchange = None
        if self.chains:
            par = cfg["parallel"]
            exchange = Exchange(comm, par["restart_fraction"], par["replica_exchange"],
                                par["temperature_ladder"], s["seed"])
        trace_rows = []
        elapsed0 = 0.0
        if resume is None:
            st = ann.start_score
            log(f"start: diameter {st.diameter}, ASPL {st.aspl:.10f}, bounds diameter "
                f"{bounds.diameter}, ASPL {float(bounds.aspl):.10f}")
            how = None
            if s["t0"] == "auto" or s["t1"] == "auto":
                t0, t1, how = ann.auto_temperatures(s["sample_moves"])
                t0 = t0 if s["t0"] == "auto" else s["t0"]
                t1 = min(t1 if s["t1"] == "auto" else s["t1"], t0)
            else:
                t0, t1 = s["t0"], s["t1"]
            if comm is not None:  # one schedule for all chains (rank 0's samples)
                t0, t1, how = comm.bcast((t0, t1, how), root=0)
            log(f"temperatures {how}" if how and s["t0"] == s["t1"] == "auto" else
                f"temperatures: T0={t0:.4g}, T1={t1:.4g}" + (f" ({how})" if how else ""))
            factor = exchange.temperature_factor() if exchange else 1.0
            ann.set_temperatures(t0 * factor, t1 * factor)
            if exchange and exchange.replica:
                log(f"replica exchange: chain r anneals at {exchange.ladder:g}^r x the schedule")
            meta = {"t0": t0, "t1": t1, "start": [st.diameter, st.total],
                    "started": time.strftime("%Y-%m-%d %H:%M:%S")}
        else:
            trace_rows = [list(r) for r in resume["trace"]]
            elapsed0 = resume["meta"]["elapsed"]
            meta = resume["meta"]
            log(f"continuing from step {int(ann.sc[SC.STEP])} ({fmt_seconds(elapsed0)} already run)")
        return self._drive(ann, ev, bounds, meta, trace_rows, elapsed0, log, sigs, exchange)

    def _my_state(self, resume) -> dict:
        """This rank's state from a checkpoint (chains: one per rank; else the one state)."""
        states = resume["states"]
        if self.chains:
            if len(states) != self.comm.size:
                raise GolfError(f"{self.rundir.file(CHECKPOINT)} holds {len(states)} chains; "
                                f"resume it with {len(states)} MPI ranks (got {self.comm.size})")
            return states[self.comm.rank]
        if len(states) != 1:
            raise GolfError(f"{self.rundir.file(CHECKPOINT)} holds {len(states)} chains; resume "
                            f"it under mpiexec -n {len(states)} with parallel.mode=chains")
        return states[0]

    def _drive(self, ann, ev, bounds, meta, trace_rows, elapsed0, log, sigs, exchange):
        from golf.anneal import SC

        cfg, rd, comm = self.cfg, self.rundir, self.comm
        s, o = cfg["search"], cfg["output"]
        tlimit = s["time_limit"]
        every = cfg["parallel"]["exchange_every"]
        t_start = time.perf_counter() - elapsed0
        last_ckpt = last_prog = time.perf_counter()
        chunk = 16
        best_written = None
        evals0, t_rate = int(ann.sc[SC.EVALS]), time.perf_counter()
        while True:
            # one decision for all ranks: stop? how long a chunk? checkpoint now?
            now = time.perf_counter()
            elapsed = now - t_start
            local = 5 if sigs.caught is not None else 0
            want_ckpt = now - last_ckpt >= o["checkpoint_every"]
            stop = 4 if tlimit is not None and elapsed >= tlimit else 0
            frac = min(1.0, elapsed / tlimit) if tlimit else 0.0
            if comm is not None:
                local = comm.allreduce(local, op=_max_op())
                stop, chunk, frac, want_ckpt = comm.bcast((stop, chunk, frac, want_ckpt), 0)
            stop = local or stop
            if want_ckpt:
                best_written = self._checkpoint(ann, meta, trace_rows, elapsed, best_written)
                last_ckpt = time.perf_counter()
            if stop:
                break
            if exchange is not None:  # end chunks on exchange points
                chunk = max(1, min(chunk, every - int(ann.sc[SC.STEP]) % every))
            t0 = time.perf_counter()
            rows = ann.run(chunk, time_frac=frac)
            dt = time.perf_counter() - t0
            stamp = time.perf_counter() - t_start
            trace_rows.extend(r + [stamp] for r in rows.tolist())
            # aim at ~0.2 s per chunk: responsive to signals, cheap to leave compiled code
            chunk = int(min(max(1, chunk * 2 if dt < 0.1 else chunk * 0.2 / max(dt, 1e-9)),
                            1_000_000))
            done = ann.stop_reason
            if comm is not None:
                done = comm.allreduce(done, op=_max_op())
            if exchange is not None and (int(ann.sc[SC.STEP]) % every == 0 or done):
                info = exchange(ann)
                if info["restarted"] or info["swapped"]:
                    log.progress_to_file(f"exchange {exchange.round}: best on rank "
                                         f"{info['best_rank']}, restarted {info['restarted']}, "
                                         f"{info['swapped']} replica swaps")
            if done:
                stop = done
                break
            now = time.perf_counter()
            if now - last_prog >= o["progress_every"]:
                evals = int(ann.sc[SC.EVALS])
                rate = (evals - evals0) / max(now - t_rate, 1e-9)
                evals0, t_rate = evals, now
                if comm is not None and self.chains:
                    rate = comm.allreduce(rate)
                self._progress(ann, bounds, rate, now - t_start, tlimit, log)
                last_prog = now
        elapsed = time.perf_counter() - t_start
        best_written = self._checkpoint(ann, meta, trace_rows, elapsed, best_written)
        if stop == 5:
            name = {signal.SIGINT: "SIGINT", signal.SIGTERM: "SIGTERM"}.get(sigs.caught, "signal")
            log(f"{name}: stopped at step {int(ann.sc[SC.STEP])}; checkpoint written to "
                f"{rd.file(CHECKPOINT)}; continue with: golf resume {rd.path}")
            raise Interrupted(128 + int(sigs.caught or signal.SIGINT))
        return self._finish(ann, ev, bounds, meta, trace_rows, elapsed, stop, log)

    def _progress(self, ann, bounds, rate, elapsed, tlimit, log):
        from golf.anneal import FL, P, SC

        sc, n = ann.sc, ann.graph.n
        pairs = n * (n - 1) / 2
        steps = int(ann.params[P.STEPS])
        step = int(sc[SC.STEP])
        left = []
        if steps:
            left.append((steps - step) / max(rate, 1e-9))
        if tlimit:
            left.append(tlimit - elapsed)
        eta = min(left) if left else math.inf
        done = f"{step:,}" + (f"/{steps:,} ({100 * step / steps:.1f}%)" if steps else "")
        gap_d = int(sc[SC.BEST_D]) - (bounds.diameter or 0)
        gap_a = sc[SC.BEST_TOTAL] / pairs - float(bounds.aspl or 0)
        msg = (f"step {done}  T={ann.fl[FL.T]:.3g}  cur D={sc[SC.CUR_D]} "
               f"ASPL={sc[SC.CUR_TOTAL] / pairs:.6f}  best D={sc[SC.BEST_D]} "
               f"ASPL={sc[SC.BEST_TOTAL] / pairs:.6f} (gap +{gap_d}, +{gap_a:.6f})  "
               f"{rate:,.0f} ev/s  ETA {fmt_seconds(eta)}")
        log(msg, live=True)
        log.progress_to_file(msg)

    def _global_best(self, ann):
        """(best rows, (diameter, total, peripheral), rank) over all chains (rank 0 gets the
        rows; the other ranks get None)."""
        from golf.anneal import SC

        mine = (int(ann.sc[SC.BEST_D]), int(ann.sc[SC.BEST_TOTAL]), int(ann.sc[SC.BEST_PER]))
        if not self.chains:
            return ann.best_adj, mine, 0
        comm = self.comm
        allbest = comm.allgather(mine)
        root = min(range(comm.size), key=lambda r: allbest[r][:2])
        if root == 0:
            rows = ann.best_adj.copy() if comm.rank == 0 else None
        elif comm.rank == root:
            comm.Send(ann.best_adj.copy(), dest=0, tag=77)
            rows = None
        elif comm.rank == 0:
            rows = np.empty_like(ann.best_adj)
            comm.Recv(rows, source=root, tag=77)
        else:
            rows = None
        return rows, allbest[root], root

    def _checkpoint(self, ann, meta, trace_rows, elapsed, best_written):
        """Write the best graph, then the checkpoint (every chain's state gathered on rank 0),
        then the trace, each atomically. Collective under MPI."""
        from golf.anneal import SC, TRACE_COLUMNS
        from golf.graph import Graph, sort_rows
        from golf.io import atomic_write, write_edges

        rows, key, _ = self._global_best(ann)
        states = [ann.state()]
        if self.chains:
            states = self.comm.gather(states[0], root=0)
        if not self.rank0:
            return best_written
        rd = self.rundir
        # the best graph first: whenever a checkpoint exists, so does a best.edges at least
        # as new as it
        if key[:2] != best_written:
            g = ann.graph
            best = Graph(g.n, g.d, g.g, sort_rows(rows))
            best.check()
            write_edges(rd.file("best.edges"), best.edges())
        meta = dict(meta, elapsed=elapsed, steps=int(ann.sc[SC.STEP]), chains=len(states))
        buf = io.BytesIO()
        arrays = {f"r{r}_{k}": v for r, st in enumerate(states) for k, v in st.items()}
        np.savez(buf, meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8),
                 trace=np.asarray(trace_rows, dtype=np.float64).reshape(-1, len(TRACE_COLUMNS)),
                 **arrays)
        atomic_write(rd.file(CHECKPOINT), buf.getvalue())
        write_trace(rd.file("trace.csv"), trace_rows)
        return key[:2]

    def _finish(self, ann, ev, bounds, meta, trace_rows, elapsed, stop, log):
        from golf.anneal import SC
        from golf.graph import Graph, sort_rows
        from golf.io import atomic_write

        rd, cfg, comm = self.rundir, self.cfg, self.comm
        p = cfg["problem"]
        rows, (best_d, best_total, _), best_rank = self._global_best(ann)
        evals = int(ann.sc[SC.EVALS])
        per_chain = None
        if self.chains:
            per_chain = comm.gather({"rank": comm.rank, "seed": cfg["search"]["seed"] + comm.rank,
                                     "best": [int(ann.sc[SC.BEST_D]), int(ann.sc[SC.BEST_TOTAL])],
                                     "evaluations": evals}, root=0)
            evals = comm.allreduce(evals)
        if not self.rank0:
            return None
        g = ann.graph
        best = Graph(g.n, g.d, g.g, sort_rows(rows))
        n = best.n
        pairs = n * (n - 1) // 2
        recheck = recheck_graph(best, p["d"], ev.name)
        if (recheck.get("diameter"), recheck.get("total")) != (best_d, best_total):
            raise GolfError(f"internal error: the re-check of the best graph ({recheck}) "
                            f"disagrees with the search ({best_d}, {best_total}); best.edges "
                            f"kept from the last checkpoint")
        best_aspl = best_total / pairs
        summary = {
            "name": self.run.name,
            "problem": {"n": n, "d": p["d"], "g": p["g"]},
            "seed": cfg["search"]["seed"],
            "method": cfg["search"]["method"],
            "backend": ev.name,
            "evaluator": ev.describe(),
            "steps": int(ann.sc[SC.STEP]),
            "evaluations": evals,
            "accepted": int(ann.sc[SC.ACCEPTED]),
            "seconds": round(elapsed, 3),
            "evaluations_per_s": evals / elapsed if elapsed > 0 else None,
            "stop_reason": STOP_NAMES.get(stop, str(stop)),
            "start": {"diameter": meta["start"][0], "total": meta["start"][1],
                      "aspl": meta["start"][1] / pairs},
            "best": {"diameter": best_d, "total": best_total, "aspl": best_aspl,
                     "found_at_step": int(ann.sc[SC.BEST_STEP]) if best_rank == 0 else None,
                     "found_by_rank": best_rank},
            "bounds": {"diameter": bounds.diameter, "aspl": float(bounds.aspl),
                       "aspl_fraction": str(bounds.aspl), "total": bounds.total},
            "gaps": {"diameter": best_d - bounds.diameter,
                     "aspl": best_aspl - float(bounds.aspl)},
            "temperatures": {"t0": meta["t0"], "t1": meta["t1"]},
            "recheck": recheck,
            "config": cfg,
            "started": meta.get("started"),
            "finished": time.strftime("%Y-%m-%d %H:%M:%S"),
            "host": socket.gethostname(),
        }
        if comm is not None:
            summary["mpi"] = {"ranks": comm.size, "mode": cfg["parallel"]["mode"]}
            if per_chain is not None:
                summary["mpi"]["chains"] = per_chain
        plot_note = (plot_trace(rd.file("convergence.png"), trace_rows, n)
                     if cfg["output"]["plot"] else "plot disabled in the config")
        summary["plot"] = plot_note
        atomic_write(rd.file("summary.json"), json.dumps(summary, indent=1) + "\n")
        log(f"done ({summary['stop_reason']}): best diameter {best_d}, ASPL {best_aspl:.10f} "
            f"(gaps +{summary['gaps']['diameter']}, +{summary['gaps']['aspl']:.10f}); "
            f"{evals:,} evaluations in {fmt_seconds(elapsed)} "
            f"({summary['evaluations_per_s'] or 0:,.0f}/s); {rd.path}/best.edges")
        if plot_note != "written":
            log(f"convergence plot skipped: {plot_note}")
        return summary


class Interrupted(Exception):
    """SIGINT/SIGTERM stopped the run after writing a checkpoint; ``code`` is the exit status
    (128 + the signal)."""

    def __init__(self, code):
        super().__init__(code)
        self.code = code


# ------------------------------------------------------------------------------------------
def load_checkpoint(path) -> dict:
    """``{"meta", "trace", "states"}``: ``states[r]`` is chain ``r``'s state (one entry
    unless the run had parallel chains)."""
    try:
        with np.load(path) as z:
            meta = json.loads(bytes(z["meta"]).decode())
            trace = z["trace"]
            states = {}
            for key in z.files:
                if key.startswith("r") and "_" in key:
                    r, name = key[1:].split("_", 1)
                    states.setdefault(int(r), {})[name] = z[key]
    except (OSError, ValueError, KeyError) as exc:
        raise GolfError(f"{path}: unreadable checkpoint ({exc})") from None
    return {"meta": meta, "trace": trace, "states": [states[r] for r in sorted(states)]}


def _max_op():
    from mpi4py import MPI

    return MPI.MAX


def write_trace(path, rows) -> None:
    from golf.anneal import TRACE_COLUMNS
    from golf.io import atomic_write

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(TRACE_COLUMNS)
    for r in rows:
        w.writerow([int(r[0]), f"{r[1]:.6g}", *(int(x) for x in r[2:8]), f"{r[8]:.3f}"])
    atomic_write(path, buf.getvalue())


def recheck_graph(graph, d, backend) -> dict:
    """Re-score a result with the SciPy reference (or, where that would take too long, the
    other CPU backend) and apply the validation rules; raise on any problem."""
    from golf.evaluators import make_evaluator

    if graph.max_degree > d:
        raise GolfError(f"internal error: best graph has degree {graph.max_degree} > d={d}")
    graph.check()
    work = graph.m * graph.n * max(graph.d, 1)
    if work <= 2_000_000_000:
        try:
            import scipy  # noqa: F401

            name = "reference"
        except ImportError:
            name = "bfs" if backend != "bfs" else "bitset"
    else:
        name = "bfs" if backend != "bfs" else "bitset"
    t = time.perf_counter()
    score = make_evaluator(name, graph.n, graph.d, graph.g).evaluate(graph)
    if not score.connected:
        raise GolfError("internal error: the best graph is disconnected")
    return {"backend": name, "diameter": score.diameter, "total": score.total,
            "seconds": round(time.perf_counter() - t, 3)}


def plot_trace(path, rows, n) -> str:
    """convergence.png from the trace; returns 'written' or why not."""
    if not rows:
        return "no trace rows"
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed (pip install 'golf[plot]')"
    from golf.io import atomic_write

    a = np.asarray(rows)
    pairs = n * (n - 1) / 2
    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    ax.plot(a[:, 0], a[:, 3] / pairs, lw=0.6, alpha=0.6, label="current ASPL")
    ax.plot(a[:, 0], a[:, 5] / pairs, lw=1.4, label="best ASPL")
    ax.set_xlabel("step")
    ax.set_ylabel("ASPL")
    ax2 = ax.twinx()
    ax2.step(a[:, 0], a[:, 4], where="post", color="tab:red", lw=1, label="best diameter")
    ax2.set_ylabel("diameter")
    ax2.yaxis.get_major_locator().set_params(integer=True)
    ax.legend(loc="upper right")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    atomic_write(path, buf.getvalue())
    return "written"


# ------------------------------------------------------------------------------------------
def _collective(comm, fn):
    """``fn()`` on every rank; a GolfError on any rank becomes the same AgreedError on all
    (printed once, no rank left waiting)."""
    from golf.parallel import agree

    out, err = None, None
    try:
        out = fn()
    except GolfError as exc:
        err = str(exc)
    err = agree(comm, err)
    if err is not None:
        raise (AgreedError if comm is not None else GolfError)(err)
    return out


def run_config(path, overrides=(), quiet=False, force=False, only=None, comm=None) -> list:
    """Run every problem of a config file; returns their summaries."""
    from golf.config import load_config

    runs = _collective(comm, lambda: load_config(path, overrides, only))
    out = []
    for run in runs:
        out.append(Search(run, quiet=quiet, comm=comm).start(force=force))
    return out


def read_run_config(run_dir):
    """The RunConfig of a run folder, from the ``run.yaml`` it was run with."""
    import yaml

    from golf.config import RunConfig, validate

    cfg_path = RunDir(run_dir).file("run.yaml")
    if not cfg_path.exists():
        raise GolfError(f"{run_dir}: no run.yaml here; is this a golf run folder?")
    try:
        data = yaml.safe_load(cfg_path.read_text())
    except yaml.YAMLError as exc:
        raise GolfError(f"{cfg_path}: not valid YAML: {exc}") from None
    data = validate(data, lambda key: str(cfg_path))
    return RunConfig(data["name"], data, Path(run_dir), str(cfg_path))


def resume_run(run_dir, quiet=False, comm=None) -> dict:
    run = _collective(comm, lambda: read_run_config(run_dir))
    return Search(run, quiet=quiet, comm=comm).resume()


def export_run(run_dir, output=None, gz=False) -> tuple[Path, dict]:
    """Copy a run's best graph into a submission file, re-checked; named in the competition's
    style ``n{n}d{d}k{diameter}l{floor(100*ASPL)}.edges`` when ``output`` is a folder or None.
    Returns the file written and the re-check."""
    from golf.graph import Graph
    from golf.io import read_edges, write_edges

    rd = RunDir(run_dir)
    best = rd.file("best.edges")
    if not best.exists():
        raise GolfError(f"{run_dir}: no best.edges (has this run written a checkpoint yet?)")
    p = read_run_config(run_dir).data["problem"]
    el = read_edges(best)
    graph = Graph.from_edges(el.edges, n=p["n"], g=p["g"], d=p["d"], source=str(best),
                             lines=el.lines)
    check = recheck_graph(graph, p["d"], "bitset")
    n = graph.n
    aspl = check["total"] / (n * (n - 1) / 2)
    name = f"n{n}d{p['d']}k{check['diameter']}l{math.floor(100 * aspl)}.edges"
    if output is None:
        target = Path(name)
    else:
        target = Path(output)
        if target.is_dir() or str(output).endswith(os.sep):
            target = target / name
    if gz and target.suffix != ".gz":
        target = target.with_name(target.name + ".gz")
    write_edges(target, graph.edges())
    return target, check
