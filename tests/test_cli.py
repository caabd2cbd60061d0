"""The golf command end to end: real subprocesses for the entry point, in-process calls of
``main`` for the many error cases (same code, no interpreter start-up each time)."""

import gzip
import json
import os

import networkx as nx
import numpy as np
import pytest

from golf.cli import main
from golf.io import write_edges

from conftest import RAN_AS_SCRIPT, run_golf
from naive import apsp_score


@pytest.fixture
def petersen(tmp_path):
    p = tmp_path / "petersen.edges"
    write_edges(p, np.array(nx.petersen_graph().edges()))
    return p


@pytest.mark.slow
def test_random_then_eval_json_end_to_end(tmp_path, capsys):
    """The entry point in a subprocess, then every backend that runs here in-process."""
    from golf.evaluators import backend_class, names

    out = tmp_path / "r.edges"
    proc = run_golf("random", 120, 5, "--g", 4, "--seed", 3, "-o", out, check=True)
    assert "wrote" in proc.stdout
    e = np.loadtxt(out, dtype=np.int64)
    want = apsp_score(120, e)
    o = json.loads(run_golf("eval", out, "--g", 4, "--json", check=True).stdout)
    assert (o["diameter"], o["total"]) == want[:2] and o["backend"] == "bitset"
    for backend in [b for b in names() if backend_class(b).unavailable() is None] + ["auto"]:
        assert main(["eval", str(out), "--g", "4", "--backend", backend, "--json"]) == 0
        o = json.loads(capsys.readouterr().out)
        assert {"n", "d", "g", "diameter", "total", "aspl", "diameter_bound", "aspl_bound",
                "backend", "seconds"} <= set(o)
        assert (o["n"], o["d"], o["g"]) == (120, 5, 4)
        assert (o["diameter"], o["total"]) == want[:2]
        assert o["aspl"] == pytest.approx(want[1] / (120 * 119 / 2), rel=1e-15)
        assert o["backend"] == (backend if backend != "auto" else "bitset")


def test_eval_text_output(petersen, capsys):
    assert main(["eval", str(petersen), "--explain"]) == 0
    out, err = capsys.readouterr()
    assert "diameter      2   bound 2   gap 0" in out
    assert "ASPL          1.6666666667" in out
    assert "(5/3)" in out
    assert "max degree    3" in out
    assert "auto chose bitset" in err


def test_eval_repeat_reports_mean(petersen, capsys):
    assert main(["eval", str(petersen), "--json", "--repeat", "5", "--backend", "bfs"]) == 0
    o = json.loads(capsys.readouterr().out)
    assert o["repeat"] == 5 and o["seconds"] > 0


