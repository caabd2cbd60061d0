"""The clock at every size: a timed run's trials of ``g: auto`` leave out a form whose set-up
cannot fit its slice (the cost model: the kind's start graph, the backend's estimate of an
evaluation), sample as many temperatures as their slice holds, compare the forms on their
start graphs where the trials made too few steps to rank by progress, and keep the warm-up's
compilation out of the run's clock; a large graph on the CPU and an evaluator made slow on
purpose keep the run within its time."""

import pytest

import golf
from golf.problems import Form, problem_of
from golf.run.portfolio import MIN_DECIDING_STEPS, MIN_SAMPLES, Choice, fit_batch, sample_count


def config(n, d, **search):
    from golf.config import validate

    return validate({"name": "c", "problem": {"n": n, "d": d, "g": "auto"},
                     "search": {"time_limit": 60, **search}}, lambda key: "c")


def test_the_samples_fit_the_slice():
    assert sample_count(200, 1.0, 1e-4) == 200  # a small graph: every sample
    assert sample_count(200, 1.0, 0.02) == 50  # as many as the seconds hold
    assert sample_count(200, 1.0, 5.0) == MIN_SAMPLES  # never fewer than the floor
    assert sample_count(5, 1.0, 5.0) == 5  # nor more than asked for
    assert sample_count(200, 1.0, None) == 200  # no estimate: as asked


def test_a_chunk_ends_with_the_clock():
    from golf.run.coordinate import next_chunk

    assert next_chunk(100, 0.01) == 200  # fast: doubles
    assert next_chunk(100, 0.4) == 50  # aimed at 0.2 s
    assert next_chunk(100, 0.4, left=10.0) == 50  # the clock far: as before
    assert next_chunk(100, 0.01, left=0.0025) == 25  # 25 steps of 0.1 ms fill the 2.5 ms left
    assert next_chunk(100, 0.4, left=0.0) == 1  # past the clock: one step (the loop stops)


@pytest.mark.slow
def test_the_trials_leave_out_a_form_that_cannot_set_up_in_its_slice(monkeypatch):
    """The first form of (64, 4)'s portfolio (cyclic g=16) made to cost 100 s an evaluation by
    its backend's estimate: left out of the trials, and the record's rule says why with its
    predicted cost; the run keeps its clock."""
    from golf.evaluators import backend_class
    from golf.evaluators.base import Estimate

    cls = backend_class("bitset")
    real = cls.estimate.__func__

    def costly(klass, n, d, g, *, threads, ranks):
        if g == 16:
            return Estimate(100.0, "made costly on purpose")
        return real(klass, n, d, g, threads=threads, ranks=ranks)

    monkeypatch.setattr(cls, "estimate", classmethod(costly))
    r = golf.search(64, 4, g="auto", seconds=4, seed=1, progress=False, backend="bitset",
                    threads=1, auto_g_budget=0.5, batch=2)
    auto = r.summary["auto_g"]
    assert all(t["g"] != 16 for t in auto["trials"]) and auto["g"] != 16
    # named with its predicted set-up: 12 evaluations (2 chains, 10 samples) of 100 s
    assert "left out" in auto["rule"] and "cyclic g=16 (m=4) (~1.2e+03 s)" in auto["rule"]
    assert len(auto["trials"]) >= 2  # the others were tried
    assert r.summary["seconds"] <= 4 * 1.05
    assert r.summary["compile_seconds"] == r.summary["auto_g"]["compile_seconds"] >= 0


@pytest.mark.slow
def test_trials_that_make_too_few_steps_compare_the_forms_on_their_start_graphs(monkeypatch):
    """An evaluator made slow on purpose (0.1 s a graph, 4 chains: 0.4 s a step) leaves the
    trials fewer than MIN_DECIDING_STEPS steps in their 1 s slices: the forms are compared on
    their start graphs, the log says so, and the winner's start scores best; the run keeps its
    clock."""
    from test_auto_g import _slow_reference

    kw = dict(seed=1, progress=False, backend="reference", batch=4, sample_moves=10)
    golf.search(48, 3, g="auto", steps=400, auto_g_budget=0.9, **kw)  # compiled first
    _slow_reference(monkeypatch, 0.1)
    r = golf.search(48, 3, g="auto", seconds=8, auto_g_budget=0.5, **kw)
    auto = r.summary["auto_g"]
    assert "compared on their start graphs" in auto["reason"]
    assert f"fewer than {MIN_DECIDING_STEPS} steps" in auto["reason"]
    tried = [t for t in auto["trials"] if "start_score" in t]
    best = min(tuple(t["start_score"]) + (-t["g"],) for t in tried)
    assert tuple(auto["form"]["g"] == t["g"] and t["start_score"] for t in tried
                 if t["g"] == auto["form"]["g"])[0] == list(best[:2])
    assert r.summary["seconds"] <= 8 * 1.05 + 0.5  # one more step past the limit at most


