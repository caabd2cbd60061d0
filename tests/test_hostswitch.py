"""Host-switch graphs (golf.hostswitch): the model, ORP's file format, the exact h-scores
against a BFS over the whole host-switch graph (tests/naive.py), and the Order/Radix bounds
against a search over every way to fill a host's shortest-path tree."""

import gzip
import itertools
import math
import os
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, strategies as st

import naive
from conftest import ROOT
from golf.errors import GolfError
from golf.evaluators.base import DISCONNECTED, OK
from golf.evaluators.h_scoring import (h_score, hosts_reached, plan_chunks, switch_sums,
                                       weight_runs)
from golf.hostswitch import (HostSwitchGraph, check_host_switch, fewest_switches,
                             host_switch_bounds, is_orp_file, read_host_switch,
                             write_host_switch)
from golf.hostswitch.radix_bounds import _spread_loss, pair_count_bound

SAMPLE = Path(ROOT) / "tests" / "data" / "h32s26r4.edges"


def random_wiring(rng, n, s, r, full, spare=0.0):
    """A random host-switch edge list (file ids): ``n`` hosts spread over ``s`` switches of
    radix ``r`` (some switches may hold none), then random switch-switch edges on free
    ports: with ``full``, until no two non-adjacent switches both have a free port; else a
    random number of tries. ``spare`` leaves that share of each switch's ports to hosts only
    (fewer switch edges, more disconnected graphs)."""
    cap = np.full(s, r)
    edges = []
    for h in range(n):
        free = np.flatnonzero(cap > 0)
        a = int(rng.choice(free))
        cap[a] -= 1
        edges.append((h, n + a))
    cap = cap - np.floor(cap * spare).astype(int)
    adjacent = set()
    tries = 10 * s * r if full else int(rng.integers(0, 2 * s * r + 1))
    for _ in range(tries):
        a, b = (int(x) for x in rng.integers(0, s, 2))
        if a != b and cap[a] > 0 and cap[b] > 0 and (min(a, b), max(a, b)) not in adjacent:
            adjacent.add((min(a, b), max(a, b)))
            cap[a] -= 1
            cap[b] -= 1
            edges.append((n + a, n + b) if rng.random() < 0.5 else (n + b, n + a))
    if full:  # every pair that still can take an edge gets it
        for a, b in itertools.combinations(range(s), 2):
            if cap[a] > 0 and cap[b] > 0 and (a, b) not in adjacent:
                adjacent.add((a, b))
                cap[a] -= 1
                cap[b] -= 1
                edges.append((n + a, n + b))
    order = rng.permutation(len(edges))
    return [edges[k] for k in order]


