"""The golf command on host-switch graphs: eval and validate of ORP's format (found by the
first line, or by --host-switch), and bounds --host-switch."""

import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import naive
from conftest import ROOT, run_golf
from golf.cli import main
from golf.hostswitch import HostSwitchGraph, write_host_switch
from test_hostswitch import orp_text, random_wiring

SAMPLE = str(Path(ROOT) / "tests" / "data" / "h32s26r4.edges")


@pytest.mark.slow
def test_eval_json_of_orps_sample_end_to_end():
    """The entry point in a subprocess: the format found by its first line, the h-values
    that ORP publishes for its sample, and the bounds."""
    proc = run_golf("eval", SAMPLE, "--json", check=True)
    o = json.loads(proc.stdout)
    assert o["kind"] == "host-switch"
    assert (o["hosts"], o["switches"], o["radix"]) == (32, 26, 4)
    assert (o["diameter"], o["total"]) == (11, 2960)
    assert f"{o['aspl']:.10f}" == "5.9677419355" and o["aspl"] == 2960 / 496
    assert (o["diameter_bound"], o["aspl_bound_fraction"]) == (5, "130/31")
    assert o["diameter_gap"] == 6 and o["connected"] is True
    # the sample repeats two switch-switch edges: a warning each, as for edge lists
    assert proc.stderr.count("duplicate edge") == 2 and ":61: duplicate edge '45 52'" in \
        proc.stderr


@pytest.mark.parametrize("seed", range(6))
def test_eval_agrees_with_a_bfs_over_the_whole_graph(tmp_path, capsys, seed):
    rng = np.random.default_rng(seed)
    s, r = int(rng.integers(2, 9)), int(rng.integers(2, 6))
    n = int(rng.integers(2, s * r + 1))
    edges = random_wiring(rng, n, s, r, full=bool(seed % 2))
    p = tmp_path / "g.edges"
    p.write_text(orp_text(n, s, r, edges))
    backend = ["auto", "bfs"][seed % 2 == 0]  # the bit matrix, or one BFS a switch
    assert main(["eval", str(p), "--json", "--host-switch", "--backend", backend]) == 0
    o = json.loads(capsys.readouterr().out)
    assert o["backend"] == {"auto": "h-bitset", "bfs": "h-bfs"}[backend]
    want = naive.host_switch_score(n, s, edges)
    if want is None:
        assert o["connected"] is False and o["diameter"] is None and o["aspl"] is None
    else:
        assert (o["diameter"], o["total"], o["peripheral"]) == want
        assert o["aspl"] == want[1] / math.comb(n, 2)


def test_eval_text(capsys):
    assert main(["eval", SAMPLE, "--explain", "--repeat", "2", "--threads", "1"]) == 0
    out, err = capsys.readouterr()
    assert "32 hosts, 26 switches, radix 4" in out
    assert "h-diameter    11   bound 5   gap 6" in out
    assert "h-ASPL        5.9677419355   bound 4.1935483871 (130/31)   gap 1.7741935484" in out
    assert "h-total       2960" in out and "mean of 2" in out
    assert "a column for each of the 26 that hold hosts" in err


def test_eval_disconnected_hosts(tmp_path, capsys):
    p = tmp_path / "cut.edges"
    p.write_text("2 3 3\n0 2\n1 3\n3 4\n")
    assert main(["eval", str(p), "--json"]) == 0
    o = json.loads(capsys.readouterr().out)
    assert o["connected"] is False and o["total"] is None and o["diameter_gap"] is None
    assert main(["eval", str(p)]) == 0
    assert "inf   (hosts disconnected)" in capsys.readouterr().out


def test_eval_of_a_plain_edge_list_stays_as_it_was(tmp_path, capsys):
    p = tmp_path / "c4.edges"
    p.write_text("0 1\n1 2\n2 3\n3 0\n")
    assert main(["eval", str(p), "--json"]) == 0
    o = json.loads(capsys.readouterr().out)
    assert "kind" not in o and (o["diameter"], o["total"]) == (2, 8)
    # --host-switch reads it as ORP's format, and its first line is no header
    assert main(["eval", str(p), "--host-switch"]) == 2
    assert f"{p}:1: expected the header 'hosts switches radix'" in capsys.readouterr().err


def symmetric_net(s, k, g, h, seed=3, spare=0):
    """A host-switch graph of ``h`` hosts on each of ``s`` switches whose links are a random
    ``g``-symmetric Order/Degree graph ``(s, k)``, ``spare`` ports free a switch: the turn of
    the switches by ``s / g`` (hosts with them) maps it onto itself."""
    from golf.hostswitch.spread import Spread
    from golf.starts.random import random_graph
    from golf.starts.switch_wiring import spread_ports

    return spread_ports(Spread(s * h, k + h + spare, s),
                        random_graph(s, k, g, seed=seed)).net()


