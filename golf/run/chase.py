"""``golf chase``: the best graph golf can find for a pair in a given wall time, with nothing to
choose by hand.

A chase is an ordinary run (:class:`golf.run.Search`) of a config that
:func:`chase_config` writes:

* ``problem: {g: auto}``: the symmetry form (cyclic ``g`` or a metacyclic group) is chosen by
  the clock-bounded trials of :mod:`golf.run.portfolio`, a quarter of the time;
* a population of tempering chains (``search.batch``: :data:`GPU_CHAINS` on a GPU,
  :data:`CPU_CHAINS` a process on a CPU; a grid problem of more than :data:`GRID_CHAIN_N`
  cells on a CPU :data:`GRID_CPU_CHAINS`, which goes on after the trials at
  :data:`GRID_REHEAT` of their sampled ``T0``, as does a general graph of at least
  :data:`LARGE_N` vertices, at :data:`LARGE_REHEAT`), half the proposals near swaps, no
  restarts.
  On a GPU, where the chains run on the host (graphs too large for a chain a block), the
  population is cut so that each chain makes :data:`CHASE_STEPS` steps (``search.min_steps``):
  before the trials at the backend's estimate of an evaluation (:func:`sized_batch`), after
  them at the winning trial's measured rate. On any machine a population step takes at most
  about :data:`STEP_SECONDS` (chains cut to fit). A batch asked for is kept;
* for ``n <=`` :data:`POLISH_MAX_N`, the last :data:`POLISH` of the time a polish
  (:mod:`golf.run.phases`): tabu search at ``g = 1`` from :data:`POLISH_STARTS` graphs of the
  population in turn (the chains' best graphs, then their current ones), then back to the best
  graph found, kicked by a few random swaps (``search.polish_kick``). A symmetric form's optimum is
  a local one at ``g = 1``: on small pairs the chosen form's chains often stop improving within the
  trials, where tabu search at ``g = 1`` from their graphs goes on down ((96, 3) from diameter 7 to
  6 on the GPU, ``results/quality/``). In the 9-minute GPU runs of the seven pairs of
  ``n <= 512`` with a quarter polished, the annealing after the trials found no better graph
  on (36, 3), (256, 8) and (512, 8), and its last one within the first tenth of its steps on
  (300, 7); a half polished took (64, 8) to excess ratio 1.268 and (384, 3) to 1.130, from
  1.617 and 1.152 with a quarter (beside them on the same host). A tabu step scores
  ``search.neighbourhood`` candidates at ``g = 1``, ``n`` sources each, which is what the
  bound on ``n`` holds in check. Where the trials chose an algebraic start, the polish takes
  all the time after them (:meth:`golf.run.start.Starter.choose_form`);
* for ``n <=`` :data:`RELEASE_MAX_N` (a grid: :data:`GRID_RELEASE_MAX_N` cells) also
  ``search.release``: where the trials' winner is a symmetric form, the run goes on at ``g =
  1`` from a fresh start, the winner's graph kept as its best and its chains' graphs among
  the polish's starts (:func:`golf.run.portfolio.released`). The time ``g = 1`` needs to pass a
  symmetric form's optimum grows with ``n`` (a step scores ``n`` sources, and there are more
  steps to take): on an H200 in 9 minutes, released from cyclic g=6, (96, 3) ended at excess
  ratio 1.005-1.011 against 1.160 kept; released from Z_12 ⋊_11 Z_4 (g=48), (384, 3) ended at
  1.132 against 1.014-1.074 kept (``results/quality/quality_gpu.md``);
* a grid problem, and a general graph of ``n <=`` :data:`POLISH_MAX_N` scored on the CPU:
  ``search.method: auto`` (:data:`GRID_METHOD`, :data:`SMALL_METHOD`): after the trials
  annealing and the memetic search (:mod:`golf.engine.memetic`) each run a twentieth of the
  time from the trials' graphs and the better goes on (:mod:`golf.run.duel`; the log says which
  won, and why); a grid of at most :data:`GRID_CHAIN_N` cells a memetic population of
  :data:`GRID_MEMBERS` graphs;
* ``output.dir`` is ``--out`` and the run folder ``<out>/n{N}d{D}`` (a grid problem:
  ``<out>/w{W}h{H}d{D}r{R}``), so ``golf resume`` continues a chase that was stopped;
* at the end the best graph is exported beside the run, under the competition's file name.

Every core and GPU: without a launcher, ``golf chase`` starts itself under ``mpiexec`` (the
one of the ``mpi`` extra, found on the PATH) with :func:`default_ranks` processes -- one a core
for the CPU backends, one a GPU for the GPU backends (for a general graph of ``n <=``
:data:`SHARED_GPU_MAX_N` one a core, the GPUs shared) -- that run as MPI chains
(``parallel.mode: chains``: the trials dealt over the ranks, then every rank a population,
exchanging the best graph, and a polish of its own). Under ``mpiexec`` it takes the ranks it
is given. Without ``mpiexec`` or mpi4py it runs one process (Numba's threads score the larger
graphs).
"""

