"""Random g-symmetric graphs: simple, connected, reproducible from a seed.

How it works (all in one compiled kernel, so n = 1,000,000 takes seconds):

1. Degrees: every vertex gets ``d`` (at most ``n - 1``). When ``g`` is odd and ``m*d`` is odd
   (so ``n*d`` is odd), one class of ``g`` vertices gets ``d - 1``: no graph can do better.
   When ``g`` is even, an odd slot count is absorbed by one orbit ``i -- i + n/2``.
2. Connectivity: a random g-symmetric Hamiltonian cycle is laid first. The base classes are
   visited in a random order with random rotations ("voltages") whose sum is a unit modulo
   ``g``, so the lifted cycle runs through all ``n`` vertices once. These orbits are never
   touched again, so the result is always connected.
3. The other slots are paired at random, each pair with a random voltage. A pair that would
   make a self-loop or a multi-edge is retried with other voltages, then repaired by a swap
   with a random placed orbit (the configuration model's usual fix).

Degree ``<= 1`` or complete graphs are built directly.

For a non-cyclic symmetry group (:mod:`golf.group`), :func:`random_group_graph` pairs the slots
at random with random group elements as voltages (an odd slot count takes one orbit ``i --
h*m + i`` with ``h`` an involution) and draws again until the graph is simple and connected.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from golf.errors import GolfError
from golf.graph import Graph, sort_rows
from golf.kernels.rng import rng_below, rng_seed

__all__ = ["random_graph", "random_group_graph", "target_degrees"]


@njit(cache=True)
def has_edge(adj, fill, bits, use_bits, row, val):
    if use_bits:
        return (bits[row, val >> 6] >> np.uint64(val & 63)) & np.uint64(1) != 0
    for j in range(fill[row]):
        if adj[row, j] == val:
            return True
    return False


@njit(cache=True)
def _put(adj, fill, bits, use_bits, row, val):
    adj[row, fill[row]] = val
    fill[row] += 1
    if use_bits:
        bits[row, val >> 6] |= np.uint64(1) << np.uint64(val & 63)


@njit(cache=True)
def _drop(adj, fill, bits, use_bits, row, val):
    for j in range(fill[row]):
        if adj[row, j] == val:
            fill[row] -= 1
            adj[row, j] = adj[row, fill[row]]
            adj[row, fill[row]] = -1
            break
    if use_bits:
        bits[row, val >> 6] &= ~(np.uint64(1) << np.uint64(val & 63))


@njit(cache=True)
def orbit_ends(a, b, t, n, m, g):
    """Slots of the orbit (a, b, t): row a gets x, row b gets y. t = -1 is a half orbit."""
    if t < 0:
        x = a + n // 2
        return x, x
    x = (b + t * m) % n
    y = (a - t * m) % n
    return x, y


@njit(cache=True)
def try_orbit(adj, fill, cap, bits, use_bits, a, b, t, n, m, g):
    """Place the orbit a -- b + t*m (t = -1: a -- a + n/2) if it keeps the graph simple."""
    x, y = orbit_ends(a, b, t, n, m, g)
    if t < 0:
        if fill[a] >= cap[a] or has_edge(adj, fill, bits, use_bits, a, x):
            return False
        _put(adj, fill, bits, use_bits, a, x)
        return True
    if a == b:
        if t == 0 or 2 * t == g or fill[a] + 2 > cap[a]:
            return False
        if has_edge(adj, fill, bits, use_bits, a, x) or has_edge(adj, fill, bits, use_bits, a, y):
            return False
        _put(adj, fill, bits, use_bits, a, x)
        _put(adj, fill, bits, use_bits, a, y)
        return True
    if fill[a] >= cap[a] or fill[b] >= cap[b]:
        return False
    if has_edge(adj, fill, bits, use_bits, a, x) or has_edge(adj, fill, bits, use_bits, b, y):
        return False
    _put(adj, fill, bits, use_bits, a, x)
    _put(adj, fill, bits, use_bits, b, y)
    return True


@njit(cache=True)
def remove_orbit(adj, fill, bits, use_bits, a, b, t, n, m, g):
    x, y = orbit_ends(a, b, t, n, m, g)
    _drop(adj, fill, bits, use_bits, a, x)
    if t >= 0:
        _drop(adj, fill, bits, use_bits, b, y)


@njit(cache=True)
def _place_pair(adj, fill, cap, bits, use_bits, a, b, n, m, g, st, tries):
    """Place an orbit joining classes a and b with a random voltage (or, for even g, as two
    half orbits). Returns the orbit's voltage (>= 0), -2 for two half orbits, -3 on failure."""
    for _ in range(tries):
        if g % 2 == 0 and a != b and rng_below(st, 4) == 0:
            if try_orbit(adj, fill, cap, bits, use_bits, a, a, -1, n, m, g):
                if try_orbit(adj, fill, cap, bits, use_bits, b, b, -1, n, m, g):
                    return -2
                remove_orbit(adj, fill, bits, use_bits, a, a, -1, n, m, g)
            continue
        t = rng_below(st, g)
        if try_orbit(adj, fill, cap, bits, use_bits, a, b, t, n, m, g):
            return t
    return -3


