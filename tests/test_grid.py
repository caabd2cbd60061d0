"""Grid graphs (golf.grid): the lattice numbering, grid edge files, the config's grid problems
and the command line's grid input."""

import gzip

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from golf.cli import main
from golf.config import load_config
from golf.errors import GolfError
from golf.graph import Graph
from golf.grid import (Grid, format_grid_edges, parse_size,
                       read_grid_edges, rotation_symmetry, symmetry_problem, write_grid_edges)

from naive import grid_edges, grid_turn

SHAPES = [(w, h, g) for w, h in ((1, 1), (2, 2), (3, 4), (5, 5), (6, 6), (4, 8), (10, 10),
                                 (7, 2)) for g in (1, 2, 4) if symmetry_problem(w, h, g) is None]


# -- numbering ------------------------------------------------------------------------------
@pytest.mark.parametrize("w,h,g", SHAPES)
def test_numbering_turns_the_lattice_by_v_plus_m(w, h, g):
    """Every cell once, and vertex v + m is vertex v's cell turned by 360/g degrees."""
    grid = Grid(w, h, 1, g)
    cells = grid.cells()
    assert sorted(map(tuple, cells.tolist())) == [(x, y) for x in range(w) for y in range(h)]
    n, m = grid.n, grid.m
    if g > 1:
        turned = grid_turn(cells, w, h, 4 // g)
        assert np.array_equal(cells[(np.arange(n) + m) % n], turned)
    vid = grid.vertex_of()
    assert np.array_equal(vid[cells[:, 1], cells[:, 0]], np.arange(n))
    if g == 1 and w > 1 and h > 1:
        assert vid[0, 1] == 1 and vid[1, 0] == w  # row-major
    reach = grid.reach()
    assert reach[:3].tolist() == [1, w, h]
    assert np.array_equal(reach[3:3 + 2 * n].reshape(-1, 2), cells)
    assert np.array_equal(reach[3 + 2 * n:], vid.ravel())
    assert Grid(w, h, 0, g).reach()[0] == w + h - 2  # r = 0: no limit


@pytest.mark.parametrize("w,h,g,why", [(5, 5, 2, "even number of cells"),
                                        (4, 6, 4, "square lattice"),
                                        (5, 5, 4, "square lattice"),
                                        (4, 4, 3, "1, 2 or 4")])
def test_symmetries_a_lattice_does_not_allow(w, h, g, why):
    assert why in symmetry_problem(w, h, g)
    with pytest.raises(GolfError, match=why):
        Grid(w, h, 2, g)


def test_parse_size():
    assert parse_size("10x20") == (10, 20) and parse_size([3, 4]) == (3, 4)
    for bad in ("10", "axb", "0x4", "3x4x5", "2.5x3", [1, True]):
        with pytest.raises(GolfError):
            parse_size(bad)


@given(seed=st.integers(0, 2**32 - 1), data=st.data())
def test_symmetric_grid_edges_are_g_symmetric_graphs(seed, data):
    """Edge sets closed under the lattice's turn (found geometrically) are exactly the graphs
    golf accepts as g-symmetric on the grid numbering, and rotation_symmetry finds g."""
    w, h = data.draw(st.integers(2, 8)), data.draw(st.integers(2, 8))
    gs = [g for g in (2, 4) if symmetry_problem(w, h, g) is None]
    if not gs:
        return
    g = data.draw(st.sampled_from(gs))
    cells = grid_edges(w, h, 3, g, 3 * w * h, np.random.default_rng(seed))
    if not len(cells):
        return
    assert rotation_symmetry(cells, w, h) >= g
    vid = Grid(w, h, 3, g).vertex_of()
    e = np.stack([vid[cells[:, 1], cells[:, 0]], vid[cells[:, 3], cells[:, 2]]], axis=1)
    Graph.from_edges(e, n=w * h, g=g).check()


def test_rotation_symmetry_of_an_asymmetric_graph():
    cells = np.array([[0, 0, 1, 0]])
    assert rotation_symmetry(cells, 4, 4) == 1
    both = np.array([[0, 0, 1, 0], [3, 3, 2, 3]])
    assert rotation_symmetry(both, 4, 4) == 2


# -- files ----------------------------------------------------------------------------------
def _write(tmp_path, text, name="g.edges"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("w,h,g", [s for s in SHAPES if s[0] * s[1] > 1])
def test_grid_file_round_trip(tmp_path, w, h, g):
    cells = grid_edges(w, h, 2, g, 4 * w * h, np.random.default_rng(w * h + g))
    if not len(cells):
        return
    grid = Grid(w, h, 2, g)
    vid = grid.vertex_of()
    e = np.stack([vid[cells[:, 1], cells[:, 0]], vid[cells[:, 3], cells[:, 2]]], axis=1)
    graph = Graph.from_edges(e, n=grid.n, g=g)
    for name in ("a.edges", "a.edges.gz"):
        path = tmp_path / name
        write_grid_edges(path, graph, grid)
        text = (gzip.open(path, "rt") if name.endswith(".gz") else open(path)).read()
        assert all("," in line for line in text.splitlines())
        back, grid2 = read_grid_edges(path, size=(w, h)).graph(g=g, r=2)
        assert grid2 == grid and back == graph
    assert format_grid_edges(graph, grid) == open(tmp_path / "a.edges", "rb").read()


def test_reading_a_grid_file(tmp_path):
    path = _write(tmp_path, "0,0 1,0\n\n1,0 1,1\n1,1 1,0\n2,1 0,1\n")
    ge = read_grid_edges(path)
    assert ge.size == (3, 2)
    assert ge.lines.tolist() == [1, 3, 5]
    assert ge.duplicates == [(4, 3, "1,1 1,0")]
    graph, grid = ge.graph()
    assert (grid.w, grid.h, grid.g) == (3, 2, 1) and graph.num_edges == 3
    with pytest.raises(GolfError, match=r"g.edges:5: edge '2,1 0,1' has length 2 > r=1"):
        ge.graph(r=1)
    with pytest.raises(GolfError, match="not invariant under the rotation by 180"):
        ge.graph(g=2, size=(4, 2))
    with pytest.raises(GolfError, match=r"g.edges:5: cell outside the 2x2 lattice"):
        ge.graph(size=(2, 2))


@pytest.mark.parametrize("text,message", [
    ("0,0 1,0\n0,0,1 1,1\n", r":2: expected a cell 'x,y' .* found '0,0,1'"),
    ("0,0 1,0\n0 1\n", r":2: expected a cell 'x,y'"),
    ("0,0 1, 0\n", r":1: expected 2 cells 'x1,y1 x2,y2', found 3 fields"),
    ("0,0 -1,0\n", r":1: negative coordinate"),
    ("3,3 3,3\n", r":1: self-loop"),
    ("0,0 9,0\n", r":1: cell outside the 4x4 lattice"),
])
def test_bad_grid_lines_are_named(tmp_path, text, message):
    path = _write(tmp_path, text)
    with pytest.raises(GolfError, match=message):
        read_grid_edges(path, size=(4, 4))
    problems = []
    read_grid_edges(path, size=(4, 4), problems=problems)
    assert len(problems) == 1 and path in problems[0]


def test_submission_name_is_exact():
    from golf.problems import submission_name

    grid = Grid(10, 10, 3, 1)
    # ASPL exactly 2.84 (total 14058 over 4950 pairs): floor(100 * 2.84) = 284, no float slip
    assert submission_name(100, 6, 6, 14058, grid) == "w10h10d6r3k6l284.edges"
    assert submission_name(100, 6, 6, 14057, grid) == "w10h10d6r3k6l283.edges"
    # total 5643 of 4950 pairs is ASPL 1.14 exactly, where floating point gives 113.999...
    assert 100 * (5643 / 4950) < 114
    assert submission_name(100, 6, 2, 5643) == "n100d6k2l114.edges"


# -- config ---------------------------------------------------------------------------------
def _config(tmp_path, problem):
    path = tmp_path / "c.yaml"
    path.write_text(f"name: t\nproblem: {problem}\nsearch: {{steps: 10}}\n")
    return path


def test_config_grid_problem(tmp_path):
    run = load_config(_config(tmp_path, "{grid: 10x10, d: 6, r: 3, g: 2}"))[0]
    p = run["problem"]
    assert p["grid"] == [10, 10] and p["n"] == 100 and p["r"] == 3 and p["g"] == 2
    path = tmp_path / "m.yaml"
    path.write_text("name: comp\nsearch: {steps: 10}\nproblems:\n"
                    "  - {problem: {grid: [5, 10], d: 4, r: 2}}\n")
    assert load_config(path)[0].name == "w5h10d4r2"


@pytest.mark.parametrize("problem,message", [
    ("{grid: 5x5, d: 4, r: 2, g: 2}", r"c.yaml:2: problem.g: g=2 needs an even number"),
    ("{grid: 6x4, d: 4, r: 2, g: 4}", r"problem.g: g=4 needs a square lattice"),
    ("{grid: 5x5, d: 4}", r"missing problem.r"),
    ("{grid: 5x5, d: 4, r: 2, n: 30}", r"a 5x5 grid has n=25"),
    ("{n: 25, d: 4, r: 2}", r"problem.r: the edge length limit of a grid problem"),
    ("{grid: 5, d: 4, r: 2}", r"problem.grid: expected a lattice size"),
    ("{d: 4}", r"missing problem.n"),
    ("{grid: 4x4, d: 3, r: 2, start: circulant}", r"circulant starts are for problems"),
])
def test_config_grid_errors(tmp_path, problem, message):
    with pytest.raises(GolfError, match=message):
        load_config(_config(tmp_path, problem))


# -- command line ---------------------------------------------------------------------------
def test_validate_grid_files(tmp_path, capsys):
    ok = _write(tmp_path, "0,0 1,0\n1,0 1,1\n1,1 0,1\n0,1 0,0\n", "ok.edges")
    assert main(["validate", ok, "--grid", "2x2", "--d", "2", "--r", "1"]) == 0
    assert "valid: 2x2 r=1, 4 edges" in capsys.readouterr().out
    bad = _write(tmp_path, "0,0 1,0\n1,0 1,1\n1,1 0,1\n0,1 0,0\n0,0 1,1\n0,0 1,0\n0,0 5,0\n",
                 "bad.edges")
    assert main(["validate", bad, "--grid", "2x2", "--d", "2", "--r", "1"]) == 2
    err = capsys.readouterr().err
    for line in ("bad.edges:6: duplicate edge '0,0 1,0' (first on line 1)",
                 "bad.edges:5: edge '0,0 1,1' has length 2 > r=1",
                 "bad.edges:7: cell outside the 2x2 lattice",
                 "cell 0,0 has degree 4 > d=2", "INVALID (6 problems)"):
        assert line in err
    apart = _write(tmp_path, "0,0 1,0\n0,1 1,1\n", "apart.edges")
    assert main(["validate", apart, "--grid", "2x2", "--d", "2", "--r", "1"]) == 2
    assert "disconnected: cell 0,0 reaches 2 of n=4" in capsys.readouterr().err


@pytest.mark.parametrize("args,message", [
    (["--d", "2"], "give the lattice and the longest edge allowed with --grid WxH --r R"),
    (["--d", "2", "--grid", "2x2", "--r", "1", "--n", "4"], "--n: a grid's vertex count"),
])
def test_validate_grid_usage_errors(tmp_path, capsys, args, message):
    ok = _write(tmp_path, "0,0 1,0\n1,0 1,1\n", "ok.edges")
    assert main(["validate", ok, *args]) == 2
    assert message in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["validate", ok, "--d", "2", "--grid", "2x", "--r", "1"])
    assert "expected a lattice size" in capsys.readouterr().err


def test_an_override_is_checked_on_the_problems_it_runs(tmp_path):
    """--set problem.g=2 suits the 10x10 lattice, not the 5x5 one: running the first alone
    is fine, running both names the second."""
    path = tmp_path / "m.yaml"
    path.write_text("name: comp\nsearch: {steps: 10}\nproblems:\n"
                    "  - {problem: {grid: [5, 5], d: 4, r: 2}}\n"
                    "  - {problem: {grid: [10, 10], d: 6, r: 3}}\n")
    runs = load_config(path, ["problem.g=2"], only=["w10h10d6r3"])
    assert [r.name for r in runs] == ["w10h10d6r3"] and runs[0]["problem"]["g"] == 2
    with pytest.raises(GolfError, match=r"m.yaml: problem.g: g=2 needs an even number of "
                                        r"cells, 5x5"):
        load_config(path, ["problem.g=2"])
    with pytest.raises(GolfError, match="no problem named w9h9d4r2; have: w10h10d6r3, w5h5"):
        load_config(path, only=["w9h9d4r2"])


# -- hostile grid files (issue 15) -----------------------------------------------------------
def test_a_far_cell_is_refused_before_the_bounding_box_is_allocated(tmp_path):
    import tracemalloc

    p = tmp_path / "g.edges"
    p.write_text("0,0 1,0\n1,0 999999999999,0\n")
    with pytest.raises(GolfError, match=r"g\.edges:2: coordinate 999999999999 is too large in "
                                        r"'1,0 999999999999,0': expected coordinates < "
                                        r"2147483647"):
        read_grid_edges(p)
    p.write_text("0,0 1,0\n1,0 2000000,0\n")
    tracemalloc.start()
    try:
        with pytest.raises(GolfError, match=r"g\.edges:2: cell in '1,0 2000000,0' makes the "
                                            r"bounding box 2000001x1 = 2000001 cells, too many "
                                            r"for 2 edges: expected at most 1028 cells"):
            read_grid_edges(p)
        # a lattice given: the cell is outside it, named at its line
        with pytest.raises(GolfError, match=r"g\.edges:2: cell outside the 10x10 lattice"):
            read_grid_edges(p, size=(10, 10))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20


def test_grid_sizes_beyond_int32_and_damaged_gzip(tmp_path):
    with pytest.raises(GolfError, match=r"a 100000x100000 lattice has 10000000000 cells; golf "
                                        r"handles at most 2147483647"):
        parse_size("100000x100000")
    with pytest.raises(GolfError, match=r"expected a lattice size"):
        parse_size([10**400, 1])
    p = tmp_path / "g.edges"
    p.write_text("0,0 1,0\n")
    with pytest.raises(GolfError, match=r"a 2x1099511627776 lattice"):
        read_grid_edges(p, size=(2, 2**40)).graph(size=(2, 2**40))
    z = tmp_path / "g.edges.gz"
    z.write_bytes(gzip.compress(b"0,0 1,0\n1,0 1,1\n" * 50)[:30])
    with pytest.raises(GolfError, match=r"g\.edges\.gz: the gzip data ends early"):
        read_grid_edges(z)
    z.write_bytes(b"0,0 1,0\n")
    with pytest.raises(GolfError, match=r"g\.edges\.gz: not a gzip file"):
        read_grid_edges(z)
