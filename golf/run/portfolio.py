"""``problem: {g: auto}``: the symmetry form of the run, chosen by trials before it.

A *form* (:class:`Form`) is a symmetry order ``g`` (``m = n/g`` base vertices) and its group:
the cyclic group ``Z_g`` or a metacyclic group ``Z_a ⋊_r Z_b`` (:mod:`golf.group`). Which
form pays differs from pair to pair, so :func:`choose_form` tries a portfolio of them with the
run's own engine and keeps the best.

1. **The portfolio** (:func:`forms`).

   * Cyclic ``g``: the divisors of ``n`` with ``m >= d``, and ``g = 1``; at most
     :data:`CYCLIC_FORMS`, spread evenly over ``log g`` (the largest and ``1`` always). Below
     ``m = d`` a cyclic lift has too few classes to search: (256, 8) did best at ``g = 32``
     and (1024, 8) at ``g = 128`` in cyclic runs (``m = 8`` both).
   * Metacyclic groups of order ``n/m`` for ``m`` in :data:`GROUP_M` (1, 2, 4, 8):
     :func:`golf.group.metacyclic_groups` lists the non-abelian ones, one of each
     isomorphism class (an abelian non-cyclic group adds commutator 4-cycles to every lift,
     which is what the non-abelian ones remove). Of each order :data:`GROUPS_PER_ORDER` are
     kept, ranked by :func:`group_prior`: ``a`` near ``1.5 sqrt(g)``, then a large order of
     ``r``, then a large commutator subgroup. The rank is read off the forms that won:
     ``Z_16 ⋊_3 Z_8`` for (256, 8), ``Z_32 ⋊_3 Z_16`` for (1024, 8), ``Z_32 ⋊_3 Z_8`` for
     (512, 8) and (1024, 4), ``Z_73 ⋊_10 Z_64`` for (9344, 6) and ``Z_250 ⋊_3 Z_200`` for
     (100000, 20) each rank first of their order, and the second pick has another ``a``, so
     that the two differ in shape (``results/quality/``).
   * ``problem.group: cyclic`` with ``g: auto`` keeps the cyclic forms only; a grid problem
     tries the rotations its lattice allows (1, 2 and 4 where they exist).
   * Centre-vertex forms (:func:`centre_forms`, :mod:`golf.graph`): ``n = g*m + c`` with
     ``c`` of :data:`CENTRES` (1, 2) and the largest ``g <= d`` that divides ``n - c``, where
     that ``g`` exceeds every other form's: for an order that no useful ``g`` divides (a
     prime; ``n*d`` odd), which otherwise has ``g = 1`` and ``n`` sources to score. (101, 6):
     ``Z_5`` with one centre (20 orbits) and ``Z_3`` with two, where ``g = 1`` is all else.
   * First of all, where a construction of :mod:`golf.starts.algebraic` lies near ``(n, d)``
     (dense pairs: ``ER_32-line`` for (1024, 32)) and ``problem.start`` is random: ``g = 1`` from
     that construction fitted to the pair, which starts closer to the record than the other
     forms get in their trials.

2. **Trials held to the clock, by successive halving** (:func:`halving_plan`). The trials
   together get ``search.auto_g_budget`` (default :data:`DEFAULT_BUDGET`, a quarter) of the
   run: of its seconds with a time limit, of its steps with a step budget alone (then every
   slice is a count of steps and the choice is the same on any machine). Round 0 gives every
   form a slice; each later round keeps the better half (rounded up) and gives each survivor
   a slice as long as the round's share allows; the rounds end with two forms. Every round
   gets the same share of the budget, so a form that survives to the end has had most of it.
   A trial is the run's own engine: the population of ``search.batch`` chains (device chains
   where the evaluator runs them, host chains where it does not), its moves, its
   temperatures (sampled from the form's start graph where ``auto``); a survivor goes on from
   where it stopped, its cooling spread over the slices it would get if it won. Each slice
   runs at least one chunk of steps and stops at its share of the clock (its set-up counts in
   it; what the slices of a process overran comes off its later ones, none cut below a
   quarter of its share), so the trials' seconds add up to the budget plus about a chunk of
   steps (~0.2 s) a slice. Before the clock starts, :func:`warm_up` compiles every kind of
   kernel the trials use on a small graph. A budget that cannot give every form a first slice
   of :data:`MIN_SLICE_SECONDS` (:data:`MIN_SLICE_STEPS`) tries the first forms of the
   portfolio only (:func:`forms` orders them by :data:`PRIORITY_M`).

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

import copy
import math
import time
from dataclasses import dataclass, field

from golf.errors import GolfError
from golf.run.problem import Problem

__all__ = ["divisors", "candidates", "forms", "switch_forms", "SWITCH_FACTORS", "group_prior", "halving_plan", "choose_form",
           "Form", "Choice", "CYCLIC_FORMS", "GROUP_M", "GROUPS_PER_ORDER", "DEFAULT_BUDGET",
           "M_PER_DEGREE", "centre_forms", "CENTRES"]

# the floor on m = n/g of a cyclic form, in units of d
M_PER_DEGREE = 1
CYCLIC_FORMS = 3
GROUP_M = (1, 2, 4, 8)
# the order in which the first group of each m comes in the portfolio (after the largest
# cyclic g; g = 1 comes fourth): small budgets try the first forms only
PRIORITY_M = (2, 4, 1, 8)
# the shortest first slice of a trial: seconds, or steps with a step budget
MIN_SLICE_SECONDS = 1.0
MIN_SLICE_STEPS = 100
GROUPS_PER_ORDER = 2
DEFAULT_BUDGET = 0.25
# the centre counts of the centre-vertex forms (centre_forms)
CENTRES = (1, 2)
# the numbers of switches a host-switch problem tries, relative to the suggested one
SWITCH_FACTORS = (0.8, 1.25, 0.64, 1.56)
# the polarity graphs ER_q a host-switch problem tries as its switch graph, the smallest q
# that hold the hosts first: ER_16 for (4608, 36) starts at h-diameter 4, 3.923119, where
# the random starts' annealing reached h-diameter 5 (results/hostswitch/)
POLARITY_FORMS = 2


def divisors(n: int) -> list[int]:
    """The divisors of ``n``, ascending."""
    small = [k for k in range(1, math.isqrt(n) + 1) if n % k == 0]
    return sorted(set(small + [n // k for k in small]))


def candidates(n: int, d: int, cap: int = CYCLIC_FORMS) -> list[int]:
    """The cyclic orders ``g`` worth a trial, ascending: divisors of ``n`` with ``n/g >= d``,
    and 1; at most ``cap``, spread over ``log g`` (the largest and 1 always).

    >>> candidates(256, 8)
    [1, 8, 32]
    >>> candidates(256, 8, cap=8)
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