@njit(cache=True)
def _gcd(a, b):
    while b:
        a, b = b, a % b
    return a


@njit(cache=True, inline="always")
def _push(oa, ob, ot, no, a, b, t):
    """Append the orbit ``(a, b, t)`` to the orbit list; returns its new length."""
    oa[no] = a
    ob[no] = b
    ot[no] = t
    return no + 1


@njit(cache=True)
def _cycle(adj, fill, cap, bits, use_bits, n, m, g, st, perm, oa, ob, ot):
    """Step 1: a g-symmetric Hamiltonian cycle through all ``n`` vertices (base classes in
    random order, random voltages whose sum is a unit mod ``g``). Returns the number of
    orbits placed, or -1 if one did not fit."""
    for i in range(m):
        perm[i] = i
    for i in range(m - 1, 0, -1):
        j = rng_below(st, i + 1)
        perm[i], perm[j] = perm[j], perm[i]
    vsum = 0
    no = 0
    for i in range(m):
        a = perm[i]
        b = perm[(i + 1) % m]
        if i < m - 1:
            t = rng_below(st, g)
            vsum += t
        else:  # close the cycle with a total voltage that is a unit mod g
            while True:  # (m = 1: the orbit 0 -- T*m must not be a half orbit)
                u = rng_below(st, g)
                if _gcd(u, g) == 1 and (m > 1 or g == 1 or 2 * u != g):
                    break
            t = (u - vsum) % g
        if not try_orbit(adj, fill, cap, bits, use_bits, a, b, t, n, m, g):
            return -1
        no = _push(oa, ob, ot, no, a, b, t)
    return no


@njit(cache=True)
def free_slots(fill, cap, m, st, stubs):
    """The rows' free slots (row ``i`` listed ``cap[i] - fill[i]`` times) in ``stubs``, in a
    random order; returns how many."""
    ns = 0
    for i in range(m):
        for _ in range(cap[i] - fill[i]):
            stubs[ns] = i
            ns += 1
    for i in range(ns - 1, 0, -1):
        j = rng_below(st, i + 1)
        stubs[i], stubs[j] = stubs[j], stubs[i]
    return ns


@njit(cache=True)
def _pair_stubs(adj, fill, cap, bits, use_bits, n, m, g, st, stubs, oa, ob, ot, no, pa, pb):
    """Step 2: the remaining slots paired at random, each pair with a random voltage (an odd
    slot count, even ``g`` only, takes one orbit ``i -- i + n/2``). Pairs that fit nowhere go
    to ``pa``/``pb``. Returns ``(orbits, pending pairs)``, or ``(-1, 0)`` if the half orbit
    did not fit."""
    ns = free_slots(fill, cap, m, st, stubs)
    if ns % 2 == 1:
        a = stubs[ns - 1]
        ns -= 1
        if not try_orbit(adj, fill, cap, bits, use_bits, a, a, -1, n, m, g):
            return -1, 0
        no = _push(oa, ob, ot, no, a, a, -1)
    npend = 0
    for p in range(0, ns, 2):
        a = stubs[p]
        b = stubs[p + 1]
        t = _place_pair(adj, fill, cap, bits, use_bits, a, b, n, m, g, st, 8)
        if t == -3:
            pa[npend] = a
            pb[npend] = b
            npend += 1
        elif t == -2:
            no = _push(oa, ob, ot, no, a, a, -1)
            no = _push(oa, ob, ot, no, b, b, -1)
        else:
            no = _push(oa, ob, ot, no, a, b, t)
    return no, npend


