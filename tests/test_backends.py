"""The conformance suite: every backend of the registry against the slow obvious answers of
``naive.py`` (networkx on the full graph), with its default options.

Parametrised over :func:`golf.evaluators.names`, so a backend added to the registry is under
test with no edit here; one that cannot run on this machine (no SciPy, no GPU) is skipped with
its own reason. Backend-specific code paths (thread modes, chunk widths, GPU kernel variants)
are tested beside each backend's other tests.
"""

import networkx as nx
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from golf.evaluators import backend_class, make_evaluator, names
from golf.evaluators.base import (DISCONNECTED, EXCEEDED, OK, Capabilities, Estimate,
                                  Evaluator, combine)
from golf.starts.random import random_graph
from golf.grid import Grid, symmetry_problem
from golf.graph import Graph
from golf.kernels.rng import rng_seed
from golf.engine.moves import new_undo, propose_swap
from golf.options import check_value

from naive import apsp_score, grid_edges, symmetric_edges


def _param(name):
    reason = backend_class(name).unavailable()
    marks = [pytest.mark.skip(reason=f"{name}: {reason}")] if reason else []
    if backend_class(name).supports.gpu:
        marks.append(pytest.mark.gpu)
    return pytest.param(name, marks=marks, id=name)


BACKENDS = [_param(name) for name in names()]


def score_tuple(s):
    return (s.diameter, s.total, s.peripheral, s.status)


def naive(graph):
    """(diameter, total, peripheral, status) of the full graph by networkx."""
    want = apsp_score(graph.n, graph.edges())
    return (None, None, 0, DISCONNECTED) if want is None else (*want, OK)


def check(backend, graph, **opts):
    got = score_tuple(make_evaluator(backend, graph.n, graph.d, graph.g, **opts).evaluate(graph))
    assert got == naive(graph), (backend, graph)
    return got


# -- what a backend declares ----------------------------------------------------------------
@pytest.mark.parametrize("name", names())
def test_declaration(name):
    """Name, options, capabilities and estimate as the registry and the config expect."""
    cls = backend_class(name)
    assert issubclass(cls, Evaluator) and cls.name == name and cls.summary
    assert isinstance(cls.supports, Capabilities)
    for key, spec in cls.options.items():
        if spec.default is not None:  # a default passes its own check
            assert check_value(key, spec.default, spec) == spec.default
    if cls.supports.compiled:
        assert cls.kernel is not None
    if cls.supports.batched:  # its own one-launch evaluate_many
        assert cls.evaluate_many is not Evaluator.evaluate_many
    est = cls.estimate(4096, 8, 1, threads=2, ranks=1)
    assert est is None or (isinstance(est, Estimate) and est.seconds > 0 and est.note)
    reason = cls.unavailable()
    assert reason is None or (isinstance(reason, str) and reason)


def test_options_shared_by_name_have_one_spec():
    """The config's evaluator section is the union of the backends' options."""
    seen = {}
    for name in names():
        for key, spec in backend_class(name).options.items():
            assert seen.setdefault(key, spec) == spec, (name, key)


# -- exact scores -----------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
def test_known_graphs(backend):
    petersen = Graph.from_edges(np.array(nx.petersen_graph().edges()), n=10)
    assert check(backend, petersen)[:2] == (2, 75)
    # the Petersen graph relabelled so that v -> v+2 is a symmetry: 5 groups of 2
    outer = [(2 * i, 2 * ((i + 1) % 5)) for i in range(5)]
    spokes = [(2 * i, 2 * i + 1) for i in range(5)]
    inner = [(2 * i + 1, 2 * ((i + 2) % 5) + 1) for i in range(5)]
    assert check(backend, Graph.from_edges(outer + spokes + inner, n=10, g=5))[:2] == (2, 75)
    for n in (4, 7):
        u, v = np.triu_indices(n, 1)
        complete = Graph.from_edges(np.stack([u, v], 1), n=n)
        assert check(backend, complete)[:2] == (1, n * (n - 1) // 2)
    star = Graph.from_edges([(0, i) for i in range(1, 9)], n=9)
    assert check(backend, star)[:3] == (2, 8 + 2 * 28, 8)
    for n in (2, 3):
        check(backend, Graph.from_edges([(i, i + 1) for i in range(n - 1)], n=n))


@pytest.mark.parametrize("backend", BACKENDS)
def test_one_vertex(backend):
    s = make_evaluator(backend, 1, 0, 1).evaluate(Graph(1, 0, 1, np.zeros((1, 0))))
    assert (s.diameter, s.total, s.aspl, s.status) == (0, 0, 0.0, OK)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n,edges,g", [
    (5, [(0, 1), (1, 2), (3, 4)], 1),
    (6, [(0, 1), (2, 3), (4, 5)], 3),
    (8, [(0, 2), (2, 4), (4, 6), (6, 0), (1, 3), (3, 5), (5, 7), (7, 1)], 4),
    (4, [(0, 1)], 1),  # isolated vertices
    (200, [(i, i + 1) for i in range(99)] + [(i, i + 1) for i in range(100, 199)], 1),
])
def test_disconnected(backend, n, edges, g):
    s = make_evaluator(backend, n, 2, g).evaluate(Graph.from_edges(edges, n=n, g=g, d=2))
    assert (s.diameter, s.total, s.status, s.connected) == (None, None, DISCONNECTED, False)
    assert s.aspl == float("inf")


