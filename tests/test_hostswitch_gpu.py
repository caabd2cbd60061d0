"""Host-switch graphs scored on the GPU (golf.evaluators.h_gpu_bitset) against a BFS over the whole
host-switch graph (tests/naive.py) and the CPU's bit matrix, in single evaluations, batches
after moves, parts of the column words, runs and ``golf eval``. Skipped (with the reason)
without CuPy or a GPU; run them on a GPU machine with ``python -m pytest -m gpu``."""

import json

import numpy as np
import pytest

from golf.engine.moves import new_undo, propose_move
from golf.evaluators.base import combine
from golf.hostswitch import HostSwitchGraph
from golf.evaluators.h_bitset import HostSwitchEvaluator
from golf.hostswitch.ports import PortGraph, to_ports
from golf.starts.switch_wiring import random_ports
from golf.kernels.rng import rng_seed
from golf.run import run_config

from conftest import ROOT, gpu_skip_reason, run_golf
from naive import host_switch_score
from test_hostswitch import random_wiring
from test_hostswitch_search import SHAPES, _cfg

REASON = gpu_skip_reason()
pytestmark = [pytest.mark.gpu, pytest.mark.skipif(REASON is not None, reason=REASON or "")]


def gpu_evaluator(n, s, r, **kw):
    from golf.evaluators.h_gpu_bitset import HostSwitchGpuEvaluator

    return HostSwitchGpuEvaluator(n, s, r, **kw)


def triple(score):
    return None if not score.connected else (score.diameter, score.total, score.peripheral)


def test_the_gpu_matches_a_bfs_over_the_whole_graph():
    """Random wirings: connected or not, switches without hosts, radix full or not, one
    column word or several (s up to 150), one host or many."""
    rng = np.random.default_rng(7)
    seen = {"disconnected": 0, "words>1": 0, "empty switch": 0}
    for trial in range(250):
        s = int(rng.integers(1, 150 if trial % 5 == 0 else 20))
        r = int(rng.integers(1, 9))
        n = int(rng.integers(1, s * r + 1))
        edges = random_wiring(rng, n, s, r, bool(rng.integers(2)),
                              float(rng.choice([0.0, 0.0, 0.5, 1.0])))
        net = HostSwitchGraph.from_edges(n, s, r, edges)
        graph = PortGraph(n, to_ports(net))
        got = triple(gpu_evaluator(n, s, r).evaluate(graph))
        assert got == host_switch_score(n, s, edges), (n, s, r, trial)
        seen["disconnected"] += got is None
        seen["words>1"] += s > 64
        seen["empty switch"] += bool((net.host_counts == 0).any())
    assert min(seen.values()) >= 5, seen


def test_batches_after_moves_match_the_cpu_and_parts_combine():
    """K graphs that host moves and swaps change between launches (a few slots patched, or
    all rows uploaded), each against the CPU's bit matrix; the column words cut anywhere
    combine to the whole."""
    for n, s, r in SHAPES + [(2000, 150, 20), (4000, 260, 24)]:
        K = 5
        gpu = gpu_evaluator(n, s, r, batch=K)
        cpu = HostSwitchEvaluator(n, s, r, threads=1)
        graphs = [PortGraph(n, random_ports(n, s, r, seed=k)) for k in range(K)]
        rngs, undo = [rng_seed(100 + k) for k in range(K)], new_undo()
        for step in range(12):
            for k, graph in enumerate(graphs):
                for _ in range(1 if step % 3 else 40):
                    propose_move(graph.adj, s, 1, rngs[k], undo, 0, None, 300, None, 500)
            got = gpu.evaluate_many(np.stack([g.adj for g in graphs]))
            for k, graph in enumerate(graphs):
                assert gpu.finish(got[k]) == cpu.evaluate(graph), (n, s, r, step, k)
        whole = cpu.evaluate(graphs[0])
        for cut in sorted({0, 1, gpu.units // 2, gpu.units}):
            parts = [gpu.partial(graphs[0], 0, cut), gpu.partial(graphs[0], cut, gpu.units)]
            assert gpu.finish(combine(parts)) == whole, (n, s, r, cut)


@pytest.mark.parametrize("extra", ["", ", batch: 3, population: tempering"])
def test_a_run_on_the_gpu_walks_the_cpu_chains(tmp_path, extra):
    """The same seeds, moves and decisions: the GPU's scores are the CPU's, so the chains
    (one, or a population of three) end at the same graph."""
    p, rd = _cfg(tmp_path / "cpu", steps=1500, extra=extra)
    want = run_config(p, quiet=True)[0]
    p2, rd2 = _cfg(tmp_path / "gpu", steps=1500, extra=extra)
    p2.write_text(p2.read_text().replace("evaluator: {threads: 1}",
                                         "evaluator: {backend: gpu-bitset}"))
    got = run_config(p2, quiet=True)[0]
    assert got["backend"] == "h-gpu-bitset" and want["backend"] == "h-bitset"
    assert got["best"] == want["best"]
    assert (rd / "best.edges").read_bytes() == (rd2 / "best.edges").read_bytes()


def test_golf_eval_on_the_gpu_gives_orp_sample_values():
    sample = f"{ROOT}/tests/data/h32s26r4.edges"
    out = json.loads(run_golf("eval", sample, "--json", "--backend", "gpu-bitset",
                              check=True).stdout)
    assert out["backend"] == "h-gpu-bitset"
    assert (out["diameter"], out["total"]) == (11, 2960)
