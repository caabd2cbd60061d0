"""SIGINT/SIGTERM to ``mpiexec`` at any moment of a two-rank run, chains or split evaluation
(``parallel.mode: evaluator``), leaves a folder that ``golf resume`` finishes exactly where an
uninterrupted run ends.

Open MPI's mpiexec (PRRTE) answers SIGINT or SIGTERM by sending the ranks SIGCONT, SIGTERM
0.25 s later and SIGKILL 0.25 s after that: what survives is what was on disk by then. Before
the first checkpoint (imports, Numba, the start graph and temperatures) that is run.yaml and a
lock naming a dead process, and the resume starts the run again; from the first step on, a
whole checkpoint (:mod:`golf.run.driver`'s docstring).
"""

import json
import signal
import subprocess
import sys
import time

import pytest

from golf.run import load_checkpoint

from conftest import ROOT, mpiexec_cmd, repo_env

pytestmark = [pytest.mark.mpi, pytest.mark.slow,
              pytest.mark.skipif(mpiexec_cmd(2) is None,
                                 reason="needs mpiexec and mpi4py: pip install -e '.[mpi]'")]

# a few seconds of steps on two loaded cores, so that the moments below come before the end
STEPS = {"chains": 400_000, "evaluator": 300_000}
ENV = repo_env(NUMBA_NUM_THREADS="1")
KEYS = ("best", "steps", "evaluations", "accepted", "start", "temperatures")


def config(folder, mode):
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / "m.yaml"
    p.write_text(f"""name: m
problem: {{n: 240, d: 5, g: 3}}
search: {{steps: {STEPS[mode]}, seed: 11}}
evaluator: {{backend: bitset, threads: 1}}
parallel: {{mode: {mode}, exchange_every: 2000}}
output: {{dir: {folder / 'out'}, checkpoint_every: 0.3, trace_every: 2000, plot: false}}
""")
    return p, folder / "out" / "m"


