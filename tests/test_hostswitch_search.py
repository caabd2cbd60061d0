"""The search on host-switch graphs (golf.hostswitch): port rows, host moves that keep every
rule and undo exactly, the search's evaluator against a BFS over the whole graph, runs from
YAML that write ORP files and resume, golf chase --host-switch and golf export's names."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from golf.config import validate
from golf.engine.annealer import SC, Annealer
from golf.engine.moves import HOST_PORT, new_undo, propose_host, propose_move, undo_swap
from golf.errors import GolfError
from golf.evaluators.h_bitset import HostSwitchEvaluator
from golf.evaluators.h_scoring import recheck
from golf.hostswitch.orp_format import read_host_switch
from golf.hostswitch.ports import PortGraph, check_ports, host_counts, to_graph, to_ports
from golf.starts.switch_wiring import polarity_fits, polarity_ports, random_ports
from golf.hostswitch.radix_bounds import even_switches, host_switch_bounds, suggested_switches
from golf.kernels.rng import rng_seed
from golf.run import resume_run, run_config

from conftest import run_golf
from naive import host_switch_score

SHAPES = [(32, 26, 4), (32, 16, 4), (80, 40, 6), (128, 8, 24), (200, 60, 8), (9, 3, 5)]


def _score(graph):
    ev = HostSwitchEvaluator(graph.hosts, graph.n, graph.d, threads=1)
    s = ev.evaluate(graph)
    return None if not s.connected else (s.diameter, s.total, s.peripheral)


@given(st.sampled_from(SHAPES), st.integers(0, 10**6), st.integers(0, 400))
@settings(max_examples=40, deadline=None)
def test_moves_keep_every_rule_and_the_evaluator_matches_a_bfs(shape, seed, steps):
    n, s, r = shape
    ports = random_ports(n, s, r, seed=seed)
    graph = PortGraph(n, ports)
    graph.check()
    assert _score(graph) == host_switch_score(n, s, graph.edges())
    rng, undo = rng_seed(seed), new_undo()
    for step in range(steps):
        before = graph.adj.copy()
        if not propose_move(graph.adj, s, 1, rng, undo, 0, None, 300, None, 500):
            continue
        graph.check()
        assert host_counts(graph.adj).sum() == n
        if step % 4 == 0:
            undo_swap(graph.adj, undo)
            assert np.array_equal(graph.adj, before)
    assert _score(graph) == host_switch_score(n, s, graph.edges())
    assert (recheck(graph.net()) == (None, None)) == (_score(graph) is None)
    if _score(graph) is not None:
        assert recheck(graph.net()) == _score(graph)[:2]


def test_host_moves_take_free_ports_and_links():
    ports = random_ports(80, 40, 6, seed=3)
    for a in (0, 5, 9):  # free ports: the start takes every link it can
        b = ports[a, 0]
        ports[a, 0] = -1
        ports[b][ports[b] == a] = -1
    check_ports(ports, 80, 6)
    rng, undo = rng_seed(1), new_undo()
    kinds = set()
    for _ in range(500):
        before = ports.copy()
        assert propose_host(ports, rng, undo, 64)
        kinds.add(int(undo[0]))  # 2 slots: onto a free port; 3: a link handed over
        changed = np.argwhere(ports != before)
        assert len(changed) == undo[0]
        assert (host_counts(ports) - host_counts(before)).tolist().count(0) >= 40 - 2
        check_ports(ports, 80, 6)
    assert kinds == {2, 3}
    one = random_ports(4, 1, 5, seed=1)  # one switch: a host has nowhere else to go
    assert not propose_host(one, rng, undo, 64)
    assert host_counts(one).tolist() == [4]


def test_port_rows_round_trip_an_orp_file(tmp_path):
    from pathlib import Path

    net = read_host_switch(Path(__file__).parent / "data" / "h32s26r4.edges", duplicates=[])
    graph = PortGraph(net.n, to_ports(net))
    graph.check()
    back = to_graph(net.n, net.r, graph.adj)
    assert host_switch_score(32, 26, back.edges()) == host_switch_score(32, 26, net.edges())
    assert _score(graph)[:2] == (11, 2960)  # ORP's published values for this sample
    assert np.array_equal(to_ports(back), to_ports(to_graph(32, 4, to_ports(back))))


def test_random_ports_are_connected_even_and_seeded():
    for n, s, r in SHAPES:
        ports = random_ports(n, s, r, seed=5)
        counts = host_counts(ports)
        assert counts.max() - counts.min() <= 1 and counts.sum() == n
        assert host_switch_score(n, s, PortGraph(n, ports).edges()) is not None
        assert np.array_equal(random_ports(n, s, r, seed=5), ports)
    with pytest.raises(GolfError, match="no connected host-switch graph"):
        random_ports(30, 10, 3)  # 3 hosts a switch leave no port for a link
    assert suggested_switches(32, 4) == 32 and suggested_switches(128, 24) == 8
    # ORP_Optimize_switches on the 13 featured pairs of 2021 (mnakao/ORP, utils.c), the
    # same estimate
    pairs = [(32, 4), (80, 6), (128, 24), (432, 12), (1281, 21), (3800, 30), (1024, 5),
             (1024, 10), (4608, 36), (8208, 48), (10000, 10), (10000, 100), (65536, 64)]
    assert [even_switches(n, r) for n, r in pairs] == [26, 33, 8, 101, 138, 297, 1250, 400,
                                                       243, 328, 5051, 196, 3045]


@pytest.mark.slow
def test_annealing_lowers_the_h_total_and_keeps_the_rules():
    n, s, r = 80, 40, 6
    graph = PortGraph(n, random_ports(n, s, r, seed=2))
    ev = HostSwitchEvaluator(n, s, r, threads=1)
    ann = Annealer(graph, ev, steps=3000, seed=1, host_moves=0.3, near_moves=0.5,
                   bounds=host_switch_bounds(n, r))
    ann.set_temperatures(*ann.auto_temperatures(100)[:2])
    ann.run(3000)
    best = ann.best_graph()
    best.check()
    want = host_switch_score(n, s, best.edges())
    assert want[:2] == (ann.sc[SC.BEST_D], ann.sc[SC.BEST_TOTAL])
    assert ann.sc[SC.BEST_TOTAL] < ann.start_score.total
    assert (host_counts(best.adj) != host_counts(graph.adj)).any()  # hosts moved


def _cfg(folder, problem="hosts: 80, radix: 6, switches: 40", steps=3000, extra=""):
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / "h.yaml"
    p.write_text(f"""name: h
