"""``problem: {g: auto}``: the symmetry form of the run, chosen by trials before it.

A *form* (:class:`golf.problems.Form`) is a symmetry order ``g`` (``m = n/g`` base vertices)
and its group: the cyclic group ``Z_g`` or a metacyclic group ``Z_a ⋊_r Z_b``
(:mod:`golf.group`), with centre vertices or without; or a host-switch problem's number of
switches. Which form pays differs from pair to pair, so :func:`choose_form` tries a portfolio
of them with the run's own engine and keeps the best.

1. **The portfolio** is the problem kind's (:meth:`golf.problems.Problem.forms`): for an
   Order/Degree problem cyclic ``g``, metacyclic groups, centre-vertex forms and algebraic
   starts (:mod:`golf.problems.order_degree`), for a grid the rotations its lattice allows
   (:mod:`golf.problems.lattice`), for a host-switch problem numbers of switches and
   polarity graphs (:mod:`golf.problems.order_radix`), in the order of priority that a small
   budget cuts.

2. **Trials held to the clock, by successive halving** (:func:`halving_plan`). The trials
   together get ``search.auto_g_budget`` (default :data:`DEFAULT_BUDGET`, a quarter) of the
   run: of its seconds with a time limit, of its steps with a step budget alone (then every
   slice is a count of steps and the choice is the same on any machine). Round 0 gives every
   form a slice; each later round keeps the better half (rounded up) and gives each survivor
   a slice as long as the round's share allows; the rounds end with two forms. Every round
   gets the same share of the budget, so a form that survives to the end has had most of it.
   A trial is the run's own engine: the population of ``search.batch`` chains (device chains
   where the evaluator runs them, host chains where it does not), its moves, its temperatures
   (sampled from the form's start graph where ``auto``). Every slice cools from the form's T0
   to its T1 (a slice of steps in at least :data:`COOLING_LEVELS` chunks); a survivor goes on
   from the chains where it stopped, reheated. So each round ranks the forms by what a whole,
   if short, anneal reached. Scored while still hot (cooling over all the slices it could get),
   a form's best is its start graph's or near it, which favours an algebraic start (its
   construction scores before any step): on (64, 8) on an H200 the 3-second round-0 slices so
   scored put cyclic g=8 at 4136 and g=4 at 4192 behind ER_8-line's 3947, from which the chases
   end at 3947 (3896 where a rank leaves its basin). Each slice cooled, three 5.5-minute chases
   (seeds 1-3, 5 ranks each, sharing the GPU) chose cyclic g=8 (3936-3940) and ended at 3897,
   3893 and 3895 (excess ratio 1.075-1.112) after its polish at ``g = 1`` (9-minute benchmark
   runs: 3896, 3899). Each slice runs at least one chunk of steps and stops at its share of
   the clock (its set-up counts in it; what the slices of a process overran comes off its later
   ones, none cut below a quarter of its share), so the trials' seconds add up to the budget
   plus about a chunk of steps (~0.2 s) a slice. Before the clock starts, :func:`warm_up`
   compiles every kind of kernel the trials use on a small graph: its seconds are recorded
   (``compile_seconds``) and kept out of the run's clock. A budget that cannot give every form
   a first slice of :data:`MIN_SLICE_SECONDS` (:data:`MIN_SLICE_STEPS`) tries the first forms
   of the portfolio only (the kind orders them by priority).

   With a time limit the trials keep to the clock at every size. Each form's set-up is
   predicted (:func:`_setup`): its start graph (:meth:`golf.problems.Problem.start_seconds`)
   and the first evaluations of its chains and of :data:`MIN_SAMPLES` temperature samples, at
   the backend's estimate of an evaluation (:func:`golf.evaluators.decide`). A form whose
   set-up exceeds :data:`SETUP_SHARE` of the trials' budget is not tried (the rule names it
   and its cost, :func:`_fit_portfolio`), and the portfolio is cut to the forms whose first
   slices are at least twice their set-up (:func:`_affordable`), so that no first slice is
   spent setting up. A trial samples as many temperatures as
   :data:`SAMPLE_SHARE` of its slice holds (:func:`sample_count`). After round 0, where fewer
   than two trials made :data:`MIN_DECIDING_STEPS` steps, their scores say nothing of search
   progress: the forms are compared on their start graphs, the log says so, and the rest of
   the budget goes to the run; where two or more did, the budget of the later rounds moves to
   those and to any form whose graph scores better than all of theirs
   (:func:`stepping_forms`: an algebraic start whose set-up took its slice stays).

3. **The choice**: the smallest ``(diameter, total)`` of the last round (exact integers); a
   tie goes to the larger ``g`` (fewer base sources to score). The main run starts from the
   winner's best graph, at the winner's sampled temperatures where they are ``auto``, and its
   clock already holds the trials' seconds.

summary.json and the checkpoints keep the record under ``auto_g``: ``form`` (``g``,
``group``, ``label``), ``budget`` (the share), ``rounds`` and ``trials`` (each form with its
``seconds``, evaluations, best score by round, or why it was not tried), and ``reason``.

Under MPI with ``parallel.mode: chains`` the forms are dealt round-robin over the ranks and
stay there; each round's results are gathered and every rank ends with the same form and
graph. With ``parallel.mode: evaluator`` all ranks run every trial together, each evaluation
split (rank 0's clock decides).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from golf.errors import GolfError
from golf.problems import Form, problem_of
from golf.run.setup import build_annealer, build_evaluator, form_config, tabu_helpers

__all__ = ["halving_plan", "choose_form", "warm_up", "fit_batch", "sample_count", "Choice",
           "MIN_SLICE_SECONDS", "MIN_SLICE_STEPS", "DEFAULT_BUDGET"]

# the shortest first slice of a trial: seconds, or steps with a step budget
MIN_SLICE_SECONDS = 1.0
MIN_SLICE_STEPS = 100
DEFAULT_BUDGET = 0.25
# a timed trial samples its temperatures in at most this share of its first slice, at the
# backend's estimate of an evaluation (search.sample_moves caps the samples, MIN_SAMPLES is
# the floor)
SAMPLE_SHARE = 0.25
MIN_SAMPLES = 10
# a timed trial that has made fewer population steps than this after its first slice does not
# rank by search progress (module docstring, 2.)
MIN_DECIDING_STEPS = 10
# a slice of steps runs in at least this many chunks, its cooling in as many temperatures (a
# timed slice's chunks take ~0.2 s each: golf.run.coordinate.next_chunk)
COOLING_LEVELS = 8
# a timed portfolio leaves out the forms whose predicted set-up exceeds this share of the
# trials' budget (where others are left): 10^6 vertices at g = 1 on a GPU, ~2.5 s an evaluation
SETUP_SHARE = 0.25


def _affordable(count: int, total: float, least: float, setups=None) -> int:
    """How many forms of the portfolio the budget ``total`` tries with a first slice of at
    least ``least`` each (at least 1); with ``setups`` (the forms' predicted set-up seconds,
    None where unknown), of at least twice the largest set-up of those tried, so that each
    first slice steps for at least as long as it sets up."""
    def need(k):
        known = [x for x in (setups or [])[:k] if x is not None]
        return max([least] + [2.0 * x for x in known])

    while count > 1 and total / len(halving_plan(count)) / count < need(count):
        count -= 1
    return count


def halving_plan(k: int) -> list[int]:
    """The number of forms in each round of successive halving from ``k``: halved (rounded
    up) until two are left.

    >>> halving_plan(11), halving_plan(3), halving_plan(2), halving_plan(1)
    ([11, 6, 3, 2], [3, 2], [2], [1])
    """
    plan = [k]
    while plan[-1] > 2:
        plan.append((plan[-1] + 1) // 2)
    return plan


@dataclass
class Choice:
    """What :func:`choose_form` decided: the ``form`` (None when stopped by a signal), the
    winner's best graph (None without trials), the record for summary.json, the seconds it
    took, ``interrupted`` when a signal stopped the trials, the temperatures the winner
    sampled (the answer of :meth:`golf.engine.annealer.Annealer.auto_temperatures`, or None),
    and for ``search.method: memetic`` the graphs of the winner's chains (``graphs``, best
    first; None otherwise), the memetic population's start. Where ``search.release`` handed
    the run to ``g = 1`` (:func:`released`), ``form`` is that one, ``graph`` None (a fresh
    start) and ``kept`` the winner's graphs at ``g = 1``, best first: the run takes the first
    as its best, the others as starts of its polish (:meth:`golf.run.start.Starter.keep`)."""

    form: Form | None
    graph: object = None
    record: dict = field(default_factory=dict)
    seconds: float = 0.0
    interrupted: bool = False
    sampled: tuple | None = None
    graphs: list | None = None
    kept: object = None


class _Trial:
    """One form's trial: its engine (evaluator and annealer, built at its first slice), what
    it has spent and reached."""

    def __init__(self, index: int, form: Form, cfg: dict):
        self.index, self.form, self.cfg = index, form, cfg
        self.ann = self.ev = None
        self.spent = 0.0  # seconds, or steps with a step budget
        self.seconds = 0.0
        self.chunk = 1
        self.sampled = None
        self.temperatures = None
        self.by_round: list = []
        self.skipped = None
        self.rank = None  # the MPI rank that runs it (chains), else None
        self.stepping = 0.0  # seconds in its steps (set-up and sampling apart)
        self.stepped = 0  # evaluations in those seconds

    def build(self, co, start, seconds=None):
        """The trial's evaluator and annealer, with its temperatures; ``seconds``: its first
        slice, in which a timed trial's temperature samples must fit (:func:`sample_count`)."""
        from golf.engine.annealer import schedule

        tc = form_config(self.cfg, self.form)
        s = tc["search"]
        problem = problem_of(tc["problem"])
        ev = build_evaluator(tc, co.comm)
        tic = time.perf_counter()
        # no step budget: each slice sets the cooling (_slice), in steps or seconds
        ann = build_annealer(tc, problem, start(self.form), ev, seed=s["seed"], steps=0,
                             trace_every=1 << 30)
        count = s["sample_moves"]
        if seconds is not None:  # a timed trial: as many samples as its slice has room for
            per = ev.estimate_seconds or (time.perf_counter() - tic) / max(1, s["batch"])
            count = sample_count(count, SAMPLE_SHARE * seconds, per)
            if co.comm is not None and not co.chains:  # the ranks walk one chain: rank 0's
                count = co.comm.bcast(count, root=0)
        sampled = []

        def sample():
            sampled.extend(ann.auto_temperatures(count))
            return sampled

        t0, t1, _ = schedule(s, sample)
        ann.set_temperatures(t0, t1)
        self.ann, self.ev = ann, ev
        self.temperatures = [t0, t1]
        self.sampled = tuple(sampled) if sampled else None

    def best(self) -> tuple[int, int]:
        from golf.engine.annealer import SC

        return int(self.ann.sc[SC.BEST_D]), int(self.ann.sc[SC.BEST_TOTAL])

    def report(self, n: int) -> dict:
        from golf.engine.annealer import SC

        rec = {**self.form.record(n), "seconds": round(self.seconds, 3)}
        if self.rank is not None:
            rec["rank"] = self.rank
        if self.skipped is not None:
            rec["skipped"] = self.skipped
            return rec
        best = self.best() if self.ann is not None else None
        if self.ann is not None:
            st = self.ann.start_score
            rec["start_score"] = [st.diameter, st.total]
        rec.update(rounds=len(self.by_round), by_round=self.by_round,
                   evaluations=int(self.ann.sc[SC.EVALS]) if self.ann is not None else 0,
                   steps=int(self.ann.sc[SC.STEP]) if self.ann is not None else 0,
                   backend=self.ev.name if self.ev is not None else None,
                   stepping=[round(self.stepping, 4), self.stepped],
                   chains="device" if getattr(self.ann, "on_device", False) else "host")
        if best is not None:
            rec.update(best=list(best), aspl=best[1] / (n * (n - 1) / 2),
                       temperatures=self.temperatures)
            if self.sampled:
                rec["sampled"] = list(self.sampled)
        return rec


