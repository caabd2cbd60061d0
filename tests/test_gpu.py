"""GPU backends against the CPU backends and SciPy, on many random graphs. Skipped (with the
reason) without CuPy or a GPU; run them on a GPU machine with ``python -m pytest -m gpu``."""

import json
import re

import numpy as np
import pytest

from golf.evaluators import make_evaluator
from golf.starts.random import random_graph
from golf.graph import Graph

from conftest import gpu_skip_reason, run_golf
from naive import random_lift, symmetric_edges


REASON = gpu_skip_reason()
pytestmark = [pytest.mark.gpu, pytest.mark.skipif(REASON is not None, reason=REASON or "")]


def cpu(graph):
    s = make_evaluator("bitset", graph.n, graph.d, graph.g, threads=1).evaluate(graph)
    return (s.diameter, s.total, s.peripheral, s.status)


def gpu(graph, backend="gpu-bitset", **opts):
    s = make_evaluator(backend, graph.n, graph.d, graph.g, **opts).evaluate(graph)
    return (s.diameter, s.total, s.peripheral, s.status)


def random_graphs(count, seed, max_m=150):
    rng = np.random.default_rng(seed)
    out = []
    for k in range(count):
        g = int(rng.choice([1, 2, 3, 4, 5, 8]))
        m = int(rng.integers(2, max_m))
        n = m * g
        if n < 3:
            continue
        if k % 3 == 0:
            out.append(random_graph(n, int(rng.integers(2, min(9, n))), g, seed=k))
        else:  # non-regular, maybe disconnected, maybe with half orbits
            e = symmetric_edges(n, g, int(rng.integers(1, 3 * n)), rng, half_orbits=k % 3)
            if len(e):
                out.append(Graph.from_edges(e, n=n, g=g))
    return out


@pytest.mark.parametrize("seed", range(4))
def test_gpu_bitset_matches_cpu(seed):
    for graph in random_graphs(40, seed):
        want = cpu(graph)
        assert gpu(graph) == want, (graph, want)
        assert gpu(graph, chunk_words=1) == want


def test_grid_kernel_matches_cpu():
    """Graphs too big for one block's shared memory use the cooperative grid kernel."""
    for n, d, g, seed in [(16384, 5, 1, 1), (20000, 4, 4, 2), (40000, 6, 400, 3),
                          (65536, 6, 1024, 4), (30000, 3, 3, 5)]:
        graph = random_graph(n, d, g, seed=seed)
        ev = make_evaluator("gpu-bitset", n, d, g)
        assert ev.mode == "grid" and ev.sdepth >= 1, ev.describe()  # scatter start by default
        want = cpu(graph)
        assert gpu(graph) == want
        assert gpu(graph, dense_frac=2, piece=1) == want  # never dense
        assert gpu(graph, scatter=0) == want  # every level by the level passes
        # own pieces read first at every dense level / only at level 1 (rows from neighbours)
        assert gpu(graph, late=1) == want and gpu(graph, late=0, scatter=0) == want
    # disconnected, on the grid kernel
    e = symmetric_edges(20000, 4, 30000, np.random.default_rng(1))
    graph = Graph.from_edges(e, n=20000, g=4)
    assert gpu(graph) == cpu(graph)
    # group-fastest rows (g >= 32), patched after each swap
    from golf.kernels.rng import rng_seed
    from golf.engine.moves import new_undo, propose_swap

    graph = random_graph(20000, 4, 100, seed=6)
    ev = make_evaluator("gpu-bitset", 20000, 4, 100)
    ref = make_evaluator("bitset", 20000, 4, 100, threads=1)
    assert ev.mode == "grid" and "group-fastest" in ev.describe() and ev.sdepth >= 1
    st, undo = rng_seed(8), new_undo()
    for _ in range(40):
        propose_swap(graph.adj, 20000, 100, st, undo)
        assert ev.evaluate(graph) == ref.evaluate(graph)


@pytest.mark.parametrize("seed", range(3))
def test_grid_kernel_on_small_graphs_every_path(seed):
    """The cooperative kernel forced on small graphs: sparse levels (only changed pieces and
    neighbours), dense levels (groups of 2 or 4 rows, stopping when full), the switch
    between them, pieces of 1 to 8 words, capped registers."""
    variants = [dict(dense_frac=0), dict(dense_frac=0.5, piece=2), dict(dense_frac=2),
                dict(dense_frac=0.1, group=2, piece=8), dict(dense_frac=0, group=4, min_blocks=1),
                dict(dense_frac=0.3, group=2, piece=4), dict(dense_frac=2, piece=8, group=2),
                dict(dense_frac=2, piece=1, group=4), dict(dense_frac=0, late=0),
                dict(dense_frac=0, late=1, group=4), dict(dense_frac=0.5, late=0.2, piece=1)]
    for k, graph in enumerate(random_graphs(24, 100 + seed, max_m=1100)):
        want = cpu(graph)
        for cw in (1, 2, 4, 8, 16):
            opts = variants[(k + cw) % len(variants)]
            assert gpu(graph, kernel="grid", chunk_words=cw, **opts) == want, (graph, cw, opts)


