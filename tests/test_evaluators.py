"""The CPU backends' own code paths (thread modes, chunk widths, sparse and dense levels)
against the SciPy reference on many random graphs; ``auto``'s choice; the changed-slot scan.
What every backend must do is in test_backends.py."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from golf.evaluators import EXCEEDED, check_options, make_evaluator
from golf.starts.random import random_graph
from golf.graph import Graph

from naive import apsp_score, symmetric_edges

# (backend, options): threads and chunking variants that take different code paths
VARIANTS = [
    ("bfs", {"threads": 1}),
    ("bfs", {"threads": 2}),
    ("bitset", {"threads": 1}),
    ("bitset", {"threads": 2}),
    ("bitset", {"threads": 1, "chunk_words": 1}),
    ("bitset", {"threads": 2, "chunk_words": 1}),
    ("bitset", {"threads": 2, "chunk_words": 2}),
]


def scores(graph, max_level=0):
    """{variant: (diameter, total, peripheral, status)} for the reference and every variant."""
    out = {}
    ref = make_evaluator("reference", graph.n, graph.d, graph.g).evaluate(graph)
    out["reference"] = (ref.diameter, ref.total, ref.peripheral, ref.status)
    for name, opts in VARIANTS:
        s = make_evaluator(name, graph.n, graph.d, graph.g, **opts).evaluate(graph, max_level)
        out[(name, tuple(sorted(opts.items())))] = (s.diameter, s.total, s.peripheral, s.status)
    return out


def assert_all_agree(graph):
    got = scores(graph)
    assert len(set(got.values())) == 1, got
    return got["reference"]


# -- random graphs: every thread and chunk variant -------------------------------------------
@given(seed=st.integers(0, 2**32 - 1), data=st.data())
def test_random_regular_symmetric_graphs(seed, data):
    g = data.draw(st.sampled_from([1, 2, 3, 4, 5, 6, 8]))
    m = data.draw(st.integers(3 if g == 1 else 2, 60))
    n = m * g
    d = data.draw(st.integers(2, min(9, n - 1)))
    graph = random_graph(n, d, g, seed)
    d_, total, per, status = assert_all_agree(graph)
    assert status == 0
    assert (d_, total, per) == apsp_score(n, graph.edges())


@given(seed=st.integers(0, 2**32 - 1), m=st.integers(1, 70), g=st.sampled_from([1, 2, 3, 4]),
       orbits=st.integers(1, 90), halves=st.integers(0, 3))
def test_random_nonregular_graphs(seed, m, g, orbits, halves):
    """Non-regular, often disconnected, with ``v -- v+n/2`` orbits where g is even."""
    n = m * g
    edges = symmetric_edges(n, g, orbits, np.random.default_rng(seed), half_orbits=halves)
    if len(edges):
        assert_all_agree(Graph.from_edges(edges, n=n, g=g))


# -- chunk boundaries -----------------------------------------------------------------------
@pytest.mark.parametrize("m", [63, 64, 65, 127, 128, 129, 200])
@pytest.mark.parametrize("g", [1, 2, 3])
def test_chunk_boundaries(m, g):
    n = m * g
    graph = random_graph(n, 4, g, seed=m + g)
    want = apsp_score(n, graph.edges())
    words = (m + 63) // 64
    results = set()
    for cw in sorted({1, 2, 3, words}):
        for threads in (1, 2):
            s = make_evaluator("bitset", n, 4, g, threads=threads, chunk_words=cw).evaluate(graph)
            results.add((s.diameter, s.total, s.peripheral))
    for threads in (1, 2):
        s = make_evaluator("bfs", n, 4, g, threads=threads).evaluate(graph)
        results.add((s.diameter, s.total, s.peripheral))
    assert results == {want}


def test_row_parallel_mode_matches():
    """Each level's rows shared between threads (auto picks it for big levels only)."""
    graph = random_graph(4096, 5, 64, seed=3)
    ev = make_evaluator("bitset", 4096, 5, 64, threads=2, thread_mode="rows")
    assert ev.mode == "rows"
    assert make_evaluator("bitset", 1_000_000, 32, 25_000, threads=2).mode == "rows"
    ref = make_evaluator("reference", 4096, 5, 64).evaluate(graph)
    assert ev.evaluate(graph) == ref
    assert make_evaluator("bfs", 4096, 5, 64, threads=2).evaluate(graph) == ref


# -- early stop ("max_level") and reuse -----------------------------------------------------
def test_max_level_stops_early_and_agrees_otherwise():
    graph = random_graph(300, 3, 3, seed=1)
    ref = make_evaluator("reference", 300, 3, 3).evaluate(graph)
    for name, opts in VARIANTS:
        ev = make_evaluator(name, 300, 3, 3, **opts)
        s = ev.evaluate(graph, max_level=ref.diameter - 1)
        assert s.status == EXCEEDED and s.diameter is None, (name, opts)
        assert ev.evaluate(graph, max_level=ref.diameter) == ref, (name, opts)