def fit_batch(batch: int, seconds: float, per: float | None, steps: int) -> int:
    """The chains of a population that each make ``steps`` steps in ``seconds``, a step of
    every chain costing one evaluation of ``per`` seconds: ``batch`` or fewer, at least one
    (``batch`` where ``per`` or ``steps`` is 0 or unknown)."""
    if not per or per <= 0 or steps <= 0:
        return batch
    return int(max(1, min(batch, seconds / (per * steps))))


def sample_count(count: int, seconds: float, per: float | None) -> int:
    """The temperature samples a timed start takes: ``count`` (``search.sample_moves``), or as
    many as ``seconds`` hold at ``per`` seconds an evaluation, at least :data:`MIN_SAMPLES`."""
    if not per:
        return count
    return int(max(min(MIN_SAMPLES, count), min(count, int(seconds / per))))


def _setup(problem, cfg: dict, chains: int, ranks: int) -> float | None:
    """The predicted seconds of a trial's set-up at ``problem``'s form: its start graph
    (:meth:`golf.problems.Problem.start_seconds`) and the first evaluations of its ``chains``
    and of :data:`MIN_SAMPLES` temperature samples, at the backend's estimate
    (:func:`golf.evaluators.decide`); None where the cost model has no estimate."""
    from golf.evaluators import decide

    e = cfg["evaluator"]
    found = decide(problem.shape, e["backend"], fallback=True, threads=e.get("threads"),
                   ranks=ranks)
    start = problem.start_seconds()
    if found.seconds is None or start is None:
        return None
    return start + (chains + MIN_SAMPLES) * found.seconds


