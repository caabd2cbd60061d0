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
from golf.engine.moves import (new_undo, propose_move, propose_swap, propose_voltage, try_swap,
                               undo_swap)

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
