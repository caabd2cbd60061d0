"""Grid problems through the whole search: every search kind keeps the length limit, a run's
files are in the grid format, export names them as the competition does, a killed run resumes
to the same result, and g: auto tries the rotations the lattice allows."""

import json
import os
import signal
import subprocess
import sys

import pytest

import golf
from golf.grid import Grid, read_grid_edges
from golf.lower_bounds import grid_bounds
from golf.run.checkpoint import load_checkpoint

from conftest import ROOT, gpu_skip_reason, run_golf, signal_after
from naive import apsp_score


def _write_cfg(tmp_path, problem, search, name="gr"):
    p = tmp_path / f"{name}.yaml"
    p.write_text(f"name: {name}\nproblem: {problem}\nsearch: {search}\n"
                 f"evaluator: {{backend: bitset, threads: 1}}\n"
                 f"output: {{dir: {tmp_path / 'out'}, checkpoint_every: 0.2, plot: false}}\n")
    return p


def _assert_valid(graph, w, h, d, r, g):
    """A search result: a simple g-symmetric graph of degree <= d with every edge <= r, and
    the score the slow reference gives."""
    graph.check()
    grid = Grid(w, h, r, g)
    assert graph.g == g and graph.max_degree <= d
    assert grid.lengths(graph.edges()).max() <= r
    return apsp_score(graph.n, graph.edges())


@pytest.mark.parametrize("kind,settings", [
    ("sa", {}),
    ("hill", {"method": "hill"}),
    ("population", {"batch": 4, "population_every": 20}),
    ("annealing", {"batch": 4, "population": "annealing", "population_every": 20}),
    ("tabu", {"method": "tabu", "neighbourhood": 64}),
    ("polish", {"polish": 0.3, "neighbourhood": 64}),
])
@pytest.mark.parametrize("w,h,d,r,g", [(6, 6, 4, 2, 4), (7, 4, 5, 3, 2), (5, 5, 4, 2, 1)])
def test_every_search_kind_keeps_the_length_limit(kind, settings, w, h, d, r, g):
    steps = 60 if kind == "tabu" else 1500
    res = golf.search(w * h, d, g=g, grid=[w, h], r=r, steps=steps, seed=3, progress=False,
                      backend="bitset", threads=1, **settings)
    want = _assert_valid(res.graph, w, h, d, r, g)
    assert (res.score.diameter, res.score.total) == want[:2]
    b = grid_bounds(w, h, d, r)
    assert res.summary["bounds"]["aspl_fraction"] == str(b.aspl)
    assert res.summary["problem"] == {"kind": "grid", "grid": [w, h], "n": w * h, "d": d, "r": r,
                                      "g": g}
    assert res.score.total < res.summary["start"]["total"] or kind == "tabu"


@pytest.mark.slow
def test_run_files_export_and_validate(tmp_path):
    p = _write_cfg(tmp_path, "{grid: [8, 8], d: 4, r: 2, g: 4}", "{steps: 4000, seed: 2}")
    run_golf("run", p, "--quiet", check=True)
    rd = tmp_path / "out" / "gr"
    s = json.loads((rd / "summary.json").read_text())
    text = (rd / "best.edges").read_text()
    assert text and all(len(line.split()) == 2 and line.count(",") == 2
                        for line in text.splitlines())
    ok = run_golf("validate", rd / "best.edges", "--grid", "8x8", "--d", 4, "--r", 2)
    assert ok.returncode == 0, ok.stderr
    proc = run_golf("export", rd, "-o", str(tmp_path) + os.sep, check=True)
    k, total = s["best"]["diameter"], s["best"]["total"]
    name = f"w8h8d4r2k{k}l{200 * total // (64 * 63)}.edges"
    assert (tmp_path / name).exists() and name in proc.stdout
    graph, grid = read_grid_edges(tmp_path / name, size=(8, 8)).graph(g="auto", r=2)
    assert grid.g == 4 and apsp_score(64, graph.edges())[:2] == (k, total)
    ev = run_golf("eval", tmp_path / name, "--r", 2, "--json", check=True)
    out = json.loads(ev.stdout)
    assert (out["diameter"], out["total"], out["grid"]) == (k, total, [8, 8])
    b = grid_bounds(8, 8, 4, 2)
    assert out["aspl_bound_fraction"] == str(b.aspl) and out["diameter_bound"] == b.diameter


def test_a_run_starts_from_a_grid_file(tmp_path):
    first = golf.search(36, 4, g=2, grid=[6, 6], r=2, steps=500, seed=1, progress=False,
                        backend="bitset", threads=1)
    start = tmp_path / "start.edges"
    golf.write_grid_edges(start, first.graph, Grid(6, 6, 2, 2))
    again = golf.search(36, 4, g=2, grid=[6, 6], r=2, steps=1, seed=1, progress=False,
                        backend="bitset", threads=1, start=str(start))
    assert again.summary["start"]["total"] == first.score.total
    with pytest.raises(golf.GolfError, match="length 3 > r=2"):
        start.write_text("0,0 3,0\n")
        golf.search(36, 4, g=1, grid=[6, 6], r=2, steps=1, progress=False, start=str(start))