@pytest.mark.slow
def test_a_chase_of_a_large_graph_on_the_cpu_keeps_its_clock():
    """(100000, 16) on this machine's CPU, half a minute (half of it trials, so that the
    portfolio holds g = 1): g = 1 (100000 sources, ~1 s an evaluation) is left out of the
    trials, the run makes annealing steps, and it ends within its time plus 5%, the
    warm-up's compilation reported apart."""
    r = golf.chase(100_000, 16, minutes=0.5, progress=False, threads=2, auto_g_budget=0.5)
    s, auto = r.summary, r.summary["auto_g"]
    assert all(t["g"] != 1 for t in auto["trials"])  # left out before the trials
    assert "left out" in auto["rule"] and "cyclic g=1 (m=100000)" in auto["rule"]
    assert s["steps"] > 0 and s["evaluations"] > 0
    assert s["seconds"] <= 30 * 1.05
    assert s["compile_seconds"] is not None


def test_the_population_fits_the_clock():
    # 256 chains, 400 s at 0.4 ms an evaluation: 1e6 evaluations, 200000 steps each -> 5
    assert fit_batch(256, 400.0, 4e-4, 200_000) == 5
    assert fit_batch(256, 400.0, 1e-6, 200_000) == 256  # never more than asked for
    assert fit_batch(256, 1.0, 5.0, 200_000) == 1  # never fewer than one
    assert fit_batch(16, 400.0, None, 200_000) == 16  # no rate: as asked
    assert fit_batch(16, 400.0, 4e-4, 0) == 16  # min_steps 0: as asked


def _starter(cfg):
    from golf.run.start import Starter

    lines = []
    return Starter(cfg, type("Co", (), {"comm": None})(), lines.append, None), lines


def _choice(stepping, chains="host", seconds=100.0):
    return Choice(Form(1), record={"winner": {"stepping": stepping, "chains": chains}},
                  seconds=seconds)


def test_after_the_trials_a_host_population_keeps_the_chains_that_make_min_steps():
    cfg = config(1_000_000, 16, time_limit=500, batch=256, min_steps=200_000)
    starter, lines = _starter(cfg)
    choice = _choice([10.0, 25_000])  # 2,500 evaluations/s measured in the winning trial
    starter._fit(choice)
    # 400 s left at 0.4 ms: 1e6 evaluations, 5 chains of 200000 steps
    assert cfg["search"]["batch"] == 5
    assert choice.record["batch"] == {"chains": 5, "asked": 256, "per_evaluation": 4e-4,
                                      "seconds": 400.0, "min_steps": 200_000}
    assert "5 chains of the 256 asked" in lines[-1] and "2,500 evaluations/s" in lines[-1]


@pytest.mark.parametrize("why, search, winner", [
    ("device chains run side by side", {}, ([10.0, 25_000], "device")),
    ("min_steps 0", {"min_steps": 0}, ([10.0, 25_000], "host")),
    ("a step budget", {"time_limit": None, "steps": 10_000}, ([10.0, 25_000], "host")),
    ("enough evaluations", {}, ([10.0, 10_000_000], "host")),
])
def test_a_population_is_not_cut(why, search, winner):
    cfg = config(1_000_000, 16, **dict(dict(time_limit=500, batch=256, min_steps=200_000),
                                       **search))
    starter, lines = _starter(cfg)
    choice = _choice(*winner)
    starter._fit(choice)
    assert cfg["search"]["batch"] == 256 and "batch" not in choice.record, why


def test_without_a_measured_rate_the_backend_estimate_sizes_it():
    from golf.evaluators import decide

    cfg = config(1_000_000, 16, time_limit=500, batch=256, min_steps=200_000)
    cfg["problem"]["g"] = 62_500
    cfg["evaluator"]["backend"] = "bitset"
    starter, lines = _starter(cfg)
    starter._fit(_choice(None, None, seconds=0.0))
    per = decide(problem_of(cfg["problem"]).shape, "bitset").seconds
    assert cfg["search"]["batch"] == fit_batch(256, 500.0, per, 200_000) < 256
    assert "the backend's estimate" in lines[-1]