@st.composite
def wirings(draw):
    s = draw(st.integers(1, 12))
    r = draw(st.integers(1, 7))
    n = draw(st.integers(1, s * r))
    full = draw(st.booleans())
    spare = draw(st.sampled_from([0.0, 0.0, 0.5, 1.0]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    return n, s, r, random_wiring(rng, n, s, r, full, spare)


def orp_text(n, s, r, edges):
    return f"{n} {s} {r}\n" + "".join(f"{u} {v}\n" for u, v in edges)


# -- scoring ---------------------------------------------------------------------------
@given(wirings())
def test_h_score_matches_a_bfs_over_the_whole_graph(wiring):
    n, s, r, edges = wiring
    net = HostSwitchGraph.from_edges(n, s, r, edges)
    score = h_score(net)
    want = naive.host_switch_score(n, s, edges)
    assert score.n == n
    if want is None:
        assert score.status == DISCONNECTED and score.diameter is None
        assert score.total is None and not score.connected
        assert hosts_reached(net) < n
    else:
        assert score.status == OK and hosts_reached(net) == n
        assert (score.diameter, score.total, score.peripheral) == want
        if n > 1:
            assert score.aspl == want[1] / math.comb(n, 2)


def test_the_random_graphs_cover_what_they_should():
    """The generator draws connected and disconnected graphs, switches without hosts and
    switches with every port taken."""
    rng = np.random.default_rng(5)
    seen = set()
    for _ in range(300):
        s, r = int(rng.integers(1, 9)), int(rng.integers(1, 6))
        n = int(rng.integers(1, s * r + 1))
        edges = random_wiring(rng, n, s, r, bool(rng.integers(2)), float(rng.choice([0, .5])))
        net = HostSwitchGraph.from_edges(n, s, r, edges)
        seen.add(("connected", h_score(net).connected))
        seen.add(("empty switch", bool((net.host_counts == 0).any())))
        seen.add(("full switch", bool((net.ports_used == r).any())))
    assert seen == {(k, v) for k in ("connected", "empty switch", "full switch")
                    for v in (True, False)}


def test_orp_sample_check_values():
    """ORP's sample h32s26r4: h-diameter 11, h-ASPL 5.9677419355 = 2960/496 (published)."""
    duplicates = []
    net = read_host_switch(SAMPLE, duplicates=duplicates)
    assert (net.n, net.s, net.r) == (32, 26, 4)
    score = h_score(net)
    assert (score.diameter, score.total) == (11, 2960)
    assert math.comb(32, 2) == 496 and round(score.aspl, 10) == 5.9677419355
    edges = np.loadtxt(SAMPLE, skiprows=1, dtype=np.int64)
    assert naive.host_switch_score(32, 26, edges)[:2] == (11, 2960)
    # the sample repeats two switch-switch edges: reported, left out
    assert [(line, first) for line, first, _, _ in duplicates] == [(61, 59), (69, 68)]
    assert h_score(net, threads=1) == score


def test_h_score_by_hand():
    # two switches of two hosts each, joined: same switch 2, across 3
    net = HostSwitchGraph.from_edges(4, 2, 3, [(0, 4), (1, 4), (2, 5), (3, 5), (4, 5)])
    s = h_score(net)
    assert (s.diameter, s.total, s.peripheral) == (3, 2 * 2 + 4 * 3, 4)
    # one host: nothing to measure
    one = HostSwitchGraph.from_edges(1, 2, 3, [(0, 1)])
    assert (h_score(one).diameter, h_score(one).total) == (0, 0)
    # a switch without hosts in between, and one left alone: distances go through it
    path = HostSwitchGraph.from_edges(2, 4, 2, [(0, 2), (1, 4), (2, 3), (3, 4)])
    assert (h_score(path).diameter, h_score(path).total) == (4, 4)
    cut = HostSwitchGraph.from_edges(2, 2, 2, [(0, 2), (1, 3)])
    assert h_score(cut).status == DISCONNECTED


def test_h_score_in_chunks_and_on_threads_matches_a_bfs():
    """Over 128 switches with hosts: three or more column words, cut into chunks of one or
    two words or as planned, on one thread or more, connected or not: every way gives the
    BFS's values over the whole graph."""
    connected = []
    for seed in range(6):
        rng = np.random.default_rng(seed)
        s = int(rng.integers(180, 240))
        r = int(rng.integers(5, 8))
        n = int(rng.integers(s, 3 * s // 2))
        edges = random_wiring(rng, n, s, r, full=seed != 3, spare=0.5 if seed == 3 else 0.0)
        net = HostSwitchGraph.from_edges(n, s, r, edges)
        assert (net.host_counts > 0).sum() > 128 and (net.host_counts == 0).any()
        want = naive.host_switch_score(n, s, edges)
        connected.append(want is not None)
        for threads, cw in [(1, None), (1, 1), (2, 1), (2, 2), (2, None), (3, 1)]:
            score = h_score(net, threads=threads, chunk_words=cw)
            if want is None:
                assert score.status == DISCONNECTED and score.total is None
            else:
                assert (score.diameter, score.total, score.peripheral) == want, (threads, cw)
    assert set(connected) == {True, False}


def test_h_score_equals_the_bfs_kernel_on_a_larger_graph():
    """s = 900 switches of radix 8, one to four hosts each: the bit matrix in chunks (one
    thread and two) gives what a BFS from every switch with hosts gives (switch_sums)."""
    rng = np.random.default_rng(11)
    s, r = 900, 8
    counts = rng.integers(1, 5, s)
    n = int(counts.sum())
    edges = [(h, n + a) for h, a in enumerate(np.repeat(np.arange(s), counts))]
    stubs = np.repeat(np.arange(s), r - counts)
    rng.shuffle(stubs)
    seen = set()
    for a, b in stubs[: len(stubs) // 2 * 2].reshape(-1, 2):
        if a != b and (min(a, b), max(a, b)) not in seen:
            seen.add((min(a, b), max(a, b)))
            edges.append((n + a, n + b))
    net = HostSwitchGraph.from_edges(n, s, r, edges)
    sources = np.flatnonzero(net.host_counts).astype(np.int64)
    wsum, far, reached = (np.zeros(len(sources), dtype=np.int64) for _ in range(3))
    switch_sums(net.switches.adj, net.host_counts, sources, wsum, far, reached)
    assert (reached == n).all()
    total = n * (n - 1) + int((net.host_counts[sources] * wsum).sum()) // 2
    peripheral = int(net.host_counts[sources][far == far.max()].sum())
    want = (int(far.max()) + 2, total, peripheral)
    for threads, cw in [(1, None), (2, None), (2, 1), (2, 3)]:
        score = h_score(net, threads=threads, chunk_words=cw)
        assert (score.diameter, score.total, score.peripheral) == want


@given(st.lists(st.integers(1, 9), min_size=1, max_size=300))
def test_weight_runs_split_each_word_into_its_runs_of_weights(ws):
    weights = np.sort(np.array(ws, dtype=np.int64))
    ptr, mask, weight, word = weight_runs(weights)
    k = len(weights)
    assert len(ptr) == (k + 63) // 64 + 1 and ptr[0] == 0 and ptr[-1] == len(mask)
    for w in range(len(ptr) - 1):
        runs = range(ptr[w], ptr[w + 1])
        assert all(word[q] == w for q in runs)
        got = np.zeros(min(64, k - 64 * w), dtype=np.int64)
        for q in runs:
            bits = [b for b in range(64) if int(mask[q]) >> b & 1]
            assert bits == list(range(bits[0], bits[-1] + 1))  # one run of columns
            assert (got[bits] == 0).all()  # runs do not overlap
            got[bits] = weight[q]
        assert (got == weights[64 * w: 64 * w + len(got)]).all()
    assert len(mask) <= (k + 63) // 64 + len(set(ws)) - 1


def test_plan_chunks_splits_the_words_evenly_over_the_threads():
    for s, r, k in [(3000, 64, 3000), (5000, 10, 5000), (8192, 64, 8192), (1024, 5, 1024)]:
        words, cw, workers = plan_chunks(s, r, k, 2)
        nchunks = -(-words // cw)
        assert words == -(-k // 64) and workers == 2 and nchunks % 2 == 0
    assert plan_chunks(330, 48, 330, 2) == (6, 6, 1)  # 6 words: too narrow to split
    assert plan_chunks(26, 4, 26, 2) == (1, 1, 1)  # small: one thread
    assert plan_chunks(26, 4, 26, 2, 5) == (1, 1, 1)
    assert plan_chunks(900, 8, 900, 4, 2) == (15, 2, 4)  # a chunk width given: as it is


# -- the model and the file format -----------------------------------------------------
@given(wirings(), st.booleans())
def test_write_then_read_gives_the_same_graph(tmp_path_factory, wiring, gz):
    n, s, r, edges = wiring
    net = HostSwitchGraph.from_edges(n, s, r, edges)
    net.check()
    folder = tmp_path_factory.mktemp("w")
    path = folder / ("g.edges.gz" if gz else "g.edges")
    write_host_switch(path, net)
    assert os.listdir(folder) == [path.name]  # the temporary file is gone
    back = read_host_switch(path)
    assert back == net and back.num_edges == len(edges) == net.num_edges
    assert is_orp_file(path)
    text = gzip.open(path, "rt").read() if gz else path.read_text()
    header, *rows = text.splitlines()
    assert header == f"{n} {s} {r}" and len(rows) == len(edges)
    pairs = {tuple(sorted(map(int, row.split()))) for row in rows}
    assert pairs == {tuple(sorted(e)) for e in edges}
    assert np.array_equal(net.host_counts, np.bincount(net.host_switch, minlength=s))


def test_rows_are_kernel_friendly():
    net = HostSwitchGraph.from_edges(4, 3, 4, [(0, 4), (1, 4), (2, 5), (3, 6), (4, 5),
                                                (5, 6), (4, 6)])
    adj = net.switches.adj
    assert adj.dtype == np.int32 and adj.shape == (3, 4) and adj.flags.c_contiguous
    assert adj.tolist() == [[1, 2, -1, -1], [0, 2, -1, -1], [0, 1, -1, -1]]
    assert net.host_switch.tolist() == [0, 0, 1, 2]
    assert net.host_counts.tolist() == [2, 1, 1] and net.ports_used.tolist() == [4, 3, 3]


def test_check_finds_a_broken_graph():
    net = HostSwitchGraph.from_edges(3, 2, 3, [(0, 3), (1, 3), (2, 4), (3, 4)])
    bad = net.copy()
    bad.host_switch[2] = 0  # switch 3 now holds 3 hosts and one switch edge: 4 > r
    with pytest.raises(GolfError, match="switch 3 has 4 edges"):
        bad.check()
    with pytest.raises(GolfError, match="switch 3 has 4 edges"):
        write_host_switch("never-written.edges", bad)
    assert not os.path.exists("never-written.edges")
    bad = net.copy()
    bad.host_switch[0] = 7
    with pytest.raises(GolfError, match="host 0 is on switch 7"):
        bad.check()


BROKEN = [
    # (file text, the line named, what the message says)
    ("", None, "empty: expected the header"),
    ("3 2\n0 3\n", 1, "expected the header 'hosts switches radix'"),
    ("3 x 4\n", 1, "expected the header"),
    ("0 2 4\n", 1, "the number of hosts must be >= 1, got 0"),
    ("2 1 0\n0 2\n1 2\n", 1, "the radix must be >= 1, got 0"),
    ("2 1 3\n0 2\n1 2 3\n", 3, "expected 2 columns 'u v'"),
    ("2 1 3\n0 2\n1 q\n", 3, "expected an integer vertex id, found 'q'"),
    ("2 1 3\n0 2\n-1 2\n", 3, "negative vertex id -1"),
    ("2 1 3\n0 2\n1 3\n", 3, "vertex id 3 out of range in '1 3': expected ids < n+s = 3"),
    ("2 2 3\n0 2\n1 3\n3 3\n", 4, "self-loop '3 3'"),
    ("3 1 3\n0 3\n1 3\n2 3\n1 2\n", 5, "edge '1 2' joins two hosts"),
    ("2 2 3\n0 2\n1 3\n2 3\n3 2\n", 5, "duplicate edge '3 2' (first on line 4)"),
    ("2 2 3\n0 2\n1 3\n0 3\n2 3\n", 4, "host 0 has a second edge '0 3' (its first is on "
     "line 2)"),
    ("4 2 3\n0 4\n1 4\n2 4\n4 5\n3 5\n", 5, "switch 4 has 4 edges, more than the radix r=3"),
    ("3 1 3\n0 3\n2 3\n", None, "host 1 has no edge"),
    ("5000 1 3\n0 5000\n", None, "5000 hosts but 1 host edges"),
    ("2 100000000 3\n0 2\n1 2\n", None, "100000000 switches of radix 3 would take"),
    ("2 2 3\n\n0 2\n\n1 3\n2 3\n# c\n", 7, "found '#' in '# c'"),
]


@pytest.mark.parametrize("text,line,needle", BROKEN)
def test_reading_refuses_each_broken_rule(tmp_path, text, line, needle):
    p = tmp_path / "bad.edges"
    p.write_text(text)
    with pytest.raises(GolfError) as info:
        read_host_switch(p)
    msg = str(info.value)
    assert needle in msg
    assert msg.startswith(f"{p}:{line}: " if line else f"{p}: ")
    if line == 1 or not text:  # nothing to check without the header: the validator too
        with pytest.raises(GolfError, match=needle):
            check_host_switch(p)
    else:  # the validator lists the same problem
        problems, net = check_host_switch(p)
        assert net is None and any(needle in m for m in problems)


def test_the_duplicate_of_a_read_counts_against_the_radix(tmp_path):
    p = tmp_path / "dup.edges"
    p.write_text("2 2 2\n0 2\n1 3\n2 3\n3 2\n")  # the repeat takes switch 2's third port
    with pytest.raises(GolfError, match=":5: switch 2 has 3 edges"):
        read_host_switch(p, duplicates=[])


def test_validator_lists_every_problem_with_its_line(tmp_path):
    p = tmp_path / "many.edges"
    p.write_text("4 2 3\n0 4\n0 5\n1 2\n4 5\n5 4\n9 4\n4 x\n")
    problems, net = check_host_switch(p)
    assert net is None and len(problems) == 8
    at = [m.split(":")[1] for m in problems[:5]]
    assert at == ["3", "4", "6", "7", "8"]
    wanted = ["host 0 has a second edge '0 5'", "edge '1 2' joins two hosts",
              "duplicate edge '5 4' (first on line 5)", "vertex id 9 out of range", "found 'x'"]
    assert all(w in m for w, m in zip(wanted, problems))
    for m, h in zip(problems[5:], (1, 2, 3)):  # problems of the whole file come last
        assert m.startswith(f"{p}: host {h} has no edge")


def test_validator_counts_what_it_does_not_list(tmp_path):
    p = tmp_path / "hosts.edges"
    p.write_text("30 1 40\n0 30\n")
    problems, _ = check_host_switch(p)
    assert len(problems) == 11 and problems[-1].endswith("19 more hosts without an edge")


@pytest.mark.parametrize("text,orp", [
    ("32 26 4\n0 32\n", True), ("  \n\n3 1 3\n", True), ("0 1\n1 2\n", False),
    ("0,0 1,1\n", False), ("", False), ("1 2 x\n", False), ("1 2 3 4\n", False),
    ("0 1 2\n", False), ("3 -1 4\n", False), ("3 +1 4\n", True),
])
def test_the_format_is_told_by_its_first_line(tmp_path, text, orp):
    p = tmp_path / "f.edges"
    p.write_text(text)
    assert is_orp_file(p) is orp


def test_from_edges_refuses_a_duplicate():
    with pytest.raises(GolfError, match="<edges>:4: duplicate edge '3 2'"):
        HostSwitchGraph.from_edges(2, 2, 3, [(0, 2), (1, 3), (2, 3), (3, 2)])


# -- the bounds ------------------------------------------------------------------------
@pytest.mark.parametrize("n,r,diameter,aspl", [
    (32, 4, 5, "4.1935483871"), (1024, 10, 5, "4.3235581623"), (65536, 64, 4, "3.9545891508"),
])
def test_bounds_check_values(n, r, diameter, aspl):
    """The values that ORP prints for these pairs."""
    b = host_switch_bounds(n, r)
    assert b.diameter == diameter and f"{float(b.aspl):.10f}" == aspl
    assert b.total == math.ceil(b.aspl * math.comb(n, 2))


@pytest.mark.parametrize("n,r", [(n, r) for n in range(1, 40) for r in range(1, 9)])
def test_bounds_equal_the_best_filling_of_a_hosts_tree(n, r):
    b = host_switch_bounds(n, r)
    assert (b.diameter, b.aspl) == naive.host_switch_bounds(n, r)


def test_bounds_of_degenerate_pairs():
    assert (host_switch_bounds(1, 1).diameter, host_switch_bounds(1, 1).aspl) == (0, 0)
    assert host_switch_bounds(2, 2).aspl == 2 and host_switch_bounds(3, 2).diameter is None
    assert host_switch_bounds(2, 1).aspl is None and host_switch_bounds(2, 1).total is None
    with pytest.raises(GolfError, match="hosts must be >= 1"):
        host_switch_bounds(0, 4)
    with pytest.raises(GolfError, match="radix must be >= 1"):
        host_switch_bounds(4, 0)


@given(wirings())
def test_no_graph_beats_the_bounds(wiring):
    n, s, r, edges = wiring
    score = h_score(HostSwitchGraph.from_edges(n, s, r, edges))
    b = host_switch_bounds(n, r)
    count = pair_count_bound(n, r)
    if score.connected:
        assert score.diameter >= b.diameter and score.total >= b.total
        assert s >= b.min_switches
        assert score.total >= count[0]
        assert count[1] == (Fraction(count[0], math.comb(n, 2)) if n > 1 else 0)
    if b.diameter is None:
        assert not score.connected and count is None


def _partitions(n, top):
    """Every multiset of parts in [1, top] summing to n, as tuples (largest first)."""
    if n == 0:
        yield ()
        return
    for first in range(min(n, top), 0, -1):
        for rest in _partitions(n - first, first):
            yield (first,) + rest


@pytest.mark.parametrize("n,r", [(n, r) for n in range(1, 19) for r in range(3, 9)])
def test_the_spread_loss_is_the_least_over_every_spread(n, r):
    top = r if n <= r else r - 1
    want = min(sum(h * (2 * h - r - 2) ** 2 for h in p) for p in _partitions(n, top))
    assert _spread_loss(n, r) == want


def test_the_pair_count_bound_is_met_where_its_graph_exists():
    """r/2 + 1 hosts a switch, every port used, unlinked switches 2 apart: two linked
    switches of radix 4 with 3 hosts each, and a 5-cycle of switches of radix 6 with 4 hosts
    each (its host pairs 2, 3 and 4 apart)."""
    edges = [(h, 6 + h // 3) for h in range(6)] + [(6, 7)]
    assert naive.host_switch_score(6, 2, edges)[1] == pair_count_bound(6, 4)[0] == 39
    cycle = [(20 + a, 20 + (a + 1) % 5) for a in range(5)]
    edges = [(h, 20 + h // 4) for h in range(20)] + cycle
    got = naive.host_switch_score(20, 5, edges)[1]
    assert got == pair_count_bound(20, 6)[0] == 5 * 6 * 2 + 5 * 16 * 3 + 5 * 16 * 4


def components(s, switch_edges):
    """The components of the switch graph, as lists of switches (union-find)."""
    parent = list(range(s))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in switch_edges:
        parent[find(a)] = find(b)
    out = {}
    for a in range(s):
        out.setdefault(find(a), []).append(a)
    return list(out.values())


@pytest.mark.parametrize("n,r", [(n, r) for n in range(1, 7) for r in range(1, 6)])
def test_fewest_switches_is_the_least_that_connects(n, r):
    """Every switch edge set on up to 5 switches: the hosts can all be connected when one
    component of the switch graph has n free ports."""
    least = None
    for s in range(1, 6):
        pairs = list(itertools.combinations(range(s), 2))
        for mask in range(1 << len(pairs)):
            se = [p for k, p in enumerate(pairs) if mask >> k & 1]
            free = r - np.bincount(np.array(se, dtype=int).ravel(), minlength=s)
            if (free >= 0).all() and any(free[c].sum() >= n for c in components(s, se)):
                least = s
                break
        if least is not None:
            break
    assert fewest_switches(n, r) == least


@pytest.mark.parametrize("n,r", [(n, r) for n in range(2, 6) for r in range(2, 5)])
def test_no_small_graph_beats_the_bounds(n, r):
    """Every host-switch graph of up to 3 switches; where hosts fit on one switch, or for
    (4, 3) (two switches of two hosts), the best of them meets the bound."""
    b = host_switch_bounds(n, r)
    best = None
    for s in range(1, 4):
        pairs = list(itertools.combinations(range(s), 2))
        for mask in range(1 << len(pairs)):
            se = [(n + a, n + c) for k, (a, c) in enumerate(pairs) if mask >> k & 1]
            for where in itertools.product(range(s), repeat=n):
                edges = [(h, n + a) for h, a in enumerate(where)] + se
                if np.bincount(np.array(edges).ravel(), minlength=n + s)[n:].max() > r:
                    continue
                got = naive.host_switch_score(n, s, edges)
                if got is not None and (best is None or got[:2] < best):
                    best = got[:2]
    if b.diameter is None:
        assert best is None
        return
    assert best[0] >= b.diameter and best[1] >= b.total
    if n <= r or (n, r) == (4, 3):
        assert best == (b.diameter, b.total)
        assert Fraction(best[1], math.comb(n, 2)) == b.aspl


@pytest.mark.parametrize("module", ["golf.hostswitch.network", "golf.hostswitch.orp_format",
                                    "golf.evaluators.h_scoring", "golf.hostswitch.radix_bounds",
                                    "golf.starts.switch_wiring"])
def test_docstring_examples(module):
    import doctest
    import importlib

    mod = importlib.import_module(module)
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


def test_the_docs_example_file_reads(tmp_path):
    """docs/hostswitch.md's example of the format is a valid host-switch file."""
    from test_docs import blocks

    (_, text), = [b for b in blocks("docs/hostswitch.md", {"text"}) if "+" not in b[1]]
    p = tmp_path / "example.edges"
    p.write_text(text)
    assert is_orp_file(p)
    net = read_host_switch(p)
    assert (net.n, net.s, net.r) == (4, 2, 3)
    assert h_score(net)[1:3] == naive.host_switch_score(4, 2, net.edges())[:2]


def test_the_old_name_of_h_score_warns_and_gives_the_scorer():
    import golf.hostswitch
    from golf.evaluators import h_scoring

    with pytest.warns(DeprecationWarning, match="golf.evaluators.h_scoring.h_score"):
        assert golf.hostswitch.h_score is h_scoring.h_score
