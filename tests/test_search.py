"""The annealer and whole runs: acceptance rules, determinism, outputs, checkpoint/resume,
SIGKILL, locking, export."""

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from golf.engine.annealer import FL, P, SC, Annealer, accept_move
from golf.lower_bounds import moore_bounds
from golf.evaluators import backend_class, make_evaluator, names
from golf.starts.random import random_graph
from golf.graph import Graph
from golf.io import read_edges
from golf.kernels.merge import DISCONNECTED, OK
from golf.kernels.rng import rng_seed
from golf.run import load_checkpoint

from conftest import ROOT, run_golf, signal_after, wait_for
from naive import apsp_score


# -- acceptance rules -----------------------------------------------------------------------
def state(cur_d=5, cur_total=1000, cur_per=8, g=2, t=1.0, hill=0, aspl=0, tiebreak=0,
          d_bound=3, pw=0.0):
    sc = np.zeros(len(SC), dtype=np.int64)
    sc[SC.CUR_D], sc[SC.CUR_TOTAL], sc[SC.CUR_PER] = cur_d, cur_total, cur_per
    fl = np.zeros(len(FL))
    fl[FL.T] = t
    fl[FL.PW] = pw
    params = np.zeros(len(P), dtype=np.int64)
    params[P.G], params[P.HILL], params[P.ASPL_PRIORITY] = g, hill, aspl
    params[P.TIEBREAK], params[P.D_BOUND], params[P.WEIGHT] = tiebreak, d_bound, g
    return sc, fl, params