from __future__ import annotations

import os
import subprocess
import sys

from golf.errors import GolfError

__all__ = ["chase_config", "chase_settings", "chase_backend", "default_ranks", "relaunch",
           "sized_batch", "GPU_CHAINS", "CPU_CHAINS", "CHASE_STEPS", "STEP_SECONDS",
           "GRID_CPU_CHAINS", "GRID_CHAIN_N", "GRID_REHEAT", "LARGE_N", "LARGE_REHEAT",
           "GRID_METHOD", "GRID_MEMBERS", "MEMETIC_EXCHANGE", "POLISH", "POLISH_STARTS",
           "POLISH_MAX_N", "RELEASE_MAX_N", "GRID_RELEASE_MAX_N", "SHARED_GPU_MAX_N",
           "SHARED_GPU_RANKS"]

# chains of a population: on a GPU one launch scores all of them (or they run on the device),
# on a CPU one process walks them in turn
GPU_CHAINS = 256
CPU_CHAINS = 16
# search.min_steps of a chase on a GPU: after the trials a population of host chains (graphs
# too large for a chain to run on the device) keeps as many chains as each make this many
# steps at the measured rate. At n = 10^6 one chain at 2,226 evaluations/s on an H200 reached
# diameter 6 on (1000000, 16) after 60 s (~130,000 steps), where 256 chains take ~5,000 steps
# each in a 9-minute chase; chains on the device (n <= ~20,000) are never cut
CHASE_STEPS = 200_000
# the longest population step of a chase (its chains cut to fit, at the backend's estimate):
# the clock is read between steps, so a run ends at most about this late. (10000000, 16) on 2
# CPU cores: 16 chains of ~1 s an evaluation made a 16 s step and a 2-minute chase ended 19 s
# late; the CPU chases of the 2016 table (n <= 3250, well under 0.1 s an evaluation) keep 16
STEP_SECONDS = 1.0
# chains a process of a grid chase on a CPU where n > GRID_CHAIN_N: one chain gets 16 times
# the steps, which on the three 20x20 problems of 2019 took a chase of 8.3 minutes (2 cores a
# problem, 20 chases side by side on a 64-core host) from totals 1112-1272 above the
# best-known graphs to 456-622 (results/grid/chase.md, experiment chains). A smaller lattice
# keeps CPU_CHAINS: there one chain has steps to spare and freezes, where the hotter chains
# go on; (10x10, 4, 2)
# in 10 minutes on 2 cores ended at total 19774 with one chain, 19718 with 16
GRID_CPU_CHAINS = 1
GRID_CHAIN_N = 200
# search.reheat of such a chase: after the trials its one chain goes on from the winner's best
# graph at a tenth of the T0 sampled from a random start (T0 = 772 on (20x20, 4, 2), where a
# swap from a graph near the best costs a median 338). At the full T0 the chain took 32-85%
# of the run after the trials to get back below the winner's score, at 0.1 13-33%. Two
# seeds, 8.3-9 minutes on 2 cores each, 6-7 chases side by side on a 16-core host:
# (20x20, 4, 2) totals 574882 and 575085 against 575680 and 575430; (20x20, 8, 4) 314948
# and 314916 against 314924 and 314934. 10 minutes alone on 2 cores
# (results/grid/chase.md): 574964 against 575366, 314888 against 314970. On (20x20, 6, 3)
# the trials chose g=2 in three of these runs and g=4 in one, and the runs went with the
# form (g=4 ended lower), so that pair says nothing of the temperature
GRID_REHEAT = 0.1
# search.reheat of a chase of a general graph of at least LARGE_N vertices: its chains make few
# steps after the trials, and at the full T0 they spend them melting the winner. (1000000, 32)
# on one H200, a 9-minute chase (58ed991): after the trials (4.332427) the run started at the
# sampled T0 = 837; its leading chain stayed above the winner's score for 77 s of the 407 s
# left and improved only below T ~ 110 (4.330584 at the end, still going down); at a tenth of
# it (e615cb5) the run was at 4.330877 2.1 minutes after the trials (the full T0's between
# 4.332387 and 4.331402 then) and ended level with it (4.330632 after 6.3 minutes)
LARGE_N = 100_000
LARGE_REHEAT = 0.1
# search.method of a grid chase: the duel of golf.run.duel. Side by side for 5 minutes on one
# core each (results/grid/chase.md, experiment memetic) the memetic search ended lower on
# (5x10, 4, 2), (10x10, 4, 2) and (10x10, 8, 4), annealing on (10x10, 6, 3) and the 20x20
# problems; in the 10-minute chases of results/grid/chase.md (2 cores) the duel chose memetic
# on (5x5, 4, 2), (10x10, 4, 2) and (10x10, 6, 3), annealing on the others ((10x10, 8, 4): a
# tie at the trials' best, which goes to annealing)
GRID_METHOD = "auto"
# search.members of a grid chase of at most GRID_CHAIN_N cells: a larger population keeps
# the memetic search from converging on one basin (a (10x10, 8, 4) population of 32 at g=4,
# one core: its best unchanged after the first 57 s of 240, and at the end its members
# scored 12054-12066 and differed in a median of 22 of their 200 base-row entries). Memetic
# runs at g=4, 8 minutes on one core each, seeds 1-8, 16 side by side on a 16-core host:
# (10x10, 8, 4) mean total 12038.3 (best 12030) with 100 members, 12046.0
# (12034) with 32; (10x10, 6, 3) 14389.8 (14376) and 14392.8 (14372)
GRID_MEMBERS = 100
# search.method of a chase of a general graph of n <= POLISH_MAX_N that scores on the CPU: the
# duel too (5 minutes on one core each, results/quality/quality_cpu.md, experiments duel and
# sa: the memetic search tied annealing in its slice on (96, 3) and (384, 3), the chases ended
# level). A GPU chase anneals: at the forms its trials chose on (96, 3), (384, 3) and
# (1024, 3) no memetic generation went below the trials' best (quality_gpu.md, memetic)
SMALL_METHOD = "auto"
# generations between the exchanges of the islands of a memetic chase (--set
# search.method=memetic) on several ranks: each offers the best graph of all to the others
MEMETIC_EXCHANGE = 20
# the polish phase of a chase (module docstring): its share of the time, its start graphs, and
# the largest n that has one
POLISH = 0.5
POLISH_STARTS = 8
POLISH_MAX_N = 512
# the largest n of a general graph whose chase sets search.release: a symmetric winner of the
# trials hands the run to g = 1 (golf.run.portfolio.released)
RELEASE_MAX_N = 128
# the most cells of a grid whose chase sets search.release. (5x10, 4, 2), 10-minute chases on
# 2 CPU cores (AMD EPYC): one whose trials chose g=2 (3.110204 against g=1's 3.111020) kept it
# at total 3810; at g=1 set by hand (2026-11-30) a chase reached 3806, the best-known graph,
# within 2 minutes, and one whose trials chose g=1 within 3 (results/grid/chase.md). On the
# 10x10 problems g=1 set by hand ended 9-40 above the trials' g=4 in 7.2 minutes (experiment
# forms): a 100-cell lattice keeps its rotation
GRID_RELEASE_MAX_N = 64
# the largest n of a general graph whose chase on a GPU starts a rank a core, the GPUs shared
# (default_ranks): each rank a population of device chains and, after it, a tabu polish of
# its own on its core, where one rank a GPU has one polish on the cores' shared candidates.
# (64, 8) from ER_8-line's 3947, 9 minutes on an H200: one rank ended at 3947 in every run
# (its polish on 1 and on 5 threads); 5 ranks (3 chases on the GPU) at 3899, 8 ranks (2
# chases) at 3916 (excess ratio 1.571, 1.130, 1.286), polishing the last half; 5 ranks
# polishing from the end of the trials at 3896 (1.103). On the same GPU at once (36, 3) kept its
# record (0.966) and (96, 3), released to g=1, its 19484 (1.011): results/quality/. At most
# SHARED_GPU_RANKS a GPU (the numbers measured; each rank holds a CUDA context of its own)
SHARED_GPU_MAX_N = 128
SHARED_GPU_RANKS = 8


