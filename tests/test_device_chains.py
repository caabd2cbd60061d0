"""Annealing chains on the device (``golf/evaluators/cuda/anneal.cu``) against the CPU search:
a chain there must walk exactly the chain of :class:`golf.engine.population.BatchAnnealer` on the
CPU backend with the same seed -- the same graphs, best graphs, RNG states, counters, temperatures
and trace -- under the cyclic group and under metacyclic groups (:mod:`golf.group`), with and
without centre vertices (:mod:`golf.graph`).

Two ways to run the same source: a host build (the step functions are ``__host__
__device__``; one "thread" a block) compiled with nvcc and called through ctypes, which needs
only the CUDA compiler; and the real kernel through gpu-bitset's ``chains: device`` on a GPU
(marked gpu). Each is skipped, with the reason, where its tool is missing."""

import ctypes
import shutil
import subprocess

import numpy as np
import pytest

from golf.engine.annealer import SC, TRACE_COLUMNS
from golf.evaluators import make_evaluator
from golf.evaluators.cuda import module_source
from golf.evaluators.gpu_bitset import ANNEAL_FILES
from golf.starts.random import random_graph, random_group_graph
from golf.grid import Grid
from golf.starts.random_grid import random_grid_graph
from golf.group import Group
from golf.engine.population import BatchAnnealer

from conftest import gpu_skip_reason

# the host entry point of the build: K chains one after the other, one "thread" each
HOST_WORK = r"""
#include <vector>
struct Spec {  // the speculating chains' workspace in global memory (anneal.cu spec_chains)
    std::vector<i64> ws, cand;
    std::vector<u64> cst;
    std::vector<int> cadj;
    u64 count[2] = {0, 0};
    Spec(int C, int K, int md)
        : ws((size_t)C * WS_N), cand((size_t)C * K * CAND_N), cst((size_t)C * K * 4),
          cadj((size_t)C * K * md) {}
};
// a block's row slots besides the graph: the group grp's twisted rows (none for the cyclic
// group, null), the cen centres' rows
static size_t twisted_ints(const i64* grp, int m, int d, int cen) {
    return (size_t)tw_ints(grp, m, d, cen);
}
extern "C" void spec_sizes(i64* out) {
    out[0] = WS_N;
    out[1] = CAND_N;
    out[2] = DEC_N;
}
"""
HOST_ENTRY = HOST_WORK + r"""
// grp: a non-cyclic group (golf.group.Group.kernel), or null for the cyclic group; cen: the
// centre vertices (0: none)
extern "C" void host_steps(int K, int* adjs, int* bests, u64* sts, i64* scs, double* fls,
        const i64* params, const int* reach, const i64* grp, int m, int d, int n, int cen,
        int W, i64 nsteps, double* trace, i64* ntrace, i64 cap) {
    std::vector<u64> A((size_t)n * W), B((size_t)n * W), red(1);
    std::vector<int> adj((size_t)m * d), tw(twisted_ints(grp, m, d, cen));
    ChainState cs;
    if (params[P_SPEC] > 1) {  // the speculating chains' grid as one block
        Spec sp(K, (int)params[P_SPEC], m * d);
        std::vector<i64> dec(params[P_SPEC] * DEC_N);
        spec_chains(0, 1, 0, 1, K, adjs, bests, sts, scs, fls, params, reach, grp, m, d, n,
                    cen, W, nsteps, trace, ntrace, cap, sp.ws.data(), sp.cand.data(),
                    sp.cst.data(), sp.cadj.data(), sp.count, A.data(), B.data(), red.data(),
                    adj.data(), tw.data(), dec.data(), cs);
        return;
    }
    for (int k = 0; k < K; k++)
        chain_steps(k, 0, 1, adjs, bests, sts, scs, fls, params, reach, grp, m, d, n, cen, W,
                    nsteps, trace, ntrace, cap, A.data(), B.data(), red.data(), adj.data(),
                    tw.data(), cs);
}
"""

