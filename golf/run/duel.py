"""``search.method: auto``: annealing or the memetic search, chosen by a duel on the run's clock.

Where the run's problem is one the memetic search takes (a general graph or a grid without
centre vertices, :class:`golf.engine.memetic.Memetic`) and it has a time limit, the two engines
start from the same place once the run's annealer is set up (after the trials of
``g: auto``, its temperatures set):

1. the memetic population is built from the annealer's graphs (its chains' best and current
   graphs, distinct, best first: :meth:`best_graphs`; random graphs of the form where there
   are fewer than ``search.members``) and runs for :data:`DUEL_SHARE` of the time limit;
2. the annealer runs for the same seconds, from where it stood (its cooling follows the
   run's clock);
3. the engine with the better best graph ``(diameter, total)`` goes on as the run's (a tie:
   annealing), and ``search.method`` becomes its method (run.yaml and a resume say so).
   A memetic search that won among MPI chains exchanges every as many generations as it
   makes in the seconds the annealer took for ``parallel.exchange_every`` steps
   (:func:`memetic_exchange`).

Both slices count in the run's clock. The log says what each reached, in how many
evaluations, and which won; summary.json and the checkpoints keep it under ``duel``. Under
MPI rank 0's clock ends the slices (every rank steps its engines alike) and the scores of
all ranks decide. Where the memetic search does not apply the run anneals and the log says
why.
"""

from __future__ import annotations

import time

from golf.engine.annealer import SC

__all__ = ["DUEL_SHARE", "duel_applies", "duel", "memetic_exchange"]

# the share of the time limit each engine of the duel runs
DUEL_SHARE = 0.05


def duel_applies(cfg: dict, problem, ev=None) -> str | None:
    """None where a duel is run for ``cfg`` (``search.method: auto``) at ``problem``'s form,
    scored by ``ev``, else why not: also where a step of the memetic search (``batch``
    climbs of ``local_steps`` evaluations, at the backend's estimate of one) would not fit
    the duel's slice, since the clock is read between steps."""
    from golf.engine.memetic import refused
    from golf.problems import kind_of

    s = cfg["search"]
    if not s["time_limit"]:
        return "no time limit (the duel is on the clock)"
    why = refused(kind_of(cfg["problem"]).kind, problem.centres)
    if why is not None:
        return why
    per = getattr(ev, "estimate_seconds", None)
    step = per * s["batch"] * s["local_steps"] if per else 0.0
    if step > DUEL_SHARE * s["time_limit"]:
        return (f"a step of the memetic search (~{step:.3g} s at the backend's estimate) "
                f"would not fit the duel's {DUEL_SHARE * s['time_limit']:.3g} s")
    return None