def test_auto_g_tries_the_rotations_of_the_lattice():
    res = golf.search(64, 4, g="auto", grid=[8, 8], r=2, steps=3000, seed=1, progress=False,
                      backend="bitset", threads=1)
    auto = res.summary["auto_g"]
    assert [c["g"] for c in auto["candidates"]] == [1, 2, 4]
    assert "rotations a 8x8 lattice allows" in auto["rule"]
    g = res.summary["problem"]["g"]
    _assert_valid(res.graph, 8, 8, 4, 2, g)
    odd = golf.search(35, 4, g="auto", grid=[7, 5], r=2, steps=300, seed=1, progress=False,
                      backend="bitset", threads=1)
    assert odd.summary["problem"]["g"] == 1


def test_release_hands_a_rotation_to_g_1_and_keeps_its_graph(tmp_path):
    """search.release on a grid: the same trials; their winner (the 180-degree rotation, g=2)
    hands the run to g = 1 from a fresh start, its graph kept as the run's best; the result
    is a valid grid graph scored exactly, and a resumed run keeps the form and the best."""
    from golf.run import resume_run

    kw = dict(g="auto", grid=[6, 6], r=2, steps=3000, seed=2, progress=False,
              backend="bitset", threads=1)
    plain = golf.search(36, 4, **kw)
    rd = tmp_path / "run"
    r = golf.search(36, 4, release=True, output=rd, **kw)
    auto, before = r.summary["auto_g"], plain.summary["auto_g"]
    assert before["g"] == 2 and "released" not in before
    assert [t["best"] for t in auto["trials"]] == [t["best"] for t in before["trials"]]
    won = next(t for t in before["trials"] if t["label"] == before["form"]["label"])
    rel = auto["released"]
    assert rel["from"] == before["form"] and rel["best"] == won["best"]
    assert auto["g"] == 1 == r.summary["problem"]["g"] == r.graph.g
    assert [r.summary["start"]["diameter"], r.summary["start"]["total"]] != won["best"]
    assert (r.score.diameter, r.score.total) <= tuple(won["best"])
    assert _assert_valid(r.graph, 6, 6, 4, 2, 1)[:2] == (r.score.diameter, r.score.total)
    assert "g: auto: released to cyclic g=1 (m=36)" in (rd / "log.txt").read_text()
    (rd / "summary.json").unlink()
    again = resume_run(rd, quiet=True)
    assert again["best"] == r.summary["best"] and again["auto_g"] == auto


@pytest.mark.slow
def test_sigint_and_resume_match_the_uninterrupted_run(tmp_path):
    problem, search = "{grid: [10, 10], d: 6, r: 3, g: 2}", "{steps: 600000, seed: 4}"
    ref = tmp_path / "ref"
    ref.mkdir()
    run_golf("run", _write_cfg(ref, problem, search), "--quiet", check=True)
    want = json.loads((ref / "out" / "gr" / "summary.json").read_text())["best"]
    p = _write_cfg(tmp_path, problem, search)
    proc = subprocess.Popen([sys.executable, "-m", "golf", "run", str(p), "--quiet"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    rd = tmp_path / "out" / "gr"
    _, stderr = signal_after(proc, rd / "checkpoint.npz", signal.SIGINT, 0.3)
    assert proc.returncode == 130, stderr
    load_checkpoint(rd / "checkpoint.npz")
    assert not (rd / "summary.json").exists()
    run_golf("resume", rd, "--quiet", check=True)
    assert json.loads((rd / "summary.json").read_text())["best"] == want


@pytest.mark.gpu
@pytest.mark.skipif(gpu_skip_reason() is not None, reason=gpu_skip_reason() or "")
def test_gpu_population_on_a_grid():
    res = golf.search(100, 6, g=2, grid=[10, 10], r=3, steps=400, seed=1, progress=False,
                      backend="gpu-bitset", batch=16, population_every=20)
    want = _assert_valid(res.graph, 10, 10, 6, 3, 2)
    assert (res.score.diameter, res.score.total) == want[:2]


@pytest.mark.parametrize("polish", [0.0, 0.5])
def test_the_trials_warm_up_compiles_the_grid_moves(monkeypatch, polish):
    """A grid's moves and tabu search take the lattice's length limit, code of their own that
    the warm-up before the trials' clock must run (else the first trial of each rank is charged
    the compilation); a warm-up that fails to build its small grid would be silent."""
    import golf.engine.population as population
    import golf.engine.tabu as tabu
    from golf.run.chase import chase_config
    from golf.problems import problem_of
    from golf.run.portfolio import warm_up

    seen = []
    real_annealer, real_tabu = population.annealer_for, tabu.TabuSearch

    def annealer_for(*args, **kw):
        seen.append(("annealer", kw.get("reach")))
        ann = real_annealer(*args, **kw)
        real_run = ann.run

        def run(*a, **k):
            seen.append(("run", None))
            return real_run(*a, **k)

        ann.run = run
        return ann

    class Tabu(real_tabu):
        def run(self, *a, **k):
            seen.append(("tabu", self.reach))
            return super().run(*a, **k)

    monkeypatch.setattr(population, "annealer_for", annealer_for)
    monkeypatch.setattr(tabu, "TabuSearch", Tabu)
    cfg = chase_config(None, 8, minutes=1, grid=(20, 20), r=4,
                       sets=[f"search.polish={polish}"]
                       + (["search.polish_g=1"] if polish else [])).data
    portfolio, _ = problem_of(cfg["problem"]).forms()
    warm_up(cfg, portfolio)
    kinds = [k for k, _ in seen]
    assert kinds[:2] == ["annealer", "run"]
    assert ("tabu" in kinds) == (polish > 0)
    for kind, reach in seen:
        if kind != "run":
            assert reach is not None and reach[0] == 2  # the 4x4 lattice's limit r = 2