def golf2(*args, timeout=300):
    return subprocess.run(mpiexec_cmd(2) + [sys.executable, "-m", "golf", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT, env=ENV)


_REFERENCE = {}


def reference(mode, tmp_path_factory) -> dict:
    """The summary of the uninterrupted run (computed once a mode)."""
    if mode not in _REFERENCE:
        p, rd = config(tmp_path_factory.mktemp(f"ref-{mode}"), mode)
        proc = golf2("run", p, "--quiet")
        assert proc.returncode == 0, proc.stderr[-3000:]
        _REFERENCE[mode] = json.loads((rd / "summary.json").read_text())
    return _REFERENCE[mode]


def _steps(rd) -> int:
    try:
        return load_checkpoint(rd / "checkpoint.npz")["meta"]["steps"]
    except Exception:  # noqa: BLE001 -- not there yet
        return -1


# when to send the signal: a predicate on the run folder
MOMENTS = {
    # the ranks hold the lock and set up (build the evaluator, compile, sample temperatures)
    "set-up": lambda rd, mode: (rd / "log.txt").exists(),
    # the start state is on disk; the first chunk of steps compiles the loop
    "first checkpoint": lambda rd, mode: (rd / "checkpoint.npz").exists(),
    "mid-run": lambda rd, mode: _steps(rd) >= STEPS[mode] // 3,
    "near the end": lambda rd, mode: _steps(rd) >= STEPS[mode] * 8 // 10,
}


def interrupt(folder, mode, moment, sig):
    """Start the run, send ``sig`` to mpiexec at ``moment``; returns the run folder and what
    the run said."""
    p, rd = config(folder, mode)
    proc = subprocess.Popen(mpiexec_cmd(2) + [sys.executable, "-m", "golf", "run", str(p)],
                            cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.time() + 240
    try:
        while not MOMENTS[moment](rd, mode):
            assert proc.poll() is None, f"the run ended before '{moment}'"
            assert time.time() < deadline, f"no '{moment}' within 240 s"
            time.sleep(0.02)
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return rd, f"rc={proc.returncode}\n{out[-2000:]}\n{err[-2000:]}"


def gone(lock, timeout=30.0):
    """Wait until the process a lock names has exited: mpiexec may return a moment before the
    ranks it SIGKILLed are gone."""
    from golf.run.folder import _alive

    try:
        pid = int(lock.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return
    deadline = time.time() + timeout
    while _alive(pid):
        assert time.time() < deadline, f"pid {pid} of {lock} still runs after {timeout:g} s"
        time.sleep(0.05)


def check_resumes_as_uninterrupted(rd, mode, what, tmp_path_factory):
    """``golf resume`` (two ranks) ends where the uninterrupted run does."""
    assert (rd / "run.yaml").exists(), what
    gone(rd / ".lock")
    if not (rd / "summary.json").exists():  # the signal did not come after the end
        done = golf2("resume", rd, "--quiet")
        assert done.returncode == 0, f"{what}\nresume: {done.stderr[-3000:]}"
    got = json.loads((rd / "summary.json").read_text())
    want = reference(mode, tmp_path_factory)
    assert {k: got[k] for k in KEYS} == {k: want[k] for k in KEYS}, what
    assert not (rd / ".lock").exists() and not list(rd.glob(".*.tmp")), what


def test_sigint_to_mpiexec_while_the_chains_set_up(tmp_path, tmp_path_factory):
    """The intermittent failure of issue 15: a SIGINT to mpiexec while the ranks still set up
    (before the first checkpoint) was followed by SIGKILL before anything was written."""
    rd, what = interrupt(tmp_path, "chains", "set-up", signal.SIGINT)
    check_resumes_as_uninterrupted(rd, "chains", what, tmp_path_factory)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["chains", "evaluator"])
def test_a_signal_to_mpiexec_at_any_moment_leaves_a_resumable_run(tmp_path, tmp_path_factory,
                                                                    mode):
    """Chains: at every moment of MOMENTS, SIGINT and SIGTERM in turn. Evaluator mode: at the
    first checkpoint and near the end (its set-up is the chains' own, and mid-run is no
    different from near the end for a split evaluation)."""
    moments = list(MOMENTS) if mode == "chains" else ["first checkpoint", "near the end"]
    for k, moment in enumerate(moments):
        sig = (signal.SIGINT, signal.SIGTERM)[k % 2]
        rd, what = interrupt(tmp_path / f"m{k}", mode, moment, sig)
        what = f"{mode}, {sig.name} at '{moment}': {what}"
        if moment != "set-up":  # from the first checkpoint on, one is always on disk
            assert (rd / "checkpoint.npz").exists(), what
            assert (rd / "best.edges").exists(), what
        check_resumes_as_uninterrupted(rd, mode, what, tmp_path_factory)


def test_a_rank_failing_alone_leaves_no_lock_and_a_resumable_run(tmp_path, tmp_path_factory):
    """Rank 1 raises in the loop: the job is aborted (MPI_Abort kills rank 0 in a collective,
    before its own clean-up), so rank 1 removes the lock first; the first checkpoint was
    written before the first step, and the resume ends as the uninterrupted run."""
    from pathlib import Path

    p, rd = config(tmp_path, "chains")
    script = Path(__file__).parent / "mpi_scripts" / "rank_fails.py"
    proc = subprocess.run(mpiexec_cmd(2) + [sys.executable, str(script), str(p)],
                          capture_output=True, text=True, timeout=240, cwd=ROOT, env=ENV)
    what = f"rc={proc.returncode}\n{proc.stderr[-3000:]}"
    assert proc.returncode != 0 and "injected failure on rank 1" in proc.stderr, what
    assert not (rd / ".lock").exists(), what
    assert (rd / "checkpoint.npz").exists() and not (rd / "summary.json").exists(), what
    check_resumes_as_uninterrupted(rd, "chains", what, tmp_path_factory)


def test_an_error_of_every_rank_leaves_no_lock(tmp_path):
    """Both checkpoints damaged: every rank stops with one message naming the files, and
    the lock is gone."""
    p, rd = config(tmp_path, "evaluator")
    rd.mkdir(parents=True)
    (rd / "run.yaml").write_text(p.read_text())
    (rd / "checkpoint.npz").write_bytes(b"PK\x03\x04 cut short")
    (rd / "checkpoint.prev.npz").write_bytes(b"")
    proc = golf2("resume", rd)
    assert proc.returncode != 0
    assert proc.stderr.count("golf: error:") == 1, proc.stderr
    assert f"{rd / 'checkpoint.npz'}: damaged checkpoint" in proc.stderr
    assert f"{rd / 'checkpoint.prev.npz'}: damaged checkpoint" in proc.stderr
    assert not (rd / ".lock").exists()
