"""Hub spreads (golf.hostswitch.hubs): leaves of hosts linked to hubs alone. The design
(golf.starts.switch_wiring.hub_ports, golf.kernels.packing) keeps every rule and every count
of the spread, counts the pairs of leaves on a common hub exactly, and never ends below its
random start; its h-scores on every host-switch backend equal a BFS over the whole graph
(tests/naive.py) and never beat the spread's bound; the chase tries one where it may win."""

import json
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import naive
from golf.evaluators.h_bfs import HostSwitchBfsEvaluator
from golf.evaluators.h_bitset import HostSwitchEvaluator
from golf.hostswitch.hubs import MAX_LEAVES, HubSpread, hub_spreads
from golf.hostswitch.ports import HOST_PORT
from golf.hostswitch.spread import spreads
from golf.kernels.packing import common_counts, covered, pack
from golf.kernels.rng import rng_seed
from golf.starts.switch_wiring import hub_ports


@st.composite
def hub_cases(draw):
    r = draw(st.integers(4, 9))
    h = draw(st.integers(1, r - 2))
    n = draw(st.integers(2 * h, 16 * h))
    hs = HubSpread(n, r, h)
    if not hs.possible():
        hs = HubSpread(4 * r, r, 2)  # (4r, r): 2r leaves of 2 hosts, each on r - 2 hubs
    return hs, draw(st.integers(0, 10**6)), draw(st.sampled_from([0, 50, 5000]))


def _pairs_on_a_hub(graph, hs):
    """Pairs of leaves with a common hub, counted from the port rows."""
    P = hs.leaves
    hubs = [set(int(x) for x in graph.adj[a] if x >= 0) for a in range(P)]
    return sum(1 for a, b in combinations(range(P), 2) if hubs[a] & hubs[b])


@given(hub_cases())
@settings(max_examples=50, deadline=None)
def test_a_design_keeps_the_spread_and_scores_like_a_bfs(case):
    hs, seed, steps = case
    graph, cover = hub_ports(hs, seed, steps)
    graph.check()
    P, B, r = hs.leaves, hs.hubs, hs.radix
    adj = graph.adj
    assert graph.n == hs.switches == P + B
    hosts = (adj == HOST_PORT).sum(axis=1)
    assert hosts[:P].tolist() == [hs.leaf_hosts] * (P - hs.short) + [hs.leaf_hosts - 1] * hs.short
    assert not hosts[P:].any() and hosts.sum() == hs.hosts
    # every port of a leaf holds a host or a link to a hub; each hub holds its share of leaves
    assert ((adj[:P] >= P) | (adj[:P] == HOST_PORT)).all()
    on_hubs = [int(((adj[P + j] >= 0) & (adj[P + j] < P)).sum()) for j in range(B)]
    assert on_hubs == hs.capacities
    assert cover == _pairs_on_a_hub(graph, hs)
    want = naive.host_switch_score(hs.hosts, graph.n, graph.edges())
    for ev in (HostSwitchEvaluator(hs.hosts, graph.n, r),
               HostSwitchBfsEvaluator(hs.hosts, graph.n, r)):
        got = ev.evaluate(graph)
        if want is None:
            assert not got.connected
        else:
            assert (got.diameter, got.total) == want[:2]
    if want is not None:  # the bound of the design holds
        d, aspl = hs.bounds()
        pairs = hs.hosts * (hs.hosts - 1) // 2
        assert want[0] >= d and want[1] >= aspl * pairs


@given(st.integers(0, 10**6), st.integers(3, 12), st.integers(2, 4), st.integers(1, 4),
       st.integers(0, 3000))
@settings(max_examples=40, deadline=None)
def test_the_trades_count_their_pairs_and_end_on_the_best(seed, P, p, extra, steps):
    """pack's count equals a recount in Python of its end state (pairs of leaves whose hubs
    meet), its rows and memberships agree, every leaf and hub keeps its count, and it ends at
    least as high as it started."""
    B = p + extra
    rng = np.random.default_rng(seed)
    hubs_of = np.stack([rng.choice(B, size=p, replace=False) for _ in range(P)]).astype(np.int32)
    members = np.full((B, P), -1, dtype=np.int32)
    for j in range(B):
        on = np.flatnonzero((hubs_of == j).any(axis=1))
        members[j, :len(on)] = on
    sizes = (members >= 0).sum(axis=1).tolist()
    common = common_counts(members, P)
    start = covered(common)
    got = pack(members, hubs_of, common, steps, 1.0, 0.05, rng_seed(seed))
    assert got >= start
    sets = [set(row.tolist()) for row in hubs_of]
    assert len(set().union(*sets)) <= B and all(len(x) == p for x in sets)
    assert got == sum(1 for a, b in combinations(range(P), 2) if sets[a] & sets[b])
    assert (common == common_counts(members, P)).all()
    for a in range(P):
        assert sets[a] == {j for j in range(B) if a in members[j].tolist()}
    assert (members >= 0).sum(axis=1).tolist() == sizes


def test_a_design_is_the_same_for_a_seed():
    hs = HubSpread(48, 6, 3)
    a, ca = hub_ports(hs, 7, 2000)
    b, cb = hub_ports(hs, 7, 2000)
    assert ca == cb and (a.adj == b.adj).all()


