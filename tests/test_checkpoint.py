"""Checkpoints that survive anything: the first one before the first step, two generations,
damaged files refused by name with a fall-back to the one before, a resume of a run stopped
before its first checkpoint, and no lock left behind on any way out."""

import io
import os
import zipfile

import numpy as np
import pytest
import yaml

from golf.engine.annealer import SC
from golf.errors import GolfError
from golf.io import read_edges
from golf.run import load_checkpoint, resume_run, run_config
from golf.run.checkpoint import pick_checkpoint, save_checkpoint
from golf.run.loop import Loop

from conftest import run_golf
from naive import apsp_score


def cfg(folder, steps=4000, extra="", search="", name="r"):
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / f"{name}.yaml"
    p.write_text(f"""name: {name}
problem: {{n: 64, d: 4, g: 2}}
search: {{steps: {steps}, seed: 3{search}}}
evaluator: {{backend: bitset, threads: 1}}
output: {{dir: {folder / 'out'}, checkpoint_every: 0.05, trace_every: 200, plot: false}}
{extra}""")
    return p, folder / "out" / name


def same(a, b):
    """The parts of two summaries that a resume must reproduce."""
    keys = ("best", "steps", "evaluations", "accepted", "polish", "temperatures", "start")
    return {k: a.get(k) for k in keys} == {k: b.get(k) for k in keys}


def trace_rows(rd):
    """trace.csv without its seconds column."""
    return [ln.rsplit(",", 1)[0] for ln in (rd / "trace.csv").read_text().splitlines()]


class Killed(BaseException):
    """Stands for a SIGKILL: nothing after it runs but ``finally`` clauses."""


@pytest.fixture
def kill_at_first_step(monkeypatch):
    """Make the next run die at its first chunk of steps, recording what its folder held."""
    seen = {}
    real = Loop.run_chunk

    def first(self, *a, **kw):
        rd = self.records.rundir.path
        seen.update({name: (rd / name).exists() for name in
                     ("checkpoint.npz", "best.edges", "trace.csv", "run.yaml")})
        seen["meta"] = load_checkpoint(rd / "checkpoint.npz")["meta"]
        seen["run.yaml g"] = (rd / "run.yaml").read_text().split("\n  g: ")[1].split()[0]
        monkeypatch.setattr(Loop, "run_chunk", real)
        raise Killed

    monkeypatch.setattr(Loop, "run_chunk", first)
    return seen


# -- the format --------------------------------------------------------------------------
def _states():
    rng = np.random.default_rng(1)
    return [{"adj": rng.integers(0, 9, (4, 3)).astype(np.int32),
             "best_adj": rng.integers(0, 9, (4, 3)).astype(np.int32),
             "rng": np.arange(6, dtype=np.uint64), "sc": np.arange(12, dtype=np.int64),
             "fl": np.ones(6)}]


META = {"t0": 1.0, "t1": 0.1, "start": [5, 100], "elapsed": 0.0, "steps": 0, "chains": 1}


def test_rotation_keeps_the_last_two_and_nothing_else(tmp_path):
    path = tmp_path / "checkpoint.npz"
    for steps in (0, 10, 20):
        save_checkpoint(path, dict(META, steps=steps), [], _states())
    assert load_checkpoint(path)["meta"]["steps"] == 20
    assert load_checkpoint(tmp_path / "checkpoint.prev.npz")["meta"]["steps"] == 10
    assert sorted(f.name for f in tmp_path.iterdir()) == ["checkpoint.npz",
                                                           "checkpoint.prev.npz"]
    back = load_checkpoint(path)["states"][0]
    assert all(np.array_equal(back[k], v) for k, v in _states()[0].items())


def _zip_without(src, dst, member):
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for item in zin.infolist():
            if item.filename != member:
                zout.writestr(item, zin.read(item))


def _claims_too_much(src, dst):
    """A zip whose 'trace' member's header claims a terabyte."""
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": "<f8", "fortran_order": False,
                                               "shape": (1 << 37,)})
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for item in zin.infolist():
            data = zin.read(item)
            if item.filename == "trace.npy":
                data = np.lib.format.magic(1, 0) + buf.getvalue()[8:]
            zout.writestr(item.filename, data)