@pytest.mark.parametrize("s,k,g,h", [(24, 3, 4, 2), (30, 4, 6, 3), (40, 5, 8, 1), (21, 4, 3, 2)])
def test_eval_g_scores_a_symmetric_file_from_one_switch_an_orbit(tmp_path, capsys, s, k, g, h):
    """--g G on a file whose switches turned by s/G (hosts with them) give the same graph:
    the h-values of a BFS over the whole graph; --g auto finds a multiple of G."""
    net = symmetric_net(s, k, g, h)
    p = tmp_path / "sym.edges"
    write_host_switch(p, net)
    want = naive.host_switch_score(net.n, net.s, net.edges())
    for asked in (str(g), "auto"):
        assert main(["eval", str(p), "--json", "--g", asked]) == 0
        o = json.loads(capsys.readouterr().out)
        assert (o["diameter"], o["total"], o["peripheral"]) == want
        assert o["g"] % g == 0 and o["backend"] == f"h-bfs, g={o['g']}"
        assert o["g"] == g or asked == "auto"
    assert main(["eval", str(p), "--json"]) == 0  # without --g: the same
    o = json.loads(capsys.readouterr().out)
    assert (o["diameter"], o["total"], o["peripheral"], o["g"]) == (*want, 1)


def test_eval_g_names_what_breaks_the_symmetry(tmp_path, capsys):
    net = symmetric_net(24, 3, 4, 2, spare=1)
    edges = net.edges().copy()
    host = int(np.flatnonzero(edges[:, 0] == 0)[0])  # host 0 moves to another switch
    edges[host, 1] = net.n + (int(edges[host, 1]) - net.n + 1) % net.s
    p = tmp_path / "broken.edges"
    p.write_text(orp_text(net.n, net.s, net.r, edges.tolist()))
    assert main(["eval", str(p), "--g", "4"]) == 2
    err = capsys.readouterr().err
    assert f"--g 4: {p}: no symmetry of order 4 turns its switches" in err and "holds" in err
    assert main(["eval", str(p), "--g", "5"]) == 2
    assert "g=5 does not divide the 24 switches" in capsys.readouterr().err
    assert main(["eval", str(p), "--g", "auto", "--json"]) == 0  # none: g = 1
    assert json.loads(capsys.readouterr().out)["g"] == 1
    assert main(["eval", str(p), "--g", "2", "--backend", "bfs"]) == 2
    assert "--backend bfs with --g 2" in capsys.readouterr().err


def test_a_swap_of_two_links_breaks_the_turn():
    from golf.evaluators.h_scoring import largest_rotation, rotation_fault

    net = symmetric_net(24, 3, 4, 2)
    assert rotation_fault(net, 4) is None and largest_rotation(net) % 4 == 0
    edges = [tuple(e) for e in net.edges().tolist()]
    links = [e for e in edges if min(e) >= net.n]
    have = {frozenset(e) for e in links}
    (a, b), (c, e) = next((x, y) for x in links for y in links
                          if len({*x, *y}) == 4 and frozenset((x[0], y[0])) not in have
                          and frozenset((x[1], y[1])) not in have)
    swapped = [x for x in edges if x not in ((a, b), (c, e))] + [(a, c), (b, e)]
    broken = HostSwitchGraph.from_edges(net.n, net.s, net.r, swapped)
    assert "turned by 6, are not those of switch" in rotation_fault(broken, 4)


@pytest.mark.parametrize("args,needle", [
    (["--n", "58"], "--n: does not apply"),
    (["--d", "4"], "--d: does not apply"),
    (["--backend", "seidel"], "--backend seidel: "),
    (["--opt", "chunk_words=2"], "--opt: does not apply"),
])
def test_eval_refuses_options_of_other_graphs(capsys, args, needle):
    assert main(["eval", SAMPLE, *args]) == 2
    assert needle in capsys.readouterr().err


def test_validate_a_valid_file(tmp_path, capsys):
    rng = np.random.default_rng(3)
    n, s, r = 20, 8, 5
    edges = random_wiring(rng, n, s, r, full=True)
    while naive.host_switch_score(n, s, edges) is None:  # the first connected one
        edges = random_wiring(rng, n, s, r, full=True)
    p = tmp_path / "ok.edges"
    write_host_switch(p, HostSwitchGraph.from_edges(n, s, r, edges))
    assert main(["validate", str(p)]) == 0
    out = capsys.readouterr().out
    assert "valid host-switch graph: 20 hosts, 8 switches, radix 5" in out
    assert main(["validate", str(p), "--host-switch"]) == 0


def test_validate_lists_every_broken_rule_with_file_and_line(tmp_path, capsys):
    p = tmp_path / "bad.edges"
    p.write_text("4 3 3\n0 4\n0 5\n1 2\n4 5\n5 4\n4 6\n9 4\n2 6\n6 5\n")
    assert main(["validate", str(p)]) == 2
    err = capsys.readouterr().err.splitlines()
    for needle in (f"{p}:3: host 0 has a second edge '0 5'",
                   f"{p}:4: edge '1 2' joins two hosts",
                   f"{p}:6: duplicate edge '5 4' (first on line 5)",
                   f"{p}:8: vertex id 9 out of range",
                   f"{p}:7: switch 4 has 4 edges, more than the radix r=3",
                   f"{p}:10: switch 5 has 4 edges, more than the radix r=3",
                   f"{p}: host 3 has no edge", f"{p}: host 1 has no edge"):
        assert any(line.startswith(needle) for line in err), needle
    assert err[-1] == f"golf: {p}: INVALID (8 problems)"