@dataclass(frozen=True)
class Form:
    """A symmetry form: order ``g`` and ``group`` (a :class:`golf.group.Group`, None for the
    cyclic ``Z_g``); ``construction`` names the algebraic start graph of a ``g = 1`` form that
    starts from one (``ER_32-line``: :mod:`golf.starts.algebraic`), None for the config's start;
    ``centres`` the centre vertices (:mod:`golf.graph`, ``g`` divides ``n - centres``);
    ``switches`` the number of switches of a host-switch problem (:mod:`golf.hostswitch`;
    0 for the others)."""

    g: int
    group: object = None
    construction: str | None = None
    centres: int = 0
    switches: int = 0

    @property
    def spec(self):
        """``problem.group``'s value: ``[a, r]`` or None."""
        return None if self.group is None else self.group.spec

    @property
    def start(self) -> str | None:
        """``problem.start``'s value for this form (None: the config's)."""
        return None if self.construction is None else "algebraic"

    def label(self, n: int) -> str:
        m = (n - self.centres) // self.g
        if self.switches:
            return (f"{self.construction}: " if self.construction else "") + (
                f"{self.switches} switches")
        if self.construction is not None:
            return f"{self.construction} fitted, g=1 (m={m})"
        if self.centres:
            c = self.centres
            return f"cyclic g={self.g} (m={m}) + {c} centre{'s' if c > 1 else ''}"
        if self.group is None:
            return f"cyclic g={self.g} (m={m})"
        return f"{self.group.label} (g={self.g}, m={m})"

    def record(self, n: int) -> dict:
        out = {"g": self.g, "group": self.spec, "m": (n - self.centres) // self.g,
               "label": self.label(n)}
        if self.start is not None:
            out["start"] = self.start
        if self.centres:
            out["centres"] = self.centres
        if self.switches:
            out.update(switches=self.switches, m=self.switches)
        return out

    def changes(self) -> list:
        """The ``(section, key, value)`` settings of a config that this form sets: the
        symmetry, and for an algebraic start the start and ``search.method: hill``. From a
        construction near the Moore bound almost every swap is uphill: annealing at the
        temperatures sampled from it never went below it on (1024, 32) (12.4 M evaluations
        in 10 minutes on 2 cores), where hill climbing (plateau moves taken) went from ASPL
        2.039952 to 2.034921 in 60 s."""
        out = [("problem", "g", self.g), ("problem", "group", self.spec),
               ("problem", "centres", self.centres)]
        if self.switches:
            out += [("problem", "switches", self.switches), ("problem", "n", self.switches)]
        if self.start is not None:
            out += [("problem", "start", self.start), ("search", "method", "hill")]
        return out

    def config(self, cfg: dict) -> dict:
        """``cfg`` with this form's settings (:meth:`changes`); a centre form on a backend
        that scores no centres (the GPU ones) is scored by the one ``auto`` picks among the
        others (a CPU backend, host chains)."""
        from golf.evaluators import decide

        out = copy.deepcopy(cfg)
        for section, key, value in self.changes():
            out[section][key] = value
        name = out["evaluator"]["backend"]
        if (name != "auto" and self.centres
                and decide(Problem(out["problem"]).shape, name, fallback=True).name != name):
            out["evaluator"]["backend"] = "auto"
        return out


