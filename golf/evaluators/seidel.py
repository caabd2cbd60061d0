"""``seidel``: Seidel's APSP for unweighted undirected graphs, matrix products on tensor cores
(seed paper ``002_...``).

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

import numpy as np

from golf.errors import GolfError
from golf.evaluators.base import DISCONNECTED, OK, Evaluator
from golf.evaluators.gpu_bitset import cupy_or_error, select_device

__all__ = ["SeidelEvaluator"]

# cudaDataType and cublasComputeType values (cuda_runtime / cublas_api.h)
_R_8I, _R_32I, _R_16F, _R_32F = 3, 10, 2, 0
_COMPUTE_32I, _COMPUTE_32F = 72, 68
_GEMM_DEFAULT = -1


class SeidelEvaluator(Evaluator):
    """Seidel's APD on the GPU.

    Options
    -------
    device : int, optional — the GPU (default: GPU 0, or one per MPI rank on a node)
    precision : 'auto' (int8 where exact, else fp16, else fp32), 'fp16' or 'fp32'
    """

    name = "seidel"

    def __init__(self, n, d, g=1, *, device=None, precision="auto", comm=None, threads=None):
        super().__init__(n, d, g, comm=comm)
        if precision not in ("auto", "fp16", "fp32"):
            raise GolfError(f"seidel: precision must be auto, fp16 or fp32, got {precision!r}")
        self.cp = cupy_or_error()
        self.device = select_device(self.cp, device, comm)
        self.precision = precision
        self.units = 1  # one product chain: under MPI, rank 0 computes and the others idle
        self._split_units()
        self.np_ = -(-n // 16) * 16  # padded so that int8 GEMM operands are aligned
        self.last_levels = 0
        self.last_products = []
        self._A = None  # the dense adjacency on the device, patched after each swap
        self._mirror = None
        self._offdiag = None

    # -- products ---------------------------------------------------------------------------
    def _gemm(self, a, b, out_dtype, kind):
        """``a @ b`` for symmetric square operands (row-major buffers read as column-major
        give ``b^T a^T = (a b)^T``; with symmetric inputs the result is ``a b`` in the layout
        needed). ``kind``: 'i8' (int8 x int8 -> int32), 'f16' (fp16 -> fp32), 'f32'."""
        from cupy.cuda import cublas, device

        cp = self.cp
        N = a.shape[0]
        if kind == "f32":
            self.last_products.append("fp32")
            return cp.matmul(a.astype(cp.float32), b.astype(cp.float32))
        c = cp.empty((N, N), dtype=out_dtype)
        handle = device.get_cublas_handle()
        if kind == "i8":
            alpha, beta = np.array(1, np.int32), np.array(0, np.int32)
            atype, ctype, comp = _R_8I, _R_32I, _COMPUTE_32I
        else:
            alpha, beta = np.array(1, np.float32), np.array(0, np.float32)
            atype, ctype, comp = _R_16F, _R_32F, _COMPUTE_32F
        cublas.gemmEx(handle, 0, 0, N, N, N, alpha.ctypes.data, b.data.ptr, atype, N,
                      a.data.ptr, atype, N, beta.ctypes.data, c.data.ptr, ctype, N, comp,
                      _GEMM_DEFAULT)
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
        """Distance matrix (int32) of the graph with 0/1 adjacency ``A`` (int8, padded), or
        None if it is disconnected. Iterative: square until complete, then unwind."""
        cp = self.cp
        n = self.n
        offdiag = self._offdiag_mask()
        stack = []
        self.last_products = []
        while True:
            if bool((A.astype(cp.bool_) | ~offdiag).all()):  # complete: D = 2B - A (here B = A)
                D = A.astype(cp.int32)
                break
            Z = self._gemm(A, A, cp.int32, "i8")
            B = ((A != 0) | (Z > 0)) & offdiag
            if bool((B == (A != 0)).all()):  # squaring added nothing: not connected
                return None
            stack.append(A)
            A = B.astype(cp.int8)
        # unwind: D currently holds the distances of the last (complete) graph = 1 off-diagonal
        for A in reversed(stack):
            deg = A.astype(cp.int32).sum(axis=0)
            t_max = int(D.max())
            kind = self._product_kind(t_max, n)
            T = D.astype(cp.int8 if kind == "i8" else (cp.float16 if kind == "f16" else cp.int32))
            X = self._gemm(T, A.astype(T.dtype) if kind != "f32" else A, cp.int32 if kind == "i8"
                           else cp.float32, kind)
            X = X.astype(cp.int64)
            D = 2 * D - (X < D.astype(cp.int64) * deg[None, :]).astype(cp.int32)
            D = cp.where(offdiag, D, 0).astype(cp.int32)
        self.last_levels = len(stack) + 1
        return D

    def _offdiag_mask(self):
        if self._offdiag is None:
            cp, N, n = self.cp, self.np_, self.n
            mask = cp.zeros((N, N), dtype=cp.bool_)
            mask[:n, :n] = True
            idx = cp.arange(n)
            mask[idx, idx] = False
            self._offdiag = mask
        return self._offdiag

    def _set_slots(self, rows, vals, value):
        """Write ``value`` at the directed edges of base slots (rows, vals) and all their
        rotations: ``A[i + k m, (w + k m) mod n]``."""
        cp, n, m = self.cp, self.n, self.m
        shifts = cp.arange(self.g, dtype=cp.int64)[:, None] * m
        r = (cp.asarray(rows, dtype=cp.int64)[None, :] + shifts).ravel()
        c = ((cp.asarray(vals, dtype=cp.int64)[None, :] + shifts) % n).ravel()
        self._A[r, c] = value

    def sync_adjacency(self, adj) -> None:
        """Make the dense device matrix equal the graph with base rows ``adj``: built on the
        device from the rows the first time, then patched at the slots that changed."""
        cp = self.cp
        adj = np.asarray(adj, dtype=np.int32)
        if self._A is None or self._mirror is None or self._mirror.shape != adj.shape:
            self._A = cp.zeros((self.np_, self.np_), dtype=cp.int8)
            i, j = np.nonzero(adj >= 0)
            self._set_slots(i, adj[i, j], 1)
        else:
            ch = np.flatnonzero(adj != self._mirror)
            if len(ch):
                i, j = np.divmod(ch, adj.shape[1])
                old, new = self._mirror[i, j], adj[i, j]
                keep = old >= 0
                self._set_slots(i[keep], old[keep], 0)
                keep = new >= 0
                self._set_slots(i[keep], new[keep], 1)
        self._mirror = adj.copy()

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
        out = np.array([diameter, int(rows.sum()), int((ecc == diameter).sum()), OK],
                       dtype=np.int64)
        return out

    def describe(self) -> str:
        return (f"seidel on GPU {self.device}: APD over {self.n} x {self.n} matrices, "
                f"precision {self.precision} (int8 tensor cores where exact)")
