"""results/: a page a question, at most 12, each at most 4 KB and exactly what its benchmark
script renders from its JSON record; every page in one section of the docs' benchmarks page;
the experiments a record holds (the runs that informed its page) each with its data and its
line; every results page and experiment that README, CONTRIBUTING, docs/ and scripts/ name
exists; and the figures README and docs/ state (pairs at or below the record, within 1.10,
host-switch pairs won, grid problems reached, ...) are those of the records."""

import json
import re
import shutil
import sys
from pathlib import Path

import pytest

from conftest import ROOT

sys.path.insert(0, str(Path(ROOT) / "scripts"))
sys.path.insert(0, str(Path(ROOT) / "docs" / "_ext"))

RESULTS = Path(ROOT) / "results"
PAGES = sorted(p.relative_to(RESULTS).as_posix() for p in RESULTS.rglob("*.md"))
# each page: its script and the arguments that write it again from its JSON
RENDER = {
    "bench/eval_cpu.md": ("bench_eval", ["--render"]),
    "bench/hostswitch_eval.md": ("bench_hostswitch_eval", ["--render"]),
    "bench/mpi.md": ("bench_mpi", ["--render"]),
    "gpu/bench_gpu.md": ("bench_gpu", ["--render"]),
    "gpu/tests.md": ("bench_gpu_tests", ["--render"]),
    "grid/chase.md": ("bench_grid", ["--render"]),
    "grid/chase_gpu.md": ("bench_grid", ["--render", "--out", "results/grid/chase_gpu"]),
    "hostswitch/bench_hostswitch.md": ("bench_hostswitch", ["--render"]),
    "quality/quality_cpu.md": ("bench_quality", ["--target", "cpu", "--render"]),
    "quality/quality_gpu.md": ("bench_quality", ["--target", "gpu", "--render"]),
    "scale/scale.md": ("bench_scale", ["--render"]),
    "search/bench_search.md": ("bench_search", ["--render"]),
}


def record(page: str) -> dict:
    return json.loads((RESULTS / page).with_suffix(".json").read_text())


def text(path: str) -> str:
    """The file's text, its whitespace runs as single spaces."""
    return " ".join((Path(ROOT) / path).read_text().split())


def test_at_most_12_pages_each_a_record_of_at_most_4_kb():
    assert 1 <= len(PAGES) <= 12, PAGES
    for page in PAGES:
        size = len((RESULTS / page).read_bytes())
        assert size <= 4096, f"results/{page}: {size} bytes, more than 4 KB"


def test_no_results_file_is_left_out_by_gitignore():
    """A page, its JSON and its graphs reach a clean clone: .gitignore leaves none out."""
    git = shutil.which("git")
    if git is None or not (Path(ROOT) / ".git").exists():
        pytest.skip("not a git checkout: .gitignore cannot be asked")
    import subprocess

    files = [p.relative_to(ROOT).as_posix() for p in RESULTS.rglob("*") if p.is_file()]
    out = subprocess.run([git, "check-ignore", "--no-index", "--stdin"], cwd=ROOT, text=True,
                         input="\n".join(files), capture_output=True)
    assert out.returncode in (0, 1), out.stderr
    assert out.stdout.split() == [], f"left out of git by .gitignore: {out.stdout.split()}"


def test_every_page_has_its_script():
    assert sorted(RENDER) == PAGES


@pytest.mark.parametrize("page", PAGES)
def test_every_page_is_its_scripts_render_of_its_json(page, tmp_path):
    module, args = RENDER[page]
    script = __import__(module)
    out = tmp_path / Path(page).stem
    shutil.copy(RESULTS / Path(page).with_suffix(".json"), out.with_suffix(".json"))
    script.main([*args, "--out", str(out)])
    assert out.with_suffix(".md").read_text() == (RESULTS / page).read_text(), (
        f"results/{page} is not what scripts/{module}.py {' '.join(args)} writes from its "
        f"JSON: write it again with that command")
    assert json.loads(out.with_suffix(".json").read_text()) == record(page)


def test_every_page_is_in_one_section_of_the_benchmarks_page():
    import golfdocs

    named = [page for _, page in golfdocs.RESULT_GROUPS]
    assert sorted(named) == PAGES and len(set(named)) == len(named)
    page = golfdocs.benchmarks_page()
    assert page.count("```{include} ../../results/") == len(PAGES)