def duel(cfg: dict, state, co, log, stopped, memetic, time_frac) -> None:
    """Run the duel (module docstring) on ``state`` (a :class:`golf.run.start.RunState`
    whose annealer is set up): its engine becomes the winner's, ``cfg``'s
    ``search.method`` the winner's method, its trace the winner's rows, its clock the
    duel's seconds later. ``memetic(graphs)``: the memetic search of those start graphs;
    ``stopped()``: a signal came (the duel ends where it is); ``time_frac(f)``: the
    annealer's share of its time at the fraction ``f`` of the time limit
    (:meth:`golf.run.phases.Phases.time_frac`)."""
    s = cfg["search"]
    seconds = DUEL_SHARE * s["time_limit"]
    ann = state.ann
    t0 = time.perf_counter()
    pop = memetic(ann.best_graphs(s["members"]))
    results = {}
    for name, engine in (("memetic", pop), ("sa", ann)):
        rows, evals0, tic = [], int(engine.sc[SC.EVALS]), time.perf_counter()
        steps0 = int(engine.sc[SC.STEP])
        if name == "memetic":
            tic = t0  # its set-up (scoring the members) in its slice
        _slice(engine, seconds - (time.perf_counter() - tic), state, co, stopped, rows, t0,
               lambda e: time_frac(min(1.0, e / s["time_limit"])))
        best = co.comm.allgather(_best(engine)) if co.comm is not None else [_best(engine)]
        results[name] = {"best": list(min(best)), "seconds": round(time.perf_counter() - tic, 3),
                         "evaluations": int(engine.sc[SC.EVALS]) - evals0,
                         "steps": int(engine.sc[SC.STEP]) - steps0, "rows": rows}
    won = "memetic" if tuple(results["memetic"]["best"]) < tuple(results["sa"]["best"]) else "sa"
    n = state.problem.order
    pairs = n * (n - 1) / 2

    def said(name):
        r = results[name]
        return (f"{name}: diameter {r['best'][0]}, ASPL {r['best'][1] / pairs:.10f} "
                f"({r['evaluations']:,} evaluations in {r['seconds']:.1f} s)")

    why = ("its best graph scored lower" if won == "memetic" else
           "its best graph scored lower or the same")
    log(f"method: {won} won the duel of {seconds:.1f} s each ({said('memetic')}; "
        f"{said('sa')}) because {why}; the run goes on with {won}")
    exchange = {}
    if won == "memetic":
        state.ann = pop
        s["method"] = "memetic"
        if state.exchange is not None:
            every = memetic_exchange(cfg["parallel"]["exchange_every"], results)
            if co.comm is not None:  # the ranks exchange at the same generations
                every = co.comm.bcast(every, root=0)
            log(f"the islands exchange their best graphs every {every:,} generations (the "
                f"annealer's {cfg['parallel']['exchange_every']:,} steps at the duel's rates)")
            cfg["parallel"]["exchange_every"] = exchange["exchange_every"] = every
    else:
        s["method"] = "sa"
    state.trace_rows.extend(results[won].pop("rows"))
    results["memetic" if won == "sa" else "sa"].pop("rows")
    state.meta["duel"] = {"seconds_each": round(seconds, 3), "won": won, "why": why,
                          **exchange, **results}
    state.elapsed0 += time.perf_counter() - t0


def memetic_exchange(every: int, results: dict) -> int:
    """The generations between the exchanges of a memetic search that won a duel: as many as
    it made (at the duel's rate) in the seconds the annealer took for ``every`` steps, so the
    ranks share their best graphs as often as the run asked for in time (the steps of the two
    engines differ: a step of the memetic search is a generation of ``batch`` climbs).

    >>> memetic_exchange(1000, {"sa": {"steps": 5000, "seconds": 1.0},
    ...                         "memetic": {"steps": 30, "seconds": 1.5}})
    4
    """
    sa, mem = results["sa"], results["memetic"]
    seconds = every * sa["seconds"] / max(1, sa["steps"])
    return max(1, round(seconds * max(1, mem["steps"]) / max(mem["seconds"], 1e-9)))


def _best(engine) -> tuple[int, int]:
    return int(engine.sc[SC.BEST_D]), int(engine.sc[SC.BEST_TOTAL])


def _slice(engine, seconds: float, state, co, stopped, rows: list, t0: float,
           time_frac) -> None:
    """Chunks of ``engine``'s steps for ``seconds`` (rank 0's clock; a signal ends it), its
    trace rows stamped on the run's clock into ``rows``; ``time_frac(elapsed)``: the
    engine's cooling fraction at the run's ``elapsed`` seconds."""
    from golf.engine.annealer import StopReason
    from golf.run.coordinate import next_chunk

    tic = time.perf_counter()
    chunk = 1
    while True:
        now = time.perf_counter()
        timed_out = int(StopReason.TIME) if now - tic >= seconds else 0
        stop, chunk, _, _, _ = co.decide(stopped(), timed_out, chunk, 0.0, False)
        if stop or co.stop_reason(int(engine.sc[SC.STOP])):
            return
        out = engine.run(chunk, time_frac=time_frac(state.elapsed0 + now - t0))
        stamp = state.elapsed0 + time.perf_counter() - t0
        rows.extend(r + [stamp] for r in out.tolist())
        toc = time.perf_counter()
        chunk = next_chunk(chunk, toc - now, seconds - (toc - tic))