def group_prior(grp) -> tuple:
    """The rank of a group among those of its order (smaller first; module docstring): how far
    ``a`` is from ``1.5 sqrt(g)`` (in log), less a half of ``log ord(r) / log g`` and 0.3 of
    the commutator subgroup's share of ``Z_a``.

    >>> from golf.group import metacyclic_groups
    >>> min(metacyclic_groups(512), key=group_prior).label
    'Z_32 ⋊_3 Z_16'
    """
    from golf.group import _order_mod, invariants

    g = grp.g
    score = (abs(math.log(grp.a / math.sqrt(g)) - math.log(1.5))
             - 0.5 * math.log(_order_mod(grp.r, grp.a)) / math.log(g)
             - 0.3 * invariants(grp)[1] / grp.a)
    return (score, grp.a, grp.r)


def _groups_of_order(g: int) -> list:
    """The :data:`GROUPS_PER_ORDER` best groups of order ``g`` by :func:`group_prior`, each
    with an ``a`` of its own."""
    from golf.group import metacyclic_groups

    out, seen_a = [], set()
    for grp in sorted(metacyclic_groups(g), key=group_prior):
        if grp.a not in seen_a:
            out.append(grp)
            seen_a.add(grp.a)
        if len(out) == GROUPS_PER_ORDER:
            break
    return out


