"""scripts/bench_hostswitch_eval.py: its random graphs, the check that the scorers agree, and
its page."""

import math
import re
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "scripts"))

import naive  # noqa: E402
from bench_hostswitch_eval import (FEATURED, RANDOM, SAMPLES, check_agree, even_hosts,  # noqa: E402
                                   fmt_seconds, markdown, random_wiring, summarise, timing)

from golf.evaluators.h_scoring import h_score  # noqa: E402
from golf.hostswitch import HostSwitchGraph  # noqa: E402


def test_even_hosts():
    assert even_hosts(10, 4).tolist() == [3, 3, 2, 2]
    assert even_hosts(8, 4).tolist() == [2, 2, 2, 2]
    assert even_hosts(2, 3).tolist() == [1, 1, 0]


@pytest.mark.slow
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


# ------------------------------------------------------------------------------------------
# scripts/bench_hostswitch.py: golf chase --host-switch against ORP's annealer and samples
import bench_hostswitch as bh  # noqa: E402

SA_OUT = """Hosts = 32, Switches = 26, Radix = 4
Random seed = 1
Number of calculations = 100000
Max, Min temperature = 103.877533, 0.217147
Ncalcs : Temp : current ASPL Gap ( Dia. ) : Best ASPL Gap ( Dia. )
0\t103.877533\t1.848790 ( 5 )\t1.848790 ( 5 )
99000\t0.232322\t0.770161 ( 1 )\t0.770161 ( 1 )
---
Diameter        = 6
Diameter Gap    = 1 (6 - 5)
ASPL            = 4.9637096774 (2462/496)
ASPL Gap        = 0.7701612903 (4.9637096774 - 4.1935483871)
Time            = 0.827068 sec.
Assign evenly?  = No
ASPL priority?  = No
BIAS of host?   = No
Verify?         = Yes
"""

ASPL_TXT = """Hosts = 32, Switches 26, Radix = 4
Diameter     = 11
Diameter Gap = 6 (11 - 5)
ASPL         = 5.9677419355 (2960/496)
ASPL Gap     = 1.7741935484 (5.9677419355 - 4.1935483871)
Hosts = 65536, Switches 3000, Radix = 64
Diameter     = 5
Diameter Gap = 1 (5 - 4)
ASPL         = 4.5388275158 (9746909143/2147450880)
ASPL Gap     = 0.5842383650 (4.5388275158 - 3.9545891508)
"""


def test_the_config_holds_the_13_featured_pairs_and_nothing_per_pair():
    import yaml

    from golf.config import load_config

    path = Path(__file__).parent.parent / "configs" / "graphgolf2021_hostswitch.yaml"
    runs = load_config(path)  # validates every problem: raises on a broken one
    assert [(r.data["problem"]["hosts"], r.data["problem"]["radix"]) for r in runs] == bh.PAIRS
    assert [r.name for r in runs] == [bh.pair_name(n, r) for n, r in bh.PAIRS]
    assert all(r.data["problem"]["switches"] == "auto" for r in runs)
    assert all(r.data["search"]["time_limit"] == 600 for r in runs)
    raw = yaml.safe_load(path.read_text())
    assert all(set(p) == {"problem"} and set(p["problem"]) == {"hosts", "radix", "switches"}
               for p in raw["problems"])
    head = path.read_text().split("\nname:")[0].splitlines()
    assert all(ln.startswith("#") for ln in head) and len(head) <= 6
    assert set(bh.SAMPLES) == set(bh.PAIRS) == set(FEATURED)


def test_parse_sa_reads_what_sa_x_prints():
    got = bh.parse_sa(SA_OUT)
    assert got == {"hosts": 32, "switches": 26, "radix": 4, "seed": 1, "ncalcs": 100000,
                   "max_temp": "103.877533", "min_temp": "0.217147", "diameter": 6,
                   "aspl": 4.9637096774, "total": 2462, "time": 0.827068, "verify": True}
    assert bh.parse_sa(SA_OUT.replace("= Yes", "= No"))["verify"] is False
    with pytest.raises(ValueError, match="no 'time' line"):
        bh.parse_sa(SA_OUT.replace("Time  ", "Tim   "))


