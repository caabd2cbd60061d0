"""The Python API: golf.evaluate / make_evaluator / search / bounds / random_graph / read_edges /
write_edges, networkx interop, Graph.from_edges' input checks, and every example in the
docstrings, run as written (the docs' blocks: test_docs.py)."""

import doctest
import importlib
import json
import sys

import networkx as nx
import numpy as np
import pytest

import golf
from golf.errors import GolfError

from conftest import ROOT
from naive import apsp_score

DOC_MODULES = ["golf", "golf.api", "golf.graph", "golf.io", "golf.evaluators",
               "golf.starts.circulant", "golf.run.duel"]


@pytest.mark.parametrize("module", DOC_MODULES)
def test_docstring_examples(module):
    mod = importlib.import_module(module)
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{module} has no examples"
    assert result.failed == 0


def test_evaluate_any_graph_form_and_reuse():
    petersen = nx.petersen_graph()
    want = apsp_score(10, np.array(petersen.edges()))
    for form in (petersen, np.array(petersen.edges()), list(petersen.edges()),
                 golf.Graph.from_networkx(petersen)):
        s = golf.evaluate(form)
        assert (s.diameter, s.total, s.peripheral) == want
    from golf import api

    api._CACHE.clear()
    graph = golf.random_graph(60, 4, g=3, seed=2)
    first = golf.evaluate(graph, "bfs", threads=1)
    assert len(api._CACHE) == 1 and golf.evaluate(graph, "bfs", threads=1) == first
    assert golf.evaluate(graph, "bitset").total == first.total and len(api._CACHE) == 2
    with pytest.raises(GolfError, match="backend 'bfs' has no option 'chunk_words'"):
        golf.evaluate(graph, "bfs", chunk_words=2)


def test_from_edges_takes_any_k_by_2_integer_array():
    cycle = [(i, (i + 1) % 6) for i in range(6)]
    for form in (cycle, np.array(cycle, dtype=np.int32), np.array(cycle, dtype=np.uint16),
                 np.array(cycle, dtype=np.uint64), np.array(cycle, dtype=object)):
        assert golf.Graph.from_edges(form, g="auto") == golf.Graph.from_edges(cycle, g=6)
    assert golf.Graph.from_edges([], n=3).num_edges == 0
    for bad, msg in ((np.zeros((4, 3), dtype=int), r"expected a \(k, 2\) array.*\(4, 3\)"),
                     (np.arange(6), r"expected a \(k, 2\) array"),
                     ([(0, 1.5)], "expected integer vertex ids, got float64"),
                     ([(True, False)], "expected integer vertex ids"),
                     (np.array([[0, 2**64 - 1]], dtype=np.uint64), "too large"),
                     ([(0, 2**70)], "does not fit 64 bits"),
                     ([(0, -1)], "out of range")):
        with pytest.raises(GolfError, match=msg):
            golf.Graph.from_edges(bad)


def test_networkx_round_trip_and_errors(monkeypatch):
    G = nx.convert_node_labels_to_integers(nx.random_regular_graph(3, 20, seed=1))
    graph = golf.Graph.from_networkx(G)
    assert nx.utils.graphs_equal(graph.to_networkx(), G)
    named = nx.relabel_nodes(G, {v: f"v{v}" for v in G})  # ids in G.nodes() order
    assert golf.evaluate(golf.Graph.from_networkx(named)) == golf.evaluate(graph)
    cyc = golf.Graph.from_networkx(nx.cycle_graph(12), g="auto")
    assert cyc.g == 12
    with pytest.raises(GolfError, match="undirected simple graph"):
        golf.Graph.from_networkx(nx.DiGraph([(0, 1)]))
    with pytest.raises(GolfError, match="self-loop"):
        golf.Graph.from_networkx(nx.Graph([(0, 0), (0, 1)]))
    with pytest.raises(GolfError, match="not 4-symmetric"):
        golf.Graph.from_networkx(nx.path_graph(8), g=4)
    monkeypatch.setitem(sys.modules, "networkx", None)
    with pytest.raises(GolfError, match="networkx is not installed"):
        graph.to_networkx()


def test_read_write_edges(tmp_path):
    graph = golf.random_graph(40, 3, g=2, seed=5)
    for name in ("g.edges", "g.edges.gz"):
        golf.write_edges(tmp_path / name, graph)
        back = golf.read_edges(tmp_path / name).graph(g="auto")
        assert back == graph and back.g % 2 == 0
    golf.write_edges(tmp_path / "a.edges", graph.edges())
    assert (tmp_path / "a.edges").read_bytes() == (tmp_path / "g.edges").read_bytes()


def test_search_in_memory_is_the_engine_of_golf_run(tmp_path, capsys):
    r = golf.search(80, 4, g=2, steps=2500, seed=3, progress=False, trace_every=500)
    assert capsys.readouterr().out == ""
    assert r.path is None and r.trace.shape == (5, len(r.columns))
    want = apsp_score(80, r.graph.edges())
    assert (r.score.diameter, r.score.total, r.score.peripheral) == want
    assert r.summary["best"]["total"] == r.score.total < r.summary["start"]["total"]
    # the same run through a folder and `golf run` finds the same graph
    out = tmp_path / "run"
    w = golf.search(80, 4, g=2, steps=2500, seed=3, progress=True, trace_every=500, output=out)
    assert "done (step limit)" in capsys.readouterr().out
    assert w.graph == r.graph and (out / "best.edges").exists()
    s = json.loads((out / "summary.json").read_text())
    assert s["best"] == w.summary["best"]
    with pytest.raises(GolfError, match="already holds a run"):
        golf.search(80, 4, g=2, steps=100, output=out, progress=False)


def test_search_settings_are_checked():
    with pytest.raises(GolfError, match="unknown setting 'temperature'"):
        golf.search(40, 3, steps=10, temperature=3)
    with pytest.raises(GolfError, match="search.method: expected 'sa', 'hill', 'tabu', 'memetic' or 'auto'"):
        golf.search(40, 3, steps=10, method="taboo")
    with pytest.raises(GolfError, match="give seconds or steps"):
        golf.search(40, 3)


def test_result_plot(tmp_path):
    pytest.importorskip("matplotlib", reason="matplotlib draws the plot (golf[plot])")
    r = golf.search(40, 3, steps=1000, seed=1, progress=False, trace_every=100)
    assert r.plot(tmp_path / "c.png") == "written"
    assert (tmp_path / "c.png").read_bytes()[:4] == b"\x89PNG"


def test_import_golf_stays_light():
    """The command line imports golf first: no Numba until a function needs it."""
    import subprocess

    code = "import golf, sys; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT).stdout.strip()
    assert out == "False"


def test_numba_cache_is_keyed_by_the_source(tmp_path):
    """Numba re-checks only a cached function's own file; golf names its cache folder by a
    hash of all its sources, so an edit of any file is a fresh cache. A user's
    NUMBA_CACHE_DIR is kept."""
    import os
    import subprocess
    import sys

    code = ("import golf, os, numba.core.config as c; "
            "print(os.environ['NUMBA_CACHE_DIR'], c.CACHE_DIR)")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    assert out[0] == out[1] and out[0].startswith(str(tmp_path / "golf" / "numba"))
    assert len(os.path.basename(out[0])) == 16
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "mine")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == [str(tmp_path / "mine")] * 2
