"""The centre-vertex form (golf.graph): n = g*m + c, the last c vertices fixed by the group and
adjacent to whole orbits. Every CPU backend against networkx on random graphs of that form
(cyclic and metacyclic, regular and not, connected and not), the numbering, the checks, moves
that leave the centres' orbits alone and undo exactly, the searches, configs and trials."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import golf
from golf.config import validate
from golf.engine.annealer import SC, Annealer
from golf.engine.moves import new_undo, propose_move, undo_swap
from golf.engine.tabu import TabuSearch
from golf.errors import GolfError
from golf.evaluators import choose_backend, make_evaluator
from golf.evaluators.base import DISCONNECTED, EXCEEDED
from golf.graph import Graph
from golf.group import Group
from golf.kernels.rng import rng_seed
from golf.kernels.symmetry import expand_rows, group_scratch
from golf.run import run_config
from golf.problems import problem_of
from golf.problems.order_degree import centre_forms
from golf.starts.random import random_group_graph

from naive import apsp_score, centre_lift

GROUPS = [None, (4, 2, 3), (3, 2, 2), (5, 4, 2), (8, 2, 7)]


def _backends(n, d, g, c, grp):
    kw = dict(symmetry=grp, centres=c)
    return {"bfs": make_evaluator("bfs", n, d, g, threads=1, **kw),
            "bfs-2threads": make_evaluator("bfs", n, d, g, threads=2, **kw),
            "bitset": make_evaluator("bitset", n, d, g, threads=1, **kw),
            "bitset-rows": make_evaluator("bitset", n, d, g, threads=2, thread_mode="rows",
                                          **kw),
            "bitset-chunks": make_evaluator("bitset", n, d, g, threads=2, chunk_words=1,
                                            thread_mode="chunks", **kw),
            "reference": make_evaluator("reference", n, d, g, **kw)}


def _lift(seed, cyclic_g, grp_abr, m, c):
    rng = np.random.default_rng(seed)
    g = cyclic_g if grp_abr is None else grp_abr[0] * grp_abr[1]
    grp = None if grp_abr is None else Group(*grp_abr)
    edges = centre_lift(rng, g, m, c, int(rng.integers(1, 3 * m + 1)),
                        int(rng.integers(1, 2 * c + 1)), grp_abr)
    return g, grp, edges


@given(st.sampled_from(GROUPS), st.integers(2, 7), st.integers(1, 6), st.integers(1, 3),
       st.integers(0, 10**6))
@settings(max_examples=60, deadline=None)
def test_every_backend_agrees_with_networkx_on_random_centre_forms(grp_abr, cyclic_g, m, c,
                                                                  seed):
    g, grp, edges = _lift(seed, cyclic_g, grp_abr, m, c)
    n = g * m + c
    graph = Graph.from_edges(edges, n=n, g=g, group=grp, centres=c)
    graph.check()
    assert sorted(map(tuple, graph.edges().tolist())) == edges
    assert graph.num_edges == len(edges)
    degrees = np.bincount(np.array(edges).ravel(), minlength=n)
    assert graph.degrees().tolist() == degrees.tolist()
    for v in range(n):
        want = sorted({b for a, b in edges if a == v} | {a for a, b in edges if b == v})
        assert graph.neighbors(v).tolist() == want
    want = apsp_score(n, edges)
    for name, ev in _backends(n, graph.d, g, c, grp).items():
        s = ev.evaluate(graph)
        if want is None:
            assert s.status == DISCONNECTED, name
        else:
            assert (s.diameter, s.total, s.peripheral) == want, name
            if want[0] > 1:  # stopped a level below the diameter
                assert ev.evaluate(graph, max_level=want[0] - 1).status == EXCEEDED, name
        rows = ev.evaluate_many(np.stack([graph.adj, graph.adj]))
        assert (rows[0] == rows[1]).all() and ev.finish(rows[0]) == s, name
        # the work units split anywhere (as MPI ranks split them) give the same score
        if ev.units > 1:
            from golf.evaluators.base import combine

            cut = ev.units // 2
            parts = [ev.partial(graph, 0, cut), ev.partial(graph, cut, ev.units)]
            assert ev.finish(combine(parts)) == s, name


def test_expanded_rows_are_the_graph_renumbered():
    """expand_rows: base vertices keep their ids, centres take ``at ..``, the others the ids
    left; row v is v's neighbours in that numbering."""
    grp = Group(4, 2, 3)
    graph = random_group_graph(8 * 5 + 2, 9, grp, seed=3, centres=2)
    n, m, c = graph.n, graph.m, 2
    for at in (m, m + 3, n - c):
        rows = expand_rows(graph.adj, group_scratch(grp, n, m, graph.d, c), n, at)
        new = np.array([v if v < at else v + c for v in range(n - c)] + [at, at + 1])
        assert sorted(new.tolist()) == list(range(n))
        for v in range(n):
            row = rows[new[v]]
            assert sorted(row[row >= 0].tolist()) == sorted(new[graph.neighbors(v)].tolist())


