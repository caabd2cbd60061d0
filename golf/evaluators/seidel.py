"""``seidel``: Seidel's APSP for unweighted undirected graphs (R. Seidel, "On the
all-pairs-shortest-path problem in unweighted undirected graphs", J. Comput. Syst. Sci., 1995),
its matrix products on tensor cores as in Takeuchi and Fujimoto, "A CUDA implementation of
Seidel's algorithm for the all-pairs shortest path problem using Tensor Cores" (in Japanese,
IPSJ SIG Technical Report, undated copy; see CITATION.cff).

APD(A): square the graph (``Z = A A``; ``B = A or Z > 0``); if ``B`` is complete the distances
are ``2B - A``; else ``T = APD(B)``, ``X = T A`` and, with the degree vector ``deg``,
``D[i,j] = 2 T[i,j] - [X[i,j] < T[i,j] deg[j]]`` (the parity rule). The recursion depth is
``log2(diameter) + 1`` and every level costs one or two ``n x n x n`` products.

Exact arithmetic: 0/1 matrices and small distances go through cuBLAS ``gemmEx`` in int8 with
int32 accumulation (exact while every product fits int32); a distance matrix with entries
above 127 goes through fp16 with fp32 accumulation (exact for integers up to 2048 and sums up
to 2^24), and beyond that through fp32. Only the rows of the ``m`` base sources are summed.
A graph whose squaring adds no edge before it is complete is disconnected, and reported so.
Dense graphs only: the products cost ``n^3`` whatever ``d`` is, where the bit matrix costs
``n^2 d D / 64``; ``auto`` picks it where it is faster (measured, results/gpu/).
"""

from __future__ import annotations

import math

import numpy as np

from golf.errors import GolfError
from golf.evaluators.base import (DEVICE, DISCONNECTED, EXCEEDED, OK, Capabilities, Estimate,
                                  GpuEvaluator)
from golf.evaluators.cuda import cupy_or_error, load_module, select_device
from golf.evaluators.gpu_bitset import GPU_FIXED_SECONDS
from golf.kernels.changes import changed_slots
from golf.options import Spec

__all__ = ["SeidelEvaluator"]

FILES = ("seidel.cu",)  # the source of its two element-wise kernels (golf/evaluators/cuda/)
# int8 tensor-core products measured on an H200 (results/gpu/bench_gpu.md): ~4e14
# multiply-adds per second ((16384, 2048): 2 products in 20 ms)
GPU_INT8_MACS_PER_S = 4e14

# cudaDataType and cublasComputeType values (cuda_runtime / cublas_api.h)
_R_8I, _R_32I, _R_16F, _R_32F = 3, 10, 2, 0
_COMPUTE_32I, _COMPUTE_32F = 72, 68
_GEMM_DEFAULT = -1


