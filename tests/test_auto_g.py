"""``problem: {g: auto}``: the config, the candidate rule, the trial budgets, a deterministic
choice that the log and summary explain, resume without new trials, and the Python API."""

import json
import signal
import subprocess
import sys

import pytest

import golf
from golf.config import load_config
from golf.errors import GolfError
from golf.run.symmetry import MIN_TRIAL_STEPS, candidates, divisors, trial_steps

from conftest import ROOT, run_golf, signal_after, wait_for


# -- config ---------------------------------------------------------------------------------
def write(tmp_path, problem="{n: 64, d: 4, g: auto}", search="{steps: 100}", name="c.yaml"):
    p = tmp_path / name
    p.write_text(f"name: t\nproblem: {problem}\nsearch: {search}\n")
    return p


def test_config_takes_auto_and_the_budget(tmp_path):
    (run,) = load_config(write(tmp_path))
    assert run.data["problem"]["g"] == "auto" and run.data["search"]["auto_g_budget"] == 0.05
    (run,) = load_config(write(tmp_path, search="{steps: 100, auto_g_budget: 0.2}"))
    assert run.data["search"]["auto_g_budget"] == 0.2
    (run,) = load_config(write(tmp_path, problem="{n: 64, d: 4}"), ["problem.g=auto"])
    assert run.data["problem"]["g"] == "auto"
    (run,) = load_config(write(tmp_path, problem="{n: 63, d: 4, g: auto, regular: true}"))
    assert run.data["problem"]["g"] == "auto"


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
    ("{n: 64, d: 4, g: auto}", "{steps: 9, auto_g_budget: 1.5}",
     r"search.auto_g_budget: expected .*got 1.5"),
])
def test_config_refuses(tmp_path, problem, search, pattern):
    with pytest.raises(GolfError, match=pattern):
        load_config(write(tmp_path, problem, search))