def test_validate_refuses_orps_sample_for_its_repeated_edges(capsys):
    assert main(["validate", SAMPLE]) == 2
    err = capsys.readouterr().err
    assert ":61: duplicate edge '45 52' (first on line 59)" in err
    assert ":69: duplicate edge '55 57' (first on line 68)" in err


def test_validate_radix_and_disconnection(tmp_path, capsys):
    p = tmp_path / "radix.edges"
    p.write_text("3 2 2\n0 3\n1 3\n2 4\n3 4\n")
    assert main(["validate", str(p)]) == 2
    assert f"{p}:5: switch 3 has 3 edges, more than the radix r=2" in capsys.readouterr().err
    p.write_text("3 3 3\n0 3\n1 3\n2 4\n4 5\n")
    assert main(["validate", str(p)]) == 2
    assert f"{p}: disconnected: host 0 (on switch 3) reaches 2 of the n=3 hosts" in \
        capsys.readouterr().err


def test_validate_needs_d_for_an_edge_list_only(tmp_path, capsys):
    p = tmp_path / "c4.edges"
    p.write_text("0 1\n1 2\n2 3\n3 0\n")
    with pytest.raises(SystemExit) as info:
        main(["validate", str(p), "--n", "4"])
    assert info.value.code == 2
    assert "the following arguments are required: --d" in capsys.readouterr().err
    assert main(["validate", SAMPLE, "--d", "4"]) == 2
    assert "--d: does not apply" in capsys.readouterr().err


@pytest.mark.parametrize("n,r,diameter,aspl", [
    (32, 4, 5, "4.1935483871"), (1024, 10, 5, "4.3235581623"), (65536, 64, 4, "3.9545891508"),
])
def test_bounds_host_switch(capsys, n, r, diameter, aspl):
    """ORP's values for these pairs."""
    assert main(["bounds", "--host-switch", str(n), str(r), "--json"]) == 0
    o = json.loads(capsys.readouterr().out)
    assert o["kind"] == "host-switch" and (o["hosts"], o["radix"]) == (n, r)
    assert o["diameter_bound"] == diameter and f"{o['aspl_bound']:.10f}" == aspl
    num, den = map(int, o["aspl_bound_fraction"].split("/"))
    assert f"{num / den:.10f}" == aspl
    assert main(["bounds", "--host-switch", str(n), str(r)]) == 0
    out = capsys.readouterr().out
    assert f"h-diameter >= {diameter}\n" in out
    assert f"h-ASPL     >= {aspl}  ({o['aspl_bound_fraction']})" in out


@pytest.mark.slow
def test_bounds_host_switch_text_end_to_end():
    proc = run_golf("bounds", "--host-switch", 32, 4, check=True)
    assert proc.stdout.splitlines() == [
        "hosts=32 r=4 (host-switch, any number of switches; at least 15 connect the hosts)",
        "h-diameter >= 5", "h-ASPL     >= 4.1935483871  (130/31)", "h-total    >= 2080",
        "pair count: h-ASPL >= 3.7762096774  (1873/496), h-total >= 1873"]


def test_bounds_host_switch_pair_count(capsys):
    """The bound from counting host pairs by switch (radix_bounds.pair_count_bound): on
    (10000, 100) the total of r/2 + 1 = 51 hosts on each of 196 switches less the 4 switches
    of 52 they cannot avoid."""
    from golf.hostswitch.radix_bounds import pair_count_bound

    assert main(["bounds", "--host-switch", "10000", "100", "--json"]) == 0
    o = json.loads(capsys.readouterr().out)
    assert o["pair_count_total_bound"] == pair_count_bound(10000, 100)[0]
    assert o["pair_count_total_bound"] == 4 * math.comb(10000, 2) - 10000 * 2599 // 2 + 104
    assert o["pair_count_aspl_bound_fraction"] == str(
        Fraction(o["pair_count_total_bound"], math.comb(10000, 2)))
    assert o["pair_count_aspl_bound"] > o["aspl_bound"]


def test_bounds_host_switch_usage_errors(capsys):
    assert main(["bounds", "--host-switch", "3", "2"]) == 0
    assert "no connected host-switch graph exists" in capsys.readouterr().out
    for argv, needle in ((["3"], "required: R"), (["3", "x"], "argument R: expected a whole "
                         "number"), (["0", "4"], "argument N: expected a number >= 1"),
                         (["3", "4", "--grid", "3x3"], "--host-switch and --grid")):
        with pytest.raises(SystemExit):
            main(["bounds", "--host-switch", *argv])
        assert needle in capsys.readouterr().err
