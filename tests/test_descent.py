"""Exhaustive first-improvement descent (golf.engine.descent): it ends where no swap of the
graph scores better (checked against every swap the neighbourhood enumerates, scored by the
reference), its score is the graph's, the compiled and the batched scoring take the same
swaps, grids keep their length limit, and it is deterministic for a seed."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from golf.engine.annealer import Annealer, SC
from golf.engine.descent import Descent
from golf.engine.moves import new_undo
from golf.engine.neighbourhood import Neighbourhood, apply_move, revert_move
from golf.evaluators import make_evaluator
from golf.kernels.rng import rng_seed
from golf.problems import problem_of
from golf.starts.random import random_graph

from naive import apsp_score


def descended(graph, *, seed=1, reach=None, batched=None, width=None, tiebreak=True):
    ev = make_evaluator("bitset", graph.n, graph.d, graph.g, threads=1)
    ann = Annealer(graph, ev, method="hill", reach=reach, tiebreak=tiebreak)
    desc = Descent(ann, batched=batched, width=width)
    desc.climb(np.random.default_rng(seed))
    return ann


def naive(graph):
    """``(diameter, total, peripheral)`` by networkx on the whole graph (None: disconnected)."""
    return apsp_score(graph.n, graph.edges())


def improving_swaps(graph, reach=None, tiebreak=True) -> int:
    """Every distinct valid swap of ``graph`` scored by the SciPy reference: how many score
    better (a lower ``(diameter, total)``; with ``tiebreak``, above the diameter bound, the
    same and fewer peripheral vertices)."""
    from golf.lower_bounds import moore_bounds

    ev = make_evaluator("reference", graph.n, graph.d, graph.g)
    here = ev.evaluate(graph)
    score = (here.diameter, here.total, here.peripheral)
    per = tiebreak and here.diameter > moore_bounds(graph.n, graph.d).diameter
    g = graph.copy()
    hood = Neighbourhood(g.n, g.d, g.g, 1 << 20)
    assert hood.enumerate_all
    k = hood.draw(g.adj, g.n_sym, g.g, rng_seed(1), new_undo(), reach)
    better = 0
    for i in range(k):
        apply_move(g.adj, hood.moves[i])
        s = ev.evaluate(g)
        revert_move(g.adj, hood.moves[i])
        if s.connected:
            mine = (s.diameter, s.total, s.peripheral)
            better += mine[:2] < score[:2] or (per and mine[:2] == score[:2] and
                                               mine[2] < score[2])
    return better


@settings(max_examples=12, deadline=None)
@given(st.sampled_from([(20, 3, 1), (24, 3, 2), (30, 4, 3), (32, 4, 4), (36, 5, 6)]),
       st.integers(0, 10**6))
def test_a_descent_ends_where_no_swap_improves_the_graph(shape, seed):
    n, d, g = shape
    start = random_graph(n, d, g, seed=seed % 1000)
    ann = descended(start, seed=seed)
    end = start.with_rows(ann.graph.adj)
    end.check()
    ref = naive(end)
    assert ref == tuple(int(ann.sc[k]) for k in (SC.CUR_D, SC.CUR_TOTAL, SC.CUR_PER))
    assert (ann.sc[SC.CUR_D], ann.sc[SC.CUR_TOTAL]) == (ann.sc[SC.BEST_D], ann.sc[SC.BEST_TOTAL])
    assert np.array_equal(ann.best_adj, ann.graph.adj)
    assert ref[:2] <= naive(start)[:2]
    assert improving_swaps(end) == 0


@pytest.mark.parametrize("width", [1, 7])
def test_the_batched_scoring_takes_the_compiled_ones_swaps(width):
    start = random_graph(60, 4, 3, seed=5)
    one = descended(start, seed=2)
    two = descended(start, seed=2, batched=True, width=width)
    assert np.array_equal(one.graph.adj, two.graph.adj)
    assert np.array_equal(one.sc, two.sc)
    assert int(one.sc[SC.ACCEPTED]) > 10  # it took swaps
    three = descended(start, seed=3)  # another order of the tries: another local optimum
    assert not np.array_equal(three.graph.adj, one.graph.adj)


def test_without_the_tie_break_it_ends_where_no_swap_lowers_the_total():
    start = random_graph(36, 3, 1, seed=7)
    with_tb, without = descended(start), descended(start, tiebreak=False)
    assert improving_swaps(start.with_rows(with_tb.graph.adj)) == 0
    end = start.with_rows(without.graph.adj)
    assert improving_swaps(end, tiebreak=False) == 0


def test_on_a_grid_a_descent_keeps_the_length_limit():
    p = problem_of({"grid": [6, 6], "n": 36, "d": 4, "r": 2, "g": 4})
    start = p.random_graph(3)
    ann = descended(start, reach=p.reach())
    end = start.with_rows(ann.graph.adj)
    p.check_graph(end)
    assert p.grid.lengths(end.edges()).max() <= 2
    assert naive(end)[:2] < naive(start)[:2] and improving_swaps(end, p.reach()) == 0
