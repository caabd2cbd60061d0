"""``golf chase``: the one command that searches a pair with nothing chosen by hand -- a run
folder that ``golf resume`` continues, the submission file beside it, the choice explained;
the grid form; bad input; and under mpiexec, started by the command itself."""

import json
import signal
import subprocess
import sys

import pytest

import golf

from conftest import ROOT, mpiexec_cmd, run_golf, signal_after


def submission(folder):
    found = [p for p in folder.iterdir() if p.suffix == ".edges" and p.name != "best.edges"]
    assert len(found) == 1, sorted(p.name for p in folder.iterdir())
    return found[0]


@pytest.mark.slow
def test_chase_writes_a_run_folder_and_the_submission(tmp_path):
    # a first chase, the same, compiles what it runs (Numba caches it on disk): the timed one
    # below then measures the chase's clock, not a compilation
    run_golf("chase", 36, 3, "--minutes", 0.15, "--out", tmp_path / "warm", "--ranks", 1,
             "--seed", 2, "--quiet", check=True)
    proc = run_golf("chase", 36, 3, "--minutes", 0.15, "--out", tmp_path, "--ranks", 1,
                    "--seed", 2, check=True)
    rd = tmp_path / "n36d3"
    s = json.loads((rd / "summary.json").read_text())
    auto = s["auto_g"]
    assert auto["budget"] == 0.25 and auto["trials"] and auto["form"]["label"]
    assert s["seconds"] <= 9 + 2 and s["seed"] == 2 and s["config"]["search"]["batch"] == 16
    chosen = (auto.get("released") or {}).get("from") or auto["form"]  # search.release
    assert f"g: auto chose {chosen['label']} because" in proc.stdout
    sub = submission(rd)
    d, total = s["best"]["diameter"], s["best"]["total"]
    assert sub.name == f"n36d3k{d}l{int(100 * total / (36 * 35 / 2))}.edges"
    assert f"submission file {sub}" in proc.stdout
    check = run_golf("validate", sub, "--n", 36, "--d", 3, check=True)
    assert f"{sub}: valid: n=36" in check.stdout
    score = golf.evaluate(golf.read_edges(sub).graph(n=36), "reference")  # SciPy BFS
    assert (score.diameter, score.total) == (d, total)
    # a finished chase is not resumed, and the folder is not overwritten without --force
    again = run_golf("chase", 36, 3, "--minutes", 0.1, "--out", tmp_path, "--ranks", 1)
    assert again.returncode != 0 and "already holds a run" in again.stderr
    assert "finished" in run_golf("resume", rd).stderr


