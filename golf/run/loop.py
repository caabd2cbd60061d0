"""The loop of a run: chunks of steps, and the switch to the polish phase.

The loop hands the annealer chunks of steps sized to last ~0.2 s (responsive to signals,
cheap to leave compiled code); between chunks it records the trace, writes checkpoints every
``checkpoint_every`` seconds, prints progress, exchanges states between MPI chains and stops
on the step or time limit, the bounds, or SIGINT/SIGTERM. Under MPI every decision is taken
once for all ranks (:meth:`golf.run.coordinate.Coordinator.decide`).

Where the run has a polish phase (:mod:`golf.run.phases`), the loop switches to it when its
time comes: tabu search from the best graphs found, at ``search.polish_g`` where that is
smaller than the run's g, scored on the CPU where that is faster than the run's GPU backend.
"""

from __future__ import annotations

import time

import numpy as np

from golf.engine.annealer import FL, SC, P, StopReason
from golf.engine.memetic import climb_label
from golf.errors import GolfError
from golf.graph import sort_rows
from golf.problems import problem_of
from golf.run.coordinate import collective, next_chunk
from golf.run.report import progress_line
from golf.run.setup import build_evaluator, cfg_at, tabu_helpers

__all__ = ["Loop", "POLISH_PROBE_STEPS"]

# the tabu steps timed on each scoring path before a polish under a GPU backend picks one
POLISH_PROBE_STEPS = 3


