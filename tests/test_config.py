import os
from pathlib import Path

import pytest

from golf.config import load_config, parse_overrides
from golf.errors import GolfError

ROOT = Path(__file__).resolve().parent.parent


def cfg(tmp_path, text, name="c.yaml"):
    p = tmp_path / name
    p.write_text(text)
    return p


BASE = """name: t
problem: {n: 64, d: 4, g: 2}
search: {steps: 100}
"""


def test_defaults_filled(tmp_path):
    (run,) = load_config(cfg(tmp_path, BASE))
    assert run.name == "t" and run.path == Path("results") / "t"
    d = run.data
    assert d["search"]["method"] == "sa" and d["search"]["t0"] == "auto"
    assert d["evaluator"]["backend"] == "auto" and d["parallel"]["mode"] == "none"
    assert d["output"]["dir"] == "results"


@pytest.mark.parametrize("text,pattern", [
    ("name: t\nproblem: {n: 64, d: 4}\nsearch: {steps: 10}\nsurch: {}\n",
     r"c\.yaml:4: unknown key 'surch' \(did you mean 'search'\?\)"),
    ("name: t\nproblem: {n: 64, d: 4, q: 1}\nsearch: {steps: 10}\n",
     r"unknown key 'problem.q'"),
    ("name: t\nproblem: {n: 64, d: 4}\nsearch:\n  steps: ten\n",
     r"c\.yaml:4: search.steps: expected an integer >= 0 \(0: no step limit\), got 'ten'"),
    ("name: t\nproblem: {n: 64, d: 4, g: 5}\nsearch: {steps: 10}\n",
     r"problem.g: 5 does not divide n=64"),
    ("name: t\nproblem: {n: 8, d: 8}\nsearch: {steps: 10}\n", r"expected d < n"),
    ("name: t\nproblem: {n: 9, d: 3, regular: true}\nsearch: {steps: 10}\n",
     r"n\*d is odd"),
    ("name: t\nproblem: {n: 64, d: 4}\nsearch: {time_limit: -3}\n",
     r"search.time_limit: expected seconds > 0, or null, got -3"),
    ("name: t\nproblem: {n: 64, d: 4}\nsearch: {seed: 1}\n", r"set steps \(> 0\) or time_limit"),
    ("name: t\nproblem: {n: 64, d: 4}\nsearch: {steps: 5, method: anneal}\n",
     r"search.method: expected 'sa', 'hill', 'tabu', 'memetic' or 'auto', got 'anneal'"),
    ("name: t\nproblem: {n: 64, d: 4}\nsearch: {steps: 5, t0: 1, t1: 2}\n",
     r"search.t1: expected t1 <= t0"),
    ("name: t\nproblem: {n: 64}\nsearch: {steps: 5}\n", r"missing problem.d"),
    ("name: a/b\nproblem: {n: 64, d: 4}\nsearch: {steps: 5}\n", r"name: expected a run name"),
    ("name: t\nproblem: {n: 64, d: 4}\nsearch: {steps: 5, aspl_priority: yes please}\n",
     r"search.aspl_priority: expected true or false"),
    ("name: t\nproblem: [1, 2]\n", r"problem: expected a mapping"),
    ("name: t\nproblem: {n: 64, d: 4\n", r"c\.yaml:\d+: not valid YAML"),
    ("", r"the file is empty"),
])
def test_errors_name_key_and_line(tmp_path, text, pattern):
    with pytest.raises(GolfError, match=pattern):
        load_config(cfg(tmp_path, text))


def test_a_problem_set_to_a_scalar_in_a_list_of_problems_is_an_error(tmp_path):
    """``--set problem=None`` over a config with ``problems:`` (found by tests/test_fuzz.py):
    a GolfError naming the file, the line and the value, not a crash."""
    text = "name: t\nproblem:\n  n: 8\n  d: 3\nsearch: {steps: 5}\nproblems:\n- {}\n"
    with pytest.raises(GolfError, match=r"c\.yaml:2: problem: expected a mapping, got 'None'"):
        load_config(cfg(tmp_path, text), ["problem=None"])


