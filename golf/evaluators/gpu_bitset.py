"""``gpu-bitset``: the bit-matrix ADJ-APSP on an NVIDIA GPU (Sec. 5.1 and Fig. 14 of Nakao,
Murai and Sato's parallel APSP paper, see :mod:`golf.evaluators.bitset`; many graphs a launch
as in the "bulk computation" of Takafuji, Nakano and Ito, "Accelerating GPU implementation of
All Pairs Shortest Path Algorithm", undated copy, see CITATION.cff): kernels in
``cuda/bitset_block.cu`` and ``cuda/bitset_grid.cu``, launched through CuPy.

The same level step as ``bitset`` -- ``B[v] = A[v] | OR_{u in N(v)} A[u]`` over 64-bit words of
source columns, ``__popcll`` of the result, reduced per warp and block -- with the whole level
loop on the device and one small read of the result per evaluation. Neighbours of a rotated
vertex come from the base rows on the device; the base rows are uploaded once and then patched
in place with the few slots a swap changes.

Two kernels, chosen by size:

* ``bitset_block``: one thread block per (graph, column chunk), both bit matrices in shared
  memory, ``__syncthreads`` between levels. Used when ``2 n C 8`` bytes fit a block's shared
  memory; a batch of ``K`` graphs is ``K x chunks`` blocks in one launch (``evaluate_many``).
* ``bitset_grid``: one cooperative grid per column chunk, the matrices in global memory,
  ``grid.sync()`` between levels. The first levels come straight from the adjacency (walks
  from every source, atomic ORs: the "scatter start"); then level passes, consecutive threads
  on consecutive words of a row (coalesced). Bitmaps of the pieces of rows that changed at
  the last level let sparse levels skip every piece that cannot change and read only the
  neighbours that changed (where the rows come from DRAM); on the late dense levels a piece
  stops reading neighbours once it is full, and the last one also finds the columns that
  were not full before it.

Exact: it returns the same ``[ecc, dist_sum, n_at_ecc, status]`` as the CPU backends, and the
tests compare it with them on many graphs.

With ``chains: device`` a population's chains (:class:`golf.engine.population.BatchAnnealer`) run
on the GPU between the population's interactions: ``cuda/anneal.cu``, one block a chain, the
move, the score in shared memory, the decision and the undo of every step without the host,
under the cyclic group or a metacyclic one (:mod:`golf.group`), with or without centre vertices
(:mod:`golf.graph`; the block scores the base sources and the centres together, on the graph's
own numbering, and the moves leave the centres' orbits). The chains are those of the CPU search
with the same seeds, step for step (the tests compare the two). ``chains: auto``
(the default) puts them there wherever a chain fits one block (:meth:`chains_fit`), else on
the host.
"""

from __future__ import annotations

import math

import numpy as np

from golf.errors import GolfError
from golf.evaluators.base import (CHUNK_WORDS, DEVICE, OK, Capabilities, Estimate,
                                  GpuEvaluator)
from golf.evaluators.cuda import cupy_or_error, load_module, select_device
from golf.kernels.changes import changed_slots
from golf.kernels.merge import merge_many
from golf.options import INF, Spec

# cupy_or_error and select_device: re-exported from golf.evaluators.cuda
__all__ = ["GpuBitsetEvaluator", "cupy_or_error", "select_device"]

# Measured on an H200 (results/gpu/bench_gpu.md): the bit matrix handles ~8.4e11 word x edge
# x level per second on mid-sized graphs ((65536,6,1): 3.6e9 in 4.3 ms) and ~1.2e12 on the
# largest ((1000000,32,1): 2.5e12 in 2.09 s); the lower rate is used. An evaluation costs
# ~0.06-0.12 ms of launches and the result read whatever its size.
GPU_WORD_EDGES_PER_S = 8e11
GPU_FIXED_SECONDS = 1e-4

# the sources of the two modules (golf/evaluators/cuda/), headers first
BLOCK_FILES = ("common.cuh", "bitset_block.cu")  # normal launches
ANNEAL_FILES = ("common.cuh", "anneal.cu")  # annealing chains on the device
# anneal.cu's kernels by (speculating, form): the cyclic group, a non-cyclic group, centres
ANNEAL_KERNELS = {(False, "cyclic"): "anneal_chains", (True, "cyclic"): "anneal_spec",
                  (False, "group"): "anneal_chains_group", (True, "group"): "anneal_spec_group",
                  (False, "centres"): "anneal_chains_centres",
                  (True, "centres"): "anneal_spec_centres"}
# anneal.cu's WS_N, CAND_N, DEC_N: i64 words a speculating chain's round, a candidate's score
# (global memory), a candidate's decision (shared memory)
SPEC_WS, SPEC_CAND, SPEC_DEC = 7, 5, 9
GRID_FILES = ("common.cuh", "bitset_grid.cu")  # cooperative launches
# words of a row a grid thread takes on sparse levels, and neighbour rows loaded together
PIECES = (1, 2, 4, 8)
GROUPS = (2, 4)
# where a population's chains run (the option chains)
CHAINS = ("auto", "host", "device")