def experiments():
    return [(page, name, exp) for page in PAGES
            for name, exp in (record(page).get("experiments") or {}).items()]


@pytest.mark.parametrize("page, name, exp", experiments(),
                         ids=[f"{p}:{n}" for p, n, _ in experiments()])
def test_every_experiment_keeps_its_data_and_says_what_it_showed(page, name, exp):
    for key in ("date", "command", "machine", "rows", "shows"):
        assert exp.get(key), f"results/{page}: experiment {name} has no {key}"
    assert len(exp["shows"]) <= 250, f"{name}: its line is more than one line"
    assert f"- `{name}` ({exp['date'][:10]}): {exp['shows']}\n" in (RESULTS / page).read_text()
    if "columns" in exp:  # a table kept as it was measured
        assert all(len(row) == len(exp["columns"]) for row in exp["rows"])


@pytest.mark.parametrize("page", PAGES)
def test_the_graph_files_of_a_page_exist(page):
    rows = record(page).get("rows") or []
    for row in rows.values() if isinstance(rows, dict) else rows:
        for part in (row, *(v for v in row.values() if isinstance(v, dict))):
            if isinstance(part.get("file"), str) and part["file"].startswith("results/"):
                assert (Path(ROOT) / part["file"]).exists(), f"{page}: {part['file']}"


NAMING = ["README.md", "CONTRIBUTING.md",
          *(p.relative_to(ROOT).as_posix() for p in sorted(Path(ROOT, "docs").glob("*.md"))),
          *(p.relative_to(ROOT).as_posix() for p in sorted(Path(ROOT, "scripts").glob("*.py"))),
          "docs/_ext/golfdocs.py"]


@pytest.mark.parametrize("path", NAMING)
def test_the_results_pages_and_runs_named_exist(path):
    """Every ``results/...md`` or ``.json`` named exists, and every run named after it (``its
    run `NAME```, ``its runs `A` and `B```) is an experiment of the page named last."""
    body = (Path(ROOT) / path).read_text()
    last = None
    for m in re.finditer(r"results/([\w/]+\.(?:md|json))|its runs? `(\w+)`(?: and `(\w+)`)?",
                         body):
        if m[1]:
            assert (RESULTS / m[1]).exists(), f"{path} names results/{m[1]}: there is none"
            last = m[1]
            continue
        assert last is not None, f"{path}: {m[0]!r} before any results page"
        exps = record(re.sub(r"\.json$", ".md", last)).get("experiments") or {}
        for name in filter(None, (m[2], m[3])):
            assert name in exps, f"{path}: results/{last} has no experiment {name!r}"


# ------------------------------------------------------------------------------------------
# the figures README and docs/ take from the records
def quality_counts(target: str):
    """(pairs, at the best-known diameter or below, at or below the record, within 1.10,
    below the best-known diameter), as bench_quality's verdict counts them."""
    from bench_quality import verdict

    rows = list(record(f"quality/quality_{target}.md")["rows"].values())
    smaller = [r for r in rows if r["diameter"] < r["best_known"][0]]
    ok = [r for r in rows if r in smaller or (r["diameter_matched"] and (
        r["excess_ratio"] <= 1.0 or r["record_matched"]))]
    near = [r for r in rows if r in smaller or (r["diameter_matched"]
                                               and r["excess_ratio"] <= 1.10)]
    line = verdict(rows, target)
    if target == "gpu":  # the page's own verdict says the same counts
        assert f"({len(ok)} at or below 1.0, {len(near)} at or below 1.10 of {len(rows)})" in line
    return (len(rows), sum(r["diameter_matched"] for r in rows), len(ok), len(near),
            len(smaller))