# a host build whose blocks are nt threads meeting at a barrier (GOLF_HOST_BARRIER), for the
# block-parallel parts: the levels, the reductions, the shared state between the steps; the
# speculating chains' grid of G such blocks also meets at a grid barrier of all their threads
THREADED_PRELUDE = r"""
#include <pthread.h>
#include <thread>
#include <vector>
static thread_local pthread_barrier_t* golf_block_barrier;
static pthread_barrier_t golf_grid_barrier;
static inline void golf_host_barrier() { pthread_barrier_wait(golf_block_barrier); }
static inline void golf_host_grid_barrier() { pthread_barrier_wait(&golf_grid_barrier); }
#define GOLF_HOST_BARRIER 1
"""
THREADED_ENTRY = HOST_WORK + r"""
struct Block {  // what a GPU block has in shared memory
    std::vector<u64> A, B, red;
    std::vector<int> adj, tw;
    std::vector<i64> dec;
    ChainState cs;
    pthread_barrier_t barrier;
    Block(int n, int W, int nt, int md, size_t tws, int k)
        : A((size_t)n * W), B((size_t)n * W), red(nt), adj(md), tw(tws),
          dec((size_t)k * DEC_N) {
        pthread_barrier_init(&barrier, nullptr, nt);
    }
    ~Block() { pthread_barrier_destroy(&barrier); }
};

// one-stream chains one after the other, a block of nt threads each; speculating chains on a
// grid of G blocks of nt threads
extern "C" void host_steps_threads(int nt, int G, int K, int* adjs, int* bests, u64* sts,
        i64* scs, double* fls, const i64* params, const int* reach, const i64* grp, int m,
        int d, int n, int cen, int W, i64 nsteps, double* trace, i64* ntrace, i64 cap) {
    bool spec = params[P_SPEC] > 1;
    Spec sp(spec ? K : 0, (int)params[P_SPEC], m * d);
    int blocks = spec ? G : 1;
    pthread_barrier_init(&golf_grid_barrier, nullptr, blocks * nt);
    for (int k = 0; k < (spec ? 1 : K); k++) {
        std::vector<Block*> grid;
        for (int b = 0; b < blocks; b++)
            grid.push_back(new Block(n, W, nt, m * d, twisted_ints(grp, m, d, cen),
                                     (int)params[P_SPEC]));
        std::vector<std::thread> team;
        for (int b = 0; b < blocks; b++)
            for (int t = 0; t < nt; t++)
                team.emplace_back([&, b, t] {
                    Block& bl = *grid[b];
                    golf_block_barrier = &bl.barrier;
                    if (spec)
                        spec_chains(b, blocks, t, nt, K, adjs, bests, sts, scs, fls, params,
                                    reach, grp, m, d, n, cen, W, nsteps, trace, ntrace, cap,
                                    sp.ws.data(), sp.cand.data(), sp.cst.data(),
                                    sp.cadj.data(), sp.count, bl.A.data(), bl.B.data(),
                                    bl.red.data(), bl.adj.data(), bl.tw.data(), bl.dec.data(),
                                    bl.cs);
                    else
                        chain_steps(k, t, nt, adjs, bests, sts, scs, fls, params, reach, grp,
                                    m, d, n, cen, W, nsteps, trace, ntrace, cap, bl.A.data(),
                                    bl.B.data(), bl.red.data(), bl.adj.data(), bl.tw.data(),
                                    bl.cs);
                });
        for (auto& th : team) th.join();
        for (Block* bl : grid) delete bl;
    }
    pthread_barrier_destroy(&golf_grid_barrier);
}
"""