@njit(cache=True)
def _repair(adj, fill, cap, bits, use_bits, n, m, g, st, oa, ob, ot, no, nfixed, pa, pb,
            npend):
    """Step 3: each pending pair swapped with a random placed orbit (not one of the cycle's
    ``nfixed``). Returns the number of orbits, or -1 if a pair found no partner."""
    for p in range(npend):
        a = pa[p]
        b = pb[p]
        placed = False
        for _ in range(2000):
            if no == nfixed:
                break
            r = nfixed + rng_below(st, no - nfixed)
            c, e, t2 = oa[r], ob[r], ot[r]
            if t2 < 0:
                continue
            remove_orbit(adj, fill, bits, use_bits, c, e, t2, n, m, g)
            if rng_below(st, 2) == 1:
                c, e = e, c
            t3 = _place_pair(adj, fill, cap, bits, use_bits, a, c, n, m, g, st, 4)
            if t3 >= 0:
                t4 = _place_pair(adj, fill, cap, bits, use_bits, b, e, n, m, g, st, 4)
                if t4 >= 0:
                    oa[r], ob[r], ot[r] = a, c, t3
                    no = _push(oa, ob, ot, no, b, e, t4)
                    placed = True
                    break
                remove_orbit(adj, fill, bits, use_bits, a, c, t3, n, m, g)
            # put the old orbit back (its slots are free again)
            try_orbit(adj, fill, cap, bits, use_bits, oa[r], ob[r], t2, n, m, g)
        if not placed:
            return -1
    return no