class SeidelEvaluator(GpuEvaluator):
    """Seidel's APD on the GPU.

    Parameters
    ----------
    device : int, optional — the GPU (default: GPU 0, or one per MPI rank on a node)
    precision : 'auto' (int8 where exact, else fp16, else fp32), 'fp16' or 'fp32'
    """

    name = "seidel"
    summary = ("Seidel's APD recursion with int8 tensor-core products on an NVIDIA GPU "
               "(CuPy + cuBLAS); for dense graphs")
    options = {
        "device": DEVICE,
        "precision": Spec("choice", "auto", ("auto", "fp16", "fp32"), "auto, fp16 or fp32"),
    }
    supports = Capabilities(gpu=True)
    takes_centres = False  # its kernels know no centre vertices (golf.graph)

    def __init__(self, n, d, g=1, *, device=None, precision="auto", comm=None, batch=1,
                 symmetry=None, centres=0):
        super().__init__(n, d, g, comm=comm, batch=batch, symmetry=symmetry, centres=centres)
        if precision not in ("auto", "fp16", "fp32"):
            raise GolfError(f"seidel: precision must be auto, fp16 or fp32, got {precision!r}")
        self.cp = cupy_or_error()
        self.device = select_device(self.cp, device, comm)
        self.precision = precision
        self.units = 1  # one product chain: under MPI, rank 0 computes and the others idle
        self._split_units()
        self.np_ = -(-n // 64) * 64  # padded so that int8 GEMM operands are aligned
        mod = load_module(FILES)
        self._k_square = mod.get_function("square_step")
        self._k_parity = mod.get_function("parity_step")
        self._flags = self.cp.zeros(2, dtype=self.cp.int32)
        # stand-ins for the parity kernel's unused product operand (int32 or float32)
        self._dummy_i = self.cp.zeros(1, dtype=self.cp.int32)
        self._dummy_f = self.cp.zeros(1, dtype=self.cp.float32)
        self.last_levels = 0
        self.last_products = []
        self._A = None  # the dense adjacency on the device, patched after each swap
        self._mirror = None  # host copy of the rows it was built from
        self._changed = np.zeros(64, dtype=np.int64)  # slots changed since (a swap: <= 4)

    @classmethod
    def estimate(cls, n, d, g, *, threads, ranks):
        D = cls.estimated_levels(n, d)
        if D is None:
            return None
        products = 2 * max(1, math.ceil(math.log2(max(D, 2))))
        return Estimate(GPU_FIXED_SECONDS + products * float(n) ** 3 / GPU_INT8_MACS_PER_S,
                        f"{products} products of {n} x {n} matrices on int8 tensor cores "
                        f"(whatever d is: dense graphs only)")

    # -- products ---------------------------------------------------------------------------
    def _gemm(self, a, b, kind):
        """``a @ b`` for a symmetric ``b`` (both square, row-major). cuBLAS is column-major:
        with ``op(b) = T`` ("TN", the layout int8 tensor-core GEMM wants) it computes
        ``b (a^T)`` column-major, which read row-major is ``a b^T = a b``. ``kind``: 'i8'
        (int8 x int8 -> int32), 'f16' (fp16 x fp16 -> fp32), 'f32' (fp32, no TF32).
        Returns int32 or float32."""
        from cupy.cuda import cublas, device

        cp = self.cp
        N = a.shape[0]
        if kind == "f32":
            self.last_products.append("fp32")
            return cp.matmul(a.astype(cp.float32), b.astype(cp.float32))
        if kind == "i8":
            alpha, beta = np.array(1, np.int32), np.array(0, np.int32)
            atype, ctype, comp, out = _R_8I, _R_32I, _COMPUTE_32I, cp.int32
            a, b = a.astype(cp.int8, copy=False), b.astype(cp.int8, copy=False)
        else:
            alpha, beta = np.array(1, np.float32), np.array(0, np.float32)
            atype, ctype, comp, out = _R_16F, _R_32F, _COMPUTE_32F, cp.float32
            a, b = a.astype(cp.float16, copy=False), b.astype(cp.float16, copy=False)
        c = cp.empty((N, N), dtype=out)
        try:
            cublas.gemmEx(device.get_cublas_handle(), 1, 0, N, N, N, alpha.ctypes.data,
                          b.data.ptr, atype, N, a.data.ptr, atype, N, beta.ctypes.data,
                          c.data.ptr, ctype, N, comp, _GEMM_DEFAULT)
        except cublas.CUBLASError as exc:
            if kind != "i8":
                raise
            self.last_products.append(f"int8 refused ({exc}): fp16")
            return self._gemm(a, b, "f16")
        self.last_products.append({"i8": "int8", "f16": "fp16"}[kind])
        return c

    def _product_kind(self, t_max: int, n: int) -> str:
        if self.precision == "fp32":
            return "f32"
        if self.precision == "auto" and t_max <= 127 and t_max * n < 2**31:
            return "i8"
        if t_max <= 2048 and t_max * n < 2**24:
            return "f16"
        return "f32"

    def apd(self, A):
        """Distance matrix (int32, padded) of the graph with 0/1 adjacency ``A`` (int8,
        padded), or None if it is disconnected. Iterative: square until complete, then apply
        the parity rule back down. Two fused kernels do the element-wise work in one pass
        each; the host reads two flags per level."""
        cp = self.cp
        n, N = self.n, A.shape[0]
        grid = ((N + 255) // 256, N)
        stack = []
        self.last_products = []
        while True:
            Z = self._gemm(A, A, "i8")
            if Z.dtype != cp.int32:
                Z = Z.astype(cp.int32)
            B = cp.empty_like(A)
            self._flags[:] = 0
            self._k_square(grid, (256,), (A, Z, B, np.int32(n), np.int32(N), self._flags))
            added, missing = (int(x) for x in self._flags.get())
            del Z
            if missing and not added:  # squaring added nothing: not connected
                return None
            stack.append(A)
            A = B
            if not missing:  # complete: every distance of this graph is 1
                break
        D = A.astype(cp.int32)  # 1 off the diagonal
        for A in reversed(stack):
            deg = A.sum(axis=0, dtype=cp.int32)
            kind = self._product_kind(int(D.max()), n)
            X = self._gemm(D, A, kind)
            use_float = np.int32(X.dtype == cp.float32)
            Xi = X if not use_float else self._dummy_i
            Xf = X if use_float else self._dummy_f
            self._k_parity(grid, (256,), (D, Xi, Xf, use_float, deg, np.int32(n), np.int32(N)))
            del X
        self.last_levels = len(stack)
        return D

    def _set_slots(self, rows, vals, value):
        """Write ``value`` at the directed edges of base slots (rows, vals) and all their
        rotations: ``A[i + k m, (w + k m) mod n]`` (a non-cyclic group: ``w`` moved by the
        element ``k``)."""
        cp, n, m = self.cp, self.n, self.m
        if self.symmetry is not None:
            ks = np.arange(self.g, dtype=np.int64)[:, None]
            r = (np.asarray(rows, dtype=np.int64)[None, :] + ks * m).ravel()
            c = self.symmetry.act(np.asarray(vals, dtype=np.int64)[None, :], ks, m).ravel()
            self._A[cp.asarray(r), cp.asarray(c)] = value
            return
        shifts = cp.arange(self.g, dtype=cp.int64)[:, None] * m
        r = (cp.asarray(rows, dtype=cp.int64)[None, :] + shifts).ravel()
        c = ((cp.asarray(vals, dtype=cp.int64)[None, :] + shifts) % n).ravel()
        self._A[r, c] = value

    def sync_adjacency(self, adj) -> None:
        """Make the dense device matrix equal the graph with base rows ``adj``: built on the
        device from the rows the first time, then patched at the slots that changed."""
        cp = self.cp
        adj = np.ascontiguousarray(adj, dtype=np.int32)
        count = -1
        if self._mirror is not None and self._mirror.shape == adj.shape:
            count = changed_slots(adj, self._mirror, self._changed)
        if count < 0 or count > len(self._changed):  # first graph, or a new one
            self._A = cp.zeros((self.np_, self.np_), dtype=cp.int8)
            i, j = np.nonzero(adj >= 0)
            self._set_slots(i, adj[i, j], 1)
            self._mirror = adj.copy()
        elif count:  # a swap: clear the old edges' entries, set the new ones
            ch = self._changed[:count]
            i, j = np.divmod(ch, adj.shape[1])
            old, new = self._mirror[i, j], adj[i, j]
            keep = old >= 0
            self._set_slots(i[keep], old[keep], 0)
            keep = new >= 0
            self._set_slots(i[keep], new[keep], 1)
            self._mirror[i, j] = new

    def partial(self, graph, u0, u1, max_level=0):
        if u1 <= u0:
            return np.array([-1, 0, 0, OK], dtype=np.int64)
        cp = self.cp
        n, m = self.n, self.m
        if n == 1:
            return np.array([0, 0, 1, OK], dtype=np.int64)
        self.sync_adjacency(graph.adj)
        D = self.apd(self._A)
        if D is None:
            return np.array([-1, 0, 0, DISCONNECTED], dtype=np.int64)
        rows = D[:m, :n].astype(cp.int64)
        ecc = rows.max(axis=1)
        diameter = int(ecc.max())
        if 0 < max_level < diameter:  # as the level-by-level backends report a cap
            return np.array([max_level, 0, 0, EXCEEDED], dtype=np.int64)
        return np.array([diameter, int(rows.sum()), int((ecc == diameter).sum()), OK],
                        dtype=np.int64)

    def describe(self) -> str:
        return (f"seidel on GPU {self.device}: APD over {self.n} x {self.n} matrices, "
                f"precision {self.precision} (int8 tensor cores where exact)")