def test_the_record_counts_of_readme_and_the_chase_page():
    pairs, at_d, ok, near, smaller = quality_counts("gpu")
    assert at_d == pairs  # "every pair reaches the best-known diameter or a smaller one"
    readme = text("README.md")
    assert "Every pair reaches the best-known diameter or a smaller one" in readme
    near_words = f"all {near}" if near == pairs else str(near)
    assert f"{ok} of {pairs} match or beat the record and {near_words} come within an " \
           f"excess ratio of 1.10" in readme
    assert f"All {pairs} pairs, with the form each chose" in readme
    chase = text("docs/chase.md")
    words = {1: "one", 2: "two", 3: "three", 4: "four"}
    assert (f"every pair of the 2016 table reached its best-known diameter or a smaller one, "
            f"and {ok} of the {pairs} the record or better, {words[smaller]} of them with a "
            f"smaller diameter") in chase
    rows = record("quality/quality_gpu.md")["rows"].values()
    at_once = sorted({r["at_once"] for r in rows})
    dates = sorted({r["date"][:10] for r in rows})
    assert f"1-{at_once[-1]} pairs sharing each GPU of an H100 or H200 host" in readme
    assert at_once[0] == 1 and f"1-{at_once[-1]} pairs sharing each GPU" in chase
    last = "-" + dates[-1][8:] if dates[-1][:7] == dates[0][:7] else dates[-1]  # -30 or a date
    assert f"{dates[0]} to {last}." in readme


def test_the_readme_table_is_the_gpu_record():
    rows = {(r["n"], r["d"]): r for r in record("quality/quality_gpu.md")["rows"].values()}
    table = re.findall(r"^\| \((\d+), (\d+)\) \| (\d+) / ([\d.]+) \| \**(\d+)\** / ([\d.]+) \| "
                       r"([^|]+) \|$", (Path(ROOT) / "README.md").read_text(), re.M)
    assert len(table) >= 5
    for n, d, best_d, best_aspl, diameter, aspl, ratio in table:
        r = rows[(int(n), int(d))]
        assert [int(best_d), float(best_aspl)] == r["best_known"]
        assert (int(diameter), aspl) == (r["diameter"], f"{r['aspl']:.6f}")
        assert ratio.strip() == ("smaller diameter" if r["diameter"] < r["best_known"][0]
                                 else f"{r['excess_ratio']:.3f}")


def test_the_host_switch_counts_of_readme_and_docs():
    from bench_hostswitch import PAIRS, pair_name

    by_name = record("hostswitch/bench_hostswitch.md")["rows"]
    rows = [by_name[pair_name(n, r)] for n, r in PAIRS]
    won = [r for r in rows if r["judge"]["beats_orp_sa"]]
    tied = [f"({r['n']}, {r['r']})" for r in rows if not r["judge"]["beats_orp_sa"]
            and (r["golf"]["diameter"], r["golf"]["total"])
            == (r["orp_sa"]["diameter"], r["orp_sa"]["total"])]
    assert len(won) + len(tied) == len(rows) == 13 and tied == ["(128, 24)", "(10000, 100)"]
    readme, docs = text("README.md"), text("docs/hostswitch.md")
    assert f"on {len(won)} of the {len(rows)} featured pairs, and an equal one on (128, 24)" \
        in readme
    assert f"it found the better graph on {len(won)} of the {len(rows)} pairs and the same " \
           f"one on (128, 24)" in docs
    at_bound = [f"({r['n']}, {r['r']})" for r in rows
                if r["golf"]["diameter"] == r["bound"]["diameter"] == 4
                and r["orp_sa"]["diameter"] == 5]
    assert at_bound == ["(1281, 21)", "(3800, 30)", "(4608, 36)", "(8208, 48)"]
    assert "h-diameter 4, the lower bound, on (1281, 21), (3800, 30), (4608, 36) and " \
           "(8208, 48), where ORP's annealer ends at 5" in readme
    exps = record("hostswitch/bench_hostswitch.md")["experiments"]
    beat = {name: sum(bool(r["judge"]["beats_orp_sa"]) for r in exps[name]["rows"].values())
            for name in ("batch1", "chains16")}
    assert f"One chain beat ORP's annealer on {beat['batch1']} of 13 pairs where 16 tempering " \
           f"chains did on {beat['chains16']}" in docs
    gpu = exps["gpu"]["rows"]
    ends = ", ".join(f"{gpu[k]['golf']['aspl']:.6f}" for k in ("h1024r5", "h10000r10",
                                                                 "h65536r64"))
    assert ends == "7.503776, 6.387603, 4.492371"
    cpu = ", ".join(f"{r['golf']['aspl']:.6f}" for r in (
        record("hostswitch/bench_hostswitch.md")["rows"][k]
        for k in ("h1024r5", "h10000r10", "h65536r64")))
    assert cpu == "7.520499, 6.404148, 4.508601"
    assert "it ended at 7.503776 on (1024, 5), 6.387603 on (10000, 10) and 4.492371 on " \
           "(65536, 64), against 7.520499, 6.404148 and 4.508601 on 2 CPUs" in docs