def chase_backend(n, d, backend: str = "auto", *, grid=None, host_switch: bool = False):
    """The :class:`golf.evaluators.Decision` of the backend a chase scores with
    (:func:`golf.evaluators.decide` for a chase): ``n`` the order (the hosts of a
    host-switch problem; None for a grid, whose order is its cells), ``d`` the degree (the
    radix)."""
    from golf.evaluators import Shape, decide

    if host_switch:
        shape = Shape("host-switch", n, d, None)
    elif grid is not None:
        shape = Shape("grid", grid[0] * grid[1], d, None)
    else:
        shape = Shape("general", n, d, None)
    return decide(shape, backend, chase=True)


def chase_settings(gpu: bool = False) -> dict:
    """The search settings of a chase (module docstring), as :func:`golf.search` keywords;
    ``gpu``: it scores on a GPU."""
    kw = dict(batch=GPU_CHAINS if gpu else CPU_CHAINS, population="tempering",
              population_every=500, near_moves=0.5, voltage_moves=0.3, restart_fraction=0.0,
              exchange_every=200_000)
    if gpu:
        kw["min_steps"] = CHASE_STEPS
    return kw


def chase_config(n, d, *, minutes: float = 10.0, seed: int = 1, backend: str = "auto",
                 out=None, grid=None, r=None, comm=None, settings=None, sets=(),
                 host_switch: bool = False):
    """The :class:`golf.config.RunConfig` of a chase (module docstring), its run folder
    ``<out>/<name>`` (``out`` None: no folder, nothing written). ``settings`` are
    :func:`golf.search` keywords over :func:`chase_settings`; ``sets`` ``KEY=VALUE``
    overrides applied last (as ``golf run --set``). ``host_switch``: ``n`` hosts on switches
    of radix ``d`` (:mod:`golf.hostswitch`; the number of switches chosen by trials,
    :func:`golf.problems.order_radix.switch_forms`), one chain a process."""
    from pathlib import Path

    from golf.config import Keywords, RunConfig, check_output, merge, parse_overrides, validate
    from golf.problems import kind_of

    if not minutes > 0:
        raise GolfError(f"golf chase: --minutes must be > 0, got {minutes}")
    if host_switch:
        section = {"hosts": n, "radix": d, "switches": "auto"}
    elif grid is not None:
        section = {"grid": list(grid), "r": r, "d": d, "g": "auto"}
    else:
        section = {"n": n, "d": d, "g": "auto"}
    kind = kind_of(section).kind
    found = chase_backend(n, d, backend, grid=grid, host_switch=host_switch)
    kw = dict(chase_settings(found.gpu), **(settings or {}))
    overrides = parse_overrides(sets)
    asked = {**(settings or {}), **overrides.get("search", {})}  # settings and --set
    if kind == "grid":
        kw.update(grid=list(grid), r=r)
        kw.setdefault("method", GRID_METHOD)
        if grid[0] * grid[1] <= GRID_CHAIN_N:
            kw.setdefault("members", GRID_MEMBERS)
        elif "batch" not in asked and not found.gpu:
            kw["batch"] = GRID_CPU_CHAINS
            kw.setdefault("reheat", GRID_REHEAT)
    if kind == "general" and n <= POLISH_MAX_N and not found.gpu:
        kw.setdefault("method", SMALL_METHOD)
    if kind == "general" and n >= LARGE_N:
        kw.setdefault("reheat", LARGE_REHEAT)
    if asked.get("method") == "memetic" and "exchange_every" not in {
            **(settings or {}), **overrides.get("parallel", {})}:
        kw["exchange_every"] = MEMETIC_EXCHANGE  # generations: the islands share their best
    if "batch" in asked and "min_steps" not in asked:  # the population asked for is kept
        kw.pop("min_steps", None)
    if comm is not None and comm.size > 1:
        kw.setdefault("mode", "chains")
    polish = asked.get("polish", POLISH)
    small = kind == "general" and n <= POLISH_MAX_N
    if (small and asked.get("method") != "tabu" and isinstance(polish, (int, float))
            and polish > 0):
        for key, value in (("polish", POLISH), ("polish_g", 1), ("polish_starts", POLISH_STARTS)):
            kw.setdefault(key, value)
    releases = (kind == "general" and n <= RELEASE_MAX_N
                or kind == "grid" and grid[0] * grid[1] <= GRID_RELEASE_MAX_N)
    if releases and overrides.get("problem", {}).get("g", "auto") == "auto":
        kw.setdefault("release", True)
    if kind == "host-switch":  # one chain a process: on a CPU it beat ORP's annealer on 10 of
        # the 13 featured pairs of 2021 where 16 tempering chains did on 5
        # (results/hostswitch/), on a GPU it ended better than 16
        # (golf.evaluators.HOST_SWITCH_GPU_SWITCHES)
        kw.pop("voltage_moves", None)
        kw["batch"] = 1
    raw = Keywords(n, d, "auto", seconds=minutes * 60.0, steps=0, seed=seed, backend=found.name,
                   plot=out is not None, settings=kw).config()
    if kind == "host-switch":
        raw["problem"] = section
    raw["name"] = kind_of(section).default_name(raw["problem"])
    if out is not None:
        raw["output"]["dir"] = str(out)
    data = validate(merge(raw, overrides), lambda key: "golf chase")
    s = data["search"]
    if kind == "general" and "batch" not in asked:
        s["batch"] = sized_batch(data, s["time_limit"] * (1.0 - s["auto_g_budget"]))
    path = Path(data["output"]["dir"]) / data["name"] if out is not None else None
    run = RunConfig(data["name"], data, path, "golf chase")
    if path is not None:
        check_output(run, lambda key: "golf chase")
    return run