@pytest.mark.slow
def test_a_stopped_chase_resumes(tmp_path):
    cmd = [sys.executable, "-m", "golf", "chase", "64", "4", "--minutes", "0.3", "--out",
           str(tmp_path), "--ranks", "1", "--quiet"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    rd = tmp_path / "n64d4"
    _, err = signal_after(proc, rd / "checkpoint.npz", signal.SIGINT, 0.5)
    assert proc.returncode == 130, err
    run_golf("resume", rd, "--quiet", check=True)
    s = json.loads((rd / "summary.json").read_text())
    assert s["problem"]["g"] == s["auto_g"]["g"] and s["seconds"] >= 18
    assert "g: auto chose" in (rd / "log.txt").read_text()


@pytest.mark.slow
def test_chase_on_a_grid(tmp_path):
    run_golf("chase", "--grid", "6x6", 4, 2, "--minutes", 0.2, "--out", tmp_path, "--ranks", 1,
             "--quiet", check=True)
    rd = tmp_path / "w6h6d4r2"
    s = json.loads((rd / "summary.json").read_text())
    assert s["problem"]["grid"] == [6, 6] and s["auto_g"]["g"] in (1, 2, 4)
    # the method: a duel of annealing and the memetic search after the trials
    won = s["duel"]["won"]
    assert s["method"] == won and {"sa", "memetic"} <= set(s["duel"])
    assert f"method: {won} won the duel" in (rd / "log.txt").read_text()
    assert submission(rd).name.startswith("w6h6d4r2k")


def test_a_large_grid_chase_walks_one_chain_a_process_on_a_cpu():
    """... and goes on after the trials at GRID_REHEAT of their T0; a population (a smaller
    lattice, or a batch asked for) keeps the full T0."""
    from golf.run.chase import CPU_CHAINS, GRID_CPU_CHAINS, GRID_REHEAT, chase_config

    cfg = chase_config(64, 8, backend="bitset")
    assert (cfg["search"]["batch"], cfg["search"]["reheat"]) == (CPU_CHAINS, 1.0)
    for side, chains, reheat in ((10, CPU_CHAINS, 1.0), (20, GRID_CPU_CHAINS, GRID_REHEAT)):
        cfg = chase_config(None, 4, grid=(side, side), r=2, backend="bitset")
        assert (cfg["search"]["batch"], cfg["search"]["reheat"]) == (chains, reheat)
    assert GRID_CPU_CHAINS == 1 and 0 < GRID_REHEAT < 1
    grid = dict(grid=(20, 20), r=2, backend="bitset")
    cfg = chase_config(None, 4, settings={"batch": 8}, **grid)
    assert (cfg["search"]["batch"], cfg["search"]["reheat"]) == (8, 1.0)
    cfg = chase_config(None, 4, sets=["search.batch=4"], **grid)
    assert (cfg["search"]["batch"], cfg["search"]["reheat"]) == (4, 1.0)
    assert chase_config(None, 4, settings={"reheat": 0.5}, **grid)["search"]["reheat"] == 0.5
    assert chase_config(None, 4, sets=["search.reheat=0.5"], **grid)["search"]["reheat"] == 0.5


def test_a_small_grid_chase_holds_a_larger_memetic_population():
    """A grid of at most GRID_CHAIN_N cells: GRID_MEMBERS graphs in a memetic population; a
    larger grid and a general graph keep the schema's default; a value asked for is kept."""
    from golf.config.schema import SCHEMA
    from golf.run.chase import GRID_CHAIN_N, GRID_MEMBERS, chase_config

    default = SCHEMA["search"]["members"].default
    assert GRID_MEMBERS > default
    side = int(GRID_CHAIN_N ** 0.5)
    members = [chase_config(None, 4, grid=(s, s), r=2, backend="bitset")["search"]["members"]
               for s in (side, side + 2)]
    assert side * side <= GRID_CHAIN_N < (side + 2) ** 2
    assert members == [GRID_MEMBERS, default]
    assert chase_config(64, 4, backend="bitset")["search"]["members"] == default
    asked = chase_config(None, 4, grid=(10, 10), r=2, backend="bitset",
                         sets=["search.members=40"])
    assert asked["search"]["members"] == 40
    asked = chase_config(None, 4, grid=(10, 10), r=2, backend="bitset",
                         settings={"members": 12})
    assert asked["search"]["members"] == 12


def test_a_large_general_chase_goes_on_after_its_trials_at_a_lower_t0():
    """A general graph of LARGE_N vertices or more goes on after the trials at LARGE_REHEAT of
    their T0 (a smaller one at the full T0); a reheat asked for is kept."""
    from golf.run.chase import LARGE_N, LARGE_REHEAT, chase_config

    assert 0 < LARGE_REHEAT < 1
    for n, reheat in ((LARGE_N - 2, 1.0), (LARGE_N, LARGE_REHEAT)):
        assert chase_config(n, 16, backend="bitset")["search"]["reheat"] == reheat
    assert chase_config(LARGE_N, 16, backend="bitset",
                        sets=["search.reheat=0.5"])["search"]["reheat"] == 0.5


def test_a_small_chase_releases_a_symmetric_winner():
    """search.release for a general graph of n <= RELEASE_MAX_N and a grid of at most
    GRID_RELEASE_MAX_N cells (a larger one, or a chase whose g is set by hand: not); a release
    asked against is kept, one asked for too."""
    from golf.run.chase import GRID_RELEASE_MAX_N, POLISH_MAX_N, RELEASE_MAX_N, chase_config

    def release(*args, **kw):
        return chase_config(*args, backend="bitset", **kw)["search"]["release"]

    assert release(RELEASE_MAX_N, 3) is True
    assert RELEASE_MAX_N < POLISH_MAX_N and release(RELEASE_MAX_N + 2, 3) is False
    assert release(384, 3, sets=["search.release=true"]) is True
    assert GRID_RELEASE_MAX_N == 8 * 8 and release(None, 4, grid=(8, 8), r=2) is True
    assert release(None, 4, grid=(5, 13), r=2) is False  # 65 cells
    assert release(None, 4, grid=(10, 10), r=2) is False
    assert release(None, 4, grid=(5, 10), r=2, sets=["problem.g=2"]) is False
    assert release(96, 3, sets=["problem.g=1"]) is False
    assert release(96, 3, sets=["search.release=false"]) is False
    # the texts that name the bounds name these
    from golf.config.schema import DOCS

    words = (f"``n <= {RELEASE_MAX_N}``", f"grids of at most {GRID_RELEASE_MAX_N} cells")
    assert all(w in DOCS["search.release"] for w in words)
    chase_md = open(f"{ROOT}/docs/chase.md", encoding="utf-8").read()
    assert all(w.replace("``", "`") in chase_md for w in words)


def test_a_memetic_chase_exchanges_between_its_islands_every_few_generations():
    """--set search.method=memetic: the ranks' populations share their best graph every
    MEMETIC_EXCHANGE generations (an annealing chase: every 200,000 steps); an exchange_every
    asked for is kept."""
    from golf.run.chase import GRID_METHOD, MEMETIC_EXCHANGE, POLISH_MAX_N, chase_config

    grid = chase_config(None, 4, grid=(6, 6), r=2, backend="bitset")["search"]["method"]
    assert grid == GRID_METHOD == "auto"  # a grid chase duels (test_chase_on_a_grid)
    # a small general graph on the CPU duels too; a larger one anneals
    assert chase_config(64, 4, backend="bitset")["search"]["method"] == "auto"
    assert chase_config(POLISH_MAX_N + 2, 4, backend="bitset")["search"]["method"] == "sa"
    assert chase_config(64, 4, backend="bitset",
                        sets=["search.method=sa"])["search"]["method"] == "sa"
    every = chase_config(64, 4, backend="bitset")["parallel"]["exchange_every"]
    assert every == 200_000
    memetic = ["search.method=memetic"]
    cfg = chase_config(64, 4, backend="bitset", sets=memetic)
    assert cfg["parallel"]["exchange_every"] == MEMETIC_EXCHANGE < every
    cfg = chase_config(64, 4, backend="bitset", sets=memetic + ["parallel.exchange_every=7"])
    assert cfg["parallel"]["exchange_every"] == 7


def test_a_small_chase_that_scores_on_a_gpu_anneals(monkeypatch):
    """A GPU chase of a small general graph: annealing, no duel (golf.run.chase.SMALL_METHOD)."""
    import golf.run.chase as chase
    from golf.evaluators import Decision

    monkeypatch.setattr(chase, "chase_backend",
                        lambda *a, **k: Decision("bitset", "a GPU by the test", gpu=True))
    assert chase.chase_config(64, 4)["search"]["method"] == "sa"


def test_chase_in_process_writes_the_run_and_the_submission(tmp_path, capsys):
    """The command's own code in this process (the fast tier's chase): a run folder that holds
    the form chosen by the trials, the submission file under the competition's name."""
    from golf.cli import main

    assert main(["chase", "24", "3", "--minutes", "0.05", "--out", str(tmp_path), "--ranks",
                 "1", "--seed", "3"]) == 0
    rd = tmp_path / "n24d3"
    s = json.loads((rd / "summary.json").read_text())
    assert s["problem"]["g"] == s["auto_g"]["g"] and s["seed"] == 3
    sub = submission(rd)
    assert sub.name.startswith(f"n24d3k{s['best']['diameter']}l")
    out = capsys.readouterr().out
    assert "g: auto chose" in out and f"submission file {sub}" in out
    won = s["duel"]["won"]  # a small graph on the CPU: the duel of sa and memetic
    assert s["method"] == won and f"method: {won} won the duel" in (rd / "log.txt").read_text()
    # the run's best.edges, re-checked at its end, under the submission's name (not written
    # again), and what golf validate reads in it is the summary's best
    assert sub.read_bytes() == (rd / "best.edges").read_bytes()
    graph = golf.read_edges(sub).graph(n=24)
    score = golf.evaluate(graph, "bfs")
    assert (score.diameter, score.total) == (s["best"]["diameter"], s["best"]["total"])


@pytest.mark.parametrize("args,message", [
    (("36", "3", "--minutes", "0"), "--minutes must be > 0"),
    (("36", "3", "--set", "search.batch=0"), "search.batch"),
    (("36", "3", "--set", "search.nope=1"), "unknown key 'search.nope'"),
])
def test_chase_refuses_bad_settings_in_process(tmp_path, capsys, args, message):
    from golf.cli import main

    assert main(["chase", *args, "--out", str(tmp_path), "--ranks", "1"]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


@pytest.mark.slow
@pytest.mark.parametrize("args,message", [
    (("36",), "the following arguments are required: d"),
    (("36", "3", "--minutes", "0"), "--minutes must be > 0"),
    (("36", "x"), "argument d"),
    (("--grid", "6x6", "4"), "the following arguments are required: R"),
    (("36", "3", "--set", "search.batch=0"), "search.batch"),
])
def test_chase_refuses_bad_input(tmp_path, args, message):
    proc = run_golf("chase", *args, "--out", tmp_path, "--ranks", 1)
    assert proc.returncode != 0 and message in proc.stderr


def _fake_cupy(gpus):
    import types

    runtime = types.SimpleNamespace(getDeviceCount=lambda: gpus)
    return types.SimpleNamespace(cuda=types.SimpleNamespace(runtime=runtime))


def test_the_ranks_a_chase_starts(monkeypatch):
    """A process a usable core on a CPU; on a GPU machine one a GPU, or one a core Numba may use
    for a general graph of n <= SHARED_GPU_MAX_N (the GPUs shared, SHARED_GPU_RANKS a GPU at
    most)."""
    import os

    from golf.run.chase import SHARED_GPU_MAX_N, SHARED_GPU_RANKS, default_ranks

    monkeypatch.setenv("NUMBA_NUM_THREADS", "5")
    assert default_ranks() == len(os.sched_getaffinity(0))  # the CPU: every usable core
    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(1))
    assert default_ranks(True, SHARED_GPU_MAX_N) == 5 and default_ranks(True, 64) == 5
    assert default_ranks(True, SHARED_GPU_MAX_N + 1) == 1
    assert default_ranks(True, None) == 1  # a grid, a host-switch problem: one a GPU
    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(8))
    assert default_ranks(True, 64) == 8 and default_ranks(True, 1024) == 8
    monkeypatch.setenv("NUMBA_NUM_THREADS", "128")
    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(1))
    assert SHARED_GPU_RANKS < 128 and default_ranks(True, 64) == SHARED_GPU_RANKS
    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(2))
    assert default_ranks(True, 64) == 2 * SHARED_GPU_RANKS