def test_the_host_switch_scoring_speed_of_readme_and_docs():
    rows = record("bench/hostswitch_eval.md")["rows"]
    slower = [r for r in rows if r["speedup_serial"] < 1]
    samples = sorted((r for r in rows if not r["file"].startswith("random")),
                     key=lambda r: r["s"])
    assert sorted(r["file"] for r in slower) == sorted(r["file"] for r in samples[:2])
    rest = [r for r in rows if r not in slower]
    serial = (min(r["speedup_serial"] for r in rest), max(r["speedup_serial"] for r in rest))
    threads = (min(r["speedup_threads"] for r in rest),
               max(r["speedup_threads"] for r in rest))
    said = (f"{serial[0]:.1f}-{serial[1]:.0f}x on one thread and {threads[0]:.1f}-"
            f"{threads[1]:.0f}x on two")
    assert said == "1.2-31x on one thread and 3.1-38x on two"
    assert f"on all but its two samples with the fewest switches, {said}" in text("README.md")
    assert f"but for its two samples with the fewest switches, {said}" \
        in text("docs/hostswitch.md")


def test_the_grid_counts_of_readme_and_docs():
    from bench_grid import versus

    rows = list(record("grid/chase.md")["rows"].values())
    reached = [r for r in rows if r["best_known_reached"]]
    worst = max(float(versus(r).rstrip("%")) for r in rows if r not in reached)
    assert f"reaches or beats the best-known graph on {len(reached)} of the {len(rows)} " \
           f"problems with `n <= 400`, and is within {worst:.2f}% of it on the others" \
        in text("README.md")
    grid = text("docs/grid.md")
    assert [r["name"] for r in reached] == ["w5h5d4r2", "w5h10d4r2", "w10h10d4r2"]
    assert ("reaches the best-known graph of (5x5, 4, 2) and (5x10, 4, 2) and beats that of "
            "(10x10, 4, 2)") in grid
    won = {r["name"]: r["method"] for r in rows}  # the duel's winners
    assert {k for k, v in won.items() if v == "memetic"} == {
        "w5h5d4r2", "w10h10d4r2", "w10h10d6r3"}
    assert ("the memetic search on (5x5, 4, 2), (10x10, 4, 2) and (10x10, 6, 3), annealing "
            "on the others") in grid
    short = sorted(float(versus(r).rstrip("%")) for r in rows if r not in reached)
    assert f"It is {short[0]:.2f}% (10x10, 6, 3) to {short[-1]:.2f}% (10x10, 8, 4) above the " \
           "others" in grid
    config = list(record("grid/chase.md")["experiments"]["config"]["rows"].values())
    assert all(r["diameter"] == r["diameter_bound"] for r in config) and len(config) == 8
    assert "each of the eight with `n <= 400` reaches its diameter bound" in grid
    vs = [float(versus(r).rstrip("%")) for r in config]
    assert f"golf's 2-minute graphs are {min(vs):.2f}% (5x5, 4, 2) to {max(vs):.2f}% " \
           "(10x10, 8, 4) above those" in grid
    chase = record("grid/chase.md")["rows"]
    assert (f"where the chase reaches {chase['w10h10d6r3']['total']} and "
            f"{chase['w10h10d8r4']['total']}. Nor does") in grid
    islands = {r[0]: r for r in record("grid/chase.md")["experiments"]["islands"]["rows"]}
    d8, d6 = islands["(10x10, 8, 4)"], islands["(10x10, 6, 3)"]
    single = [[int(t) for t in r[2].split()] for r in (d8, d6)]
    for t, r in zip(single, (d8, d6)):  # the mean to one decimal, the best
        assert abs(sum(t) / len(t) - r[3]) <= 0.05 and min(t) == r[4], r
    assert (f"end at {d8[5]} and {d6[5]}, where single-core runs of 8 minutes end at "
            f"{min(single[0])}-{max(single[0])} and {min(single[1])}-{max(single[1])}") in grid


