"""golf.lower_bounds.grid_bounds (the lattice bound of the grid category) and
``golf bounds --grid``: the competition's check values, a slow obvious reference, the Moore
bound when every pair is in reach, and actual grid graphs, which the bound must never beat."""

import itertools
import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from golf.cli import main
from golf.errors import GolfError
from golf.evaluators import make_evaluator
from golf.graph import Graph
from golf.lower_bounds import GridBounds, grid_bounds, moore_bounds


def naive_grid_bounds(w, h, d, r):
    """(diameter, aspl) straight from the definition: for each source and each k, count the
    cells within Manhattan distance k*r one by one, cap by the Moore count, add n - N_k."""
    n = w * h
    if n == 1:
        return 0, Fraction(0)
    if d == 0 or (d == 1 and n > 2):
        return None, None
    cells = [(x, y) for y in range(h) for x in range(w)]
    ordered_sum, diameter = 0, 0
    for sx, sy in cells:
        k = 0
        while True:
            moore = 1 + sum(d * (d - 1) ** j for j in range(k))
            in_reach = sum(1 for x, y in cells if abs(x - sx) + abs(y - sy) <= k * r)
            count = min(in_reach, moore)
            if count >= n:
                break
            ordered_sum += n - count
            k += 1
        diameter = max(diameter, k)
    return diameter, Fraction(ordered_sum, n * (n - 1))


def score(n, edges):
    graph = Graph.from_edges(np.array(edges, dtype=np.int64).reshape(-1, 2), n=n)
    return make_evaluator("reference", n, graph.d).evaluate(graph)


def reach_graph(w, h, r):
    """Every pair of cells at Manhattan distance <= r joined (vertex y*w + x)."""
    cells = [(x, y) for y in range(h) for x in range(w)]
    return [(i, j) for (i, a), (j, b) in itertools.combinations(enumerate(cells), 2)
            if abs(a[0] - b[0]) + abs(a[1] - b[1]) <= r]


def random_grid_graph(w, h, d, r, rng):
    """A connected grid graph with degrees <= d (d >= 2) and edges of length <= r: the snake
    through the rows (edges of length 1), plus random edges in reach while degrees allow."""
    snake = [y * w + (x if y % 2 == 0 else w - 1 - x) for y in range(h) for x in range(w)]
    edges = {tuple(sorted(e)) for e in zip(snake, snake[1:])}
    deg = np.zeros(w * h, dtype=np.int64)
    for u, v in edges:
        deg[u] += 1
        deg[v] += 1
    candidates = [e for e in reach_graph(w, h, r) if e not in edges]
    for k in rng.permutation(len(candidates)):
        u, v = candidates[k]
        if deg[u] < d and deg[v] < d:
            edges.add((u, v))
            deg[u] += 1
            deg[v] += 1
    return sorted(edges)


@pytest.mark.parametrize("w,h,d,r,diameter,aspl", [
    (4, 4, 3, 2, 3, "2.2000000000"),
    (10, 10, 6, 3, 6, "2.8387878788"),
    (10, 10, 8, 4, 5, "2.3511111111"),
])
def test_check_values(w, h, d, r, diameter, aspl):
    b = grid_bounds(w, h, d, r)
    assert isinstance(b, GridBounds) and (b.n, b.d, b.w, b.h, b.r) == (w * h, d, w, h, r)
    assert b.diameter == diameter
    assert f"{float(b.aspl):.10f}" == aspl


def test_check_value_4x4_exact():
    b = grid_bounds(4, 4, 3, 2)
    assert b.aspl == Fraction(11, 5) == Fraction(264, 120)
    assert b.total == 264


@given(st.integers(1, 7), st.integers(1, 7), st.integers(0, 7), st.integers(1, 12))
def test_matches_the_naive_count(w, h, d, r):
    b = grid_bounds(w, h, d, r)
    assert (b.diameter, b.aspl) == naive_grid_bounds(w, h, d, r)
    t = grid_bounds(h, w, d, r)  # the transposed lattice has the same bound
    assert (t.diameter, t.aspl) == (b.diameter, b.aspl)


@given(st.integers(1, 12), st.integers(1, 12), st.integers(0, 9), st.integers(0, 5))
def test_every_pair_in_reach_is_the_moore_bound(w, h, d, extra):
    r = max(w + h - 2, 1) + extra
    b, m = grid_bounds(w, h, d, r), moore_bounds(w * h, d)
    assert (b.n, b.d, b.diameter, b.aspl) == (m.n, m.d, m.diameter, m.aspl)


@given(st.integers(1, 15), st.integers(1, 15), st.integers(2, 9), st.integers(1, 6))
def test_never_below_moore(w, h, d, r):
    b, m = grid_bounds(w, h, d, r), moore_bounds(w * h, d)
    assert b.diameter >= m.diameter and b.aspl >= m.aspl