def test_wrong_shape_is_an_error():
    from golf.errors import GolfError

    ev = make_evaluator("bitset", 100, 4, 2)
    with pytest.raises(GolfError, match="built for n=100"):
        ev.evaluate(random_graph(100, 4, 4, 0))
    with pytest.raises(GolfError, match="unknown backend"):
        make_evaluator("nope", 10, 3)
    with pytest.raises(GolfError, match="backend 'bfs' has no option 'chunk_words'; its "
                       "options: threads"):
        make_evaluator("bfs", 10, 3, chunk_words=3)
    with pytest.raises(GolfError, match="chunk_words: expected an integer >= 1"):
        make_evaluator("bitset", 10, 3, chunk_words=0)
    with pytest.raises(GolfError, match="thread_mode: expected serial"):
        make_evaluator("bitset", 10, 3, thread_mode=True)
    with pytest.raises(GolfError, match="piece: expected 1, 2, 4 or 8"):  # True == 1
        check_options("gpu-bitset", {"piece": True})
    # auto leaves out the options of the backends it did not choose, and says so
    ev = make_evaluator("auto", 64, 4, 2, threads=1, block=3)
    assert ev.name == "bitset" and ev.dropped_options == ["block"] and "bitset" in ev.auto_reason


def test_auto_picks_bfs_for_long_thin_graphs():
    from golf.evaluators import choose_backend

    assert choose_backend(20000, 2)[0] == "bfs"
    name, why = choose_backend(4096, 8, 1)
    assert name == "bitset" and "64" in why
    cycle = Graph.from_edges([(i, (i + 1) % 3000) for i in range(3000)], n=3000)
    got = {make_evaluator(b, 3000, 2).evaluate(cycle) for b in ("bfs", "bitset", "auto")}
    assert len(got) == 1 and next(iter(got)).diameter == 1500


def test_auto_under_mpi_weighs_the_work_units():
    from golf.evaluators import choose_backend

    # 40 sources = one column word: with 40 ranks BFS (40 units) shares out, bitset cannot
    assert choose_backend(1_000_000, 32, 25_000, 1, ranks=40)[0] == "bfs"
    assert choose_backend(1_000_000, 32, 25_000, 1, ranks=2)[0] == "bitset"
    name, why = choose_backend(65536, 6, 1, 1, ranks=64)
    assert name == "bitset" and "16 per rank" in why


def test_chunk_width_rule():
    from golf.evaluators.bitset import choose_chunk_words

    l3 = 32 << 20
    assert choose_chunk_words(4096, 64, 1, l3_bytes=l3) == 16           # fits: widest
    assert choose_chunk_words(65536, 1024, 2, l3_bytes=l3) == 4         # 4 words fit in L3
    assert choose_chunk_words(65536, 1024, 1, l3_bytes=l3) == 8         # 8 words fit
    assert choose_chunk_words(1000000, 15625, 1, l3_bytes=l3) == 8      # never fits: full lines
    assert choose_chunk_words(10000, 3, 2, l3_bytes=l3) == 2            # a chunk per worker
    assert choose_chunk_words(1000000, 15625, 1, memory_bytes=64 << 20, l3_bytes=l3) == 4
    assert choose_chunk_words(65536, 1, 2, l3_bytes=l3) == 1            # no wider than words


@given(st.integers(0, 20_000), st.lists(st.integers(0, 10**9), max_size=80), st.integers(1, 3))
def test_changed_slots_finds_every_difference_in_order(size, picks, cols):
    """The GPU backends find a swap's changed slots with this scan (blocks of 4096, all
    threads from 2**20 elements on); against numpy's answer, with and without overflow."""
    from golf.kernels.changes import changed_slots

    rng = np.random.default_rng(size)
    old = rng.integers(-1, 50, size * cols, dtype=np.int32).reshape(-1, cols)
    new = old.copy()
    if size:
        new.reshape(-1)[[p % (size * cols) for p in picks]] += 1
    want = np.flatnonzero(new != old)
    for cap in (4, 64):
        out = np.zeros(cap, dtype=np.int64)
        count = changed_slots(new, old, out)
        assert count == len(want)
        assert (out[:min(cap, count)] == want[:cap]).all()


def test_changed_slots_on_big_arrays():
    from golf.kernels.changes import changed_slots

    old = np.zeros((1 << 19, 3), dtype=np.int32)
    new = old.copy()
    at = [0, 4095, 4096, 777_777, (1 << 19) * 3 - 1]
    new.reshape(-1)[at] = 7
    out = np.zeros(8, dtype=np.int64)
    assert changed_slots(new, old, out) == 5 and list(out[:5]) == at
    assert changed_slots(old, old, out) == 0