# -- candidates and budgets -----------------------------------------------------------------
def test_candidate_rule():
    assert divisors(36) == [1, 2, 3, 4, 6, 9, 12, 18, 36]
    assert candidates(256, 8) == [1, 2, 4, 8, 16, 32]  # m = 256/g >= 8
    assert candidates(1024, 8) == [1, 2, 4, 8, 16, 32, 64, 128]
    for prime in (2, 53, 101, 9973):
        assert candidates(prime, 4) == [1]
    assert candidates(10, 3) == [1, 2]  # g = 5 leaves m = 2 < 3
    assert candidates(12, 3) == [1, 2, 3, 4]
    # many divisors: at most 8, spread over log g from 1 to the largest allowed
    many = candidates(65536, 6)
    assert len(many) == 8 and many[0] == 1 and many[-1] == 8192
    assert all(65536 % g == 0 and 65536 // g >= 6 for g in many)
    assert many == sorted(set(many))
    big = candidates(720720, 8)
    assert len(big) == 8 and big[0] == 1 and 720720 // big[-1] >= 8
    assert all(720720 // g < 8 for g in divisors(720720) if g > big[-1])  # the largest kept


def test_trial_steps_buy_equal_model_time():
    cfg = {"search": {"steps": 100_000, "time_limit": None, "auto_g_budget": 0.1}}
    costs = {1: ("bitset", 4e-6), 2: ("bitset", 2e-6), 4: ("bitset", 1e-6)}
    steps = trial_steps(cfg, costs)
    assert steps == {1: 833, 2: 1666, 4: 3333}  # the largest g: budget * steps / K
    cfg["search"].update(steps=0, time_limit=30.0)
    steps = trial_steps(cfg, costs)
    assert steps[4] == int(0.1 * 30 / 3 / 1e-6) and steps[1] * 4 == steps[4]
    # a candidate whose share buys fewer than MIN_TRIAL_STEPS steps is dropped; the others
    # share the budget
    cfg["search"].update(steps=3 * MIN_TRIAL_STEPS * 2, auto_g_budget=1.0)
    costs = {1: ("bfs", 1e-3), 2: ("bfs", 1e-5)}
    assert trial_steps(cfg, costs) == {2: 6 * MIN_TRIAL_STEPS}
    cfg["search"].update(steps=10)
    assert trial_steps(cfg, costs) == {}
    # one at a time, the dearest first: g=2 fits once g=1 is gone
    cfg["search"].update(steps=4 * MIN_TRIAL_STEPS)
    costs = {1: ("bitset", 4e-6), 2: ("bitset", 1.6e-6), 4: ("bitset", 1e-6)}
    assert trial_steps(cfg, costs) == {2: 125 * MIN_TRIAL_STEPS // 100, 4: 2 * MIN_TRIAL_STEPS}


def test_the_time_limit_cuts_the_trials():
    """A trial stops when the run's time limit comes (recorded as cut, its best kept), and
    the trials not yet run are left out, so the run keeps to its time limit."""
    import time

    from golf.anneal import StopReason
    from golf.config import validate
    from golf.run.coordinate import Coordinator
    from golf.run.symmetry import _Halt, _my_trials, run_trial

    cfg = validate({"problem": {"n": 96, "d": 4, "g": "auto"},
                    "search": {"time_limit": 5.0, "seed": 1},
                    "evaluator": {"backend": "bitset", "threads": 1}}, lambda k: "",
                   need_name=False)
    co = Coordinator(None, False)
    calls = []

    def late_after_two_chunks(co, chunk):
        calls.append(chunk)
        return (int(StopReason.TIME) if len(calls) > 2 else 0), chunk

    graph = golf.random_graph(96, 4, g=4, seed=1)
    rec, _ = run_trial(cfg, 4, 10**6, graph, co, late_after_two_chunks)
    assert "the run's time limit came after" in rec["cut"]
    assert 0 < rec["evaluations"] < 10**6 and rec["best"][0] >= 3
    past = _Halt(lambda: False, time.perf_counter())
    records, rows, halted = _my_trials(cfg, {1: 500, 4: 500}, lambda g: graph, co, past)
    assert not halted and rows == {}
    assert [r["skipped"] for r in records] == ["the run's time limit had come"] * 2
    signalled = _Halt(lambda: True, None)
    assert _my_trials(cfg, {1: 500}, lambda g: graph, co, signalled)[2]


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
    trials = [{k: v for k, v in t.items() if k != "seconds"} for t in s["auto_g"]["trials"]]
    return s, trials


def test_the_choice_is_deterministic_explained_and_counted(tmp_path):
    p = run_cfg(tmp_path)
    proc = run_golf("run", p, check=True)
    rd = tmp_path / "out" / "r"
    s, trials = outcome(rd)
    auto = s["auto_g"]
    assert auto["candidates"] == candidates(96, 4) == [1, 2, 3, 4, 6, 8, 16, 24]
    assert [t["g"] for t in trials] == auto["candidates"]
    # the best (diameter, total), the larger g on a tie
    want = min(trials, key=lambda t: (t["best"][0], t["best"][1], -t["g"]))["g"]
    assert auto["g"] == want == s["problem"]["g"] == s["config"]["problem"]["g"]
    # equal model time: every trial's steps bought the same estimated seconds
    g_max = max(auto["candidates"])
    assert next(t["steps"] for t in trials if t["g"] == g_max) == int(0.3 * 20000 / 8)
    assert all(t["evaluations"] <= t["steps"] for t in trials)
    # the trials count in the run's evaluations; the main search ran its whole step budget
    main = [ln for ln in (rd / "trace.csv").read_text().splitlines()[1:]][-1].split(",")
    assert s["steps"] == 20000 and s["evaluations"] == int(main[7]) + auto["evaluations"]
    assert auto["evaluations"] == sum(t["evaluations"] for t in trials)
    assert s["seconds"] >= auto["seconds"] > 0
    # the log: one line per candidate, then the choice and why
    log = (rd / "log.txt").read_text()
    for t in trials:
        assert (f"g: auto trial g={t['g']} m={96 // t['g']} steps={t['steps']:,} (bitset): "
                f"best diameter {t['best'][0]}, ASPL {t['aspl']:.10f}") in log
    assert f"g: auto chose g={want} because its trial found the best score" in proc.stdout
    assert f"starting r: n=96 d=4 g={want}" in log
    # run.yaml holds the resolved g
    assert f"g: {want}\n" in (rd / "run.yaml").read_text()
    # the same seed chooses the same way; another seed runs its own trials
    run_golf("run", p, "--force", "--quiet", check=True)
    again, trials_again = outcome(rd)
    assert trials_again == trials and again["best"] == s["best"]
    run_golf("run", p, "--force", "--quiet", "--set", "search.seed=4", check=True)
    assert outcome(rd)[1] != trials


def test_a_prime_order_runs_at_g_1_without_trials(tmp_path):
    r = golf.search(53, 4, g="auto", steps=3000, seed=1, progress=False)
    auto = r.summary["auto_g"]
    assert auto["g"] == 1 and auto["trials"] == [] and auto["candidates"] == [1]
    assert "no divisor g > 1 of n=53" in auto["reason"] and r.graph.g == 1
    assert r.summary["evaluations"] > 0 and r.score.diameter == r.summary["best"]["diameter"]


@pytest.mark.parametrize("batch", [1, 3])
def test_python_api(batch):
    r = golf.search(64, 4, g="auto", steps=8000, seed=2, progress=False, auto_g_budget=0.4,
                    backend="bitset", threads=1, batch=batch)
    auto = r.summary["auto_g"]
    assert r.graph.g == auto["g"] == r.summary["problem"]["g"] in auto["candidates"]
    assert len(auto["trials"]) == len(auto["candidates"]) == 5  # 1..16
    best = golf.evaluate(r.graph, "reference")
    assert (best.diameter, best.total) == (r.score.diameter, r.score.total)
    # the main search starts from the winning trial's best graph, at its temperatures
    won = next(t for t in auto["trials"] if t["g"] == auto["g"])
    assert [r.summary["start"]["diameter"], r.summary["start"]["total"]] == won["best"]
    assert [r.summary["temperatures"]["t0"], r.summary["temperatures"]["t1"]] == \
        won["temperatures"] == won["sampled"][:2]


def test_a_start_graph_limits_the_candidates(tmp_path):
    """With problem.start, each trial starts from that graph; a g it is not symmetric under
    is left out, and the log says why."""
    start = golf.random_graph(64, 4, g=4, seed=5)  # 4-symmetric: also 2- and 1-
    path = tmp_path / "start.edges"
    golf.write_edges(path, start)
    r = golf.search(64, 4, g="auto", steps=8000, seed=2, progress=False, auto_g_budget=0.4,
                    start=str(path), backend="bitset", threads=1)
    trials = {t["g"]: t for t in r.summary["auto_g"]["trials"]}
    assert "skipped" in trials[8] and "best" in trials[4] and "best" in trials[1]
    assert r.graph.g in (1, 2, 4)


def test_resume_keeps_g_and_runs_no_new_trials(tmp_path):
    p = run_cfg(tmp_path, steps=5_000_000, budget=0.002)
    proc = subprocess.Popen([sys.executable, "-m", "golf", "run", str(p), "--quiet"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    rd = tmp_path / "out" / "r"
    _, err = signal_after(proc, rd / "checkpoint.npz", signal.SIGINT, 0.3)
    assert proc.returncode == 130, err
    log = (rd / "log.txt").read_text()
    assert log.count("g: auto chose g=") == 1
    chosen = int(log.split("g: auto chose g=")[1].split()[0])
    cfg = (rd / "run.yaml").read_text()
    assert f"g: {chosen}\n" in cfg
    from golf.run import load_checkpoint

    ck = load_checkpoint(rd / "checkpoint.npz")
    assert ck["meta"]["auto_g"]["g"] == chosen
    # finish sooner: lower the budget in the run's own config, then resume
    (rd / "run.yaml").write_text(cfg.replace("steps: 5000000", f"steps: "
                                             f"{ck['meta']['steps'] + 5000}"))
    run_golf("resume", rd, "--quiet", check=True)
    log = (rd / "log.txt").read_text()
    assert log.count("g: auto chose g=") == 1 and log.count("g: auto trial") == 8
    assert f"resuming r: n=96 d=4 g={chosen}" in log
    s = json.loads((rd / "summary.json").read_text())
    assert s["problem"]["g"] == s["auto_g"]["g"] == chosen
    assert s["auto_g"] == ck["meta"]["auto_g"] and s["steps"] == ck["meta"]["steps"] + 5000
    assert s["evaluations"] > s["auto_g"]["evaluations"]


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

    import golf.run.symmetry

    result = doctest.testmod(golf.run.symmetry)
    assert result.attempted > 0 and result.failed == 0