DAMAGE = {
    "cut short": lambda b, src, dst: dst.write_bytes(b[:len(b) // 2]),
    "zero bytes": lambda b, src, dst: dst.write_bytes(b""),
    "garbage": lambda b, src, dst: dst.write_bytes(b"not a checkpoint\n" * 50),
    "flipped byte": lambda b, src, dst: dst.write_bytes(b[:120] + bytes([b[120] ^ 0xFF])
                                                        + b[121:]),
    "no meta": lambda b, src, dst: _zip_without(src, dst, "meta.npy"),
    "no state": lambda b, src, dst: _zip_without(src, dst, "r0_rng.npy"),
    "huge header": lambda b, src, dst: _claims_too_much(src, dst),
}


@pytest.mark.parametrize("kind", list(DAMAGE))
def test_a_damaged_checkpoint_is_refused_naming_the_file(tmp_path, kind):
    good = tmp_path / "good.npz"
    save_checkpoint(good, META, [], _states())
    bad = tmp_path / "checkpoint.npz"
    DAMAGE[kind](good.read_bytes(), good, bad)
    with pytest.raises(GolfError, match=r"checkpoint\.npz: damaged checkpoint \(.+\)"):
        load_checkpoint(bad)
    with pytest.raises(GolfError, match="no checkpoint.prev.npz to fall back on"):
        pick_checkpoint(bad)
    # with a good one before it, the resume takes that one and moves the damaged one aside
    os.replace(good, tmp_path / "checkpoint.prev.npz")
    picked = pick_checkpoint(bad)
    assert picked.fell_back and picked.data["meta"]["steps"] == 0
    assert "damaged checkpoint" in picked.notes[0] and "checkpoint.prev.npz" in picked.notes[1]
    assert not bad.exists() and (tmp_path / "checkpoint.damaged.npz").exists()


def test_pick_checkpoint_rules(tmp_path):
    path = tmp_path / "checkpoint.npz"
    assert pick_checkpoint(path).path is None  # no checkpoint yet: start from the beginning
    save_checkpoint(path, META, [], _states())
    save_checkpoint(path, dict(META, steps=5), [], _states())
    assert pick_checkpoint(path).data["meta"]["steps"] == 5 and not pick_checkpoint(path).notes
    path.unlink()  # the rename fall-back's window: only the previous one is there
    picked = pick_checkpoint(path)
    assert picked.fell_back and "missing" in picked.notes[0]
    (tmp_path / "checkpoint.prev.npz").write_bytes(b"")
    (tmp_path / "checkpoint.npz").write_bytes(b"junk")
    with pytest.raises(GolfError, match=r"checkpoint\.npz: damaged.*checkpoint\.prev\.npz: "
                                        r"damaged.*golf run --force"):
        pick_checkpoint(path)


# -- runs ---------------------------------------------------------------------------------
MEMETIC = ", method: memetic, members: 4, local_steps: 400, batch: 2"
MEMETIC_POLISH = (", polish: 0.5, polish_g: 1, polish_method: memetic, members: 4, "
                  "local_steps: 400, batch: 2")


@pytest.mark.parametrize("search,steps", [("", 30000), (MEMETIC, 60), (MEMETIC_POLISH, 60000)])
def test_resume_falls_back_to_the_previous_checkpoint_and_ends_as_uninterrupted(tmp_path,
                                                                                search, steps):
    p, rd = cfg(tmp_path / "a", steps=steps, search=search)
    want = run_config(p, quiet=True)[0]
    ref_best, ref_trace = (rd / "best.edges").read_bytes(), trace_rows(rd)
    prev = load_checkpoint(rd / "checkpoint.prev.npz")
    steps = prev["meta"]["steps"]
    assert steps < want["steps"]
    if search == MEMETIC_POLISH:  # a resume within the memetic polish, at g = 1
        assert prev["meta"]["polish"]["method"] == "memetic"
        assert prev["states"][0]["adj"].shape == (4, 64, 4)
    (rd / "summary.json").unlink()
    ck = (rd / "checkpoint.npz").read_bytes()
    (rd / "checkpoint.npz").write_bytes(ck[:len(ck) // 3])  # cut short
    got = resume_run(rd, quiet=True)
    assert same(got, want)
    log = (rd / "log.txt").read_text()
    assert "checkpoint.npz: damaged checkpoint" in log
    assert f"resuming from checkpoint.prev.npz, the checkpoint before it (step {steps})" in log
    assert (rd / "checkpoint.damaged.npz").exists() and not (rd / ".lock").exists()
    # best.edges and trace.csv are those of the uninterrupted run again
    assert (rd / "best.edges").read_bytes() == ref_best and trace_rows(rd) == ref_trace
    # where the previous checkpoint's best was worse, the newer best graph that best.edges
    # held was kept (the resumed run found it again)
    if int(prev["states"][0]["sc"][SC.BEST_TOTAL]) != want["best"]["total"]:
        assert "kept as best.before-resume.edges" in log
        assert (rd / "best.before-resume.edges").read_bytes() == ref_best


@pytest.mark.parametrize("search", [
    "", ", method: tabu, neighbourhood: 16, tenure: 4", ", polish: 0.5, neighbourhood: 16",
    ", polish: 0.5, polish_g: 1, neighbourhood: 16",
    ", t0: 5, t1: 0.05, method: hill", ", batch: 3, population: tempering", MEMETIC,
])
def test_first_checkpoint_before_the_first_step_and_resume_from_it(tmp_path, search,
                                                                     kill_at_first_step):
    steps = 300 if "tabu" in search else 12 if "memetic" in search else 3000
    p, rd = cfg(tmp_path / "cut", steps=steps, search=search)
    with pytest.raises(Killed):
        run_config(p, quiet=True)
    seen = kill_at_first_step
    assert seen["checkpoint.npz"] and seen["best.edges"] and seen["trace.csv"]
    assert seen["meta"]["steps"] == 0
    assert not (rd / ".lock").exists() and not (rd / "summary.json").exists()
    # the start graph is in best.edges, whole (a memetic run's: the best of its start graphs)
    e = read_edges(rd / "best.edges").edges
    ck = load_checkpoint(rd / "checkpoint.npz")
    start = ck["meta"]["start"]
    if "memetic" in search:
        start = min(ck["states"][0]["scores"][:, :2].tolist())
    assert list(apsp_score(64, e)[:2]) == start
    got = resume_run(rd, quiet=True)
    p2, _ = cfg(tmp_path / "ref", steps=steps, search=search)
    assert same(got, run_config(p2, quiet=True)[0])


def test_method_auto_writes_the_duel_winner_and_a_resume_keeps_it(tmp_path,
                                                                  kill_at_first_step):
    """search.method: auto: the duel's winner is in run.yaml once the first checkpoint is
    written; a run.yaml still saying auto beside a checkpoint (a kill between the two
    writes) is resumed with the checkpoint's winner."""
    p, rd = cfg(tmp_path / "cut", steps=0, search=", method: auto, time_limit: 4, members: 4, "
                                                  "local_steps: 300, batch: 2")
    with pytest.raises(Killed):
        run_config(p, quiet=True)
    ck = load_checkpoint(rd / "checkpoint.npz")
    won = ck["meta"]["duel"]["won"]
    assert won in ("sa", "memetic") and kill_at_first_step["meta"]["steps"] > 0
    assert f"method: {won}\n" in (rd / "run.yaml").read_text()
    assert ("scores" in ck["states"][0]) == (won == "memetic")
    (rd / "run.yaml").write_text((rd / "run.yaml").read_text().replace(f"method: {won}\n",
                                                                       "method: auto\n"))
    got = resume_run(rd, quiet=True)
    assert got["method"] == won and got["duel"]["won"] == won
    assert f"method: {won}\n" in (rd / "run.yaml").read_text()
    assert (rd / "log.txt").read_text().count("won the duel") == 1  # no new duel


def test_g_auto_writes_the_chosen_g_after_the_first_checkpoint(tmp_path, kill_at_first_step):
    p, rd = cfg(tmp_path / "cut", steps=20000, search=", auto_g_budget: 0.2")
    p.write_text(p.read_text().replace("g: 2}", "g: auto}"))
    with pytest.raises(Killed):
        run_config(p, quiet=True)
    seen = kill_at_first_step
    assert seen["checkpoint.npz"] and seen["meta"]["steps"] == 0
    g = seen["meta"]["auto_g"]["g"]
    assert seen["run.yaml g"] == str(g)  # written just after the checkpoint
    # a run.yaml still saying auto beside a checkpoint (a kill between the two writes)
    (rd / "run.yaml").write_text((rd / "run.yaml").read_text().replace(f"g: {g}\n",
                                                                       "g: auto\n"))
    got = resume_run(rd, quiet=True)
    assert (rd / "log.txt").read_text().count("g: auto chose") == 1  # no new trials
    assert f"\n  g: {g}\n" in (rd / "run.yaml").read_text()
    p2, _ = cfg(tmp_path / "ref", steps=20000, search=", auto_g_budget: 0.2")
    p2.write_text(p2.read_text().replace("g: 2}", "g: auto}"))
    want = run_config(p2, quiet=True)[0]
    assert same(got, want) and got["problem"]["g"] == g
    assert untimed(got["auto_g"]) == untimed(want["auto_g"])


def untimed(record):
    """A g: auto record without its clock readings (the seconds, the winner's rate)."""
    out = {k: v for k, v in record.items() if k not in ("seconds", "winner")}
    out["trials"] = [{k: v for k, v in t.items() if k not in ("seconds", "stepping")}
                     for t in out["trials"]]
    return out


@pytest.mark.parametrize("auto", [False, True])
def test_resume_of_a_run_stopped_before_its_first_checkpoint_starts_it_again(tmp_path, auto):
    p, rd = cfg(tmp_path / "a", steps=6000, search=", auto_g_budget: 0.2" if auto else "")
    if auto:
        p.write_text(p.read_text().replace("g: 2}", "g: auto}"))
    want = run_config(p, quiet=True)[0]
    run_yaml = (rd / "run.yaml").read_text()
    for f in rd.iterdir():
        f.unlink()
    # what a kill during set-up leaves: run.yaml as the start wrote it (before the trials
    # chose a form: g auto, no group), a stale lock
    if auto:
        run_yaml = yaml.safe_load(run_yaml)
        run_yaml["problem"].update(g="auto", group=None)
        run_yaml = yaml.safe_dump(run_yaml, sort_keys=False)
    (rd / "run.yaml").write_text(run_yaml)
    (rd / ".lock").write_text(f"999999999 {os.uname().nodename} 2024-01-01 00:00:00\n")
    got = resume_run(rd, quiet=True)
    assert same(got, want)
    log = (rd / "log.txt").read_text()
    assert "no checkpoint yet (the run stopped before its first one): starting the run " \
           "from the beginning" in log
    assert not (rd / ".lock").exists()


def test_golf_run_refuses_a_folder_with_only_the_previous_checkpoint(tmp_path):
    p, rd = cfg(tmp_path, steps=2000)
    run_config(p, quiet=True)
    (rd / "summary.json").unlink()
    (rd / "checkpoint.npz").unlink()
    with pytest.raises(GolfError, match="already holds a run"):
        run_config(p, quiet=True)
    assert not (rd / ".lock").exists()
    run_config(p, quiet=True, force=True)  # --force clears both generations
    assert not (rd / "checkpoint.damaged.npz").exists()


# -- no lock left behind --------------------------------------------------------------------
@pytest.mark.slow
def test_cli_refuses_a_cut_short_checkpoint_with_one_line_and_no_lock(tmp_path):
    p, rd = cfg(tmp_path, steps=2000)
    run_golf("run", p, "--quiet", check=True)
    (rd / "summary.json").unlink()
    (rd / "checkpoint.prev.npz").unlink()
    ck = (rd / "checkpoint.npz").read_bytes()
    (rd / "checkpoint.npz").write_bytes(ck[:100])
    proc = run_golf("resume", rd)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.count("golf: error:") == 1
    assert f"{rd / 'checkpoint.npz'}: damaged checkpoint" in proc.stderr
    assert not (rd / ".lock").exists()


def _fail(exc):
    def boom(*a, **kw):
        raise exc
    return boom


@pytest.mark.parametrize("where,exc", [
    ("golf.run.start.build_evaluator", RuntimeError("a bug in set-up")),
    ("golf.run.start.build_evaluator", KeyboardInterrupt()),
    ("golf.run.records.save_checkpoint", OSError(28, "No space left on device")),
    ("golf.run.records.Records.finish", RuntimeError("a bug at the end")),
])
def test_no_way_out_of_a_run_leaves_the_lock(tmp_path, monkeypatch, where, exc):
    p, rd = cfg(tmp_path, steps=2000)
    module, _, name = where.rpartition(".")
    import importlib

    try:
        target = importlib.import_module(module)
    except ImportError:  # a class attribute
        mod, _, cls = module.rpartition(".")
        target = getattr(importlib.import_module(mod), cls)
    monkeypatch.setattr(target, name, _fail(exc))
    with pytest.raises((type(exc), GolfError)) as info:
        run_config(p, quiet=True)
    if isinstance(exc, OSError):
        assert "could not write the checkpoint" in str(info.value) and str(rd) in str(
            info.value)
    assert not (rd / ".lock").exists()


def test_no_way_out_of_a_resume_leaves_the_lock(tmp_path):
    p, rd = cfg(tmp_path, steps=2000)
    run_config(p, quiet=True)
    (rd / "summary.json").unlink()
    # a checkpoint of another shape (a batch of chains): refused in set-up
    ck = load_checkpoint(rd / "checkpoint.npz")
    st = {k: np.stack([v, v]) for k, v in ck["states"][0].items()}
    save_checkpoint(rd / "checkpoint.npz", ck["meta"], ck["trace"], [st])
    with pytest.raises(GolfError, match="chains on one GPU"):
        resume_run(rd, quiet=True)
    assert not (rd / ".lock").exists()
    # both generations damaged
    (rd / "checkpoint.npz").write_bytes(b"")
    (rd / "checkpoint.prev.npz").write_bytes(b"PK\x03\x04")
    with pytest.raises(GolfError, match="golf run --force"):
        resume_run(rd, quiet=True)
    assert not (rd / ".lock").exists()
    # a live lock of another process is refused, and left alone
    (rd / ".lock").write_text(f"1 {os.uname().nodename} 2024-01-01 00:00:00\n")
    with pytest.raises(GolfError, match="in use by another golf run"):
        resume_run(rd, quiet=True)
    assert (rd / ".lock").exists()