def test_a_gpu_chase_asks_for_min_steps_unless_a_batch_is_asked_for(monkeypatch):
    import golf.run.chase as chase

    assert chase.chase_settings(gpu=True)["min_steps"] == chase.CHASE_STEPS
    assert "min_steps" not in chase.chase_settings(gpu=False)
    real = chase.chase_settings
    monkeypatch.setattr(chase, "chase_settings", lambda gpu=False: real(True))  # as on a GPU
    run = chase.chase_config(64, 4, minutes=1, backend="bitset")
    assert run.data["search"]["min_steps"] == chase.CHASE_STEPS
    for asked in (dict(settings={"batch": 8}), dict(sets=["search.batch=8"])):
        run = chase.chase_config(64, 4, minutes=1, backend="bitset", **asked)
        assert run.data["search"]["batch"] == 8 and run.data["search"]["min_steps"] == 0
    run = chase.chase_config(64, 4, minutes=1, backend="bitset",
                             settings={"batch": 8, "min_steps": 5})
    assert run.data["search"]["min_steps"] == 5


@pytest.mark.slow
def test_a_timed_run_sizes_its_population_and_writes_it(tmp_path):
    """(64, 4) on the CPU with min_steps far beyond what 3 s hold: the run keeps fewer chains
    than asked, records how many, and its checkpoint and run.yaml hold that many (a resume
    reads both)."""
    import yaml

    from golf.run.checkpoint import load_checkpoint

    out = tmp_path / "r"
    r = golf.search(64, 4, g="auto", seconds=3, seed=1, progress=False, backend="bitset",
                    threads=1, batch=16, min_steps=10_000_000, output=out)
    sized = r.summary["auto_g"]["batch"]
    assert 1 <= sized["chains"] < 16 and sized["asked"] == 16
    assert r.summary["config"]["search"]["batch"] == sized["chains"]
    ck = load_checkpoint(out / "checkpoint.npz")
    assert ck["meta"]["auto_g"]["batch"] == sized
    adj = ck["states"][0]["adj"]  # (chains, m, d), or (m, d) for one chain
    assert (adj.shape[0] if adj.ndim == 3 else 1) == sized["chains"]
    assert yaml.safe_load((out / "run.yaml").read_text())["search"]["batch"] == sized["chains"]


def test_periodic_checkpoints_write_a_slow_best_edges_within_its_share():
    import time

    from golf.run.records import EDGES_SHARE, Records

    rec = Records.__new__(Records)
    rec.edges_written = None
    assert rec._edges_due()  # never written
    now = time.perf_counter()
    took = 2.0
    rec.edges_written = (now - 0.5 * took / EDGES_SHARE, took)  # twice its share since
    assert not rec._edges_due()
    rec.edges_written = (now - 2 * took / EDGES_SHARE, took)  # half its share
    assert rec._edges_due()
    rec.edges_written = (now, 0.2)  # a fast write: every checkpoint
    assert rec._edges_due()


def test_best_edges_left_behind_by_periodic_checkpoints_is_written_at_the_end(tmp_path,
                                                                             monkeypatch):
    """Periodic checkpoints that never write best.edges (as if each write were slow): the
    first checkpoint and the last one write it, and it holds the run's best graph."""
    from golf.run.records import Records

    kw = dict(seed=1, progress=False, backend="bitset", threads=1)
    golf.search(64, 4, g=4, steps=20, **kw)  # compiled first (a cold cache takes the 1.5 s)
    calls = []
    monkeypatch.setattr(Records, "_edges_due", lambda self: calls.append(1) and False)
    out = tmp_path / "r"
    r = golf.search(64, 4, g=4, seconds=1.5, checkpoint_every=0.1, output=out, **kw)
    assert calls  # periodic checkpoints came and left the file
    graph = golf.read_edges(out / "best.edges").graph(n=64)
    score = golf.evaluate(graph, "bfs")
    assert (score.diameter, score.total) == (r.score.diameter, r.score.total)