def test_parse_aspl_txt_reads_orp_sample_values():
    assert bh.parse_aspl_txt(ASPL_TXT) == {(32, 26, 4): (11, 2960),
                                           (65536, 3000, 64): (5, 9746909143)}


def test_steps_for_fits_the_seconds_left():
    assert bh.steps_for(100.0, 0.01, 0.5, 1.0) == 9950
    assert bh.steps_for(100.0, 0.01, 0.5, 0.5) == 4975
    assert bh.steps_for(0.1, 1.0, 0.5) == 1  # at least one step


def test_cpu_slots_give_each_search_whole_cores_where_they_can():
    # 8 CPUs, 4 cores of 2 threads numbered as Linux often does: (0, 4), (1, 5), ...
    sib = {c: (c % 4, c % 4 + 4) for c in range(8)}
    assert bh.cpu_slots(range(8), sib, 2, 2) == [([0, 4], [1, 5]), ([2, 6], [3, 7])]
    assert bh.cpu_slots(range(8), {}, 2, 1) == [([0, 1], [2, 3])]
    assert bh.cpu_slots([0, 1], {}, 1, 1) == [([0], [1])]
    with pytest.raises(ValueError, match="need 12 CPUs, 8 usable"):
        bh.cpu_slots(range(8), {}, 2, 3)


def hs_row(n, r, golf, sa, sample, bound=(5, 4.0)):
    """A row of the record: ``golf``, ``sa``, ``sample`` are ``(diameter, total)`` or None."""
    from fractions import Fraction

    pairs = n * (n - 1) // 2

    def part(v, s):
        if v is None:
            return None
        aspl = v[1] / pairs
        return {"diameter": v[0], "total": v[1], "aspl": aspl, "switches": s,
                "gap": bh.gap(aspl, Fraction(bound[1])), "agrees": True}

    row = {"name": bh.pair_name(n, r), "n": n, "r": r, "minutes": 8.0, "cores": 2,
           "golf_ranks": 1, "at_once": 13, "date": "2026-11-27T01:00:00",
           "command": "python3 scripts/bench_hostswitch.py --orp build/orp_src --minutes 8",
           "machine": "AMD EPYC, 64 cores; Python 3.12.3, NumPy 2.5.2, Numba 0.68.0",
           "bound": {"diameter": bound[0], "aspl": bound[1], "aspl_fraction": "4"},
           "golf": part(golf, 100), "orp_sa": part(sa, 90), "orp_sample": part(sample, 80)}
    if row["orp_sa"]:
        row["orp_sa"].update(variant="serial", wall_seconds=470.0, self_loops=0)
    row["judge"] = bh.judge(row)
    return row


def test_judge_orders_by_diameter_then_total_and_halves_the_gap():
    # n = 11: 55 pairs; bound 4.0 = 220/55
    row = hs_row(11, 4, (5, 231), (5, 242), (5, 275))  # gaps 0.2, 0.4, 1.0
    assert row["judge"] == {"beats_orp_sa": True, "half_gap": True,
                            "gap_ratio": pytest.approx(0.2)}
    row = hs_row(11, 4, (6, 231), (5, 242), (5, 275))  # a larger diameter loses
    assert row["judge"]["beats_orp_sa"] is False and row["judge"]["half_gap"] is False
    row = hs_row(11, 4, (5, 242), (5, 242), (5, 264))  # a tie is no win; 0.4 > 0.8 / 2
    assert row["judge"] == {"beats_orp_sa": False, "half_gap": False,
                            "gap_ratio": pytest.approx(0.5)}
    row = hs_row(11, 4, (5, 231), None, None)
    assert row["judge"] == {"beats_orp_sa": None, "half_gap": None, "gap_ratio": None}


def test_verdict_names_the_pairs_that_miss():
    good = [hs_row(11, 4, (5, 231), (5, 242), (5, 275)),
            hs_row(12, 4, (5, 280), (5, 290), (6, 330))]
    assert bh.verdict(good) == ("Targets met: better than ORP's annealer on all 2 pairs; gap "
                                "at most half the sample's on all 2 pairs.")
    bad = good + [hs_row(13, 5, (5, 330), (5, 320), (5, 340))]
    line = bh.verdict(bad)
    assert line.startswith("Targets missed: better than ORP's annealer on 2 of 3, not on "
                           "(13, 5); gap at most half the sample's on 2 of 3, not on (13, 5)")
    assert "(ratios 0.64-0.64)." in line  # gaps over the bound 312 = 4 * 78: 18 and 28
    assert bh.verdict([hs_row(11, 4, (5, 231), None, None)]).startswith("Targets missed")


