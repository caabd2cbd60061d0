"""Circulant start graphs: the best circulant graph C_n(S) that a quick seeded search finds.

A circulant graph ``C_n(S)`` joins every vertex ``v`` to ``v + s`` and ``v - s`` (mod ``n``)
for each generator ``s`` in ``S`` (``s = n/2`` adds one edge, not two). It is a Cayley graph
of the cyclic group Z_n: vertex-transitive, so one breadth-first search from vertex 0 scores
it (diameter = eccentricity of 0, total = ``n * (sum of distances from 0) / 2``), and it is
invariant under every rotation, so it is g-symmetric for every ``g`` dividing ``n``. As a
start it gives the search a regular, vertex-transitive, structured graph with the smallest
diameter among the circulant graphs of its degree that the search scores; it is not a better
scored start than a random graph: with ``k`` generators at most ``sum_i 2^i C(k,i) C(R,i)``
vertices lie within distance ``R`` (a polynomial in ``R``, where a random graph's balls grow
like ``(d-1)^R``), so beyond small ``n`` a random graph has the smaller diameter and ASPL.

How the generators are found (compiled, deterministic for a seed on any machine):

1. ``S`` holds ``d // 2`` generators from ``1 .. (n-1)//2``, and ``n/2`` as well when ``d`` is
   odd and ``n`` even (every degree ``d``). With ``n`` and ``d`` both odd every degree is
   ``d - 1``: a circulant graph is regular and no ``d``-regular graph has an odd ``n * d``.
2. Random restarts, each a local search that replaces one generator by a random unused value
   and keeps the change when the pair ``(diameter, sum of distances from 0)`` does not get
   worse; a restart ends after a run of changes that did not help. Candidates whose
   generators and ``n`` have a common divisor are disconnected and skipped unscored.
3. A candidate is scored by one level-by-level search from vertex 0, stopped as soon as its
   diameter exceeds the current one: on a bit vector of the ``n`` vertices (a level ORs the
   vector rotated by each ``±s``) while the diameter is small, on a queue of vertices when it
   is large. The search ends after ``tries`` restarts or once its work (bit-vector words or
   visited edges) passes ``work``, a count, not a time, so the result is the same everywhere.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from golf.errors import GolfError
from golf.graph import Graph
from golf.kernels.bits import popcount
from golf.kernels.rng import rng_below, rng_seed

__all__ = ["Circulant", "circulant_graph", "find_circulant", "circulant_score",
           "circulant_shape"]

WORK = 1_000_000_000  # default work budget: ~1-2 s of search at n = 10^6, d = 32
TRIES = 16            # default number of restarts
BITS_BELOW = 64       # score on bit vectors while the diameter stays below this
_ONE = np.uint64(1)


# -- scoring: one search from vertex 0 -----------------------------------------------------
@njit(cache=True)
def _rotate_or(src, dst, s, n, words):
    """``dst |= src`` rotated by ``s`` (bit ``v`` moves to ``(v + s) mod n``); ``src`` holds
    a copy of its first 64 bits after bit ``n - 1`` (see :func:`_wrap`). Two runs of words,
    before and after the source wraps, each with one shift."""
    p, w = n - s, 0  # p: the source bit of dst word w's first bit
    while w < words:
        run = min(words - w, (n - p + 63) >> 6)
        q, r = p >> 6, p & 63
        if r == 0:
            for j in range(run):
                dst[w + j] |= src[q + j]
        else:
            lo, hi = np.uint64(r), np.uint64(64 - r)
            for j in range(run):
                dst[w + j] |= (src[q + j] >> lo) | (src[q + j + 1] << hi)
        w += run
        p += 64 * run - n


@njit(cache=True)
def _wrap(bits, n, words):
    """Clear the bits past ``n - 1`` of the last word and count the set bits; then copy bits
    ``0..63`` after bit ``n - 1``, so that any 64 cyclic bits can be read from two neighbouring
    words. Returns the count."""
    last = n - 64 * (words - 1)
    if last < 64:
        bits[words - 1] &= (_ONE << np.uint64(last)) - _ONE
    count = 0
    for w in range(words):
        count += popcount(bits[w])
    w0 = bits[0]
    q, r = n >> 6, n & 63
    if r == 0:
        bits[q] = w0
    else:
        bits[q] = (bits[q] & ((_ONE << np.uint64(r)) - _ONE)) | (w0 << np.uint64(r))
        bits[q + 1] = w0 >> np.uint64(64 - r)
    return count


@njit(cache=True)
def _score_bits(n, gens, cap, cur, nxt):
    """``(diameter, sum of distances from 0, work)`` by bit-vector levels; diameter ``-1``
    when disconnected, ``cap + 1`` (sum -1) when the diameter exceeds ``cap``."""
    words = (n + 63) >> 6
    cur[: words + 1] = 0
    cur[0] = _ONE
    _wrap(cur, n, words)
    reached, level, total, work = 1, 0, 0, 0
    while reached < n:
        if level >= cap:
            return cap + 1, -1, work
        nxt[: words + 1] = cur[: words + 1]
        for s in gens:
            _rotate_or(cur, nxt, s, n, words)
            work += words
            if 2 * s != n:
                _rotate_or(cur, nxt, n - s, n, words)
                work += words
        count = _wrap(nxt, n, words)
        if count == reached:
            return -1, -1, work
        level += 1
        total += (count - reached) * level
        reached = count
        cur, nxt = nxt, cur
    return level, total, work


@njit(cache=True)
def _score_queue(n, gens, cap, dist, queue):
    """As :func:`_score_bits`, by a queue of vertices (``dist`` and ``queue`` hold ``n``);
    work counts visited edges, three each."""
    dist[:] = -1
    dist[0] = 0
    queue[0] = 0
    head, tail, total, work = 0, 1, 0, 0
    while head < tail < n:
        v = queue[head]
        head += 1
        if dist[v] >= cap:
            return cap + 1, -1, work
        for s in gens:
            up, down = v + s, v - s
            for u in (up - n if up >= n else up, down + n if down < 0 else down):
                if dist[u] < 0:
                    dist[u] = dist[v] + 1
                    total += dist[u]
                    queue[tail] = u
                    tail += 1
        work += 3 * len(gens)  # a visited edge costs about three bit-vector words
    if tail < n:
        return -1, -1, work
    return dist[queue[n - 1]], total, work


@njit(cache=True)
def _score(n, gens, cap, use_bits, buf_a, buf_b):
    if use_bits:
        return _score_bits(n, gens, cap, buf_a, buf_b)
    return _score_queue(n, gens, cap, buf_a.view(np.int64), buf_b.view(np.int64))


# -- the search --------------------------------------------------------------------------
@njit(cache=True)
def _gcd(a, b):
    while b:
        a, b = b, a % b
    return a


@njit(cache=True)
def _connected(n, gens):
    g = n
    for s in gens:
        g = _gcd(g, s)
    return g == 1


@njit(cache=True)
def _draw(gens, k, h, used, st):
    """``k`` distinct random generators from ``1 .. h`` into ``gens[:k]``; ``used`` marks them."""
    used[:] = False
    for i in range(k):
        s = 1 + rng_below(st, h)
        while used[s]:
            s = 1 + rng_below(st, h)
        used[s] = True
        gens[i] = s


@njit(cache=True)
def _better(d1, t1, d0, t0):
    """``(d1, t1) < (d0, t0)`` for connected scores (diameter >= 0)."""
    return d1 >= 0 and (d0 < 0 or d1 < d0 or (d1 == d0 and t1 < t0))


@njit(cache=True)
def _climb(n, gens, k, h, used, st, score, patience, budget, use_bits, a, b):
    """Local search from ``gens``: replace one generator by a random unused value, keep it if
    the score does not get worse. Returns ``(diameter, sum, work)`` of the final ``gens``."""
    d0, t0, spent, fails = score[0], score[1], 0, 0
    while fails < patience and spent < budget:
        i = rng_below(st, k)
        old, new = gens[i], 1 + rng_below(st, h)
        fails += 1
        if used[new]:
            continue
        gens[i] = new
        if not _connected(n, gens):
            gens[i] = old
            continue
        d1, t1, w = _score(n, gens, d0, use_bits, a, b)
        spent += w
        if d1 < 0 or _better(d0, t0, d1, t1):
            gens[i] = old
            continue
        if _better(d1, t1, d0, t0):
            fails = 0
        used[old], used[new] = False, True
        d0, t0 = d1, t1
    return d0, t0, spent


@njit(cache=True)
def _search(n, k, half, seed, tries, work, patience):
    """The best generator set of ``tries`` restarts within ``work``; returns
    ``(generators, diameter, sum of distances from 0)``."""
    h = (n - 1) // 2
    st = rng_seed(seed)
    gens = np.empty(k + half, dtype=np.int64)
    if half:
        gens[k] = n // 2
    best, best_d, best_t = gens.copy(), -1, -1
    used = np.zeros(h + 1, dtype=np.bool_)
    a = np.zeros(max((n + 63) // 64 + 1, n), dtype=np.uint64)
    b = np.zeros_like(a)
    use_bits, spent, score = False, 0, np.empty(2, dtype=np.int64)
    for _ in range(tries):
        if spent >= work:
            break
        _draw(gens, k, h, used, st)
        while not _connected(n, gens):
            _draw(gens, k, h, used, st)
        d0, t0, w = _score(n, gens, n, use_bits, a, b)
        spent += w
        if best_d < 0:  # the first start's diameter picks the scorer for the rest
            use_bits = d0 < BITS_BELOW
        score[0], score[1] = d0, t0
        d0, t0, w = _climb(n, gens, k, h, used, st, score, patience, work - spent, use_bits,
                           a, b)
        spent += w
        if _better(d0, t0, best_d, best_t):
            best[:] = gens
            best_d, best_t = d0, t0
    return best, best_d, best_t


@njit(cache=True)
def _rows(n, m, d, offsets):
    """Base rows ``0 .. m-1`` of width ``d``: row ``i`` holds ``(i + o) mod n`` for the sorted
    ``offsets`` in ascending order (the ones that wrap past ``n`` first), then ``-1``."""
    adj = np.full((m, d), -1, dtype=np.int32)
    size = len(offsets)
    for i in range(m):
        cut = np.searchsorted(offsets, n - i)  # offsets[cut:] wrap
        for j in range(size):
            o = offsets[(cut + j) % size]
            adj[i, j] = i + o - n if o >= n - i else i + o
    return adj


# -- Python side ---------------------------------------------------------------------------
class Circulant(NamedTuple):
    """A circulant graph ``C_n(S)`` and its exact score.

    ``generators`` are sorted, each in ``1 .. n//2`` (``n/2`` gives one edge a vertex);
    ``total`` is the sum of the distances over all ``n(n-1)/2`` pairs.
    """

    n: int
    generators: tuple
    diameter: int
    total: int

    @property
    def degree(self) -> int:
        return sum(1 if 2 * s == self.n else 2 for s in self.generators)

    @property
    def aspl(self) -> float:
        return self.total / math.comb(self.n, 2) if self.n > 1 else 0.0

    def label(self, show: int = 12) -> str:
        """``C_n(s1, s2, ...)``, the generators after the first ``show`` counted, not listed."""
        gens = [str(s) for s in self.generators]
        if len(gens) > show:
            gens = gens[:show] + [f"... ({len(gens)} generators)"]
        return f"C_{self.n}({', '.join(gens)})"

    def graph(self, g: int = 1, d: int | None = None) -> Graph:
        """The graph as a g-symmetric :class:`~golf.graph.Graph` with rows of width ``d``
        (default: its degree): base vertex ``i`` has the neighbours ``i ± s mod n``."""
        n, d = self.n, self.degree if d is None else int(d)
        if g < 1 or n % g:
            raise GolfError(f"g={g} must be a positive divisor of n={n}")
        if self.degree > d:
            raise GolfError(f"circulant graph of degree {self.degree} does not fit d={d}")
        gens = np.array(self.generators, dtype=np.int64)
        offsets = np.unique(np.concatenate([gens, n - gens]))
        return Graph(n, d, g, _rows(n, n // g, d, offsets))


def _check_shape(n: int, d: int) -> None:
    if n < 1:
        raise GolfError(f"n must be >= 1, got {n}")
    if d < 0:
        raise GolfError(f"d must be >= 0, got {d}")
    if n > 1 and (d == 0 or (d == 1 and n > 2)):
        raise GolfError(f"no connected graph has n={n} vertices and degree <= {d}")


def circulant_shape(n: int, d: int) -> tuple[int, bool]:
    """``(k, half)``: a circulant graph on ``n`` vertices of the largest degree ``<= d`` has
    ``k`` generators below ``n/2``, and ``n/2`` as well when ``half`` (odd degree, even ``n``).
    Its degree is ``min(d, n-1)``, less one when that and ``n`` are odd."""
    n, d = int(n), int(d)
    _check_shape(n, d)
    dd = min(d, n - 1)
    if dd % 2 and n % 2:
        dd -= 1
    return dd // 2, bool(dd % 2)


def circulant_score(n: int, generators) -> tuple[int, int] | None:
    """``(diameter, total)`` of ``C_n(generators)`` from one search from vertex 0 (total =
    ``n * (sum of distances from 0) / 2``), or None when it is disconnected."""
    gens = _normalise(int(n), generators)
    buf = np.zeros(max(n, 2), dtype=np.uint64)
    diameter, total, _ = _score(n, gens, n, False, buf, buf.copy())
    return None if diameter < 0 else (int(diameter), n * int(total) // 2)


def _normalise(n: int, generators) -> np.ndarray:
    """Generators as sorted distinct values in ``1 .. n//2`` (``s`` and ``n - s`` are one)."""
    gens = sorted({min(int(s) % n, -int(s) % n) for s in generators})
    if 0 in gens:
        raise GolfError(f"a generator of C_{n}(S) must not be a multiple of n={n} (a "
                        f"self-loop), got {list(generators)}")
    return np.array(gens, dtype=np.int64)