@pytest.mark.parametrize("gpu, threads", [(False, "1"), (True, "3")])
def test_a_relaunch_gives_its_ranks_their_share_of_the_cores(monkeypatch, gpu, threads):
    """CPU ranks one Numba thread each; GPU ranks the cores (here NUMBA_NUM_THREADS=13) over
    the ranks (4): a GPU rank's polish scores on them."""
    import golf.parallel
    import golf.run.chase as chase

    seen = {}

    def run(cmd, env):
        seen.update(cmd=cmd, env=env)
        return subprocess.CompletedProcess(cmd, 0)

    monkeypatch.setenv("NUMBA_NUM_THREADS", "13")
    monkeypatch.setattr(golf.parallel, "mpiexec_prefix", lambda n: ["mpiexec", "-n", str(n)])
    monkeypatch.setattr(chase.subprocess, "run", run)
    assert chase.relaunch(["64", "8"], 4, gpu) == 0
    assert seen["env"]["NUMBA_NUM_THREADS"] == threads
    assert seen["cmd"][:3] == ["mpiexec", "-n", "4"] and seen["cmd"][-2:] == ["--ranks", "1"]
    assert chase.relaunch(["64", "8"], 1, gpu) is None  # one rank: this process


@pytest.mark.slow
@pytest.mark.mpi
def test_chase_starts_its_own_ranks(tmp_path):
    """Without a launcher, ``--ranks 2`` starts two processes under mpiexec: the trials are
    dealt over them and both run chains."""
    if mpiexec_cmd(2) is None:
        pytest.skip("mpiexec or mpi4py is not installed (pip install 'golf[mpi]')")
    run_golf("chase", 48, 3, "--minutes", 0.15, "--out", tmp_path, "--ranks", 2, "--quiet",
             check=True)
    s = json.loads((tmp_path / "n48d3" / "summary.json").read_text())
    assert s["mpi"]["ranks"] == 2 and s["mpi"]["mode"] == "chains"
    assert {t.get("rank") for t in s["auto_g"]["trials"]} == {0, 1}


