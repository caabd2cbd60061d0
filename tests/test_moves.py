"""Symmetric swaps: every invariant checked against a full rebuild, and undo is exact."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from golf.starts.random import random_graph
from golf.graph import Graph
from golf.kernels.rng import rng_seed
from golf.engine.moves import (new_undo, propose_move, propose_near, propose_swap, propose_voltage,
                        try_swap, undo_swap)

from naive import distances, symmetric_edges

SHAPES = [  # (n, d, g): regular and not, odd and even g, tiny m, dense
    (12, 3, 1), (30, 4, 3), (40, 3, 4), (64, 5, 8), (48, 6, 6), (18, 5, 9), (20, 4, 10),
    (24, 3, 2), (10, 9, 5), (60, 7, 12), (16, 4, 16),
]


def rebuilt(graph):
    """The graph rebuilt from its own edge list: fails on any broken symmetry."""
    return Graph.from_edges(graph.edges(), n=graph.n, g=graph.g, d=graph.d)


MOVES = {
    "swap": propose_swap,
    "voltage": propose_voltage,
    "near": lambda adj, n, g, st, undo: propose_near(adj, n, st, undo),
    "mixed": lambda adj, n, g, st, undo: propose_move(adj, n, g, st, undo, 300),
    "all": lambda adj, n, g, st, undo: propose_move(adj, n, g, st, undo, 300, None, 500),
}


@pytest.mark.parametrize("kind", MOVES)
@pytest.mark.parametrize("n,d,g", SHAPES)
def test_swap_undo_sequences(n, d, g, kind):
    graph = random_graph(n, d, g, seed=n + d + g)
    degrees = graph.degrees().copy()
    st = rng_seed(n * 1000 + g)
    undo = new_undo()
    applied = 0
    propose = MOVES[kind]
    if kind == "voltage" and g == 1:
        assert not propose(graph.adj, n, g, st, undo)  # no other rotation to move to
        return
    for step in range(1000):
        before = graph.adj.copy()
        if not propose(graph.adj, n, g, st, undo):
            continue
        applied += 1
        graph.check()  # simple, reverse slots present
        assert (graph.degrees() == degrees).all()
        again = rebuilt(graph)  # g-symmetric
        assert again == graph
        if step % 3 == 0:  # undo some, keep others: sequences of accepted moves too
            undo_swap(graph.adj, undo)
            assert np.array_equal(graph.adj, before)
    if kind in ("voltage", "near") and d == n - 1:
        assert applied == 0  # complete: every other rotation of an edge, every edge two hops
        # away (none) is an edge already
    else:
        assert applied > (100 if kind == "voltage" and d >= n // 2 else 300)


def quotient(graph):
    """The quotient multigraph: the base classes each edge joins, with multiplicity."""
    m = graph.m
    return sorted(tuple(sorted((int(u) % m, int(v) % m))) for u, v in graph.edges())


def applied(graph, propose, tries, seed, look):
    """Each move of ``tries`` draws of ``propose(adj, st, undo)`` that applied: ``(gone, new,
    seen)``, the edges it removed and added and ``look(graph)`` taken before it."""
    st = rng_seed(seed)
    undo = new_undo()
    for _ in range(tries):
        before = set(map(tuple, graph.edges().tolist()))
        seen = look(graph)
        if propose(graph.adj, st, undo):
            after = set(map(tuple, graph.edges().tolist()))
            yield before - after, after - before, seen


@pytest.mark.parametrize("n,d,g", [s for s in SHAPES if s[2] > 1 and s[1] < s[0] - 1])
def test_voltage_move_changes_one_orbit_and_keeps_the_quotient(n, d, g):
    graph = random_graph(n, d, g, seed=7)
    moved = 0
    for gone, new, q in applied(graph, lambda adj, st, undo: propose_voltage(adj, n, g, st, undo),
                                200, 11, quotient):
        moved += 1
        assert quotient(graph) == q
        # one orbit left (g or g/2 edges) and one came (the same size)
        assert len(gone) == len(new) and len(gone) in (g, g // 2)
    assert moved > 20


@pytest.mark.parametrize("n,d,g", [s for s in SHAPES if s[1] < s[0] - 1])
def test_near_swap_joins_vertices_two_hops_apart(n, d, g):
    """Every edge a near swap adds joined two vertices at distance 2 before it; it removes as
    many edges as it adds (the orbits of a -- b and c -- e)."""
    graph = random_graph(n, d, g, seed=3)
    moved = 0
    for gone, new, dist in applied(graph, lambda adj, st, undo: propose_near(adj, n, st, undo),
                                   150, 17, lambda gr: distances(gr.n, gr.edges())):
        moved += 1
        assert new and len(new) == len(gone)
        assert all(dist[u, v] == 2 for u, v in new)
    assert moved > 50


@given(st.sampled_from(SHAPES), st.integers(0, 2**32 - 1), st.integers(0, 1000),
       st.integers(0, 1000))
@settings(max_examples=40, deadline=None)
def test_mixed_moves_keep_every_invariant(shape, seed, permille, near):
    n, d, g = shape
    graph = random_graph(n, d, g, seed=seed % 1000)
    degrees = graph.degrees().copy()
    rng = rng_seed(seed)
    undo = new_undo()
    for _ in range(50):
        before = graph.adj.copy()
        if propose_move(graph.adj, n, g, rng, undo, permille, None, near):
            graph.check()
            assert (graph.degrees() == degrees).all()
            assert rebuilt(graph) == graph
            undo_swap(graph.adj, undo)
            assert np.array_equal(graph.adj, before)
            propose_move(graph.adj, n, g, rng, undo, permille, None, near)  # keep this one


def test_mixed_moves_without_voltage_draw_what_swaps_draw():
    graph, other = random_graph(40, 3, 4, seed=2), random_graph(40, 3, 4, seed=2)
    st1, st2 = rng_seed(5), rng_seed(5)
    undo = new_undo()
    for _ in range(300):
        propose_move(graph.adj, 40, 4, st1, undo, 0)
        propose_swap(other.adj, 40, 4, st2, undo)
    assert np.array_equal(graph.adj, other.adj) and np.array_equal(st1, st2)


def test_non_regular_graph_keeps_degrees():
    rng = np.random.default_rng(5)
    edges = symmetric_edges(90, 3, 60, rng, half_orbits=0)
    graph = Graph.from_edges(edges, n=90, g=3, d=9)
    degrees = graph.degrees().copy()
    assert len(set(degrees.tolist())) > 1
    st = rng_seed(3)
    undo = new_undo()
    moved = 0
    for _ in range(3000):
        if propose_swap(graph.adj, 90, 3, st, undo):
            moved += 1
            graph.check()
            assert (graph.degrees() == degrees).all()
    assert moved > 100
    assert rebuilt(graph) == graph


def test_half_orbits_merge_and_split():
    # n=8, g=2, m=4: half orbits 0--4 and 1--5 merge into the orbit {0--1, 4--5}
    graph = Graph.from_edges([[0, 4], [1, 5]], n=8, g=2, d=1)
    undo = new_undo()
    assert try_swap(graph.adj, 8, 0, 4, 1, 5, 0, 1, 4, 5, undo)
    assert sorted(map(tuple, graph.edges().tolist())) == [(0, 1), (4, 5)]
    graph.check()
    # and split back: the orbit with its copy rotated by n/2 becomes two half orbits
    assert try_swap(graph.adj, 8, 0, 1, 4, 5, 0, 4, 1, 5, undo)
    assert sorted(map(tuple, graph.edges().tolist())) == [(0, 4), (1, 5)]
    # a rotation other than n/2 would change degrees: rejected, nothing changes
    graph2 = Graph.from_edges([[0, 1], [2, 3], [4, 5], [6, 7]], n=8, g=4, d=2)
    adj = graph2.adj.copy()
    assert not try_swap(graph2.adj, 8, 0, 1, 2, 3, 0, 2, 1, 3, undo)
    assert np.array_equal(graph2.adj, adj)


def test_rejects_self_loops_and_multi_edges():
    # path 0-1-2-3 (g=1): swapping (0,1),(1,2) -> (0,1),(1,2) / (0,2),(1,1)
    graph = Graph.from_edges([[0, 1], [1, 2], [2, 3]], n=4)
    adj = graph.adj.copy()
    undo = new_undo()
    assert not try_swap(graph.adj, 4, 0, 1, 1, 2, 0, 2, 1, 1, undo)  # self-loop 1-1
    assert np.array_equal(graph.adj, adj)
    # square 0-1-2-3-0: swapping (0,1),(2,3) -> (0,3),(1,2) duplicates existing edges
    sq = Graph.from_edges([[0, 1], [1, 2], [2, 3], [3, 0]], n=4)
    a2 = sq.adj.copy()
    assert not try_swap(sq.adj, 4, 0, 1, 2, 3, 0, 3, 1, 2, undo)
    assert np.array_equal(sq.adj, a2)
    assert try_swap(sq.adj, 4, 0, 1, 2, 3, 0, 2, 1, 3, undo)  # the diagonal swap is fine
    assert sorted(map(tuple, sq.edges().tolist())) == [(0, 2), (0, 3), (1, 2), (1, 3)]


def test_many_random_swaps_reach_many_graphs():
    """Not a proof of ergodicity, but the chain does wander: distinct graphs keep appearing."""
    graph = random_graph(16, 3, 2, seed=1)
    st = rng_seed(9)
    undo = new_undo()
    seen = set()
    for _ in range(4000):
        propose_swap(graph.adj, 16, 2, st, undo)
        seen.add(graph.edges().tobytes())
    assert len(seen) > 500
