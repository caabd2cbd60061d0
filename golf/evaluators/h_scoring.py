"""Exact h-scores of a host-switch graph on the CPU: h-diameter, h-total, h-ASPL.

Distances between hosts follow from the switch graph alone. Two hosts on one switch are 2
hops apart (host, switch, host); hosts on switches ``a != b`` are ``dist(a, b) + 2`` apart,
where ``dist`` is the hop distance in the switch graph. With ``h_a`` hosts on switch ``a``,
the sum over the ``C(n, 2)`` unordered host pairs is::

    total = 2 * sum_a C(h_a, 2) + sum_{a<b} h_a h_b (dist(a, b) + 2)
          = 2 * C(n, 2) + sum_{a<b} h_a h_b dist(a, b)

since ``sum_a C(h_a, 2) + sum_{a<b} h_a h_b = C(n, 2)``. The h-ASPL is ``total / C(n, 2)``.

**The weighted bit matrix.** :func:`h_score` finds ``P = sum_{a != b} h_a h_b dist(a, b)``
(ordered pairs, twice the sum above) with the bit matrix of golf's ``bitset`` backend
(:mod:`golf.evaluators.bitset`) on the switch graph: bit ``(v, c)`` says "the ``c``-th
switch with hosts reaches switch ``v`` within ``L`` hops". The rows are all ``s`` switches
(paths go through switches without hosts), the columns only the ``k`` switches that hold
hosts, and a level is ``B[v] = A[v] | OR over the neighbours u of v of A[u]``
(:func:`golf.kernels.bits.or_row`). As ``dist(a, b)`` is the number of levels ``L >= 0``
after which ``(b, a)`` is still unreached::

    P = sum over L >= 0 of U_L,    U_L = sum over the rows b with hosts of h_b * (H - R_b(L))

where ``H`` is the sum of the columns' host counts and ``R_b(L)`` the host-count-weighted
popcount of row ``b`` after level ``L``. A row's weight is one multiplication; the columns
are sorted by host count, so that each 64-bit word holds one run of equal weights (or a
few), and ``R_b`` is a popcount times a weight per run (:func:`weight_runs`). Rows without
hosts are ORed but never counted. The columns are cut into chunks of words, each run through
all its levels on its own; with several threads, each thread takes whole chunks.

The h-diameter is ``2 +`` the largest ``dist(a, b)`` over switches ``a != b`` that hold
hosts: ``2 +`` the first ``L`` with ``U_L = 0`` over all chunks (2 when every host is on one
switch, 0 for a single host). A host's eccentricity over the other hosts is ``2 +`` its
switch's largest such distance (0 with a second host on the same switch), which is one more
than the last level after which its switch's row is not full, distances being symmetric. The
*peripheral* hosts are those whose eccentricity is the h-diameter. A row's fullness needs
every column, so a part of the columns (an MPI rank's, :mod:`golf.evaluators.h_bitset`)
counts by column instead: one more than the last level after which the column has not
reached every switch with hosts (the AND of those rows), whole within the part. When a level
sets no new bit while ``U_L > 0``, two hosts cannot reach each other: the graph is
disconnected, reported as every golf evaluator reports it, a
:class:`golf.evaluators.base.Score` with status ``DISCONNECTED`` and no diameter or total. Switches without hosts, connected or not, change
nothing but the paths.

Everything is an integer, in int64: ``U_L <= n^2`` and ``P < n^2 * s``.

:func:`switch_sums` is the plain alternative, one BFS per switch with hosts; it serves
:func:`hosts_reached` (one BFS).
"""

from __future__ import annotations

import functools

import numpy as np
from numba import njit, prange

from golf.errors import GolfError
from golf.evaluators.base import DISCONNECTED, OK, Score, cpu_threads
from golf.evaluators.bitset import choose_chunk_words
from golf.hostswitch.network import HostSwitchGraph
from golf.kernels.bits import aligned_zeros, or_row, popcount