@pytest.mark.slow
def test_a_gpu_chase_sizes_its_population_before_the_trials(monkeypatch):
    """With min_steps (a chase on a GPU), the population the trials and the run start with is
    as many chains as each make min_steps steps in the run's time at the backend's estimate
    at the portfolio's first form; a graph whose chains may run on the device keeps them.
    (A million vertices: the portfolio's groups take seconds to enumerate.)"""
    import golf.run.chase as chase
    from golf.evaluators import decide
    from golf.evaluators.gpu_bitset import GpuBitsetEvaluator

    real = chase.chase_settings
    monkeypatch.setattr(chase, "chase_settings", lambda gpu=False: real(True))  # as on a GPU
    run = chase.chase_config(1_000_000, 16, minutes=8, backend="bitset")
    s = run.data["search"]
    problem = problem_of(run.data["problem"])
    first = Form(62_500)  # the largest cyclic g of m >= d
    assert first in problem.forms()[0][:1]
    per = decide(problem.at_form(first).shape, "bitset").seconds
    assert s["batch"] == fit_batch(256, 480 * 0.75, per, chase.CHASE_STEPS) < 256
    assert chase.chase_config(1_000_000, 16, minutes=8, backend="bitset",
                              sets=["search.batch=64"]).data["search"]["batch"] == 64
    # a small graph's chains run side by side on the device: kept
    assert GpuBitsetEvaluator.device_chains_possible(10_000)
    assert not GpuBitsetEvaluator.device_chains_possible(100_000)
    data = {**run.data, "evaluator": dict(run.data["evaluator"], backend="gpu-bitset"),
            "problem": dict(run.data["problem"], n=10_000), "search": dict(s, batch=256)}
    assert chase.sized_batch(data, 360.0) == 256


def test_the_trials_try_as_many_forms_as_slices_of_twice_their_set_up_allow():
    from golf.run.portfolio import _affordable

    assert _affordable(11, 112.0, 1.0) == 11  # no set-up known: 2.5 s slices
    # 6.5 s a set-up: a first slice of 13 s: [4, 2] gives 14 s
    assert _affordable(11, 112.0, 1.0, [6.5] * 11) == 4
    assert _affordable(11, 112.0, 1.0, [None] * 11) == 11
    assert _affordable(3, 1.0, 1.0, [100.0] * 3) == 1  # at least one


def test_a_form_that_cannot_set_up_within_the_trials_is_left_out_of_the_portfolio():
    from golf.run.portfolio import _fit_portfolio

    cfg = dict(config(1_000_000, 16), evaluator={"backend": "bitset"})
    problem = problem_of(cfg["problem"])
    forms = [Form(62_500), Form(1), Form(15_625)]
    kept, setups, note = _fit_portfolio(problem, cfg, forms, 100.0, 1)
    assert kept == [Form(62_500), Form(15_625)] and len(setups) == 2
    assert all(x is not None and x < 25.0 for x in setups)
    assert "left out" in note and "cyclic g=1 (m=1000000)" in note
    # none would fit: the portfolio stays whole (the trials' own check then says why)
    assert _fit_portfolio(problem, cfg, [Form(1)], 100.0, 1)[0] == [Form(1)]


def test_a_chase_keeps_its_population_steps_to_about_a_second():
    """On a CPU (no min_steps) a chase of a huge graph keeps as many chains as a population
    step of STEP_SECONDS holds at the backend's estimate; a small one keeps 16."""
    from golf.evaluators import decide
    from golf.run.chase import CPU_CHAINS, STEP_SECONDS, chase_config

    run = chase_config(10_000_000, 16, minutes=2, backend="bitset")
    problem = problem_of(run.data["problem"])
    per = decide(problem.at_form(Form(625_000)).shape, "bitset").seconds
    assert run.data["search"]["batch"] == max(1, min(CPU_CHAINS, int(STEP_SECONDS / per)))
    assert run.data["search"]["batch"] < CPU_CHAINS
    assert chase_config(1024, 8, minutes=2, backend="bitset").data["search"]["batch"] == \
        CPU_CHAINS


def test_a_form_too_slow_to_step_stays_while_its_graph_leads():
    """After round 0 the forms that made too few steps leave the later rounds, except those
    whose graph scores better than every stepping form's (an algebraic start that spent its
    slice setting up): ranked best first, the leading slow form 7 stays, slow form 2 goes."""
    from golf.run.portfolio import stepping_forms

    assert stepping_forms([7, 4, 2, 5], [4, 5]) == [7, 4, 5]
    assert stepping_forms([4, 7, 5], [4, 5]) == [4, 5]  # behind the best stepping form: out
    assert stepping_forms([7, 8, 4, 5], [4, 5]) == [7, 8, 4, 5]
    assert stepping_forms([4, 5], [4, 5]) == [4, 5]