def sized_batch(data: dict, seconds: float) -> int:
    """The chains of a chase's population before its trials: as many of ``search.batch`` as
    a population step of at most :data:`STEP_SECONDS` holds and, with ``search.min_steps``
    (:func:`golf.run.portfolio.fit_batch`), as each make ``min_steps`` steps in ``seconds``;
    at the backend's estimate of an evaluation at the
    largest cyclic ``g`` (the portfolio's first form of a large graph: ``m >= d``, dearer
    than the groups' smaller ``m``); kept where the chains may run on the device (a small
    graph). After the trials the measured rate may cut it further."""
    from golf.evaluators import backend_class, decide
    from golf.problems import Form, problem_of
    from golf.problems.order_degree import candidates
    from golf.run.portfolio import fit_batch

    s, e = data["search"], data["evaluator"]
    problem = problem_of(data["problem"])
    first = Form(max(candidates(problem.order, problem.d)))  # the largest cyclic g
    found = decide(problem.at_form(first).shape, e["backend"], fallback=True,
                   threads=e.get("threads"))
    possible = getattr(backend_class(found.name), "device_chains_possible", None)
    if possible is not None and possible(problem.order):  # chains side by side on the device
        return s["batch"]
    per, chains = found.seconds, s["batch"]
    if per:  # a population step of about STEP_SECONDS at most: the clock is read between
        chains = min(chains, max(1, int(STEP_SECONDS / per)))  # steps
    return fit_batch(chains, seconds, per, s["min_steps"])