@pytest.mark.slow
@pytest.mark.gpu
def test_chase_starts_a_rank_on_every_gpu(tmp_path):
    """On a host of several GPUs, ``golf chase`` without a launcher starts one rank a GPU and
    each rank scores on its own GPU (summary.json: mpi.gpus)."""
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed (pip install 'golf[gpu]')")
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except cupy.cuda.runtime.CUDARuntimeError:
        pytest.skip("no usable GPU")
    if count < 2 or mpiexec_cmd(2) is None:
        pytest.skip("needs 2 GPUs, mpiexec and mpi4py (one rank a GPU)")
    run_golf("chase", 1024, 8, "--minutes", 0.4, "--out", tmp_path, "--quiet", check=True)
    s = json.loads((tmp_path / "n1024d8" / "summary.json").read_text())
    assert s["mpi"]["ranks"] == count and sorted(s["mpi"]["gpus"]) == list(range(count))
    assert s["recheck"]["total"] == s["best"]["total"]


@pytest.mark.slow
@pytest.mark.gpu
def test_a_small_chase_shares_the_gpu_between_a_rank_a_core(tmp_path):
    """A general graph of n <= SHARED_GPU_MAX_N on a GPU machine: a rank a core Numba may use
    (NUMBA_NUM_THREADS=2), both on GPU 0 with one GPU visible, each with its own polish."""
    import os

    cupy = pytest.importorskip("cupy", reason="CuPy is not installed (pip install 'golf[gpu]')")
    try:
        cupy.cuda.runtime.getDeviceCount()
    except cupy.cuda.runtime.CUDARuntimeError:
        pytest.skip("no usable GPU")
    if mpiexec_cmd(2) is None:
        pytest.skip("mpiexec or mpi4py is not installed (pip install 'golf[mpi]')")
    env = dict(os.environ, NUMBA_NUM_THREADS="2", CUDA_VISIBLE_DEVICES="0")
    run_golf("chase", 48, 3, "--minutes", 0.4, "--out", tmp_path, "--quiet", check=True, env=env)
    s = json.loads((tmp_path / "n48d3" / "summary.json").read_text())
    assert s["mpi"]["ranks"] == 2 and s["mpi"]["gpus"] == [0, 0]
    assert s["recheck"]["total"] == s["best"]["total"] and "polish" in s