def _fit_portfolio(problem, cfg: dict, portfolio: list, total: float, ranks: int):
    """A timed portfolio for a trials' budget of ``total`` seconds: without the forms whose
    predicted set-up (:func:`_setup`) exceeds :data:`SETUP_SHARE` of it (where some are
    left), and the predicted set-ups of those kept (None: unknown). Returns ``(portfolio,
    set-ups, what was left out for the rule)``."""
    chains = cfg["search"]["batch"]
    setups = [_setup(problem.at_form(f), form_config(cfg, f), chains, ranks) for f in portfolio]
    out = [i for i, x in enumerate(setups) if x is not None and x > SETUP_SHARE * total]
    if not out or len(out) == len(portfolio):
        return portfolio, setups, ""
    n = problem.order
    note = (f"; left out, their set-up (start graph and first evaluations) predicted beyond "
            f"{SETUP_SHARE:g} of the trials' budget: "
            + ", ".join(f"{portfolio[i].label(n)} (~{setups[i]:.3g} s)" for i in out))
    keep = [i for i in range(len(portfolio)) if i not in out]
    return [portfolio[i] for i in keep], [setups[i] for i in keep], note


def _slice(trial: _Trial, amount: float, timed: bool, co, stopped, deadline, start) -> int:
    """One slice of ``trial``: ``amount`` seconds (``timed``) or steps, its set-up included;
    returns a stop reason (0: the slice ran out) -- INTERRUPTED, TIME (the trials' deadline) or
    the annealer's own (it reached the bounds)."""
    from golf.engine.annealer import SC, StopReason
    from golf.run.coordinate import next_chunk

    t = time.perf_counter()
    try:
        if trial.ann is None:
            trial.build(co, start, amount if timed else None)
        ann = trial.ann
        step0 = int(ann.sc[SC.STEP])
        ran = False  # a slice runs at least one chunk: a form is scored by its steps
        while True:
            now = time.perf_counter()
            used = (now - t) if timed else int(ann.sc[SC.STEP]) - step0
            late = int(StopReason.TIME) if deadline is not None and now >= deadline else 0
            frac = min(1.0, used / amount)  # each slice cools from T0 to T1
            if co.chains or co.comm is None:
                reason = int(StopReason.INTERRUPTED) if stopped() else late
                done = used >= amount
            else:  # the ranks walk one chain: rank 0's clock, chunk and cooling decide
                reason, trial.chunk, frac, done, _ = co.decide(stopped(), late, trial.chunk,
                                                               frac, used >= amount, False)
            if reason or (done and ran) or ann.stop_reason:
                reason = reason or (int(ann.stop_reason) if ann.stop_reason else 0)
                break
            chunk = trial.chunk if timed else max(1, min(trial.chunk, int(amount - used),
                                                         -(-int(amount) // COOLING_LEVELS)))
            tic = time.perf_counter()
            evals = int(ann.sc[SC.EVALS])
            ann.run(chunk, time_frac=frac)
            toc = time.perf_counter()
            took = toc - tic
            trial.stepping += took
            trial.stepped += int(ann.sc[SC.EVALS]) - evals
            left = [deadline - toc] if deadline is not None else []
            # a slice of steps: chunks that double whatever they took, so that its cooling
            # levels (the chunks' ends) are the same on any machine and under any load
            trial.chunk = (next_chunk(chunk, took, min([amount - (toc - t)] + left)) if timed
                           else 2 * chunk)
            ran = True
        trial.spent += used if not timed else time.perf_counter() - t
        return reason
    finally:
        trial.seconds += time.perf_counter() - t


def warm_up(cfg: dict, portfolio: list) -> None:
    """Compile, before the trials' clock starts, what the trials will run: a few steps of the
    run's engine on a small graph of each kind the portfolio holds (cyclic or group; the
    backend of each form), and with a polish phase its tabu search (and the cyclic kind of
    ``search.polish_g``; under a GPU backend also bitset's, which a polish may score with);
    on the problem kind's small section (:meth:`golf.problems.Problem.warm_up_section`: for a
    grid a 4x4 lattice, whose moves and tabu search take a length limit and so are code of
    their own). The compiled code is the same for every size, so the first trial of a kind
    is not charged a compilation (tens of seconds on a fresh install, cached on disk
    after)."""
    from golf.evaluators import backend_class, decide
    from golf.group import Group
    from golf.io import graph_text

    p, e, s = cfg["problem"], cfg["evaluator"], cfg["search"]
    small = problem_of(p).warm_up_section()
    if small is None:  # nothing compiled that way for this kind
        return
    polish = s["polish"] > 0 and s["method"] != "tabu"

    def backend(g, centres=0):
        if e["backend"] != "auto":
            return e["backend"]
        shape = problem_of(dict(p, g=g, group=None, centres=centres)).shape
        return decide(shape, threads=e.get("threads")).name

    kinds = {(backend(f.g, f.centres), f.group is not None, f.centres > 0) for f in portfolio}
    if polish and s["polish_g"] is not None:  # the polish phase's own symmetry (cyclic)
        kinds.add((backend(s["polish_g"]), False, False))
    if polish and any(backend_class(k[0]).supports.gpu for k in kinds):
        kinds.add(("bitset", False, False))  # a polish may score on the CPU (Search)
    for name, grouped, centred in sorted(kinds):
        form = (Form(8, Group(4, 2, 3)) if grouped else Form(3, None, None, 1) if centred
                else Form(4))
        tc = form_config(cfg, form)
        tc["problem"].update(small, g=form.g, group=form.spec, centres=form.centres)
        tc["evaluator"] = dict(e, backend=name)
        tc["search"] = dict(tc["search"], steps=4, time_limit=None)
        try:
            problem = problem_of(tc["problem"])
            ev = build_evaluator(tc)  # every process on its own: no collective call
            ann = build_annealer(tc, problem, problem.random_graph(1), ev, steps=4, seed=1,
                                 trace_every=1 << 30)
            ann.auto_temperatures(10)
            ann.set_temperatures(1.0, 0.5)
            ann.run(2, time_frac=0.5)
            if polish:  # the tabu search of the polish phase
                from golf.engine.tabu import TabuSearch

                TabuSearch(ann.best_graph(), ev, steps=2, neighbourhood=16, tenure=2, seed=1,
                           trace_every=1 << 30, reach=problem.reach(),
                           helpers=tabu_helpers(tc, ev)[:1]).run(2)  # threads: theirs too
            graph_text(ann.best_graph())  # the writer of best.edges (compiled)
        except GolfError:  # a backend that takes no such graph: its trials compile it
            pass


def _reports(co, mine: list, n: int) -> dict:
    """``index -> report`` of the trials after a round: this process's ``mine``, and under
    MPI chains every rank's."""
    reports = {tr.index: tr.report(n) for tr in mine}
    if co.chains and co.comm is not None:
        reports = {i: rep for part in co.comm.allgather(reports) for i, rep in part.items()}
    return reports


def choose_form(cfg: dict, co, log, stopped, start) -> Choice:
    """Resolve ``problem.g: auto`` (module docstring). ``co`` is the run's
    :class:`golf.run.coordinate.Coordinator`, ``log`` its log, ``stopped()`` says a signal
    came, ``start(form)`` builds the start graph of a form. Every rank returns the same
    :class:`Choice`."""
    from golf.engine.annealer import StopReason

    t = time.perf_counter()
    s = cfg["search"]
    problem = problem_of(cfg["problem"])
    n = problem.order
    portfolio, rule = problem.forms()
    timed = bool(s["time_limit"])
    total = s["auto_g_budget"] * (s["time_limit"] if timed else s["steps"])
    least = MIN_SLICE_SECONDS if timed else MIN_SLICE_STEPS
    ranks = co.comm.size if co.comm is not None and not co.chains else 1
    setups = None
    if timed:  # the clock at every size: forms that cannot set up in the trials left out
        portfolio, setups, note = _fit_portfolio(problem, cfg, portfolio, total, ranks)
        rule += note
    count = _affordable(len(portfolio), total, least, setups)
    if count < len(portfolio):
        rule += (f"; the first {count} of {len(portfolio)}: the budget gives each a first "
                 f"slice of at least {least:g}{'s' if timed else ' steps'}"
                 + (" and twice its predicted set-up" if setups and any(
                     x is not None for x in setups[:count]) and timed else ""))
        portfolio = portfolio[:count]
    record = {"candidates": [f.record(n) for f in portfolio], "rule": rule,
              "budget": s["auto_g_budget"]}
    compiled = _compile(cfg, portfolio, record, log) if timed else 0.0
    if len(portfolio) == 1:
        return _single(record, portfolio[0], f"{rule}: one form", log, n)
    plan = halving_plan(len(portfolio))
    share = [total / len(plan) / k for k in plan]  # a slice of each round
    unit = "s" if timed else " steps"
    log(f"g: auto: {len(portfolio)} forms ({rule}); successive halving {plan} over "
        f"{s['auto_g_budget']:g} of the run's {'seconds' if timed else 'steps'} "
        f"({total:,.1f}{unit}): slices of "
        + ", ".join(f"{x:,.1f}{unit}" if timed else f"{int(x):,}{unit}" for x in share))
    trials = [_Trial(i, f, cfg) for i, f in enumerate(portfolio)]
    rank, size = (co.comm.rank, co.comm.size) if co.chains and co.comm is not None else (0, 1)
    if size > 1:
        for tr in trials:
            tr.rank = tr.index % size
    deadline = time.perf_counter() + total if timed else None  # after the warm-up
    alive = list(range(len(trials)))
    reports: dict = {}
    debt = 0.0  # the seconds this process's slices ran over their shares (< 0: under)
    done_here = 0  # slices this process has run
    halted = False
    on_starts = None  # why the forms are compared on their start graphs (module docstring)
    r = 0
    while r < len(plan):
        for i in alive:
            tr = trials[i]
            if i % size != rank or tr.skipped is not None or halted:
                continue
            # an overrun (a first compilation, a slow set-up) is spread over the slices this
            # process has left, none cut below a quarter of its share
            left = max(1.0, sum(plan) / size - done_here)
            amount = (min(2 * share[r], max(0.25 * share[r], share[r] - debt / left)) if timed
                      else share[r])
            done_here += 1
            before = tr.seconds if timed else tr.spent
            try:
                reason = _slice(tr, amount, timed, co, stopped, deadline, start)
            except GolfError as exc:  # a form whose start graph cannot be built, ...
                tr.skipped = str(exc)
                reason = 0
            if timed:
                debt += (tr.seconds - before) - share[r]
            if reason == StopReason.INTERRUPTED:
                halted = True
            elif tr.skipped is None and tr.ann is not None:
                tr.by_round.append(list(tr.best()))
        if co.chains and co.comm is not None:
            halted = any(co.comm.allgather(halted))
        if halted:
            return Choice(None, seconds=time.perf_counter() - t - compiled, interrupted=True)
        reports.update(_reports(co, [trials[i] for i in alive if i % size == rank], n))
        ranked = sorted((i for i in alive if "best" in reports[i]),
                        key=lambda i: (*reports[i]["best"], -portfolio[i].g, i))
        for i in alive:
            log(_trial_line(r, reports[i]))
        if not ranked:
            raise GolfError("g: auto: no form could be tried: " + "; ".join(
                f"{reports[i]['label']}: {reports[i].get('skipped')}" for i in alive))
        if timed and r == 0:  # too few steps to rank by search progress
            stepped = [i for i in ranked if reports[i]["steps"] >= MIN_DECIDING_STEPS]
            if len(stepped) < 2 and len(ranked) > 1:
                ranked = sorted(ranked, key=lambda i: (*reports[i]["start_score"],
                                                       -portfolio[i].g, i))
                most = max(reports[i]["steps"] for i in alive if "steps" in reports[i])
                on_starts = (f"the trials made fewer than {MIN_DECIDING_STEPS} steps each in "
                             f"their first slice (at most {most}): the forms were compared on "
                             f"their start graphs")
                log(f"g: auto: {on_starts}")
                alive = ranked[:1]
                break
            kept = stepping_forms(ranked, stepped)
            if len(kept) < len(ranked):
                ahead = len(kept) - len(stepped)
                log(f"g: auto round 0: {len(ranked) - len(stepped)} forms made fewer than "
                    f"{MIN_DECIDING_STEPS} steps in their first slice; the budget moves to the "
                    f"{len(stepped)} that did"
                    + (f" and the {ahead} whose graph scores better than all of theirs ("
                       + ", ".join(portfolio[i].label(n) for i in kept[:ahead]) + ")"
                       if ahead else ""))
                ranked = kept
                plan = plan[:1] + [len(kept)] + halving_plan(len(kept))[1:]
                share = share[:1] + [(total - share[0] * len(alive)) / (len(plan) - 1) / k
                                     for k in plan[1:]]
        keep = plan[r + 1] if r + 1 < len(plan) else 1
        out = [i for i in alive if i not in ranked[:keep]]
        alive = ranked[:keep]
        if r + 1 < len(plan):
            log(f"g: auto round {r}: kept {', '.join(portfolio[i].label(n) for i in alive)}")
        for i in out:  # free the engines of the forms that are out (GPU buffers)
            trials[i].ann = trials[i].ev = None
        r += 1
    win = alive[0]
    seconds = time.perf_counter() - t - compiled
    final = [reports[i] for i in range(len(trials))]
    mine = win % size == rank
    best_rows = trials[win].ann.best_adj.copy() if mine else None
    sampled = trials[win].sampled if mine else None
    pool = None  # the winner's chains' graphs, best first (_pool_size)
    wanted = _pool_size(cfg, portfolio[win], on_starts, size)
    if mine and wanted:
        pool = [gr.adj.copy() for gr in trials[win].ann.best_graphs(wanted)]
    if co.chains and co.comm is not None:
        best_rows, sampled, pool = co.comm.bcast((best_rows, sampled, pool), root=win % size)
    won = _Won(portfolio[win], final, plan, best_rows, sampled, seconds, on_starts, pool)
    return _decided(record, won, cfg, log)


def _pool_size(cfg: dict, form: Form, on_starts, ranks: int) -> int:
    """How many of the winner's chains' graphs the run takes on: a memetic run's population
    (``search.members``); a released run's polish starts (:func:`released`: up to
    ``search.polish_starts`` for each of ``ranks`` ranks of chains,
    :meth:`golf.run.start.Starter.keep`); else none."""
    s = cfg["search"]
    if s["method"] == "memetic":
        return s["members"]
    if s["release"] and on_starts is None and released(form) and s["polish"] > 0:
        return s["polish_starts"] * ranks
    return 0


def stepping_forms(ranked: list, stepped: list) -> list:
    """The forms that stay after a first round in which some made too few steps to judge their
    search (``ranked``: every form, best score first; ``stepped``: those that made enough, in
    that order): the stepping ones, and before them every form whose graph scores better than
    the best of theirs (a start graph no stepping form has reached yet, e.g. an algebraic one
    whose set-up took the slice)."""
    first = ranked.index(stepped[0]) if stepped else len(ranked)
    return ranked[:first] + [i for i in ranked[first:] if i in stepped]


def _compile(cfg: dict, portfolio: list, record: dict, log) -> float:
    """The warm-up (:func:`warm_up`), timed on its own: its seconds are recorded
    (``compile_seconds``), logged and left out of the run's clock."""
    t = time.perf_counter()
    warm_up(cfg, portfolio)
    seconds = time.perf_counter() - t
    record["compile_seconds"] = round(seconds, 3)
    log(f"g: auto: compiled what the trials run in {seconds:.1f} s (not counted in the "
        f"run's time)")
    return seconds


def _trial_line(r: int, rep: dict) -> str:
    if "skipped" in rep:
        return f"g: auto round {r}: {rep['label']}: not tried ({rep['skipped']})"
    if "best" not in rep:
        return f"g: auto round {r}: {rep['label']}: nothing run yet"
    return (f"g: auto round {r}: {rep['label']}: best diameter {rep['best'][0]}, ASPL "
            f"{rep['aspl']:.10f}; {rep['evaluations']:,} evaluations ({rep['backend']}, "
            f"{rep['chains']} chains) in {rep['seconds']:.2f} s")


def _reason(final: list, win: dict, plan: list) -> str:
    last = [t for t in final if t.get("rounds") == len(plan) and "best" in t]
    text = (f"its trial reached the best score of the last round ({len(last)} forms, "
            f"{win['seconds']:.1f} s of trials for it): diameter {win['best'][0]}, ASPL "
            f"{win['aspl']:.10f}")
    others = [t for t in last if t is not win and t["label"] != win["label"]]
    if others:
        nxt = min(others, key=lambda t: (t["best"][0], t["best"][1], -t["g"]))
        text += f"; next {nxt['label']}: diameter {nxt['best'][0]}, ASPL {nxt['aspl']:.10f}"
    return text


@dataclass
class _Won:
    """The end of the trials: the winning ``form``, every trial's report (``final``), the
    rounds' ``plan``, the winner's best rows and sampled temperatures, the trials'
    ``seconds``, why the forms were compared on their start graphs (None: they were
    ranked by their trials' progress), and for a memetic or a released run the base rows of
    the winner's chains' graphs (``pool``, best first; :func:`_pool_size`)."""

    form: Form
    final: list
    plan: list
    best_rows: object
    sampled: tuple | None
    seconds: float
    on_starts: str | None = None
    pool: list | None = None


def _decided(record: dict, won: _Won, cfg: dict, log) -> Choice:
    """The choice after the trials: logged (why), recorded."""
    from golf.graph import sort_rows

    form, final, plan, sampled, seconds = won.form, won.final, won.plan, won.sampled, won.seconds
    problem = problem_of(cfg["problem"])
    n = problem.order
    win = next(t for t in final if t["label"] == form.label(n))
    reason = (_reason(final, win, plan) if won.on_starts is None else
              f"its start graph scored best (diameter {win['start_score'][0]}, ASPL "
              f"{win['start_score'][1] / (n * (n - 1) / 2):.10f}): {won.on_starts}")
    log(f"g: auto chose {form.label(n)} because {reason}")
    record.update(g=form.g, group=form.spec, form=form.record(n), reason=reason,
                  rounds=plan, trials=final, seconds=round(seconds, 3),
                  evaluations=sum(t.get("evaluations", 0) for t in final),
                  winner={"stepping": win.get("stepping"), "chains": win.get("chains")})
    if sampled:
        sampled = (sampled[0], sampled[1], f"of the {form.label(n)} trial ({sampled[2]})")
    graph = problem.at_form(form).graph(sort_rows(won.best_rows))
    graphs = [graph.with_rows(rows) for rows in won.pool] if won.pool else None
    if cfg["search"]["release"] and won.on_starts is None and released(form):
        return _release(record, problem, form, [graph, *(graphs or ())[1:]], win, seconds,
                        log)
    return Choice(form, graph, record, seconds, sampled=sampled, graphs=graphs)


def released(form: Form) -> bool:
    """``search.release``: the trials' winner ``form`` hands the run to ``g = 1`` -- it is
    symmetric. A symmetric form's optimum is a local one among all graphs; ``g = 1``, which
    holds every graph, needs longer than the trials' first rounds give it, and a small graph's
    run gives it that time. (96, 3), 9-minute chases on an H200: the trials chose cyclic g=6
    (total 19545); kept, the chases ended at 19533 (one rank; five ranks, where the trial
    still improved in its last slice); released, at 19484 (one rank; eight ranks) and 19509
    (one rank; results/quality/quality_gpu.md). How long ``g = 1`` needs grows with ``n``:
    ``golf chase`` sets the release for small ``n`` only (``golf.run.chase.RELEASE_MAX_N``)."""
    return form.g > 1


def _release(record: dict, problem, form: Form, graphs: list, win: dict, seconds: float,
             log) -> Choice:
    """The choice handed to ``g = 1`` (:func:`released`): a fresh start at the cyclic ``g =
    1``, the winner's ``graphs`` kept (at ``g = 1``; its best first, then its chains' others,
    :func:`_pool_size`); logged, recorded under ``released``."""
    n = problem.order
    one = Form(1)
    kept = problem.at_form(form).renumber(graphs, 1)
    d, total = win["best"]
    why = (f"{form.label(n)} is symmetric (its best: diameter {d}, ASPL {win['aspl']:.10f}), "
           f"and g=1 holds every graph (search.release)")
    log(f"g: auto: released to {one.label(n)}: {why}; the run goes on from a fresh start, "
        f"with that graph kept as its best")
    record.update(released={"from": form.record(n), "best": [d, total], "why": why},
                  g=1, group=None, form=one.record(n),
                  winner={"stepping": None, "chains": (record.get("winner") or {}).get(
                      "chains")})
    return Choice(one, None, record, seconds, kept=kept)


def _single(record: dict, form: Form, why: str, log, n: int, trials=(),
            seconds: float = 0.0) -> Choice:
    """The choice without trials (``trials``: the reports of forms not tried)."""
    log(f"g: auto chose {form.label(n)} because {why}")
    record.update(g=form.g, group=form.spec, form=form.record(n), reason=why, rounds=[],
                  trials=list(trials), seconds=round(seconds, 3), evaluations=0)
    return Choice(form, None, record, seconds)