def test_the_mpi_figures_of_the_cluster_page():
    rec = record("bench/mpi.md")
    rate = {c["ranks"]: c["evaluations_per_s"] for c in rec["chains"]}
    docs = text("docs/clusters.md")
    assert f"{rate[1] / 1e3:.1f}K evaluations/s with 1 rank, {rate[2] / 1e3:.1f}K with 2" in docs
    runs = rec["experiments"]["multi_gpu"]["rows"]
    for name, seconds in (("n256d8", 150), ("n1024d8", 240)):
        two, one = runs[f"{name}/2"], runs[f"{name}/1"]
        assert f"{two['excess_ratio']:.3f} against {one['excess_ratio']:.3f}" in docs
        assert round(one["seconds"]) == seconds


UNIT = {"us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "M": 1e6}


def close(said: str, unit: str, value: float, rel: float = 0.03) -> bool:
    """A figure as the docs print it (rounded) against the record's value."""
    return abs(float(said) * UNIT[unit] - value) <= rel * value


def test_the_cpu_speeds_of_the_backends_and_python_pages():
    rows = record("bench/eval_cpu.md")["results"]
    best = {}
    for r in rows:
        if r["backend"] == "bitset":
            key = (r["n"], r["d"], r["g"])
            best[key] = min(best.get(key, 1e9), r["loop_median_s"])
    docs = text("docs/backends.md")
    said = re.findall(r"\((\d+),(\d+),(\d+)\) ([\d.]+) (us|ms|s)\b", docs)
    assert len(said) == len(best) == 9
    for n, d, g, value, unit in said:
        assert close(value, unit, best[(int(n), int(d), int(g))]), (n, d, g, value, unit)
    one = [r for r in rows if (r["n"], r["backend"], r["threads"]) == (50, "bitset", 1)][0]
    assert f"a call costs ~{one['golf_evaluate_median_s'] * 1e6:.1f} us, against " \
           f"~{one['loop_median_s'] * 1e6:.1f} us for the kernel alone" in text("docs/python.md")


def test_the_gpu_speeds_of_the_gpu_page():
    rec = record("gpu/bench_gpu.md")
    docs = text("docs/gpu.md")
    single = {(r["n"], r["d"], r["g"]): r["median_s"] for r in rec["single"]["rows"]}
    said = re.findall(r"\((\d+|10\^6), (\d+), (?:g=)?(\d+)\) in ([\d.]+) (ms|s)\b", docs)
    assert len(said) == len(single) == 6
    for n, d, g, value, unit in said:
        n = 10**6 if n == "10^6" else int(n)
        assert close(value, unit, single[(n, int(d), int(g))], 0.1), (n, d, g, value, unit)
    chains = {(r["K"], r.get("where", "host")): r["evaluations_per_s"]
              for r in rec["chains"]["rows"]}
    host, device, many = chains[(64, "host")], chains[(64, "device")], chains[(1024, "device")]
    assert f"64 chains scored from the host {round(host, -3):,.0f} evaluations a second, 64 " \
           f"chains on the device {device / 1e6:.2f} M ({device / host:.1f}x) and 1024 on the " \
           f"device {many / 1e6:.1f} M ({many / host:.0f}x)" in docs
    steps = {}  # a pair's first row: its chains at their default threads a block
    for r in record("search/bench_search.md")["experiments"]["chain_steps"]["rows"]:
        if (r["K"], r["speculate"]) == (16, 32):
            steps.setdefault((r["n"], r["d"], r["g"]), r["us_per_step"])
    steps = steps.values()
    assert f"take a chain's step in {min(steps):.1f} to {max(steps):.1f} µs" in docs


def test_the_gpu_host_switch_scoring_figures():
    rows = {r["file"]: r["seconds"] for r in record("bench/hostswitch_eval.md")["experiments"]
            ["gpu"]["rows"]}
    big, small = rows["h10000s5000r10.edges"], rows["h1024s400r10.edges"]
    assert f"one graph of 5000 switches takes {big['gpu_1'] * 1e3:.2f} ms, on one core " \
           f"{big['cpu_kernel'] * 1e3:.1f} ms; of 400 switches {small['gpu_1'] * 1e3:.2f} ms " \
           f"against {small['cpu_kernel'] * 1e3:.2f}" in text("docs/hostswitch.md")


# ------------------------------------------------------------------------------------------
# the experiments' machinery
def test_an_experiment_goes_into_the_record_and_its_line_onto_the_page(tmp_path):
    import benchlib

    out = str(tmp_path / "page")

    def markdown(rec):
        return "\n".join(["# page", *benchlib.experiment_lines(rec)]) + "\n"

    benchlib.save(out, {"rows": [1]}, markdown({}))
    exp = {"date": "2026-11-30T10:00:00", "command": "python x.py", "machine": {}, "rows": [2]}
    benchlib.save_experiment(out, "trial", exp, markdown)
    page = (tmp_path / "page.md").read_text()
    assert f"- `trial` (2026-11-30): {benchlib.UNSAID}" in page
    benchlib.render_experiment(out, "trial", "it showed this", markdown, "test")
    rec = json.loads((tmp_path / "page.json").read_text())
    assert rec["rows"] == [1] and rec["experiments"]["trial"]["rows"] == [2]
    assert (tmp_path / "page.md").read_text().endswith("- `trial` (2026-11-30): it showed this\n")
    with pytest.raises(SystemExit, match="no experiment 'other'"):
        benchlib.render_experiment(out, "other", "x", markdown, "test")
    # no record there (another machine, a dry run): the experiment alone, JSON only
    apart = str(tmp_path / "apart")
    benchlib.save_experiment(apart, "trial", dict(exp), markdown)
    assert json.loads((tmp_path / "apart.json").read_text())["experiments"]["trial"]["rows"] \
        == [2]
    assert not (tmp_path / "apart.md").exists()
    # a second problem of the same run (or another experiment) goes into that record too
    benchlib.save_experiment(apart, "trial", dict(exp, rows=[2, 3]), markdown)
    benchlib.save_experiment(apart, "other", dict(exp), markdown)
    rec = json.loads((tmp_path / "apart.json").read_text())
    assert rec["experiments"]["trial"]["rows"] == [2, 3] and "other" in rec["experiments"]
    assert "rows" not in rec and not (tmp_path / "apart.md").exists()


def test_bench_hostswitch_merges_an_experiment_and_keeps_the_page_rows(tmp_path):
    import bench_hostswitch

    out = tmp_path / "bench_hostswitch"
    main = record("hostswitch/bench_hostswitch.md")
    gpu16 = main["experiments"].pop("gpu16")
    (tmp_path / "other.json").write_text(json.dumps({"experiments": {"gpu16": gpu16}}))
    out.with_suffix(".json").write_text(json.dumps(main))
    bench_hostswitch.main(["--merge", str(tmp_path / "other.json"), "--experiment", "gpu16",
                           "--shows", "a line", "--out", str(out)])
    got = json.loads(out.with_suffix(".json").read_text())
    assert got["rows"] == main["rows"] and got["experiments"]["gpu16"]["rows"] == gpu16["rows"]
    assert got["experiments"]["gpu16"]["date"] == gpu16["date"]
    assert "- `gpu16` (2026-11-27): a line\n" in out.with_suffix(".md").read_text()



def test_the_gpu_test_record_reads_pytests_last_line():
    from bench_gpu_tests import markdown, summary

    assert summary("....\n188 passed, 1 skipped, 1994 deselected in 150.13s (0:02:30)\n") == {
        "passed": 188, "skipped": 1, "seconds": 150.13}
    assert summary("1 failed, 187 passed in 9.50s")["failed"] == 1
    rec = {"what": "every test marked `gpu`", "command": "pytest -m gpu", "notes": [],
           "rows": [{"machine": "one GPU", "date": "2026-11-30T10:00:00", "commit": "abc1234",
                     "change": None, "passed": 187, "failed": 1, "skipped": 0,
                     "seconds": 9.5}]}
    assert "| one GPU | 2026-11-30 | abc1234 | 187 (1 failed) | 0 | 9.5 |" in markdown(rec)