@njit(cache=True)
def _build(n, g, cap, seed, attempts, use_bits):
    """Random simple connected g-symmetric graph with row ``i`` filled to ``cap[i]`` slots,
    in the three steps of the module docstring, retried up to ``attempts`` times. Returns
    ``(adj, ok)``."""
    m = n // g
    d = 0
    total = 0
    for i in range(m):
        d = max(d, cap[i])
        total += cap[i]
    st = rng_seed(seed)
    adj = np.full((m, d), -1, dtype=np.int32)
    fill = np.zeros(m, dtype=np.int64)
    bits = np.zeros((m if use_bits else 1, (n + 63) // 64 if use_bits else 1), dtype=np.uint64)
    # the orbit list: (a, b, t), t = -1 a half orbit; the cycle's orbits come first
    oa = np.empty(total + 2, dtype=np.int64)
    ob = np.empty(total + 2, dtype=np.int64)
    ot = np.empty(total + 2, dtype=np.int64)
    stubs = np.empty(total, dtype=np.int64)
    perm = np.empty(m, dtype=np.int64)
    pa = np.empty(total, dtype=np.int64)
    pb = np.empty(total, dtype=np.int64)
    for _attempt in range(attempts):
        adj[:, :] = -1
        fill[:] = 0
        bits[:, :] = 0
        nfixed = _cycle(adj, fill, cap, bits, use_bits, n, m, g, st, perm, oa, ob, ot)
        if nfixed < 0:
            continue
        no, npend = _pair_stubs(adj, fill, cap, bits, use_bits, n, m, g, st, stubs, oa, ob,
                                ot, nfixed, pa, pb)
        if no < 0:
            continue
        if _repair(adj, fill, cap, bits, use_bits, n, m, g, st, oa, ob, ot, no, nfixed, pa,
                   pb, npend) >= 0:
            return adj, True
    return adj, False


def target_degrees(n: int, d: int, g: int) -> np.ndarray:
    """Degree of each base class: ``min(d, n-1)``, one class one less when ``g`` is odd and the
    slot count ``m*d`` is odd (then ``n*d`` is odd and no graph has all degrees ``d``)."""
    m = n // g
    dd = min(d, n - 1)
    cap = np.full(m, dd, dtype=np.int64)
    if g % 2 == 1 and (m * dd) % 2 == 1:
        cap[m - 1] -= 1
    return cap


def random_graph(n: int, d: int, g: int = 1, seed: int = 0, attempts: int = 50) -> Graph:
    """A random connected simple g-symmetric graph with degrees :func:`target_degrees`.

    Raises GolfError when no connected graph of that shape exists (``d = 0`` with ``n > 1``,
    ``d = 1`` with ``n > 2``) or when ``g`` does not divide ``n``.
    """
    n, d, g = int(n), int(d), int(g)
    if n < 1:
        raise GolfError(f"n must be >= 1, got {n}")
    if d < 0:
        raise GolfError(f"d must be >= 0, got {d}")
    if g < 1 or n % g:
        raise GolfError(f"g={g} must be a positive divisor of n={n}")
    if n == 1:
        return Graph(1, d, 1 if g == 1 else g, np.full((1, d), -1, dtype=np.int32))
    if d == 0 or (d == 1 and n > 2):
        raise GolfError(f"no connected graph has n={n} vertices and degree <= {d}")
    if d >= n - 1 or n == 2:  # the complete graph is symmetric under every rotation
        u, v = np.triu_indices(n, 1)
        return Graph.from_edges(np.stack([u, v], 1), n=n, g=g, d=d)
    m = n // g
    cap = target_degrees(n, d, g)
    use_bits = m * ((n + 63) // 64) * 8 <= (256 << 20)
    adj, ok = _build(n, g, cap, int(seed), int(attempts), use_bits)
    if not ok:
        raise GolfError(f"could not build a simple connected {g}-symmetric graph with n={n}, "
                        f"d={d} in {attempts} attempts (seed {seed}); try another seed or g")
    full = np.full((m, d), -1, dtype=np.int32)
    full[:, : adj.shape[1]] = adj
    return Graph(n, d, g, sort_rows(full))


def random_group_graph(n: int, d: int, group, seed: int = 0, attempts: int = 200,
                       centres: int = 0, g: int | None = None) -> Graph:
    """A random connected simple graph with the symmetry ``group`` (a
    :class:`golf.group.Group` of order ``g``, ``m = n/g`` base vertices) and degrees
    :func:`target_degrees`: the base slots paired at random, each pair ``i, j`` joined by
    the orbit ``i -- c*m + j`` for a random element ``c`` (row ``j`` gets ``c^-1 * m + i``).

    With ``centres = c > 0`` (:mod:`golf.graph`; ``group`` None is then the cyclic ``Z_g``)
    the last ``c`` vertices are centres: each takes ``d // g`` random orbits (degree ``g``
    times that, at least one orbit), whose base rows give a slot each; the other slots are
    paired as above. With an odd slot count and no involution in the group, one base row
    keeps a slot free.

    Raises GolfError when ``g`` does not divide ``n - c``, no connected graph of that shape
    exists, or ``attempts`` draws found none (another seed may)."""
    from golf.graph import check_form
    from golf.kernels.reach import reached_from

    n, d, c = int(n), int(d), int(centres)
    g = group.g if group is not None else int(g)
    label = group.label if group is not None else f"Z_{g}"
    if (n - c) % g:
        raise GolfError(f"the group {label} has order {g}, which does not divide "
                        f"{'n' if not c else 'n - centres'}={n - c}")
    check_form(n, g, c)
    m = (n - c) // g
    if d <= 1 or d >= n - 1:
        raise GolfError(f"a random {label}-symmetric graph needs 2 <= d < n - 1, got "
                        f"n={n}, d={d}")
    per = d // g  # orbits a centre takes
    if c and (per < 1 or per > m):
        raise GolfError(f"a centre is adjacent to whole orbits of g={g} vertices: needs "
                        f"g <= d={d} and at least one orbit per centre (m={m})")
    if c and c * per > m * d:
        raise GolfError(f"{c} centres of {per} orbits each need more slots than the {m} base "
                        f"rows of d={d} hold")
    rng = np.random.default_rng(int(seed))
    elems = np.arange(g, dtype=np.int64)
    inv = group.inv(elems) if group is not None else (-elems) % g
    invol = elems[(inv == elems) & (elems != 0)]
    n_sym = n - c
    for _ in range(attempts):
        rows = [[] for _ in range(m)]
        for z in range(c):  # each centre: per distinct orbits with a free slot
            free = [i for i in range(m) if len(rows[i]) < d]
            if len(free) < per:
                break
            for i in rng.choice(free, per, replace=False).tolist():
                rows[i].append(n_sym + z)
        cap = np.array([d - len(r) for r in rows], dtype=np.int64)
        if not c:
            cap = target_degrees(n, d, g)
        stubs = rng.permutation(np.repeat(np.arange(m), cap))
        ok = True
        if len(stubs) % 2:  # one orbit of one slot: i -- h*m + i, h an involution
            if len(invol) == 0 and not c:
                break
            i = int(stubs[-1])
            if len(invol):
                rows[i].append(int(rng.choice(invol)) * m + i)
            stubs = stubs[:-1]
        for a, b in stubs.reshape(-1, 2).tolist():
            for _try in range(32):
                k = int(rng.integers(g))
                val, rev = k * m + b, int(inv[k]) * m + a
                if (a == b and (k == 0 or val == rev)) or val in rows[a] or rev in rows[b]:
                    continue
                rows[a].append(val)
                rows[b].append(rev)
                break
            else:
                ok = False
                break
        if not ok:
            continue
        adj = np.full((m, d), -1, dtype=np.int32)
        for i, r in enumerate(rows):
            adj[i, :len(r)] = r
        graph = Graph(n, d, g, sort_rows(adj), group, c)
        indptr, indices = graph.csr()
        if reached_from(indptr, indices.astype(np.int64), 0) == n:
            return graph
    raise GolfError(f"could not build a simple connected {label}-symmetric graph with "
                    f"n={n}, d={d}" + (f", centres={c}" if c else "")
                    + f" in {attempts} attempts (seed {seed}); try another seed or group")
