"""Tabu search: the moves it applies, the tabu rule, the choice among the candidates against a
brute-force scoring, determinism, checkpoints, both scoring paths, the polish phase of an
annealing run, its config keys, and gpu-bitset against bitset."""

import json
import re
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

import golf
from golf.engine.annealer import P, SC, StopReason
from golf.errors import GolfError
from golf.evaluators import backend_class, make_evaluator
from golf.starts.random import random_graph
from golf.graph import Graph, detect_symmetry, sort_rows
from golf.kernels.merge import EXCEEDED, OK
from golf.kernels.rng import rng_seed
from golf.lower_bounds import moore_bounds
from golf.engine.moves import new_undo, try_swap, undo_swap
from golf.engine.neighbourhood import Neighbourhood, apply_move, draw_moves, revert_move
from golf.run import load_checkpoint
from golf.engine.tabu import PA, TabuSearch, choose_move, polish_budget

from conftest import ROOT, gpu_skip_reason, run_golf
from naive import apsp_score


def evaluator(graph, backend="bitset"):
    opts = {"threads": 1} if "threads" in backend_class(backend).options else {}
    return make_evaluator(backend, graph.n, graph.d, graph.g, **opts)


def tabu(graph, backend="bitset", steps=60, seed=3, **kw):
    return TabuSearch(graph, evaluator(graph, backend), steps=steps, seed=seed, trace_every=5,
                      **kw)


def edge_set(graph):
    return {tuple(e) for e in graph.edges().tolist()}


# -- every applied move ---------------------------------------------------------------------
@settings(max_examples=25)
@given(m=st.integers(2, 12), g=st.integers(1, 6), d=st.integers(2, 6), seed=st.integers(0, 99),
       K=st.sampled_from([1, 7, 64]))
def test_applied_moves_keep_the_graph_valid_and_scored_exactly(m, g, d, seed, K):
    n = m * g
    assume(d < n)
    try:
        graph = random_graph(n, d, g, seed=seed)
    except GolfError:  # no connected graph of this shape
        assume(False)
    degrees = graph.degrees().copy()
    t = tabu(graph, steps=8, seed=seed, neighbourhood=K, tenure=2)
    while not t.stop_reason:
        t.run(1)
        now = t.graph
        now.check()  # simple, every slot with its reverse
        assert (now.degrees() == degrees).all()
        assert Graph.from_edges(now.edges(), n=n, g=g, d=d) == now  # g-symmetric
        want = apsp_score(n, now.edges())
        assert (t.sc[SC.CUR_D], t.sc[SC.CUR_TOTAL], t.sc[SC.CUR_PER]) == want
    assert t.stop_reason in (StopReason.STEPS, StopReason.BOUNDS, StopReason.STUCK)


# -- the choice -----------------------------------------------------------------------------
def choice_state(cur=(4, 1000), best=(4, 900), g=2, aspl_priority=0):
    sc = np.zeros(len(SC), dtype=np.int64)
    sc[SC.CUR_D], sc[SC.CUR_TOTAL] = cur
    sc[SC.BEST_D], sc[SC.BEST_TOTAL] = best
    params = np.zeros(len(P), dtype=np.int64)
    params[P.G], params[P.WEIGHT], params[P.ASPL_PRIORITY] = g, g, aspl_priority
    return sc, params


