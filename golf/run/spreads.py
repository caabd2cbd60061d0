"""``golf chase --host-switch N R``: the number of switches and the switch graph from golf's
Order/Degree engine, then the host-switch search on the whole graph.

With the hosts spread as evenly as they go over ``s`` switches, a switch keeps ``k = r -
ceil(n/s)`` ports for links and the host-switch graph's h-scores follow from its switch
graph, an Order/Degree graph ``(s, k)`` (:mod:`golf.hostswitch.spread`). So a chase:

1. **Trials** (:data:`TRIALS` of the time), as many as get :data:`MIN_TRIAL_SECONDS`
   each: the spreads of :func:`golf.hostswitch.spread.spreads` (one a host count, best lower
   bound first, at most :data:`MAX_SPREADS`), each an Order/Degree chase of ``(s, k)`` for
   its slice (:mod:`golf.run.chase`: the symmetry forms tried by its own trials, device
   chains, algebraic starts, the polish of a small graph), its best switch graph built into
   a host-switch graph (:func:`golf.starts.switch_wiring.spread_ports`) and scored exactly;
   after the first spread, where :func:`hub_trial` finds one, a hub spread
   (:mod:`golf.hostswitch.hubs`): its design (:func:`golf.starts.switch_wiring.hub_ports`,
   :data:`HUB_DESIGN` of the slice at most), then the host-switch search from it
   (:data:`HUB_METHOD`); and, where a slice is left for it, :data:`CLASSIC` (the
   host-switch chase of :mod:`golf.run.chase` with ``switches: auto``), which may leave
   switches unevenly filled. The smallest ``(h-diameter, h-total)`` wins (a tie: fewer
   switches, then the earlier).
2. **The winner's switch graph** (until :data:`POLISH` of the time is left): a longer
   Order/Degree chase of the winning spread (another seed; none where the trial's switch
   graph is at the Moore bounds of ``(s, k)``, or where the classic or hub trial won); the better
   of its graph and the trial's goes on.
3. **The polish**: the host-switch search (:mod:`golf.run.chase`'s host-switch settings, one
   chain a process, host moves; :data:`HUB_METHOD` after a hub spread's trial) from that
   graph for the rest of the time, in the run folder
   ``<out>/h{N}r{R}`` as any host-switch chase; its ``best.edges`` is exported.

A spread whose switch degree is ``s - 1`` or more has the complete graph as its switch
graph (no search). The stages' runs are kept in ``<out>/h{N}r{R}.spreads/`` (``s{S}``: a
trial, ``classic``: the classic trial, ``hubs``: the hub spread's design and search,
``s{S}.main``: the winner's chase); the chase's
record, ``spreads.json`` in the run folder, has each trial's spread, bound, switch-graph
and h-scores and seconds, the winner and why. A chase started again without ``--force``
reuses the stages that finished and resumes the one that was stopped. Each stage's length is
set from the time left, so a stage's overrun comes out of the later ones; as in any chase,
compilation (each stage's ``compile_seconds``) is kept out of the clock.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from golf.errors import GolfError

__all__ = ["spread_chase", "hub_trial", "TRIALS", "POLISH", "MIN_TRIAL_SECONDS", "MAX_SPREADS",
           "CLASSIC", "HUBS", "HUB_NEAR", "HUB_DESIGN", "HUB_METHOD", "HUB_ROUND",
           "MIN_HUB_ROUND"]

# the trials' share of the chase, the polish's, the shortest trial and the most spreads tried
TRIALS = 0.3
POLISH = 0.1
MIN_TRIAL_SECONDS = 30.0
MAX_SPREADS = 4
# the trial beside the spreads: golf's host-switch search over numbers of switches (random
# starts, polarity graphs, host moves: golf.problems.order_radix.switch_forms), which can
# leave switches unevenly filled
CLASSIC = "the host-switch search over switch counts"
# the hub spread's trial (golf.hostswitch.hubs), beside the spreads where its bound is below
# the best spread's and a leaf can share a hub with at least HUB_NEAR of the others: its
# folder, the share of its slice that designs it (golf.starts.switch_wiring.hub_ports), and
# the method of its search and of the polish it wins (annealing's temperatures, set from the
# moves of the start, undo the design: (432, 12) from one design, 300 s on one core, ended
# at h-ASPL 4.2312 by hill climbing and at 4.3227 by annealing)
HUBS = "hubs"
HUB_NEAR = 0.8
HUB_DESIGN = 0.25
HUB_METHOD = "hill"
# a hub spread's round (a design and a climb from it; a climb from a design of (432, 12)
# stalls within about a minute on one core) and the shortest one started
HUB_ROUND = 60.0
MIN_HUB_ROUND = 15.0
# trades of the design a second, per leaf (a trade reads two leaves' rows of shared hubs)
PACK_RATE = 2e8


def _run_stage(path: Path, make, comm, quiet: bool, force: bool, log, what: str):
    """The summary of the run in ``path`` (None on MPI ranks other than 0): a finished run's
    is reused and a stopped one resumed unless ``force``, else the run of ``make()`` (its
    :class:`golf.config.RunConfig`) starts."""
    from golf.run import Search, collective
    from golf.run.folder import RunDir, read_run_config

    rd = RunDir(path)
    if not force and rd.file("summary.json").exists():
        log(f"{what}: the finished run of {path} reused")
        return json.loads(rd.file("summary.json").read_text()) if (
            comm is None or comm.rank == 0) else None
    if not force and rd.has_run:
        log(f"{what}: the stopped run of {path} resumed")
        run = collective(comm, lambda: read_run_config(path))
        return Search(run, quiet=quiet, comm=comm).resume()
    run = collective(comm, make)
    return Search(run, quiet=quiet, comm=comm).start(force=True)


def _switch_graph(sp, folder: Path, seconds: float, seed: int, backend: str, comm, quiet,
                  force, log):
    """A spread's switch graph and its chase's summary: the complete graph where the degree
    allows (no summary), else the best of an Order/Degree chase of ``(s, k)`` in
    ``folder``."""
    from golf.io import read_edges
    from golf.run.chase import chase_config

    if sp.degree >= sp.switches - 1:  # the complete graph, built directly
        from golf.starts.random import random_graph

        return random_graph(sp.switches, sp.switches - 1, 1, 0), None
    path = folder / f"n{sp.switches}d{sp.degree}"
    summary = _run_stage(path, lambda: chase_config(
        sp.switches, sp.degree, minutes=max(seconds, 1.0) / 60.0, seed=seed, backend=backend,
        out=folder, comm=comm), comm, quiet, force, log, sp.label)
    if summary is None:
        return None, None
    return read_edges(path / "best.edges").graph(n=sp.switches, d=sp.degree), summary


def _h_score(spread, graph):
    """The exact ``(h-diameter, h-total)`` of the host-switch graph of ``graph`` (None:
    disconnected), and that graph."""
    from golf.evaluators.h_bitset import HostSwitchEvaluator
    from golf.starts.switch_wiring import spread_ports

    ports = spread_ports(spread, graph)
    score = HostSwitchEvaluator(spread.hosts, spread.switches, spread.radix).evaluate(ports)
    return (score.diameter, score.total) if score.connected else None, ports


def spread_chase(n: int, r: int, *, minutes: float, seed: int = 1, backend: str = "auto",
                 out="runs", comm=None, quiet: bool = False, force: bool = False,
                 sets=()) -> dict | None:
    """A host-switch chase of ``n`` hosts and radix ``r`` (module docstring); returns the
    polish run's summary (None on MPI ranks other than 0). ``sets``: ``KEY=VALUE``
    overrides of the polish run (as ``golf chase --set``)."""
    from golf.hostswitch.spread import spreads
    from golf.io import atomic_write
    from golf.run import Search, collective
    from golf.run.chase import chase_config
    from golf.run.folder import RunDir

    if not minutes > 0:
        raise GolfError(f"golf chase: --minutes must be > 0, got {minutes}")
    t0 = time.perf_counter()
    total = minutes * 60.0
    root = comm is None or comm.rank == 0
    name = f"h{n}r{r}"
    final = Path(out) / name
    if not force and RunDir(final).has_run:
        raise GolfError(f"{final} already holds a run; continue it with 'golf resume "
                        f"{final}', or start over with --force")
    stages = Path(out) / f"{name}.spreads"
    lines: list[str] = []

    def log(text):
        if root:
            lines.append(text)
            if not quiet:
                print(f"golf chase --host-switch: {text}", flush=True)

    compiled = [0.0]  # the stages' compilation, outside the clock as in any chase

    def left():
        return total - (time.perf_counter() - t0 - compiled[0])

    def timed(summary, tic):
        """The stage's seconds without its compilation, which comes off the clock."""
        spent = (summary.get("compile_seconds") or 0.0) if summary else 0.0
        if comm is not None:
            spent = comm.bcast(spent, root=0)
        compiled[0] += spent
        return time.perf_counter() - tic - spent

    def spread_stage(sp, where, seconds, stage_seed):
        tic = time.perf_counter()
        graph, summary = _switch_graph(sp, stages / where, seconds, stage_seed, backend, comm,
                                       quiet, force, log)
        took = timed(summary, tic)
        return _report(sp, graph, summary, took) if root else None

    rounds = 0  # hub rounds started: round k designs with seed + k

    def hub_round(hs, seconds):
        nonlocal rounds
        k, rounds = rounds, rounds + 1
        tic = time.perf_counter()
        folder = stages / HUBS / f"r{k}"
        start = folder / f"h{n}r{r}s{hs.switches}.design.edges"
        design = None
        if root and (force or not start.exists()):
            design = _hub_design(hs, start, seconds * HUB_DESIGN, seed + k)
            log(f"{hs.label}, round {k}: design with {design['covered']} of "
                f"{design['pairs']} pairs of leaves on a common hub; "
                + (f"h-diameter {design['h'][0]}, h-ASPL {design['h_aspl']:.6f}"
                   if design["h"] else "disconnected"))
        climb = max(seconds - (time.perf_counter() - tic), 1.0)
        if comm is not None:  # the design is written before any rank reads the config
            climb = comm.bcast(climb, root=0)
        summary = _run_stage(folder / name, lambda: chase_config(
            n, r, minutes=climb / 60.0, seed=seed + k, backend=backend, out=folder,
            comm=comm, host_switch=True,
            sets=(f"problem.switches={hs.switches}", f"problem.start={start}",
                  f"search.method={HUB_METHOD}")), comm, quiet, force, log, hs.label)
        took = timed(summary, tic)
        if not root:
            return None
        rec = _classic_report(n, r, folder / name, summary, took)
        b = hs.bounds()
        rec.update(kind="hubs", label=hs.label, bound=[b[0], float(b[1])], form=None,
                   leaf_hosts=hs.leaf_hosts, leaves=hs.leaves, hubs=hs.hubs, round=k,
                   design=design)
        return rec

    def hub_stage(hs, seconds):
        """Rounds of :data:`HUB_ROUND` seconds (the last takes what is left, the first at
        least the whole of a shorter ``seconds``), each a new design and a climb from it;
        the best round's record with every round's scores."""
        tic, done = time.perf_counter(), []
        while True:
            left_now = seconds - (time.perf_counter() - tic)
            go = not done or left_now >= MIN_HUB_ROUND
            if comm is not None:  # every rank starts the same rounds
                go, left_now = comm.bcast((go, left_now), root=0)
            if not go:
                break
            take = left_now if left_now < HUB_ROUND + MIN_HUB_ROUND else HUB_ROUND
            done.append(hub_round(hs, max(take, 1.0)))
        if not root:
            return None
        ok = [t for t in done if t["h"] is not None]
        best = dict(min(ok, key=lambda t: t["h"]) if ok else done[0])
        best["rounds"] = [{"round": t["round"], "h": t["h"], "seconds": t["seconds"],
                           "covered": (t["design"] or {}).get("covered")} for t in done]
        best["seconds"] = round(time.perf_counter() - tic, 3)
        return best

    def classic_stage(seconds):
        tic = time.perf_counter()
        folder = stages / "classic"
        summary = _run_stage(folder / name, lambda: chase_config(
            n, r, minutes=max(seconds, 1.0) / 60.0, seed=seed, backend=backend, out=folder,
            comm=comm, host_switch=True), comm, quiet, force, log, CLASSIC)
        took = timed(summary, tic)
        return _classic_report(n, r, folder / name, summary, took) if root else None

    cands = spreads(n, r)
    hub = hub_trial(n, r, cands[0])
    count = max(1, min(MAX_SPREADS + 1 + bool(hub), len(cands) + 1 + bool(hub),
                       int(TRIALS * total // MIN_TRIAL_SECONDS)))
    tried = cands[:max(1, count - 1 - bool(hub))]
    plan = [("spread", sp) for sp in tried]
    if hub is not None and count > 1:
        plan.insert(1, ("hubs", hub))
    classic = count > len(plan)
    log(f"{len(cands)} spreads of {n} hosts on switches of radix {r}; trials of the "
        f"{len(tried)} of the best lower bounds ({'; '.join(sp.label for sp in tried)})"
        + (f", of the hub spread {hub.label} ({_hub_reason(hub, cands[0])})"
           if hub is not None and count > 1 else "")
        + (f" and of {CLASSIC}" if classic else ""))
    tic = time.perf_counter()
    if root:  # the h-scores' and the design's kernels compile off the clock
        _compile(tried[0], hub if hub is not None and count > 1 else None, seed)
    spent = time.perf_counter() - tic
    compiled[0] += comm.bcast(spent, root=0) if comm is not None else spent
    trials = []
    for i in range(count):
        slice_ = max(1.0, (left() - (1.0 - TRIALS) * total) / (count - i))
        if i >= len(plan):
            trials.append(classic_stage(slice_))
        elif plan[i][0] == "hubs":
            trials.append(hub_stage(plan[i][1], slice_))
        else:
            trials.append(spread_stage(plan[i][1], _stage(plan[i][1]), slice_, seed))
        if root:
            log(_line(trials[-1]))
    win = None
    if root:
        ok = [i for i, t in enumerate(trials) if t["h"] is not None]
        if not ok:
            raise GolfError(f"golf chase --host-switch: no trial connected the hosts: "
                            + "; ".join(t["label"] for t in trials))
        win = min(ok, key=lambda i: (*trials[i]["h"], trials[i]["switch_count"], i))
        reason = _reason(trials, win)
        log(f"chose {trials[win]['label']} because {reason}")
    win = comm.bcast(win, root=0) if comm is not None else win
    kind = plan[win][0] if win < len(plan) else "classic"
    spread = plan[win][1] if kind == "spread" else None
    seconds = left() - POLISH * total
    if comm is not None:  # every rank takes the same stage
        seconds = comm.bcast(seconds, root=0)
    main = None
    done = root and (spread is None or trials[win]["at_bounds"])
    done = comm.bcast(done, root=0) if comm is not None else done
    if done and spread is not None:
        log("the winner's switch graph is at the Moore bounds of its spread: no longer chase")
    elif kind == "hubs" and seconds >= MIN_HUB_ROUND:
        main = hub_stage(plan[win][1], seconds)
        if root:
            log("the hub spread's further rounds: " + _line(main))
    elif not done and seconds >= MIN_TRIAL_SECONDS:
        main = spread_stage(spread, _stage(spread) + ".main", seconds, seed + 1)
        if root:
            log("the winner's chase: " + _line(main))
    switches = None
    if root:
        pick = min((t for t in (main, trials[win]) if t is not None and t["h"] is not None),
                   key=lambda t: t["h"])
        best_graph = pick["_ports"]
        for t in (*trials, main):
            if t is not None:
                t.pop("_ports", None)
        from golf.hostswitch.orp_format import write_host_switch

        switches = best_graph.n
        start = stages / f"h{n}r{r}s{switches}.start.edges"
        stages.mkdir(parents=True, exist_ok=True)
        write_host_switch(start, best_graph.net())
        how = f" ({HUB_METHOD}, as the hub spread's trial)" if kind == "hubs" else ""
        log(f"polish: the host-switch search{how} from {start.name} (h-diameter "
            f"{pick['h'][0]}, h-ASPL {pick['h_aspl']:.6f}) for the {max(left(), 0):.0f} s left")
    if comm is not None:  # the start file is written before any rank reads the config
        switches = comm.bcast(switches, root=0)
    start = stages / f"h{n}r{r}s{switches}.start.edges"
    run = collective(comm, lambda: chase_config(
        n, r, minutes=max(left(), 1.0) / 60.0, seed=seed, backend=backend, out=out,
        comm=comm, host_switch=True,
        sets=(f"problem.switches={switches}", f"problem.start={start}",
              *((f"search.method={HUB_METHOD}",) if kind == "hubs" else ()), *sets)))
    summary = Search(run, quiet=quiet, comm=comm).start(force=force)
    if summary is None:
        return None
    compiled[0] += summary.get("compile_seconds") or 0.0
    record = {"hosts": n, "radix": r, "minutes": minutes, "spreads": len(cands),
              "trials": trials, "winner": trials[win]["label"], "switch_count": switches,
              "reason": reason, "main": main, "start": start.name,
              "seconds": round(time.perf_counter() - t0, 3),
              "compile_seconds": round(compiled[0], 3), "log": lines}
    atomic_write(Path(run.path) / "spreads.json", json.dumps(record, indent=1) + "\n")
    return summary


def hub_trial(n: int, r: int, best):
    """The hub spread (:func:`golf.hostswitch.hubs.hub_spreads`, best bound first) that
    gets a trial beside the spreads, whose best is ``best``: the first whose h-ASPL bound is
    below ``best``'s and whose leaves can each share a hub with :data:`HUB_NEAR` of the
    others or more; None where there is none."""
    from golf.hostswitch.hubs import hub_spreads

    found = hub_spreads(n, r)
    if not found or best.bounds() is None:
        return None
    hs = found[0]
    if hs.bounds()[1] < best.bounds()[1] and hs.near >= HUB_NEAR:
        return hs
    return None


def _hub_reason(hs, best) -> str:
    return (f"its h-ASPL bound {float(hs.bounds()[1]):.6f} is below the best spread's "
            f"{float(best.bounds()[1]):.6f}, a leaf can share a hub with "
            f"{100 * hs.near:.0f}% of the others")


def _compile(spread, hub, seed: int) -> None:
    """Compile what rank 0 runs besides the stages' searches, whose compilation their
    summaries report: the h-scores of ``spread`` (on a random switch graph) and, where a
    ``hub`` spread is tried, its design (no trades). Cold, the h-scores alone take about 20 s
    on one core, which a short chase's trials would otherwise lose."""
    from golf.starts.random import random_graph

    s = spread.switches
    try:
        graph = random_graph(s, min(spread.degree, s - 1), 1, seed)
    except GolfError:  # no connected switch graph of that shape: nothing to warm
        pass
    else:
        _h_score(spread, graph)
    if hub is not None:
        _hub_design(hub, None, 0.0, seed)


def _hub_design(hs, path: Path | None, seconds: float, seed: int) -> dict:
    """The hub spread's design (:func:`golf.starts.switch_wiring.hub_ports`, its trades
    capped to about ``seconds``) written to ``path`` (None: not written); its record."""
    from golf.evaluators.h_bitset import HostSwitchEvaluator
    from golf.hostswitch.orp_format import write_host_switch
    from golf.starts.switch_wiring import PACK_STEPS_PER_LINK, hub_ports

    tic = time.perf_counter()
    steps = int(min(PACK_STEPS_PER_LINK * hs.links, max(seconds, 0.0) * PACK_RATE / hs.leaves))
    graph, cover = hub_ports(hs, seed, steps)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_host_switch(path, graph.net())
    score = HostSwitchEvaluator(hs.hosts, hs.switches, hs.radix).evaluate(graph)
    n = hs.hosts
    h = [score.diameter, score.total] if score.connected else None
    return {"steps": steps, "covered": cover, "pairs": hs.leaves * (hs.leaves - 1) // 2,
            "h": h, "h_aspl": h[1] / (n * (n - 1) / 2) if h else None,
            "seconds": round(time.perf_counter() - tic, 3)}


def _classic_report(n: int, r: int, path: Path, summary, seconds: float) -> dict:
    """The record of the classic trial (:data:`CLASSIC`): its switches and h-scores."""
    from golf.hostswitch.orp_format import read_host_switch
    from golf.hostswitch.ports import PortGraph, to_ports
    from golf.hostswitch.radix_bounds import host_switch_bounds

    b = host_switch_bounds(n, r)
    best = summary["best"]
    h = [best["diameter"], best["total"]] if best.get("diameter") is not None else None
    ports = PortGraph(n, to_ports(read_host_switch(path / "best.edges")))
    return {"kind": "classic", "label": CLASSIC, "switch_count": ports.n,
            "form": ((summary.get("auto_g") or {}).get("form") or {}).get("label"),
            "bound": [b.diameter, float(b.aspl)], "switch_graph": None, "at_bounds": False,
            "h": h, "h_aspl": h[1] / (n * (n - 1) / 2) if h and n > 1 else None,
            "seconds": round(seconds, 3), "_ports": ports}


def _stage(spread) -> str:
    """A spread's stage folder: ``s{switches}``, ``s{switches}o`` with the remainder over."""
    return f"s{spread.switches}" + ("o" if spread.over else "")


def _report(spread, graph, summary, seconds: float) -> dict:
    """A stage's record: the spread, its bound, the switch graph's and the h-scores."""
    n = spread.hosts
    d, aspl = spread.bounds()
    rec = {"kind": "spread", "switch_count": spread.switches, "hosts_each": spread.base,
           "short": spread.short, "over": spread.heavy, "degree": spread.degree,
           "label": spread.label,
           "bound": [d, float(aspl)], "seconds": round(seconds, 3)}
    if summary is not None:
        best, bounds = summary["best"], summary.get("bounds") or {}
        rec["switch_graph"] = [best["diameter"], best["total"]]
        rec["at_bounds"] = (best["diameter"], best["total"]) == (bounds.get("diameter"),
                                                                 bounds.get("total"))
        rec["form"] = ((summary.get("auto_g") or {}).get("form") or {}).get("label")
    else:
        rec.update(switch_graph=None, form="complete graph", at_bounds=True)
    h, ports = _h_score(spread, graph)
    rec["h"] = list(h) if h is not None else None
    rec["h_aspl"] = h[1] / (n * (n - 1) / 2) if h is not None and n > 1 else None
    rec["_ports"] = ports
    return rec


def _line(t: dict) -> str:
    head = f"{t['label']}: "
    if t["kind"] == "hubs" and t["h"] is not None:
        count = len(t.get("rounds") or [t])
        return head + (f"{t['switch_count']} switches, {count} round{'s' * (count > 1)} of a "
                       f"design and a climb ({HUB_METHOD}); best h-diameter {t['h'][0]}, "
                       f"h-ASPL {t['h_aspl']:.6f} (round {t['round']}; design bound "
                       f"{t['bound'][0]}, {t['bound'][1]:.6f}) in {t['seconds']:.1f} s")
    if t["kind"] == "classic" and t["h"] is not None:
        return head + (f"{t['switch_count']} switches ({t['form']}); h-diameter {t['h'][0]}, "
                       f"h-ASPL {t['h_aspl']:.6f} in {t['seconds']:.1f} s")
    if t["h"] is None:
        return head + f"disconnected ({t['seconds']:.1f} s)"
    sg = t["switch_graph"]
    return head + ((f"switch graph diameter {sg[0]}, total {sg[1]} ({t['form']}); "
                    if sg else "the complete switch graph; ")
                   + f"h-diameter {t['h'][0]}, h-ASPL {t['h_aspl']:.6f} (bound "
                   f"{t['bound'][0]}, {t['bound'][1]:.6f}) in {t['seconds']:.1f} s")


def _reason(trials: list, win: int) -> str:
    w = trials[win]
    text = (f"its trial reached the smallest h-scores: h-diameter {w['h'][0]}, h-ASPL "
            f"{w['h_aspl']:.6f}")
    others = [t for t in trials if t is not w and t["h"] is not None]
    if others:
        nxt = min(others, key=lambda t: (*t["h"], t["switch_count"]))
        text += (f"; next {nxt['label']}: h-diameter {nxt['h'][0]}, h-ASPL "
                 f"{nxt['h_aspl']:.6f}")
    return text