@pytest.mark.parametrize("seed", range(3))
def test_grid_scatter_start(seed):
    """Levels 1..K straight from the adjacency (walks from every source, atomic ORs), then the
    level passes (sparse, writing every piece once, or dense): every depth the Moore bound
    allows, on regular, non-regular, disconnected and symmetric graphs, chunks of 1 to 4
    words; and stopped by max_level inside and after the scattered levels."""
    deep = 0
    for k, graph in enumerate(random_graphs(24, 200 + seed, max_m=700)):
        want = cpu(graph)
        for depth in (1, 2, 3, 8):
            opts = dict(scatter=depth, dense_frac=(0, 0.5, 2)[(k + depth) % 3],
                        piece=(1, 2, 8)[k % 3], chunk_words=(1, 2, 4)[depth % 3],
                        late=(0, 0.05, 1)[(k + 2 * depth) % 3])
            ev = make_evaluator("gpu-bitset", graph.n, graph.d, graph.g, kernel="grid", **opts)
            s = ev.evaluate(graph)
            assert (s.diameter, s.total, s.peripheral, s.status) == want, (graph, opts, ev.sdepth)
            deep += ev.sdepth >= 3
        if want[3] == 0 and k % 4 == 0:  # connected: stopped after each level before the last
            ref = make_evaluator("bitset", graph.n, graph.d, graph.g, threads=1)
            ev = make_evaluator("gpu-bitset", graph.n, graph.d, graph.g, kernel="grid",
                                scatter=3)
            for level in range(1, want[0]):
                assert ev.evaluate(graph, max_level=level) == ref.evaluate(graph,
                                                                           max_level=level)
    assert deep >= 10  # the deep scatter was really taken (not capped away)


def test_chunk_boundaries_and_tiny():
    for m in (1, 2, 3, 63, 64, 65, 127, 128, 129, 300):
        for g in (1, 2, 3):
            n = m * g
            if n < 3:
                continue
            graph = random_graph(n, min(4, n - 1), g, seed=m + g)
            for cw in (1, 2, 4, None):
                assert gpu(graph, chunk_words=cw) == cpu(graph), (m, g, cw)


def test_max_level_and_reuse_after_swaps():
    from golf.kernels.rng import rng_seed
    from golf.engine.moves import new_undo, propose_swap

    graph = random_graph(400, 4, 4, seed=3)
    ev = make_evaluator("gpu-bitset", 400, 4, 4)
    ref = make_evaluator("bitset", 400, 4, 4, threads=1)
    s = ref.evaluate(graph)
    assert ev.evaluate(graph, max_level=s.diameter - 1).status == 2
    st, undo = rng_seed(5), new_undo()
    for _ in range(200):  # the device rows are patched, not re-uploaded
        propose_swap(graph.adj, 400, 4, st, undo)
        assert ev.evaluate(graph) == ref.evaluate(graph)


def test_evaluate_many_matches_one_by_one():
    """K graphs per launch; then swaps in one graph (at most 4 slots: written by the launch
    itself) and in several (more slots: the patch kernel), on both kernels."""
    from golf.kernels.rng import rng_seed
    from golf.engine.moves import new_undo, propose_swap

    st, undo = rng_seed(11), new_undo()
    for n, d, g, K in [(256, 8, 1, 33), (1024, 8, 8, 33), (4096, 8, 64, 33), (200, 3, 2, 33),
                       (16000, 4, 1, 3), (20000, 3, 40, 3)]:
        graphs = [random_graph(n, d, g, seed=s) for s in range(K)]
        ev = make_evaluator("gpu-bitset", n, d, g, batch=K)
        ref = make_evaluator("bitset", n, d, g, threads=1)
        assert ev.mode == ("grid" if n >= 16000 else "block")
        for touched in (0, 1, 3):
            for gr in graphs[:touched]:
                propose_swap(gr.adj, n, g, st, undo)
            raw = ev.evaluate_many(np.stack([gr.adj for gr in graphs]))
            assert [ev.finish(r) for r in raw] == [ref.evaluate(gr) for gr in graphs]


@pytest.mark.parametrize("seed", range(3))
def test_seidel_matches_cpu(seed):
    for graph in random_graphs(25, 100 + seed, max_m=120):
        assert gpu(graph, "seidel") == cpu(graph)
    for precision in ("fp16", "fp32"):
        graph = random_graph(300, 6, 3, seed=seed)
        assert gpu(graph, "seidel", precision=precision) == cpu(graph)


