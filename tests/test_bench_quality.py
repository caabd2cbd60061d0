"""scripts/bench_quality.py: its verdict against the issue's targets, and its page."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "scripts"))

from bench_quality import RECORDS, markdown, verdict  # noqa: E402


def row(n, d, ratio, matched=False, diameter=None):
    return {"n": n, "d": d, "excess_ratio": ratio, "record_matched": matched,
            "diameter": diameter or 4, "best_known": [4, 2.0],
            "diameter_matched": (diameter or 4) <= 4}


def test_gpu_targets_count_records_and_pairs_within_1_10():
    """12 pairs at or below 1.0 (a record matched to its printed decimals counts) and 17 at
    or below 1.10: met with exactly those counts, missed by one below either."""
    rows = ([row(10 + i, 3, 1.005, True) for i in range(12)]
            + [row(100 + i, 3, 1.08) for i in range(5)] + [row(200 + i, 3, 2.0) for i in range(3)])
    assert verdict(rows, "gpu") == ("Targets met on the pairs measured (12 at or below 1.0, 17 "
                                    "at or below 1.10 of 20).")
    rows[0] = row(10, 3, 1.005, False)  # the same ratio without the match: not a record
    assert verdict(rows, "gpu") == ("Targets missed: 11 pairs at or below 1.0, 12 needed (11 "
                                    "at or below 1.0, 17 at or below 1.10 of 20).")
    rows[12] = row(100, 3, 1.2)
    assert "16 pairs at or below 1.10, 17 needed" in verdict(rows, "gpu")


def test_a_pair_off_the_diameter_is_named_and_counts_for_nothing():
    rows = [row(36, 3, 0.9, True), row(256, 8, 0.5, True, diameter=5)]
    v = verdict(rows, "gpu")
    assert v.startswith("Targets missed: (256, 8) diameter 5 > 4;") and "1 at or below 1.0" in v


def test_cpu_targets_look_at_pairs_up_to_1024_only():
    rows = [row(256 + i, 8, 1.05) for i in range(7)] + [row(10000, 7, 3.0, diameter=6)]
    assert verdict(rows, "cpu") == ("Targets met on the pairs measured (0 at or below 1.0, 7 "
                                    "at or below 1.10 of 7).")
    rows[0] = row(256, 8, 1.2)
    assert verdict(rows, "cpu").startswith("Targets missed: 6 pairs at or below 1.10, 7 needed")


def test_a_smaller_diameter_beats_the_record_whatever_its_aspl():
    """Diameter first: a graph below the best-known diameter counts as a record whatever its
    ASPL ratio, and the verdict names it."""
    rows = [row(1024, 8, 1.573, True, diameter=3)]
    v = verdict(rows, "gpu")
    assert "1 at or below 1.0, 1 at or below 1.10" in v
    assert v.endswith("Below the best-known diameter: (1024, 8) diameter 3 < 4.")


def test_the_machine_line_names_shared_software_once():
    from bench_quality import _machines

    gpu = "; host Xeon, 16 cores; Python 3.12"
    rows = [{"machine": "H100 (CuPy 14)" + gpu}, {"machine": "H200 (CuPy 14)" + gpu},
            {"machine": "H200 (CuPy 14); host Xeon, 32 cores; Python 3.12"}]
    assert _machines(rows) == "H100 or H200 (CuPy 14); host Xeon, 16 cores or Xeon, 32 cores; " \
        "Python 3.12"
    cpu = [{"machine": "EPYC, 2 cores; Python 3.11"}, {"machine": "Xeon, 2 cores; Python 3.12"}]
    assert _machines(cpu) == "EPYC, 2 cores; Python 3.11 or Xeon, 2 cores; Python 3.12"


def test_the_page_is_a_short_record():
    rows = {}
    for i, name in enumerate(RECORDS):
        n, d, k, a = RECORDS[name]
        rows[name] = {"name": name, "n": n, "d": d, "form": "Z_32 ⋊_3 Z_16 (g=512, m=2)",
                      "diameter": k, "aspl": a, "best_known": [k, a], "excess_ratio": 1.0,
                      "record_matched": True, "diameter_matched": True, "trial_share": 0.25,
                      "evaluations_per_s": 1e6, "at_once": 5, "date": "2026-11-26T10:00:00",
                      "machine": f"NVIDIA H{(100, 200)[i % 2]}; host 32 cores",
                      "command": f"python scripts/bench_quality.py --only {name} --minutes 8 "
                                 f"--parallel {3 + 3 * (i % 2)} --out /root/out/q{i % 2}"
                                 + (" --set search.seed=2" if i == 4 else "")}
    page = markdown({"rows": rows, "notes": ["one note"]}, "gpu")
    assert len(page.encode()) <= 4096 and page.count("\n| (") == 20
    # one command line for the calls: their folders and seeds dropped, the options in one order
    assert ("- command: `python scripts/bench_quality.py --minutes 8 --only PAIRS --parallel P` "
            "(P = 3, 6); some runs with `--set search.seed=S`\n") in page
    assert "- machine: NVIDIA H100 or NVIDIA H200; host 32 cores\n" in page
    assert "- one note" in page and "Targets met" in page


def test_grid_chase_verdict_counts_the_best_known_graphs_reached():
    """bench_grid --chase: a graph reaches the best-known one with a smaller diameter, or the
    same diameter and a total no larger; a larger total at that diameter falls short."""
    import bench_grid

    assert bench_grid.reached("w10h10d6r3", 6, 14370)
    assert bench_grid.reached("w10h10d6r3", 5, 20000)
    assert not bench_grid.reached("w10h10d6r3", 6, 14371)
    assert not bench_grid.reached("w10h10d6r3", 7, 100)
    assert not bench_grid.reached("w7h7d4r2", 4, 1)  # no best-known graph

    def grid_row(name, diameter, total):
        n = 100
        return {"name": name, "n": n, "diameter": diameter, "aspl": total / (n * (n - 1) / 2),
                "best_known_reached": bench_grid.reached(name, diameter, total)}

    rows = [grid_row("w10h10d4r2", 9, 19730), grid_row("w10h10d6r3", 6, 14371),
            grid_row("w10h10d8r4", 4, 20000)]
    assert bench_grid.verdict(rows, chase=10) == ("Best-known graph reached or beaten on 2 of 3; "
                                                  "short: w10h10d6r3 +0.01%.")
    assert bench_grid.verdict(rows[:1], chase=10) == ("Best-known graph reached or beaten on 1 "
                                                      "of 1.")
    rows[0]["target"] = False  # the config mode judges its own target problems
    assert bench_grid.verdict(rows[:1]).startswith("Target met")


def test_grid_page_names_each_call_where_rows_come_from_several():
    """bench_grid: the page's commands leave out the folders a call wrote to, and rows from
    more than one call (another commit or command) get a line a call; rows of one call none."""
    import bench_grid
    import benchlib

    assert benchlib.plain("python scripts/bench_grid.py --chase 10 --out a/b --logs /tmp/l "
                          "--only x") == "python scripts/bench_grid.py --chase 10 --only x"
    one = [{"name": "a", "commit": "c1", "command": "bench --out x"},
           {"name": "b", "commit": "c1", "command": "bench --out y"}]
    assert bench_grid.runs_of(one) == []
    two = one + [{"name": "c", "commit": "c2", "command": "bench --only c"}]
    assert bench_grid.runs_of(two) == ["", "Rows by call:", "- commit c1, `bench`: a, b",
                                       "- commit c2, `bench --only c`: c"]
    amd = {"cpu": "AMD EPYC", "cores": 2}
    moved = one + [{"name": "c", "commit": "c1", "command": "bench", "machine": amd}]
    assert bench_grid.runs_of(moved) == ["", "Rows by call:", "- commit c1, `bench`: a, b",
                                         "- commit c1, `bench` on AMD EPYC: c"]
    record = {"machine": {"cpu": "Xeon", "cores": 2}}
    assert bench_grid.machines(record, moved).startswith("Xeon, 2 cores;")
    assert "; AMD EPYC, 2 cores;" in bench_grid.machines(record, moved)


def test_grid_render_takes_the_page_notes(tmp_path):
    """bench_grid --render --note: the notes replace the record's and close the page, before
    the lines on the record's experiments; a render without --note keeps them."""
    import json

    import bench_grid

    root = Path(__file__).parent.parent
    out = tmp_path / "chase"
    (tmp_path / "chase.json").write_text((root / "results/grid/chase.json").read_text())
    bench_grid.main(["--render", "--out", str(out), "--note", "first", "--note", "second"])
    assert json.loads((tmp_path / "chase.json").read_text())["notes"] == ["first", "second"]
    assert "\n\n- first\n- second\n\nOther runs" in (tmp_path / "chase.md").read_text()
    bench_grid.main(["--render", "--out", str(out)])
    assert "\n- first\n- second\n\nOther runs" in (tmp_path / "chase.md").read_text()
    bench_grid.main(["--render", "--out", str(out), "--note", "third"])
    assert "first" not in (tmp_path / "chase.md").read_text()