def test_golf_against_the_2021_best_by_h_diameter_then_h_total():
    best = bh.BEST_2021[(80, 6)]
    rows = []
    for d, t in [(best[0], best[1]), (best[0], best[1] - 1), (best[0] - 1, best[1] + 99),
                 (best[0], best[1] + 1)]:
        row = hs_row(80, 6, (d, t), (6, 20000), (7, 20000), bound=(4, 3.8))
        rows.append(row)
    assert [bh.against_2021(r) for r in rows] == ["equal", "better", "better", "behind"]
    assert bh.verdict_2021(rows) == ("Against the best graphs of Graph Golf 2021: at least as "
                                     "good on 3 of 4, better on 2.")
    rows[0]["golf"] = None
    assert bh.against_2021(rows[0]) is None


def test_the_hostswitch_page_is_a_record_of_at_most_4_kb():
    rows = [hs_row(n, r, (5, n * (n - 1) * 2 + 1), (5, n * (n - 1) * 2 + 3),
                   (6, n * (n - 1) * 2 + 9), bound=(4, 4.0)) for n, r in bh.PAIRS]
    record = {"rows": {x["name"]: x for x in rows}}
    record["notes"] = bh.default_notes(rows)
    text = bh.markdown(record)
    assert len(text.encode()) <= 4096
    lines = text.splitlines()
    assert [ln.split(":")[0] for ln in lines[2:6]] == ["- what", "- command", "- machine",
                                                       "- date"]
    assert len(re.findall(r"\n\| \(\d+, \d+\) \|", text)) == 13
    last = max(i for i, ln in enumerate(lines) if ln.startswith("|"))
    notes = [ln for ln in lines[last:] if ln.startswith("- ")]
    assert len(notes) <= 5 and notes[-2].startswith("- Targets")
    assert notes[-1] == ("- Against the best graphs of Graph Golf 2021: at least as good on 8 "
                         "of 13, better on 8.")  # h-diameter 5 is behind where 2021 has 3 or 4
    assert ("| (32, 4) | 4 / 4.000000 | 6 / 4.935484 (32) | 5 / 4.002016 (100) | better | "
            "5 / 4.006048 (90) | 6 / 4.018145 |") in text
    assert "all agree" in text and "Not measured" not in text
    # one pair missing, one disagreement: both said
    rows[0]["orp_sa"]["agrees"] = False
    del record["rows"]["h80r6"]
    record["notes"] = bh.default_notes(list(record["rows"].values()))
    text = bh.markdown(record)
    assert "DISAGREE on h32r4 orp_sa" in text and "Not measured yet: h80r6." in text
    assert len(text.encode()) <= 4096



def test_the_chase_command_takes_the_set_overrides():
    from bench_hostswitch import chase_cmd

    cmd = chase_cmd(80, 6, 8.0, 1, "/tmp/x", 3, ["search.batch=1", "search.seed=5"])
    assert cmd[cmd.index("chase"):cmd.index("--minutes")] == ["chase", "--host-switch", "80",
                                                             "6"]
    assert cmd[-4:] == ["--set", "search.batch=1", "--set", "search.seed=5"]
    from golf.cli import build_parser

    args = build_parser().parse_args(cmd[cmd.index("chase"):])
    assert args.host_switch and args.set == ["search.batch=1", "search.seed=5"]


def test_a_run_past_its_timeout_leaves_no_process_behind(tmp_path):
    """benchlib.run_killable kills the whole process group of a run past its timeout (a
    chase under mpiexec: its ranks), not only the process it started."""
    import subprocess

    from benchlib import run_killable

    mark = tmp_path / "left"
    cmd = ["bash", "-c", f"(sleep 2; touch {mark}) & sleep 30; wait"]
    with pytest.raises(subprocess.TimeoutExpired):
        run_killable(cmd, timeout=0.5)
    import time

    time.sleep(2.5)
    assert not mark.exists()  # the background child died with its group
    assert run_killable(["bash", "-c", "exit 3"]) == 3