@pytest.mark.parametrize("backend", BACKENDS)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 90), density=st.floats(0.2, 3.0))
def test_random_nonsymmetric(backend, seed, n, density):
    edges = symmetric_edges(n, 1, max(1, int(density * n)), np.random.default_rng(seed))
    check(backend, Graph.from_edges(edges, n=n))


@pytest.mark.parametrize("backend", BACKENDS)
@given(seed=st.integers(0, 2**32 - 1), m=st.integers(1, 40), g=st.integers(2, 7),
       orbits=st.integers(1, 60), halves=st.integers(0, 3))
def test_random_symmetric_with_half_orbits(backend, seed, m, g, orbits, halves):
    n = m * g
    edges = symmetric_edges(n, g, orbits, np.random.default_rng(seed), half_orbits=halves)
    if len(edges):
        check(backend, Graph.from_edges(edges, n=n, g=g))


@pytest.mark.parametrize("backend", BACKENDS)
@given(seed=st.integers(0, 2**32 - 1), data=st.data())
def test_random_regular_symmetric(backend, seed, data):
    g = data.draw(st.sampled_from([1, 2, 3, 4, 5, 6, 8]))
    m = data.draw(st.integers(3 if g == 1 else 2, 60))
    n = m * g
    d = data.draw(st.integers(2, min(9, n - 1)))
    assert check(backend, random_graph(n, d, g, seed))[3] == OK


@pytest.mark.parametrize("backend", BACKENDS)
@given(seed=st.integers(0, 2**32 - 1), data=st.data())
def test_random_grid_graphs(backend, seed, data):
    """Grid graphs (golf.grid) on the lattice numbering, symmetric under 180 or 90 degree
    turns or not, connected or not: the rotation is the ordinary v -> v + n/g."""
    w, h = data.draw(st.integers(1, 12)), data.draw(st.integers(1, 12))
    g = data.draw(st.sampled_from([g for g in (1, 2, 4) if symmetry_problem(w, h, g) is None]))
    r = data.draw(st.integers(1, 4))
    rng = np.random.default_rng(seed)
    cells = grid_edges(w, h, r, g, data.draw(st.integers(0, 3 * w * h)), rng)
    vid = Grid(w, h, r, g).vertex_of()
    edges = np.stack([vid[cells[:, 1], cells[:, 0]], vid[cells[:, 3], cells[:, 2]]], axis=1)
    check(backend, Graph.from_edges(edges, n=w * h, g=g))


@pytest.mark.parametrize("backend", BACKENDS)
def test_non_regular_rows_wider_than_any_degree(backend):
    edges = symmetric_edges(120, 3, 80, np.random.default_rng(3))
    graph = Graph.from_edges(edges, n=120, g=3, d=12)
    assert (graph.adj == -1).any()
    check(backend, graph)