def find_circulant(n: int, d: int, *, seed: int = 0, tries: int = TRIES,
                   work: int = WORK) -> Circulant:
    """The best circulant graph on ``n`` vertices with degree ``<= d`` (the largest degree
    :func:`circulant_shape` allows) that the seeded search of the module docstring finds.

    Raises GolfError when no connected graph of that shape exists (``d = 0`` with ``n > 1``,
    ``d = 1`` with ``n > 2``).
    """
    n, seed, tries, work = int(n), int(seed), int(tries), int(work)
    k, half = circulant_shape(n, d)
    h = (n - 1) // 2
    if tries < 1 or work < 1:
        raise GolfError(f"tries and work must be >= 1, got {tries} and {work}")
    if n == 1 or k == h or (k == 1 and not half):  # nothing to choose (up to isomorphism)
        gens = list(range(1, k + 1)) + ([n // 2] if half else [])
    else:
        found, _, _ = _search(n, k, int(half), seed, tries, work, 8 * k + 32)
        gens = found.tolist()
    gens = tuple(sorted(gens))
    score = circulant_score(n, gens) if n > 1 else (0, 0)
    return Circulant(n, gens, *score)


def circulant_graph(n: int, d: int, g: int = 1, *, seed: int = 0, tries: int = TRIES,
                    work: int = WORK, generators=None) -> Graph:
    """A connected circulant graph ``C_n(S)`` as a g-symmetric :class:`~golf.graph.Graph`.

    Parameters
    ----------
    n, d, g : int
        Vertices, largest degree (the row width), symmetry (``g`` divides ``n``; a circulant
        graph is g-symmetric for every such ``g``).
    seed : int
        Seed of the generator search (:func:`find_circulant`).
    tries, work : int
        Restarts and work budget of the search (a count, so the result does not depend on
        the machine).
    generators : iterable of int, optional
        Take ``S`` as given instead of searching.

    Returns
    -------
    Graph
        Every degree ``min(d, n-1)``, or one less when that and ``n`` are odd.

    Raises
    ------
    GolfError
        ``g`` does not divide ``n``; no connected graph of that shape exists (``d = 0`` with
        ``n > 1``, ``d = 1`` with ``n > 2``); given generators that make a self-loop, more
        than ``d`` edges a vertex or a disconnected graph.

    Examples
    --------
    >>> import golf
    >>> graph = golf.circulant_graph(64, 4, g=8, seed=1)
    >>> graph.n, graph.g, set(graph.degrees().tolist())
    (64, 8, {4})
    >>> golf.evaluate(graph).diameter
    6
    >>> golf.circulant_graph(12, 3, generators=[1, 6]).num_edges
    18
    """
    n, d, g = int(n), int(d), int(g)
    if g < 1 or n < 1 or n % g:
        raise GolfError(f"g={g} must be a positive divisor of n={n}")
    if generators is None:
        return find_circulant(n, d, seed=seed, tries=tries, work=work).graph(g, d)
    gens = tuple(_normalise(n, generators).tolist())
    score = circulant_score(n, gens)
    if score is None:
        raise GolfError(f"C_{n}{set(gens)} is disconnected (the generators and n={n} have a "
                        f"common divisor)")
    return Circulant(n, gens, *score).graph(g, d)