def test_missing_file(tmp_path):
    with pytest.raises(GolfError, match="no such config file"):
        load_config(tmp_path / "nope.yaml")


def test_overrides_win(tmp_path):
    (run,) = load_config(cfg(tmp_path, BASE), ["search.seed=7", "problem.g=4",
                                               "output.dir=elsewhere", "search.t0=2.5"])
    assert run.data["search"]["seed"] == 7 and run.data["problem"]["g"] == 4
    assert run.data["search"]["t0"] == 2.5
    assert run.path == Path("elsewhere") / "t"
    with pytest.raises(GolfError, match="--set seed: expected key=value"):
        parse_overrides(["seed"])
    with pytest.raises(GolfError, match="unknown key 'search.sed'"):
        load_config(cfg(tmp_path, BASE), ["search.sed=3"])


def test_several_problems(tmp_path):
    text = """name: comp
search: {time_limit: 5}
problems:
  - {problem: {n: 50, d: 4}}
  - {name: big, problem: {n: 512, d: 6, g: 8}, search: {time_limit: 9}}
"""
    runs = load_config(cfg(tmp_path, text))
    assert [r.name for r in runs] == ["n50d4", "big"]
    assert runs[1].data["search"]["time_limit"] == 9.0
    assert runs[0].data["search"]["time_limit"] == 5.0
    assert runs[1].path == Path("results") / "comp" / "big"
    assert [r.name for r in load_config(cfg(tmp_path, text), only=["big"])] == ["big"]
    with pytest.raises(GolfError, match="no problem named x"):
        load_config(cfg(tmp_path, text), only=["x"])
    bad = text.replace("{n: 512, d: 6, g: 8}", "{n: 512, d: 6, g: 7}")
    with pytest.raises(GolfError, match=r"c\.yaml:5: problem.g: 7 does not divide n=512"):
        load_config(cfg(tmp_path, bad))


@pytest.mark.parametrize("name", sorted(os.listdir(ROOT / "configs")))
def test_bundled_configs_are_valid(name):
    runs = load_config(ROOT / "configs" / name)
    assert runs
    if name == "graphgolf2019.yaml":
        pairs = [(r.data["problem"]["n"], r.data["problem"]["d"]) for r in runs]
        assert pairs == [(50, 4), (512, 4), (512, 6), (1024, 4), (1726, 30), (4855, 15),
                         (9344, 6), (65536, 6), (100000, 8), (1000000, 16), (1000000, 32)]
        for r in runs:  # m = n/g comfortably above d
            p = r.data["problem"]
            assert p["n"] // p["g"] > p["d"]
    if name == "graphgolf2021.yaml":  # the general pairs of Graph Golf 2021, all g: auto
        pairs = [(r.data["problem"]["n"], r.data["problem"]["d"]) for r in runs]
        assert sorted(pairs) == [(40, 5), (432, 12), (512, 18), (1024, 5), (3602, 24),
                                 (65536, 64), (100000, 128), (158976, 10)]
        assert all(r.data["problem"]["g"] == "auto" for r in runs)


def test_evaluator_options_come_from_the_registry(tmp_path):
    """The evaluator section takes 'backend' (auto or a registry name) and the backends'
    options; only the options that are set are kept; a named backend refuses the options it
    does not take, naming the file and line."""
    from golf.evaluators import names

    (run,) = load_config(cfg(tmp_path, BASE + "evaluator: {backend: bitset, chunk_words: 2}\n"))
    assert run.data["evaluator"] == {"backend": "bitset", "chunk_words": 2}
    (run,) = load_config(cfg(tmp_path, BASE + "evaluator: {threads: 1, precision: fp16}\n"))
    assert run.data["evaluator"] == {"backend": "auto", "threads": 1, "precision": "fp16"}
    with pytest.raises(GolfError, match=r"c\.yaml:6: backend .bfs. has no option "
                                        r"'chunk_words'; its options: threads"):
        load_config(cfg(tmp_path, BASE + "evaluator:\n  backend: bfs\n  chunk_words: 2\n"))
    with pytest.raises(GolfError, match=r"evaluator.thread_mode: expected serial, chunks"):
        load_config(cfg(tmp_path, BASE + "evaluator: {thread_mode: diagonal}\n"))
    with pytest.raises(GolfError, match="evaluator.backend: expected auto, " + ", ".join(
            names()[:-1])):
        load_config(cfg(tmp_path, BASE + "evaluator: {backend: fortran}\n"))
    with pytest.raises(GolfError, match="unknown key 'evaluator.treads'.*'evaluator.threads'"):
        load_config(cfg(tmp_path, BASE + "evaluator: {treads: 2}\n"))