@pytest.mark.parametrize("backend", BACKENDS)
def test_half_orbits_only_and_mixed(backend):
    rng = np.random.default_rng(7)
    for g in (2, 4, 6, 8):
        for m in (1, 3, 5):
            n = m * g
            graph = Graph.from_edges(symmetric_edges(n, g, 2 * m, rng, half_orbits=m), n=n, g=g)
            assert any(((graph.adj[i] - i) % n == n // 2).any() for i in range(m))
            check(backend, graph)


# -- level cap, reuse, batches, split ---------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
def test_max_level(backend):
    """A cap below the diameter reports EXCEEDED (no score); at or above it, the exact score;
    a disconnected graph under a cap is rejected either way."""
    for graph in (random_graph(300, 3, 3, seed=1), random_graph(64, 4, 1, seed=2)):
        ev = make_evaluator(backend, graph.n, graph.d, graph.g)
        want = naive(graph)
        for level in range(1, want[0]):
            s = ev.evaluate(graph, max_level=level)
            assert (s.status, s.diameter, s.total) == (EXCEEDED, None, None), level
        for level in (want[0], want[0] + 3):
            assert score_tuple(ev.evaluate(graph, max_level=level)) == want
    cut = Graph.from_edges([(i, i + 1) for i in range(30)] + [(40, 41)], n=50, d=2)
    s = make_evaluator(backend, 50, 2, 1).evaluate(cut, max_level=3)
    assert s.status in (DISCONNECTED, EXCEEDED) and s.diameter is None


@pytest.mark.parametrize("backend", BACKENDS)
def test_reused_on_changing_graphs(backend):
    """One evaluator, many graphs: swaps in place (what the search does) and new graphs."""
    graph = random_graph(256, 6, 4, seed=0)
    ev = make_evaluator(backend, 256, 6, 4)
    st_, undo = rng_seed(3), new_undo()
    for k in range(12):
        propose_swap(graph.adj, 256, 4, st_, undo)
        assert score_tuple(ev.evaluate(graph)) == naive(graph), k
    other = random_graph(256, 6, 4, seed=1)
    assert score_tuple(ev.evaluate(other)) == naive(other)


@pytest.mark.parametrize("backend", BACKENDS)
def test_evaluate_many(backend):
    """K graphs in one call (connected or not, with level caps) equal one-by-one scores."""
    n, d, g = 96, 10, 3
    rng = np.random.default_rng(5)
    graphs = [random_graph(n, 4, g, seed=s) for s in range(5)]
    graphs = [Graph(n, d, g, np.pad(gr.adj, ((0, 0), (0, d - 4)), constant_values=-1))
              for gr in graphs]  # rows wider than the degrees, as in non-regular graphs
    graphs += [Graph.from_edges(symmetric_edges(n, g, k, rng), n=n, g=g, d=d)
               for k in (10, 25)]  # non-regular, likely disconnected
    K = len(graphs)
    adjs = np.stack([gr.adj for gr in graphs])
    ev = make_evaluator(backend, n, d, g, batch=K)
    want = [naive(gr) for gr in graphs]
    got = [score_tuple(ev.finish(r)) for r in ev.evaluate_many(adjs)]
    assert got == want
    caps = [w[0] - 1 if w[3] == OK else 2 for w in want]
    capped = [ev.finish(r) for r in ev.evaluate_many(adjs, caps)]
    assert [s.status for s in capped] == [EXCEEDED if w[3] == OK else s.status
                                          for w, s in zip(want, capped)]
    assert all(s.status != OK for s in capped)
    single = make_evaluator(backend, n, d, g)
    assert [score_tuple(single.evaluate(gr)) for gr in graphs] == want


@pytest.mark.parametrize("backend", BACKENDS)
def test_partial_ranges_combine_to_the_whole(backend):
    """Any split of the work units (what MPI ranks do) combines to the whole result."""
    if not backend_class(backend).supports.mpi_split:
        pytest.skip(f"{backend} does not split its work over MPI ranks")
    graph = random_graph(390, 5, 2, seed=4)  # m = 195: 4 words of sources
    ev = make_evaluator(backend, 390, 5, 2)
    whole = ev.evaluate(graph)
    assert score_tuple(whole) == naive(graph)
    for parts in (2, 3, 5):
        cuts = np.linspace(0, ev.units, parts + 1).astype(int)
        merged = combine([ev.partial(graph, a, b) for a, b in zip(cuts[:-1], cuts[1:])])
        assert ev.finish(merged) == whole, parts


def test_docs_list_every_backend_and_option():
    """docs/backends.md's table names each registered backend with all of its options."""
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "backends.md").read_text()
    table = text.split("## The backends", 1)[1].split("\n\n", 2)[1]
    rows = {line.split("|")[1].strip().strip("`"): line for line in table.splitlines()[2:]}
    for name in names():
        assert name in rows, name
        for option in backend_class(name).options:
            assert f"`{option}`" in rows[name].split("|")[5], (name, option)