__all__ = ["h_score", "hosts_reached", "plan_chunks", "switch_sums", "weight_runs",
           "HostSwitchScores", "recheck", "rotation_fault", "largest_rotation", "rotated_score"]

# below this many row words x radix per level, one thread: starting a parallel region costs
# more than the second thread saves
SMALL_WORK = 1 << 15
# each thread takes chunks of at least this many words: narrower rows cost more per word
# than a second thread saves (measured on 2 cores: h8208s330r48, 6 words, 54 us in one
# chunk, 88 us in two chunks of 3; h1024s1024r5, 16 words, 298 us on one thread, 185 us on
# two of 8 words each)
WORDS_PER_THREAD = 8


# ------------------------------------------------------------------------------------------
# kernels
@njit(cache=True)
def weight_runs(weights):
    """The runs of equal weights in each 64-bit word of the columns.

    Parameters
    ----------
    weights : int64 ``(k,)``
        The weight of each column; column ``c`` is bit ``c % 64`` of word ``c // 64``.
        Sorted, each word holds one run or a few.

    Returns
    -------
    ptr : int64 ``(words + 1,)``
        Word ``w``'s runs are ``ptr[w] .. ptr[w+1] - 1``.
    mask : uint64 ``(runs,)``
        The bits of each run within its word.
    weight : int64 ``(runs,)``
        The weight of each run's columns.
    word : int64 ``(runs,)``
        The word of each run.
    """
    k = weights.shape[0]
    words = (k + 63) // 64
    ptr = np.zeros(words + 1, dtype=np.int64)
    mask = np.zeros(k, dtype=np.uint64)
    weight = np.zeros(k, dtype=np.int64)
    word = np.zeros(k, dtype=np.int64)
    runs = 0
    for w in range(words):
        c = w * 64
        end = min(c + 64, k)
        while c < end:
            bits = np.uint64(0)
            e = c
            while e < end and weights[e] == weights[c]:
                bits |= np.uint64(1) << np.uint64(e & 63)
                e += 1
            mask[runs] = bits
            weight[runs] = weights[c]
            word[runs] = w
            runs += 1
            c = e
        ptr[w + 1] = runs
    return ptr, mask[:runs], weight[:runs], word[:runs]


@njit(cache=True, inline="always")
def _row_reached(M, b, w0, q0, q1, mask, weight, word):
    """``R_b``: the host-count-weighted popcount of row ``b`` over the chunk's runs
    ``[q0, q1)`` (the chunk's first word ``w0``)."""
    got = 0
    for q in range(q0, q1):
        got += weight[q] * popcount(M[b, word[q] - w0] & mask[q])
    return got


@njit(cache=True)
def _unreached(M, w0, q0, q1, mask, weight, word, hrows, hcount, full, level, ecc):
    """``U_L`` of the chunk whose first word is ``w0`` and whose runs are ``[q0, q1)``, ``M``
    its matrix after level ``L = level``; ``ecc[i]`` (for row ``hrows[i]``) is raised to
    ``level + 1`` where that row is not full."""
    total = 0
    for i in range(hrows.shape[0]):
        got = _row_reached(M, hrows[i], w0, q0, q1, mask, weight, word)
        if got < full:
            total += hcount[i] * (full - got)
            if ecc[i] <= level:
                ecc[i] = level + 1
    return total


@njit(cache=True)
def _unreached_by_column(M, w0, c1, q0, q1, mask, weight, word, hrows, hcount, full, level,
                         ecc, andw):
    """:func:`_unreached` with the eccentricities by column: ``ecc[c]`` (column ``c < c1``)
    is raised to ``level + 1`` where that column has not reached every host row (``andw``:
    scratch of the chunk's width, the AND of those rows), which the chunk alone decides."""
    total = 0
    cw = M.shape[1]
    for w in range(cw):
        andw[w] = np.uint64(0xFFFFFFFFFFFFFFFF)
    for i in range(hrows.shape[0]):
        b = hrows[i]
        got = _row_reached(M, b, w0, q0, q1, mask, weight, word)
        if got < full:
            total += hcount[i] * (full - got)
            for w in range(cw):
                andw[w] &= M[b, w]
    if total > 0:
        for c in range(w0 * 64, c1):
            if (andw[(c >> 6) - w0] >> np.uint64(c & 63)) & np.uint64(1) == 0:
                if ecc[c] <= level:
                    ecc[c] = level + 1
    return total