problem: {{{problem}}}
search: {{steps: {steps}, seed: 3{extra}}}
evaluator: {{threads: 1}}
output: {{dir: {folder / 'out'}, checkpoint_every: 0.05, trace_every: 200, plot: false}}
""")
    return p, folder / "out" / "h"


@pytest.mark.slow
@pytest.mark.parametrize("extra", ["", ", batch: 3, population: tempering"])
def test_run_writes_an_orp_file_resumes_and_exports(tmp_path, extra):
    p, rd = _cfg(tmp_path, extra=extra)
    want = run_config(p, quiet=True)[0]
    assert want["problem"] == {"kind": "host-switch", "hosts": 80, "radix": 6, "switches": 40}
    net = read_host_switch(rd / "best.edges")
    assert (net.n, net.s, net.r) == (80, 40, 6)
    assert host_switch_score(80, 40, net.edges())[:2] == (want["best"]["diameter"],
                                                          want["best"]["total"])
    assert want["bounds"]["diameter"] == host_switch_bounds(80, 6).diameter
    assert abs(want["best"]["aspl"] - want["best"]["total"] / (80 * 79 / 2)) < 1e-12
    # a resume from the last checkpoint but one ends where the run ended
    (rd / "summary.json").unlink()
    (rd / "checkpoint.npz").unlink()
    (rd / "checkpoint.prev.npz").rename(rd / "checkpoint.npz")
    got = resume_run(rd, quiet=True)
    assert got["best"] == want["best"] and got["steps"] == want["steps"]
    out = run_golf("export", rd, "-o", str(tmp_path) + "/", check=True).stdout
    d, total = want["best"]["diameter"], want["best"]["total"]
    name = f"h80r6k{d}l{200 * total // (80 * 79)}.edges"
    assert name in out and (tmp_path / name).exists()


@pytest.mark.parametrize("problem,match", [
    ({"hosts": 32}, "missing problem.radix"),
    ({"radix": 4}, "set problem.hosts too"),
    ({"hosts": 32, "radix": 4, "d": 5}, "degree is its radix"),
    ({"hosts": 32, "radix": 4, "grid": [4, 8]}, "problem.grid: not for a host-switch"),
    ({"hosts": 32, "radix": 4, "switches": 10}, "cannot connect 32 hosts"),
    ({"hosts": 32, "radix": 4, "start": "circulant"}, "random, algebraic or an ORP file"),
])
def test_config_refuses_a_bad_host_switch_problem(problem, match):
    with pytest.raises(GolfError, match=match):
        validate({"name": "h", "problem": problem, "search": {"steps": 10}}, lambda k: "h.yaml")


@pytest.mark.parametrize("section,match", [
    ({"search": {"steps": 10, "method": "tabu"}}, "anneals"),
    ({"search": {"steps": 10}, "evaluator": {"backend": "seidel"}},
     "unknown backend 'seidel' for a host-switch problem; expected one of: auto, bitset, bfs, "
     "gpu-bitset"),
    ({"search": {"steps": 10}, "evaluator": {"backend": "bfs", "chunk_words": 2}},
     r"backend 'bfs' \(host-switch\) has no option 'chunk_words'; its options: threads"),
    ({"search": {"steps": 10}, "evaluator": {"backend": "gpu-bitset", "threads": 2}},
     r"'gpu-bitset' \(host-switch\) has no option 'threads'; its options: device"),
])
def test_config_refuses_what_a_host_switch_search_cannot_do(section, match):
    with pytest.raises(GolfError, match=match):
        validate({"name": "h", "problem": {"hosts": 32, "radix": 4}, **section},
                 lambda k: "h.yaml")


def test_a_host_switch_chase_chooses_its_evaluator():
    from golf.evaluators import gpu_usable
    from golf.run.chase import chase_backend

    def chosen(asked, n, r):
        return chase_backend(n, r, asked, host_switch=True).name

    gpu = "gpu-bitset" if gpu_usable() else "bitset"
    # the even-spread estimates: 26, 196, 1250, 5051, 3045 switches
    for n, r, want in ((32, 4, "bitset"), (10000, 100, "bitset"), (1024, 5, gpu),
                       (10000, 10, gpu), (65536, 64, gpu)):
        assert chosen("auto", n, r) == want, (n, r)
    for asked in ("bitset", "bfs", "gpu-bitset"):
        assert chosen(asked, 32, 4) == asked
    with pytest.raises(GolfError, match="unknown backend 'seidel' for a host-switch problem"):
        chosen("seidel", 32, 4)


@pytest.mark.parametrize("backend", ["bitset", "bfs", "gpu-bitset"])
def test_a_host_switch_chase_walks_one_chain_on_every_backend(backend):
    from golf.run.chase import chase_config

    run = chase_config(10000, 10, minutes=1, backend=backend, host_switch=True)
    assert run.data["evaluator"]["backend"] == backend
    assert run.data["search"]["batch"] == 1
    assert run.data["problem"]["hosts"] == 10000 and run.data["problem"]["radix"] == 10


@pytest.mark.slow
def test_chase_host_switch_from_the_command_line(tmp_path):
    """The spreads tried as Order/Degree chases of their switch graphs, the winner's graph
    polished by the host-switch search and exported; started again, the finished stages are
    reused (golf.run.spreads)."""
    import shutil

    from golf.hostswitch.spread import spreads

    args = ("chase", "--host-switch", 32, 4, "--minutes", 0.15, "--out", tmp_path, "--ranks", 1,
            "--quiet")
    out = run_golf(*args, check=True).stdout
    rd = tmp_path / "h32r4"
    s = json.loads((rd / "summary.json").read_text())
    rec = json.loads((rd / "spreads.json").read_text())
    assert s["problem"]["kind"] == "host-switch" and f"{s['problem']['switches']} switches" in out
    assert s["problem"]["switches"] == rec["switch_count"] == spreads(32, 4)[0].switches
    trial = rec["trials"][0]
    assert trial["switch_count"] == rec["switch_count"] and trial["h"][0] >= trial["bound"][0]
    assert (tmp_path / "h32r4.spreads" / f"s{rec['switch_count']}" / "n32d3" / "best.edges").exists()
    net = read_host_switch(rd / "best.edges")
    got = host_switch_score(32, net.s, net.edges())[:2]
    assert got == (s["best"]["diameter"], s["best"]["total"])
    assert list(got) <= trial["h"]  # the polish starts from the trial's graph
    assert list(rd.glob("h32r4k*.edges"))
    again = run_golf(*args)
    assert again.returncode != 0 and "already holds a run" in again.stderr
    shutil.rmtree(rd)
    run_golf(*args, check=True)
    log = json.loads((rd / "spreads.json").read_text())["log"]
    assert any("finished run" in line and "reused" in line for line in log)


def test_switch_forms_try_the_estimate_first_and_only_what_connects():
    from golf.problems.order_radix import switch_forms

    forms, rule = switch_forms(80, 6)  # 33: ORP_Optimize_switches' value for (80, 6)
    assert [f.switches for f in forms] == [40, 33, 32, 50, 26, 62]
    assert "suggested_switches" in rule and "even_switches" in rule
    forms, _ = switch_forms(32, 4)  # 26 switches of 4 ports hold 32 hosts with links
    assert all(-(-32 // f.switches) < 4 for f in forms) and forms[0].switches == 32
    assert forms[0].label(32) == "32 switches" and forms[0].record(32)["switches"] == 32


def test_a_run_with_switches_auto_tries_them_and_resumes(tmp_path):
    p, rd = _cfg(tmp_path, problem="hosts: 80, radix: 6, switches: auto", steps=4000)
    want = run_config(p, quiet=True)[0]
    auto = want["auto_g"]
    assert want["problem"]["switches"] == auto["form"]["switches"]
    assert len(auto["trials"]) >= 2 and all(t["evaluations"] > 0 for t in auto["trials"])
    assert "switches: " + str(want["problem"]["switches"]) in (rd / "run.yaml").read_text()
    (rd / "summary.json").unlink()
    (rd / "checkpoint.npz").unlink()
    (rd / "checkpoint.prev.npz").rename(rd / "checkpoint.npz")
    got = resume_run(rd, quiet=True)
    assert got["best"] == want["best"] and got["problem"] == want["problem"]


@given(st.sampled_from(SHAPES + [(400, 200, 6), (700, 300, 5)]), st.integers(0, 10**6),
       st.integers(1, 3))
@settings(max_examples=30, deadline=None)
def test_the_work_units_split_anywhere_combine_to_the_whole(shape, seed, cw):
    """What MPI ranks do (parallel: {mode: evaluator}): the units of the evaluator, cut at
    any point, give parts that combine to the whole score."""
    from golf.evaluators.base import combine

    n, s, r = shape
    graph = PortGraph(n, random_ports(n, s, r, seed=seed))
    rng, undo = rng_seed(seed), new_undo()
    for _ in range(int(seed % 50)):
        propose_move(graph.adj, s, 1, rng, undo, 0, None, 300, None, 500)
    ev = HostSwitchEvaluator(n, s, r, threads=1, chunk_words=cw)
    assert ev.units == -(-s // 64)
    whole = ev.evaluate(graph)
    for cut in range(ev.units + 1):
        parts = [ev.partial(graph, 0, cut), ev.partial(graph, cut, ev.units)]
        assert ev.finish(combine(parts)) == whole, cut
    want = host_switch_score(n, s, graph.edges())
    assert (None if not whole.connected else (whole.diameter, whole.total,
                                              whole.peripheral)) == want


@given(st.sampled_from(SHAPES + [(400, 200, 6)]), st.integers(0, 10**6))
@settings(max_examples=30, deadline=None)
def test_the_bfs_evaluator_agrees_with_the_bit_matrix_and_splits(shape, seed):
    from golf.evaluators.base import combine
    from golf.evaluators.h_bfs import HostSwitchBfsEvaluator

    n, s, r = shape
    graph = PortGraph(n, random_ports(n, s, r, seed=seed))
    rng, undo = rng_seed(seed), new_undo()
    for _ in range(int(seed % 60)):
        propose_move(graph.adj, s, 1, rng, undo, 0, None, 300, None, 500)
    bfs = HostSwitchBfsEvaluator(n, s, r)
    whole = bfs.evaluate(graph)
    assert whole == HostSwitchEvaluator(n, s, r, threads=1).evaluate(graph)
    for cut in sorted({0, 1, s // 3, s - 1, s}):
        parts = [bfs.partial(graph, 0, cut), bfs.partial(graph, cut, s)]
        assert bfs.finish(combine(parts)) == whole, cut


def test_a_run_scored_by_bfs_walks_the_bit_matrix_chain(tmp_path):
    p, rd = _cfg(tmp_path / "a", steps=1500)
    want = run_config(p, quiet=True)[0]
    p2, rd2 = _cfg(tmp_path / "b", steps=1500)
    p2.write_text(p2.read_text().replace("evaluator: {threads: 1}",
                                         "evaluator: {backend: bfs}"))
    got = run_config(p2, quiet=True)[0]
    assert got["backend"] == "h-bfs" and want["backend"] == "h-bitset"
    assert (rd / "best.edges").read_bytes() == (rd2 / "best.edges").read_bytes()


def _joinable(ports):
    """Pairs of switches, both with a free port, not linked."""
    free = [a for a in range(len(ports)) if (ports[a] == -1).any()]
    return [(a, b) for i, a in enumerate(free) for b in free[i + 1:] if b not in ports[a]]


def _two_take_a_link(ports):
    """Links x -- y that two switches a, b with a free port each could take as a -- x and
    b -- y (x not linked to a, y not linked to b)."""
    free = [a for a in range(len(ports)) if (ports[a] == -1).any()]
    out = []
    for i, a in enumerate(free):
        for b in free[i + 1:]:
            out += [(x, y) for x in range(len(ports)) for y in ports[x][ports[x] >= 0].tolist()
                    for u, v in ((a, b), (b, a))
                    if x not in (u, v) and y not in (u, v) and x not in ports[u]
                    and y not in ports[v]]
    return out


def test_the_start_links_every_two_switches_it_can():
    """The random pairing drops a pair that would repeat a link; the start then joins every
    two switches with free ports left, a switch left with two puts them in the place of a
    link, and so do two linked switches with one each: on (128, 24) with 8 switches (16
    hosts, 8 ports for links each) the switch graph is complete, where the pairing alone
    leaves it short."""
    for n, s, r in SHAPES + [(128, 8, 24), (10000, 196, 100)]:
        for seed in range(3):
            ports = random_ports(n, s, r, seed=seed)
            assert _joinable(ports) == []
            assert (ports == -1).sum(axis=1).max() <= 1  # two would take a link's place
            assert _two_take_a_link(ports) == []
            check_ports(ports, n, r)
    # (10000, 100) on 196 switches: every port used, 4800 links
    ports = random_ports(10000, 196, 100, seed=1)
    assert (ports == -1).sum() == 0 and (ports >= 0).sum() == 2 * 4800
    complete = random_ports(128, 8, 24, seed=1)
    assert ((complete >= 0).sum(axis=1) == 7).all()


def test_host_moves_link_two_free_ports():
    """A host moved onto a free port leaves one behind; a host move that draws two free ports
    of switches not linked links them (two slots, undone exactly), and never links two that
    are linked already."""
    ports = np.full((3, 4), -1, dtype=np.int32)
    ports[0, :2] = [1, HOST_PORT]
    ports[1, :2] = [0, 2]
    ports[2, :2] = [1, HOST_PORT]
    rng, undo = rng_seed(4), new_undo()
    links = []
    for _ in range(200):
        before = ports.copy()
        if not propose_host(ports, rng, undo, 64):
            continue
        check_ports(ports, 2, 4)
        links.append(int((ports >= 0).sum() - (before >= 0).sum()))
        if links[-1]:
            assert undo[0] == 2 and _joinable(before) == [(0, 2)]
        undo_swap(ports, undo)
        assert np.array_equal(ports, before)
    assert 2 in links and 0 in links


@pytest.mark.parametrize("n,r,q", [(13, 5, 2), (40, 8, 3), (100, 12, 4), (1281, 21, 13),
                                   (4608, 36, 16), (8208, 48, 17)])
def test_a_polarity_start_has_h_diameter_four_and_spreads_the_hosts(n, r, q):
    from golf.starts.polarity import polarity_edges

    ports = polarity_ports(n, r, q, seed=2)
    check_ports(ports, n, r)
    s = q * q + q + 1
    assert ports.shape == (s, r)
    hosts = host_counts(ports)
    assert hosts.sum() == n and hosts.max() - hosts.min() <= 1
    for u, v in polarity_edges(q).tolist():  # ER_q's links all there (and maybe more)
        assert v in ports[u] and u in ports[v]
    graph = PortGraph(n, ports)
    got = _score(graph)
    assert got is not None and got[0] <= 4
    if n <= 100:
        assert got == host_switch_score(n, s, graph.edges())
    assert np.array_equal(ports, polarity_ports(n, r, q, seed=2))  # seeded


@given(st.integers(7, 400), st.integers(3, 40))
@settings(max_examples=60, deadline=None)
def test_polarity_fits_lists_the_q_whose_switches_hold_the_hosts(n, r):
    from golf.starts.polarity import prime_power

    fits = polarity_fits(n, r)
    for q in range(2, 20):
        if prime_power(q) is None or q * q + q + 1 > n:
            continue
        try:
            polarity_ports(n, r, q)
            built = True
        except GolfError:
            built = False
        assert built == (q in fits), (n, r, q)


def test_switch_trials_try_the_polarity_graphs_first_where_they_fit():
    from golf.problems.order_radix import POLARITY_FORMS, switch_forms

    forms, rule = switch_forms(4608, 36)
    assert [f.label(4608) for f in forms[:2]] == ["ER_16: 273 switches",
                                                   "ER_17: 307 switches"]
    assert POLARITY_FORMS == 2 and "ER_16, ER_17" in rule
    assert ("problem", "start", "algebraic") in forms[0].changes()
    forms, rule = switch_forms(432, 12)  # no ER_q holds 432 hosts at radix 12
    assert not any(f.construction for f in forms) and "polarity" not in rule


def test_a_run_from_a_polarity_start(tmp_path):
    p, rd = _cfg(tmp_path, problem="hosts: 1281, radix: 21, switches: 183, start: algebraic",
                 steps=300)
    got = run_config(p, quiet=True)[0]
    assert got["best"]["diameter"] == 4 and got["problem"]["switches"] == 183
    net = read_host_switch(rd / "best.edges")
    assert recheck(net)[:2] == (4, got["best"]["total"])
    for switches in (256, "auto"):
        with pytest.raises(GolfError, match=r"switches q\^2 \+ q \+ 1"):
            validate({"name": "h", "search": {"steps": 10},
                      "problem": {"hosts": 4608, "radix": 36, "switches": switches,
                                  "start": "algebraic"}}, lambda k: "h.yaml")
    validate({"name": "h", "search": {"steps": 10}, "problem": {
        "hosts": 4608, "radix": 36, "switches": 273, "start": "algebraic"}}, lambda k: "h.yaml")
