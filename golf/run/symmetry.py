"""``problem: {g: auto}``: the symmetry chosen by short trial searches before the run.

A larger ``g`` makes every evaluation cheaper (``m = n/g`` base sources) and the search space
smaller, but fewer graphs are reachable; which ``g`` pays depends on ``n``, ``d`` and the
budget. :func:`choose_g` tries a few and keeps the best:

1. **Candidates** (:func:`candidates`): the divisors ``g`` of ``n`` with ``m = n/g >= d``,
   and ``g = 1`` always. A g-symmetric graph is a lift of a base graph on ``m`` classes of
   degree ``d``; below ``m = d`` the base graph is a multigraph on fewer classes than a
   vertex has neighbours, and little is left to search but the voltages. The floor is
   measured, not derived: in 60 s single-chain runs with voltage moves, (256, 8) did best at
   g = 32 (m = 8, ASPL 2.7495-2.7520 against 2.7525-2.7574 at g = 16) and (1024, 8) at
   g = 128 (m = 8, 3.5177-3.5228 against 3.5207-3.5254 at g = 64). A floor of m >= d/2
   was measured too: (1024, 8) did worse at g = 256 (m = 4) than at g = 128 in 60 s
   single-chain runs with near swaps (3.5196 and 3.5213 against 3.5189 and 3.5186, seeds 1
   and 2), and 60 s ``auto`` runs with that floor chose g = 256 there and g = 32 for
   (256, 8), though (256, 8) itself did better at g = 64 (2.7451 and 2.7480 against 2.7490
   and 2.7505); a config can name such a g (``configs/records2016_gpu.yaml`` does), ``auto``
   keeps m >= d. At most
   :data:`MAX_CANDIDATES` are kept, spread evenly over ``log g`` from 1 to the largest, ties
   going to the larger ``g``. A grid problem (:mod:`golf.grid`) tries the rotations its
   lattice allows instead: 1, 2 (an even number of cells) and 4 (a square with an even side).
2. **Equal time under golf's cost model**: every trial gets the same model seconds, and
   candidate ``g`` as many steps as that buys at the estimate of one evaluation of its backend
   (the backend's ``estimate``, as ``auto`` uses; ``reference`` gives none and is budgeted with
   ``bfs``'s). The estimates follow the backends rather than ``1/g``: on ``bitset`` a row of
   ``m`` bits costs whole 64-bit words, so (256, 8) is estimated at the same cost for every
   ``g`` from 2 to 16. The trials together get ``search.auto_g_budget`` (default 0.05) of the run's
   budget: with a step budget ``S``, of what ``S`` steps cost at the largest candidate ``g``
   (the trial of that ``g`` gets ``auto_g_budget * S / K`` steps for ``K`` trials, the others
   fewer in proportion to their cost); with a time limit alone, of its seconds. The step
   counts come from the model, never from a clock, so the choice is the same for a given
   seed and backend (with a step budget, on any machine). While a share buys fewer than
   :data:`MIN_TRIAL_STEPS` steps, the dearest candidate is dropped and the budget shared by
   the others.
3. **Trials**: from the start graph the main search would use with that ``g`` (a random
   graph of ``search.seed`` unless ``problem.start`` says otherwise; a ``g`` it cannot be
   built for is left out), the annealer (:class:`golf.anneal.Annealer`: ``sa``, or ``hill``
   with ``method: hill``) with the config's temperatures, sampled where ``auto``.
4. **The choice**: the smallest ``(diameter, total)`` (exact integers); a tie goes to the
   larger ``g`` (fewer base sources to score, a smaller space). The main search then starts
   from the winning trial's best graph, with the temperatures that trial sampled from its
   start graph where they are ``auto`` (sampled again from an annealed graph they would come
   out hotter at the end: its smallest uphill step is larger); the trials' evaluations and seconds count in the
   run's (with a time limit, the trials' seconds are part of it, and a trial that reaches it
   stops there, the others being left out; with a step budget, the main search still runs
   all its steps). Short trials favour the spaces that improve soonest,
   which are the smaller ones (larger ``g``); a larger ``auto_g_budget`` makes the trials
   more like the run they stand for.

Under MPI with ``parallel.mode: chains`` the trials are dealt round-robin over the ranks and
their results gathered, so every rank ends with the same ``g`` and the winning graph (the
trials' seeds do not depend on the rank: the choice is that of a serial run); with
``parallel.mode: evaluator`` all ranks run every trial together, each evaluation split.
"""