@njit(cache=True)
def _chunk(adj, cols, w0, w1, runs, hrows, hcount, bufA, bufB, counts, ecc, out, by_column):
    """All levels for the columns of words ``[w0, w1)``.

    ``runs`` is :func:`weight_runs` of the columns' weights; ``bufA``/``bufB`` flat scratch of
    ``s * (w1 - w0)`` words at least, ``counts`` 8 uint64 of scratch. Writes the chunk's part
    of ``P`` to ``out[0]`` and the status to ``out[1]``, and raises ``ecc`` to the host rows'
    eccentricities over the chunk's columns, or (``by_column``) to the chunk's columns' over
    the host rows (:func:`_unreached_by_column`): a switch's either way, distances being
    symmetric."""
    ptr, mask, weight, word = runs
    s = adj.shape[0]
    k = cols.shape[0]
    cw = w1 - w0
    A = bufA[: s * cw].reshape(s, cw)
    B = bufB[: s * cw].reshape(s, cw)
    for v in range(s):
        for w in range(cw):
            A[v, w] = 0
    c1 = min(w1 * 64, k)
    for c in range(w0 * 64, c1):
        A[cols[c], (c >> 6) - w0] |= np.uint64(1) << np.uint64(c & 63)
    q0, q1 = ptr[w0], ptr[w1]
    full = 0
    for q in range(q0, q1):
        full += weight[q] * popcount(mask[q])
    level = 0
    andw = np.empty(cw if by_column else 0, dtype=np.uint64)
    if by_column:
        left = _unreached_by_column(A, w0, c1, q0, q1, mask, weight, word, hrows, hcount,
                                    full, level, ecc, andw)
    else:
        left = _unreached(A, w0, q0, q1, mask, weight, word, hrows, hcount, full, level, ecc)
    pairs = left
    bits = c1 - w0 * 64
    while left > 0:
        level += 1
        now = 0
        if cw == 1:  # one word a row: a plain loop (LLVM gathers across the neighbours)
            for v in range(s):
                acc = A[v, 0]
                for j in range(adj.shape[1]):
                    u = adj[v, j]
                    if u >= 0:
                        acc |= A[u, 0]
                B[v, 0] = acc
                now += popcount(acc)
        else:
            for lane in range(8):
                counts[lane] = 0
            for v in range(s):
                or_row(A, B, v, adj, v, 0, s, counts)
            for lane in range(8):
                now += np.int64(counts[lane])
        A, B = B, A
        if now == bits:  # no new bit while a host pair is unreached
            out[0] = 0
            out[1] = DISCONNECTED
            return
        bits = now
        if by_column:
            left = _unreached_by_column(A, w0, c1, q0, q1, mask, weight, word, hrows, hcount,
                                        full, level, ecc, andw)
        else:
            left = _unreached(A, w0, q0, q1, mask, weight, word, hrows, hcount, full, level,
                              ecc)
        pairs += left
    out[0] = pairs
    out[1] = OK


@njit(cache=True)
def _chunks_in_order(adj, cols, base, words, cw, c_lo, c_hi, runs, hrows, hcount, bufA,
                     bufB, counts, ecc, res, by_column):
    """Chunks ``[c_lo, c_hi)`` of ``cw`` words from word ``base`` on (below ``words``) one
    after another; stops at a disconnected one (the rest keep ``res`` as given)."""
    for c in range(c_lo, c_hi):
        _chunk(adj, cols, base + c * cw, min(base + (c + 1) * cw, words), runs, hrows, hcount,
               bufA, bufB, counts, ecc, res[c], by_column)
        if res[c, 1] != OK:
            return


