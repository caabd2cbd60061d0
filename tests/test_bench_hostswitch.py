"""scripts/bench_hostswitch_eval.py: its random graphs, the check that the scorers agree, and
its page."""

import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "scripts"))

import naive  # noqa: E402
from bench_hostswitch_eval import (FEATURED, RANDOM, SAMPLES, check_agree, even_hosts,  # noqa: E402
                                   fmt_seconds, markdown, random_wiring, summarise, timing)

from golf.hostswitch import HostSwitchGraph, h_score  # noqa: E402


def test_even_hosts():
    assert even_hosts(10, 4).tolist() == [3, 3, 2, 2]
    assert even_hosts(8, 4).tolist() == [2, 2, 2, 2]
    assert even_hosts(2, 3).tolist() == [1, 1, 0]


@pytest.mark.parametrize("n, s, r, seed", [(40, 20, 5, 1), (60, 16, 8, 2), (32, 26, 4, 3)])
def test_random_wiring_is_a_connected_host_switch_graph(n, s, r, seed):
    edges = random_wiring(n, s, r, seed)
    net = HostSwitchGraph.from_edges(n, s, r, edges)  # checks every rule: raises if broken
    net.check()
    assert net.host_counts.tolist() == even_hosts(n, s).tolist()
    assert (net.ports_used <= r).all()
    want = naive.host_switch_score(n, s, edges)
    assert want is not None  # connected
    score = h_score(net)
    assert (score.diameter, score.total) == want[:2]
    # the same seed, the same graph; another seed, another graph
    assert np.array_equal(random_wiring(n, s, r, seed), edges)
    assert not np.array_equal(random_wiring(n, s, r, seed + 10), edges)


def test_random_wiring_refuses_a_switch_with_no_port_left():
    with pytest.raises(ValueError, match="no port left"):
        random_wiring(12, 3, 4)


def test_the_cases_are_the_featured_pairs():
    assert len(FEATURED) == 13 and set(SAMPLES) == set(FEATURED)
    assert all((n, r) in SAMPLES for n, _, r in RANDOM)


def test_check_agree_names_the_file_and_every_value():
    assert check_agree("a.edges", {"x": (5, 10), "y": (5, 10)}) == (5, 10)
    with pytest.raises(SystemExit, match=r"disagree on b.edges: x: \(5, 10\), y: \(5, 11\)"):
        check_agree("b.edges", {"x": (5, 10), "y": (5, 11)})


def test_timing_and_seconds():
    assert timing([3.0, 1.0, 2.0]) == {"median": 2.0, "min": 1.0, "calls": 3}
    assert fmt_seconds(2.5) == "2.5 s"
    assert fmt_seconds(0.0123) == "12.3 ms"
    assert fmt_seconds(4.2e-6) == "4.2 us"
    assert fmt_seconds(3e-8) == "0.03 us"


def record(rows=13):
    out = []
    for i in range(rows):
        n = 65536 + i
        info = {"n": n, "s": 3000, "r": 64}
        times = {"orp_serial": [0.048, 0.05], "orp_threads": [0.038], "golf_1": [0.003],
                 "golf_all": [0.002, 0.002], "golf_kernel": [0.0029]}
        total = 9746909143
        values = {k: (5, total) for k in times}
        out.append(summarise(f"random h{n}s3000r64", info, values, times, 0.5))
    return {"date": "2026-11-27T00:00:00", "command": "python scripts/bench_hostswitch_eval.py",
            "machine": {"cpu": "Intel(R) Xeon(R) Processor", "cores": 2, "python": "3.11.7",
                        "numpy": "2.4.6", "numba": "0.68.1", "commit": "abc1234"},
            "rows": out, "threads": 2, "trials": 5, "seconds": 2.0, "seed": 1,
            "orp": {"commit": "ba463f7c75b4eb05c9d531ade9138c8277e163ec",
                    "cc": "gcc (Debian 12.2.0-14+deb12u1) 12.2.0",
                    "cflags": "-O3 -march=native -std=gnu99 -Wno-unknown-pragmas",
                    "algorithm": "its default choice: the bit matrix above 6 switches"}}


def test_summarise_takes_ratios_from_the_medians_and_refuses_disagreement():
    row = record(1)["rows"][0]
    assert row["speedup_serial"] == pytest.approx(0.049 / 0.003)
    assert row["speedup_threads"] == pytest.approx(0.038 / 0.002)
    assert row["aspl"] == 9746909143 / math.comb(65536, 2)
    with pytest.raises(SystemExit, match="disagree"):
        summarise("x", {"n": 4, "s": 2, "r": 3}, {"golf_1": (3, 16), "orp_serial": (3, 17)},
                  {}, 0.0)


def test_the_page_is_a_record_of_at_most_4_kb():
    text = markdown(record(17))
    assert len(text.encode()) <= 4096
    assert text.count("\n| random h") == 17
    assert "| random h65536s3000r64 | 65536, 3000, 64 | 5 | 4.538828 | 49 ms | 38 ms | 3 ms " \
           "| 2 ms | 16.3 | 19.0 |" in text
    lines = text.splitlines()
    last_row = max(i for i, ln in enumerate(lines) if ln.startswith("|"))
    head = [ln for ln in lines[:last_row] if ln.startswith("- ")]
    notes = [ln for ln in lines[last_row:] if ln.startswith("- ")]
    assert [ln.split(":")[0] for ln in head[:3]] == ["- date", "- command", "- machine"]
    assert len(head) - 3 + len(notes) <= 5
    assert "ORP ba463f7c75" in text and "50% of the CPUs" in text
    assert "kernel alone" not in text  # golf faster everywhere: no note on its kernel


def test_the_page_names_the_kernel_time_where_orp_is_faster():
    rec = record(3)
    row = rec["rows"][1]
    row["speedup_serial"] = 0.8
    row["seconds"]["golf_kernel"]["median"] = 3.1e-6
    text = markdown(rec)
    assert ("golf's kernel alone (from a compiled loop, one thread) takes 3.1 us on random "
            "h65537s3000r64") in text
    assert len(text.encode()) <= 4096