# -- hostile configs (issue 15) --------------------------------------------------------------
def _bomb(levels=9, width=9):
    lines = [f"a0: &a0 [{', '.join(['x'] * width)}]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * width)}]" for i in range(1, levels)]
    return "\n".join(lines) + f"\n{BASE}extra: *a{levels - 1}\n"


def test_alias_bomb_is_refused_at_once(tmp_path):
    import time

    t0 = time.perf_counter()
    with pytest.raises(GolfError, match=r"c\.yaml:1: YAML anchor '&a0': anchors and aliases "
                                        r"are not read"):
        load_config(cfg(tmp_path, _bomb()))
    assert time.perf_counter() - t0 < 1


@pytest.mark.parametrize("text,pattern", [
    (BASE + "output: {dir: *x}\n", r"c\.yaml:4: YAML alias '\*x'"),
    (BASE.replace("search: {steps: 100}", "search: &s {steps: 100}") + "x: *s\n",
     r"c\.yaml:3: YAML anchor '&s'"),
    (BASE + "z: " + "[" * 5000 + "]" * 5000 + "\n", r"c\.yaml:4: nested more than 32 levels"),
    (BASE + "z: \x0c\n", r"c\.yaml:4: not valid YAML: character '\\x0c' is not allowed"),
    (BASE + "search: {steps: 100, time_limit: .nan}\n", r"search\.time_limit: expected"),
    (BASE.replace("n: 64", "n: 99999999999999999999999"), r"problem\.n: expected an integer "
                                                           r"from 1 to 2147483647"),
    (BASE.replace("n: 64, d: 4, g: 2", "grid: [100000, 100000], d: 4, r: 2"),
     r"c\.yaml:2: problem\.grid: expected a lattice size"),
])
def test_hostile_yaml_names_file_and_line(tmp_path, text, pattern):
    with pytest.raises(GolfError, match=pattern):
        load_config(cfg(tmp_path, text))


def test_large_config_refused_before_parsing(tmp_path):
    from golf.config import MAX_CONFIG_BYTES

    text = BASE + "#" * MAX_CONFIG_BYTES + "\n"
    with pytest.raises(GolfError, match=r"c\.yaml: larger than 1048576 bytes; expected a "
                                        r"config file of a few KB"):
        load_config(cfg(tmp_path, text))
    with pytest.raises(GolfError, match=r"/dev/zero: larger than 1048576 bytes"):
        load_config("/dev/zero")


def test_set_values_take_no_aliases():
    with pytest.raises(GolfError, match=r"--set search\.seed=&a 3: YAML anchor '&a'"):
        parse_overrides(["search.seed=&a 3"])
    with pytest.raises(GolfError, match=r"--set search\.seed=\[: not valid YAML"):
        parse_overrides(["search.seed=["])


def test_shared_yaml_reader(tmp_path):
    """read_yaml: the one way golf reads a YAML file (for a run folder's run.yaml too)."""
    from golf.config import read_yaml

    data, lines = read_yaml(cfg(tmp_path, BASE))
    assert data["problem"]["n"] == 64 and lines["search.steps"] == 3
    with pytest.raises(GolfError, match=r"c\.yaml:1: YAML anchor"):
        read_yaml(cfg(tmp_path, _bomb()))