def test_seidel_patched_after_swaps():
    """The dense device matrix is patched at the slots a swap changed (both directions of
    every rotated edge), and rebuilt for a different graph of the same shape."""
    from golf.kernels.rng import rng_seed
    from golf.engine.moves import new_undo, propose_swap

    graph = random_graph(300, 4, 3, seed=4)
    ev = make_evaluator("seidel", 300, 4, 3)
    ref = make_evaluator("bitset", 300, 4, 3, threads=1)
    st, undo = rng_seed(9), new_undo()
    for _ in range(30):
        propose_swap(graph.adj, 300, 3, st, undo)
        assert ev.evaluate(graph) == ref.evaluate(graph)
    other = random_graph(300, 4, 3, seed=5)
    assert ev.evaluate(other) == ref.evaluate(other)


def test_seidel_large_diameter_uses_wider_products():
    # a cycle of 600: distances up to 300 do not fit int8
    cycle = Graph.from_edges([(i, (i + 1) % 600) for i in range(600)], n=600)
    ev = make_evaluator("seidel", 600, 2, 1)
    s = ev.evaluate(cycle)
    # from one vertex: 2 * (1 + ... + 299) + 300 = 90000; over the 600 vertices, halved
    assert (s.diameter, s.total) == (300, 27_000_000) == cpu(cycle)[:2]
    assert "fp16" in ev.last_products
    # a level cap below the diameter is reported as the other backends report it
    capped = ev.evaluate(cycle, max_level=299)
    ref = make_evaluator("bitset", 600, 2, 1).evaluate(cycle, max_level=299)
    assert (capped.status, capped.diameter) == (ref.status, ref.diameter) and capped.status == 2


def test_short_gpu_runs_end_to_end(tmp_path):
    for batch in (1, 8):
        p = tmp_path / f"g{batch}.yaml"
        p.write_text(f"""name: g{batch}
problem: {{n: 256, d: 6, g: 4}}
search: {{steps: 600, seed: 2, batch: {batch}}}
evaluator: {{backend: gpu-bitset}}
output: {{dir: {tmp_path / 'out'}, checkpoint_every: 5}}
""")
        run_golf("run", p, "--quiet", check=True)
        s = json.loads((tmp_path / "out" / f"g{batch}" / "summary.json").read_text())
        assert s["backend"] == "gpu-bitset" and s["recheck"]["total"] == s["best"]["total"]
        assert s["best"]["total"] < s["start"]["total"]


def _two_gpus_reason():
    from conftest import mpiexec_cmd

    if REASON:
        return REASON
    import cupy

    if cupy.cuda.runtime.getDeviceCount() < 2:
        return "needs 2 GPUs (one MPI rank per GPU)"
    if mpiexec_cmd(2) is None:
        return "needs mpiexec and mpi4py"
    return None


