"""h-scores of host-switch graphs on an NVIDIA GPU (``evaluator: {backend: gpu-bitset}`` of a
host-switch problem): the weighted bit matrix of :mod:`golf.evaluators.h_scoring`, one thread
block a (graph, 64-column word), in ``golf/evaluators/cuda/h_gpu_bitset.cu``, launched through
CuPy.

The kernel reads the search's port rows as they are (:mod:`golf.hostswitch.ports`: links,
host ports, free ports) and counts each switch's hosts itself, so a host move needs no other
upload than the slots it changed. Its columns are all ``s`` switches in their own order, a
switch without hosts weighing 0; a row's weighted popcount over a word is the sum over the
bit planes of the host counts (``sum_j 2^j popcount(x & plane_j)``), so the columns need no
sorting by weight. Each block runs all the levels of its word with both bit matrices of that
word in shared memory (16 bytes a switch, and 4 for its host count); a group of lanes (the
power of two at or above ``r / 4``, at most 32) reads a switch's ports together, consecutive
lanes consecutive ports, and ORs its neighbours' words by shuffles. A block writes the part of
its columns, ``[h-ecc, pairs, peripheral hosts, status]``, by column as the CPU's MPI parts
are; the parts merge as every backend's do (:func:`golf.kernels.merge.merge_parts`). A batch
of ``K`` graphs is ``K x words`` blocks in one launch (:meth:`evaluate_many`), which a
population of chains uses. The work units are the column words, which MPI ranks split.
"""

from __future__ import annotations

import numpy as np

from golf.errors import GolfError
from golf.evaluators.base import DEVICE, OK, Capabilities, GpuEvaluator
from golf.evaluators.cuda import cupy_or_error, load_module, select_device
from golf.evaluators.h_scoring import HostSwitchScores
from golf.kernels.changes import changed_slots
from golf.kernels.merge import merge_many

__all__ = ["HostSwitchGpuEvaluator"]

# the module's source files (golf/evaluators/cuda/)
FILES = ("h_gpu_bitset.cu",)
# threads a block, at most
THREADS = 512