def test_the_trades_raise_the_pairs_on_a_hub():
    hs = HubSpread(432, 12, 6)  # 72 leaves on 36 hubs of 12
    _, start = hub_ports(hs, 1, 0)
    _, packed = hub_ports(hs, 1, 10**6)
    assert packed > start + 100


def test_a_hub_spread_by_hand():
    hs = HubSpread(432, 12, 6)
    assert (hs.leaves, hs.short, hs.ports, hs.links, hs.hubs) == (72, 0, 6, 432, 36)
    assert hs.capacities == [12] * 36 and not hs.spare and hs.near == 66 / 71
    assert hs.label == "72 leaf switches (6 hosts each) on 36 hub switches (12 leaves each)"
    # a leaf has 6 x 11 = 66 of the 71 others two hops away at most, the rest four
    d, aspl = hs.bounds()
    pairs = 432 * 431 // 2
    assert d == 6 and aspl * pairs == 2 * pairs + 432 * 6 * (2 * 66 + 4 * 5) // 2
    short = HubSpread(46, 6, 3)  # 16 leaves, 2 with 2 hosts and a hub more
    assert (short.leaves, short.short, short.links) == (16, 2, 50)
    assert sum(short.capacities) == 50 and max(short.capacities) - min(short.capacities) <= 1
    assert short.spare and short.label.endswith("(6 or 5 leaves each)")
    assert not HubSpread(20, 4, 3).possible()  # one port a leaf: no design connects
    assert HubSpread(20, 4, 3).bounds() is None


@pytest.mark.parametrize("n, r", [(48, 6), (432, 12), (1024, 10), (3800, 30)])
def test_the_hub_spreads_exist_best_bound_first(n, r):
    found = hub_spreads(n, r)
    assert found and all(hs.possible() and hs.leaves <= MAX_LEAVES for hs in found)
    keys = [hs.bounds()[1] for hs in found]
    assert keys == sorted(keys)


def test_the_chase_tries_a_hub_spread_only_where_it_may_win():
    from golf.run.spreads import hub_trial

    picks = {(n, r): hub_trial(n, r, spreads(n, r)[0])
             for n, r in [(48, 6), (432, 12), (32, 4), (80, 6), (1024, 5), (1024, 10),
                          (10000, 10), (10000, 100), (65536, 64)]}
    assert picks[(48, 6)] == HubSpread(48, 6, 3)
    assert picks[(432, 12)] == HubSpread(432, 12, 6)
    # (80, 6), (1024, 5) and (10000, 10): a leaf reaches too few others through its hubs;
    # (65536, 64): none of MAX_LEAVES leaves or fewer; the rest: no bound below the best
    # spread's
    assert all(v is None for k, v in picks.items() if k not in ((48, 6), (432, 12)))


@pytest.mark.slow
def test_a_chase_tries_the_hub_spread_and_polishes_its_winner(tmp_path, monkeypatch):
    """(48, 6) with its spreads cut to the worst (12 switches on a ring) and short trials:
    the hub spread's design and climb are the second trial, win, take the winner's stage
    with further rounds, and the polish climbs; the record, the log and the exported graph
    (against networkx) say so."""
    import golf.hostswitch.spread as spread
    import golf.run.spreads as sp
    from golf.hostswitch.orp_format import read_host_switch

    worst = spreads(48, 6)[-1]
    monkeypatch.setattr(spread, "spreads", lambda n, r: [worst])
    monkeypatch.setattr(sp, "MIN_TRIAL_SECONDS", 3.5)  # two trials in the 7.2 s of trials
    monkeypatch.setattr(sp, "HUB_ROUND", 3.0)
    monkeypatch.setattr(sp, "MIN_HUB_ROUND", 1.0)
    summary = sp.spread_chase(48, 6, minutes=0.4, out=tmp_path, quiet=True)
    rec = json.loads((tmp_path / "h48r6" / "spreads.json").read_text())
    assert [t["kind"] for t in rec["trials"]] == ["spread", "hubs"]
    t = rec["trials"][1]
    assert t["label"] == HubSpread(48, 6, 3).label and t["switch_count"] == 24
    assert t["design"]["pairs"] == 120 and 0 < t["design"]["covered"] <= 120
    assert t["h"] is not None and tuple(t["h"]) <= tuple(t["design"]["h"])
    assert rec["winner"] == t["label"] and rec["main"]["kind"] == "hubs"
    seen = [r["round"] for r in t["rounds"] + rec["main"]["rounds"]]
    assert seen == list(range(len(seen))) and len(rec["main"]["rounds"]) >= 2
    assert any("of the hub spread" in line for line in rec["log"])
    assert any("hill, as the hub spread's trial" in line for line in rec["log"])
    assert summary["method"] == "hill" and rec["switch_count"] == 24
    net = read_host_switch(tmp_path / "h48r6" / "best.edges")
    got = naive.host_switch_score(48, net.s, net.edges())[:2]
    assert got == (summary["best"]["diameter"], summary["best"]["total"])
    assert list(got) <= min(t["h"], rec["main"]["h"])
