"""Moves on grid graphs: with ``reach = grid.reach()`` every swap and voltage move keeps the
graph simple, every degree, the rotation symmetry and every edge within the length limit,
and undo is exact; without it the same moves do make edges that are too long."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from golf.graph import Graph
from golf.grid import Grid
from golf.starts.random_grid import random_grid_graph
from golf.kernels.rng import rng_seed
from golf.engine.moves import (new_undo, propose_move, propose_slide, propose_swap,
                               propose_voltage, try_rewire, try_swap, undo_swap)

SHAPES = [  # (w, h, d, r, g): competition-like, r = 1, odd sizes, dense, degree 2
    (10, 10, 4, 2, 1), (10, 10, 6, 3, 2), (10, 10, 8, 4, 4), (7, 5, 3, 1, 1), (6, 6, 3, 1, 4),
    (8, 8, 5, 2, 4), (9, 6, 4, 2, 2), (7, 7, 6, 3, 1), (12, 12, 16, 6, 4), (6, 5, 2, 2, 2),
]

MOVES = {
    "swap": lambda adj, n, g, st, undo, reach: propose_swap(adj, n, g, st, undo, reach),
    "voltage": lambda adj, n, g, st, undo, reach: propose_voltage(adj, n, g, st, undo, reach),
    "mixed": lambda adj, n, g, st, undo, reach: propose_move(adj, n, g, st, undo, 300, reach),
}


def check_invariants(grid, graph, degrees):
    graph.check()  # simple: no loops, no repeats, every slot has its reverse
    assert (graph.degrees() == degrees).all()
    assert Graph.from_edges(graph.edges(), n=graph.n, g=graph.g, d=graph.d) == graph
    assert grid.lengths(graph.edges()).max() <= grid.r


@pytest.mark.parametrize("kind", MOVES)
@pytest.mark.parametrize("w,h,d,r,g", SHAPES)
def test_moves_within_reach_keep_every_invariant(w, h, d, r, g, kind):
    grid = Grid(w, h, r, g)
    graph = random_grid_graph(grid, d, seed=w + h + d)
    degrees = graph.degrees().copy()
    reach = grid.reach()
    st = rng_seed(100 * w + r)
    undo = new_undo()
    applied = 0
    for step in range(300):
        before = graph.adj.copy()
        if not MOVES[kind](graph.adj, graph.n, g, st, undo, reach):
            assert np.array_equal(graph.adj, before)  # a refused move changes nothing
            continue
        applied += 1
        check_invariants(grid, graph, degrees)
        if step % 3 == 0:  # undo some, keep the others: sequences of kept moves too
            undo_swap(graph.adj, undo)
            assert np.array_equal(graph.adj, before)
    if kind == "voltage" and g == 1:
        assert applied == 0  # no other rotation to move an edge to
    elif kind == "voltage" and r == 1:
        pass  # a far end and its turn are rarely both next to a cell: none need be found
    else:  # the length check must leave the search something to do
        assert applied > (20 if kind == "voltage" else 200)


@pytest.mark.parametrize("kind", ["swap", "mixed"])
@pytest.mark.parametrize("w,h,d,r,g", SHAPES)
def test_without_reach_the_same_moves_make_long_edges(w, h, d, r, g, kind):
    grid = Grid(w, h, r, g)
    graph = random_grid_graph(grid, d, seed=w + h + d)
    st = rng_seed(100 * w + r)
    undo = new_undo()
    longest = 0
    for _ in range(50):
        if MOVES[kind](graph.adj, graph.n, g, st, undo, None):
            longest = max(longest, int(grid.lengths(graph.edges()).max()))
    assert longest > r


def test_try_swap_refuses_exactly_the_long_edges():
    # a 4x1 lattice, r = 1: the path 0-1-2-3 of cells x = 0..3, edges (0,1) and (2,3)
    grid = Grid(4, 1, 1, 1)
    reach = grid.reach()
    undo = new_undo()
    graph = Graph.from_edges([[0, 1], [2, 3]], n=4, d=2)
    adj = graph.adj.copy()
    # (0,2), (1,3): both of length 2 -- refused with reach, nothing changes
    assert not try_swap(graph.adj, 4, 0, 1, 2, 3, 0, 2, 1, 3, undo, reach)
    assert np.array_equal(graph.adj, adj)
    # (0,3), (1,2): length 3 -- refused too
    assert not try_swap(graph.adj, 4, 0, 1, 2, 3, 0, 3, 1, 2, undo, reach)
    # without reach both are fine swaps
    assert try_swap(graph.adj, 4, 0, 1, 2, 3, 0, 2, 1, 3, undo)
    assert sorted(map(tuple, graph.edges().tolist())) == [(0, 2), (1, 3)]
    undo_swap(graph.adj, undo)
    assert np.array_equal(graph.adj, adj)
    # and with a longer reach the same swap is taken
    assert try_swap(graph.adj, 4, 0, 1, 2, 3, 0, 2, 1, 3, undo, Grid(4, 1, 2, 1).reach())


@given(st.sampled_from(SHAPES), st.integers(0, 2**32 - 1), st.integers(0, 1000))
@settings(max_examples=30, deadline=None)
def test_drawn_move_sequences(shape, seed, permille):
    w, h, d, r, g = shape
    grid = Grid(w, h, r, g)
    graph = random_grid_graph(grid, d, seed=seed % 1000)
    degrees = graph.degrees().copy()
    reach = grid.reach()
    rng = rng_seed(seed)
    undo = new_undo()
    for _ in range(40):
        before = graph.adj.copy()
        if propose_move(graph.adj, graph.n, g, rng, undo, permille, reach):
            check_invariants(grid, graph, degrees)
            undo_swap(graph.adj, undo)
            assert np.array_equal(graph.adj, before)
            propose_move(graph.adj, graph.n, g, rng, undo, permille, reach)  # keep this one
    check_invariants(grid, graph, degrees)


def test_large_lattice_swaps_are_drawn_near_each_other():
    """On a 20x20 lattice with r = 2 two edges drawn anywhere almost never swap into two short
    ones; the grid proposal draws the second edge near the first, so a run does not stall."""
    from golf.engine.annealer import SC, Annealer
    from golf.evaluators import make_evaluator

    grid = Grid(20, 20, 2, 4)
    graph = random_grid_graph(grid, 4, seed=1)
    ann = Annealer(graph, make_evaluator("bitset", 400, 4, 4, threads=1), seed=1, steps=3000,
                   reach=grid.reach())
    ann.set_temperatures(1.0, 0.1)
    ann.run(3000)
    assert ann.sc[SC.STEP] == 3000 and ann.sc[SC.FAILED] < 30
    assert ann.sc[SC.ACCEPTED] > 300
    assert grid.lengths(ann.best_graph().edges()).max() <= 2


def check_slide_invariants(grid, graph, d):
    graph.check()
    assert graph.degrees().max() <= d
    assert Graph.from_edges(graph.edges(), n=graph.n, g=graph.g, d=graph.d) == graph
    assert grid.lengths(graph.edges()).max() <= grid.r


@pytest.mark.parametrize("w,h,d,r,g", SHAPES)
def test_slides_keep_symmetry_reach_and_undo_exactly(w, h, d, r, g):
    """Slides, fills and drops: simple, symmetric (the rows say it), within reach, degrees at
    most d; an applied move changes the edge count by one orbit (fill, drop) or not at all
    (slide), and its undo restores the rows exactly. From a full graph the drops open free
    slots, and slides then move them: degrees do change, edges stay."""
    grid = Grid(w, h, r, g)
    graph = random_grid_graph(grid, d, seed=w + h + d + 1)
    reach = grid.reach()
    st = rng_seed(7 * w + h)
    undo = new_undo()
    kinds = {-1: 0, 0: 0, 1: 0}
    moved_degrees = False
    full = graph.degrees().copy()
    for step in range(400):
        before = graph.adj.copy()
        edges = graph.num_edges
        if not propose_slide(graph.adj, graph.n, st, undo, reach):
            assert np.array_equal(graph.adj, before)
            continue
        check_slide_invariants(grid, graph, d)
        change = graph.num_edges - edges
        assert change == 0 or abs(change) in (g, g // 2)  # one orbit (a half orbit: g/2)
        kinds[int(np.sign(change))] += 1
        if change == 0 and not np.array_equal(graph.degrees(), full):
            moved_degrees = True
        if step % 4 == 0:
            undo_swap(graph.adj, undo)
            assert np.array_equal(graph.adj, before)
    assert kinds[-1] > 0 and kinds[0] > 50
    assert moved_degrees


def test_try_rewire_refuses_long_repeated_and_crowded_edges():
    # a 4x1 lattice, r = 1, the path 0-1-2-3
    grid = Grid(4, 1, 1, 1)
    reach = grid.reach()
    undo = new_undo()
    graph = Graph.from_edges([[0, 1], [1, 2], [2, 3]], n=4, d=2)
    adj = graph.adj.copy()
    assert not try_rewire(graph.adj, 4, 2, 3, 3, 1, undo, reach)  # 3 -- 1: too long
    assert not try_rewire(graph.adj, 4, -1, -1, 0, 1, undo, reach)  # 0 -- 1 is there
    assert not try_rewire(graph.adj, 4, 0, 1, 1, 0, undo, reach)  # the removed edge put back
    assert not try_rewire(graph.adj, 4, 0, 1, 2, 1, undo, reach)  # 2 -- 1 is there
    assert not try_rewire(graph.adj, 4, -1, -1, 1, 1, undo, reach)  # a loop
    assert np.array_equal(graph.adj, adj)
    # a drop
    assert try_rewire(graph.adj, 4, 1, 2, -1, -1, undo, reach)
    assert sorted(map(tuple, graph.edges().tolist())) == [(0, 1), (2, 3)]
    undo_swap(graph.adj, undo)
    assert np.array_equal(graph.adj, adj)
    # with d = 1 no row has room for a new edge: 0 -- 1 cannot be re-targeted to 2
    one = Graph.from_edges([[0, 1], [2, 3]], n=4, d=1)
    before = one.adj.copy()
    assert not try_rewire(one.adj, 4, 0, 1, 1, 2, undo, Grid(4, 1, 2, 1).reach())
    assert np.array_equal(one.adj, before)
    # a slide: 2 -- 3 becomes 2 -- 0 on the path 0-1, 2-3 of degree 2 (0 has a free slot)
    two = Graph.from_edges([[0, 1], [2, 3]], n=4, d=2)
    before = two.adj.copy()
    assert try_rewire(two.adj, 4, 2, 3, 2, 0, undo, Grid(4, 1, 2, 1).reach())
    assert sorted(map(tuple, two.edges().tolist())) == [(0, 1), (0, 2)]
    undo_swap(two.adj, undo)
    assert np.array_equal(two.adj, before)


def test_the_mix_draws_slides_on_grids_only():
    """propose_move with slide_permille 1000 changes degrees on a grid, and without reach (a
    general graph) never does: there the slides are compiled away."""
    grid = Grid(10, 10, 2, 4)
    graph = random_grid_graph(grid, 4, seed=3)
    st = rng_seed(3)
    undo = new_undo()
    counts = set()
    for _ in range(200):
        propose_move(graph.adj, graph.n, 4, st, undo, 0, grid.reach(), 0, None, 0, 1000)
        counts.add(graph.num_edges)
    assert len(counts) > 1
    general = random_grid_graph(grid, 4, seed=3)
    for _ in range(200):
        assert propose_move(general.adj, general.n, 4, st, undo, 0, None, 0, None, 0, 1000)
        assert general.num_edges == 200


def test_annealing_with_slides_keeps_every_rule_and_repeats():
    """A grid run with slides: the best graph is simple, within reach, degrees at most d, and
    the same seed gives the same run."""
    from golf.engine.annealer import SC, Annealer
    from golf.evaluators import make_evaluator
    from naive import apsp_score

    grid = Grid(10, 10, 2, 4)
    graph = random_grid_graph(grid, 4, seed=2)
    runs = []
    for _ in range(2):
        ann = Annealer(graph, make_evaluator("bitset", 100, 4, 4, threads=1), seed=3,
                       steps=4000, reach=grid.reach(), slide_moves=0.3)
        ann.set_temperatures(50.0, 1.0)
        ann.run(4000)
        runs.append((ann.best_graph(), ann.sc.copy()))
    assert runs[0][0] == runs[1][0] and np.array_equal(runs[0][1], runs[1][1])
    best = runs[0][0]
    check_slide_invariants(grid, best, 4)
    d, total, _ = apsp_score(best.n, best.edges())
    assert (d, total) == (runs[0][1][SC.BEST_D], runs[0][1][SC.BEST_TOTAL])
    assert runs[0][1][SC.ACCEPTED] > 500
