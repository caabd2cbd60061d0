"""Index arithmetic of symmetric graphs (see :mod:`golf.graph` and :mod:`golf.group`): vertex
``v = off + i`` with ``off = k*m`` a multiple of ``m = n / g`` is base row ``i`` moved by the
group element ``k``, and its neighbours are the base row's ids moved by the same element.

``grp`` is None for the cyclic group (the element ``k`` adds ``k*m`` mod ``n``: Numba compiles
the rotation in and the group code away) or the array of :meth:`golf.group.Group.kernel`
(``[m, a, b, r^0 .. r^(b-1) mod a]``) for ``Z_a ⋊_r Z_b``."""

from __future__ import annotations

from numba import njit

__all__ = ["rotated", "base_of", "group_mul", "group_inv", "act", "act_inv", "expand_rows",
           "group_scratch"]


@njit(cache=True, inline="always")
def rotated(w, off, n):
    """Neighbour id ``(w + off) mod n`` for ``0 <= w, off < n`` without a division."""
    u = w + off
    if u >= n:
        u -= n
    return u


@njit(cache=True, inline="always")
def base_of(v, m):
    """Base row ``i`` and rotation ``off`` of vertex ``v = off + i`` (``off`` a multiple of m)."""
    k = v // m
    return v - k * m, k * m


@njit(cache=True, inline="always")
def group_mul(k, h, grp):
    """The product ``k h`` of two elements of ``Z_a ⋊_r Z_b`` (``grp`` as above)."""
    a = grp[1]
    b = grp[2]
    x1 = k // b
    t1 = k - x1 * b
    x2 = h // b
    t2 = h - x2 * b
    t = t1 + t2
    if t >= b:
        t -= b
    return ((x1 + grp[3 + t1] * x2) % a) * b + t


@njit(cache=True, inline="always")
def group_inv(k, grp):
    """The inverse of element ``k``: ``(x, t)^-1 = (-r^-t x, -t)``."""
    a = grp[1]
    b = grp[2]
    x = k // b
    t = k - x * b
    ti = 0 if t == 0 else b - t
    return ((a - (grp[3 + ti] * x) % a) % a) * b + ti


@njit(cache=True, inline="always")
def act(w, off, n, grp):
    """Vertex ``w`` moved by the element ``k = off / m`` (cyclic: ``(w + off) mod n``)."""
    if grp is None:
        return rotated(w, off, n)
    m = grp[0]
    h = w // m
    return group_mul(off // m, h, grp) * m + (w - h * m)


@njit(cache=True, inline="always")
def act_inv(w, off, n, grp):
    """Vertex ``w`` moved by the inverse of the element ``k = off / m`` (cyclic:
    ``(w - off) mod n``)."""
    if grp is None:
        u = w - off
        if u < 0:
            u += n
        return u
    m = grp[0]
    h = w // m
    return group_mul(group_inv(off // m, grp), h, grp) * m + (w - h * m)


@njit(cache=True)
def expand_rows(adj, sym):
    """Every vertex's neighbours for a non-cyclic group: ``full[k*m + i, j]`` = base slot
    ``adj[i, j]`` moved by element ``k`` (-1 stays -1), so that the evaluators run on one row a
    vertex. ``sym = (grp, full, tmp)`` from :func:`group_scratch`. No division in the ``n d``
    loop: ``r^t x mod a`` of every slot and ``t`` comes first (``m d b`` values). Returns
    ``full``."""
    grp, full, tmp = sym
    m, d = adj.shape
    a = grp[1]
    b = grp[2]
    md = m * d
    # tmp[0:md] t2, tmp[md:2md] the slot's base row, tmp[2md + t*md + s] = r^t x2 mod a
    for i in range(m):
        for j in range(d):
            s = i * d + j
            w = adj[i, j]
            if w < 0:
                tmp[s] = -1
                continue
            h = w // m
            tmp[md + s] = w - h * m
            x2 = h // b
            tmp[s] = h - x2 * b
            for t in range(b):
                tmp[2 * md + t * md + s] = (grp[3 + t] * x2) % a
    for k in range(a * b):
        x1 = k // b
        t1 = k - x1 * b
        q = 2 * md + t1 * md
        for i in range(m):
            v = k * m + i
            for j in range(d):
                s = i * d + j
                t2 = tmp[s]
                if t2 < 0:
                    full[v, j] = -1
                    continue
                x = x1 + tmp[q + s]
                if x >= a:
                    x -= a
                t = t1 + t2
                if t >= b:
                    t -= b
                full[v, j] = (x * b + t) * m + tmp[md + s]
    return full


def group_scratch(group, n: int, m: int, d: int):
    """The ``sym`` argument of the evaluators' kernels, ``(grp, full, tmp)`` for
    :func:`expand_rows`; for the cyclic group the same tuple of empty arrays (``grp`` of
    length 0: the kernel reads the base rows). Not None: the search calls a kernel's compiled
    entry point directly, which takes arrays (:func:`golf.evaluators.base._entry_point`)."""
    import numpy as np

    if group is None:
        return (np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.int32),
                np.zeros(0, dtype=np.int64))
    full = np.full((n, max(d, 1)), -1, dtype=np.int32)[:, :d]
    full = np.ascontiguousarray(full)
    tmp = np.zeros((2 + group.b) * m * max(d, 1), dtype=np.int64)
    return group.kernel(m), full, tmp