def default_ranks(gpu: bool = False, n: int | None = None) -> int:
    """The processes a chase starts without a launcher: one a usable core; where it scores on
    a GPU (``gpu``) one a GPU, or for a general graph of ``n <=`` :data:`SHARED_GPU_MAX_N`
    one a core Numba may use (:func:`golf.evaluators.base.cpu_threads`: ``NUMBA_NUM_THREADS``
    where set), the GPUs shared, at most :data:`SHARED_GPU_RANKS` a GPU."""
    if gpu:
        import cupy as cp

        from golf.evaluators.base import cpu_threads

        gpus = max(1, int(cp.cuda.runtime.getDeviceCount()))
        if n is None or n > SHARED_GPU_MAX_N:
            return gpus
        return max(gpus, min(cpu_threads(), SHARED_GPU_RANKS * gpus))
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def relaunch(argv: list, ranks: int, gpu: bool) -> int | None:
    """Run ``golf chase ARGV`` under ``mpiexec -n ranks`` and return its exit code; None when
    that cannot be done here (one rank, no mpiexec or mpi4py:
    :func:`golf.parallel.mpiexec_prefix`), so that the caller runs in this process. CPU ranks
    get one Numba thread each, GPU ranks their share of the cores."""
    from golf.parallel import mpiexec_prefix

    prefix = mpiexec_prefix(ranks) if ranks > 1 else None
    if prefix is None:
        return None
    from golf.evaluators.base import cpu_threads

    env = dict(os.environ)  # the cores shared by the ranks (a GPU rank's polish uses them)
    env["NUMBA_NUM_THREADS"] = str(max(1, cpu_threads() // ranks) if gpu else 1)
    cmd = [*prefix, sys.executable, "-m", "golf", "chase", *argv, "--ranks", "1"]
    return subprocess.run(cmd, env=env).returncode
