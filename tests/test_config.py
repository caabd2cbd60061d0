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
     r"search.method: expected 'sa', 'hill' or 'tabu', got 'anneal'"),
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
