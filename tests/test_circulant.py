"""Circulant start graphs (golf.starts.circulant): shape, symmetry, exact scores against the
evaluators and tests/naive.py, determinism, search quality, and the `problem.start` setting."""

import itertools
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, strategies as st

import golf
from golf.starts.circulant import (_score_bits, _score_queue, circulant_graph, circulant_score,
                            circulant_shape, find_circulant)
from golf.config import load_config
from golf.errors import GolfError
from golf.graph import Graph, detect_symmetry

from naive import apsp_score


def degree_of(n, d):
    """The degree a circulant on n vertices gets: min(d, n-1), one less if that and n are odd."""
    dd = min(d, n - 1)
    return dd - 1 if dd % 2 and n % 2 else dd


def divisors(n):
    return [g for g in range(1, n + 1) if n % g == 0]


@st.composite
def shapes(draw):
    n = draw(st.integers(2, 80))
    d = draw(st.integers(2, 12) if n > 2 else st.integers(1, 3))
    g = draw(st.sampled_from(divisors(n)))
    return n, d, g


@given(shapes(), st.integers(0, 3))
def test_circulant_graph_properties(shape, seed):
    n, d, g = shape
    found = find_circulant(n, d, seed=seed)
    graph = circulant_graph(n, d, g, seed=seed)
    graph.check()
    assert graph == found.graph(g, d) and (graph.n, graph.d, graph.g) == (n, d, g)
    # regular of the largest degree parity allows, simple (from_edges refuses loops and
    # duplicates), and invariant under every rotation, so g-symmetric for every divisor
    assert (graph.degrees() == degree_of(n, d)).all() and found.degree == degree_of(n, d)
    edges = graph.edges()
    assert Graph.from_edges(edges, n=n, g=g, d=d) == graph
    assert detect_symmetry(edges, n) == n
    for g2 in divisors(n):
        other = found.graph(g2, d)
        other.check()
        assert np.array_equal(other.edges(), edges)
    # one score, three ways: the evaluators, the circulant formula, networkx on all pairs
    score = golf.evaluate(graph)
    assert score.connected
    want = apsp_score(n, edges)
    assert (score.diameter, score.total) == (found.diameter, found.total) == want[:2]
    assert circulant_score(n, found.generators) == want[:2]