def test_bad_centre_forms_are_refused():
    with pytest.raises(GolfError, match="joins two centres"):
        Graph.from_edges([(0, 1), (1, 2), (2, 3), (3, 0), (4, 5)], n=6, g=2, centres=2)
    with pytest.raises(GolfError, match="has no rotated copy"):
        Graph.from_edges([(0, 1), (1, 2), (2, 3), (3, 0), (0, 4)], n=5, g=2, centres=1)
    with pytest.raises(GolfError, match="divisor of n - centres = 9"):
        Graph(10, 3, 2, np.full((4, 3), -1), centres=1)
    with pytest.raises(GolfError, match="g >= 2"):
        Graph(10, 3, 1, np.full((9, 3), -1), centres=1)
    with pytest.raises(GolfError, match="auto"):
        Graph.from_edges([(0, 1)], n=3, g="auto", centres=1)
    graph = random_group_graph(41, 4, None, seed=1, centres=1, g=4)
    graph.check()
    bad = graph.copy()
    rows = [i for i in range(graph.m) if graph.n - 1 not in bad.adj[i]]
    for i in rows[:1]:  # a second orbit at the centre: degree 8 > d = 4
        j = int(np.flatnonzero(bad.adj[i] >= 0)[0])
        bad.adj[i, j] = graph.n - 1
    with pytest.raises(GolfError, match="centre 40 has degree 8 > d=4"):
        bad.check()
    with pytest.raises(GolfError, match="no centre-vertex form"):
        make_evaluator("seidel", 41, 4, 4, centres=1)
    assert choose_backend(41, 4, 4, threads=1, centres=1)[0] != "seidel"


@pytest.mark.parametrize("grp,n,d,g,c", [(None, 23, 5, 5, 3), (None, 101, 6, 5, 1),
                                         (Group(4, 2, 3), 50, 8, 8, 2),
                                         (Group(3, 2, 2), 49, 6, 6, 1)])
def test_moves_leave_the_centres_and_undo_exactly(grp, n, d, g, c):
    graph = random_group_graph(n, d, grp, seed=n, centres=c, g=g)
    kern = None if grp is None else grp.kernel(graph.m)
    degrees = graph.degrees().copy()
    at_centres = graph.adj >= graph.n_sym
    st_, undo, applied = rng_seed(n * 3 + d), new_undo(), 0
    for step in range(500):
        before = graph.adj.copy()
        if not propose_move(graph.adj, graph.n_sym, g, st_, undo, 300, None, 500, kern):
            continue
        applied += 1
        graph.check()
        assert (graph.degrees() == degrees).all()
        assert np.array_equal(graph.adj >= graph.n_sym, at_centres)
        assert (graph.adj[at_centres] == before[at_centres]).all()
        assert Graph.from_edges(graph.edges(), n=n, g=g, d=d, group=grp, centres=c) == graph
        if step % 3 == 0:
            undo_swap(graph.adj, undo)
            assert np.array_equal(graph.adj, before)
    assert applied > 150