class Loop:
    """The loop of the run of config ``cfg`` over its :class:`golf.run.start.RunState`
    ``state`` (whose annealer, evaluator and problem the polish replaces), with its
    :class:`golf.run.coordinate.Coordinator` ``co``, its log, its
    :class:`golf.run.phases.Phases` and its :class:`golf.run.records.Records`."""

    def __init__(self, cfg: dict, state, co, log, phases, records):
        self.cfg, self.state, self.co, self.comm = cfg, state, co, co.comm
        self.log, self.phases, self.records = log, phases, records
        self.bounds = state.problem.bounds()  # the same at every symmetry of the problem

    def drive(self, sigs, fresh: bool) -> tuple[StopReason, float]:
        """Chunks of steps until a stop; returns the stop reason and the elapsed seconds. A
        fresh run writes its first checkpoint before the first step; a resumed one makes
        best.edges and trace.csv those of its checkpoint."""
        st, rec = self.state, self.records
        o = self.cfg["output"]
        tlimit = self.cfg["search"]["time_limit"]
        # one step first (a step of a large graph's population may take seconds), then chunks
        # sized to last ~0.2 s (golf.run.coordinate.next_chunk)
        chunk = 1
        rec.best_written, rec.dirty = None, False
        if fresh:
            rec.first(st, st.meta.get("auto_g") is not None or "duel" in st.meta)
        elif rec.rundir is not None:
            rec.match_files(st)
        t_start = time.perf_counter() - st.elapsed0
        last_ckpt = last_prog = time.perf_counter()
        evals0, t_rate = int(st.ann.sc[SC.EVALS]), time.perf_counter()
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
            if want_ckpt and rec.dirty:  # the last one (stop) writes best.edges whatever
                rec.checkpoint(st, elapsed, final=bool(stop))  # it costs
                last_ckpt = time.perf_counter()
            if stop:
                break
            chunk, stop = self.run_chunk(chunk, frac, t_start)
            if stop:
                break
            if want_prog:
                now = time.perf_counter()
                ann = st.ann
                evals = int(ann.sc[SC.EVALS])
                rate = self.co.rate((evals - evals0) / max(now - t_rate, 1e-9))
                evals0, t_rate, last_prog = evals, now, now
                self.log.progress(progress_line(
                    ann.sc, temperature=float(ann.fl[FL.T]), steps=int(ann.params[P.STEPS]),
                    n=st.problem.order, bounds=self.bounds, rate=rate,
                    elapsed=now - t_start, time_limit=tlimit))
        elapsed = time.perf_counter() - t_start
        if rec.dirty:  # not when nothing ran since the last one (a signal before any step)
            rec.checkpoint(st, elapsed)
        return StopReason(stop), elapsed

    def run_chunk(self, chunk: int, frac: float, t_start: float) -> tuple[int, int]:
        """``chunk`` steps (ending on an exchange point), the trace, the exchange; returns
        the next chunk's size and the agreed stop reason (0: go on)."""
        st = self.state
        ann, exchange = st.ann, st.exchange
        every = self.cfg["parallel"]["exchange_every"]
        if exchange is not None:
            chunk = max(1, min(chunk, every - int(ann.sc[SC.STEP]) % every))
        t0 = time.perf_counter()
        rows = ann.run(chunk, time_frac=self.phases.time_frac(frac))
        self.records.dirty = True
        dt = time.perf_counter() - t0
        stamp = time.perf_counter() - t_start
        st.meta.setdefault("first_step_seconds", round(stamp, 3))  # the run's first step ended
        st.trace_rows.extend(r + [stamp] for r in rows.tolist())
        tlimit = self.cfg["search"]["time_limit"]
        chunk = next_chunk(chunk, dt, None if tlimit is None else tlimit - stamp)
        done = self.co.stop_reason(int(ann.stop_reason))
        if exchange is not None and (int(ann.sc[SC.STEP]) % every == 0 or done):
            info = exchange(ann)
            if info["restarted"] or info["swapped"]:
                self.log.to_file(f"exchange {exchange.round}: best on rank {info['best_rank']}, "
                                 f"restarted {info['restarted']}, {info['swapped']} replica "
                                 f"swaps")
        if self.phases.due(frac, done):
            self.polish()
            self.polish_scoring(t_start)
            return 1, 0
        return chunk, done

    def _released(self, starts: list, k: int) -> tuple[list, int]:
        """The polish's ``starts`` (the chains' graphs, best first) with the trials' graphs
        that ``search.release`` kept (:meth:`golf.run.start.Starter.keep`; rank ``r`` of
        ``R`` ranks of chains takes the ``r``-th of every ``R``): the best ``k`` of them all,
        each graph once, scored; the chains' first where two score alike. Returns them and
        how many of them are the trials'."""
        rows = self.state.meta.get("released_starts")
        if not rows:
            return starts, 0
        rank, size = ((self.co.comm.rank, self.co.comm.size) if self.co.chains else (0, 1))
        seen, both = set(), []
        for graph in starts + [starts[0].with_rows(np.asarray(r, dtype=starts[0].adj.dtype))
                               for r in rows[rank::size]]:
            key = sort_rows(graph.adj).tobytes()
            if key not in seen:
                seen.add(key)
                score = self.state.ev.evaluate(graph)
                both.append(((score.diameter, score.total, len(both)), graph))
        best = sorted(both, key=lambda x: x[0])[:k]
        return [graph for _, graph in best], sum(key[2] >= len(starts) for key, _ in best)

    def polish(self) -> None:
        """Switch to the polish phase: tabu search from the best graph found (at
        ``search.polish_g`` where that is smaller than the run's g: the problem kind renumbers
        the graphs for it, :meth:`golf.problems.OrderDegreeProblem.renumber`)."""
        st, s, graph = self.state, self.cfg["search"], None
        pg = s["polish_g"]
        starts, from_trials = self._released(st.ann.best_graphs(s["polish_starts"]),
                                             s["polish_starts"])
        if pg is not None and pg != self.cfg["problem"]["g"]:
            before = st.problem
            self.use_g(pg)
            starts = before.renumber(starts, pg)
            graph = starts[0]
        st.ann = self.phases.switch(st.ann, st.ev, st.seed, st.meta, graph=graph,
                                    pool=starts[1:], reach=st.problem.reach(),
                                    problem=st.problem)
        sc = st.ann.sc
        pairs = st.problem.order * (st.problem.order - 1) // 2
        if s["polish_method"] == "memetic":
            self.log(f"polish: a memetic search from the best graph (diameter {sc[SC.BEST_D]}, "
                     f"ASPL {sc[SC.BEST_TOTAL] / pairs:.10f}) at step {sc[SC.STEP]}: "
                     f"{s['members']} members ({len(starts)} graphs of the chains, then random "
                     f"graphs of the form), {s['batch']} children a generation, "
                     f"{climb_label(s['local_search'], s['local_steps'])} each"
                     + (f", at g={pg}: {st.ev.describe()}" if graph is not None else ""))
            return
        self.log(f"polish: tabu search from the best graph (diameter {sc[SC.BEST_D]}, ASPL "
                 f"{sc[SC.BEST_TOTAL] / pairs:.10f}) at step {sc[SC.STEP]}, "
                 f"{s['neighbourhood']} candidates a step, tenure {s['tenure']}"
                 + (f", then from {len(starts) - 1} more graphs of the chains in turn"
                    if len(starts) > 1 else "")
                 + (f" ({from_trials} of the {len(starts)} starts are the trials' graphs "
                    f"kept by search.release)" if from_trials else "")
                 + f", the next start after {s['polish_patience']} steps without going below "
                   f"the current one's best; back at the best graph, {s['polish_kick']} kick "
                   f"steps"
                 + (f"; its candidates shared by {len(st.ann.kset)} threads"
                    if len(st.ann.kset) > 1 else "")
                 + (f", at g={pg}: {st.ev.describe()}" if graph is not None else ""))

    def polish_scoring(self, t_start: float) -> None:
        """Under a GPU backend (not split over ranks), score the polish's candidates on the CPU
        instead (the backend :func:`golf.evaluators.cpu_alternative` names, bitset's compiled
        loop, its candidates shared by the usable cores: :func:`golf.run.setup.tabu_helpers`)
        where that is faster, as timed on the first
        :data:`POLISH_PROBE_STEPS` steps of each: the two take the same steps
        (:meth:`golf.engine.tabu.TabuSearch.scored_by`), so the choice changes the speed, not
        the run. A step scores thousands of small graphs: on (64, 8), with 5 runs sharing an
        H200, the GPU took 13.6 steps/s and one core 60.5; on (384, 3) the GPU 13.8, the core
        5.0 (``results/quality/``, 2026-11-27). A resumed polish scores with the run's
        backend."""
        from golf.evaluators import cpu_alternative

        st = self.state
        ann, ev = st.ann, st.ev
        if (not ev.supports.gpu or self.cfg["parallel"]["mode"] == "evaluator"
                or self.cfg["search"]["polish_method"] != "tabu"):  # a memetic polish's
            return  # climbs run on the device where its chains fit a block
        cfg = cfg_at(self.cfg, ann.graph.g)
        other = cpu_alternative(problem_of(cfg["problem"]).shape, ann.neighbourhood)
        if other is None:
            return
        try:
            cpu = build_evaluator(dict(cfg, evaluator={"backend": other, "threads": 1}))
            helpers = tabu_helpers(self.cfg, cpu)
            twin = ann.scored_by(cpu, helpers)
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
        st.trace_rows.extend(r + [stamp] for r in rows[kept].tolist())
        if kept:
            st.ann, st.ev = twin, cpu
        rates = [POLISH_PROBE_STEPS / max(t, 1e-9) for t in seconds]
        threads = 1 + len(helpers)
        self.log(f"polish: {rates[0]:.1f} steps/s on {ev.name}, {rates[1]:.1f} on {other} "
                 f"({threads} thread{'s' if threads > 1 else ''}): scored on "
                 f"{other if kept else ev.name}")

    def use_g(self, g: int) -> None:
        """The run from here on at symmetry ``g`` (a divisor of its g): the problem and an
        evaluator built for it (every rank together). The config keeps the g it asked for."""
        st = self.state
        st.problem = problem_of(self.cfg["problem"], g)
        st.ev = collective(self.comm, lambda: build_evaluator(cfg_at(self.cfg, g), self.comm))
