"""Small pure Numba kernels shared across golf (the "core" module of the backends).

Everything here is a function over arrays and integers: no I/O, no errors for users, no Python
objects. Python code around them does the orchestration. All are compiled with ``cache=True`` so
that a second process loads them from disk instead of compiling again.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import intrinsic, overload

__all__ = ["popcount", "rotated", "bfs_one", "merge_parts", "format_pairs", "rng_seed",
           "rng_next", "rng_below", "rng_random",
           "OK", "DISCONNECTED", "EXCEEDED"]

# status of a partial result: complete, graph disconnected, diameter above the level cap
OK, DISCONNECTED, EXCEEDED = 0, 1, 2


@intrinsic
def _ctpop(typingctx, x):
    if not isinstance(x, types.Integer):
        return None
    sig = types.int64(types.uint64)

    def codegen(context, builder, signature, args):
        val = context.cast(builder, args[0], signature.args[0], types.uint64)
        return builder.ctpop(val)

    return sig, codegen


def popcount(x):
    """Number of set bits of a uint64, as an int64 (so that sums with int64 stay integers in
    Numba). Compiled, it is LLVM's ``ctpop``: one POPCNT or, in vectorised loops, VPOPCNTQ."""
    return bin(int(x)).count("1")


@overload(popcount, inline="always")
def _popcount_impl(x):
    if isinstance(x, types.Integer):
        return lambda x: _ctpop(x)


@njit(cache=True, inline="always")
def rotated(w, off, n):
    """Neighbour id ``(w + off) mod n`` for ``0 <= w, off < n`` without a division."""
    u = w + off
    if u >= n:
        u -= n
    return u


@njit(cache=True)
def bfs_one(adj, n, src, maxlev, visited, queue):
    """Top-down BFS from ``src`` over the g-symmetric graph with base rows ``adj``.

    ``visited`` is a uint64 bitmap of at least ``ceil(n/64)`` words and ``queue`` an int32
    array of at least ``n`` entries; both are scratch space (overwritten).

    Returns ``(ecc, dist_sum, reached)``: the eccentricity of ``src`` (the last level that
    found a vertex), the sum of the distances to the vertices reached, and how many vertices
    were reached (``n`` when the graph is connected). With ``maxlev > 0`` the search stops
    after that many levels: ``reached < n`` then also means "eccentricity above maxlev".
    """
    m = adj.shape[0]
    d = adj.shape[1]
    nw = (n + 63) >> 6
    for w in range(nw):
        visited[w] = 0
    visited[src >> 6] |= np.uint64(1) << np.uint64(src & 63)
    queue[0] = src
    head = 0
    tail = 1
    level = 0
    dist_sum = 0
    while head < tail:
        if maxlev > 0 and level == maxlev:
            break
        level += 1
        end = tail
        for q in range(head, end):
            v = queue[q]
            k = v // m
            i = v - k * m
            off = k * m
            for j in range(d):
                w = adj[i, j]
                if w < 0:
                    continue
                u = rotated(w, off, n)
                word = u >> 6
                bit = np.uint64(1) << np.uint64(u & 63)
                if visited[word] & bit == 0:
                    visited[word] |= bit
                    queue[tail] = u
                    tail += 1
        head = end
        dist_sum += (tail - end) * level
        if tail == end:  # the last level found nothing
            level -= 1
            break
    return level, dist_sum, tail


@njit(cache=True)
def merge_parts(res, out):
    """Fold partial results (rows ``[ecc, dist_sum, n_at_ecc, status]``, from chunks, threads
    or ranks) into ``out``. A row with ``ecc = -1`` (an empty range) changes nothing."""
    ecc = -1
    status = OK
    dist = 0
    for c in range(res.shape[0]):
        if res[c, 3] > status:
            status = res[c, 3]
        if res[c, 0] > ecc:
            ecc = res[c, 0]
        dist += res[c, 1]
    n_at = 0
    for c in range(res.shape[0]):
        if res[c, 0] == ecc:
            n_at += res[c, 2]
    out[0] = ecc
    out[1] = dist if status == OK else 0
    out[2] = n_at if status == OK else 0
    out[3] = status


@njit(cache=True)
def format_pairs(e):
    """ASCII bytes of ``"u v\\n"`` lines for the rows of an (E, 2) int64 array."""
    # at most 20 digits + separator per number
    out = np.empty(e.shape[0] * 42, dtype=np.uint8)
    tmp = np.empty(20, dtype=np.uint8)
    pos = 0
    for r in range(e.shape[0]):
        for c in range(2):
            x = e[r, c]
            if x < 0:
                out[pos] = 45  # '-'
                pos += 1
                x = -x
            k = 0
            while True:
                tmp[k] = 48 + x % 10
                k += 1
                x //= 10
                if x == 0:
                    break
            for t in range(k - 1, -1, -1):
                out[pos] = tmp[t]
                pos += 1
            out[pos] = 32 if c == 0 else 10
            pos += 1
    return out[:pos]


# ------------------------------------------------------------------------------------------
# xoshiro256** (Blackman & Vigna): a small, fast generator whose whole state is four uint64 in
# an array, so a run can save it in a checkpoint and resume bit-for-bit.
@njit(cache=True, inline="always")
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@njit(cache=True)
def rng_seed(seed):
    """A fresh xoshiro256** state (uint64[4]) from an integer seed, via splitmix64."""
    s = np.empty(4, dtype=np.uint64)
    z = np.uint64(seed & 0x7FFFFFFFFFFFFFFF) ^ np.uint64(0x5DEECE66D)
    for i in range(4):
        z += np.uint64(0x9E3779B97F4A7C15)
        x = z
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        s[i] = x ^ (x >> np.uint64(31))
    return s


@njit(cache=True)
def rng_next(s):
    """Next 64 random bits; advances the state ``s`` in place."""
    result = _rotl(s[1] * np.uint64(5), 7) * np.uint64(9)
    t = s[1] << np.uint64(17)
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = _rotl(s[3], 45)
    return result


@njit(cache=True)
def rng_random(s):
    """Uniform float in [0, 1) with 53 random bits."""
    return np.float64(rng_next(s) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def rng_below(s, k):
    """Uniform integer in [0, k) for 1 <= k < 2**53."""
    return np.int64(rng_random(s) * k)