# (n, d, g, options of the search): symmetric and not, voltage moves, the tiebreak off and on,
# ASPL priority, hill climbing, a time-fraction schedule, and a graph of several words a row
CASES = [
    (60, 4, 2, {}),
    (64, 8, 4, {"voltage_moves": 0.3}),
    (96, 3, 1, {}),
    (256, 8, 32, {"voltage_moves": 0.3}),
    (100, 5, 4, {"aspl_priority": True}),
    (120, 3, 6, {"voltage_moves": 0.5, "peripheral_weight": 2.0}),
    (96, 4, 2, {"method": "hill"}),
    (96, 4, 2, {"tiebreak": False}),
    (96, 4, 2, {"steps": 0, "time_frac": 0.4}),
    (1024, 8, 128, {"voltage_moves": 0.3}),
    # k proposal streams: the device proposes k moves at once (cuda/anneal.cu spec_steps)
    (64, 8, 4, {"voltage_moves": 0.3, "speculate": 4}),
    (96, 3, 1, {"speculate": 8}),
    (256, 8, 32, {"voltage_moves": 0.3, "speculate": 3}),
    (96, 4, 2, {"method": "hill", "speculate": 5}),
    (96, 4, 2, {"steps": 1001, "speculate": 7}),
    (96, 4, 2, {"steps": 0, "time_frac": 0.4, "speculate": 2}),
    # near swaps (golf.engine.moves.propose_near) beside voltage moves and uniform swaps
    (64, 8, 4, {"voltage_moves": 0.3, "near_moves": 0.5}),
    (96, 3, 1, {"near_moves": 0.6, "speculate": 4}),
]
# (w, h, d, r, g, options of the search): slides (golf.engine.moves.propose_slide) change
# degrees, alone and beside near swaps, with speculating chains
GRIDS = [(10, 10, 8, 4, 1, {}), (10, 10, 6, 3, 4, {"near_moves": 0.5}), (6, 5, 4, 2, 2, {}),
         (10, 10, 4, 2, 4, {"slide_moves": 0.3}),
         (6, 5, 4, 2, 2, {"slide_moves": 0.2, "near_moves": 0.5}),
         (10, 10, 4, 2, 1, {"slide_moves": 0.1, "speculate": 4})]
# (m, d, (a, b, r), options of the search): metacyclic groups Z_a ⋊_r Z_b, non-abelian,
# dihedral (odd degree: involution orbits of one slot) and abelian, m = 1, 2, 3, 4 and 80 (two
# words a row), the records' (256, 8) and (1024, 8) over m = 2, with and without voltage and
# near moves, and speculating chains
GROUPS = [
    (1, 4, (8, 4, 3), {}),
    (2, 8, (16, 8, 3), {"voltage_moves": 0.3, "near_moves": 0.5}),
    (4, 6, (4, 4, 1), {"voltage_moves": 0.3}),
    (2, 3, (8, 2, 7), {"near_moves": 0.5}),
    (3, 3, (5, 4, 2), {"voltage_moves": 0.5, "near_moves": 0.3}),
    (2, 4, (7, 3, 2), {"tiebreak": False}),
    (80, 4, (4, 2, 3), {"voltage_moves": 0.3}),
    (2, 8, (32, 16, 3), {"voltage_moves": 0.3, "near_moves": 0.5}),
    (2, 8, (16, 8, 3), {"voltage_moves": 0.3, "near_moves": 0.5, "speculate": 4}),
    (1, 4, (8, 4, 3), {"method": "hill", "speculate": 6}),
    (4, 6, (4, 4, 1), {"aspl_priority": True, "speculate": 3}),
]
# (n, d, g or the group's (a, b, r), centres, options of the search): centre forms (n = g m +
# c) under Z_g and metacyclic groups, one to three centres, one to three base words a row
# (1009 = 7 * 144 + 1: the portfolio's form for that prime order), with voltage and near
# moves, ASPL priority, hill climbing, the tiebreak off with a time-fraction schedule, and
# speculating chains
CENTRES = [
    (101, 6, 5, 1, {}),
    (1009, 7, 7, 1, {"voltage_moves": 0.3, "near_moves": 0.5}),
    (203, 6, 5, 3, {"voltage_moves": 0.3}),
    (151, 6, 6, 1, {"aspl_priority": True}),
    (151, 6, 6, 1, {"method": "hill", "near_moves": 0.5}),
    (101, 6, 5, 1, {"tiebreak": False, "steps": 0, "time_frac": 0.4}),
    (82, 9, (4, 2, 3), 2, {"voltage_moves": 0.3, "near_moves": 0.5}),
    (421, 6, (3, 2, 2), 1, {"voltage_moves": 0.3}),
    (101, 6, 5, 1, {"near_moves": 0.5, "speculate": 4}),
    (82, 9, (4, 2, 3), 2, {"voltage_moves": 0.3, "speculate": 5}),
]
STEPS = 1200


def _batch(graph, backend, K, population="none", steps=STEPS, reach=None, **opts):
    ev = make_evaluator(backend, graph.n, graph.d, graph.g, symmetry=graph.group,
                        centres=graph.centres,
                        **({"threads": 1} if backend == "bitset" else {"chains": "device"}))
    b = BatchAnnealer(graph, ev, K, population=population, population_every=50,
                      exchange_every=0, steps=steps, seed=11, reach=reach, **opts)
    b.set_temperatures(3.0, 0.1)
    return b