def test_grid_chase_has_its_own_page_and_the_config_search_an_experiment_of_it():
    """bench_grid --chase writes results/grid/chase.*; the config's 2-minute search goes into
    that record's experiment ``config`` (its graphs where they were), a chase with
    ``--experiment NAME`` into NAME, its graphs in their own folder."""
    import bench_grid

    root = Path(__file__).parent.parent / "results" / "grid"
    assert bench_grid.default_paths(10) == (str(root / "chase"), None,
                                            str(root / "graphs" / "chase"))
    assert bench_grid.default_paths(0) == (str(root / "chase"), "config", str(root / "graphs"))
    assert bench_grid.default_paths(10, "forms")[1:] == ("forms", str(root / "graphs" / "forms"))


def test_grid_page_says_where_it_ran_and_which_graphs_it_lacks(tmp_path):
    """bench_grid: a record whose rows ran on GPUs (``--gpus``) is titled so, one whose rows
    did not the CPU's; rows without a graph file are named, not linked; ``--gpus`` needs
    ``--chase``."""
    import json

    import bench_grid

    root = Path(__file__).parent.parent / "results" / "grid"
    record = json.loads((root / "chase_gpu.json").read_text())
    page = bench_grid.markdown(record)
    assert page.startswith("# Grid graphs: Graph Golf 2019 grid problems on a GPU\n")
    rows = sorted(record["rows"].values(), key=lambda r: (r["n"], r["d"]))
    lost = [r["name"] for r in rows if not r.get("file")]
    assert lost and f"; not kept: {', '.join(lost)}." in page
    for r in record["rows"].values():
        r.pop("gpus")
        r["file"] = r["file"] or "results/grid/graphs/x/y.edges.gz"
    page = bench_grid.markdown(record)
    assert page.startswith("# Grid graphs: Graph Golf 2019 grid problems on the CPU\n")
    assert "not kept" not in page
    with pytest.raises(SystemExit, match="--gpus needs --chase"):
        bench_grid.main(["--gpus", "1", "--out", str(tmp_path / "x")])


def test_a_rows_graph_file_is_where_it_was_written_inside_the_repository(tmp_path):
    """bench_quality: ``--graphs`` inside the repository is the row's file's folder; a
    folder outside it (copied back from another machine) is kept under
    results/quality/<target>/."""
    from bench_quality import kept_path

    root = Path(__file__).parent.parent
    inside = root / "results" / "quality" / "gpu_x" / "n96d3k6l428.edges.gz"
    assert kept_path(str(inside), "gpu") == "results/quality/gpu_x/n96d3k6l428.edges.gz"
    assert kept_path(str(tmp_path / "n96d3k6l428.edges.gz"), "cpu") == \
        "results/quality/cpu/n96d3k6l428.edges.gz"