class HostSwitchGpuEvaluator(HostSwitchScores, GpuEvaluator):
    """h-scores of host-switch port rows on the GPU (module docstring).

    Parameters
    ----------
    hosts, switches, radix : int
        The problem: ``n`` hosts on ``s`` switches of radix ``r``.
    device : int, optional — the GPU (default: GPU 0, or one a rank on a node)
    batch : int — graphs an :meth:`evaluate_many` launch holds
    """

    name = "h-gpu-bitset"
    summary = ("host-switch h-scores on the GPU: the bit matrix over the switches, a block a "
               "64-column word in shared memory, weighted by host counts")
    options = {"device": DEVICE}
    supports = Capabilities(gpu=True, batched=True, mpi_split=True)

    def __init__(self, hosts, switches, radix, *, device=None, batch=1, comm=None):
        super().__init__(switches, radix, 1, batch=batch, comm=comm)
        self.hosts = int(hosts)
        self.weight = 1
        s, r = self.n, self.d
        self.units = (s + 63) // 64
        self._split_units()
        cp = self.cp = cupy_or_error()
        self.device = select_device(cp, device, comm)
        props = cp.cuda.runtime.getDeviceProperties(self.device)
        self.gpu_name = props["name"].decode() if isinstance(props["name"], bytes) else str(
            props["name"])
        self._smem = 16 * s + 4 * s
        most = int(props.get("sharedMemPerBlockOptin", props["sharedMemPerBlock"]))
        if self._smem + 1024 > most:
            raise GolfError(f"h-gpu-bitset: {s} switches need {self._smem} bytes of shared "
                            f"memory a block (20 a switch), the GPU has {most}; use the CPU "
                            f"evaluator (backend: auto or bitset)")
        module = load_module(FILES)
        self._kernel = module.get_function("h_bitset")
        self._k_patch = module.get_function("h_patch")
        self._kernel.max_dynamic_shared_size_bytes = most - 1024
        # a group of lanes a switch, each lane reading about 4 of its ports: the power of two
        # at or above r / 4, at most a warp
        self._group = min(32, 1 << max(0, -(-r // 4) - 1).bit_length())
        self._threads = min(THREADS, max(32, (s * self._group + 31) // 32 * 32))
        self._adj = cp.full((self.batch, s, r), -1, dtype=cp.int32)
        self._mirror = np.full((self.batch, s, r), -3, dtype=np.int32)  # nothing uploaded
        self._changed = np.zeros(64 * self.batch, dtype=np.int64)
        # the (slot, value) pairs of a patch, and the blocks' results: buffers of both sides
        # kept for the run, so that a step allocates no device memory
        self._pairs = np.empty(2 * len(self._changed), dtype=np.int64)
        self._pairs_dev = cp.empty(2 * len(self._changed), dtype=cp.int64)
        self._res = cp.zeros((self.batch * max(1, self.units), 4), dtype=cp.int64)
        self._res_host = np.empty((self.batch * max(1, self.units), 4), dtype=np.int64)

    def _sync(self, adjs) -> None:
        """Make the device rows of the first ``K`` graphs equal ``adjs`` (K, s, r): the
        changed slots, found in the host copy of the device rows, or all of them."""
        K = adjs.shape[0]
        mirror = self._mirror[:K]
        count = changed_slots(adjs, mirror, self._changed)
        if count == 0:
            return
        if count > len(self._changed):
            mirror[...] = adjs
            self._adj[:K] = self.cp.asarray(adjs)
            return
        at = self._changed[:count]
        vals = adjs.reshape(-1)[at]
        mirror.reshape(-1)[at] = vals
        pairs, dev = self._pairs[:2 * count], self._pairs_dev[:2 * count]
        pairs[0::2], pairs[1::2] = at, vals
        dev.set(pairs)
        self._k_patch(((count + 127) // 128,), (128,), (self._adj, dev, np.int32(count)))

    def _run(self, K, w0, w1) -> np.ndarray:
        """The merged results of the first ``K`` device graphs over the column words
        ``[w0, w1)``, (K, 4)."""
        out = np.empty((K, 4), dtype=np.int64)
        if self.hosts == 1:  # one host: h-diameter 0, in the part of the first word
            out[:] = (0, 0, 1, OK) if w0 == 0 < w1 else (-1, 0, 0, OK)
            return out
        nch = w1 - w0
        if nch <= 0:
            out[:] = (-1, 0, 0, OK)
            return out
        self._kernel((K * nch,), (self._threads,),
                     (self._adj, np.int32(self.n), np.int32(self.d), np.int32(w0),
                      np.int32(nch), np.int32(self._group), self._res), shared_mem=self._smem)
        res = self._res_host[:K * nch]
        self._res[:K * nch].get(out=res)
        merge_many(res.reshape(K, nch, 4), out)
        if w0 == 0:  # the 2 hops to and from the switches, once for all parts
            ok = out[:, 3] == OK
            out[ok, 1] += 2 * self.hosts * (self.hosts - 1)
        return out

    def partial(self, graph, u0, u1, max_level=0):
        self._sync(np.ascontiguousarray(graph.adj, dtype=np.int32)[None])
        return self._run(1, u0, u1)[0]

    def evaluate_many(self, adjs, max_levels=None) -> np.ndarray:
        """Score K graphs' port rows ``adjs`` (K, s, r) in one launch; returns (K, 4) merged
        rows (:meth:`finish` turns one into a score). ``K`` may not exceed ``batch``; the
        level caps are not used (every evaluation runs to the end)."""
        adjs = self.batch_rows(adjs)
        K = adjs.shape[0]
        if K > self.batch:
            raise GolfError(f"{K} graphs for a batch of {self.batch}; build the evaluator "
                            f"with batch={K}")
        if adjs.shape[2] != self.d:
            raise GolfError(f"{self.name}: port rows of width {self.d}, got {adjs.shape[2]}")
        self._sync(adjs)
        parts = self._run(K, *self.unit_range)
        if self.comm is not None:
            from golf.parallel import allreduce_parts

            parts = np.stack([allreduce_parts(self.comm, p) for p in parts])
        return parts

    def describe(self) -> str:
        w0, w1 = self.unit_range
        return (f"h-gpu-bitset on GPU {self.device} ({self.gpu_name}): {self.hosts} hosts on "
                f"{self.n} switches of radix {self.d}, {w1 - w0} column words, a block of "
                f"{self._threads} threads each")