# -- paths that cannot be used are refused before the search, by key and line ---------------
def test_output_dir_that_is_a_file(tmp_path):
    (tmp_path / "afile").write_text("x")
    for out, pattern in ((tmp_path / "afile", r"c\.yaml:4: output\.dir: '.*afile' is a file, "
                                              r"expected a folder \(on the way to the run "
                                              r"folder '.*afile/t'\)"),
                         (tmp_path / "afile" / "sub", r"'.*afile' is a file"),
                         ("/etc/passwd", r"output\.dir: '/etc/passwd' is a file")):
        with pytest.raises(GolfError, match=pattern):
            load_config(cfg(tmp_path, BASE + f"output: {{dir: '{out}'}}\n"))
    # the run folder itself a file
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "t").write_text("x")
    with pytest.raises(GolfError, match=r"output\.dir: '.*out/t' is a file, expected a "
                                        r"folder$"):
        load_config(cfg(tmp_path, BASE + f"output: {{dir: '{tmp_path / 'out'}'}}\n"))
    # a folder still to be made under a writable one is fine, and nothing is created
    (run,) = load_config(cfg(tmp_path, BASE + f"output: {{dir: '{tmp_path / 'a/b'}'}}\n"))
    assert run.path == tmp_path / "a" / "b" / "t" and not (tmp_path / "a").exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes and reads whatever the mode bits say")
def test_unwritable_output_dir_and_unreadable_start(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    start = tmp_path / "start.edges"
    start.write_text("0 1\n")
    start.chmod(0o000)
    try:
        with pytest.raises(GolfError, match=r"c\.yaml:4: output\.dir: no permission to write in "
                                            r"'.*locked' \(on the way to"):
            load_config(cfg(tmp_path, BASE + f"output: {{dir: '{locked}'}}\n"))
        text = BASE.replace("g: 2}", f"g: 2, start: '{start}'}}")
        with pytest.raises(GolfError, match=r"c\.yaml:2: problem\.start: no permission to read"):
            load_config(cfg(tmp_path, text))
    finally:
        locked.chmod(0o700)
        start.chmod(0o600)


@pytest.mark.parametrize("start,pattern", [
    ("missing.edges", r"c\.yaml:2: problem\.start: no such edge-list file 'missing\.edges'"),
    ("DIR", r"c\.yaml:2: problem\.start: '.*' is a folder, expected an edge-list file"),
    ("/dev/zero", r"problem\.start: '/dev/zero' is not a regular file"),
    ("x" * 5000, r"problem\.start: (cannot use|no such edge-list file)"),
])
def test_start_that_cannot_be_read(tmp_path, start, pattern):
    start = str(tmp_path) if start == "DIR" else start
    text = BASE.replace("g: 2}", f"g: 2, start: '{start}'}}")
    with pytest.raises(GolfError, match=pattern):
        load_config(cfg(tmp_path, text))


def test_permission_messages_where_root_would_pass(tmp_path, monkeypatch):
    """The same checks as above with os.access answering as for a user without the rights (so
    that they run under root too, where the mode bits do not bite)."""
    import golf.config

    start = tmp_path / "start.edges"
    start.write_text("0 1\n")
    monkeypatch.setattr(golf.config.load.os, "access", lambda path, mode: False)
    with pytest.raises(GolfError, match=r"c\.yaml:4: output\.dir: no permission to write in "
                                        r"'[^']*' \(on the way to the run folder '.*new/t'\)"):
        load_config(cfg(tmp_path, BASE + f"output: {{dir: '{tmp_path / 'new'}'}}\n"))
    text = BASE.replace("g: 2}", f"g: 2, start: '{start}'}}")
    with pytest.raises(GolfError, match=r"c\.yaml:2: problem\.start: no permission to read "
                                        r"'.*start\.edges'"):
        load_config(cfg(tmp_path, text))


@pytest.mark.parametrize("value,pattern", [
    ("9" * 5000, r"c\.yaml:4: a number of 5000 characters \('9{37}\.\.\.'\); expected at most "
                 r"100"),
    ("2020-13-45", r"c\.yaml:4: cannot read the value '2020-13-45': month must be in 1\.\.12"),
])
def test_values_yaml_cannot_build_are_named(tmp_path, value, pattern):
    with pytest.raises(GolfError, match=pattern):
        load_config(cfg(tmp_path, BASE + f"output: {{dir: {value}}}\n"))