@njit(cache=True, parallel=True)
def _chunks_parallel(adj, cols, base, words, cw, nchunks, runs, hrows, hcount, bufs, counts,
                     ecc, res, by_column):
    """``T = bufs.shape[0]`` threads, each a contiguous run of chunks with its own buffers,
    counts and ``ecc[t]``."""
    T = bufs.shape[0]
    for t in prange(T):
        _chunks_in_order(adj, cols, base, words, cw, nchunks * t // T, nchunks * (t + 1) // T,
                         runs, hrows, hcount, bufs[t, 0], bufs[t, 1], counts[t], ecc[t], res,
                         by_column)


@njit(cache=True)
def _columns(host_switch, s):
    """The switches with hosts and their host counts, ``(hrows, hcount)`` in switch order,
    and the columns: those switches sorted by host count (stably, by counting), with their
    counts, ``(cols, weights)``."""
    counts = np.zeros(s, dtype=np.int64)
    for h in range(host_switch.shape[0]):
        counts[host_switch[h]] += 1
    k = 0
    top = 0
    for a in range(s):
        if counts[a] > 0:
            k += 1
            top = max(top, counts[a])
    hrows = np.empty(k, dtype=np.int64)
    hcount = np.empty(k, dtype=np.int64)
    start = np.zeros(top + 2, dtype=np.int64)
    i = 0
    for a in range(s):
        if counts[a] > 0:
            hrows[i] = a
            hcount[i] = counts[a]
            start[counts[a] + 1] += 1
            i += 1
    for c in range(1, top + 2):
        start[c] += start[c - 1]
    cols = np.empty(k, dtype=np.int64)
    weights = np.empty(k, dtype=np.int64)
    for i in range(k):
        c = hcount[i]
        cols[start[c]] = hrows[i]
        weights[start[c]] = c
        start[c] += 1
    return hrows, hcount, cols, weights