from __future__ import annotations

import copy
import math
import time
from dataclasses import dataclass, field

from golf.errors import GolfError
from golf.run.problem import Problem

__all__ = ["divisors", "candidates", "trial_costs", "trial_steps", "choose_g", "Choice",
           "MAX_CANDIDATES", "MIN_TRIAL_STEPS", "M_PER_DEGREE"]

# the floor on m = n/g, in units of d
M_PER_DEGREE = 1
MAX_CANDIDATES = 8
MIN_TRIAL_STEPS = 100


def divisors(n: int) -> list[int]:
    """The divisors of ``n``, ascending."""
    small = [k for k in range(1, math.isqrt(n) + 1) if n % k == 0]
    return sorted(set(small + [n // k for k in small]))


def candidates(n: int, d: int, cap: int = MAX_CANDIDATES) -> list[int]:
    """The symmetries ``g`` worth a trial, ascending (see the module docstring): divisors of
    ``n`` with ``n/g >= d``, and 1; at most ``cap``, spread over ``log g``.

    >>> candidates(256, 8)
    [1, 2, 4, 8, 16, 32]
    >>> candidates(101, 4)
    [1]
    """
    ok = [g for g in divisors(n) if g == 1 or n // g >= M_PER_DEGREE * d]
    if len(ok) <= cap:
        return ok
    top = math.log(ok[-1])
    picked: list[int] = []
    for k in range(cap - 1, -1, -1):
        target = top * k / (cap - 1)
        free = [g for g in ok if g not in picked]
        picked.append(min(free, key=lambda g: (abs(math.log(g) - target), -g)))
    return sorted(picked)


def _with_g(cfg: dict, g: int) -> dict:
    """The config of a trial: problem.g = g, one chain."""
    out = copy.deepcopy(cfg)
    out["problem"]["g"] = g
    out["search"]["batch"] = 1
    return out


def trial_costs(cfg: dict, gs, ranks: int = 1) -> dict[int, tuple[str, float]]:
    """``g -> (backend, estimated seconds of one evaluation)`` for the trials: the configured
    backend (or the one ``auto`` picks for that ``g``) and its own estimate."""
    from golf.evaluators import backend_class, choose_backend
    from golf.evaluators.base import cpu_threads

    p, e = cfg["problem"], cfg["evaluator"]
    threads = e.get("threads") or cpu_threads()
    out = {}
    for g in gs:
        name = e["backend"]
        if name == "auto":
            name = choose_backend(p["n"], p["d"], g, e.get("threads"), ranks)[0]
        for cls in (backend_class(name), backend_class("bfs")):
            est = cls.estimate(p["n"], p["d"], g, threads=threads, ranks=ranks)
            if est is not None:
                break
        out[g] = (name, est.seconds)
    return out


def trial_steps(cfg: dict, costs: dict) -> dict[int, int]:
    """``g -> steps`` of each trial: equal model seconds each, the trials together
    ``auto_g_budget`` of the run's (see the module docstring). While a trial would get fewer
    than :data:`MIN_TRIAL_STEPS` steps, the dearest candidate is dropped and the budget shared
    by the others."""
    s = cfg["search"]
    seconds = {g: c for g, (_, c) in costs.items()}
    if s["steps"]:
        budget = s["auto_g_budget"] * s["steps"] * seconds[max(seconds)]
    else:
        budget = s["auto_g_budget"] * s["time_limit"]
    gs = sorted(seconds)
    while gs:
        steps = {g: int(budget / len(gs) / seconds[g]) for g in gs}
        dearest = min(gs, key=lambda g: (steps[g], g))
        if steps[dearest] >= MIN_TRIAL_STEPS:
            return steps
        gs.remove(dearest)
    return {}


@dataclass
class Choice:
    """What :func:`choose_g` decided: ``g``, the winning trial's best graph (None when there
    was no trial) and the temperatures sampled from its start graph (the answer of
    :meth:`golf.anneal.Annealer.auto_temperatures`, or None), the record for summary.json,
    the seconds it took; ``interrupted`` when a signal stopped the trials."""

    g: int | None
    graph: object = None
    record: dict = field(default_factory=dict)
    seconds: float = 0.0
    interrupted: bool = False
    sampled: tuple | None = None


class _Halt:
    """Why the trials must stop now: a signal (``stopped()``) or the run's time limit
    (``deadline``, a ``time.perf_counter()`` reading; None: no time limit)."""

    def __init__(self, stopped, deadline):
        self.stopped, self.deadline = stopped, deadline

    def __call__(self, co, chunk) -> tuple[int, int]:
        """``(reason, chunk)``: 0, ``StopReason.TIME`` or ``INTERRUPTED``, and the next chunk;
        this rank's own when its trials are its own (serial, chains), rank 0's for all when
        the ranks walk one chain together."""
        from golf.anneal import StopReason

        late = self.deadline is not None and time.perf_counter() >= self.deadline
        reason = int(StopReason.INTERRUPTED) if self.stopped() else 0
        if co.chains:
            return reason or (int(StopReason.TIME) if late else 0), chunk
        reason, chunk = co.decide(bool(reason), int(StopReason.TIME) if late else 0, chunk,
                                  0.0, False)[:2]
        return reason, chunk


def _anneal(ann, co, halt) -> int:
    """Run ``ann`` to its step budget in chunks of ~0.2 s (as the run does; the chunking
    changes nothing in the chain); returns why ``halt`` cut it short (0: it did not)."""
    from golf.run.driver import next_chunk

    chunk = 64
    while not ann.stop_reason:
        reason, chunk = halt(co, chunk)
        if reason:
            return reason
        tic = time.perf_counter()
        ann.run(chunk)
        chunk = next_chunk(chunk, time.perf_counter() - tic)
    return 0


def run_trial(cfg: dict, g: int, steps: int, graph, co, halt):
    """One trial: ``steps`` annealing steps of g-symmetric graphs from ``graph``. Returns
    ``(record, best rows)``; the record says ``interrupted`` when a signal cut it, ``cut``
    when the run's time limit did."""
    from golf.anneal import SC, Annealer, StopReason, schedule, search_options
    from golf.evaluators import build_evaluator

    tc, s = _with_g(cfg, g), cfg["search"]
    t = time.perf_counter()
    ev = build_evaluator(tc, co.comm)
    problem = Problem(tc["problem"], g)
    ann = Annealer(graph, ev, steps=steps, seed=s["seed"], trace_every=steps + 1,
                   bounds=problem.bounds(), reach=problem.reach(), **search_options(s))
    sampled = []

    def sample():
        sampled.extend(ann.auto_temperatures(s["sample_moves"]))
        return sampled

    t0, t1, _ = schedule(s, sample)
    ann.set_temperatures(t0, t1)
    reason = _anneal(ann, co, halt)
    n = graph.n
    record = {"g": g, "m": n // g, "backend": ev.name, "steps": steps,
              "evaluations": int(ann.sc[SC.EVALS]),
              "best": [int(ann.sc[SC.BEST_D]), int(ann.sc[SC.BEST_TOTAL])],
              "aspl": int(ann.sc[SC.BEST_TOTAL]) / (n * (n - 1) / 2),
              "seconds": round(time.perf_counter() - t, 3), "temperatures": [t0, t1]}
    if sampled:
        record["sampled"] = sampled
    if reason == StopReason.INTERRUPTED:
        record["interrupted"] = True
    elif reason == StopReason.TIME:
        record["cut"] = f"the run's time limit came after {int(ann.sc[SC.STEP]):,} steps"
    return record, ann.best_adj.copy()


def _my_trials(cfg, steps, start, co, halt) -> tuple[list, dict, bool]:
    """This rank's trials (all of them unless chains deal them over the ranks): their
    records, their best rows by ``g``, and whether a signal cut them short. A ``g`` that
    cannot be tried (its start graph cannot be built, the time limit has come) is recorded
    as skipped, on the rank that met it, so that the ranks meet again in the gather."""
    from golf.anneal import StopReason

    comm = co.comm
    gs = sorted(steps, reverse=True)
    if co.chains:
        gs = gs[comm.rank::comm.size]
    records, rows = [], {}
    for g in gs:
        reason = halt(co, 0)[0]
        if reason == StopReason.INTERRUPTED:
            return records, rows, True
        try:
            if reason == StopReason.TIME:
                records.append(_skipped(cfg, g, "the run's time limit had come"))
                continue
            rec, rows[g] = run_trial(cfg, g, steps[g], start(g), co, halt)
        except GolfError as exc:  # e.g. a start graph that is not g-symmetric
            records.append(_skipped(cfg, g, str(exc)))
            continue
        if co.chains:
            rec["rank"] = comm.rank
        records.append(rec)
        if rec.get("interrupted"):
            return records, rows, True
    return records, rows, False


def _skipped(cfg: dict, g: int, why: str) -> dict:
    return {"g": g, "m": cfg["problem"]["n"] // g, "skipped": why}


def _gather(co, records: list, rows: dict, halted: bool):
    """Every rank's records (sorted by g), whether any rank was stopped by a signal, and the
    winner's g and best rows on every rank (None when stopped or nothing was tried)."""
    comm = co.comm
    if co.chains:
        parts = comm.allgather((records, halted))
        records = [r for part, _ in parts for r in part]
        halted = any(h for _, h in parts)
    records.sort(key=lambda r: r["g"])
    done = [r for r in records if "best" in r]
    if halted or not done:
        return records, halted, None, None
    win = min(done, key=lambda r: (r["best"][0], r["best"][1], -r["g"]))
    best = rows.get(win["g"])
    if co.chains:
        best = comm.bcast(best, root=win["rank"])
    return records, False, win["g"], best


def _reason(records: list, g: int) -> str:
    """Why ``g`` won, for the log."""
    done = [r for r in records if "best" in r]
    win = next(r for r in done if r["g"] == g)
    tied = [r["g"] for r in done if r["best"] == win["best"] and r["g"] != g]
    others = [r for r in done if r["best"] != win["best"]]
    text = (f"its trial found the best score of the {len(done)} trials of equal model time: "
            f"diameter {win['best'][0]}, ASPL {win['aspl']:.10f}")
    if tied:
        text += f" (tied with g={', '.join(map(str, tied))}; a tie goes to the larger g)"
    if others:
        nxt = min(others, key=lambda r: (r["best"][0], r["best"][1], -r["g"]))
        text += f"; next g={nxt['g']}: diameter {nxt['best'][0]}, ASPL {nxt['aspl']:.10f}"
    return text


def _trial_line(r: dict) -> str:
    if "skipped" in r:
        return f"g: auto trial g={r['g']} m={r['m']}: not tried ({r['skipped']})"
    where = f", rank {r['rank']}" if "rank" in r else ""
    cut = f" ({r['cut']})" if "cut" in r else ""
    return (f"g: auto trial g={r['g']} m={r['m']} steps={r['steps']:,} ({r['backend']}{where})"
            f": best diameter {r['best'][0]}, ASPL {r['aspl']:.10f}; "
            f"{r['evaluations']:,} evaluations in {r['seconds']:.2f} s{cut}")


def choose_g(cfg: dict, co, log, stopped, start) -> Choice:
    """Resolve ``problem.g: auto`` (module docstring). ``co`` is the run's
    :class:`golf.run.coordinate.Coordinator`, ``log`` its log, ``stopped()`` says a signal
    came, ``start(g)`` builds the start graph for ``g``. Every rank returns the same
    :class:`Choice`."""
    t = time.perf_counter()
    p, s = cfg["problem"], cfg["search"]
    n, d = p["n"], p["d"]
    floor = "d" if M_PER_DEGREE == 1 else f"{M_PER_DEGREE}d"
    gs, rule = Problem(p).trial_candidates(
        (candidates(n, d), f"divisors g of n={n} with m = n/g >= {floor} = {M_PER_DEGREE * d}, "
                           f"and 1"))
    record = {"candidates": gs, "rule": rule, "budget": s["auto_g_budget"]}
    if len(gs) == 1:
        return _single(record, f"no divisor g > 1 of n={n} keeps m = n/g >= "
                               f"{M_PER_DEGREE * d} (= {floor})" if p.get("grid") is None else
                       f"{rule}: 1 only", log)
    ranks = co.comm.size if co.comm is not None and not co.chains else 1
    costs = trial_costs(cfg, gs, ranks)
    steps = trial_steps(cfg, costs)
    if not steps:
        return _single(record, f"the trial budget ({s['auto_g_budget']:g} of the run's) "
                               f"buys no trial of {MIN_TRIAL_STEPS} steps; largest g",
                       log, g=max(gs))
    log(f"g: auto: candidates {gs} ({rule}); trials of equal model time, "
        f"{s['auto_g_budget']:g} of the run's budget: "
        + ", ".join(f"g={g} {steps[g]:,} steps" for g in sorted(steps)))
    halt = _Halt(stopped, t + s["time_limit"] if s["time_limit"] else None)
    records, halted, g, best = _gather(co, *_my_trials(cfg, steps, start, co, halt))
    seconds = time.perf_counter() - t
    if halted:
        return Choice(None, seconds=seconds, interrupted=True)
    records = sorted(records + [
        _skipped(cfg, g2, f"its share of the budget buys fewer than {MIN_TRIAL_STEPS} steps")
        for g2 in gs if g2 not in steps], key=lambda r: r["g"])
    return _decided(record, records, g, best, seconds, cfg, log)


def _decided(record: dict, records: list, g, best, seconds: float, cfg: dict, log) -> Choice:
    """The choice after the trials: logged (a line per candidate, then why), recorded."""
    from golf.graph import Graph, sort_rows

    if g is None:
        raise GolfError("g: auto: no candidate could be tried: "
                        + "; ".join(f"g={r['g']}: {r['skipped']}" for r in records))
    for r in records:
        log(_trial_line(r))
    reason = _reason(records, g)
    log(f"g: auto chose g={g} because {reason}")
    record.update(g=g, reason=reason, trials=records, seconds=round(seconds, 3),
                  evaluations=sum(r.get("evaluations", 0) for r in records))
    sampled = next(r for r in records if r["g"] == g).get("sampled")
    if sampled:
        sampled = (sampled[0], sampled[1], f"of the g={g} trial ({sampled[2]})")
    p = cfg["problem"]
    return Choice(g, Graph(p["n"], p["d"], g, sort_rows(best)), record, seconds,
                  sampled=sampled)


def _single(record: dict, why: str, log, g: int = 1) -> Choice:
    """The choice without trials."""
    log(f"g: auto chose g={g} because {why}")
    record.update(g=g, reason=why, trials=[], seconds=0.0, evaluations=0)
    return Choice(g, None, record)
