"""Symmetry under a metacyclic group Z_a ⋊_r Z_b: the group arithmetic against a plain
implementation of the semidirect product, every CPU backend against networkx on random lifts
(regular and not, connected and not), moves that keep the group symmetry and undo exactly,
searches and configs that use it."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import golf
from golf.engine.annealer import SC, Annealer
from golf.errors import GolfError
from golf.evaluators import make_evaluator
from golf.evaluators.base import DISCONNECTED
from golf.starts.random import random_group_graph
from golf.graph import Graph
from golf.group import Group, parse_group
from golf.kernels.rng import rng_seed
from golf.kernels.symmetry import act, act_inv, group_scratch, twist_rows
from golf.engine.moves import new_undo, propose_move, propose_near, propose_swap, propose_voltage
from golf.engine.moves import undo_swap
from golf.run import run_config
from golf.engine.tabu import TabuSearch

from naive import apsp_score, lift_edges, product, random_lift

# (a, b, r) with r^b = 1 mod a: non-abelian, dihedral, abelian, odd orders
GROUPS = [(8, 2, 3), (8, 2, 7), (8, 4, 3), (16, 4, 3), (5, 4, 2), (7, 3, 2), (9, 3, 4),
          (4, 4, 1), (16, 8, 3)]


@pytest.mark.parametrize("a,b,r", GROUPS)
def test_group_arithmetic_matches_the_semidirect_product(a, b, r):
    grp = Group(a, b, r)
    g = a * b
    ks = np.arange(g)
    for k in range(g):
        want = [product(a, b, r, k, h) for h in range(g)]
        assert grp.mul(k, ks).tolist() == want
        assert product(a, b, r, k, int(grp.inv(k))) == 0
        assert product(a, b, r, int(grp.inv(k)), k) == 0
    # associativity of the plain product (the group axioms hold for these r)
    rng = np.random.default_rng(a * b)
    for k, h, l in rng.integers(0, g, (200, 3)).tolist():
        assert product(a, b, r, product(a, b, r, k, h), l) == product(a, b, r, k,
                                                                       product(a, b, r, h, l))


@pytest.mark.parametrize("a,b,r", GROUPS)
def test_compiled_action_matches_the_group(a, b, r):
    grp = Group(a, b, r)
    m, g = 3, a * b
    n = m * g
    kern = grp.kernel(m)
    for w in range(0, n, 5):
        for k in range(g):
            assert act(w, k * m, n, kern) == grp.act(w, k, m)
            assert act_inv(w, k * m, n, kern) == grp.act(w, grp.inv(k), m)
    # the cyclic case: None
    assert act(5, 6, 9, None) == 2 and act_inv(2, 6, 9, None) == 5


@given(st.sampled_from(GROUPS), st.integers(1, 4), st.integers(0, 10**6))
@settings(max_examples=30, deadline=None)
def test_twisted_rows_rotated_are_every_vertex_neighbours(grp_abr, m, seed):
    """Vertex (x*b + t)*m + i has the neighbours of twisted row t*m + i rotated by x*b*m:
    the layout the cyclic kernels read."""
    a, b, r = grp_abr
    grp = Group(a, b, r)
    rng = np.random.default_rng(seed)
    edges = random_lift(rng, a, b, r, m, int(rng.integers(1, 3 * m + 1)))
    graph = Graph.from_edges(edges, n=m * a * b, g=a * b, group=grp)
    rows = twist_rows(graph.adj, group_scratch(grp, graph.n, m, graph.d))
    assert rows.shape == (b * m, graph.d)
    for v in range(graph.n):
        x, rest = divmod(v, b * m)
        row = rows[rest]
        got = (row[row >= 0].astype(np.int64) + x * b * m) % graph.n
        assert sorted(got.tolist()) == graph.neighbors(v).tolist()


def test_parse_group_rules():
    assert parse_group(None, 8) is None and parse_group("cyclic", 8) is None
    assert parse_group([8, 1], 8) is None  # b = 1: Z_8 itself
    assert parse_group([8, 3], 16) == Group(8, 2, 3)
    with pytest.raises(GolfError, match="a=6 must divide g=16"):
        parse_group([6, 1], 16)
    with pytest.raises(GolfError, match=r"r=5 does not give a group .* r\^2 mod 16 = 9"):
        parse_group([16, 5], 32)
    with pytest.raises(GolfError, match="unit mod a"):
        parse_group([8, 2], 16)
    with pytest.raises(GolfError, match=r"\[a, r\]"):
        parse_group([8], 16)


def _backends(grp, n, d, g):
    """The CPU backends, and their thread modes."""
    return {"bfs": make_evaluator("bfs", n, d, g, symmetry=grp, threads=1),
            "bfs-2threads": make_evaluator("bfs", n, d, g, symmetry=grp, threads=2),
            "bitset": make_evaluator("bitset", n, d, g, symmetry=grp, threads=1),
            "bitset-rows": make_evaluator("bitset", n, d, g, symmetry=grp, threads=2,
                                          thread_mode="rows"),
            "bitset-chunks": make_evaluator("bitset", n, d, g, symmetry=grp, threads=2,
                                            chunk_words=1, thread_mode="chunks"),
            "reference": make_evaluator("reference", n, d, g, symmetry=grp)}


@given(st.sampled_from(GROUPS), st.integers(1, 6), st.integers(0, 10**6))
@settings(max_examples=40, deadline=None)
def test_every_backend_agrees_with_networkx_on_random_lifts(grp_abr, m, seed):
    a, b, r = grp_abr
    grp = Group(a, b, r)
    g = a * b
    n = m * g
    rng = np.random.default_rng(seed)
    edges = random_lift(rng, a, b, r, m, int(rng.integers(1, 4 * m + 1)))
    graph = Graph.from_edges(edges, n=n, g=g, group=grp)
    graph.check()
    want = apsp_score(n, edges)
    for name, ev in _backends(grp, n, graph.d, g).items():
        s = ev.evaluate(graph)
        if want is None:
            assert s.status == DISCONNECTED, name
        else:
            assert (s.diameter, s.total, s.peripheral) == want, name
        # and one evaluate_many call with the same graph twice
        rows = ev.evaluate_many(np.stack([graph.adj, graph.adj]))
        assert (rows[0] == rows[1]).all()
        assert ev.finish(rows[0]) == s, name


def test_the_record_lift_of_1024_8_scores_its_total():
    """A (1024, 8) lift over Z_32 ⋊_3 Z_16 with m = 2 (8 orbits): every backend gives the same
    score as SciPy on its full edge list."""
    orbits = [(0, 1, 324), (0, 0, 298), (1, 1, 495), (1, 1, 500), (1, 1, 98), (1, 0, 468),
              (0, 0, 51), (0, 0, 124)]
    edges = lift_edges(32, 16, 3, 2, orbits)
    grp = Group(32, 16, 3)
    graph = Graph.from_edges(edges, n=1024, g=512, group=grp)
    assert graph.max_degree == 8 and (graph.degrees() == 8).all()
    plain = make_evaluator("reference", 1024, 8, 1).evaluate(Graph.from_edges(edges, n=1024))
    for name in ("bfs", "bitset", "reference"):
        s = make_evaluator(name, 1024, 8, 512, symmetry=grp).evaluate(graph)
        assert (s.diameter, s.total) == (plain.diameter, plain.total) == (5, 1832960)


def test_from_edges_names_the_missing_moved_edge():
    grp = Group(8, 2, 3)
    edges = lift_edges(8, 2, 3, 2, [(0, 1, 5), (0, 0, 3), (1, 1, 9)])
    with pytest.raises(GolfError, match=r"edge #\d+: graph is not Z_8 ⋊_3 Z_2-symmetric"):
        Graph.from_edges(edges[1:], n=32, g=16, group=grp)
    with pytest.raises(GolfError, match="has order 16, not g=8"):
        Graph.from_edges(edges, n=32, g=8, group=grp)
    # a cyclic graph is not, in general, symmetric under the group
    cyc = golf.random_graph(32, 3, g=16, seed=1)
    with pytest.raises(GolfError, match="symmetric"):
        Graph.from_edges(cyc.edges(), n=32, g=16, group=grp)


def test_check_finds_a_missing_reverse_slot():
    grp = Group(8, 2, 3)
    graph = random_group_graph(32, 4, grp, seed=3)
    graph.check()
    bad = graph.copy()
    bad.adj[0, 0] = next(v for v in range(1, 32) if v not in graph.adj[0])
    with pytest.raises(GolfError, match="lacks its reverse"):
        bad.check()


@pytest.mark.parametrize("a,b,r,m,d", [(8, 2, 3, 2, 4), (16, 8, 3, 2, 8), (5, 4, 2, 3, 3),
                                       (8, 4, 3, 1, 5), (7, 3, 2, 2, 3), (4, 4, 1, 3, 6)])
def test_random_group_graph_is_connected_simple_and_symmetric(a, b, r, m, d):
    grp = Group(a, b, r)
    n = m * a * b
    graph = random_group_graph(n, d, grp, seed=7)
    graph.check()
    assert Graph.from_edges(graph.edges(), n=n, g=a * b, d=d, group=grp) == graph
    assert apsp_score(n, graph.edges()) is not None
    degs = graph.degrees()
    assert degs.max() == d and degs.min() >= d - 1
    # the same seed, the same graph
    assert np.array_equal(random_group_graph(n, d, grp, seed=7).adj, graph.adj)


MOVES = {
    "swap": lambda adj, n, g, s, u, k: propose_swap(adj, n, g, s, u, None, 64, k),
    "voltage": lambda adj, n, g, s, u, k: propose_voltage(adj, n, g, s, u, None, 64, k),
    "near": lambda adj, n, g, s, u, k: propose_near(adj, n, s, u, None, 64, k),
    "all": lambda adj, n, g, s, u, k: propose_move(adj, n, g, s, u, 300, None, 500, k),
}


@pytest.mark.parametrize("kind", MOVES)
@pytest.mark.parametrize("a,b,r,m,d", [(8, 2, 3, 2, 4), (8, 4, 3, 2, 5), (5, 4, 2, 3, 3),
                                       (8, 2, 7, 1, 3), (16, 8, 3, 2, 8)])
def test_moves_keep_the_group_symmetry_and_undo_exactly(kind, a, b, r, m, d):
    grp = Group(a, b, r)
    g = a * b
    n = m * g
    graph = random_group_graph(n, d, grp, seed=n + d)
    kern = grp.kernel(m)
    degrees = graph.degrees().copy()
    st_ = rng_seed(n * 7 + d)
    undo = new_undo()
    applied = 0
    for step in range(600):
        before = graph.adj.copy()
        if not MOVES[kind](graph.adj, n, g, st_, undo, kern):
            continue
        applied += 1
        graph.check()
        assert (graph.degrees() == degrees).all()
        assert Graph.from_edges(graph.edges(), n=n, g=g, d=d, group=grp) == graph
        if step % 3 == 0:
            undo_swap(graph.adj, undo)
            assert np.array_equal(graph.adj, before)
    assert applied > 150


def test_swaps_split_and_merge_involution_orbits():
    """With an odd slot count an orbit i -- h*m + i (h an involution) takes one slot; swaps
    must keep such graphs valid while they merge two involution orbits into an ordinary one
    and split an ordinary one into two (m = 1, d = 3: one or three involution slots)."""
    grp = Group(8, 2, 3)
    graph = random_group_graph(16, 3, grp, seed=2)
    kern = grp.kernel(1)
    st_ = rng_seed(5)
    undo = new_undo()
    counts = set()
    for _ in range(2000):
        if propose_move(graph.adj, 16, 16, st_, undo, 300, None, 0, kern):
            graph.check()
            assert Graph.from_edges(graph.edges(), n=16, g=16, d=3, group=grp) == graph
            row = graph.adj[0].astype(np.int64)
            counts.add(int((grp.inv(row) == row).sum()))  # m = 1: the value is the element
    assert counts == {1, 3}


def test_annealer_is_the_same_chain_on_every_cpu_backend():
    grp = Group(16, 4, 3)
    graph = random_group_graph(128, 6, grp, seed=1)
    out = {}
    for name in ("bfs", "bitset", "reference"):
        ev = make_evaluator(name, 128, 6, 64, symmetry=grp)
        ann = Annealer(graph, ev, steps=1500, seed=4, voltage_moves=0.3, near_moves=0.5)
        ann.set_temperatures(5.0, 0.5)
        ann.run(1500)
        best = ann.best_graph()
        assert best.group == grp
        best.check()
        out[name] = (best.adj.tobytes(), int(ann.sc[SC.BEST_TOTAL]))
        want = apsp_score(128, best.edges())
        assert want[:2] == (ann.sc[SC.BEST_D], ann.sc[SC.BEST_TOTAL])
    assert len(set(out.values())) == 1
    assert out["bitset"][1] < make_evaluator("bitset", 128, 6, 64,
                                             symmetry=grp).evaluate(graph).total


def test_annealer_refuses_an_evaluator_of_another_group():
    grp = Group(8, 2, 3)
    graph = random_group_graph(32, 4, grp, seed=1)
    with pytest.raises(GolfError, match="symmetry group"):
        Annealer(graph, make_evaluator("bitset", 32, 4, 16), steps=10)


def test_tabu_search_keeps_the_group():
    grp = Group(8, 2, 3)
    graph = random_group_graph(32, 4, grp, seed=1)
    ev = make_evaluator("bitset", 32, 4, 16, symmetry=grp, threads=1)
    start = ev.evaluate(graph).total
    tabu = TabuSearch(graph, ev, steps=20, neighbourhood=64, tenure=4, seed=1)
    tabu.run(20)
    best = tabu.best_graph()
    best.check()
    assert Graph.from_edges(best.edges(), n=32, g=16, d=4, group=grp) == best
    assert apsp_score(32, best.edges())[1] == tabu.sc[SC.BEST_TOTAL] < start


def test_search_api_with_a_group():
    r = golf.search(64, 4, g=16, group=[8, 3], steps=3000, seed=1, progress=False)
    edges = r.graph.edges()
    assert r.graph.group == Group(8, 2, 3)
    Graph.from_edges(edges, n=64, g=16, d=4, group=Group(8, 2, 3))
    assert apsp_score(64, edges)[1] == r.score.total
    g = golf.random_graph(64, 4, g=16, seed=2, group=[8, 3])
    assert g.group == Group(8, 2, 3) and golf.evaluate(g).total == apsp_score(64, g.edges())[1]


def _cfg(folder, search="", problem="group: [8, 3]", steps=3000):
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / "r.yaml"
    p.write_text(f"""name: r