@pytest.mark.slow
def test_annealer_and_tabu_walk_the_same_chain_on_every_cpu_backend():
    graph = random_group_graph(151, 6, None, seed=2, centres=1, g=6)
    out = {}
    for name in ("bfs", "bitset", "reference"):
        ev = make_evaluator(name, 151, 6, 6, centres=1)
        ann = Annealer(graph, ev, steps=1200, seed=4, voltage_moves=0.3, near_moves=0.5)
        ann.set_temperatures(*ann.auto_temperatures(100)[:2])
        ann.run(1200)
        best = ann.best_graph()
        best.check()
        assert best.centres == 1
        assert apsp_score(151, best.edges())[:2] == (ann.sc[SC.BEST_D], ann.sc[SC.BEST_TOTAL])
        out[name] = (best.adj.tobytes(), int(ann.sc[SC.BEST_TOTAL]))
    assert len(set(out.values())) == 1
    assert out["bfs"][1] < golf.evaluate(graph).total
    ev = make_evaluator("bitset", 151, 6, 6, centres=1, threads=1)
    tabu = TabuSearch(graph, ev, steps=15, neighbourhood=64, tenure=4, seed=1)
    tabu.run(15)
    best = tabu.best_graph()
    assert apsp_score(151, best.edges())[1] == tabu.sc[SC.BEST_TOTAL] < golf.evaluate(graph).total
    with pytest.raises(GolfError, match="centre vertices"):
        Annealer(graph, make_evaluator("bitset", 150, 6, 6), steps=10)


def test_search_api_and_random_graph_with_centres():
    r = golf.search(101, 6, g=5, centres=1, steps=2000, seed=1, progress=False)
    assert r.graph.centres == 1 and r.graph.g == 5
    assert apsp_score(101, r.graph.edges())[:2] == (r.score.diameter, r.score.total)
    graph = golf.random_graph(101, 6, g=5, centres=1, seed=3)
    assert graph.max_degree == 6 and graph.centre_degrees().tolist() == [5]
    assert golf.random_graph(101, 6, g=5, centres=1, seed=3) == graph


def _cfg(folder, problem="n: 101, d: 6, g: 5, centres: 1", steps=4000, extra=""):
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / "c.yaml"
    p.write_text(f"""name: c
problem: {{{problem}}}
search: {{steps: {steps}, seed: 3{extra}}}
evaluator: {{backend: bitset, threads: 1}}
output: {{dir: {folder / 'out'}, checkpoint_every: 0.05, trace_every: 200, plot: false}}
""")
    return p, folder / "out" / "c"


@pytest.mark.parametrize("extra", ["", ", batch: 3, population: tempering",
                                   ", polish: 0.3, neighbourhood: 32"])
def test_run_with_centres_writes_the_form_and_resumes_to_the_same_graph(tmp_path, extra):
    from golf.io import read_edges
    from golf.run import resume_run

    p, rd = _cfg(tmp_path / "a", extra=extra)
    want = run_config(p, quiet=True)[0]
    edges = read_edges(rd / "best.edges").edges
    assert apsp_score(101, edges)[:2] == (want["best"]["diameter"], want["best"]["total"])
    if "polish" not in extra:  # the polish may run at g = 1
        Graph.from_edges(edges, n=101, g=5, d=6, centres=1)  # raises if not of the form
    assert "centres=1" in (rd / "log.txt").read_text()
    # a resume from the last checkpoint but one ends where the run ended
    (rd / "summary.json").unlink()
    (rd / "checkpoint.npz").unlink()
    (rd / "checkpoint.prev.npz").rename(rd / "checkpoint.npz")
    got = resume_run(rd, quiet=True)
    assert got["best"] == want["best"] and got["steps"] == want["steps"]


@pytest.mark.parametrize("problem,match", [
    ("n: 101, d: 6, g: auto, centres: 1", "integer problem.g"),
    ("n: 101, d: 4, g: 5, centres: 1", "g must be <= d=4"),
    ("n: 101, d: 6, g: 3, centres: 1", "dividing n - centres = 100, got g=3"),
    ("n: 101, d: 6, g: 5, centres: 1, start: circulant", "no centre vertices"),
    ("n: 101, d: 6, g: 5, centres: 1, regular: true", "g dividing d"),
])
def test_config_refuses_a_bad_centre_form(tmp_path, problem, match):
    with pytest.raises(GolfError, match=match):
        validate({"name": "c", "problem": _parse(problem), "search": {"steps": 10}},
                 lambda k: "c.yaml")


def _parse(text):
    import yaml

    return yaml.safe_load("{" + text + "}")


def test_the_portfolio_tries_centres_where_no_useful_g_divides_n():
    assert centre_forms(101, 6) == [(5, 1), (3, 2)]
    assert centre_forms(1009, 7) == [(7, 1)]
    base = {"g": "auto", "group": None, "grid": None, "r": None, "start": None, "centres": 0,
            "regular": False}
    prime, _ = problem_of(dict(base, n=1009, d=7)).forms()
    assert [(f.g, f.centres) for f in prime] == [(1, 0), (7, 1)]
    # a divisor of 1024 beats every centre form
    rich, _ = problem_of(dict(base, n=1024, d=7)).forms()
    assert all(f.centres == 0 for f in rich)