def forms(problem: dict) -> tuple[list[Form], str]:
    """The portfolio of a config's ``problem`` section, in the order of priority that a small
    budget cuts (:data:`PRIORITY_M`), and the rule that made it (module docstring)."""
    from golf.starts.algebraic import construction_for

    n, d = problem["n"], problem["d"]
    if problem.get("hosts") is not None:
        return switch_forms(problem["hosts"], d)
    p = Problem(problem, 1)
    if p.grid is not None:
        gs, rule = p.trial_candidates(None)
        return [Form(g) for g in gs], rule
    floor = "d" if M_PER_DEGREE == 1 else f"{M_PER_DEGREE}d"
    cyclic = [Form(g) for g in sorted(candidates(n, d), reverse=True)]
    rule = (f"cyclic g: divisors of n={n} with m = n/g >= {floor} = {M_PER_DEGREE * d}, and 1 "
            f"(at most {CYCLIC_FORMS})")
    if problem.get("group") == "cyclic":
        return cyclic, rule + "; problem.group: cyclic"
    groups = {m: [Form(n // m, grp) for grp in _groups_of_order(n // m)]
              for m in GROUP_M if n % m == 0 and n // m >= 6}
    # the order of priority, which a small budget cuts (see _affordable)
    first = [groups[m][0] for m in PRIORITY_M if groups.get(m)]
    lead = first[:2] + cyclic[-1:] + first[2:]
    rest = cyclic[1:-1] + [f for m in PRIORITY_M for f in groups.get(m, [])[1:]]
    out = cyclic[:1] + [f for f in lead if f not in cyclic[:1]] + rest
    rule += (f"; metacyclic groups of order n/m for m in {list(GROUP_M)}, {GROUPS_PER_ORDER} "
             f"an order (golf.run.portfolio.group_prior)")
    top = max(f.g for f in out)
    centred = [Form(g, None, None, c) for g, c in centre_forms(n, d) if g > top]
    if centred and problem.get("start") in (None, "random"):
        out = out[:1] + centred + out[1:]
        rule += (f"; with centres: n - c = g*m for c in {list(CENTRES)}, 3 <= g <= d, m >= d, "
                 f"the largest g of each c, where it beats every other form's g")
    found = construction_for(n, d) if problem.get("start") in (None, "random") else None
    if found is not None:  # first: for a dense pair it starts far closer than any other form
        out.insert(0, Form(1, None, found.name))
        rule += f"; first, g=1 from the algebraic start {found.label}"
    return out, rule


def switch_forms(hosts: int, r: int) -> tuple[list[Form], str]:
    """The numbers of switches a host-switch problem tries (:mod:`golf.hostswitch`): the one
    of :func:`golf.hostswitch.radix_bounds.suggested_switches` first, then the one of
    :func:`~golf.hostswitch.radix_bounds.even_switches` (the hosts spread evenly over a real
    degree; 101 against 108 on (432, 12), 196 against 200 on (10000, 100)), then the first
    times :data:`SWITCH_FACTORS`, each rounded, those that can connect the hosts (a port for
    a link on every switch) with no more switches than hosts, each once."""
    from golf.starts.switch_wiring import polarity_fits
    from golf.hostswitch.radix_bounds import even_switches, fewest_switches, suggested_switches

    best = suggested_switches(hosts, r)
    even = even_switches(hosts, r)
    least = fewest_switches(hosts, r)
    out: list[int] = []
    for f in (1.0, even / best, *SWITCH_FACTORS):
        sw = max(least, int(round(best * f)))
        fits = sw == 1 or (-(-hosts // sw) < r and sw * r - hosts >= 2 * (sw - 1))
        if fits and sw not in out and sw <= hosts:
            out.append(sw)
    rule = (f"switches: {best} (the smallest estimate of the h-ASPL: golf.hostswitch."
            f"radix_bounds.suggested_switches), {even} (hosts spread evenly: even_switches), "
            f"and {best} times {', '.join(map(str, SWITCH_FACTORS))}")
    forms = [Form(1, switches=sw) for sw in out]
    qs = polarity_fits(hosts, r)[:POLARITY_FORMS]
    if qs:  # first: h-diameter 4 from the start wherever they hold the hosts
        forms = [Form(1, construction=f"ER_{q}", switches=q * q + q + 1) for q in qs] + forms
        rule = (f"first the polarity graphs {', '.join(f'ER_{q}' for q in qs)} as the switch "
                f"graph (diameter 2: golf.starts.switch_wiring.polarity_ports), then " + rule)
    return forms, rule


def centre_forms(n: int, d: int) -> list[tuple[int, int]]:
    """``(g, c)`` of the centre-vertex forms worth a trial (:mod:`golf.graph`): for each
    ``c`` in :data:`CENTRES`, the largest ``g`` with ``3 <= g <= d`` (a centre takes whole
    orbits of ``g`` vertices; ``g = 2`` would halve the sources only) dividing ``n - c`` with
    ``m = (n - c)/g >= d``.

    >>> centre_forms(101, 6)
    [(5, 1), (3, 2)]
    """
    out = []
    for c in CENTRES:
        ok = [g for g in divisors(n - c) if 3 <= g <= d and (n - c) // g >= M_PER_DEGREE * d]
        if ok:
            out.append((max(ok), c))
    return out


def _affordable(count: int, total: float, least: float) -> int:
    """How many forms of the portfolio the budget ``total`` tries with a first slice of at
    least ``least`` each (at least 1)."""
    while count > 1 and total / len(halving_plan(count)) / count < least:
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
    took, ``interrupted`` when a signal stopped the trials, and the temperatures the winner
    sampled (the answer of :meth:`golf.engine.annealer.Annealer.auto_temperatures`, or None)."""

    form: Form | None
    graph: object = None
    record: dict = field(default_factory=dict)
    seconds: float = 0.0
    interrupted: bool = False
    sampled: tuple | None = None


class _Trial:
    """One form's trial: its engine (evaluator and annealer, built at its first slice), what
    it has spent and reached."""

    def __init__(self, index: int, form: Form, cfg: dict, planned: float):
        self.index, self.form, self.cfg, self.planned = index, form, cfg, planned
        self.ann = self.ev = None
        self.spent = 0.0  # seconds, or steps with a step budget
        self.seconds = 0.0
        self.chunk = 1
        self.sampled = None
        self.temperatures = None
        self.by_round: list = []
        self.skipped = None
        self.rank = None  # the MPI rank that runs it (chains), else None

    def build(self, co, start):
        from golf.engine.annealer import schedule
        from golf.engine.population import annealer_for
        from golf.run.problem import build_evaluator

        tc = self.form.config(self.cfg)
        s = tc["search"]
        problem = Problem(tc["problem"])
        ev = build_evaluator(tc, co.comm)
        steps = int(self.planned) if s["steps"] else 0
        ann = annealer_for(tc, start(self.form), ev, seed=s["seed"], steps=steps,
                           trace_every=max(steps, 1 << 30), bounds=problem.bounds(),
                           reach=problem.reach())
        sampled = []

        def sample():
            sampled.extend(ann.auto_temperatures(s["sample_moves"]))
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
        rec.update(rounds=len(self.by_round), by_round=self.by_round,
                   evaluations=int(self.ann.sc[SC.EVALS]) if self.ann is not None else 0,
                   steps=int(self.ann.sc[SC.STEP]) if self.ann is not None else 0,
                   backend=self.ev.name if self.ev is not None else None,
                   chains="device" if getattr(self.ann, "on_device", False) else "host")
        if best is not None:
            rec.update(best=list(best), aspl=best[1] / (n * (n - 1) / 2),
                       temperatures=self.temperatures)
            if self.sampled:
                rec["sampled"] = list(self.sampled)
        return rec


def _slice(trial: _Trial, amount: float, timed: bool, co, stopped, deadline, start) -> int:
    """One slice of ``trial``: ``amount`` seconds (``timed``) or steps, its set-up included;
    returns a stop reason (0: the slice ran out) -- INTERRUPTED, TIME (the trials' deadline) or
    the annealer's own (it reached the bounds)."""
    from golf.engine.annealer import SC, StopReason
    from golf.run.coordinate import next_chunk

    t = time.perf_counter()
    try:
        if trial.ann is None:
            trial.build(co, start)
        ann = trial.ann
        step0 = int(ann.sc[SC.STEP])
        ran = False  # a slice runs at least one chunk: a form is scored by its steps
        while True:
            now = time.perf_counter()
            used = (now - t) if timed else int(ann.sc[SC.STEP]) - step0
            late = int(StopReason.TIME) if deadline is not None and now >= deadline else 0
            frac = min(1.0, (trial.spent + used) / trial.planned)
            if co.chains or co.comm is None:
                reason = int(StopReason.INTERRUPTED) if stopped() else late
                done = used >= amount
            else:  # the ranks walk one chain: rank 0's clock, chunk and cooling decide
                reason, trial.chunk, frac, done, _ = co.decide(stopped(), late, trial.chunk,
                                                               frac, used >= amount, False)
            if reason or (done and ran) or ann.stop_reason:
                reason = reason or (int(ann.stop_reason) if ann.stop_reason else 0)
                break
            chunk = trial.chunk if timed else max(1, min(trial.chunk, int(amount - used)))
            tic = time.perf_counter()
            ann.run(chunk, time_frac=frac)
            trial.chunk = next_chunk(chunk, time.perf_counter() - tic)
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
    for a grid problem on a 4x4 lattice, whose moves and tabu search take a length limit
    and so are code of their own. The compiled code is the same for every size, so the first
    trial of a kind is not charged a compilation (tens of seconds on a fresh install, cached
    on disk after)."""
    from golf.engine.population import annealer_for
    from golf.evaluators import backend_class, decide
    from golf.group import Group
    from golf.run.problem import build_evaluator

    p, e, s = cfg["problem"], cfg["evaluator"], cfg["search"]
    grid = p.get("grid") is not None  # a grid's moves take its length limit: their own code
    polish = s["polish"] > 0 and s["method"] != "tabu"

    def backend(g, centres=0):
        if e["backend"] != "auto":
            return e["backend"]
        shape = Problem(dict(p, g=g, group=None, centres=centres)).shape
        return decide(shape, threads=e.get("threads")).name

    kinds = {(backend(f.g, f.centres), f.group is not None, f.centres > 0) for f in portfolio}
    if polish and s["polish_g"] is not None:  # the polish phase's own symmetry (cyclic)
        kinds.add((backend(s["polish_g"]), False, False))
    if polish and any(backend_class(k[0]).supports.gpu for k in kinds):
        kinds.add(("bitset", False, False))  # a polish may score on one core (Search)
    for name, grouped, centred in sorted(kinds):
        form = (Form(8, Group(4, 2, 3)) if grouped else Form(3, None, None, 1) if centred
                else Form(4))
        tc = form.config(cfg)
        tc["problem"].update(n=16, d=3, start=None, regular=False)
        if grid:  # a 4x4 lattice at the form's rotation
            tc["problem"].update(grid=[4, 4], r=2)
        tc["evaluator"] = dict(e, backend=name)
        tc["search"] = dict(tc["search"], steps=4, time_limit=None)
        try:
            problem = Problem(tc["problem"])
            ev = build_evaluator(tc)  # every process on its own: no collective call
            ann = annealer_for(tc, problem.random_graph(1), ev, steps=4, seed=1,
                               trace_every=1 << 30, bounds=problem.bounds(),
                               reach=problem.reach())
            ann.auto_temperatures(10)
            ann.set_temperatures(1.0, 0.5)
            ann.run(2, time_frac=0.5)
            if polish:  # the tabu search of the polish phase
                from golf.engine.tabu import TabuSearch

                TabuSearch(ann.best_graph(), ev, steps=2, neighbourhood=16, tenure=2, seed=1,
                           trace_every=1 << 30, reach=problem.reach()).run(2)
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
    p, s = cfg["problem"], cfg["search"]
    n = _order(p)
    portfolio, rule = forms(p)
    timed = bool(s["time_limit"])
    total = s["auto_g_budget"] * (s["time_limit"] if timed else s["steps"])
    least = MIN_SLICE_SECONDS if timed else MIN_SLICE_STEPS
    count = _affordable(len(portfolio), total, least)
    if count < len(portfolio):
        rule += (f"; the first {count} of {len(portfolio)}: the budget gives each a first "
                 f"slice of at least {least:g}{'s' if timed else ' steps'}")
        portfolio = portfolio[:count]
    record = {"candidates": [f.record(n) for f in portfolio], "rule": rule,
              "budget": s["auto_g_budget"]}
    if len(portfolio) == 1:
        return _single(record, portfolio[0], f"{rule}: one form", log, n)
    if timed:
        warm_up(cfg, portfolio)
    plan = halving_plan(len(portfolio))
    share = [total / len(plan) / k for k in plan]  # a slice of each round
    planned = sum(share)  # what the winner gets in all
    unit = "s" if timed else " steps"
    log(f"g: auto: {len(portfolio)} forms ({rule}); successive halving {plan} over "
        f"{s['auto_g_budget']:g} of the run's {'seconds' if timed else 'steps'} "
        f"({total:,.1f}{unit}): slices of "
        + ", ".join(f"{x:,.1f}{unit}" if timed else f"{int(x):,}{unit}" for x in share))
    trials = [_Trial(i, f, cfg, planned) for i, f in enumerate(portfolio)]
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
    for r, k in enumerate(plan):
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
            return Choice(None, seconds=time.perf_counter() - t, interrupted=True)
        reports.update(_reports(co, [trials[i] for i in alive if i % size == rank], n))
        ranked = sorted((i for i in alive if "best" in reports[i]),
                        key=lambda i: (*reports[i]["best"], -portfolio[i].g, i))
        for i in alive:
            log(_trial_line(r, reports[i]))
        if not ranked:
            raise GolfError("g: auto: no form could be tried: " + "; ".join(
                f"{reports[i]['label']}: {reports[i].get('skipped')}" for i in alive))
        keep = plan[r + 1] if r + 1 < len(plan) else 1
        out = [i for i in alive if i not in ranked[:keep]]
        alive = ranked[:keep]
        if r + 1 < len(plan):
            log(f"g: auto round {r}: kept {', '.join(portfolio[i].label(n) for i in alive)}")
        for i in out:  # free the engines of the forms that are out (GPU buffers)
            trials[i].ann = trials[i].ev = None
    win = alive[0]
    seconds = time.perf_counter() - t
    final = [reports[i] for i in range(len(trials))]
    mine = win % size == rank
    best_rows = trials[win].ann.best_adj.copy() if mine else None
    sampled = trials[win].sampled if mine else None
    if co.chains and co.comm is not None:
        best_rows, sampled = co.comm.bcast((best_rows, sampled), root=win % size)
    return _decided(record, portfolio[win], final, plan, best_rows, sampled, seconds, cfg, log)


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


def _decided(record, form, final, plan, best_rows, sampled, seconds, cfg, log) -> Choice:
    """The choice after the trials: logged (why), recorded."""
    from golf.graph import Graph, sort_rows

    p = cfg["problem"]
    n = _order(p)
    win = next(t for t in final if t["label"] == form.label(n))
    reason = _reason(final, win, plan)
    log(f"g: auto chose {form.label(n)} because {reason}")
    record.update(g=form.g, group=form.spec, form=form.record(n), reason=reason,
                  rounds=plan, trials=final, seconds=round(seconds, 3),
                  evaluations=sum(t.get("evaluations", 0) for t in final))
    if sampled:
        sampled = (sampled[0], sampled[1], f"of the {form.label(n)} trial ({sampled[2]})")
    if form.switches:
        from golf.hostswitch.ports import PortGraph

        graph = PortGraph(p["hosts"], sort_rows(best_rows))
    else:
        graph = Graph(n, p["d"], form.g, sort_rows(best_rows), group=form.group,
                      centres=form.centres)
    return Choice(form, graph, record, seconds, sampled=sampled)


def _order(p: dict) -> int:
    """The vertices whose pairs a score averages over: a host-switch problem's hosts, else
    ``n``."""
    return p["hosts"] if p.get("hosts") is not None else p["n"]


def _single(record: dict, form: Form, why: str, log, n: int) -> Choice:
    """The choice without trials."""
    log(f"g: auto chose {form.label(n)} because {why}")
    record.update(g=form.g, group=form.spec, form=form.record(n), reason=why, rounds=[],
                  trials=[], seconds=0.0, evaluations=0)
    return Choice(form, None, record)