problem: {{n: 64, d: 4, g: 16, {problem}}}
search: {{steps: {steps}, seed: 3{search}}}
evaluator: {{backend: bitset, threads: 1}}
output: {{dir: {folder / 'out'}, checkpoint_every: 0.05, trace_every: 200, plot: false}}
""")
    return p, folder / "out" / "r"


@pytest.mark.parametrize("problem,match", [
    ("group: [6, 1]", "a=6 must divide g=16"),
    ("group: [8, 2]", "unit mod a"),
    ("group: [8]", r"expected 'cyclic' or \[a, r\]"),
    ("group: [8, 3], start: circulant", "circulant starts are cyclic"),
])
def test_config_refuses_a_bad_group(tmp_path, problem, match):
    p, _ = _cfg(tmp_path, problem=problem)
    with pytest.raises(GolfError, match=match):
        run_config(p, quiet=True)


@pytest.mark.parametrize("search", ["", ", batch: 3, population: tempering",
                                    ", polish: 0.5, neighbourhood: 16",
                                    ", polish: 0.5, polish_g: 1, neighbourhood: 16"])
def test_run_with_a_group_writes_a_symmetric_best_graph_and_resumes(tmp_path, search):
    from golf.io import read_edges
    from golf.run import resume_run

    p, rd = _cfg(tmp_path / "a", search=search)
    want = run_config(p, quiet=True)[0]
    e = read_edges(rd / "best.edges").edges
    assert list(apsp_score(64, e)[:2]) == [want["best"]["diameter"], want["best"]["total"]]
    if "polish_g" not in search:  # the polish at g = 1 may leave any graph
        Graph.from_edges(e, n=64, g=16, d=4, group=Group(8, 2, 3))
    assert "group Z_8 ⋊_3 Z_2" in (rd / "log.txt").read_text()
    # a resume from the last checkpoint but one ends where the run ended
    (rd / "summary.json").unlink()
    (rd / "checkpoint.npz").unlink()
    (rd / "checkpoint.prev.npz").rename(rd / "checkpoint.npz")
    got = resume_run(rd, quiet=True)
    assert got["best"] == want["best"] and got["steps"] == want["steps"]


@pytest.mark.slow
def test_cli_random_and_eval_with_a_group(tmp_path):
    import json

    from conftest import run_golf

    f = tmp_path / "r.edges"
    run_golf("random", 64, 4, "--g", 16, "--group", "8,3", "--seed", 2, "-o", f, check=True)
    edges = golf.read_edges(f).edges
    Graph.from_edges(edges, n=64, g=16, group=Group(8, 2, 3))
    grp = json.loads(run_golf("eval", f, "--g", 16, "--group", "8,3", "--json",
                              check=True).stdout)
    plain = json.loads(run_golf("eval", f, "--json", check=True).stdout)
    assert (grp["diameter"], grp["total"]) == (plain["diameter"], plain["total"])
    assert (plain["diameter"], plain["total"]) == apsp_score(64, edges)[:2]
    bad = run_golf("eval", f, "--g", 16, "--group", "8,2")
    assert bad.returncode != 0 and "--group: r=2 must be a unit mod a=8" in bad.stderr
    bad = run_golf("eval", f, "--g", 16)  # the cyclic group does not hold
    assert bad.returncode != 0 and "is not 16-symmetric" in bad.stderr