@pytest.mark.slow
def test_chase_on_a_prime_order_tries_the_centre_form(tmp_path):
    from golf.io import read_edges

    r = golf.chase(101, 6, minutes=0.3, output=tmp_path, seed=1, progress=False)
    trials = r.summary["auto_g"]["trials"]
    assert "cyclic g=5 (m=20) + 1 centre" in [t["label"] for t in trials]
    trial = next(t for t in trials if t.get("centres"))
    assert trial["evaluations"] > 0 and trial["best"][0] >= 3
    edges = read_edges(tmp_path / "n101d6" / "best.edges").edges
    assert apsp_score(101, edges)[:2] == (r.score.diameter, r.score.total)


# -- on the GPU -----------------------------------------------------------------------------
def _gpu_reason():
    from conftest import gpu_skip_reason

    return gpu_skip_reason()


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.gpu
@pytest.mark.skipif(_gpu_reason() is not None, reason=_gpu_reason() or "")
def test_gpu_bitset_scores_centre_forms_on_both_kernels(seed):
    rng = np.random.default_rng(seed)
    checked = 0
    for k in range(40):
        grp_abr = GROUPS[k % len(GROUPS)]
        cyclic_g = int(rng.integers(2, 8))
        m = int(rng.integers(8, 120))
        c = int(rng.integers(1, 4))
        g, grp, edges = _lift(int(rng.integers(10**6)), cyclic_g, grp_abr, m, c)
        if (m + 63) // 64 * 64 + c > g * m + c:
            continue  # the centres need a column word of their own below n
        graph = Graph.from_edges(edges, n=g * m + c, g=g, group=grp, centres=c)
        want = make_evaluator("bitset", graph.n, graph.d, g, symmetry=grp, centres=c,
                              threads=1).evaluate(graph)
        for opts in ({}, {"kernel": "grid", "chunk_words": 1, "dense_frac": (0, 0.5, 2)[k % 3]}):
            ev = make_evaluator("gpu-bitset", graph.n, graph.d, g, symmetry=grp, centres=c,
                                batch=2, **opts)
            assert ev.evaluate(graph) == want, (graph, opts)
            rows = ev.evaluate_many(np.stack([graph.adj, graph.adj]))
            assert ev.finish(rows[0]) == ev.finish(rows[1]) == want
        checked += 1
    assert checked > 20


@pytest.mark.gpu
@pytest.mark.skipif(_gpu_reason() is not None, reason=_gpu_reason() or "")
@pytest.mark.parametrize("chains", ["host", "auto"])
def test_gpu_chains_walk_the_cpu_chains_with_centres(chains):
    """gpu-bitset's chains of a centre form, scored a launch a step (host) or run on the
    device (auto, where a chain fits a block), walk the CPU chains."""
    from golf.engine.population import BatchAnnealer

    graph = random_group_graph(1009, 7, None, seed=1, centres=1, g=7)
    out = []
    for name in ("gpu-bitset", "bitset"):
        e = make_evaluator(name, 1009, 7, 7, centres=1, batch=6,
                           **({"chains": chains} if name == "gpu-bitset" else {}))
        if name == "gpu-bitset":
            assert e.chains == ("host" if chains == "host" else "device")
            assert chains == "host" or "1 centre, and the centres' rows" in e.chains_reason
        ann = BatchAnnealer(graph, e, 6, population="tempering", population_every=50,
                            steps=300, seed=2, voltage_moves=0.3, near_moves=0.5)
        ann.set_temperatures(10.0, 1.0)
        ann.run(300)
        out.append((ann.bests.tobytes(), ann.scs.tobytes()))
    assert out[0] == out[1]


@pytest.mark.gpu
@pytest.mark.skipif(_gpu_reason() is not None, reason=_gpu_reason() or "")
def test_gpu_chains_of_a_centre_form_too_big_for_a_block_stay_on_the_host():
    e = make_evaluator("gpu-bitset", 10007, 10, 10, centres=7)
    assert e.chains == "host" and "1000 base sources and 7 centres" in e.chains_reason
    with pytest.raises(GolfError, match="shared memory"):
        make_evaluator("gpu-bitset", 10007, 10, 10, centres=7, chains="device")