@pytest.mark.slow
def test_chase_polishes_small_pairs_at_g1(tmp_path):
    """A chase of ``n <= POLISH_MAX_N`` ends with tabu search at ``g = 1`` from the best graphs
    of its population; larger pairs, grids and host-switch problems have none; ``--set
    search.polish=0`` turns it off."""
    from golf.run.chase import POLISH, POLISH_MAX_N, POLISH_STARTS, chase_config

    s = chase_config(64, 8)["search"]
    assert (s["polish"], s["polish_g"], s["polish_starts"]) == (POLISH, 1, POLISH_STARTS)
    for cfg in (chase_config(POLISH_MAX_N + 2, 3), chase_config(None, 4, grid=(6, 6), r=2),
                chase_config(32, 4, host_switch=True),
                chase_config(64, 8, sets=["search.polish=0"]),
                chase_config(64, 8, sets=["search.method=tabu", "search.batch=1"])):
        assert cfg["search"]["polish"] == 0 and cfg["search"]["polish_g"] is None
    assert chase_config(64, 8, sets=["search.polish=0.1"])["search"]["polish"] == 0.1
    run_golf("chase", 36, 3, "--minutes", 0.1, "--out", tmp_path, "--ranks", 1, "--quiet",
             "--set", "search.auto_g_budget=0.1", check=True)
    rd = tmp_path / "n36d3"
    s = json.loads((rd / "summary.json").read_text())
    polish = s["polish"]
    assert polish["from_step"] > 0 and polish.get("g", s["problem"]["g"]) == 1
    assert tuple(polish["annealer_best"]) >= (s["best"]["diameter"], s["best"]["total"])
    assert "polish: tabu search from the best graph" in (rd / "log.txt").read_text()