@njit(cache=True)
def _balance(words, cw, workers):
    """Chunks of at most ``cw`` words over ``words`` words, as many as a multiple of
    ``workers`` where the words allow: ``(chunk width, chunks, workers that get one)``."""
    cw = max(1, min(cw, words))
    nchunks = (words + cw - 1) // cw
    if workers > 1:
        nchunks = min(words, (nchunks + workers - 1) // workers * workers)
        cw = (words + nchunks - 1) // nchunks
        nchunks = (words + cw - 1) // cw
    return cw, nchunks, min(workers, nchunks)


@njit(cache=True)
def score_columns(adj, host_switch, cw, balance, bufs, scratch, w0, w1):
    """The scoring of a graph given by its switch rows and each host's switch: the columns
    (:func:`_columns`), chunks of at most ``cw`` words (evened out over the
    ``bufs.shape[0]`` workers with ``balance``), and the chunks on those workers. Returns
    ``(status, P, the largest switch eccentricity, the peripheral hosts)`` of the column
    words ``[w0, w1)`` (``w1 < 0``: to the last; an MPI rank's share), whose parts add up as
    every backend's do (:func:`golf.kernels.merge.merge_parts`): ``P`` sums, the largest
    eccentricity wins, and the peripheral hosts are those of the parts at it (-1 and none for
    a range without columns). All the columns count eccentricities by host row (the cheaper
    way, the workers' merged); a part of them by column, each whole within the part."""
    hrows, hcount, cols, weights = _columns(host_switch, adj.shape[0])
    k = cols.shape[0]
    words = (k + 63) // 64
    e1 = words if (w1 < 0 or w1 > words) else w1
    if w0 >= e1:
        return OK, 0, -1, 0
    span = e1 - w0
    by_column = w0 > 0 or e1 < words
    if balance:
        cw, nchunks, workers = _balance(span, cw, bufs.shape[0])
    else:
        cw = max(1, min(cw, span))
        nchunks = (span + cw - 1) // cw
        workers = min(bufs.shape[0], nchunks)
    runs = weight_runs(weights)
    ecc = np.zeros((workers, k), dtype=np.int64)
    res = np.zeros((nchunks, 2), dtype=np.int64)
    for c in range(nchunks):
        res[c, 1] = OK
    if workers == 1:
        _chunks_in_order(adj, cols, w0, e1, cw, 0, nchunks, runs, hrows, hcount, bufs[0, 0],
                         bufs[0, 1], scratch[0], ecc[0], res, by_column)
    else:
        _chunks_parallel(adj, cols, w0, e1, cw, nchunks, runs, hrows, hcount, bufs[:workers],
                         scratch[:workers], ecc, res, by_column)
    pairs = 0
    for c in range(nchunks):
        if res[c, 1] != OK:
            return DISCONNECTED, 0, 0, 0
        pairs += res[c, 0]
    top = 0
    for i in range(k):  # by column, each column's whole is in one worker's ecc (the others 0)
        for t in range(1, workers):
            ecc[0, i] = max(ecc[0, i], ecc[t, i])
    c0, c1 = (w0 * 64, min(e1 * 64, k)) if by_column else (0, k)
    for i in range(c0, c1):
        top = max(top, ecc[0, i])
    peripheral = 0
    for i in range(c0, c1):
        if ecc[0, i] == top:
            peripheral += weights[i] if by_column else hcount[i]
    return OK, pairs, top, peripheral


@njit(cache=True, parallel=True)
def switch_sums(adj, counts, sources, wsum, far, reached):
    """BFS in the switch graph from each switch of ``sources``, weighted by host counts.

    Parameters
    ----------
    adj : int32 ``(s, r)``
        The switch graph's rows (-1: a free slot).
    counts : int64 ``(s,)``
        Hosts on each switch.
    sources : int64 ``(k,)``
        The switches to start from (those with hosts).
    wsum, far, reached : int64 ``(k,)``, written
        For source ``t`` at switch ``a``: ``W_a = sum_b counts[b] * dist(a, b)`` over the
        switches it reaches; the largest ``dist(a, b)`` to a switch ``b != a`` with hosts
        that it reaches (0 if none); and the number of hosts on the switches it reaches,
        its own included.
    """
    s = adj.shape[0]
    for t in prange(sources.shape[0]):
        a = sources[t]
        dist = np.full(s, -1, dtype=np.int64)
        queue = np.empty(s, dtype=np.int64)
        dist[a] = 0
        queue[0] = a
        head, tail = 0, 1
        w, hosts = 0, counts[a]
        top = 0
        while head < tail:
            v = queue[head]
            head += 1
            dv = dist[v] + 1
            for j in range(adj.shape[1]):
                u = adj[v, j]
                if u >= 0 and dist[u] < 0:
                    dist[u] = dv
                    queue[tail] = u
                    tail += 1
                    if counts[u] > 0:
                        w += counts[u] * dv
                        hosts += counts[u]
                        top = dv  # BFS order: the last host switch found is the farthest
        wsum[t] = w
        far[t] = top
        reached[t] = hosts


# ------------------------------------------------------------------------------------------
# planning and the call
@functools.lru_cache(maxsize=64)
def plan_chunks(s: int, r: int, k: int, threads: int,
                chunk_words: int | None = None) -> tuple[int, int, int]:
    """How :func:`h_score` cuts the ``k`` columns over ``s`` rows of radix ``r``.

    Returns
    -------
    (words, chunk_words, workers)
        ``words = ceil(k / 64)``; the chunk width: the cache rule of
        :func:`golf.evaluators.bitset.choose_chunk_words`, narrowed so that the chunks split
        evenly over the workers; the threads, each taking whole chunks: ``threads``, but no
        more than one per ``WORDS_PER_THREAD`` words, and one for a small graph
        (``s * words * r < SMALL_WORK``). A
        ``chunk_words`` given is taken as it is (at most ``words``), with ``threads`` capped
        by the chunks only.
    """
    words = max(1, -(-k // 64))
    threads = max(1, int(threads))
    if chunk_words is not None:
        cw = max(1, min(int(chunk_words), words))
        return words, cw, min(threads, -(-words // cw))
    workers = max(1, min(threads, words // WORDS_PER_THREAD))
    if s * words * max(r, 1) < SMALL_WORK:
        workers = 1
    cw, _, workers = _balance(words, choose_chunk_words(s, words, workers), workers)
    return words, int(cw), int(workers)


_BUFFERS: dict = {}


def buffers(workers: int, per: int):
    """Each worker's two matrices (``per`` words each, page-aligned) and its 8 counters
    (a cache line of its own): kept from the last call of the same shape, as a search scores
    graph after graph of one size."""
    key = (workers, per)
    if key not in _BUFFERS:
        _BUFFERS.clear()
        _BUFFERS[key] = (aligned_zeros((workers, 2, per), np.uint64),
                         aligned_zeros((workers, 8), np.uint64, align=64))
    return _BUFFERS[key]


def h_score(net: HostSwitchGraph, threads: int | None = None,
            chunk_words: int | None = None) -> Score:
    """The exact h-scores of a host-switch graph (module docstring for the method).

    Parameters
    ----------
    net : HostSwitchGraph
    threads : int, optional
        The most threads (default: ``NUMBA_NUM_THREADS``, else the usable cores); a small
        graph runs on one.
    chunk_words : int, optional
        The column chunk width in 64-bit words (default: :func:`plan_chunks`).

    Returns
    -------
    Score
        ``n`` the hosts, ``diameter`` the h-diameter, ``total`` the sum of distances over
        the unordered host pairs (``aspl = total / C(n, 2)``), ``peripheral`` the hosts
        whose eccentricity is the h-diameter; status ``DISCONNECTED`` (no diameter, no
        total) when some two hosts cannot reach each other.

    Examples
    --------
    >>> from golf.hostswitch import HostSwitchGraph
    >>> net = HostSwitchGraph.from_edges(4, 2, 3, [(0, 4), (1, 4), (2, 5), (3, 5), (4, 5)])
    >>> score = h_score(net)
    >>> score.diameter, score.total, score.aspl
    (3, 16, 2.6666666666666665)
    """
    n = net.n
    if n == 1:
        return Score(1, 0, 0, 1, OK)
    # planned for all s switches: the switches with hosts are at most those, and the kernel
    # evens the chunks out again over its k columns
    threads = int(threads) if threads is not None else cpu_threads()
    _, cw, workers = plan_chunks(net.s, net.r, net.s, threads, chunk_words)
    bufs, scratch = buffers(workers, -(-net.s * cw // 512) * 512)
    args = (net.switches.adj, net.host_switch, cw, chunk_words is None, bufs, scratch, 0,
            -1)
    if workers == 1:
        status, pairs, top, peripheral = score_columns(*args)
    else:
        import numba

        before = numba.get_num_threads()
        numba.set_num_threads(min(workers, numba.config.NUMBA_NUM_THREADS))
        try:
            status, pairs, top, peripheral = score_columns(*args)
        finally:
            numba.set_num_threads(before)
    if status != OK:
        return Score(n, None, None, 0, DISCONNECTED)
    return Score(n, int(top) + 2, n * (n - 1) + int(pairs) // 2, int(peripheral), OK)


def hosts_reached(net: HostSwitchGraph) -> int:
    """How many hosts host 0 reaches, itself included (``net.n``: the hosts are connected);
    one BFS over the switches."""
    counts = net.host_counts
    sources = np.array([net.host_switch[0]], dtype=np.int64)
    wsum, far, reached = (np.zeros(1, dtype=np.int64) for _ in range(3))
    switch_sums(net.switches.adj, counts, sources, wsum, far, reached)
    return int(reached[0])


class HostSwitchScores:
    """What every host-switch evaluator shares: ``n`` is the switches, ``d`` the radix,
    ``hosts`` the hosts; a merged result ``[h-diameter, 2 * h-total, peripheral hosts,
    status]`` finishes into the hosts' :class:`Score`, and the rows have the shape
    ``(switches, radix)``."""

    def finish(self, part) -> Score:
        ecc, dist_sum, n_at, status = part.tolist() if isinstance(part, np.ndarray) else part
        if status != OK:
            return Score(self.hosts, None, None, 0, status)
        return Score(self.hosts, ecc, dist_sum // 2, n_at, OK)

    def check_shape(self, graph) -> None:
        if graph.adj.shape != (self.n, self.d):
            raise GolfError(f"{self.name}: evaluator built for {self.n} switches of radix "
                            f"{self.d}, got rows of shape {graph.adj.shape}")


def rotation_fault(net, g: int) -> str | None:
    """Why turning the switches of ``net`` by ``m = s / g`` (switch ``a`` to ``a + m mod s``,
    its hosts with it) is not an automorphism of the host-switch graph, or None where it is:
    then the group of order ``g`` it generates acts on the switches and their hosts, and the
    switches ``0 .. m-1`` hold one of each orbit."""
    s = net.s
    if g < 1 or s % g:
        return f"g={g} does not divide the {s} switches"
    m = s // g
    turn = (np.arange(s) + m) % s
    counts = net.host_counts
    moved = np.flatnonzero(counts[turn] != counts)
    if len(moved):
        a = int(moved[0])
        return (f"switch {net.n + a} holds {counts[a]} hosts, switch {net.n + int(turn[a])} "
                f"(its image under the turn by {m}) {counts[turn[a]]}")
    rows = np.asarray(net.switches.adj, dtype=np.int64)
    image = np.sort(np.where(rows >= 0, (rows + m) % s, -1), axis=1)
    bad = np.flatnonzero((image != np.sort(rows[turn], axis=1)).any(axis=1))
    if len(bad):
        a = int(bad[0])
        return (f"the links of switch {net.n + a}, turned by {m}, are not those of switch "
                f"{net.n + int(turn[a])}")
    return None


def largest_rotation(net) -> int:
    """The largest ``g`` whose turn of the switches (:func:`rotation_fault`) holds (1: none):
    a divisor of the switch graph's own largest (:func:`golf.graph.detect_symmetry`; the turns
    that keep the links, and those that keep the host counts, are subgroups)."""
    from golf.graph import detect_symmetry

    top = detect_symmetry(net.switches.edges(), net.s)
    return next(g for g in range(top, 0, -1) if top % g == 0 and
                rotation_fault(net, g) is None)


def rotated_score(net, g: int = 1) -> Score:
    """The hosts' :class:`Score` of ``net`` by one plain BFS over the switches from each
    switch with hosts among the first ``s / g`` (:func:`switch_sums`): with ``g > 1`` the turn
    of :func:`rotation_fault` must hold (each switch's sums are its orbit's), and the sums of
    those switches count ``g`` times."""
    n = net.n
    counts = net.host_counts
    sources = np.flatnonzero(counts[:net.s // g] > 0).astype(np.int64)
    wsum, far, reached = (np.zeros(len(sources), dtype=np.int64) for _ in range(3))
    switch_sums(net.switches.adj, counts, sources, wsum, far, reached)
    if n > 1 and (reached < n).any():
        return Score(n, None, None, 0, DISCONNECTED)
    if n == 1:
        return Score(n, 0, 0, 1, OK)
    pairs = g * int((counts[sources] * wsum).sum())  # ordered switch pairs, weighted
    top = int(far.max())
    peripheral = g * int(counts[sources][far == top].sum())
    return Score(n, 2 + top, n * (n - 1) + pairs // 2, peripheral, OK)


def recheck(net) -> tuple:
    """``(h-diameter, h-total)`` of a host-switch graph by another method than the search's
    kernel: one plain BFS over the switches from each switch with hosts
    (:func:`rotated_score`); ``(None, None)`` when two hosts cannot reach each other."""
    score = rotated_score(net)
    return (score.diameter, score.total) if score.connected else (None, None)