def _same(a, b, ta, tb, exact=True):
    """Equal chains. ``exact`` False (the GPU): the temperatures (``fls`` and the trace's
    column) may differ in the last bits, as the device's pow and exp are not the host's
    libm's; every integer, graph and RNG state must still be equal (a decision that a last
    bit could flip has a chance of about 1e-16 a step)."""
    assert np.array_equal(a.adjs, b.adjs)
    assert np.array_equal(a.bests, b.bests)
    assert np.array_equal(a.sts, b.sts)
    assert np.array_equal(a.scs, b.scs)
    if exact:
        assert np.array_equal(a.fls, b.fls)
        assert np.array_equal(ta, tb)
    else:
        assert np.allclose(a.fls, b.fls, rtol=1e-13, atol=0)
        assert ta.shape == tb.shape and np.allclose(ta, tb, rtol=1e-13, atol=0)
        assert np.array_equal(np.delete(ta, 1, axis=1), np.delete(tb, 1, axis=1))
    assert a.scs[:, SC.ACCEPTED].sum() > 0  # the chains moved


def _problems():
    for n, d, g, opts in CASES:
        opts = dict(opts)
        steps = opts.pop("steps", STEPS)
        frac = opts.pop("time_frac", 0.0)
        yield f"n{n}d{d}g{g}{sorted(opts)}", random_graph(n, d, g, seed=3), steps, frac, None, opts
    for w, h, d, r, g, opts in GRIDS:
        grid = Grid(w, h, r, g)
        yield (f"w{w}h{h}d{d}r{r}g{g}{sorted(opts)}", random_grid_graph(grid, d, seed=2), STEPS,
               0.0, grid.reach(), opts)


def _group_problems():
    for m, d, (a, b, r), opts in GROUPS:
        grp = Group(a, b, r)
        graph = random_group_graph(m * grp.g, d, grp, seed=3)
        yield f"m{m}d{d}a{a}b{b}r{r}{sorted(opts)}", graph, STEPS, 0.0, None, dict(opts)


def _centre_problems():
    for n, d, g, c, opts in CENTRES:
        opts = dict(opts)
        steps = opts.pop("steps", STEPS)
        frac = opts.pop("time_frac", 0.0)
        grp = Group(*g) if isinstance(g, tuple) else None
        graph = random_group_graph(n, d, grp, seed=3, centres=c,
                                   g=None if grp is not None else g)
        form = f"g{g}" if grp is None else "a{}b{}r{}".format(*g)
        yield f"n{n}d{d}{form}c{c}{sorted(opts)}", graph, steps, frac, None, opts


PROBLEMS = list(_problems())
SPEC = [p for p in PROBLEMS if "speculate" in p[5]]  # k proposal streams
GROUP_PROBLEMS = list(_group_problems())
GROUP_SPEC = [p for p in GROUP_PROBLEMS if "speculate" in p[5]]
CENTRE_PROBLEMS = list(_centre_problems())
CENTRE_SPEC = [p for p in CENTRE_PROBLEMS if "speculate" in p[5]]