def grid_kernel(piece: int, group: int) -> str:
    """The name expression of the grid kernel for ``piece``-word sparse pieces and groups of
    ``group`` rows (dense pieces: 2 words, or 1 where the sparse ones are 1)."""
    return f"bitset_grid<{piece},{min(2, piece)},{group}>"


def _modules(min_blocks=1):
    """(normal module, cooperative module) for the current device. Separate modules: CuPy
    launches every kernel of a cooperative module cooperatively, which caps its grid at the
    resident blocks -- wrong for the one-block-per-graph kernel. ``min_blocks``: resident
    blocks of 256 threads per SM the grid kernels' registers are capped for."""
    return (load_module(BLOCK_FILES),
            load_module(GRID_FILES, options=("-std=c++17", f"-DGRID_MINB={int(min_blocks)}"),
                        name_expressions=[grid_kernel(p, g) for p in PIECES for g in GROUPS],
                        cooperative=True))


def _pow2_floor(x: int) -> int:
    return 1 << (max(1, int(x)).bit_length() - 1)


class GpuBitsetEvaluator(GpuEvaluator):
    """Bit-matrix ADJ-APSP on the GPU.

    Parameters
    ----------
    device : int, optional — the GPU (default: GPU 0, or one per MPI rank on a node)
    chunk_words : int, optional — column chunk (rounded down to a power of two)
    batch : int — graphs per :meth:`evaluate_many` launch that buffers are sized for
    kernel : ``"auto"`` (shared-memory blocks where the matrices fit, else the grid),
        ``"block"`` or ``"grid"`` — to force one (tests, measurements)
    dense_frac : float — the grid kernel stops checking which neighbours changed once this
        fraction of the pieces changed at a level (0: never check; above 1: always check;
        default 0.5, or 0 after a scatter start on matrices that stay in L2)
    group : int — neighbour rows loaded together (2 or 4; default by d)
    piece : int — words of a row one thread of the grid kernel takes on sparse levels
        (1, 2, 4, 8; dense levels take 2; default 8, or 2 where no level is sparse)
    min_blocks : int — resident 256-thread blocks per SM the grid kernel is compiled for
        (caps its registers; 1 = no cap; default 4)
    scatter : int — levels the grid kernel takes straight from the adjacency (walks from each
        source, atomic ORs) before its level passes; capped below the Moore bound
        (default: as many as cost at most ``SCATTER_COST`` of a dense level)
    late : float — the grid kernel's dense levels read a row's own piece first (and stop
        once it is full) when at most this fraction of the pairs is left; else only the
        neighbours' pieces (default ln(d) / 128: where a 128-bit piece is full with
        probability about 1/d, so that the own read saves as many reads as it costs)
    chains : ``"auto"`` (default: ``device`` where :meth:`chains_fit`, else ``host``),
        ``"host"`` (a population's step is one launch that scores every chain's move, the
        moves and decisions on the host) or ``"device"`` (one block a chain runs many steps a
        launch, moves and decisions included: ``cuda/anneal.cu``; needs the matrices of all
        base sources (and centres), a group's twisted rows and the centres' rows in one
        block's shared memory, and no split over MPI ranks)
    chain_threads : int, optional — threads of a chain's block with ``chains: device`` (a
        power of two up to 512; default about one a row word, 32 to 256)
    """

    name = "gpu-bitset"
    summary = ("the bit matrix on an NVIDIA GPU (CuPy): shared-memory blocks for small graphs "
               "and batches, a cooperative grid over wide chunks for large ones")
    options = {
        "device": DEVICE,
        "chunk_words": CHUNK_WORDS,
        "kernel": Spec("choice", "auto", ("auto", "block", "grid"), "auto, block or grid"),
        "dense_frac": Spec("float?", None, (0, INF), "a number >= 0, or null"),
        "group": Spec("choice?", None, (2, 4), "2 or 4, or null"),
        "piece": Spec("choice?", None, (1, 2, 4, 8), "1, 2, 4 or 8, or null"),
        "min_blocks": Spec("int?", None, (1, 32), "an integer from 1 to 32, or null"),
        "scatter": Spec("int?", None, (0, INF), "an integer >= 0, or null"),
        "late": Spec("float?", None, (0, 1), "a number from 0 to 1, or null"),
        "chains": Spec("choice", "auto", CHAINS, "auto, host or device"),
        "chain_threads": Spec("choice?", None, (32, 64, 128, 256, 512),
                              "32, 64, 128, 256 or 512, or null"),
    }
    supports = Capabilities(batched=True, mpi_split=True, gpu=True)
    SMEM_BYTES = 200 * 1024  # of the ~227 KB a Hopper block may use
    SM_SHARED_BYTES = 228 * 1024  # a Hopper SM's shared memory, all its blocks together
    DENSE_FRAC = 0.5
    PIECE = 8
    MIN_BLOCKS = 4
    SCATTER_COST = 0.5

    def __init__(self, n, d, g=1, *, device=None, chunk_words=None, batch=1, comm=None,
                 kernel="auto", dense_frac=None, group=None, min_blocks=None, piece=None,
                 scatter=None, late=None, chains="auto", chain_threads=None, symmetry=None,
                 centres=0):
        super().__init__(n, d, g, comm=comm, batch=batch, symmetry=symmetry, centres=centres)
        cp = self.cp = cupy_or_error()
        self.device = select_device(cp, device, comm)
        self.units = (self.m + 63) // 64
        if self.centres:
            # centre vertices (golf.graph): the kernels read all n rows, renumbered so that the
            # base sources are the first m ids and the centres start at the next column word,
            # a unit of their own (golf.kernels.symmetry.expand_rows)
            self._at = 64 * self.units
            if self.centres > 64 or self._at + self.centres > n:
                raise GolfError(f"gpu-bitset: the centre form needs the {self.centres} centres "
                                f"(at most 64) in a column word of their own, ids "
                                f"{self._at}..{self._at + self.centres - 1} < n={n}; use "
                                f"bitset or bfs")
            self.units += 1
        self._split_units()
        w0, w1 = self.unit_range
        words = max(1, w1 - w0)
        props = cp.cuda.runtime.getDeviceProperties(self.device)
        self.sms = int(props["multiProcessorCount"])
        self.l2 = int(props.get("l2CacheSize", 50 << 20))
        self.gpu_name = props["name"].decode() if isinstance(props["name"], bytes) else str(
            props["name"])
        self.words = words
        self.mode, cw = self._chunk_width(kernel, chunk_words, words)
        self.cw = max(1, cw)
        self.nchunks = -(-words // self.cw)
        normal, coop = _modules(min_blocks or self.MIN_BLOCKS)
        self._k_block = normal.get_function("bitset_block")
        self._k_patch = normal.get_function("patch_adj")
        self._k_twist = normal.get_function("twist_rows")
        # levels 1..sdepth by scatter; after it, a matrix that stays in L2 is passed densely
        # (checking which pieces changed only pays where the rows come from DRAM), and then
        # the sparse pieces' width only matters for the registers: 2 words (no spills)
        self.sdepth = self._scatter_depth(scatter) if self.mode == "grid" else 0
        self.late = (math.log(max(d, 2)) / 128 if late is None else float(late))
        if not 0 <= self.late <= 1:
            raise GolfError(f"gpu-bitset late must be between 0 and 1, not {late}")
        all_dense = self.sdepth > 0 and 8 * n * self.cw <= self.l2
        self.dense_frac = ((0.0 if all_dense else self.DENSE_FRAC) if dense_frac is None
                           else float(dense_frac))
        self.piece, self.group = self.grid_variant(d, self.cw, self.dense_frac, piece, group)
        self._k_grid = coop.get_function(grid_kernel(self.piece, self.group))
        self._sym = np.int32(1 if g > 1 and not self.centres else 0)
        # group-fastest rows for the grid kernel when a warp can take 32 groups of one vertex
        self._tr = np.int32(1 if self.mode == "grid" and g >= 32 and symmetry is None
                            and not self.centres else 0)
        self._allocate(d)
        self.chain_threads = chain_threads
        # where a population's chains run ("device" or "host") and, for auto, why
        self.chains, self.chains_reason = self._place_chains(chains)
        self._k_anneal = {}  # (speculating, group) -> kernel
        self._d_group = None  # the group's kernel array on the device, once chains run

    # -- annealing chains on the device (cuda/anneal.cu) ------------------------------------
    def _chain_threads(self) -> int:
        """Threads of a chain's block: ``chain_threads``, or a power of two from 32 to 256,
        about one a row word."""
        if self.chain_threads:
            return int(self.chain_threads)
        nt = 32
        while nt < min(256, self.n * self.units):
            nt *= 2
        return nt

    def _chain_ints(self) -> int:
        """Ints of a chain's block: the graph's m d slots, a non-cyclic group's b m d
        twisted row slots (the rows its score reads, :func:`golf.kernels.symmetry.twist_rows`)
        and the centres' rows, d slots each (anneal.cu's ``tw_ints``)."""
        grp = self.symmetry
        return (self.m * self.d * (1 + (grp.b if grp is not None else 0))
                + self.centres * self.d)

    def _chain_smem(self) -> int:
        """Shared bytes of a chain's block: two matrices of all m base sources (and of the
        centres' column word), the reduction words, the graph (and a group's twisted rows, the
        centres' rows)."""
        return 16 * self.n * self.units + 8 * self._chain_threads() + 4 * self._chain_ints()

    def _split(self) -> bool:
        """The evaluations are split over MPI ranks: every rank takes its share of the column
        words (maybe all, or none, of them) and all of them reduce the results, so every rank
        must score the same moves from the host."""
        return ((self.comm is not None and self.comm.size > 1)
                or tuple(self.unit_range) != (0, self.units))

    @classmethod
    def device_chains_possible(cls, n: int) -> bool:
        """Whether some form of an order-``n`` graph may run its chains on the device: the two
        bit matrices of one column word, ``16 n`` bytes, fit a block (:meth:`chains_fit`
        says for a built evaluator)."""
        return 16 * n <= cls.SMEM_BYTES

    def chains_fit(self) -> bool:
        """True when a block can run a whole chain: the matrices of all base sources and
        centres (and a group's twisted rows, the centres' rows) fit its shared memory and this
        evaluator is not split over MPI ranks."""
        return not self._split() and self._chain_smem() <= self.SMEM_BYTES

    def _place_chains(self, chains: str) -> tuple[str, str]:
        """Where the chains run for the option ``chains``: ``("device" or "host", why)``, the
        reason said for ``auto`` only. A GolfError for ``device`` where a chain does not fit a
        block (:meth:`chains_fit`) and for an unknown value."""
        if chains not in CHAINS:
            raise GolfError(f"gpu-bitset chains must be auto, host or device, not {chains!r}")
        if chains == "host":
            return "host", ""
        c = self.centres
        sources = f"{self.m} base sources" + (f" and {c} centre{'s' * (c > 1)}" if c else "")
        rows = " and ".join(r for r, on in (("the group's twisted rows",
                                             self.symmetry is not None),
                                            ("the centres' rows", c > 0)) if on)
        need = (f"the bit matrices of all {sources}{f', and {rows},' if rows else ''} in one "
                f"block's shared memory ({self._chain_smem()} of at most {self.SMEM_BYTES} "
                f"bytes)")
        if self.chains_fit():
            return "device", (f"auto: {need}" if chains == "auto" else "")
        why = ("the evaluation is split over MPI ranks" if self._split()
               else f"a chain needs {need}")
        if chains == "device":
            raise GolfError(f"gpu-bitset chains: device cannot run here: {why}; use chains: "
                            f"auto or host")
        return "host", f"auto: {why}"

    def _anneal_form(self) -> str:
        """The form of anneal.cu's kernel for this evaluator (a key of ANNEAL_KERNELS)."""
        if self.centres:
            return "centres"
        return "cyclic" if self.symmetry is None else "group"

    def _anneal_kernel(self, spec: bool):
        """anneal.cu's one-block-a-chain kernel, or (spec) the speculating chains' kernel from
        a cooperative module of its own; the ``_group`` kernel for a non-cyclic group, the
        ``_centres`` kernel for a centre form (under any group)."""
        key = (spec, self._anneal_form())
        if key not in self._k_anneal:
            self._k_anneal[key] = load_module(ANNEAL_FILES, cooperative=spec).get_function(
                ANNEAL_KERNELS[key])
        return self._k_anneal[key]

    def _resident_blocks(self, kernel, nt: int, smem: int) -> int:
        """Blocks of ``nt`` threads and ``smem`` dynamic shared bytes that stay resident on
        the whole GPU (a cooperative grid's most)."""
        cp = self.cp
        try:
            per_sm = cp.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(
                kernel.ptr, nt, smem)
        except Exception:  # no occupancy query in this CuPy: from registers and memory
            regs = int(kernel.attributes.get("num_regs", 128))
            per_sm = min(2048 // nt, 65536 // max(1, regs * nt),
                         self.SM_SHARED_BYTES // (smem + 2048), 32)
        return max(1, int(per_sm)) * int(self.sms)

    def anneal_chains(self, adjs, bests, sts, scs, fls, params, reach, nsteps, trace) -> int:
        """``nsteps`` steps of each of the ``C`` chains whose state arrays are given
        (:class:`golf.engine.population.BatchAnnealer`'s ``adjs, bests, sts, scs, fls``, updated in
        place; ``params`` and ``reach`` shared), without returning to the host: one block a
        chain runs golf.engine.annealer's steps (move, score, decision, undo) in shared memory;
        with ``k = params[P.SPEC] > 1`` proposal streams a cooperative grid scores each chain's
        next k candidate moves at once, a block each (``anneal.cu``'s speculating chains).
        Chain 0 writes its trace rows into ``trace``; returns how many."""
        from golf.engine.annealer import P

        cp = self.cp
        k = int(params[P.SPEC])
        kernel = self._anneal_kernel(k > 1)
        smem = self._chain_smem()
        if k > 1:  # the block's ints rounded up to 8 bytes, then the candidates' decisions
            smem += 4 * (self._chain_ints() % 2) + 8 * SPEC_DEC * k
            if smem > self.SMEM_BYTES:
                raise GolfError(f"chains: device with search.speculate={k} needs {smem} bytes "
                                f"of shared memory a block (at most {self.SMEM_BYTES}); lower "
                                "search.speculate")
        # set at every launch: another evaluator may share the function with other sizes
        kernel.max_dynamic_shared_size_bytes = smem
        C, m, d = adjs.shape
        d_adjs = cp.asarray(np.ascontiguousarray(adjs, dtype=np.int32))
        d_bests = cp.asarray(np.ascontiguousarray(bests, dtype=np.int32))
        d_sts, d_scs, d_fls = cp.asarray(sts), cp.asarray(scs), cp.asarray(fls)
        d_params = cp.asarray(params)
        has_reach = reach is not None
        d_reach = cp.asarray(np.asarray(reach if has_reach else [0], dtype=np.int32))
        # the rows chain 0 can write in nsteps steps, at most the room left in trace
        cap = min(int(trace.shape[0]), int(nsteps) // int(params[P.TRACE_EVERY]) + 1)
        d_trace = cp.empty((max(cap, 1), trace.shape[1]), dtype=cp.float64)
        d_ntrace = cp.zeros(1, dtype=cp.int64)
        nt = self._chain_threads()
        args = (d_adjs, d_bests, d_sts, d_scs, d_fls, d_params, d_reach, np.int32(has_reach),
                np.int32(self.m), np.int32(d), np.int32(self.n), np.int32(self.units),
                np.int64(nsteps), d_trace, d_ntrace, np.int64(cap))
        # a non-cyclic group's kernel takes the group last (golf.group.Group.kernel), uploaded
        # once; a centre form's the group (a stand-in for the cyclic one), whether it is one,
        # and the number of centres
        if self.symmetry is not None and self._d_group is None:
            self._d_group = cp.asarray(self.symmetry.kernel(self.m))
        group = () if self.symmetry is None else (self._d_group,)
        if self.centres:
            group = (self._d_group if self.symmetry is not None else d_reach,
                     np.int32(self.symmetry is not None), np.int32(self.centres))
        if k > 1:
            blocks = min(C * k, self._resident_blocks(kernel, nt, smem))
            work = (cp.zeros((C, SPEC_WS), dtype=cp.int64),
                    cp.zeros((C * k, SPEC_CAND), dtype=cp.int64),
                    cp.zeros((C * k, 4), dtype=cp.uint64),
                    cp.zeros((C * k, m * d), dtype=cp.int32), cp.zeros(2, dtype=cp.uint64))
            kernel((blocks,), (nt,), (np.int32(C),) + args + work + group, shared_mem=smem)
        else:
            kernel((C,), (nt,), args + group, shared_mem=smem)
        adjs[...] = d_adjs.get()
        bests[...] = d_bests.get()
        sts[...] = d_sts.get()
        scs[...] = d_scs.get()
        fls[...] = d_fls.get()
        rows = int(d_ntrace.get()[0])
        trace[:rows] = d_trace[:rows].get()
        return rows

    def _chunk_width(self, kernel, chunk_words, words) -> tuple[str, int]:
        """The kernel (``block`` or ``grid``) and the chunk width in words. Shared-memory
        blocks while 2 matrices of one word per row fit; else a cooperative grid over wide
        chunks. Measured on an H200 (results/gpu/bench_gpu.md): wide rows win although they
        leave the L2, because a chunk's launch, level barriers and adjacency reads are paid
        once for more sources and every 16-byte load is used in full ((10^6,32,1): 16.2 s with
        2-word chunks, 4.98 s with 32). Where 32 words keep both matrices in L2 and 64 do not,
        32: (65536,6,1) 4.68 vs 4.82 ms (one dense level 15.7 vs 37.2 us)."""
        n = self.n
        if kernel not in ("auto", "block", "grid"):
            raise GolfError(f"gpu-bitset kernel must be auto, block or grid, not {kernel!r}")
        if kernel == "block" and 16 * n > self.SMEM_BYTES:
            raise GolfError(f"n = {n} is too big for the shared-memory kernel")
        if kernel == "block" or (kernel == "auto" and 16 * n <= self.SMEM_BYTES):
            mode, cw = "block", min(64, _pow2_floor(self.SMEM_BYTES // (16 * n)))
        else:
            mode = "grid"
            cw = 64 if 16 * n * 64 <= (512 << 20) else 32
            if 16 * n * 64 > self.l2 >= 16 * n * 32:
                cw = 32
        if chunk_words:  # an explicit width wins (shared memory still caps the block kernel)
            cw = _pow2_floor(int(chunk_words))
            if mode == "block":
                cw = min(cw, 64, _pow2_floor(self.SMEM_BYTES // (16 * n)))
            cw = min(cw, 256)
        return mode, min(cw, 1 << (words - 1).bit_length())  # no wider than the words

    def _allocate(self, d) -> None:
        """The device buffers: the rows of ``batch`` graphs (and their group-fastest form),
        the grid kernel's matrices, bitmaps and counters, the results; the host mirror of the
        rows that finds a swap's changed slots."""
        cp, n = self.cp, self.n
        if self.mode == "block":
            # the bound every evaluator sets alike: the function is shared by all of them (one
            # compiled module), so a bound of this one's size would refuse another's launches
            self._k_block.max_dynamic_shared_size_bytes = self.SMEM_BYTES
            self._threads = 1024 if n >= 1024 else max(32, (n + 31) // 32 * 32)
        else:
            self._threads = 256
            self._grid_blocks = self._cooperative_blocks()
            per = n * self.cw
            self._A = cp.zeros(per, dtype=cp.uint64)
            self._B = cp.zeros(per, dtype=cp.uint64)
            items = n * (self.cw // self.piece)
            self._F = cp.zeros(2 * ((items + 31) // 32), dtype=cp.uint32)
            dense_at = min(items + 1, math.ceil(self.dense_frac * items))
            self._level_args = (np.int64(dense_at), np.int32(self.sdepth), np.float64(self.late))
            self._counters = cp.zeros(15, dtype=cp.uint64)
            self._andm = cp.zeros(self.cw, dtype=cp.uint64)
        self._adj = cp.full((self.batch, self.m, max(d, 1)), -1, dtype=cp.int32)
        if self._tr:
            self._abase = cp.full(self._adj.shape, -1, dtype=cp.int32)
            self._ashift = cp.zeros(self._adj.shape, dtype=cp.int32)
        else:  # unused: one-element stand-ins (the kernels skip them)
            self._abase = self._ashift = cp.zeros(1, dtype=cp.int32)
        self._mirror = np.full((self.batch, self.m, max(d, 1)), -2, dtype=np.int32)
        if self.centres:  # all n rows of each graph, renumbered (golf.kernels.symmetry)
            from golf.kernels.symmetry import group_scratch

            self._full = cp.full((self.batch, n, max(d, 1)), -1, dtype=cp.int32)
            grp, _ = group_scratch(self.symmetry, n, self.m, max(d, 1), self.centres)
            self._expand = (grp, np.full((self.batch, n, max(d, 1)), -1, dtype=np.int32))
        elif self.symmetry is not None:  # the twisted rows (b m of them), the powers of r
            self._twisted = cp.full((self.batch, self.symmetry.b * self.m, max(d, 1)), -1,
                                    dtype=cp.int32)
            self._pw = cp.asarray(self.symmetry.pw)
        self._changed = np.zeros(64 * self.batch, dtype=np.int64)  # changed slots found
        self._no_patch = (np.int32(0),) + (np.int64(0),) * 4 + (np.int32(0),) * 4
        self._maxlev = cp.zeros(self.batch, dtype=cp.int64)
        self._res = cp.zeros((self.batch * self.words, 4), dtype=cp.int64)
        self._maxlev_host = np.zeros(self.batch, dtype=np.int64)

    @classmethod
    def estimate(cls, n, d, g, *, threads, ranks):
        D = cls.estimated_levels(n, d)
        if D is None:
            return None
        work = n * d * D * ((n // g + 63) // 64)
        return Estimate(GPU_FIXED_SECONDS + work / GPU_WORD_EDGES_PER_S / max(1, ranks),
                        f"{work:.3g} word x edge x level products at the rate measured on an "
                        f"H200 (results/gpu/bench_gpu.md)")

    @classmethod
    def grid_variant(cls, d: int, cw: int, dense_frac: float, piece=None, group=None) -> tuple:
        """(piece, group) of the grid kernel for degree ``d`` and ``cw``-word chunks, from the
        options (None: the default); a GolfError where the kernel has no such variant."""
        group = int(group) if group else (2 if d <= 8 else 4)
        if group not in GROUPS:
            raise GolfError(f"gpu-bitset group must be 2 or 4, not {group}")
        words = min(cw, int(piece) if piece else 2 if dense_frac <= 0 else cls.PIECE)
        if words not in PIECES:
            raise GolfError(f"gpu-bitset piece must be 1, 2, 4 or 8 words, not {piece}")
        return words, group

    def _scatter_depth(self, want) -> int:
        """Levels of the scatter start. At most the Moore bound allows: with degree <= d a
        ball of radius K holds at most 1 + d (1 + (d-1) + ... + (d-1)^(K-1)) vertices; below
        n, no column is full by level K (the kernel relies on it). ns d^K stays below 2^31.
        By default, the deepest K whose ns d^K atomics cost at most SCATTER_COST of a dense
        level (n C words, d + 2 times), an atomic counted as 4 words where a matrix stays in
        L2 and as 32 where it does not (random read-modify-writes of DRAM sectors). Measured
        on an H200 (results/gpu/bench_gpu.md): (65536,6,1) K = 3 best (2 and 4 slower),
        (10^6,32,1) K = 2 (3: 3.19 s instead of 2.21), (10^6,32,25000) K = 3."""
        d, n = self.d, self.n
        top, ball = 0, 1
        while d >= 2 and top < 8:
            ball += d * (d - 1) ** top
            if ball >= n or self.cw * 64 * d ** (top + 1) >= 1 << 31:
                break
            top += 1
        if want is not None:
            if int(want) < 0:
                raise GolfError(f"gpu-bitset scatter must be >= 0, not {want}")
            return min(int(want), top)
        ns = min(self.cw * 64, self.m)
        unit = 4 if 8 * n * self.cw <= self.l2 else 32
        k = 0
        while k < top and unit * ns * d ** (k + 1) <= self.SCATTER_COST * n * self.cw * (d + 2):
            k += 1
        return k

    def _cooperative_blocks(self) -> int:
        """Blocks of the cooperative grid: as many as stay resident, from the kernel's register
        count (at most 2048 threads and 64K registers per SM), for latency hiding."""
        try:
            regs = int(self._k_grid.attributes["num_regs"])
        except Exception:  # older CuPy: a safe guess for this kernel
            regs = 64
        per_sm = min(2048 // self._threads, 65536 // max(1, regs * self._threads))
        self.blocks_per_sm = max(1, per_sm)
        return int(self.sms * self.blocks_per_sm)

    # -- the graph on the device ------------------------------------------------------------
    def _sync_adj(self, adjs) -> tuple:
        """Make the device rows equal ``adjs`` (K, m, d). A swap changes at most 4 slots a
        graph: up to 4 in all are returned as the patch arguments of the next launch (which
        writes them before it reads a row); more are patched by a kernel of their own, and
        many by uploading everything. The host copy of the device rows finds the changes.
        A non-cyclic group: the rows the level kernels read are the twisted ones, rewritten
        from the base rows (and the patch) by one launch of ``twist_rows``."""
        K = adjs.shape[0]
        dd = self._adj.shape[2]
        if adjs.shape[2] < dd:  # narrower rows (d = 0 graphs): pad with empty slots
            pad = np.full((K, adjs.shape[1], dd), -1, dtype=np.int32)
            pad[:, :, :adjs.shape[2]] = adjs
            adjs = pad
        mirror = self._mirror[:K]
        count = changed_slots(adjs, mirror, self._changed)
        if count == 0:
            return self._no_patch
        if self.centres:  # every row of the graphs, renumbered on the host and uploaded
            from golf.kernels.symmetry import expand_rows

            mirror[...] = adjs
            grp, full = self._expand
            for k in range(K):
                expand_rows(adjs[k], (grp, full[k]), self.n, self._at)
            self._full[:K] = self.cp.asarray(full[:K])
            return self._no_patch
        patch = self._patch(adjs, mirror, count)
        grp = self.symmetry
        if grp is None:
            return patch
        items = K * grp.b * self.m * dd
        self._k_twist(((items + 255) // 256,), (256,),
                      (self._adj, self._twisted, np.int32(K), np.int32(self.m), np.int32(dd),
                       np.int32(grp.a), np.int32(grp.b), self._pw, *patch))
        return self._no_patch

    def _patch(self, adjs, mirror, count) -> tuple:
        """The ``count`` changed slots of ``adjs`` (K, m, d) onto the device rows: the patch
        arguments of the next launch (up to 4), else written here."""
        cp = self.cp
        K = adjs.shape[0]
        if count > len(self._changed):  # many (a new graph): upload all of them
            mirror[...] = adjs
            self._adj[:K] = cp.asarray(adjs)
            if self._tr:
                a = self._adj[:K]
                self._abase[:K] = cp.where(a >= 0, (a % self.m) * self.g, -1)
                self._ashift[:K] = cp.where(a >= 0, a // self.m, 0)
            return self._no_patch
        at = self._changed[:count]
        vals = adjs.reshape(-1)[at]
        mirror.reshape(-1)[at] = vals
        if count <= 4:
            return (np.int32(count), *(np.int64(at[t] if t < count else 0) for t in range(4)),
                    *(np.int32(vals[t] if t < count else 0) for t in range(4)))
        self._k_patch(((count + 255) // 256,), (256,),
                      (self._adj, self._abase, self._ashift, np.int32(self.m),
                       np.int32(self.g), self._tr, cp.asarray(at),
                       cp.asarray(vals.astype(np.int32)), np.int32(count)))
        return self._no_patch

    # -- evaluation -------------------------------------------------------------------------
    def _units(self, K, w0, w1, maxlevs, patch) -> np.ndarray:
        """:meth:`_run` over the work units ``[w0, w1)``: with centres, the base sources'
        words (each source weighing ``g``) and the centres' word (one each) launched apart;
        returns (K, chunks, 4)."""
        if not self.centres:
            return self._run(K, w0, w1, maxlevs, patch)
        wb = self.units - 1
        parts = []
        if w0 < min(w1, wb):
            base = self._run(K, w0, min(w1, wb), maxlevs, patch).copy()
            base[:, :, 1:3] *= self.g
            parts.append(base)
        if w0 <= wb < w1:
            parts.append(self._run(K, wb, wb + 1, maxlevs, self._no_patch,
                                   send=self._at + self.centres))
        return np.concatenate(parts, axis=1)

    def _run(self, K, w0, w1, maxlevs, patch, send=None) -> np.ndarray:
        """Launch for K graphs on the device (``patch``: the slots the first launch writes,
        from :meth:`_sync_adj`); returns (K, chunks, 4) on the host. The sources are those
        of the column words ``[w0, w1)`` below ``send`` (default: the ``m`` base sources)."""
        cp = self.cp
        n, m = self.n, self.m
        d = self._adj.shape[2]
        send = min(w1 * 64, m) if send is None else send
        rows, lay = self._adj, m  # the base rows, or a non-cyclic group's twisted rows
        if self.centres:  # or all rows, renumbered
            rows, lay = self._full, n
        elif self.symmetry is not None:
            rows, lay = self._twisted, self.symmetry.b * m
        words = w1 - w0
        if self._maxlev_host[:K].tolist() != list(maxlevs):
            self._maxlev_host[:K] = maxlevs
            self._maxlev[:K] = cp.asarray(self._maxlev_host[:K])
        if self.mode == "block":
            # narrower chunks when there are few graphs, so that the blocks fill the GPU
            cw = min(self.cw, max(1, _pow2_floor(max(1, words * K // self.sms))))
            nch = -(-words // cw)
            self._k_block((K * nch,), (self._threads,),
                          (rows, np.int32(lay), np.int32(d), np.int32(n),
                           np.int32(cw.bit_length() - 1), np.int32(nch), np.int32(w0),
                           np.int32(send), self._sym, self._maxlev, self._res, *patch),
                          shared_mem=16 * n * cw)
            return self._res[:K * nch].get().reshape(K, nch, 4)
        nch = -(-words // self.cw)
        lg = np.int32(self.cw.bit_length() - 1)
        for k in range(K):
            graph = (rows[k], np.int32(lay), np.int32(d), np.int32(n), lg)
            rest = (self._sym, np.int64(maxlevs[k]), self._A, self._B, self._F, self._counters,
                    self._andm)
            tail = ((np.int32(self.g), self._tr, self._abase[k], self._ashift[k])
                    if self._tr else (np.int32(self.g), self._tr, self._abase, self._ashift))
            for c in range(nch):
                s0 = (w0 + c * self.cw) * 64
                s1 = min(s0 + self.cw * 64, send)
                self._k_grid((self._grid_blocks,), (self._threads,),
                             (*graph, np.int32(s0), np.int32(s1), *rest,
                              self._res[k * nch + c], *tail, *self._level_args, *patch))
                patch = self._no_patch  # written by the first launch
        return self._res[:K * nch].get().reshape(K, nch, 4)

    @staticmethod
    def _merge(parts: np.ndarray) -> np.ndarray:
        """(K, chunks, 4) -> (K, 4), as :func:`golf.evaluators.base.combine` does."""
        out = np.empty((parts.shape[0], 4), dtype=np.int64)
        merge_many(parts, out)
        return out

    def partial(self, graph, u0, u1, max_level=0):
        if u1 <= u0:
            return np.array([-1, 0, 0, OK], dtype=np.int64)
        patch = self._sync_adj(graph.adj[None])
        return self._merge(self._units(1, u0, u1, [max_level], patch))[0]

    def evaluate_many(self, adjs, max_levels=None) -> np.ndarray:
        """Score K graphs of this shape in one launch: ``adjs`` (K, m, d) base rows; returns
        (K, 4) rows ``[ecc, dist_sum, n_at_ecc, status]`` over all work units (combine with
        :meth:`finish` for scores). ``K`` may not exceed ``batch``."""
        adjs = self.batch_rows(adjs)
        K = adjs.shape[0]
        if K > self.batch:
            raise GolfError(f"{K} graphs for a batch of {self.batch}; build the evaluator "
                            f"with batch={K}")
        levels = self.batch_levels(K, max_levels)
        patch = self._sync_adj(adjs)
        parts = self._merge(self._units(K, *self.unit_range, levels, patch))
        if self.comm is not None:
            from golf.parallel import allreduce_parts

            parts = np.stack([allreduce_parts(self.comm, p) for p in parts])
        return parts

    def describe(self) -> str:
        w0, w1 = self.unit_range
        how = (f"shared-memory blocks of {self._threads} threads (chunks narrowed to fill "
               f"{self.sms} SMs)" if self.mode == "block" else
               f"cooperative grid of {self._grid_blocks} x {self._threads} threads, "
               + ("dense levels" if self.dense_frac <= 0 else
                  f"changed-piece bitmaps, {self.piece}-word sparse pieces, dense from "
                  f"{self.dense_frac:g}")
               + f", groups of {self.group}"
               + (f", levels 1-{self.sdepth} scattered" if self.sdepth else "")
               + (", group-fastest rows" if self._tr else ""))
        chains = (f"; chains on the device, blocks of {self._chain_threads()} threads"
                  if self.chains == "device" else "; chains on the host")
        if self.chains_reason:
            chains += f" ({self.chains_reason})"
        return (f"gpu-bitset on GPU {self.device} ({self.gpu_name}): {w1 - w0} column words in "
                f"{self.nchunks} chunks of {self.cw} words, {how}{chains}")
