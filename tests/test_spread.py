"""golf.hostswitch.spread: host-switch graphs from Order/Degree switch graphs. The h-scores of
a graph built from a switch graph, on every host-switch backend, equal a BFS over the whole
graph (tests/naive.py) and, for an even spread, the closed form from the switch graph's
score; the spreads' bounds hold under every graph built."""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import naive
from golf.errors import GolfError
from golf.evaluators.h_bfs import HostSwitchBfsEvaluator
from golf.evaluators.h_bitset import HostSwitchEvaluator
from golf.hostswitch.spread import Spread, spreads
from golf.starts.switch_wiring import spread_ports as port_graph


def _switch_graph(s, k, g, seed, drop):
    """A random g-symmetric switch graph of degree <= k, with ``drop`` of its base slots
    emptied (so neither regular nor always connected)."""
    from golf.starts.random import random_graph

    graph = random_graph(s, k, g, seed)
    if drop:
        rng = np.random.default_rng(seed)
        graph = naive.empty_slots(graph, rng, drop)
    return graph


@st.composite
def cases(draw):
    k = draw(st.integers(2, 5))
    s = draw(st.integers(k + 1, 24))
    g = draw(st.sampled_from([x for x in (1, 2, 3, 4) if s % x == 0]))
    if g > 1 and k % 2 and (s // g) % 2:  # a k-regular lift needs an even k or m
        g = 1
    base = draw(st.integers(1, 4))
    drop = draw(st.sampled_from([0.0, 0.0, 0.2]))
    graph = _switch_graph(s, k, g, draw(st.integers(0, 10**6)), drop)
    if draw(st.booleans()):  # the remainder over: floor(n / s) == base
        return Spread(draw(st.integers(s * base, s * base + s - 1)), k + base, s, True), graph
    n = draw(st.integers(s * (base - 1) + 1, s * base))  # ceil(n / s) == base
    return Spread(n, k + base, s), graph


@given(cases())
@settings(max_examples=60, deadline=None)
def test_the_h_scores_of_a_built_graph_match_a_bfs_on_every_backend(case):
    spread, sw = case
    graph = port_graph(spread, sw)
    graph.check()
    net = graph.net()
    each = np.bincount(net.host_switch, minlength=spread.switches)
    assert each.min() >= spread.base - (spread.short > 0) and each.max() <= spread.most
    assert (each == spread.base + 1).sum() == spread.heavy
    n, s, r = spread.hosts, spread.switches, spread.radix
    want = naive.host_switch_score(n, s, net.edges())
    for ev in (HostSwitchEvaluator(n, s, r, threads=1), HostSwitchBfsEvaluator(n, s, r)):
        got = ev.evaluate(graph)
        if want is None:
            assert not got.connected
        else:
            assert (got.diameter, got.total, got.peripheral) == want, ev.name
    if want is not None:
        d, aspl = spread.bounds()
        assert want[0] >= d and want[1] >= aspl * math.comb(n, 2)
        if spread.even:
            import golf

            score = golf.evaluate(sw)
            assert spread.h_score(score.diameter, score.total) == want[:2]


@pytest.mark.gpu
def test_the_gpu_backend_scores_built_graphs_like_the_cpu():
    pytest.importorskip("cupy", reason="the GPU backend needs CuPy and an NVIDIA GPU")
    from golf.evaluators.h_gpu_bitset import HostSwitchGpuEvaluator

    for seed, (n, s, k, g) in enumerate([(60, 30, 4, 3), (97, 40, 5, 1), (256, 64, 6, 4)]):
        spread = Spread(n, k + -(-n // s), s)
        graph = port_graph(spread, _switch_graph(s, k, g, seed, 0.0))
        want = HostSwitchEvaluator(n, s, spread.radix, threads=1).evaluate(graph)
        assert HostSwitchGpuEvaluator(n, s, spread.radix).evaluate(graph) == want


def test_the_short_switches_are_the_far_ones():
    """A path of 5 switches, 8 hosts at most 2 a switch: the two short switches are its
    ends (the largest distance sums), which gives the least h-total."""
    from golf.graph import Graph

    adj = np.array([[1, -1], [0, 2], [1, 3], [2, 4], [3, -1]], dtype=np.int32)
    spread = Spread(8, 4, 5)
    assert (spread.most, spread.short, spread.degree) == (2, 2, 2)
    net = port_graph(spread, Graph(5, 2, 1, adj)).net()
    assert np.bincount(net.host_switch, minlength=5).tolist() == [1, 2, 2, 2, 1]


def test_an_even_spread_by_hand():
    """(6 hosts, radix 4) on 3 switches, 2 each, in a triangle: pairs on one switch 2 apart
    (3 of them), the other 12 pairs 3 apart: h-total 6 + 36 = 42, h-diameter 3."""
    from golf.graph import Graph

    tri = Graph(3, 2, 1, np.array([[1, 2], [0, 2], [0, 1]], dtype=np.int32))
    spread = Spread(6, 4, 3)
    assert spread.h_score(1, 3) == (3, 42)
    assert HostSwitchEvaluator(6, 3, 4).evaluate(port_graph(spread, tri))[1:3] == (3, 42)
    with pytest.raises(GolfError, match="uneven spread"):
        Spread(5, 4, 3).h_score(1, 3)


def test_a_switch_graph_that_does_not_fit_is_refused():
    from golf.starts.random import random_graph

    with pytest.raises(GolfError, match="does not fit"):
        port_graph(Spread(20, 5, 10), random_graph(10, 4, 1, 1))  # degree 4 > 5 - 2


@pytest.mark.parametrize("n, r", [(32, 4), (80, 6), (432, 12), (1024, 10), (10000, 100),
                                  (8208, 48)])
def test_the_spreads_two_a_host_count_best_bound_first(n, r):
    """For each host count h, the fewest switches that hold the hosts at h (the remainder
    short) and the most that hold h each (the remainder over, where there is one), each once,
    best bound first; every bound at least the pair's."""
    from golf.hostswitch.radix_bounds import fewest_switches, host_switch_bounds

    got = spreads(n, r)
    keys = [sp.bounds() for sp in got]
    assert keys == sorted(keys)
    assert len({(sp.switches, sp.over) for sp in got}) == len(got)
    least = fewest_switches(n, r)
    hs = range(1, min(n, r) + 1)
    short = {-(-n // h) for h in hs if -(-n // h) >= least and Spread(n, r, -(-n // h)).possible()}
    over = {n // h for h in hs if n // h >= least and n % (n // h)
            and Spread(n, r, n // h, over=True).possible()}
    assert {sp.switches for sp in got if not sp.over} == short
    assert {sp.switches for sp in got if sp.over} == over
    assert all(sp.heavy > 0 and sp.short == 0 for sp in got if sp.over)
    overall = host_switch_bounds(n, r)
    assert all(b[0] >= overall.diameter and b[1] >= overall.aspl for b in keys)


def test_the_even_spread_bound_is_the_moore_bound_of_the_switch_graph():
    from golf.lower_bounds import moore_bounds

    for n, r, s in [(80, 6, 40), (1024, 5, 1024), (65536, 64, 4096)]:
        sp = Spread(n, r, s)
        b = moore_bounds(s, sp.degree)
        d, aspl = sp.bounds()
        pairs = math.comb(n, 2)
        assert d == b.diameter + 2
        assert aspl == Fraction(2 * pairs + sp.most ** 2 * math.comb(s, 2) * b.aspl, pairs)


def test_a_spread_of_full_degree_takes_the_complete_switch_graph(tmp_path):
    """(128, 24) on 8 switches of 16 hosts: switch degree 8 >= 7, the complete graph, no
    chase run (golf.run.spreads)."""
    from golf.run.spreads import _switch_graph

    sp = Spread(128, 24, 8)
    graph, summary = _switch_graph(sp, tmp_path, 1.0, 1, "auto", None, True, False, print)
    assert summary is None and not any(tmp_path.iterdir())
    assert graph.degrees().tolist() == [7] * 8
    got = HostSwitchEvaluator(128, 8, 24).evaluate(port_graph(sp, graph))[1:3]
    assert got == sp.h_score(1, 28) == (3, 128 * 127 + 16 * 16 * 28)


def test_an_over_spread_of_a_diameter_2_switch_graph_beats_the_2021_best_of_8208_48():
    """(8208, 48) on 328 switches, 25 hosts each and 8 with 26: the switch graph ER_17+21
    (diameter 2, degree 23; golf.starts.algebraic), the 8 switches one host over each giving
    up a link that keeps every switch within 2: h-diameter 4 and an h-total below the best
    graph entered in 2021 (132173424, mnakao/ORP_test), on both CPU backends."""
    from golf.starts.algebraic import algebraic_graph

    spread = Spread(8208, 48, 328, over=True)
    graph = port_graph(spread, algebraic_graph(328, 23)[0])
    graph.check()
    a = HostSwitchEvaluator(8208, 328, 48).evaluate(graph)
    b = HostSwitchBfsEvaluator(8208, 328, 48).evaluate(graph)
    assert (a.diameter, a.total) == (b.diameter, b.total)
    assert a.diameter == 4 and a.total < 132173424
    assert (np.bincount(graph.net().host_switch) == 26).sum() == 8