def _build(folder, name, text):
    """Compile ``text`` with nvcc into a shared library (host code) and load it."""
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("nvcc (the CUDA compiler) is not installed")
    src = folder / f"{name}.cu"
    src.write_text(text)
    lib = folder / f"lib{name}.so"
    proc = subprocess.run([nvcc, "-O2", "-std=c++17", "-shared", "-Xcompiler", "-fPIC",
                           "-Xcompiler", "-pthread", "-o", str(lib), str(src)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return ctypes.CDLL(str(lib))


@pytest.fixture(scope="module")
def host_build(tmp_path_factory):
    return _build(tmp_path_factory.mktemp("anneal_host"), "anneal_host",
                  module_source(ANNEAL_FILES) + HOST_ENTRY)


@pytest.fixture(scope="module")
def threaded_build(tmp_path_factory):
    return _build(tmp_path_factory.mktemp("anneal_threads"), "anneal_threads",
                  THREADED_PRELUDE + module_source(ANNEAL_FILES) + THREADED_ENTRY)


class HostChains:
    """An evaluator whose ``anneal_chains`` is the host build's (with ``threads = (nt, G)``:
    the threaded build, blocks of nt threads, G of them for speculating chains), all else the
    CPU evaluator ``ev``'s: the interface that gpu-bitset's ``chains: device`` offers
    :class:`BatchAnnealer`, without a GPU."""

    chains = "device"

    def __init__(self, lib, ev, threads=None):
        self._lib, self._ev, self._threads = lib, ev, threads

    def __getattr__(self, name):
        return getattr(self._ev, name)

    def anneal_chains(self, adjs, bests, sts, scs, fls, params, reach, nsteps, trace):
        ptr = lambda a: a.ctypes.data_as(ctypes.c_void_p)  # noqa: E731
        a32 = np.ascontiguousarray(adjs, dtype=np.int32)
        b32 = np.ascontiguousarray(bests, dtype=np.int32)
        rc = None if reach is None else np.ascontiguousarray(reach, dtype=np.int32)
        rows = np.zeros((max(len(trace), 1), trace.shape[1]))
        ntrace = np.zeros(1, dtype=np.int64)
        m, d = adjs.shape[1:]
        grp = self._ev.symmetry
        kern = None if grp is None else grp.kernel(m)
        cen = self._ev.centres  # a centre form: the centres' column word after the sources'
        args = (adjs.shape[0], ptr(a32), ptr(b32), ptr(sts), ptr(scs), ptr(fls), ptr(params),
                None if rc is None else ptr(rc), None if kern is None else ptr(kern), m, d,
                self._ev.n, cen, (m + 63) // 64 + (cen > 0),
                ctypes.c_longlong(nsteps), ptr(rows), ptr(ntrace), ctypes.c_longlong(len(trace)))
        if self._threads is None:
            self._lib.host_steps(*args)
        else:
            self._lib.host_steps_threads(*self._threads, *args)
        adjs[...] = a32
        bests[...] = b32
        trace[:ntrace[0]] = rows[:ntrace[0]]
        return int(ntrace[0])


def _host_steps(lib, b, steps, frac, threads=None):
    """``steps`` steps of every chain of ``b`` by a host build in one call (no population),
    on copies of its arrays."""
    out = BatchAnnealer.__new__(BatchAnnealer)
    out.adjs, out.bests = b.adjs.copy(), b.bests.copy()
    out.sts, out.scs, out.fls = b.sts.copy(), b.scs.copy(), b.fls.copy()
    out.fls[:, 2] = frac  # FL.TIME_FRAC, as BatchAnnealer.run sets it
    trace = np.zeros((4096, len(TRACE_COLUMNS) - 1))
    rows = HostChains(lib, b.evaluator, threads).anneal_chains(
        out.adjs, out.bests, out.sts, out.scs, out.fls, b.params, b.reach, steps, trace)
    return out, trace[:rows]


HOST_BUILD = PROBLEMS + GROUP_PROBLEMS + CENTRE_PROBLEMS


@pytest.mark.slow
@pytest.mark.parametrize("name,graph,steps,frac,reach,opts", HOST_BUILD,
                         ids=[p[0] for p in HOST_BUILD])
def test_host_build_walks_the_cpu_chains(host_build, name, graph, steps, frac, reach, opts):
    """Without a population (the host does the interactions), each chain of the host build
    equals the CPU chain of the same seed, step for step."""
    ref = _batch(graph, "bitset", 3, steps=steps, reach=reach, **opts)
    start = _batch(graph, "bitset", 3, steps=steps, reach=reach, **opts)
    got, trace = _host_steps(host_build, start, STEPS, frac)
    want = ref.run(STEPS, time_frac=frac)
    _same(got, ref, trace, want)


NEAR = [p for p in PROBLEMS if "near_moves" in p[5]]
THREADED = [PROBLEMS[0], PROBLEMS[2], PROBLEMS[9], PROBLEMS[-3], SPEC[0], SPEC[1], SPEC[4],
            *NEAR, GROUP_PROBLEMS[1], GROUP_PROBLEMS[3], GROUP_PROBLEMS[6], *GROUP_SPEC[:2],
            CENTRE_PROBLEMS[2], CENTRE_PROBLEMS[6], CENTRE_PROBLEMS[7], *CENTRE_SPEC]


@pytest.mark.slow
@pytest.mark.parametrize("threads", [(4, 3), (8, 16)], ids=["4x3", "8x16"])
@pytest.mark.parametrize("name,graph,steps,frac,reach,opts", THREADED,
                         ids=[p[0] for p in THREADED])
def test_threaded_host_build_walks_the_cpu_chains(threaded_build, name, graph, steps, frac,
                                                  reach, opts, threads):
    """The same with blocks of several threads: each takes its rows of every level, the
    reductions, the barriers and thread 0's moves and decisions in between (a race or a
    wrong share would change the walk); speculating chains on a grid of several blocks
    (3: a block takes several candidates a round; 16: more blocks than candidates), which
    meet at a grid barrier between the candidates and the decisions."""
    ref = _batch(graph, "bitset", 2, steps=steps, reach=reach, **opts)
    start = _batch(graph, "bitset", 2, steps=steps, reach=reach, **opts)
    got, trace = _host_steps(threaded_build, start, 400, frac, threads=threads)
    want = ref.run(400, time_frac=frac)
    _same(got, ref, trace, want)


WARPS = SPEC[:2] + GROUP_SPEC[:1] + CENTRE_SPEC[:1]


@pytest.mark.slow
@pytest.mark.parametrize("name,graph,steps,frac,reach,opts", WARPS, ids=[p[0] for p in WARPS])
def test_threaded_host_build_with_warps_of_a_grid(threaded_build, name, graph, steps, frac,
                                                  reach, opts):
    """Speculating chains on 5 blocks of 64 threads (two warps' worth, as on the GPU): the
    walk is the CPU chain's all the same."""
    ref = _batch(graph, "bitset", 2, steps=steps, reach=reach, **opts)
    start = _batch(graph, "bitset", 2, steps=steps, reach=reach, **opts)
    got, trace = _host_steps(threaded_build, start, 300, frac, threads=(64, 5))
    want = ref.run(300, time_frac=frac)
    _same(got, ref, trace, want)


@pytest.mark.slow
def test_host_build_has_the_speculating_workspace_sizes(host_build):
    """gpu-bitset sizes the speculating chains' workspace by anneal.cu's WS_N, CAND_N and
    DEC_N."""
    from golf.evaluators.gpu_bitset import SPEC_CAND, SPEC_DEC, SPEC_WS

    out = np.zeros(3, dtype=np.int64)
    host_build.spec_sizes(out.ctypes.data_as(ctypes.c_void_p))
    assert tuple(out) == (SPEC_WS, SPEC_CAND, SPEC_DEC)


POPULATION = [PROBLEMS[1], PROBLEMS[-1], SPEC[0], GROUP_PROBLEMS[1], GROUP_SPEC[0],
              CENTRE_PROBLEMS[1], CENTRE_PROBLEMS[6], CENTRE_SPEC[1]]


@pytest.mark.slow
@pytest.mark.parametrize("population", ["tempering", "annealing", "none"])
@pytest.mark.parametrize("name,graph,steps,frac,reach,opts", POPULATION,
                         ids=[p[0] for p in POPULATION])
def test_population_with_chains_on_the_device_side(host_build, name, graph, steps, frac,
                                                   reach, opts, population):
    """BatchAnnealer's device path (launches between the population's interactions, which
    run on the host) with the host build for the kernel equals the CPU's compiled loop."""
    cpu = _batch(graph, "bitset", 6, population, steps=steps, reach=reach, **opts)
    ev = make_evaluator("bitset", graph.n, graph.d, graph.g, threads=1, symmetry=graph.group,
                        centres=graph.centres)
    dev = BatchAnnealer(graph, HostChains(host_build, ev), 6, population=population,
                        population_every=50, exchange_every=0, steps=steps, seed=11,
                        reach=reach, **opts)
    dev.set_temperatures(3.0, 0.1)
    assert dev.on_device and not cpu.on_device
    want = cpu.run(STEPS, time_frac=frac)
    got = dev.run(STEPS, time_frac=frac)
    _same(dev, cpu, got, want)


REASON = gpu_skip_reason()


ON_GPU = (PROBLEMS[:4] + PROBLEMS[-2:] + SPEC + [p for p in NEAR if p not in SPEC]
          + GROUP_PROBLEMS + CENTRE_PROBLEMS)


@pytest.mark.gpu
@pytest.mark.skipif(REASON is not None, reason=REASON or "")
@pytest.mark.parametrize("population", ["tempering", "annealing", "none"])
@pytest.mark.parametrize("name,graph,steps,frac,reach,opts", ON_GPU, ids=[p[0] for p in ON_GPU])
def test_device_chains_walk_the_cpu_chains(name, graph, steps, frac, reach, opts, population):
    """gpu-bitset with ``chains: device`` runs the population's chains on the GPU, many steps
    a launch; with the interactions on the host in between, the whole population equals the
    CPU's compiled loop over the same chains."""
    cpu = _batch(graph, "bitset", 6, population, steps=steps, reach=reach, **opts)
    dev = _batch(graph, "gpu-bitset", 6, population, steps=steps, reach=reach, **opts)
    assert dev.on_device and not cpu.on_device
    want = cpu.run(STEPS, time_frac=frac)
    got = dev.run(STEPS, time_frac=frac)
    _same(dev, cpu, got, want, exact=False)


# (graph, options of the search): cyclic, and over Z_32 ⋊_3 Z_16 (m = 2)
RESUMED = {"cyclic": (lambda: random_graph(256, 8, 32, seed=3), {}),
           "group": (lambda: random_group_graph(1024, 8, Group(32, 16, 3), seed=3),
                     {"voltage_moves": 0.3, "near_moves": 0.5})}


@pytest.mark.gpu
@pytest.mark.skipif(REASON is not None, reason=REASON or "")
@pytest.mark.parametrize("speculate", [1, 6])
@pytest.mark.parametrize("kind", RESUMED)
def test_device_chains_resume_from_their_state(kind, speculate):
    """A population on the device stopped, saved and loaded goes on as if never stopped;
    its evaluator's description says where its chains run."""
    make, opts = RESUMED[kind]
    graph = make()
    whole = _batch(graph, "gpu-bitset", 4, "tempering", speculate=speculate, **opts)
    assert "chains on the device" in whole.evaluator.describe()
    whole.run(STEPS)
    first = _batch(graph, "gpu-bitset", 4, "tempering", speculate=speculate, **opts)
    first.run(STEPS // 2)
    again = _batch(graph, "gpu-bitset", 4, "tempering", speculate=speculate, **opts)
    again.load_state(first.state())
    again.run(STEPS - STEPS // 2)
    assert np.array_equal(again.adjs, whole.adjs) and np.array_equal(again.scs, whole.scs)
    assert np.array_equal(again.sts, whole.sts) and np.array_equal(again.fls, whole.fls)


@pytest.mark.gpu
@pytest.mark.skipif(REASON is not None, reason=REASON or "")
def test_device_chains_refuse_a_graph_too_big_for_a_block():
    from golf.errors import GolfError

    with pytest.raises(GolfError, match="shared memory"):
        make_evaluator("gpu-bitset", 20000, 4, 1, chains="device")


@pytest.mark.gpu
@pytest.mark.skipif(REASON is not None, reason=REASON or "")
def test_device_chains_refuse_more_candidates_than_shared_memory_holds():
    """Speculating chains keep a row of decisions a candidate in shared memory: a graph whose
    matrices nearly fill a block (~157 KB) takes one stream but not 1024 candidates."""
    from golf.errors import GolfError

    graph = random_graph(9600, 4, 150, seed=1)
    _batch(graph, "gpu-bitset", 1, steps=10).run(10)
    b = _batch(graph, "gpu-bitset", 1, steps=10, speculate=1024)
    with pytest.raises(GolfError, match="search.speculate=1024"):
        b.run(10)


def _placed(n, d, g, chains="auto", group=None, split=False, centres=0):
    """gpu-bitset's placement of the chains for these sizes, without a GPU: the evaluator's
    fields that :meth:`GpuBitsetEvaluator._place_chains` reads (``split``: the evaluations
    are split over 2 MPI ranks, this one taking the first ``split`` column words; ``centres``:
    a centre form, whose centres take a column word of their own)."""
    from types import SimpleNamespace

    from golf.evaluators.gpu_bitset import GpuBitsetEvaluator

    ev = GpuBitsetEvaluator.__new__(GpuBitsetEvaluator)
    ev.n, ev.d, ev.m, ev.symmetry, ev.chain_threads = n, d, (n - centres) // g, group, None
    ev.centres = centres
    ev.units = (ev.m + 63) // 64 + (centres > 0)
    ev.comm = SimpleNamespace(rank=0, size=2) if split is not False else None
    ev.unit_range = (0, ev.units if split is False else split)
    return ev._place_chains(chains)


def test_chains_auto_places_them_where_a_chain_fits_a_block():
    """``chains: auto`` (gpu-bitset's default) puts the chains on the device where a block
    holds a whole chain -- the matrices of all base sources and centres, a group's twisted
    rows, the centres' rows -- and the evaluator is not split, else on the host, and says why;
    ``device`` refuses what does not fit, ``host`` stays there."""
    from golf.errors import GolfError
    from golf.evaluators.gpu_bitset import GpuBitsetEvaluator

    assert GpuBitsetEvaluator.options["chains"].default == "auto"
    where, why = _placed(1024, 8, 512, group=Group(32, 16, 3))
    assert where == "device" and why.startswith("auto: ") and "twisted rows" in why
    assert _placed(1024, 8, 128)[0] == "device"
    assert _placed(1024, 8, 128, "device") == ("device", "")
    assert _placed(1024, 8, 128, "host") == ("host", "")
    where, why = _placed(20000, 4, 1)
    assert where == "host" and "shared memory" in why and why.startswith("auto: ")
    # under MPI every rank scores the same moves, also the one that holds every column word
    for share in (0, 1):
        assert _placed(4096, 8, 64, split=share) == ("host", "auto: the evaluation is split "
                                                     "over MPI ranks")
    # the twisted rows of Z_3 x Z_4000 (64000 bytes) tip a graph that fits without them
    assert _placed(12000, 4, 12000)[0] == "device"
    assert _placed(12000, 4, 12000, group=Group(3, 4000, 1))[0] == "host"
    with pytest.raises(GolfError, match="shared memory.*use chains: auto or host"):
        _placed(12000, 4, 12000, "device", group=Group(3, 4000, 1))
    with pytest.raises(GolfError, match="split over MPI ranks"):
        _placed(4096, 8, 64, "device", split=1)
    with pytest.raises(GolfError, match="auto, host or device"):
        _placed(1024, 8, 128, "gpu")
    # centre forms: the centres' column word and rows count (m = 64: a word of base sources
    # fits, a second one for the centre does not)
    where, why = _placed(1009, 7, 7, centres=1)
    assert where == "device" and "144 base sources and 1 centre, and the centres' rows" in why
    where, why = _placed(82, 9, 8, group=Group(4, 2, 3), centres=2)
    assert where == "device" and "twisted rows and the centres' rows" in why
    assert _placed(6400, 100, 100)[0] == "device"
    where, why = _placed(6401, 100, 100, centres=1)
    assert where == "host" and "1 centre" in why and "shared memory" in why
    with pytest.raises(GolfError, match="shared memory.*use chains: auto or host"):
        _placed(10007, 10, 10, "device", centres=7)


@pytest.mark.gpu
@pytest.mark.skipif(REASON is not None, reason=REASON or "")
def test_gpu_bitset_chains_auto_on_a_gpu():
    """By default gpu-bitset runs the chains on the device where they fit (a group's too),
    else on the host, and its description says which and why; a run of one chain (search.batch
    1) then anneals as a batch of one on the device."""
    from golf.engine.population import chains_on_device

    grp = Group(16, 8, 3)
    ev = make_evaluator("gpu-bitset", 256, 8, 128, symmetry=grp)
    assert chains_on_device(ev) and "chains on the device" in ev.describe()
    assert "(auto: the bit matrices" in ev.describe()
    big = make_evaluator("gpu-bitset", 20000, 4, 1)
    assert not chains_on_device(big) and "chains on the host (auto: a chain needs" in (
        big.describe())
    graph = random_group_graph(256, 8, grp, seed=3)
    cpu = _batch(graph, "bitset", 1, "tempering", voltage_moves=0.3)
    one = BatchAnnealer(graph, ev, 1, population="tempering", population_every=50,
                        exchange_every=0, steps=STEPS, seed=11, voltage_moves=0.3)
    one.set_temperatures(3.0, 0.1)
    assert one.on_device
    want = cpu.run(STEPS)
    got = one.run(STEPS)
    _same(one, cpu, got, want, exact=False)
