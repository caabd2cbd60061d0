"""``problem: {g: auto}``: the config, the portfolio of symmetry forms (cyclic and metacyclic),
successive halving held to the clock (with an evaluator made slow on purpose), a deterministic
choice that the log and summary explain, resume without new trials, and the Python API."""

import json
import re
import signal
import subprocess
import sys

import numpy as np
import pytest

import golf
from golf.config import load_config
from golf.errors import GolfError
from golf.group import Group, invariants, metacyclic_groups
from golf.problems import Form, problem_of
from golf.problems.order_degree import candidates, divisors
from golf.run.portfolio import halving_plan

from conftest import ROOT, run_golf, signal_after, wait_for


# -- config ---------------------------------------------------------------------------------
def write(tmp_path, problem="{n: 64, d: 4, g: auto}", search="{steps: 100}", name="c.yaml"):
    p = tmp_path / name
    p.write_text(f"name: t\nproblem: {problem}\nsearch: {search}\n")
    return p


def test_config_takes_auto_and_the_budget(tmp_path):
    (run,) = load_config(write(tmp_path))
    assert run.data["problem"]["g"] == "auto" and run.data["search"]["auto_g_budget"] == 0.25
    (run,) = load_config(write(tmp_path, search="{steps: 100, auto_g_budget: 0.2}"))
    assert run.data["search"]["auto_g_budget"] == 0.2
    (run,) = load_config(write(tmp_path, problem="{n: 64, d: 4}"), ["problem.g=auto"])
    assert run.data["problem"]["g"] == "auto"
    (run,) = load_config(write(tmp_path, problem="{n: 63, d: 4, g: auto, regular: true}"))
    assert run.data["problem"]["g"] == "auto"
    (run,) = load_config(write(tmp_path, problem="{n: 64, d: 4, g: auto, group: cyclic}"))
    assert run.data["problem"]["group"] == "cyclic"


@pytest.mark.parametrize("problem,search,pattern", [
    ("{n: 64, d: 4, g: automatic}", "{steps: 9}",
     r"c\.yaml:2: problem.g: expected an integer >= 1 dividing n \(a grid: 1, 2 or 4\), or "
     r"'auto'.*got 'automatic'"),
    ("{n: 64, d: 4, g: 0}", "{steps: 9}", r"c\.yaml:2: problem.g: expected .*got 0"),
    ("{n: 64, d: 4, g: 2.5}", "{steps: 9}", r"problem.g: expected .*got 2.5"),
    ("{n: 64, d: 4, g: true}", "{steps: 9}", r"problem.g: expected .*got True"),
    ("{n: 64, d: 4, g: 5}", "{steps: 9}", r"c\.yaml:2: problem.g: 5 does not divide n=64"),
    ("{n: 64, d: 4, g: auto}", "{steps: 9, auto_g_budget: 0}",
     r"c\.yaml:3: search.auto_g_budget: expected a fraction > 0 and <= 1.*got 0"),
    ("{n: 64, d: 4, g: auto, group: [8, 3]}", "{steps: 9}",
     r"c\.yaml:2: problem.group: a group needs an integer problem.g \(not auto\)"),
    ("{n: 64, d: 4, g: auto}", "{steps: 9, auto_g_budget: 1.5}",
     r"search.auto_g_budget: expected .*got 1.5"),
])
def test_config_refuses(tmp_path, problem, search, pattern):
    with pytest.raises(GolfError, match=pattern):
        load_config(write(tmp_path, problem, search))