@pytest.mark.skipif(_two_gpus_reason() is not None, reason=_two_gpus_reason() or "")
def test_one_rank_per_gpu_split_and_chains(tmp_path):
    import subprocess
    import sys

    from conftest import ROOT, mpiexec_cmd, repo_env

    env = repo_env()
    edges = tmp_path / "g.edges"
    run_golf("random", 20000, 6, "--g", 4, "--seed", 2, "-o", edges, check=True)
    single = json.loads(run_golf("eval", edges, "--g", 4, "--backend", "gpu-bitset", "--json",
                                 check=True).stdout)
    proc = subprocess.run(mpiexec_cmd(2) + [sys.executable, "-m", "golf", "eval", str(edges),
                                            "--g", "4", "--backend", "gpu-bitset", "--json"],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    # (some mpiexec builds put terminal escapes such as ESC[0m before each line they forward)
    lines = [re.sub(r"\x1b\[[0-9;]*m", "", ln) for ln in proc.stdout.splitlines()]
    lines = [ln for ln in lines if ln.startswith("{")]
    assert proc.returncode == 0 and lines, (proc.stdout, proc.stderr)
    split = json.loads(lines[0])
    assert (split["diameter"], split["total"]) == (single["diameter"], single["total"])
    assert split["ranks"] == 2
    p = tmp_path / "c.yaml"
    p.write_text(f"""name: mg
problem: {{n: 2048, d: 6, g: 8}}
search: {{steps: 3000, seed: 1}}
evaluator: {{backend: gpu-bitset}}
parallel: {{mode: chains, exchange_every: 1000}}
output: {{dir: {tmp_path / 'out'}}}
""")
    proc = subprocess.run(mpiexec_cmd(2) + [sys.executable, "-m", "golf", "run", str(p),
                                            "--quiet"],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr
    s = json.loads((tmp_path / "out" / "mg" / "summary.json").read_text())
    assert s["mpi"]["ranks"] == 2 and s["recheck"]["total"] == s["best"]["total"]
    assert "GPU 1" in s["evaluator"] or "GPU 0" in s["evaluator"]


# -- a non-cyclic symmetry group (golf.group): its twisted rows written on the device ------
def group_graphs(count, seed, max_m=40):
    """Lifts over metacyclic groups: random regular ones and random orbit sets (non-regular,
    maybe disconnected)."""
    from golf.starts.random import random_group_graph
    from golf.group import Group

    rng = np.random.default_rng(seed)
    groups = [(8, 2, 3), (16, 4, 3), (5, 4, 2), (32, 16, 3), (16, 8, 3), (7, 3, 2)]
    out = []
    for k in range(count):
        a, b, r = groups[k % len(groups)]
        grp = Group(a, b, r)
        m = int(rng.integers(1, max_m))
        n = m * grp.g
        if k % 2 == 0 and n > 8:
            out.append(random_group_graph(n, int(rng.integers(3, 9)), grp, seed=k))
        else:
            edges = random_lift(rng, a, b, r, m, int(rng.integers(1, 3 * m + 1)))
            out.append(Graph.from_edges(edges, n=n, g=grp.g, group=grp))
    return out


def grp_score(graph, backend, **opts):
    s = make_evaluator(backend, graph.n, graph.d, graph.g, symmetry=graph.group,
                       **opts).evaluate(graph)
    return (s.diameter, s.total, s.peripheral, s.status)


@pytest.mark.parametrize("seed", range(3))
def test_group_symmetry_on_every_gpu_kernel(seed):
    for k, graph in enumerate(group_graphs(18, 300 + seed)):
        want = grp_score(graph, "bitset", threads=1)
        assert grp_score(graph, "reference") == want
        assert grp_score(graph, "gpu-bitset") == want, graph
        assert grp_score(graph, "gpu-bitset", kernel="grid", chunk_words=1,
                         dense_frac=(0, 0.5, 2)[k % 3]) == want, graph
        assert grp_score(graph, "seidel") == want, graph


def test_group_evaluate_many_after_moves_and_host_chains():
    """evaluate_many patches the base rows and expands them again after each move; a batch
    of host chains on the GPU, and one of device chains, walk the chains of the CPU batch."""
    from golf.starts.random import random_group_graph
    from golf.group import Group
    from golf.kernels.rng import rng_seed
    from golf.engine.moves import new_undo, propose_move
    from golf.engine.population import BatchAnnealer

    grp = Group(32, 16, 3)
    graphs = [random_group_graph(1024, 8, grp, seed=s) for s in range(9)]
    ev = make_evaluator("gpu-bitset", 1024, 8, 512, batch=9, symmetry=grp)
    ref = make_evaluator("bitset", 1024, 8, 512, threads=1, symmetry=grp)
    st, undo, kern = rng_seed(3), new_undo(), grp.kernel(2)
    for touched in (0, 1, 4, 9):
        for gr in graphs[:touched]:
            propose_move(gr.adj, 1024, 512, st, undo, 300, None, 500, kern)
        raw = ev.evaluate_many(np.stack([gr.adj for gr in graphs]))
        assert [ev.finish(r) for r in raw] == [ref.evaluate(gr) for gr in graphs]
    out = []
    for chains in ("host", "device", None):  # None: the CPU batch
        e = (ref if chains is None else
             make_evaluator("gpu-bitset", 1024, 8, 512, batch=8, symmetry=grp, chains=chains))
        ann = BatchAnnealer(graphs[0], e, 8, population="tempering", population_every=50,
                            steps=400, seed=2, voltage_moves=0.3, near_moves=0.5)
        assert ann.on_device == (chains == "device")
        ann.set_temperatures(10.0, 1.0)
        ann.run(400)
        out.append((ann.bests.tobytes(), ann.scs.tobytes()))
    assert out[0] == out[1] == out[2]


def test_block_evaluators_of_different_sizes_in_one_process():
    """Evaluators share the compiled block kernel: one built after another, with less shared
    memory a block, leaves the first one's launches valid (the trials of g: auto interleave
    forms of different sizes)."""
    big = random_graph(1024, 32, 1, seed=1)
    small = random_graph(64, 3, 1, seed=2)
    ev_big = make_evaluator("gpu-bitset", big.n, big.d, 1, batch=4)
    ev_small = make_evaluator("gpu-bitset", small.n, small.d, 1, batch=4)
    assert ev_big.mode == ev_small.mode == "block" and 16 * 1024 * ev_big.cw > 48 * 1024
    for ev, graph in ((ev_big, big), (ev_small, small), (ev_big, big)):
        raw = ev.evaluate_many(np.stack([graph.adj] * 4))
        assert [ev.finish(r) for r in raw] == [make_evaluator(
            "bitset", graph.n, graph.d, 1, threads=1).evaluate(graph)] * 4
