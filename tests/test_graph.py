import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from golf.errors import GolfError
from golf.starts.random import random_graph, target_degrees
from golf.graph import Graph, detect_symmetry, sort_rows

from naive import empty_slots, symmetric_edges


def full_neighbors(n, edges):
    nb = [set() for _ in range(n)]
    for u, v in edges:
        nb[u].add(v)
        nb[v].add(u)
    return nb


@given(seed=st.integers(0, 2**32 - 1), m=st.integers(1, 30), g=st.integers(1, 8),
       orbits=st.integers(0, 50), halves=st.integers(0, 3))
def test_round_trip_and_neighbours(seed, m, g, orbits, halves):
    n = m * g
    edges = symmetric_edges(n, g, orbits, np.random.default_rng(seed), half_orbits=halves)
    graph = Graph.from_edges(edges, n=n, g=g)
    graph.check()
    # expansion gives back exactly the edge set, each edge once, sorted
    out = graph.edges()
    assert np.array_equal(out, edges.reshape(-1, 2))
    assert graph.num_edges == len(edges)
    nb = full_neighbors(n, edges)
    for v in range(n):
        assert set(graph.neighbors(v).tolist()) == nb[v]
    assert graph.degrees().tolist() == [len(s) for s in nb]
    indptr, indices = graph.csr()
    for v in range(0, n, max(1, n // 7)):
        assert set(indices[indptr[v]:indptr[v + 1]].tolist()) == nb[v]
    # the symmetry found is at least the one the graph was built with
    assert detect_symmetry(edges, n) % g == 0


def test_missing_rotation_is_named():
    # 0-1 rotated by m=3 gives 3-4, which is missing
    edges = np.array([[0, 1], [1, 2], [2, 3], [4, 5]])
    with pytest.raises(GolfError, match=r"f\.edges:7: graph is not 2-symmetric: edge '0 1' has no "
                                        r"rotated copy '3 4'"):
        Graph.from_edges(edges, n=6, g=2, source="f.edges", lines=np.array([7, 8, 9, 10]))


def test_from_edges_errors():
    with pytest.raises(GolfError, match="does not divide"):
        Graph.from_edges([[0, 1]], n=5, g=2)
    with pytest.raises(GolfError, match="out of range"):
        Graph.from_edges([[0, 7]], n=5)
    with pytest.raises(GolfError, match="self-loop"):
        Graph.from_edges([[2, 2]], n=5)
    with pytest.raises(GolfError, match="duplicate edge '1 0'"):
        Graph.from_edges([[0, 1], [1, 0]], n=5)
    with pytest.raises(GolfError, match="vertex 0 has degree 3 > d=2"):
        Graph.from_edges([[0, 1], [0, 2], [0, 3]], n=5, d=2)
    # the vertex named, counted by vertex (n near the edges) or by the edges (n far above)
    for n in (6, 10**6):
        with pytest.raises(GolfError, match="vertex 5 has degree 3 > d=2"):
            Graph.from_edges([[0, 5], [5, 2], [3, 5]], n=n, d=2)


def test_half_orbit_takes_one_slot():
    # n=8, g=2 (m=4): the edge 1 -- 5 is its own rotation by 4
    graph = Graph.from_edges([[1, 5]], n=8, g=2)
    assert graph.adj[1].tolist() == [5]
    assert graph.num_edges == 1
    assert graph.degrees().tolist() == [0, 1, 0, 0, 0, 1, 0, 0]
    graph.check()


def test_check_catches_broken_rows():
    graph = random_graph(40, 4, 4, seed=1)
    bad = graph.copy()
    bad.adj[0, 0] = bad.adj[0, 1]  # duplicate neighbour
    with pytest.raises(GolfError, match="appears twice"):
        bad.check()
    bad = graph.copy()
    bad.adj[2, 0] = 2
    with pytest.raises(GolfError, match="self-loop"):
        bad.check()
    bad = graph.copy()
    bad.adj[3, 0] = -1  # its partner slot is left dangling
    with pytest.raises(GolfError, match="lacks its reverse"):
        bad.check()


def test_sort_rows_and_equality():
    adj = np.array([[3, -1, 1], [-1, -1, 0]], dtype=np.int32)
    assert sort_rows(adj).tolist() == [[1, 3, -1], [0, -1, -1]]
    a = random_graph(30, 3, 3, seed=2)
    b = Graph(a.n, a.d, a.g, a.adj[:, ::-1])
    assert a == b
    assert a != random_graph(30, 3, 3, seed=3)


def test_bad_shapes():
    with pytest.raises(GolfError):
        Graph(10, 3, 3, np.zeros((3, 3)))
    with pytest.raises(GolfError):
        Graph(10, 3, 2, np.zeros((4, 3)))


# -- random symmetric graphs ----------------------------------------------------------------
SHAPES = [(n, d, g) for n in range(3, 31) for d in (2, 3, 4, 5, 7)
          for g in range(1, n + 1) if n % g == 0]


@pytest.mark.parametrize("n,d,g", SHAPES[::3])
def test_random_graph_properties(n, d, g):
    graph = random_graph(n, d, g, seed=n * 7 + d)
    graph.check()
    assert graph.g == g and graph.n == n
    # simple, symmetric: from_edges re-verifies the rotation
    again = Graph.from_edges(graph.edges(), n=n, g=g, d=d)
    assert again == graph
    # degrees: d (capped at n-1) where parity and symmetry allow, else d-1 on one class
    want = np.tile(target_degrees(n, d, g), g)
    assert (graph.degrees() == want).all()
    assert want.min() >= min(d, n - 1) - 1
    if (n * min(d, n - 1)) % 2 == 0 and (g % 2 == 0 or (n // g * min(d, n - 1)) % 2 == 0):
        assert (want == min(d, n - 1)).all()
    # connected
    from golf.evaluators import make_evaluator

    assert make_evaluator("bfs", n, d, g).evaluate(graph).connected


def test_random_graph_reproducible_and_seed_dependent():
    a = random_graph(500, 6, 10, seed=42)
    b = random_graph(500, 6, 10, seed=42)
    c = random_graph(500, 6, 10, seed=43)
    assert np.array_equal(a.adj, b.adj)
    assert not np.array_equal(a.adj, c.adj)


def test_random_graph_uses_half_orbits_for_odd_slots():
    # g even, m*d odd: every degree stays d thanks to one orbit i -- i + n/2
    graph = random_graph(30, 3, 6, seed=1)  # m = 5, m*d = 15
    assert (graph.degrees() == 3).all()
    m, n = graph.m, graph.n
    halves = sum(int(((graph.adj[i] - i) % n == n // 2).sum()) for i in range(m))
    assert halves % 2 == 1


def test_random_graph_large_symmetric():
    graph = random_graph(1_000_000, 32, 25_000, seed=1)
    assert graph.adj.shape == (40, 32) and (graph.adj >= 0).all()
    graph.check()


def test_random_graph_errors():
    with pytest.raises(GolfError, match="no connected graph"):
        random_graph(10, 1)
    with pytest.raises(GolfError, match="no connected graph"):
        random_graph(3, 0)
    with pytest.raises(GolfError, match="divisor"):
        random_graph(10, 3, 4)
    assert random_graph(2, 1).num_edges == 1
    assert random_graph(1, 3).num_edges == 0
    k5 = random_graph(5, 9, 5)
    assert k5.num_edges == 10


# -- hostile input (issue 15): refused before anything sized by n is allocated ---------------
def test_inferred_order_is_held_to_the_edge_count():
    from golf.graph import SPARE_VERTICES, order_limit

    assert order_limit(2) == 4 + SPARE_VERTICES == 1028
    assert Graph.from_edges([(0, 1), (1, 1027)]).n == 1028  # 1024 vertices without an edge
    with pytest.raises(GolfError, match=r"f\.edges:7: vertex id 1028 is too large for 2 edges: "
                                        r"expected ids < 1028 \(2 edges touch at most 4 "
                                        r"vertices, and at most 1024 more may have no edge\); "
                                        r"give the vertex count n"):
        Graph.from_edges([(0, 1), (1, 1028)], source="f.edges", lines=[3, 7])
    # with n given, the ids only have to fit it
    assert Graph.from_edges([(0, 1), (1, 5000)], n=5001).n == 5001


def test_orders_beyond_int32_and_oversized_rows_are_refused():
    import tracemalloc

    with pytest.raises(GolfError, match=r"n=2147483648 is above the largest order golf "
                                        r"handles, 2147483647"):
        Graph.from_edges([(0, 1)], n=2**31)
    tracemalloc.start()
    try:
        with pytest.raises(GolfError, match=r"n=2000000000, d=1, g=1: the base rows would take "
                                            r"2000000000 x 1 slots \(7\.5 GiB\) for 1 edges"):
            Graph.from_edges([(0, 1)], n=2_000_000_000)
        with pytest.raises(GolfError, match=r"d=1000000000"):
            Graph.from_edges([(0, 1), (1, 2)], d=10**9)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20
    # a star: every row as wide as the hub's degree would take E^2 slots
    star = [(0, k) for k in range(1, 9000)]
    with pytest.raises(GolfError, match=r"the base rows would take 9000 x 8999 slots"):
        Graph.from_edges(star)
    assert Graph.from_edges(star[:100]).max_degree == 100  # small ones are fine


@pytest.mark.parametrize("edges,kw,pattern", [
    ([(0, 1), (2,)], {}, r"expected a \(k, 2\) array of vertex ids"),
    ([(0, 1)], {"d": -1}, r"d must be >= 0, got -1"),
    ([], {"d": -1}, r"d must be >= 0, got -1"),
    ([(0, 1)], {"n": 2.5}, r"n must be an integer, got 2\.5"),
    ([(0, 1)], {"g": True}, r"g=True does not divide"),
    ([(0, -3)], {"n": 10}, r"edge #1: vertex id out of range \(negative\) in edge '0 -3'"),
    ([(0, 2**70)], {}, r"a vertex id does not fit 64 bits"),
])
def test_bad_arguments_are_golf_errors(edges, kw, pattern):
    with pytest.raises(GolfError, match=pattern):
        Graph.from_edges(edges, **kw)


def test_auto_symmetry_of_a_large_order_tries_divisors_only():
    import time

    t0 = time.perf_counter()  # 2^30 shifts one by one took minutes; its 31 divisors do not
    assert detect_symmetry(np.array([(0, 1)]), 2**30) == 1
    assert detect_symmetry(np.array([(0, 2**29)]), 2**30) == 2  # its own half-turn
    assert time.perf_counter() - t0 < 1


@pytest.mark.parametrize("section", [dict(n=256, d=8, g=128, group=[16, 3]),
                                     dict(n=300, d=7, g=150, group=[15, 14]),
                                     dict(n=384, d=3, g=48, group=[12, 11]),
                                     dict(n=60, d=5, g=1), dict(n=96, d=3, g=6)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_edge_list_of_a_group_form_is_every_vertex_neighbours_in_order(section, seed):
    """edges() (the full graph's rows expanded and sorted row by row) against each vertex's
    neighbours one at a time, with slots emptied at random."""
    from golf.problems import problem_of

    graph = problem_of(dict(section, start="random")).random_graph(seed)
    graph = empty_slots(graph, np.random.default_rng(seed), 0.2)
    graph.check()
    want = [(v, int(w)) for v in range(graph.n) for w in graph.neighbors(v) if w > v]
    assert graph.edges().tolist() == [list(e) for e in want]