# -- the portfolio ---------------------------------------------------------------------------
def test_cyclic_candidate_rule():
    assert divisors(36) == [1, 2, 3, 4, 6, 9, 12, 18, 36]
    assert candidates(256, 8, cap=8) == [1, 2, 4, 8, 16, 32]  # m = 256/g >= 8
    assert candidates(256, 8) == [1, 8, 32]  # at most 3, spread over log g (a tie: larger)
    for prime in (2, 53, 101, 9973):
        assert candidates(prime, 4) == [1]
    assert candidates(10, 3) == [1, 2]  # g = 5 leaves m = 2 < 3
    # exact ties in log distance, which the last bit of a float logarithm used to decide
    assert candidates(64, 8) == [1, 4, 8]  # 2 and 4 both half a log 2 from sqrt(8)
    assert candidates(3250, 57) == [1, 10, 50]  # 5 and 10 from sqrt(50)
    assert candidates(100000, 7) == [1, 125, 12500]  # 100 and 125 from sqrt(12500)
    many = candidates(65536, 6, cap=8)
    assert len(many) == 8 and many[0] == 1 and many[-1] == 8192
    assert all(65536 % g == 0 and 65536 // g >= 6 for g in many)


def _brute_invariants(grp):
    """Commutator subgroup, centre and involutions counted element by element."""
    g = grp.g
    els = range(g)
    comm = {int(grp.mul(grp.mul(grp.inv(x), grp.inv(y)), grp.mul(x, y))) for x in els
            for y in els}
    sub = {0}
    while True:  # the subgroup the commutators generate
        more = sub | {int(grp.mul(a, b)) for a in sub for b in comm}
        if more == sub:
            break
        sub = more
    centre = [x for x in els if all(grp.mul(x, y) == grp.mul(y, x) for y in els)]
    inv = [x for x in els if x and grp.mul(x, x) == 0]
    return len(sub), len(centre), len(inv)


@pytest.mark.parametrize("g", [6, 8, 12, 16, 18, 20, 24, 32])
def test_metacyclic_groups_are_groups_with_the_stated_invariants(g):
    found = metacyclic_groups(g)
    assert found and all(grp.g == g and not grp.abelian for grp in found)
    keys = [invariants(grp) for grp in found]
    assert len(set(keys)) == len(keys)  # one of each class
    for grp in found:
        assert _brute_invariants(grp) == invariants(grp)[1:4]
        # associativity and inverses of the product on every triple (small g)
        x = np.arange(g)
        a, b, c = np.meshgrid(x, x, x, indexing="ij")
        assert np.array_equal(grp.mul(grp.mul(a, b), c), grp.mul(a, grp.mul(b, c)))
        assert np.all(grp.mul(x, grp.inv(x)) == 0)
    # r and r^k (gcd(k, b) = 1) are one group: listed once
    assert sum(1 for grp in metacyclic_groups(32) if (grp.a, grp.b) == (8, 4)) == 1
    assert metacyclic_groups(15) == []  # every group of order 15 is cyclic


def test_portfolio():
    fs, rule = problem_of({"n": 1024, "d": 8, "g": "auto", "group": None, "grid": None,
                           "r": None}).forms()
    assert fs[0] == Form(128)  # the largest cyclic g with m >= d comes first
    assert Form(1) in fs[:4] and Form(512, Group(32, 16, 3)) in fs[:3]
    assert Form(256, Group(32, 8, 3)) in fs[:3]  # m = 4
    assert len(fs) == len(set(fs)) == 3 + 2 * 4
    assert {1024 // f.g for f in fs if f.group is not None} == {1, 2, 4, 8}
    assert "metacyclic groups of order n/m" in rule
    cyc, rule = problem_of({"n": 1024, "d": 8, "g": "auto", "group": "cyclic", "grid": None,
                            "r": None}).forms()
    assert cyc == [Form(128), Form(16), Form(1)] and "problem.group: cyclic" in rule
    # a prime n: g = 1, and the forms with one and two centre vertices (100 = 4*25, 99 = 3*33)
    assert problem_of({"n": 101, "d": 4, "g": "auto", "group": None, "grid": None,
                       "r": None}).forms()[0] == [Form(1), Form(4, centres=1), Form(3, centres=2)]
    grid, rule = problem_of({"n": 100, "d": 4, "g": "auto", "group": None, "grid": [10, 10],
                             "r": 3}).forms()
    assert [f.g for f in grid] == [1, 2, 4] and all(f.group is None for f in grid)
    assert halving_plan(11) == [11, 6, 3, 2]


@pytest.mark.parametrize("section", [
    {"n": 405, "d": 5, "g": 405, "group": [9, 4]},  # one orbit of odd order: all degree 4
    {"n": 405, "d": 5, "g": 81}, {"n": 405, "d": 5, "g": 9}, {"n": 405, "d": 5, "g": 1},
    {"n": 343, "d": 7, "g": 343, "group": [49, 8]}, {"n": 105, "d": 7, "g": 21, "group": [7, 2]},
    {"n": 1001, "d": 7, "g": 143}, {"n": 96, "d": 5, "g": 12},
    {"n": 103, "d": 5, "g": 3, "centres": 1}, {"n": 104, "d": 5, "g": 3, "centres": 2},
    {"n": 101, "d": 6, "g": 5, "centres": 1}])
def test_a_forms_lost_ports_bound_its_graphs_and_random_starts_reach_them(section):
    from golf.problems.order_degree import lost_ports

    n, d, g, c = section["n"], section["d"], section["g"], section.get("centres", 0)
    budget = (n * d - lost_ports(n, d, g, c)) // 2
    for seed in (1, 2):
        graph = problem_of(section).random_graph(seed)
        assert graph.num_edges <= budget and graph.degrees().max() <= d
    if not c:  # the random start of a form without centres fills its budget
        assert graph.num_edges == budget


def test_forms_that_leave_vertices_a_port_short_come_last():
    fs, rule = problem_of({"n": 405, "d": 5, "g": "auto"}).forms()
    # Z_9 ⋊_4 Z_45 (one orbit, odd order) leaves every vertex at degree 4, cyclic g = 81
    # (5 orbits) one orbit: 405 and 81 ports of 2025 against g = 1's one
    assert [f.label(405) for f in fs[-2:]] == ["cyclic g=81 (m=5)", "Z_9 ⋊_4 Z_45 (g=405, m=1)"]
    assert fs[:2] == [Form(1), Form(9)]
    assert "leaves more than 1% of the n*d ports free" in rule and "cyclic g=81 (m=5)" in rule
    fs, rule = problem_of({"n": 1024, "d": 8, "g": "auto"}).forms()
    assert fs[0] == Form(128) and "ports free" not in rule  # d even: no form is short


# -- whole runs -----------------------------------------------------------------------------
def run_cfg(tmp_path, n=96, d=4, steps=20000, budget=0.3, seed=3, extra=""):
    p = tmp_path / "auto.yaml"
    p.write_text(f"""name: r
problem: {{n: {n}, d: {d}, g: auto}}
search: {{steps: {steps}, seed: {seed}, auto_g_budget: {budget}}}
evaluator: {{backend: bitset, threads: 1}}
output: {{dir: {tmp_path / 'out'}, checkpoint_every: 0.2, trace_every: 500, plot: false}}
{extra}""")
    return p


def outcome(rd):
    s = json.loads((rd / "summary.json").read_text())
    trials = [{k: v for k, v in t.items() if k not in ("seconds", "stepping")}
              for t in s["auto_g"]["trials"]]
    return s, trials


def key(t):
    return (t["best"][0], t["best"][1], -t["g"])


@pytest.mark.slow
def test_the_choice_is_deterministic_explained_and_counted(tmp_path):
    """With a step budget the slices are steps: the same seed makes the same trials and
    choice; the record, the log and run.yaml say what was tried and chosen."""
    p = run_cfg(tmp_path)
    proc = run_golf("run", p, check=True)
    rd = tmp_path / "out" / "r"
    s, trials = outcome(rd)
    auto = s["auto_g"]
    assert auto["budget"] == 0.3
    assert [t["label"] for t in trials] == [c["label"] for c in auto["candidates"]]
    plan = auto["rounds"]
    assert plan == halving_plan(len(trials)) and plan[-1] == 2
    # successive halving: round r kept the best plan[r+1] of its forms
    for r, k in enumerate(plan[1:]):
        ran = [t for t in trials if t.get("rounds", 0) > r]
        kept = sorted(ran, key=lambda t: (*t["by_round"][r], -t["g"]))[:k]
        assert {t["label"] for t in kept} == {t["label"] for t in ran
                                              if t.get("rounds", 0) > r + 1}
    last = [t for t in trials if t.get("rounds") == len(plan)]
    win = min(last, key=key)
    assert auto["form"]["label"] == win["label"] and auto["g"] == win["g"]
    assert auto["group"] == win["group"] == s["config"]["problem"]["group"]
    assert s["problem"]["g"] == win["g"]
    # step slices: the winner ran the planned steps of every round
    share = [0.3 * 20000 / len(plan) / k for k in plan]
    assert win["steps"] <= sum(int(x) + 64 for x in share)
    # the trials count in the run's evaluations; the main search ran its whole step budget
    main = (rd / "trace.csv").read_text().splitlines()[-1].split(",")
    assert s["steps"] == 20000 and s["evaluations"] == int(main[7]) + auto["evaluations"]
    assert auto["evaluations"] == sum(t.get("evaluations", 0) for t in trials)
    log = (rd / "log.txt").read_text()
    for t in trials:
        assert f"g: auto round 0: {t['label']}: best diameter" in log
    assert f"g: auto chose {win['label']} because its trial reached the best score" in \
        proc.stdout
    assert f"g: {win['g']}\n" in (rd / "run.yaml").read_text()
    # the same seed chooses the same way; another seed runs its own trials
    run_golf("run", p, "--force", "--quiet", check=True)
    again, trials_again = outcome(rd)
    assert trials_again == trials and again["best"] == s["best"]
    run_golf("run", p, "--force", "--quiet", "--set", "search.seed=4", check=True)
    assert outcome(rd)[1] != trials


def test_a_prime_order_runs_at_g_1_without_trials_where_no_centre_form_fits(tmp_path):
    # 5 - 1 = 4 and 5 - 2 = 3 (m = 1 < d): no g in [3, d] with m >= d, and no construction
    r = golf.search(5, 3, g="auto", steps=3000, seed=1, progress=False)
    auto = r.summary["auto_g"]
    assert auto["g"] == 1 and auto["trials"] == [] and len(auto["candidates"]) == 1
    assert ": one form" in auto["reason"] and r.graph.g == 1
    assert r.score.diameter == r.summary["best"]["diameter"]


def test_a_prime_order_tries_g_1_and_the_centre_forms(tmp_path):
    r = golf.search(53, 4, g="auto", steps=3000, seed=1, progress=False)
    auto = r.summary["auto_g"]
    assert [(t["g"], t.get("centres", 0)) for t in auto["candidates"]] == [(1, 0), (4, 1),
                                                                           (3, 2)]
    assert all(t.get("evaluations", 0) > 0 for t in auto["trials"])
    assert (r.graph.g, r.graph.centres) in {(1, 0), (4, 1), (3, 2)}
    assert r.score.diameter == r.summary["best"]["diameter"]


@pytest.mark.parametrize("batch", [1, 3])
def test_python_api(batch):
    r = golf.search(64, 4, g="auto", steps=8000, seed=2, progress=False, auto_g_budget=0.4,
                    backend="bitset", threads=1, batch=batch)
    auto = r.summary["auto_g"]
    assert r.graph.g == auto["g"] == r.summary["problem"]["g"]
    best = golf.evaluate(r.graph, "reference")
    assert (best.diameter, best.total) == (r.score.diameter, r.score.total)
    if auto["group"] is not None:
        assert r.graph.group == Group(auto["group"][0], auto["g"] // auto["group"][0],
                                      auto["group"][1])
    # the main search starts from the winning trial's best graph, at its temperatures
    won = next(t for t in auto["trials"] if t["label"] == auto["form"]["label"])
    assert [r.summary["start"]["diameter"], r.summary["start"]["total"]] == won["best"]
    assert [r.summary["temperatures"]["t0"], r.summary["temperatures"]["t1"]] == \
        won["temperatures"] == won["sampled"][:2]


@pytest.mark.parametrize("timed", [False, True])
def test_every_slice_of_a_trial_cools_from_t0_to_t1(monkeypatch, timed):
    """Each round ranks what a whole anneal of each form reached: every slice starts at the
    form's T0 (a survivor reheated) and ends near its T1, the first round's as the last's, with
    a step budget (in at least COOLING_LEVELS chunks) and with a time limit."""
    from golf.engine.annealer import FL
    from golf.run import portfolio

    slices = []  # (trial, the cooling fraction of each chunk of a slice, ...)
    now = []  # the fractions of the slice running
    real = portfolio._slice

    def spy(trial, *args):
        now[:] = [[]]
        if trial.ann is None:  # built in its first slice: watched from then on
            build = trial.build

            def built(*a, **k):
                build(*a, **k)
                watch(trial.ann)
            monkeypatch.setattr(trial, "build", built)
        reason = real(trial, *args)
        slices.append((trial.index, now[0], float(trial.ann.fl[FL.T]), trial.temperatures))
        return reason

    def watch(ann):
        run = ann.run

        def logged(nsteps, time_frac=0.0):
            now[0].append(time_frac)
            return run(nsteps, time_frac=time_frac)
        ann.run = logged

    monkeypatch.setattr(portfolio, "_slice", spy)
    budget = dict(seconds=14.0, auto_g_budget=0.5) if timed else dict(steps=8000,
                                                                       auto_g_budget=0.4)
    golf.search(64, 4, g="auto", seed=2, progress=False, backend="bitset", threads=1, **budget)
    assert len({i for i, *_ in slices}) >= 3 and len(slices) > len({i for i, *_ in slices})
    for i, fracs, t, (t0, t1) in slices:
        # reheated (a timed slice's set-up counts in it), then cooling
        assert (fracs[0] < 0.5 if timed else fracs[0] == 0.0) and fracs == sorted(fracs)
        if not timed:
            assert len(fracs) >= portfolio.COOLING_LEVELS
        # cooled at its end (a timed slice's last chunk starts a chunk's time before it: 0.6;
        # a first slice cooled over all the slices a trial could get would end below 1/3)
        cool = 0.6 if timed else 0.8
        assert fracs[-1] >= cool and t <= t0 * (t1 / t0) ** cool, (i, fracs)


def test_reheat_scales_the_t0_the_run_goes_on_at_after_the_trials():
    """search.reheat: the run after the trials starts at that fraction of the winner's sampled
    T0 (never below T1); the trials themselves are the same."""
    kw = dict(g="auto", steps=8000, seed=2, progress=False, auto_g_budget=0.4,
              backend="bitset", threads=1)
    full = golf.search(64, 4, **kw)
    part = golf.search(64, 4, reheat=0.25, **kw)

    def trials(r):
        return [{k: v for k, v in t.items() if k not in ("seconds", "stepping")}
                for t in r.summary["auto_g"]["trials"]]

    assert trials(full) == trials(part)
    sampled = full.summary["temperatures"]
    t0, t1 = sampled["t0"], sampled["t1"]
    assert part.summary["temperatures"] == {"t0": max(t1, 0.25 * t0), "t1": t1}
    assert part.summary["start"] == full.summary["start"]
    assert 0.25 * t0 > t1  # the test scales T0, not only T1's floor


def test_released_wants_a_symmetric_winner():
    from golf.run.portfolio import released

    assert released(Form(6)) and released(Form(2)) and released(Form(512, Group(32, 16, 3)))
    assert not released(Form(1))  # already every graph


def test_release_hands_a_symmetric_winner_to_g_1_and_keeps_its_graph(tmp_path):
    """search.release: the same trials; their winner (cyclic g=2) hands the run to g = 1,
    from a fresh start, its graph kept as the run's best; a resumed run keeps the form and
    the best."""
    from golf.run import resume_run

    kw = dict(g="auto", steps=6000, seed=2, progress=False, auto_g_budget=0.5,
              backend="bitset", threads=1, batch=3)
    plain = golf.search(16, 3, **kw)
    rd = tmp_path / "run"
    r = golf.search(16, 3, release=True, output=rd, **kw)
    auto, before = r.summary["auto_g"], plain.summary["auto_g"]

    def trials(a):
        return [{k: v for k, v in t.items() if k not in ("seconds", "stepping")}
                for t in a["trials"]]

    assert trials(auto) == trials(before) and before["g"] == 2 and "released" not in before
    won = next(t for t in before["trials"] if t["label"] == before["form"]["label"])
    rel = auto["released"]
    assert rel["from"] == before["form"] and rel["best"] == won["best"]
    assert auto["g"] == 1 and auto["form"]["label"] == "cyclic g=1 (m=16)"
    assert r.graph.g == 1 == r.summary["problem"]["g"]
    # a fresh start at g = 1, not the winner's graph; the winner's graph kept as the best
    assert [r.summary["start"]["diameter"], r.summary["start"]["total"]] != won["best"]
    assert (r.score.diameter, r.score.total) <= tuple(won["best"])
    ref = golf.evaluate(r.graph, "reference")
    assert (ref.diameter, ref.total) == (r.score.diameter, r.score.total)
    assert "g: auto: released to cyclic g=1 (m=16)" in (rd / "log.txt").read_text()
    (rd / "summary.json").unlink()
    again = resume_run(rd, quiet=True)
    assert again["best"] == r.summary["best"] and again["auto_g"] == auto


def test_a_released_run_polishes_from_the_trials_graphs_too(tmp_path):
    """search.release with a polish phase: the trials' winner's other graphs (renumbered at
    g = 1) are kept in the run's meta data and taken among the polish's starts; the log says
    how many; a run resumed before the polish takes them too, as the run would have."""
    from golf.run import load_checkpoint, resume_run

    kw = dict(g="auto", steps=1000, seed=2, progress=False, auto_g_budget=0.5,
              backend="bitset", threads=1, batch=3, release=True, polish=0.5, polish_g=1,
              polish_starts=4, polish_patience=5, checkpoint_every=1)
    rd = tmp_path / "run"
    r = golf.search(40, 3, output=rd, **kw)
    log = (rd / "log.txt").read_text()
    assert "g: auto: released to cyclic g=1 (m=40)" in log
    kept = re.search(r"(\d+) more of its trial's graphs are starts of the polish", log)
    took = re.search(r"\((\d+) of the (\d+) starts are the trials' graphs kept by "
                     r"search.release\)", log)
    assert kept and took and 1 <= int(took[1]) <= min(int(kept[1]), int(took[2]) - 1)
    assert int(took[2]) == 4 and r.summary["polish"]["starts"] == 4
    ref = golf.evaluate(r.graph, "reference")
    assert (ref.diameter, ref.total) == (r.score.diameter, r.score.total)
    # the kept graphs are in the checkpoint, for a resume before the polish: valid at g = 1
    rows = load_checkpoint(rd / "checkpoint.npz")["meta"]["released_starts"]
    assert len(rows) == int(kept[1])
    for graph in (r.graph.with_rows(np.asarray(x, dtype=r.graph.adj.dtype)) for x in rows):
        graph.check()  # a valid graph of degree <= 3
        assert graph.g == 1 and graph.adj.shape == (40, 3)
    (rd / "summary.json").unlink()
    again = resume_run(rd, quiet=True)
    assert again["best"] == r.summary["best"]


def test_the_polish_takes_the_best_of_the_chains_and_the_kept_graphs():
    """Loop._released: the chains' graphs and the kept ones (rank r of R ranks of chains:
    every R-th from the r-th), each once, the best k by (diameter, total), the chains' first
    on a tie; nothing kept: the chains' graphs as they were."""
    from types import SimpleNamespace

    from golf.graph import sort_rows
    from golf.run.loop import Loop

    graphs = [golf.random_graph(24, 3, seed=s) for s in range(8)]
    score = {id(g): golf.evaluate(g, "reference") for g in graphs}
    chains, kept = graphs[:3], graphs[3:] + [graphs[0]]  # graphs[0] in both
    loop = Loop.__new__(Loop)
    ev = SimpleNamespace(evaluate=lambda g: golf.evaluate(g, "reference"))
    loop.state = SimpleNamespace(ev=ev, meta={})
    loop.co = SimpleNamespace(chains=True, comm=SimpleNamespace(rank=1, size=2))
    assert loop._released(chains, 4) == (chains, 0)  # nothing kept
    loop.state.meta["released_starts"] = [g.adj.tolist() for g in kept]
    out, taken = loop._released(chains, 4)
    mine = [kept[i] for i in range(1, len(kept), 2)]  # rank 1 of 2
    pool = chains + [g for g in mine if g is not graphs[0]]
    want = sorted(pool, key=lambda g: (score[id(g)].diameter, score[id(g)].total,
                                       pool.index(g)))[:4]
    assert [sort_rows(g.adj).tobytes() for g in out] == \
        [sort_rows(g.adj).tobytes() for g in want]
    assert taken == sum(g not in chains for g in want) >= 1


def test_trials_of_a_step_budget_choose_alike_on_a_slow_machine(monkeypatch):
    """With a step budget alone every slice is a count of steps cut into chunks that do not
    depend on the clock: a clock that runs 0.3 s a reading (a slow or loaded machine, a
    cold compile in the first chunk) gives the same trials, step for step."""
    from types import SimpleNamespace

    import golf.run.portfolio as portfolio

    kw = dict(g="auto", steps=6000, seed=2, progress=False, auto_g_budget=0.5,
              backend="bitset", threads=1, batch=3, grid=(6, 6), r=2)

    def trials(auto):
        return [{k: v for k, v in t.items() if k not in ("seconds", "stepping")}
                for t in auto["trials"]]

    fast = golf.search(36, 4, **kw).summary["auto_g"]
    ticks = iter(range(10**9))
    monkeypatch.setattr(portfolio, "time", SimpleNamespace(perf_counter=lambda: 0.3 * next(
        ticks)))
    slow = golf.search(36, 4, **kw).summary["auto_g"]
    assert trials(slow) == trials(fast) and slow["form"] == fast["form"]


def test_release_is_for_an_order_degree_or_grid_problem(tmp_path):
    p = write(tmp_path, problem="{hosts: 16, radix: 4, switches: auto}",
              search="{steps: 100, release: true}")
    with pytest.raises(GolfError, match="search.release: .*this is a host-switch problem"):
        load_config(p)
    (run,) = load_config(write(tmp_path, problem="{grid: 4x4, d: 3, r: 2, g: auto}",
                               search="{steps: 100, release: true}"))
    assert run["search"]["release"] is True
    (run,) = load_config(write(tmp_path, problem="{n: 16, d: 3, g: 2}",
                               search="{steps: 100, release: true}"))  # no trials: inert
    assert run["search"]["release"] is True


def test_a_start_graph_limits_the_candidates(tmp_path):
    """With problem.start, each trial starts from that graph; a form it is not symmetric
    under is left out, and the log says why."""
    start = golf.random_graph(64, 4, g=4, seed=5)  # 4-symmetric: also 2- and 1-
    path = tmp_path / "start.edges"
    golf.write_edges(path, start)
    r = golf.search(64, 4, g="auto", steps=8000, seed=2, progress=False, auto_g_budget=0.4,
                    start=str(path), backend="bitset", threads=1)
    trials = r.summary["auto_g"]["trials"]
    assert any("skipped" in t for t in trials)
    assert all("best" in t for t in trials if t["g"] == 1)
    assert r.graph.g in (1, 2, 4) and r.summary["auto_g"]["group"] is None


def _slow_reference(monkeypatch, seconds):
    """The reference backend made slow on purpose: every evaluate_many sleeps ``seconds``
    a graph."""
    import time as _time

    from golf.evaluators import backend_class

    cls = backend_class("reference")
    fast = cls.evaluate_many

    def slow(self, adjs, *a, **kw):
        _time.sleep(seconds * len(adjs))
        return fast(self, adjs, *a, **kw)

    monkeypatch.setattr(cls, "evaluate_many", slow)


@pytest.mark.slow
@pytest.mark.parametrize("batch", [1, 4])
def test_the_trials_keep_to_their_share_of_the_clock(monkeypatch, batch):
    """With an evaluator made slow on purpose (2 ms a graph), the trials' seconds add up to
    at most (budget + 0.05) of the run's, and the run keeps its time limit."""
    kw = dict(seed=1, progress=False, backend="reference", batch=batch, sample_moves=20)
    # the moves of every form compiled first (a step budget tries them all)
    golf.search(48, 3, g="auto", steps=4000, auto_g_budget=0.9, **kw)
    _slow_reference(monkeypatch, 0.002)
    r = golf.search(48, 3, g="auto", seconds=24, **kw)
    auto, s = r.summary["auto_g"], r.summary
    spent = sum(t["seconds"] for t in auto["trials"])
    assert auto["budget"] == 0.25 and len(auto["trials"]) > 2
    assert spent <= (auto["budget"] + 0.05) * s["seconds"], (spent, s["seconds"])
    assert auto["seconds"] <= (auto["budget"] + 0.05) * s["seconds"]
    assert s["seconds"] <= 24 + 1.0
    assert all(t["evaluations"] > 0 for t in auto["trials"] if "skipped" not in t)


@pytest.mark.slow
def test_resume_keeps_the_form_and_runs_no_new_trials(tmp_path):
    p = run_cfg(tmp_path, steps=5_000_000, budget=0.002)
    proc = subprocess.Popen([sys.executable, "-m", "golf", "run", str(p), "--quiet"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    rd = tmp_path / "out" / "r"
    _, err = signal_after(proc, rd / "checkpoint.npz", signal.SIGINT, 0.3)
    assert proc.returncode == 130, err
    log = (rd / "log.txt").read_text()
    assert log.count("g: auto chose ") == 1
    from golf.run import load_checkpoint

    ck = load_checkpoint(rd / "checkpoint.npz")
    auto = ck["meta"]["auto_g"]
    cfg = (rd / "run.yaml").read_text()
    assert f"g: {auto['g']}\n" in cfg
    # finish sooner: lower the budget in the run's own config, then resume
    (rd / "run.yaml").write_text(cfg.replace("steps: 5000000", f"steps: "
                                             f"{ck['meta']['steps'] + 5000}"))
    run_golf("resume", rd, "--quiet", check=True)
    log2 = (rd / "log.txt").read_text()
    assert log2.count("g: auto chose ") == 1 and log2.count("g: auto round 0:") == \
        log.count("g: auto round 0:")
    assert f"resuming r: n=96 d=4 g={auto['g']}" in log2
    s = json.loads((rd / "summary.json").read_text())
    assert s["problem"]["g"] == auto["g"] and s["config"]["problem"]["group"] == auto["group"]
    assert s["auto_g"] == auto and s["steps"] == ck["meta"]["steps"] + 5000


def test_a_group_form_resumes_at_its_group(tmp_path, monkeypatch):
    """A run whose trials chose a group keeps it in run.yaml, the checkpoint and the summary;
    a run.yaml that still says g: auto (a kill between the first checkpoint and its rewrite)
    takes the form, group included, from the checkpoint."""
    import yaml

    from golf.problems import OrderDegreeProblem
    from golf.run import resume_run

    groups = [Form(32, Group(8, 4, 3)), Form(16, Group(8, 2, 3))]
    monkeypatch.setattr(OrderDegreeProblem, "forms", lambda self: (groups, "two groups"))
    rd = tmp_path / "run"
    r = golf.search(64, 4, g="auto", steps=3000, seed=2, progress=False, output=rd,
                    backend="bitset", threads=1)
    auto = r.summary["auto_g"]
    chosen = Form(auto["g"], Group(auto["group"][0], auto["g"] // auto["group"][0],
                                   auto["group"][1]))
    assert chosen in groups and r.graph.group == chosen.group
    cfg = yaml.safe_load((rd / "run.yaml").read_text())
    assert cfg["problem"]["g"] == chosen.g and cfg["problem"]["group"] == chosen.spec
    cfg["problem"].update(g="auto", group=None)
    (rd / "run.yaml").write_text(yaml.safe_dump(cfg))
    (rd / "summary.json").unlink()
    monkeypatch.setattr(OrderDegreeProblem, "forms", None)  # a resume runs no trial
    again = resume_run(rd, quiet=True)
    assert again["config"]["problem"]["group"] == chosen.spec
    assert again["best"] == r.summary["best"] and again["auto_g"] == auto
    assert yaml.safe_load((rd / "run.yaml").read_text())["problem"]["group"] == chosen.spec


@pytest.mark.slow
def test_a_signal_during_the_trials_stops_before_the_first_checkpoint(tmp_path):
    p = run_cfg(tmp_path, n=1024, d=8, steps=50_000_000, budget=0.5)
    proc = subprocess.Popen([sys.executable, "-m", "golf", "run", str(p)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    rd = tmp_path / "out" / "r"
    wait_for(rd / "log.txt")
    out, err = signal_after(proc, rd / "log.txt", signal.SIGTERM, 1.5)
    assert proc.returncode == 143, err
    assert "SIGTERM: stopped during the g: auto trials" in out
    assert not (rd / "checkpoint.npz").exists() and "g: auto chose" not in out
    run_golf("run", p, "--quiet", "--set", "search.steps=20000", "--set",
             "search.auto_g_budget=0.05", check=True)  # no --force needed: nothing was run
    assert json.loads((rd / "summary.json").read_text())["auto_g"]["trials"]


def test_docstring_examples():
    import doctest

    import golf.run.portfolio

    result = doctest.testmod(golf.run.portfolio)
    assert result.attempted > 0 and result.failed == 0