@pytest.mark.parametrize("w,h,r", [(2, 1, 1), (5, 1, 1), (4, 4, 1), (7, 5, 1), (10, 10, 1),
                                   (6, 6, 2), (8, 5, 3), (9, 9, 2)])
def test_reach_graphs_meet_the_bound(w, h, r):
    """Joining every pair in reach (r = 1: the plain lattice, d = 4) makes the k-hop ball the
    Manhattan ball of radius k*r, and a graph of degree <= d never holds more than the Moore
    count within k hops: with d its largest degree, the bound is this graph's exact score."""
    n = w * h
    edges = reach_graph(w, h, r)
    d = int(np.bincount(np.array(edges).ravel(), minlength=n).max())
    s = score(n, edges)
    b = grid_bounds(w, h, d, r)
    assert (b.diameter, b.total) == (s.diameter, s.total)
    if r == 1 and w > 2 and h > 2:
        assert d == 4 and s.diameter == w + h - 2


@given(st.integers(1, 9), st.integers(1, 9), st.integers(2, 6), st.integers(1, 4),
       st.integers(0, 2**32 - 1))
def test_random_grid_graphs_never_beat_the_bound(w, h, d, r, seed):
    n = w * h
    if n == 1:
        return
    edges = random_grid_graph(w, h, d, r, np.random.default_rng(seed))
    s = score(n, edges)
    assert s.connected
    b = grid_bounds(w, h, d, r)
    assert b.diameter <= s.diameter
    assert b.total <= s.total and b.aspl <= Fraction(s.total, n * (n - 1) // 2)


def test_degenerate():
    assert (grid_bounds(1, 1, 0, 1).diameter, grid_bounds(1, 1, 0, 1).aspl) == (0, 0)
    assert grid_bounds(2, 1, 1, 1).diameter == 1 and grid_bounds(1, 2, 1, 3).aspl == 1
    for w, h, d in [(3, 1, 1), (2, 2, 1), (5, 5, 0), (2, 1, 0)]:
        b = grid_bounds(w, h, d, 2)
        assert b.diameter is None and b.aspl is None and b.total is None


@pytest.mark.parametrize("w,h,d,r", [(0, 3, 3, 1), (3, 0, 3, 1), (3, 3, -1, 1), (3, 3, 3, 0)])
def test_bad_parameters(w, h, d, r):
    with pytest.raises(GolfError):
        grid_bounds(w, h, d, r)


def test_as_dict():
    o = grid_bounds(10, 10, 6, 3).as_dict()
    assert o == {"w": 10, "h": 10, "r": 3, "n": 100, "d": 6, "diameter_bound": 6,
                 "aspl_bound": float(Fraction(2342, 825)), "aspl_bound_fraction": "2342/825"}


def test_cli_grid(capsys):
    assert main(["bounds", "--grid", "4x4", "3", "2"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == ["grid 4x4 d=3 r=2 (n=16)", "diameter >= 3",
                                "ASPL     >= 2.2000000000  (11/5)", "total    >= 264"]
    assert main(["bounds", "6", "3", "--grid", "10x10", "--json"]) == 0
    o = json.loads(capsys.readouterr().out)
    assert (o["w"], o["h"], o["r"], o["d"], o["n"]) == (10, 10, 3, 6, 100)
    assert o["diameter_bound"] == 6 and o["aspl_bound_fraction"] == "2342/825"
    assert main(["bounds", "--grid", "5x5", "1", "1"]) == 0
    assert "no connected graph exists" in capsys.readouterr().out


def test_cli_without_grid_unchanged(capsys):
    assert main(["bounds", "16", "4"]) == 0
    assert capsys.readouterr().out == ("n=16 d=4\ndiameter >= 2\nASPL     >= 1.7333333333  "
                                       "(26/15)\ntotal    >= 208\n")
    for argv, needle in [(["bounds", "0", "3"], "argument n: expected a number >= 1, got 0"),
                         (["bounds", "16"], "the following arguments are required: d")]:
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2 and needle in capsys.readouterr().err


def test_cli_grid_errors(capsys):
    assert main(["bounds", "--grid", "10", "6", "3"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("golf: error: --grid: expected a lattice size WxH")
    for argv, needle in [(["bounds", "--grid", "10x10", "6", "0"],
                          "argument R: expected a number >= 1, got 0"),
                         (["bounds", "--grid", "10x10", "6"],
                          "the following arguments are required: R"),
                         (["bounds", "--grid", "10x10", "x", "2"],
                          "argument D: expected a whole number, got 'x'")]:
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2 and needle in capsys.readouterr().err