def outs_of(rows, g=2):
    """Kernel results for (diameter, total, peripheral, status) rows."""
    return np.array([[d, 2 * t // g, p // g, s] for d, t, p, s in rows], dtype=np.int64)


def test_choice_rules():
    sc, params = choice_state()
    orbits = np.array([[1, 2, 10, 11], [3, -1, 12, -1], [4, 5, 13, 14], [6, 7, 15, 16]])
    ring = np.array([12, 99], dtype=np.int64)  # orbit 12 was removed lately: adding it is tabu
    outs = outs_of([(4, 1100, 8, OK), (4, 950, 8, OK), (5, 0, 0, EXCEEDED), (4, 950, 4, OK)])
    assert choose_move(outs, orbits, 4, ring, sc, params) == 3  # 1 is tabu; 2 higher diameter
    assert choose_move(outs, orbits, 3, ring, sc, params) == 0  # worse than current: taken
    assert choose_move(outs, orbits, 4, ring[:0], sc, params) == 3  # equal totals: fewer
    outs[3, 2] = outs[1, 2]  # peripheral vertices win; all equal: the first drawn
    assert choose_move(outs, orbits, 4, ring[:0], sc, params) == 1
    outs[3, 2] = 2
    outs[1] = outs_of([(4, 880, 8, OK)])[0]  # tabu but better than the best: aspiration
    assert choose_move(outs, orbits, 4, ring, sc, params) == 1
    outs[1] = outs_of([(3, 2000, 2, OK)])[0]  # a lower diameter beats any total
    assert choose_move(outs, orbits, 4, ring, sc, params) == 1
    outs = outs_of([(5, 900, 4, OK), (4, 950, 4, OK), (4, 10, 4, 1)])
    assert choose_move(outs, orbits, 3, ring[:0], sc, params) == 1  # raised diameter, disconnected
    sc, params = choice_state(aspl_priority=1)  # only the total counts
    assert choose_move(outs, orbits, 3, ring[:0], sc, params) == 0
    outs = outs_of([(4, 1100, 8, EXCEEDED)])
    assert choose_move(outs, orbits, 1, ring, sc, params) == -1


def test_a_best_graph_the_search_moved_on_from_has_no_lower_swap():
    """A step from a best graph no step has checked scores every swap of it (drawn steps
    score ``K``; here ``K`` is 2-6% of the swaps): once the search has moved on from its best
    graph, no swap of that graph scores lower (every swap scored one by one with networkx).
    Off (``PA.CHECK`` 0), the drawn steps leave lower swaps behind in these cases."""
    for n, d, g, K, check in [(40, 3, 2, 64, 1), (36, 3, 1, 100, 1), (30, 3, 1, 64, 1),
                              (36, 3, 1, 100, 0), (30, 3, 1, 64, 0)]:
        t = tabu(random_graph(n, d, g, seed=n), steps=0, seed=n, neighbourhood=K, tenure=4)
        assert t.hood.full and not t.hood.enumerate_all and t.pool_at[PA.CHECK] == 1
        t.pool_at[PA.CHECK] = check
        t.run(40)
        best = t.best_graph()
        assert t.sc[SC.BEST_STEP] < t.sc[SC.STEP]
        assert (t.pool_at[PA.CHECKED] > t.sc[SC.BEST_STEP]) == bool(check)
        hood = Neighbourhood(n, d, g, K, full=True)
        k = hood.draw(best.adj.copy(), n, g, t.st.copy(), new_undo(), every=True)
        lower = 0
        for i in range(k):
            apply_move(best.adj, hood.moves[i])
            s = apsp_score(n, best.edges())
            revert_move(best.adj, hood.moves[i])
            lower += s is not None and s[:2] < (t.sc[SC.BEST_D], t.sc[SC.BEST_TOTAL])
        assert k > 10 * K and (lower == 0) == bool(check), (n, d, g, check, lower)


def test_the_step_takes_the_brute_force_best_of_its_candidates():
    """The candidates of a step (drawn again from the same RNG state) scored one by one with
    networkx: the step moves to the best of them by (diameter, total, peripheral)."""
    for n, d, g, K in [(40, 3, 2, 48), (36, 4, 3, 200), (24, 3, 1, 10)]:
        graph = random_graph(n, d, g, seed=n)
        t = tabu(graph, steps=20, seed=n, neighbourhood=K, tenure=0)
        t.run(5)
        cur, cur_d, evals = t.graph.copy(), t.sc[SC.CUR_D], t.sc[SC.EVALS]
        state = t.st.copy()
        t.run(1)
        every = bool(t.pool_at[PA.EVERY])  # a step from a new best graph scores every swap
        hood = Neighbourhood(n, d, g, K, full=every)
        k = hood.draw(cur.adj, n, g, state, new_undo(), every=every)
        assert 0 < k and (every or k <= K)
        keys, graphs = [], set()
        for i in range(k):
            apply_move(cur.adj, hood.moves[i])
            s = apsp_score(n, cur.edges())
            graphs.add(frozenset(edge_set(cur)))
            revert_move(cur.adj, hood.moves[i])
            if s is not None and s[0] <= cur_d:
                keys.append(s)
        assert len(graphs) == k and frozenset(edge_set(cur)) not in graphs  # distinct moves
        assert (t.sc[SC.CUR_D], t.sc[SC.CUR_TOTAL], t.sc[SC.CUR_PER]) == min(keys)
        assert t.sc[SC.EVALS] - evals == k


def all_swap_results(graph):
    """Every distinct graph one symmetric swap makes (all slot pairs in both orders, all
    rotations, both reconnections), by brute force."""
    n, g, adj = graph.n, graph.g, graph.adj
    m, d = adj.shape
    undo, out = new_undo(), set()
    for i1 in range(m):
        for j1 in range(d):
            for i2 in range(m):
                for j2 in range(d):
                    for t in range(g):
                        a, b = i1, int(adj[i1, j1])
                        c, e = i2 + t * m, (int(adj[i2, j2]) + t * m) % n
                        for x1, y1, x2, y2 in ((a, c, b, e), (a, e, b, c)):
                            if b >= 0 and try_swap(adj, n, a, b, c, e, x1, y1, x2, y2, undo):
                                out.add(frozenset(edge_set(graph)))
                                undo_swap(adj, undo)
    out.discard(frozenset(edge_set(graph)))
    return out


def test_buffers_that_hold_every_try_keep_the_full_check_whatever_k():
    from golf.engine.neighbourhood import ENUMERATE, FULL_FACTOR, FULL_TRIES

    n, d, K = 258, 3, 100_000  # (n d)(n d + 1) = 599,850 tries: above FULL_TRIES, within 8 K
    tries = n * d * (n * d + 1)
    assert FULL_TRIES < tries <= ENUMERATE * K
    hood = Neighbourhood(n, d, 1, K, full=True)
    assert hood.enumerate_all and hood.full and len(hood.moves) >= tries
    small = Neighbourhood(n, d, 1, 4096, full=True)  # neither: too many tries for K = 4096
    assert tries > FULL_FACTOR * 4096 and not small.enumerate_all and not small.full
    assert not Neighbourhood(n, d, 1, K).full  # a neighbourhood not asked to be full


@pytest.mark.parametrize("n,d,g", [(10, 3, 1), (12, 3, 2), (16, 3, 4)])
def test_a_small_neighbourhood_is_scored_whole(n, d, g):
    graph = random_graph(n, d, g, seed=4)
    want = all_swap_results(graph)
    hood = Neighbourhood(n, d, g, 4096)
    assert hood.enumerate_all
    k = hood.draw(graph.adj, n, g, rng_seed(1), new_undo())
    got = set()
    for i in range(k):
        apply_move(graph.adj, hood.moves[i])
        got.add(frozenset(edge_set(graph)))
        revert_move(graph.adj, hood.moves[i])
    assert got == want and k == len(want)
    few = len(want) // 2  # fewer wanted than there are: that many of them, drawn at random
    parts = []
    for seed in (1, 2):
        assert draw_moves(graph.adj, n, g, rng_seed(seed), few, True, new_undo(), hood.moves,
                          hood.orbits, hood.table) == few
        parts.append({tuple(o) for o in hood.orbits[:few].tolist()})
    assert len(parts[0]) == few and parts[0] != parts[1]


# -- the tabu rule --------------------------------------------------------------------------
def readded_within(graph, tenure, steps=150, check_tenure=4):
    """Steps at which an edge removed within the last ``check_tenure`` steps came back,
    without a new best graph (edge sets of the full graph, checked step by step)."""
    t = tabu(graph, steps=steps, seed=7, neighbourhood=32, tenure=tenure)
    removed, bad = [], []
    while not t.stop_reason:
        before, best = edge_set(t.graph), (t.sc[SC.BEST_D], t.sc[SC.BEST_TOTAL])
        t.run(1)
        after = edge_set(t.graph)
        recent = set().union(*removed[-check_tenure:]) if removed else set()
        improved = (t.sc[SC.BEST_D], t.sc[SC.BEST_TOTAL]) < best
        if (after - before) & recent and not improved:
            bad.append(int(t.sc[SC.STEP]))
        removed.append(before - after)
    return bad


def test_removed_orbits_stay_out_for_the_tenure():
    graph = random_graph(32, 3, 2, seed=5)
    assert readded_within(graph, tenure=4) == []
    assert readded_within(graph, tenure=0)  # without the list they do come back


# -- determinism, paths, checkpoints ---------------------------------------------------------
@pytest.mark.slow
def test_same_seed_same_trace_and_paths_agree():
    graph = random_graph(64, 4, 2, seed=8)
    runs = {}
    for name, backend, batched in [("compiled", "bitset", False), ("batched", "bitset", True),
                                   ("bfs", "bfs", None), ("bfs-batched", "bfs", True),
                                   ("reference", "reference", None), ("again", "bitset", None)]:
        t = tabu(graph, backend, steps=40, seed=11, neighbourhood=24, batched=batched)
        assert t.batched == (batched if batched is not None else backend == "reference")
        runs[name] = (t.run(100), t.sc.copy(), t.graph.adj.copy(), t.best_adj.copy())
    first = runs.pop("compiled")
    assert len(first[0]) == 8 and first[1][SC.STEP] == 40
    for name, other in runs.items():
        assert all(np.array_equal(a, b) for a, b in zip(first, other)), name
    seed2 = tabu(graph, steps=40, seed=12, neighbourhood=24)
    seed2.run(100)
    assert not np.array_equal(seed2.graph.adj, first[2])


@pytest.mark.parametrize("n,d,g", [(48, 3, 1), (60, 4, 3), (96, 5, 4)])
def test_near_swaps_join_vertices_two_hops_apart(n, d, g):
    """With ``near_moves`` 1 every drawn candidate is a near swap: each edge it adds joined
    two vertices with a common neighbour; with 0.5 some are and some are not; the share
    changes the run, and a run with it is the same for a seed."""
    graph = random_graph(n, d, g, seed=4)
    hood = Neighbourhood(graph.n_sym, d, g, 64)
    adj = graph.adj.copy()

    def added(share, seed):
        st = rng_seed(seed)
        k = draw_moves(adj, n, g, st, 64, False, new_undo(), hood.moves, hood.orbits,
                       hood.table, None, None, int(1000 * share))
        assert k > 0 and np.array_equal(adj, graph.adj)  # drawn, the graph left as it was
        old = edge_set(graph)
        nbrs = {v: {w for e in old for w in e if v in e and w != v} for v in range(n)}
        out = []
        for i in range(k):
            rows = adj.copy()
            apply_move(rows, hood.moves[i])
            new = edge_set(graph.with_rows(sort_rows(rows)))
            out.append([bool(nbrs[u] & nbrs[v]) for u, v in new - old])
        return out

    assert all(all(two) for two in added(1.0, 1))
    mixed = [all(two) for two in added(0.5, 2)]
    assert any(mixed) and not all(mixed)
    runs = [tabu(graph, steps=30, seed=5, neighbourhood=24, near_moves=x) for x in (0.5, 0.5, 0)]
    for t in runs:
        t.run(100)
    assert np.array_equal(runs[0].graph.adj, runs[1].graph.adj)
    assert not np.array_equal(runs[0].graph.adj, runs[2].graph.adj)


def test_state_round_trip_continues_bit_for_bit():
    graph = random_graph(60, 4, 3, seed=9)
    full = tabu(graph, steps=50, neighbourhood=40, tenure=6)
    full.run(80)
    half = tabu(graph, steps=50, neighbourhood=40, tenure=6)
    half.run(23)
    saved = half.state()
    other = tabu(graph, steps=50, neighbourhood=40, tenure=6)
    other.load_state(saved)
    other.run(80)
    assert other.stop_reason == full.stop_reason == StopReason.STEPS
    assert np.array_equal(other.sc, full.sc) and np.array_equal(other.ring, full.ring)
    assert np.array_equal(other.graph.adj, full.graph.adj)
    assert np.array_equal(other.best_adj, full.best_adj)
    with pytest.raises(GolfError, match="search.tenure=6"):
        tabu(graph, tenure=5).load_state(saved)
    annealer_state = {k: v for k, v in saved.items() if k != "tabu"}
    with pytest.raises(GolfError, match="no tabu list"):
        tabu(graph, tenure=6).load_state(annealer_state)


def test_the_search_moves_through_its_start_graphs():
    """``pool``/``patience`` (``search.polish_starts``): ``patience`` steps since the later of
    the current start and the last step that went below every graph since it, and the step
    begins from the
    next graph of the cycle -- the start graphs, then the best graph found, then the first
    again (scored, the tabu list empty); the best graph stays; both scoring paths and a state
    round trip agree."""
    graph = random_graph(64, 4, 2, seed=8)
    pre = tabu(graph, steps=150, seed=1, neighbourhood=24)
    pre.run(150)
    good = pre.best_graph()
    others = [random_graph(64, 4, 2, seed=s) for s in (21, 22)]

    def make(batched=None):
        return tabu(good, steps=0, seed=4, neighbourhood=24, tenure=4, pool=others,
                    patience=5, batched=batched)

    def edges(g):
        return {tuple(e) for e in g.edges()}

    t = make()
    assert [list(r) for r in t.pool_sc] == [list(evaluator(o).evaluate(o)[1:4]) for o in others]
    switched = []
    for step in range(400):
        before = t.pool_at.copy()
        best_before = t.best_graph()
        t.run(1)
        assert apsp_score(64, t.graph.edges())[:2] == (t.sc[SC.CUR_D], t.sc[SC.CUR_TOTAL])
        assert apsp_score(64, t.best_graph().edges())[:2] == (t.sc[SC.BEST_D],
                                                              t.sc[SC.BEST_TOTAL])
        if t.pool_at[PA.NEXT] != before[PA.NEXT]:
            i = int(before[PA.NEXT])
            assert t.pool_at[PA.NEXT] == (i + 1) % 3 and t.pool_at[PA.START] == step
            assert step - before[PA.START_STEP] == 5  # since the start's best (or the start)
            # one swap (two orbits out, two in: 4 g edges) away from the start: pool graph i,
            # or after the last one the best graph found
            start = others[i] if i < 2 else best_before
            assert len(edges(t.graph) ^ edges(start)) <= 4 * 2
            assert (t.ring >= 0).sum() <= 2  # only this step's orbits are tabu
            switched.append((step, i))
    assert [i for _, i in switched[:4]] == [0, 1, 2, 0]
    assert (t.sc[SC.BEST_D], t.sc[SC.BEST_TOTAL]) <= (pre.sc[SC.BEST_D], pre.sc[SC.BEST_TOTAL])
    # no pool: back to the best graph found after every stall
    alone = tabu(good, steps=0, seed=4, neighbourhood=24, tenure=4, patience=5)
    returns = 0
    for step in range(120):
        best_before, at = alone.best_graph(), int(alone.pool_at[PA.START])
        alone.run(1)
        if alone.pool_at[PA.START] != at:
            assert len(edges(alone.graph) ^ edges(best_before)) <= 4 * 2
            returns += 1
    assert returns >= 2 and alone.pool_at[PA.NEXT] == 0
    runs = []
    for batched in (False, True):
        u = make(batched)
        runs.append((u.run(400), u.sc.copy(), u.graph.adj.copy(), u.best_adj.copy(),
                     u.pool_at.copy()))
    half = make()
    half.run(switched[0][0] + 3)
    saved = half.state()
    resumed = tabu(good, steps=0, seed=4, neighbourhood=24, tenure=4, patience=5)
    resumed.load_state(saved)
    resumed.run(400 - switched[0][0] - 3)
    runs.append((runs[0][0], resumed.sc.copy(), resumed.graph.adj.copy(),
                 resumed.best_adj.copy(), resumed.pool_at.copy()))
    for other in runs:
        assert all(np.array_equal(a, b) for a, b in zip(runs[0], other))
    assert np.array_equal(runs[0][1], t.sc) and np.array_equal(runs[0][2], t.graph.adj)
    with pytest.raises(GolfError, match="start graph 1 of the pool is"):
        tabu(good, pool=[random_graph(64, 4, 4, seed=3)])


def test_the_population_offers_its_chains_best_graphs_once_each():
    """The chains' best graphs, each once, best first; then, to fill ``k``, their current
    graphs (each once, none already given), best first."""
    from golf.engine.population import BatchAnnealer

    graph = random_graph(64, 4, 2, seed=8)
    pop = BatchAnnealer(graph, evaluator(graph), K=6, steps=3000, seed=5)
    pop.set_temperatures(2.0, 0.1)
    pop.run(3000)
    pop.bests[4] = pop.bests[1]  # two chains with the same best graph
    pop.scs[4, SC.BEST_D:SC.BEST_PER + 1] = pop.scs[1, SC.BEST_D:SC.BEST_PER + 1]
    pop.adjs[5] = pop.adjs[2]  # two with the same current graph
    pop.scs[5, SC.CUR_D:SC.CUR_PER + 1] = pop.scs[2, SC.CUR_D:SC.CUR_PER + 1]
    got = pop.best_graphs(5)
    assert len(got) == 5 and np.array_equal(got[0].adj, pop.best_graph().adj)
    scores = [apsp_score(64, x.edges())[:2] for x in got]
    assert scores == sorted(scores)
    assert scores == sorted(tuple(pop.scs[c, SC.BEST_D:SC.BEST_TOTAL + 1]) for c in
                            (0, 1, 2, 3, 5))
    every = pop.best_graphs(20)
    distinct = {x.adj.tobytes() for x in every}
    assert len(every) == len(distinct)
    assert [x.adj.tobytes() for x in every[:5]] == [x.adj.tobytes() for x in got]
    currents = {graph.with_rows(sort_rows(pop.adjs[c])).adj.tobytes() for c in range(6)}
    assert len(every) == len(distinct | currents) and 5 < len(every) <= 10
    tail = [apsp_score(64, x.edges())[:2] for x in every[5:]]
    assert tail == sorted(tail)
    assert len(pop.best_graphs(2)) == 2

def test_stops_at_the_bounds():
    graph = random_graph(10, 3, 1, seed=1)
    t = tabu(graph, steps=500, neighbourhood=64)
    t.run(500)
    b = moore_bounds(10, 3)
    assert t.stop_reason == StopReason.BOUNDS
    assert (t.sc[SC.BEST_D], t.sc[SC.BEST_TOTAL]) == (b.diameter, b.total)
    assert apsp_score(10, t.best_graph().edges())[:2] == (b.diameter, b.total)


# -- runs: method tabu, the polish phase ----------------------------------------------------
def test_search_with_method_tabu():
    r = golf.search(64, 4, g=2, steps=30, seed=1, method="tabu", neighbourhood=50,
                    tenure=5, backend="bitset", threads=1, progress=False, trace_every=10)
    s = r.summary
    assert s["method"] == "tabu" and s["steps"] == 30 and s["evaluations"] == 30 * 50
    assert apsp_score(64, r.graph.edges())[:2] == (s["best"]["diameter"], s["best"]["total"])
    assert (s["best"]["diameter"], s["best"]["total"]) < (s["start"]["diameter"],
                                                          s["start"]["total"])
    assert r.trace.shape == (3, 9) and (r.trace[:, 1] == 0).all()  # no temperature


def test_polish_phase_continues_the_annealer_from_its_best():
    steps, frac, K = 6000, 0.3, 40
    kw = dict(g=2, seed=2, backend="bitset", threads=1, progress=False, trace_every=500)
    r = golf.search(64, 4, steps=steps, polish=frac, neighbourhood=K, **kw).summary
    sa_steps, tabu_steps = polish_budget(steps, frac, K)
    assert (sa_steps, tabu_steps) == (4200, 45)
    alone = golf.search(64, 4, steps=sa_steps, **kw).summary  # the annealing phase alone
    assert r["polish"] == {"from_step": sa_steps, "annealer_best": [alone["best"]["diameter"],
                                                                    alone["best"]["total"]]}
    assert (r["best"]["diameter"], r["best"]["total"]) <= tuple(r["polish"]["annealer_best"])
    assert r["steps"] == sa_steps + tabu_steps
    assert r["evaluations"] == alone["evaluations"] + tabu_steps * K  # no full steps here
    assert alone["polish"] is None
    batch = golf.search(64, 4, steps=steps, polish=frac, neighbourhood=K, batch=3,
                        **kw).summary  # K chains annealed together, then one tabu search
    assert batch["polish"]["from_step"] == sa_steps and batch["steps"] == sa_steps + tabu_steps
    assert (batch["best"]["diameter"], batch["best"]["total"]) <= tuple(
        batch["polish"]["annealer_best"])


def test_polish_at_a_smaller_g_takes_swaps_the_run_g_forbids(tmp_path):
    """(64, 8) at g = 4 then tabu search at g = 1: the same annealing phase, then a graph no
    4-symmetric search can reach, scored exactly; golf export reads it back."""
    kw = dict(g=4, steps=60000, seed=2, polish=0.5, neighbourhood=3000, backend="bitset",
              threads=1, progress=False, trace_every=5000)
    at_4 = golf.search(64, 8, **kw).summary
    r = golf.search(64, 8, polish_g=1, output=tmp_path / "r", **kw)
    s = r.summary
    assert s["polish"] == dict(at_4["polish"], g=1)
    assert s["steps"] == at_4["steps"]  # the evaluations differ: full steps at g=4 and g=1
    best = (s["best"]["diameter"], s["best"]["total"])
    assert best < tuple(s["polish"]["annealer_best"])
    assert r.graph.g == 1 and detect_symmetry(r.graph.edges(), 64) < 4
    assert apsp_score(64, r.graph.edges())[:2] == best
    from golf.run import export_run

    target, check = export_run(tmp_path / "r", tmp_path)
    assert (check["diameter"], check["total"]) == best and target.exists()


@pytest.mark.slow
@pytest.mark.parametrize("problem,extra,threads", [
    ("n: 64, d: 4, g: 2", "", 1), ("n: 64, d: 8, g: 4", ", polish_g: 1", 1),
    ("n: 64, d: 8, g: 4", ", polish_g: 1, batch: 4, polish_starts: 4, polish_patience: 2", 1),
    ("n: 64, d: 8, g: 4", ", polish_g: 1", 2)])  # the polish's candidates on 2 threads
def test_sigint_in_the_polish_phase_and_resume_match_uninterrupted(tmp_path, problem, extra,
                                                                   threads):
    def cfg(folder):
        folder.mkdir()
        p = folder / "run.yaml"
        p.write_text(f"""name: r
problem: {{{problem}}}
search: {{steps: 1000000, seed: 3, polish: 0.5, neighbourhood: 64, tenure: 8{extra}}}
evaluator: {{backend: bitset, threads: {threads}}}
output: {{dir: {folder / 'out'}, checkpoint_every: 0.2, trace_every: 2000}}
""")
        return p

    run_golf("run", cfg(tmp_path / "ref"), "--quiet", check=True)
    want = json.loads((tmp_path / "ref" / "out" / "r" / "summary.json").read_text())
    p = cfg(tmp_path / "cut")
    rd = tmp_path / "cut" / "out" / "r"
    proc = subprocess.Popen([sys.executable, "-m", "golf", "run", str(p), "--quiet"], cwd=ROOT)
    deadline = time.time() + 120
    while "polish:" not in ((rd / "log.txt").read_text() if (rd / "log.txt").exists() else ""):
        assert time.time() < deadline and proc.poll() is None
        time.sleep(0.02)
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=60) == 130
    ckpt = load_checkpoint(rd / "checkpoint.npz")
    assert "polish" in ckpt["meta"] and "tabu" in ckpt["states"][0]
    assert ckpt["meta"]["polish"].get("g") == (1 if extra else None)
    starts = ckpt["meta"]["polish"].get("starts", 1)
    # the four chains' distinct best graphs (a restarted chain may share the best's)
    assert (1 < starts <= 4 if "starts" in extra else starts == 1)
    assert "pool" in ckpt["states"][0]
    assert len(ckpt["states"][0]["pool"]) == starts - 1
    run_golf("resume", rd, "--quiet", check=True)
    shared = "its candidates shared by 2 threads" in (rd / "log.txt").read_text()
    assert shared == (threads == 2)
    got = json.loads((rd / "summary.json").read_text())
    for key in ("best", "steps", "evaluations", "accepted", "polish"):
        assert got[key] == want[key], key


@pytest.mark.parametrize("text,pattern", [
    ("search: {steps: 5, method: tabu, batch: 4}\n",
     r"c\.yaml:4: search.batch: method tabu takes no batch"),
    ("search: {steps: 5, method: tabu, polish: 0.2}\n",
     r"c\.yaml:4: search.polish: method tabu takes no polish"),
    ("search:\n  steps: 5\n  polish: 1.0\n", r"c\.yaml:6: search.polish: expected a number >= 0 and < 1"),
    ("search:\n  steps: 5\n  polish: -0.1\n", r"c\.yaml:6: search.polish: expected a number >= 0"),
    ("search:\n  steps: 5\n  neighbourhood: 0\n",
     r"c\.yaml:6: search.neighbourhood: expected an integer from 1 to 65536"),
    ("search:\n  steps: 5\n  tenure: -1\n", r"c\.yaml:6: search.tenure: expected an integer from 0"),
    ("search: {steps: 5, method: taboo}\n", r"expected 'sa', 'hill', 'tabu', 'memetic' or 'auto', got 'taboo'"),
    ("search: {steps: 5, polish_g: 1}\n",
     r"c\.yaml:4: search.polish_g: sets the polish phase's symmetry, which needs "
     r"search.polish > 0"),
    ("search: {steps: 5, polish: 0.2, polish_g: 3}\n",
     r"c\.yaml:4: search.polish_g: expected a divisor of problem.g=2, got 3"),
    ("search: {steps: 5, polish: 0.2, polish_g: 0}\n",
     r"c\.yaml:4: search.polish_g: expected an integer >= 1 dividing problem.g"),
    ("search: {steps: 5, batch: 4, polish_starts: 4}\n",
     r"c\.yaml:4: search.polish_starts: sets the polish phase's start graphs, which needs "
     r"search.polish > 0"),
    ("search:\n  steps: 5\n  polish: 0.2\n  polish_starts: 0\n",
     r"c\.yaml:7: search.polish_starts: expected an integer from 1 to 65536"),
    ("search:\n  steps: 5\n  polish: 0.2\n  polish_patience: 0\n",
     r"c\.yaml:7: search.polish_patience: expected an integer >= 1"),
])
def test_config_rejects_bad_values_with_file_and_line(tmp_path, text, pattern):
    from golf.config import load_config

    p = tmp_path / "c.yaml"
    p.write_text("name: t\nproblem: {n: 64, d: 4, g: 2}\n\n" + text)
    with pytest.raises(GolfError, match=pattern):
        load_config(p)


def test_config_rejects_a_polish_g_the_problem_cannot_take(tmp_path):
    from golf.config import load_config

    p = tmp_path / "c.yaml"
    p.write_text("name: t\nproblem: {n: 64, d: 4, g: auto}\nsearch: {steps: 5, polish: 0.2, "
                 "polish_g: 2}\n")
    with pytest.raises(GolfError, match=r"c\.yaml:3: search.polish_g: with problem.g: auto "
                                        r"only 1 divides every g .* got 2"):
        load_config(p)
    p.write_text(p.read_text().replace("polish_g: 2", "polish_g: 1"))
    load_config(p)


@pytest.mark.slow
@pytest.mark.parametrize("g,pg", [(4, 1), (4, 2), (2, 1)])
def test_a_grid_polishes_at_a_smaller_rotation(tmp_path, g, pg):
    """A grid problem at rotation g, then tabu search at pg: the cells renumbered for pg's
    rotation (golf.grid), the length limit kept; the result is a valid grid graph of the
    lattice, scored exactly, that golf export writes and golf validate accepts."""
    r = golf.search(None, 4, grid=[8, 8], r=3, g=g, steps=20000, seed=2, polish=0.5,
                    polish_g=pg, polish_starts=2, batch=2, neighbourhood=300,
                    backend="bitset", threads=1, progress=False, output=tmp_path / "r")
    s = r.summary
    assert s["polish"]["g"] == pg and r.graph.g == pg
    best = (s["best"]["diameter"], s["best"]["total"])
    assert best <= tuple(s["polish"]["annealer_best"])
    from golf.grid import Grid
    from golf.run import export_run

    grid = Grid(8, 8, 3, pg)
    assert grid.lengths(r.graph.edges()).max() <= 3
    assert apsp_score(64, r.graph.edges())[:2] == best
    target, check = export_run(tmp_path / "r", tmp_path)
    assert (check["diameter"], check["total"]) == best
    out = run_golf("validate", target, "--grid", "8x8", "--d", 4, "--r", 3, check=True)
    assert "valid" in out.stdout


# -- the GPU --------------------------------------------------------------------------------
@pytest.mark.gpu
@pytest.mark.skipif(gpu_skip_reason() is not None, reason=gpu_skip_reason() or "")
@pytest.mark.parametrize("n,d,g,K", [(96, 4, 2, 64), (256, 8, 4, 256), (120, 5, 3, 100),
                                     (40, 4, 2, 128)])
def test_gpu_bitset_walks_the_bitset_trace(n, d, g, K):
    """One evaluate_many launch a step on the GPU: the same run as bitset's compiled loop
    (the evaluator's batch smaller than K: several launches a step, the same run); (40, 4, 2)
    with steps that score every swap of a new best graph."""
    graph = random_graph(n, d, g, seed=n)
    runs = []
    for ev in (evaluator(graph), make_evaluator("gpu-bitset", n, d, g, batch=K),
               make_evaluator("gpu-bitset", n, d, g, batch=K // 4)):
        t = TabuSearch(graph, ev, steps=60, seed=5, neighbourhood=K, tenure=8, trace_every=5)
        runs.append((t.run(60), t.sc.copy(), t.best_adj.copy(), t.batched))
        assert (t.pool_at[PA.CHECKED] >= 0) == (n == 40)  # steps that scored every swap
    assert [r[3] for r in runs] == [False, True, True]
    for other in runs[1:]:
        assert all(np.array_equal(a, b) for a, b in zip(runs[0][:3], other[:3]))


@pytest.mark.parametrize("backend,helpers", [("bfs", 0), ("bitset", 1), ("bitset", 3),
                                             ("bfs", 2)])
def test_a_search_scored_by_another_backend_or_threads_takes_the_same_steps(backend, helpers):
    """``scored_by`` (a polish under a GPU backend may go on with bitset's compiled loop), with
    ``helpers``: that many more threads score a step's candidates, each on its own copy of the
    graph. From a state in the middle of a run with start graphs, returns and a level cap, the
    twin takes the steps the original (bitset, one thread) takes."""
    graph = random_graph(60, 4, 2, seed=3)
    others = [random_graph(60, 4, 2, seed=s) for s in (31, 32)]
    t = tabu(graph, steps=0, seed=6, neighbourhood=40, tenure=5, pool=others, patience=4,
             near_moves=0.5)
    t.run(25)
    twin = t.scored_by(evaluator(graph, backend),
                       [evaluator(graph, backend) for _ in range(helpers)])
    assert twin.evaluator.name == backend and twin is not t
    assert len(twin.kset) == 1 + helpers and not twin.batched
    for s in (t, twin):
        s.run(80)
    for a, b in ((t.sc, twin.sc), (t.graph.adj, twin.graph.adj), (t.best_adj, twin.best_adj),
                 (t.ring, twin.ring), (t.pool_at, twin.pool_at), (t.st, twin.st),
                 (t.trace, twin.trace)):
        assert np.array_equal(a, b)
    assert t.pool_at[PA.START] > 25  # a start graph of the cycle taken after the copy
    assert apsp_score(60, twin.best_graph().edges())[:2] == (twin.sc[SC.BEST_D],
                                                              twin.sc[SC.BEST_TOTAL])


def test_a_helper_of_another_shape_or_backend_is_refused():
    graph = random_graph(60, 4, 2, seed=5)
    for other in (evaluator(random_graph(60, 4, 3, seed=1)), evaluator(graph, "bfs")):
        with pytest.raises(GolfError, match="not of the search's backend and shape"):
            TabuSearch(graph, evaluator(graph), helpers=[other])


def test_tabu_helpers_only_for_a_one_thread_compiled_cpu_evaluator():
    """``evaluator.threads`` (else the usable cores) less one helpers, of the evaluator's
    backend and ``g`` (a polish's, below the config's); none where the evaluator runs threads
    itself or scores on one thread by request."""
    from golf.config import Keywords, validate
    from golf.run.setup import build_evaluator, cfg_at, tabu_helpers

    def cfg(n, threads, g=4):
        raw = Keywords(n, 4, g, seconds=1.0, steps=0, seed=1, backend="bitset", plot=False,
                       settings={"threads": threads}).config()
        return validate(raw, lambda key: "test")

    small = cfg(64, 3)
    ev = build_evaluator(cfg_at(small, 2))
    helpers = tabu_helpers(small, ev)
    assert len(helpers) == 2 and all(
        (h.name, h.g, h.threads) == ("bitset", 2, 1) for h in helpers)
    assert tabu_helpers(cfg(64, 1), ev) == []
    big = cfg(200_000, 2, g=1)  # threads inside each evaluation
    threaded = build_evaluator(big)
    assert threaded.threads == 2 and tabu_helpers(big, threaded) == []


@pytest.mark.parametrize("search", [dict(method="tabu", steps=60),
                                    dict(steps=3000, polish=0.4, polish_g=1)])
def test_a_tabu_run_on_threads_is_the_run_on_one(tmp_path, search):
    """``method: tabu``, or a polish at a smaller ``g``, with ``evaluator.threads`` on a small
    graph (one evaluation on one thread): the candidates shared by the threads, the run the
    one-thread run."""
    kw = dict(g=2, seed=4, progress=False, neighbourhood=64, backend="bitset", **search)
    one, three = (golf.search(48, 4, threads=t, output=tmp_path / str(t), **kw)
                  for t in (1, 3))
    assert "candidates shared by 3 threads" in (tmp_path / "3" / "log.txt").read_text()
    assert "shared by" not in (tmp_path / "1" / "log.txt").read_text()
    assert (one.score.diameter, one.score.total) == (three.score.diameter, three.score.total)
    assert np.array_equal(one.graph.edges(), three.graph.edges())
    assert np.array_equal(one.trace[:, :-1], three.trace[:, :-1])  # the last: wall time


def test_trials_then_a_polish_on_threads(tmp_path):
    """``g: auto`` with a polish on 2 threads (the trials' warm-up runs a tabu search with a
    helper too): the polish shares its candidates, the graph scored exactly."""
    r = golf.search(48, 4, g="auto", steps=4000, seed=3, progress=False, polish=0.4,
                    polish_g=1, neighbourhood=64, backend="bitset", threads=2,
                    output=tmp_path / "run")
    log = (tmp_path / "run" / "log.txt").read_text()
    assert "polish: tabu search" in log and "its candidates shared by 2 threads" in log
    assert apsp_score(48, r.graph.edges())[:2] == (r.score.diameter, r.score.total)


@pytest.mark.gpu
@pytest.mark.skipif(gpu_skip_reason() is not None, reason=gpu_skip_reason() or "")
def test_a_gpu_polish_times_both_scoring_paths_and_walks_the_cpu_run(tmp_path):
    """Under gpu-bitset the polish times its first steps on the GPU and on bitset (its
    candidates shared by the usable cores), logs both rates and goes on with the faster; the
    run is the one bitset walks alone."""
    kw = dict(g=4, steps=3000, seed=2, progress=False, polish=0.4, polish_g=1,
              neighbourhood=256)
    runs = {b: golf.search(64, 4, backend=b, output=tmp_path / b, **kw)
            for b in ("gpu-bitset", "bitset")}
    log = (tmp_path / "gpu-bitset" / "log.txt").read_text()
    assert "steps/s on gpu-bitset" in log and re.search(r"\(\d+ threads?\): scored on", log)
    a, b = runs["gpu-bitset"], runs["bitset"]
    assert (a.score.diameter, a.score.total) == (b.score.diameter, b.score.total)
    assert np.array_equal(a.graph.edges(), b.graph.edges())
    assert apsp_score(64, a.graph.edges())[:2] == (a.score.diameter, a.score.total)


def test_a_return_to_the_best_graph_kicks_it_first():
    """``kick``: back at the best graph (no pool), the next ``kick`` steps each take the first
    admissible candidate drawn instead of the best one, counted down in the state, which a
    checkpoint keeps (a copy made mid-kick walks on bit for bit); the scores stay exact; both
    scoring paths take the same steps."""
    graph = random_graph(64, 4, 2, seed=8)

    def make(batched=None):
        return tabu(graph, steps=0, seed=4, neighbourhood=24, tenure=4, patience=5, kick=3,
                    batched=batched)

    t = make()
    kicked, checked, copied = 0, 0, None
    for step in range(200):
        before, sc, saved = t.pool_at.copy(), t.sc.copy(), t.state()
        if before[PA.KICKS_LEFT] > 0 and copied is None:
            copied = (saved, step)
        t.run(1)
        if t.pool_at[PA.START] != before[PA.START]:  # a return: its kick steps begin here
            assert t.pool_at[PA.KICKS_LEFT] == 2
            kicked += 1
        elif before[PA.KICKS_LEFT] > 0:  # a kick step: the first admissible candidate
            assert t.pool_at[PA.KICKS_LEFT] == before[PA.KICKS_LEFT] - 1
            k = int(t.sc[SC.EVALS] - sc[SC.EVALS])
            i = choose_move(t.hood.outs, t.hood.orbits, k, saved["tabu"], sc, t.params, True)
            best = choose_move(t.hood.outs, t.hood.orbits, k, saved["tabu"], sc, t.params)
            taken = sc[SC.CUR_TOTAL] if i < 0 else t.params[P.WEIGHT] * t.hood.outs[i, 1] // 2
            assert t.sc[SC.CUR_TOTAL] == taken  # none admissible: no move
            checked += i != best
        assert apsp_score(64, t.graph.edges())[:2] == (t.sc[SC.CUR_D], t.sc[SC.CUR_TOTAL])
    assert kicked >= 2 and checked >= 1
    state, at = copied
    u = make()
    u.load_state(state)
    u.run(200 - at)
    old = dict(state, pool_at=state["pool_at"][:2])  # a checkpoint from before the kicks
    w = make()
    w.load_state(old)
    assert w.pool_at[PA.KICKS_LEFT] == 0 and w.pool_at[PA.START] == state["pool_at"][1]
    assert w.pool_at[PA.START_STEP] == max(state["pool_at"][1], state["sc"][SC.BEST_STEP])
    v = make(batched=True)  # evaluate_many's path: the same steps
    v.run(200)
    for w in (u, v):
        for a, b in ((w.sc, t.sc), (w.graph.adj, t.graph.adj), (w.best_adj, t.best_adj),
                     (w.pool_at, t.pool_at)):
            assert np.array_equal(a, b)