@given(st.integers(2, 300), st.data())
def test_bit_vector_and_queue_scores_agree(n, data):
    gens = np.array(sorted(set(data.draw(st.lists(st.integers(1, n // 2), min_size=1,
                                                  max_size=5)))), dtype=np.int64)
    cap = data.draw(st.integers(1, n))
    a = np.zeros(max(n, (n + 63) // 64 + 1), dtype=np.uint64)
    b = a.copy()
    bits = _score_bits(n, gens, cap, a, b)[:2]
    queue = _score_queue(n, gens, cap, a.view(np.int64), b.view(np.int64))[:2]
    assert bits == queue
    full = circulant_score(n, gens)
    if full is None:  # found disconnected, unless the cap came first
        assert bits[0] in (-1, cap + 1)
    elif full[0] <= cap:
        assert (bits[0], n * bits[1] // 2) == full
    else:
        assert bits[0] == cap + 1


def test_same_seed_same_graph():
    for n, d in ((500, 6), (1000, 9), (96, 3)):
        a, b = find_circulant(n, d, seed=7), find_circulant(n, d, seed=7)
        assert a == b
        assert circulant_graph(n, d, 4, seed=7) == circulant_graph(n, d, 4, seed=7)
    seeds = {find_circulant(2000, 8, seed=s).generators for s in range(4)}
    assert len(seeds) > 1  # the seed matters


@pytest.mark.parametrize("n,d", [(200, 6), (256, 8), (1000, 8), (99, 4), (1800, 7)])
def test_search_beats_random_generator_sets(n, d):
    found = find_circulant(n, d, seed=0)
    k, half = circulant_shape(n, d)
    rng = np.random.default_rng(n * 100 + d)
    scores = []
    while len(scores) < 20:
        gens = list(rng.choice(np.arange(1, (n - 1) // 2 + 1), k, replace=False))
        score = circulant_score(n, gens + ([n // 2] if half else []))
        if score is not None:
            scores.append(score)
    assert (found.diameter, found.total) <= min(scores)


@pytest.mark.parametrize("n,d", [(60, 4), (64, 8)])
def test_search_finds_the_best_circulant_of_small_cases(n, d):
    k, half = circulant_shape(n, d)
    extra = [n // 2] if half else []
    best = min(s for s in (circulant_score(n, list(c) + extra)
                           for c in itertools.combinations(range(1, (n - 1) // 2 + 1), k)) if s)
    found = find_circulant(n, d, seed=0)
    assert (found.diameter, found.total) == best


def test_edge_cases():
    k7 = circulant_graph(7, 9)  # d >= n - 1: the complete graph
    assert k7.num_edges == 21 and golf.evaluate(k7).diameter == 1
    assert circulant_graph(8, 7, 2).num_edges == 28
    assert circulant_graph(2, 1, 2).num_edges == 1
    assert circulant_graph(1, 3).num_edges == 0
    cycle = find_circulant(10, 2, seed=3)  # d = 2: the cycle
    assert cycle.generators == (1,) and cycle.diameter == 5
    odd = circulant_graph(15, 5)  # n and d odd: every degree d - 1
    assert (odd.degrees() == 4).all()
    assert (circulant_graph(16, 5).degrees() == 5).all()  # n even: n/2 is a generator
    for args, msg in (((10, 1), "no connected graph"), ((9, 1), "no connected graph"),
                      ((5, 0), "no connected graph"), ((10, 3, 4), "divisor of n=10")):
        with pytest.raises(GolfError, match=msg):
            circulant_graph(*args)
    with pytest.raises(GolfError, match="disconnected"):
        circulant_graph(12, 4, generators=[2, 4])
    with pytest.raises(GolfError, match="degree 6 does not fit d=4"):
        circulant_graph(12, 4, generators=[1, 2, 5])
    with pytest.raises(GolfError, match="multiple of n"):
        circulant_graph(12, 4, generators=[12, 1])
    assert circulant_graph(12, 3, generators=[11, 6]) == circulant_graph(12, 3,
                                                                         generators=[1, 6])


# -- problem.start --------------------------------------------------------------------------
BASE = "name: t\nproblem:\n  n: 64\n  d: 4\n  g: 4\n  start: {}\nsearch: {{steps: 10}}\n"


def test_config_start_values(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "c.yaml"
    for value in ("circulant", "random", "null"):
        path.write_text(BASE.format(value))
        (run,) = load_config(path)
        assert run.data["problem"]["start"] == (None if value == "null" else value)
    for value, msg in (("missing.edges", "no such edge-list file 'missing.edges'"),
                       ("circulent", "no such edge-list file 'circulent' .expected random, "
                                     "circulant, algebraic or an edge-list file"),
                       ("./circulant", "no such edge-list file './circulant'"),
                       ("3", "expected random, circulant, algebraic or an edge-list file")):
        path.write_text(BASE.format(value))
        with pytest.raises(GolfError, match=r"c\.yaml:6: problem\.start: " + msg):
            load_config(path)
    Path("circulant").write_text("0 1\n")  # a file so named is ./circulant
    path.write_text(BASE.format("./circulant"))
    assert load_config(path)[0].data["problem"]["start"] == "./circulant"


def test_search_from_a_circulant_start(capsys):
    r = golf.search(64, 4, g=4, steps=2000, start="circulant", progress=True, seed=2)
    found = find_circulant(64, 4, seed=2)
    assert (r.summary["start"]["diameter"], r.summary["start"]["total"]) == (
        found.diameter, found.total)
    best = r.summary["best"]
    assert (best["diameter"], best["total"]) <= (found.diameter, found.total)
    out = capsys.readouterr().out
    assert f"start graph: circulant {found.label()} (seed 2): diameter {found.diameter}" in out


def test_search_from_a_file_named_circulant(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    start = golf.random_graph(64, 4, g=4, seed=9)
    golf.write_edges("circulant", start)
    r = golf.search(64, 4, g=4, steps=100, start="./circulant", progress=False)
    assert r.summary["start"]["total"] == golf.evaluate(start).total
    with pytest.raises(GolfError, match="no such edge-list file 'nope.edges'"):
        golf.search(64, 4, g=4, steps=100, start="nope.edges", progress=False)


def test_auto_temperatures_from_a_circulant_start_are_sampled_after_a_descent():
    """Nearly every swap of a good circulant graph lowers its total, so its own samples hold
    no uphill move; the temperatures then come from a hill-climbed copy, not a fixed guess."""
    from golf.engine.annealer import Annealer
    from golf.evaluators import make_evaluator

    graph = find_circulant(256, 8, seed=1).graph(4, 8)
    ann = Annealer(graph, make_evaluator("bitset", 256, 8, 4, threads=1), seed=1)
    before = ann.graph.adj.copy()
    t0, t1, how = ann.auto_temperatures(200)
    assert "no uphill move in 200 samples from the start; after 4000 hill-climbing" in how
    assert t0 > 1.0 and 0 < t1 < t0 and "uphill at equal diameter" in how
    assert np.array_equal(ann.graph.adj, before)  # the chain's own graph is untouched