def out(d, total, per=4, status=OK, g=2):
    return np.array([d, 2 * total // g, per // g, status], dtype=np.int64)


def test_diameter_rules():
    st = rng_seed(1)
    sc, fl, params = state()
    assert not accept_move(out(6, 10), st, sc, fl, params)  # higher diameter: never
    assert accept_move(out(4, 99999), st, sc, fl, params)  # lower diameter: always
    assert not accept_move(out(4, 10, status=DISCONNECTED), st, sc, fl, params)
    sc, fl, params = state(aspl=1)  # aspl priority: only the total counts
    assert accept_move(out(6, 900), st, sc, fl, params)
    assert not accept_move(out(4, 5000), st, sc, fl, params)


def test_metropolis_and_hill():
    st = rng_seed(2)
    sc, fl, params = state(t=10.0)
    assert accept_move(out(5, 1000), st, sc, fl, params)  # equal: accepted
    # dE = (1020-1000)/2 = 10 at T=10: accepted with probability exp(-1)
    rate = np.mean([accept_move(out(5, 1020), st, sc, fl, params) for _ in range(20000)])
    assert abs(rate - np.exp(-1)) < 0.02
    sc, fl, params = state(hill=1)
    assert accept_move(out(5, 1000), st, sc, fl, params)  # plateau move
    assert not accept_move(out(5, 1002), st, sc, fl, params)


def test_peripheral_tiebreak_counts_while_above_bound():
    st = rng_seed(3)
    # same total, fewer peripheral vertices: better; more: worse (hill)
    sc, fl, params = state(hill=1, tiebreak=1, pw=1.0, cur_per=8)
    assert accept_move(out(5, 1002, per=4), st, sc, fl, params)  # dE = 1 - 2 < 0
    assert not accept_move(out(5, 1000, per=12), st, sc, fl, params)
    sc, fl, params = state(hill=1, tiebreak=1, pw=1.0, cur_per=8, d_bound=5)
    assert not accept_move(out(5, 1002, per=4), st, sc, fl, params)  # at the bound: total only


# -- the annealer ---------------------------------------------------------------------------
def anneal(graph, backend="bitset", steps=3000, seed=5, **kw):
    opts = {"threads": 1} if "threads" in backend_class(backend).options else {}
    ev = make_evaluator(backend, graph.n, graph.d, graph.g, **opts)
    a = Annealer(graph, ev, steps=steps, seed=seed, trace_every=100, **kw)
    a.set_temperatures(5.0, 0.05)
    while not a.stop_reason:
        a.run(700)
    return a


def test_search_improves_and_best_is_exact():
    graph = random_graph(128, 4, 2, seed=1)
    a = anneal(graph, steps=4000)
    best = a.best_graph()
    best.check()
    want = apsp_score(128, best.edges())
    assert (int(a.sc[SC.BEST_D]), int(a.sc[SC.BEST_TOTAL])) == want[:2]
    assert want[:2] < (a.start_score.diameter, a.start_score.total)
    assert (best.degrees() == graph.degrees()).all()
    assert Graph.from_edges(best.edges(), n=128, g=2, d=4) == best


def test_same_seed_same_result_across_backends_and_chunking():
    graph = random_graph(96, 4, 3, seed=2)
    a = anneal(graph, "bitset", steps=1500, seed=9)
    b = anneal(graph, "bfs", steps=1500, seed=9)
    c = anneal(graph, "reference", steps=300, seed=9)  # the Python path walks the same chain
    d = anneal(graph, "bitset", steps=300, seed=9)
    assert np.array_equal(a.best_adj, b.best_adj) and np.array_equal(a.sc, b.sc)
    assert np.array_equal(c.best_adj, d.best_adj) and np.array_equal(c.sc, d.sc)
    e = anneal(graph, "bitset", steps=1500, seed=10)
    assert not np.array_equal(a.graph.adj, e.graph.adj)


def test_proposal_streams_walk_one_chain_on_every_path():
    """search.speculate k: step s draws its move from proposal stream s mod k and its
    decision from the main stream; the compiled loop and the Python path walk the same
    chain, each stream moves on, and the walk is another one than with a single stream."""
    from golf.engine.annealer import chain_streams

    graph = random_graph(96, 4, 3, seed=2)
    a = anneal(graph, "bitset", steps=300, seed=9, voltage_moves=0.3, speculate=5)
    b = anneal(graph, "reference", steps=300, seed=9, voltage_moves=0.3, speculate=5)
    assert np.array_equal(a.best_adj, b.best_adj) and np.array_equal(a.sc, b.sc)
    assert np.array_equal(a.st, b.st)
    start = chain_streams(9, 5)
    assert a.st.shape == (24,) and np.array_equal(start[:4], rng_seed(9))
    # the main stream draws only for uphill decisions; every proposal stream has moved
    assert all(not np.array_equal(a.st[j:j + 4], start[j:j + 4]) for j in range(4, 24, 4))
    one = anneal(graph, "bitset", steps=300, seed=9, voltage_moves=0.3)
    assert not np.array_equal(one.graph.adj, a.graph.adj)
    assert a.params[P.SPEC] == 5 and one.st.shape == (4,)


def test_cooling_follows_steps_not_the_clock_when_there_is_a_step_budget():
    """A slow machine (a large elapsed fraction of the time limit) walks the same chain when
    the run has a step budget; without one, the time fraction drives the temperature."""
    graph = random_graph(96, 4, 3, seed=2)

    def run(steps, time_frac):
        ev = make_evaluator("bitset", 96, 4, 3, threads=1)
        ann = Annealer(graph, ev, steps=steps, seed=9)
        ann.set_temperatures(5.0, 0.05)
        ann.run(800, time_frac=time_frac)
        return ann

    fast, slow = run(1000, 0.0), run(1000, 0.9)
    assert np.array_equal(fast.sc, slow.sc) and np.array_equal(fast.graph.adj, slow.graph.adj)
    assert fast.fl[FL.T] == pytest.approx(5.0 * 0.01 ** (799 / 1000))
    early, late = run(0, 0.0), run(0, 0.9)
    assert early.fl[FL.T] == pytest.approx(5.0)
    assert late.fl[FL.T] == pytest.approx(5.0 * 0.01 ** 0.9)


def test_k_chains_scored_together_walk_the_single_chains():
    """Without exchanges, chain k of a BatchAnnealer is exactly the Annealer of seed + k;
    with them, the worst chains restart from the best graph; state round-trips."""
    from golf.engine.population import BatchAnnealer

    graph = random_graph(60, 4, 2, seed=5)
    ev = make_evaluator("bitset", 60, 4, 2, threads=1)
    batch = BatchAnnealer(graph, ev, 3, population="none", exchange_every=0, steps=400, seed=7)
    batch.set_temperatures(3.0, 0.1)
    batch.run(400)
    for k in range(3):
        one = Annealer(graph, ev, steps=400, seed=7 + k)
        one.set_temperatures(3.0, 0.1)
        one.run(400)
        assert np.array_equal(batch.scs[k], one.sc) and np.array_equal(batch.adjs[k],
                                                                       one.graph.adj)
    lead = batch._lead
    assert batch.sc[SC.EVALS] == batch.scs[:, SC.EVALS].sum()
    best = make_evaluator("reference", 60, 4, 2).evaluate(batch.best_graph())
    assert (best.diameter, best.total) == (batch.scs[lead, SC.BEST_D],
                                           batch.scs[lead, SC.BEST_TOTAL])
    assert batch.scs[lead, SC.BEST_TOTAL] == batch.scs[:, SC.BEST_TOTAL][
        batch.scs[:, SC.BEST_D] == batch.scs[:, SC.BEST_D].min()].min()
    saved = batch.state()
    again = BatchAnnealer(graph, ev, 3, population="none", exchange_every=0, steps=400, seed=7)
    again.load_state(saved)
    assert np.array_equal(again.scs, batch.scs) and np.array_equal(again.adjs, batch.adjs)
    with pytest.raises(Exception, match="search.batch=3"):
        BatchAnnealer(graph, ev, 2, steps=400, seed=7).load_state(saved)
    ex = BatchAnnealer(graph, ev, 4, population="none", exchange_every=50, steps=400, seed=7)
    ex.set_temperatures(3.0, 0.1)
    ex.run(100)  # two exchanges: the worst half took the leader's best graph
    lead = ex._lead
    restarted = [k for k in range(4) if k != lead and np.array_equal(ex.adjs[k], ex.bests[lead])
                 and ex.scs[k, SC.CUR_TOTAL] == ex.scs[lead, SC.BEST_TOTAL]]
    assert ex.sc[SC.STEP] == 100 and len(restarted) >= 1


def _population(backend, kind, K=6, steps=300, every=10, **kw):
    from golf.engine.population import BatchAnnealer

    graph = random_graph(60, 4, 2, seed=5)
    ev = make_evaluator(backend, 60, 4, 2, **({} if backend == "reference" else {"threads": 1}))
    pop = BatchAnnealer(graph, ev, K, population=kind, population_every=every,
                        exchange_every=kw.pop("exchange_every", 0), steps=steps, seed=7, **kw)
    pop.set_temperatures(3.0, 0.1)
    return pop


def _consistent(pop):
    """Every chain's counters describe its own rows (no copy mixed them up)."""
    ref = make_evaluator("reference", pop.graph.n, pop.graph.d, pop.graph.g)
    for k in range(pop.K):
        s = ref.evaluate(Graph(pop.graph.n, pop.graph.d, pop.graph.g, pop.adjs[k].copy()))
        assert (s.diameter, s.total) == (pop.scs[k, SC.CUR_D], pop.scs[k, SC.CUR_TOTAL])
        b = ref.evaluate(Graph(pop.graph.n, pop.graph.d, pop.graph.g, pop.bests[k].copy()))
        assert (b.diameter, b.total) == (pop.scs[k, SC.BEST_D], pop.scs[k, SC.BEST_TOTAL])


def test_one_chain_resumes_alone_or_as_a_batch_of_one():
    """A checkpoint of one chain (an Annealer) resumes as a batch of one (a BatchAnnealer of
    K = 1, as device chains run a single chain) and back: the chain goes on as if never
    stopped."""
    from golf.engine.population import BatchAnnealer

    graph = random_graph(60, 4, 2, seed=1)
    ev = make_evaluator("bitset", 60, 4, 2, threads=1)

    def chain(k=0):
        a = (BatchAnnealer(graph, ev, 1, population="none", exchange_every=0, steps=400, seed=7)
             if k else Annealer(graph, ev, steps=400, seed=7))
        a.set_temperatures(3.0, 0.1)
        return a

    whole = chain()
    whole.run(400)
    first = chain()
    first.run(200)
    batch = chain(1)
    batch.load_state(first.state())
    batch.run(100)
    last = chain()
    last.load_state(batch.state())
    last.run(100)
    assert np.array_equal(last.graph.adj, whole.graph.adj)
    assert np.array_equal(last.sc, whole.sc) and np.array_equal(last.st, whole.st)


@pytest.mark.parametrize("speculate", [1, 3])
@pytest.mark.parametrize("kind", ["tempering", "annealing", "none"])
def test_population_compiled_loop_equals_batched_path(kind, speculate):
    """The CPU's compiled loop over the chains and the evaluate_many path (here the reference
    backend, which has no kernel) make the same draws and decisions."""
    fast = _population("bitset", kind, steps=120, speculate=speculate)
    slow = _population("reference", kind, steps=120, speculate=speculate)
    assert fast.compiled and not slow.compiled
    fast.run(120)
    slow.run(120)
    for a in ("adjs", "bests", "scs", "fls", "rung", "pop_rng", "sts"):
        assert np.array_equal(getattr(fast, a), getattr(slow, a)), a
    _consistent(fast)


def test_tempering_keeps_a_ladder_and_swaps_temperatures():
    pop = _population("bitset", "tempering", K=8, steps=600, ladder=4.0)
    pop.run(600)
    _consistent(pop)
    assert sorted(pop.rung.tolist()) == list(range(8))
    assert (pop.rung != np.arange(8)).any()  # some temperatures moved between chains
    # the chain on rung r anneals at ladder**(r/7) times the coldest chain's temperature
    coldest = pop.fls[int(np.argmin(pop.rung)), FL.T0]
    for k in range(8):
        assert pop.fls[k, FL.T0] == pytest.approx(coldest * 4.0 ** (pop.rung[k] / 7))


def test_population_annealing_copies_the_fittest():
    from golf.engine.population import resample

    pop = _population("bitset", "annealing", K=8, steps=400, every=50)
    pop.run(400)
    _consistent(pop)
    # equal weights (no temperature change) keep every chain at the lowest diameter in place
    scs = pop.scs.copy()
    scs[:, SC.CUR_D] = 3
    adjs = pop.adjs.copy()
    beta = np.array([0.5, 0.5])
    assert resample(adjs, scs, pop.pop_rng.copy(), beta, 2) == 0
    assert np.array_equal(adjs, pop.adjs)
    # a chain of higher diameter has no weight: it takes a copy of another chain
    scs[3, SC.CUR_D] = 4
    assert resample(adjs, scs, pop.pop_rng.copy(), beta, 2) == 1
    assert scs[3, SC.CUR_D] == 3
    assert any(np.array_equal(adjs[3], adjs[k]) for k in range(8) if k != 3)
    # a large temperature drop concentrates the population on the lowest total
    scs[:, SC.CUR_D] = 3
    scs[:, SC.CUR_TOTAL] = np.arange(8) * 100 + 1000
    beta = np.array([0.0, 10.0])
    resample(adjs, scs, pop.pop_rng.copy(), beta, 2)
    assert (scs[:, SC.CUR_TOTAL] == 1000).all() and beta[0] == 10.0


@pytest.mark.parametrize("kind,speculate", [("tempering", 1), ("annealing", 1),
                                            ("tempering", 4)])
def test_population_state_round_trip_continues_bit_for_bit(kind, speculate):
    full = _population("bitset", kind, steps=400, exchange_every=150, speculate=speculate)
    full.run(400)
    part = _population("bitset", kind, steps=400, exchange_every=150, speculate=speculate)
    part.run(170)
    saved = part.state()
    again = _population("bitset", kind, steps=400, exchange_every=150, speculate=speculate)
    again.set_temperatures(9.0, 0.5)  # overwritten by the state
    again.load_state(saved)
    again.run(230)
    for a in ("adjs", "bests", "scs", "fls", "rung", "pop_rng", "pop_fl", "sts"):
        assert np.array_equal(getattr(full, a), getattr(again, a)), a


def test_state_round_trip_continues_bit_for_bit():
    graph = random_graph(80, 5, 4, seed=3)
    full = anneal(graph, steps=2000, seed=4)
    ev = make_evaluator("bitset", 80, 5, 4, threads=1)
    half = Annealer(graph, ev, steps=2000, seed=4, trace_every=100)
    half.set_temperatures(5.0, 0.05)
    half.run(777)
    saved = half.state()
    other = Annealer(graph, make_evaluator("bitset", 80, 5, 4), steps=2000, seed=4)
    other.load_state(saved)
    while not other.stop_reason:
        other.run(500)
    assert np.array_equal(other.best_adj, full.best_adj)
    assert np.array_equal(other.sc, full.sc)


def test_state_of_other_proposal_streams_is_refused():
    from golf.errors import GolfError

    graph = random_graph(80, 5, 4, seed=3)
    ev = make_evaluator("bitset", 80, 5, 4, threads=1)
    saved = Annealer(graph, ev, steps=100, seed=4, speculate=3).state()
    with pytest.raises(GolfError, match="search.speculate=3"):
        Annealer(graph, ev, steps=100, seed=4).load_state(saved)


def test_stops_at_the_bounds():
    # Petersen-size problem: the bound (2, 75) is reachable; the run stops there
    graph = random_graph(10, 3, 1, seed=1)
    a = anneal(graph, steps=200000, seed=1)
    b = moore_bounds(10, 3)
    assert (a.sc[SC.BEST_D], a.sc[SC.BEST_TOTAL]) == (b.diameter, b.total)
    assert a.stop_reason == 2 and a.sc[SC.STEP] < 200000


def test_auto_temperatures_are_sane():
    graph = random_graph(256, 8, 4, seed=1)
    ev = make_evaluator("bitset", 256, 8, 4, threads=1)
    a = Annealer(graph, ev, steps=10, seed=1)
    before = a.graph.adj.copy()
    t0, t1, how = a.auto_temperatures(100)
    assert 0 < t1 < t0 and "sampled" in how
    assert np.array_equal(a.graph.adj, before)  # every sampled swap was undone


# -- whole runs through the CLI -------------------------------------------------------------
def write_cfg(tmp_path, steps=20000, time_limit=None, extra=""):
    p = tmp_path / "run.yaml"
    tl = f", time_limit: {time_limit}" if time_limit else ""
    p.write_text(f"""name: r
problem: {{n: 128, d: 5, g: 2}}
search: {{steps: {steps}{tl}, seed: 3}}
output: {{dir: {tmp_path / 'out'}, checkpoint_every: 0.2, trace_every: 200}}
{extra}""")
    return p


@pytest.mark.slow
def test_run_outputs(tmp_path):
    p = write_cfg(tmp_path, steps=6000)
    proc = run_golf("run", p, check=True)
    rd = tmp_path / "out" / "r"
    names = {f.name for f in rd.iterdir()}
    assert {"best.edges", "summary.json", "trace.csv", "log.txt", "run.yaml",
            "checkpoint.npz"} <= names
    assert ".lock" not in names
    s = json.loads((rd / "summary.json").read_text())
    for key in ("problem", "seed", "backend", "steps", "seconds", "evaluations_per_s",
                "best", "gaps", "config", "recheck"):
        assert key in s
    assert s["steps"] == 6000 and s["recheck"]["backend"] == "reference"
    e = read_edges(rd / "best.edges").edges
    assert apsp_score(128, e)[:2] == (s["best"]["diameter"], s["best"]["total"])
    assert run_golf("validate", rd / "best.edges", "--n", 128, "--d", 5).returncode == 0
    rows = (rd / "trace.csv").read_text().splitlines()
    assert rows[0].startswith("step,temperature") and len(rows) == 31
    assert "temperatures from" in proc.stdout and "done" in proc.stdout
    log = (rd / "log.txt").read_text()
    assert "starting r" in log and "done (step limit)" in log
    # a second run into the same folder refuses
    again = run_golf("run", p)
    assert again.returncode == 2 and "already holds a run" in again.stderr
    # --quiet prints nothing
    q = run_golf("run", p, "--force", "--quiet", check=True)
    assert q.stdout == ""


@pytest.mark.slow
def test_export(tmp_path):
    p = write_cfg(tmp_path, steps=3000)
    run_golf("run", p, "--quiet", check=True)
    rd = tmp_path / "out" / "r"
    s = json.loads((rd / "summary.json").read_text())
    proc = run_golf("export", rd, "-o", str(tmp_path) + os.sep, "--gzip", check=True)
    k, aspl = s["best"]["diameter"], s["best"]["aspl"]
    name = f"n128d5k{k}l{int(100 * aspl)}.edges.gz"
    assert (tmp_path / name).exists() and name in proc.stdout
    assert read_edges(tmp_path / name).edges.shape == read_edges(rd / "best.edges").edges.shape


@pytest.mark.slow
def test_sigint_checkpoints_and_resume_matches_uninterrupted(tmp_path):
    # ~10 s of steps on one core: the signal, sent ~0.3 s after the first checkpoint, always
    # finds the run going
    steps = 1_000_000
    ref_dir = tmp_path / "ref"
    ref_dir.mkdir()
    p_ref = write_cfg(ref_dir, steps=steps)
    run_golf("run", p_ref, "--quiet", check=True)
    want = json.loads((ref_dir / "out" / "r" / "summary.json").read_text())["best"]

    p = write_cfg(tmp_path, steps=steps)
    proc = subprocess.Popen([sys.executable, "-m", "golf", "run", str(p)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    rd = tmp_path / "out" / "r"
    stdout, stderr = signal_after(proc, rd / "checkpoint.npz", signal.SIGINT, 0.3)
    assert proc.returncode == 130, stderr
    assert "SIGINT: stopped at step" in stdout and "golf resume" in stdout
    load_checkpoint(rd / "checkpoint.npz")  # readable
    assert not (rd / "summary.json").exists()
    run_golf("resume", rd, "--quiet", check=True)
    got = json.loads((rd / "summary.json").read_text())["best"]
    assert got == want


@pytest.mark.slow
def test_sigkill_loses_nothing_before_the_checkpoint(tmp_path):
    # a 10-second run, killed about a second in, resumed for the rest
    p = write_cfg(tmp_path, steps=10_000_000, time_limit=10)
    proc = subprocess.Popen([sys.executable, "-m", "golf", "run", str(p), "--quiet"], cwd=ROOT)
    rd = tmp_path / "out" / "r"
    # read the files while the run rewrites them: best.edges is always a complete graph
    wait_for(rd / "checkpoint.npz")
    for _ in range(3):
        assert len(read_edges(rd / "best.edges").edges) == 128 * 5 // 2
        time.sleep(0.25)
    before = load_checkpoint(rd / "checkpoint.npz")
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    after = load_checkpoint(rd / "checkpoint.npz")  # still readable, never torn
    assert after["meta"]["steps"] >= before["meta"]["steps"]
    # a kill in the middle of a write leaves that write's temporary (a hidden .tmp, which no
    # reader takes for a result): the resume that takes over removes it (below)
    assert all(t.name.startswith(".") for t in rd.glob("*.tmp"))
    e = read_edges(rd / "best.edges").edges
    Graph.from_edges(e, n=128, g=2, d=5)  # 2-symmetric, degree <= 5 (raises otherwise)
    assert apsp_score(128, e)[:2] <= (int(after["states"][0]["sc"][SC.BEST_D]),
                                      int(after["states"][0]["sc"][SC.BEST_TOTAL]))
    assert (rd / ".lock").exists()  # the killed run could not clean up ...
    # ... but resume sees its process is gone, takes over and finishes
    proc2 = subprocess.run([sys.executable, "-m", "golf", "resume", str(rd), "--quiet"],
                           cwd=ROOT, capture_output=True, text=True, timeout=200,
                           env=dict(os.environ))
    assert proc2.returncode == 0, proc2.stderr
    assert not list(rd.glob("*.tmp")) and not list(rd.glob(".*.tmp"))
    s = json.loads((rd / "summary.json").read_text())
    assert (s["best"]["diameter"], s["best"]["total"]) <= (
        int(after["states"][0]["sc"][SC.BEST_D]), int(after["states"][0]["sc"][SC.BEST_TOTAL]))


@pytest.mark.slow
def test_live_lock_refuses_second_process(tmp_path):
    p = write_cfg(tmp_path, steps=10_000_000, time_limit=30)
    proc = subprocess.Popen([sys.executable, "-m", "golf", "run", str(p), "--quiet"], cwd=ROOT)
    rd = tmp_path / "out" / "r"
    try:
        wait_for(rd / ".lock", 60)
        other = run_golf("run", p, "--force")
        assert other.returncode == 2 and "in use by another golf run" in other.stderr
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    assert proc.returncode == 143


@pytest.mark.parametrize("backend", [name for name in names()
                                     if backend_class(name).supports.compiled])
def test_compiled_loop_reaches_every_compiled_backend_by_its_tag(backend):
    """The compiled loop calls the kernel of the backend its tag names: it walks exactly the
    chain of the Python path (one evaluate() a step) with the same backend."""
    graph = random_graph(64, 4, 2, seed=1)
    compiled = anneal(graph, backend, steps=300, seed=3)
    assert compiled.compiled and compiled.evaluator.tag.backend == backend

    class Python:  # the same evaluator without its kernel: the Python path
        def __init__(self, ev):
            self.ev, self.comm, self.name = ev, None, ev.name
            self.supports = ev.supports._replace(compiled=False)

        def evaluate(self, g, max_level=0):
            return self.ev.evaluate(g, max_level)

        def raw(self, g, max_level=0):
            return self.ev.raw(g, max_level)

    ev = Python(make_evaluator(backend, 64, 4, 2, threads=1))
    slow = Annealer(graph, ev, steps=300, seed=3, trace_every=100)
    slow.set_temperatures(5.0, 0.05)
    while not slow.stop_reason:
        slow.run(700)
    assert not slow.compiled
    assert np.array_equal(slow.sc, compiled.sc) and np.array_equal(slow.best_adj,
                                                                    compiled.best_adj)


def test_one_chain_takes_an_offered_graph_as_its_best_only_if_it_is_better():
    """Annealer.offer_best (the graph a release keeps, another rank's best): a better graph
    becomes the best, the chain's own graph stays; a worse one changes nothing."""
    ev = make_evaluator("bitset", 32, 3, 1, threads=1)

    def key(x):
        sc = ev.evaluate(x)
        return sc.diameter, sc.total, sc.peripheral

    better, worse = sorted((random_graph(32, 3, g=1, seed=s) for s in (1, 2)), key=key)
    assert key(better)[:2] < key(worse)[:2]
    ann = Annealer(worse, ev, steps=10, seed=1)
    ann.offer_best(better.adj, key(better))
    assert sorted(map(tuple, ann.best_graph().edges().tolist())) == \
        sorted(map(tuple, better.edges().tolist()))
    assert (ann.sc[SC.BEST_D], ann.sc[SC.BEST_TOTAL]) == key(better)[:2]
    assert (ann.graph.adj == worse.adj).all()  # the chain walks on from its own graph
    ann.offer_best(worse.adj, key(worse))
    assert (ann.sc[SC.BEST_D], ann.sc[SC.BEST_TOTAL]) == key(better)[:2]