def test_eval_symmetry_auto_and_wrong_g(tmp_path, capsys):
    from golf.starts.random import random_graph

    p = tmp_path / "s.edges"
    write_edges(p, random_graph(60, 4, 6, seed=1).edges())
    assert main(["eval", str(p), "--g", "auto", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["g"] % 6 == 0
    assert main(["eval", str(p), "--g", "4"]) == 2
    assert "not 4-symmetric" in capsys.readouterr().err


def test_eval_disconnected(tmp_path, capsys):
    p = tmp_path / "d.edges"
    p.write_text("0 1\n2 3\n")
    assert main(["eval", str(p), "--json"]) == 0
    o = json.loads(capsys.readouterr().out)
    assert o["diameter"] is None and o["aspl"] is None and o["connected"] is False
    assert main(["eval", str(p)]) == 0
    assert "inf" in capsys.readouterr().out


def test_eval_warns_on_duplicates(tmp_path, capsys):
    p = tmp_path / "dup.edges"
    p.write_text("0 1\n1 2\n2 0\n1 0\n")
    assert main(["eval", str(p), "--json"]) == 0
    out, err = capsys.readouterr()
    assert "dup.edges:4: duplicate edge '1 0' (first on line 1); ignored" in err
    assert json.loads(out)["total"] == 3


@pytest.mark.parametrize("text,needle", [
    ("0 1\n1 q\n", ":2: expected an integer vertex id, found 'q'"),
    ("0 1 2\n", ":1: expected 2 columns"),
    ("3 3\n", ":1: self-loop '3 3'"),
    ("-2 1\n", ":1: negative vertex id -2"),
])
@pytest.mark.slow
def test_eval_bad_file_one_clear_line(tmp_path, text, needle):
    p = tmp_path / "bad.edges"
    p.write_text(text)
    proc = run_golf("eval", p)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and needle in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.slow
def test_bad_arguments_no_traceback(tmp_path):
    for args in (["eval", tmp_path / "missing.edges"], ["random", 10, 1, "-o", tmp_path / "x"],
                 ["random", 10, 3, "--g", 4, "-o", tmp_path / "x"], ["bounds", 0, 3],
                 ["eval", tmp_path, "--backend", "bfs"]):
        proc = run_golf(*args)
        assert proc.returncode == 2, args
        assert "Traceback" not in proc.stderr and proc.stderr.strip(), args


def test_validate(tmp_path, petersen, capsys):
    assert main(["validate", str(petersen), "--n", "10", "--d", "3"]) == 0
    assert "valid" in capsys.readouterr().out
    bad = tmp_path / "bad.edges"
    bad.write_text("0 1\n1 2\n2 0\nx y\n1 0\n0 3\n0 4\n5 5\n9 1\n")
    assert main(["validate", str(bad), "--n", "6", "--d", "2"]) == 2
    err = capsys.readouterr().err
    assert "bad.edges:4: expected an integer" in err
    assert "bad.edges:5: duplicate edge '1 0' (first on line 1)" in err
    assert "bad.edges:8: self-loop" in err
    assert "bad.edges:9: vertex id 9 >= n=6" in err
    assert "vertex 0 has degree 5 > d=2" in err
    assert "disconnected" in err
    assert "INVALID (" in err


def test_bounds_command(capsys):
    assert main(["bounds", "36", "3", "--json"]) == 0
    o = json.loads(capsys.readouterr().out)
    assert o["diameter_bound"] == 4 and o["aspl_bound_fraction"] == "107/35"
    assert main(["bounds", "16", "4"]) == 0
    assert "26/15" in capsys.readouterr().out


def test_python_m_golf_is_the_command(monkeypatch, capsys):
    """``python -m golf`` (golf/__main__.py) runs :func:`golf.cli.main` on the arguments and
    exits with its code."""
    import runpy
    import sys

    monkeypatch.setattr(sys, "argv", ["golf", "bounds", "36", "3", "--json"])
    with pytest.raises(SystemExit) as stop:
        runpy.run_module("golf", run_name="__main__", alter_sys=True)
    assert stop.value.code == 0
    assert json.loads(capsys.readouterr().out)["aspl_bound_fraction"] == "107/35"
    monkeypatch.setattr(sys, "argv", ["golf", "bounds", "36", "x"])
    with pytest.raises(SystemExit) as stop:
        runpy.run_module("golf", run_name="__main__", alter_sys=True)
    assert stop.value.code == 2 and "argument d" in capsys.readouterr().err
    RAN_AS_SCRIPT.add("golf.__main__")


def test_random_writes_atomically_and_reproducibly(tmp_path):
    a, b = tmp_path / "a.edges", tmp_path / "b.edges"
    assert main(["random", "200", "6", "--g", "5", "--seed", "9", "-o", str(a), "--quiet"]) == 0
    assert main(["random", "200", "6", "--g", "5", "--seed", "9", "-o", str(b), "--quiet"]) == 0
    assert a.read_bytes() == b.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.edges", "b.edges"]


def test_eval_backend_options(petersen, capsys):
    """--opt passes any option the backend declares; one it does not take is refused with
    the ones it does; under auto the others' options are left out, and --explain says so."""
    assert main(["eval", str(petersen), "--backend", "bitset", "--opt", "thread_mode=rows",
                 "--opt", "chunk_words=1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["total"] == 75
    assert main(["eval", str(petersen), "--backend", "bfs", "--opt", "chunk_words=2"]) == 2
    assert "backend 'bfs' has no option 'chunk_words'; its options: threads" in \
        capsys.readouterr().err
    assert main(["eval", str(petersen), "--backend", "bitset", "--opt",
                 "thread_mode=diagonal"]) == 2
    assert "thread_mode: expected serial, chunks, rows" in capsys.readouterr().err
    assert main(["eval", str(petersen), "--opt", "block=4", "--explain", "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["total"] == 75 and "left out: block" in err


# -- hostile input (issue 15) ----------------------------------------------------------------
@pytest.mark.parametrize("text,needle", [
    ("0 1\n1 999999999999\n", "x.edges:2: vertex id 999999999999 is too large in "
                              "'1 999999999999': expected ids < 2147483647"),
    ("0 1\n1 2000000000\n", "x.edges:2: vertex id 2000000000 is too large for 2 edges: "
                            "expected ids < 1028"),
    ("0 1\n1 99999999999999999999999\n", "x.edges:2: vertex id 99999999999999999999999 is "
                                         "too large"),
    ("0,0 1,0\n1,0 999999999999,0\n", "x.edges:2: coordinate 999999999999 is too large"),
    ("0,0 1,0\n1,0 5000,0\n", "x.edges:2: cell in '1,0 5000,0' makes the bounding box 5001x1"),
])
def test_eval_of_huge_ids_one_line_no_allocation(tmp_path, capsys, text, needle):
    p = tmp_path / "x.edges"
    p.write_text(text)
    assert main(["eval", str(p)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("golf: error: ") and needle in err, err


def test_eval_n_and_d_beyond_the_edges(tmp_path, capsys):
    p = tmp_path / "x.edges"
    p.write_text("0 1\n1 2000000000\n")
    assert main(["eval", str(p), "--n", "2000000001"]) == 2
    assert "the base rows would take 2000000001 x 2 slots (14.9 GiB) for 2 edges" in \
        capsys.readouterr().err
    p.write_text("0 1\n1 2\n")
    assert main(["eval", str(p), "--d", "1000000000"]) == 2
    assert "d=1000000000" in capsys.readouterr().err


def test_validate_memory_follows_the_file_not_n(tmp_path, capsys):
    """--n 2*10^9 on a 2-edge file: every problem listed, nothing of size n allocated."""
    import tracemalloc

    p = tmp_path / "x.edges"
    p.write_text("0 1\n1 2\n2 " + "9" * 40 + "\n")
    tracemalloc.start()
    try:
        assert main(["validate", str(p), "--n", "2000000000", "--d", "1"]) == 2
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    err = capsys.readouterr().err.splitlines()
    assert peak < 4 << 20
    assert "x.edges:3: vertex id 999999999999999999999999999... is too large" in err[0]
    assert err[1].endswith("x.edges: vertex 1 has degree 2 > d=1")
    assert err[2].endswith("disconnected: vertex 0 reaches 3 of n=2000000000 vertices "
                           "(1999999997 vertices have no edge at all)")
    assert err[3].endswith("INVALID (3 problems)")


def test_validate_of_a_star_lists_the_degree(tmp_path, capsys):
    """A star of 20000 edges: golf's rows would take 20000^2 slots; validate checks it on the
    edges and reports the degree."""
    p = tmp_path / "star.edges"
    p.write_text("".join(f"0 {k}\n" for k in range(1, 20001)))
    assert main(["validate", str(p), "--n", "20001", "--d", "4"]) == 2
    err = capsys.readouterr().err
    assert "vertex 0 has degree 20000 > d=4" in err and "disconnected" not in err


def test_damaged_gzip_one_line(tmp_path, capsys):
    p = tmp_path / "x.edges.gz"
    p.write_bytes(b"no\n")
    assert main(["eval", str(p)]) == 2
    err = capsys.readouterr().err
    assert err == (f"golf: error: {p}: not a gzip file (Not a gzipped file (b'no')); a name "
                   f"ending in .gz is read gzipped\n")
    p.write_bytes(gzip.compress(b"0 1\n1 2\n" * 100)[:25])
    assert main(["validate", str(p), "--n", "3", "--d", "2"]) == 2
    assert "the gzip data ends early" in capsys.readouterr().err


def test_run_with_output_dir_a_file_names_the_key(tmp_path, capsys):
    c = tmp_path / "c.yaml"
    c.write_text("name: x\nproblem: {n: 10, d: 3}\nsearch: {steps: 10}\n"
                 "output: {dir: /etc/passwd}\n")
    assert main(["run", str(c), "--quiet"]) == 2
    assert capsys.readouterr().err == (f"golf: error: {c}:4: output.dir: '/etc/passwd' is a "
                                       f"file, expected a folder (on the way to the run folder "
                                       f"'/etc/passwd/x')\n")


@pytest.mark.slow
def test_closed_stdout_ends_quietly(tmp_path):
    """golf bounds | head -1: no 'Broken pipe' on stderr; exit 141 (128 + SIGPIPE) when the
    reader left before golf wrote, 0 when golf wrote first."""
    import subprocess
    import sys

    from conftest import ROOT

    proc = subprocess.run(["bash", "-c", f"'{sys.executable}' -m golf bounds 256 8 | head -1; "
                           "echo \"status ${PIPESTATUS[0]}\" >&2"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.stdout == "n=256 d=8\n"
    assert proc.stderr.strip() in ("status 0", "status 141"), proc.stderr
    # the reader gone before golf writes: always the broken pipe
    reader, writer = os.pipe()
    os.close(reader)
    try:
        proc = subprocess.run([sys.executable, "-m", "golf", "bounds", "256", "8"],
                              stdout=writer, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                              timeout=120)
    finally:
        os.close(writer)
    assert proc.returncode == 141 and proc.stderr == "", proc.stderr
