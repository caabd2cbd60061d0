"""Index arithmetic of symmetric graphs (see :mod:`golf.graph` and :mod:`golf.group`): vertex
``v = off + i`` with ``off = k*m`` a multiple of ``m = n / g`` is base row ``i`` moved by the
group element ``k``, and its neighbours are the base row's ids moved by the same element.

``grp`` is None for the cyclic group (the element ``k`` adds ``k*m`` mod ``n``: Numba compiles
the rotation in and the group code away) or the array of :meth:`golf.group.Group.kernel`
(``[m, a, b, r^0 .. r^(b-1) mod a]``) for ``Z_a ⋊_r Z_b``.

The evaluators' kernels take ``sym = (grp, rows)`` (:func:`group_scratch`) and read, instead of
the base rows, the rows it says: none for the cyclic group (the base rows, rotated on the fly);
``b*m`` twisted rows for a group (:func:`twist_rows`); or, for a graph with centre vertices
(:mod:`golf.graph`), all ``n`` rows of the graph renumbered so that the sources come first
(:func:`expand_rows`). :func:`centre_form` tells the three apart."""

from __future__ import annotations

from numba import njit

__all__ = ["rotated", "base_of", "group_mul", "group_inv", "act", "act_inv", "twist_rows",
           "group_scratch", "expand_rows", "centre_form", "centre_weight"]


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
def twist_rows(adj, sym):
    """The rows that make a ``Z_a ⋊_r Z_b``-symmetric graph a cyclic one. The element
    ``(1, 0)`` moves every vertex by ``b*m`` ids (``(1, 0)(x, t) = (x + 1, t)``), so the graph
    is also symmetric under the rotation by ``b*m``, with the ``b*m`` base rows of the vertices
    ``t*m + i`` (element ``(0, t)``): row ``t*m + i`` holds base row ``i`` moved by ``(0, t)``,
    ``(0, t)(x2, t2) = (r^t x2 mod a, t + t2 mod b)``. Vertex ``(x*b + t)*m + i`` then has the
    neighbours of row ``t*m + i`` rotated by ``x*b*m`` mod ``n``: the cyclic kernels' layout,
    whatever ``a``. ``sym = (grp, rows)`` from :func:`group_scratch`; writes and returns
    ``rows`` (``b*m`` rows of ``d`` slots, -1 stays -1)."""
    grp, rows = sym
    m, d = adj.shape
    for t in range(grp[2]):  # the element (0, t) is t
        for i in range(m):
            for j in range(d):
                w = adj[i, j]
                h = w // m
                rows[t * m + i, j] = -1 if w < 0 else group_mul(t, h, grp) * m + w - h * m
    return rows


@njit(cache=True, inline="always")
def centre_form(sym) -> bool:
    """True when ``sym`` is a centre form's (its rows are all ``n`` rows, more than the
    ``b*m`` twisted rows of a group)."""
    return sym[0].shape[0] > 0 and sym[1].shape[0] > sym[0][0] * sym[0][2]


@njit(cache=True, inline="always")
def centre_weight(sym) -> int:
    """The group order ``g``: how many vertices each base source of a centre form stands for."""
    return sym[0][1] * sym[0][2]


@njit(cache=True)
def expand_rows(adj, sym, n, at):
    """Every row of a graph with centres (:mod:`golf.graph`), renumbered for the kernels:
    the ``m`` base vertices keep their ids ``0 .. m-1``, the centres ``g*m + z`` become
    ``at + z`` (``m <= at <= n - c``), and the other vertices ``v`` keep theirs below ``at``
    and move up by ``c`` from there; so the sources the kernels search -- the base vertices
    (each standing for its orbit of ``g``) and the centres (each for itself) -- are the ids
    ``0 .. m-1`` and ``at .. at+c-1`` (the CPU kernels take ``at = m``, the GPU one the next
    64-bit column word). Renumbering changes no distance. Row ``k*m + i``
    holds base row ``i`` moved by the element ``k``, a centre's row the ``g`` vertices of every
    orbit whose base row holds it. ``sym = (grp, rows)`` from :func:`group_scratch`, ``rows``
    of shape ``(n, d)``; writes and returns ``rows``."""
    grp, rows = sym
    m, d = adj.shape
    g = grp[1] * grp[2]
    n_sym = g * m
    c = n - n_sym
    for k in range(g):
        for i in range(m):
            v = k * m + i
            ev = v if v < at else v + c
            for j in range(d):
                w = adj[i, j]
                if w < 0:
                    rows[ev, j] = -1
                elif w >= n_sym:
                    rows[ev, j] = at + (w - n_sym)
                else:
                    h = w // m
                    u = group_mul(k, h, grp) * m + w - h * m
                    rows[ev, j] = u if u < at else u + c
    for z in range(at, at + c):
        for j in range(d):
            rows[z, j] = -1
    for i in range(m):
        for j in range(d):
            w = adj[i, j]
            if w >= n_sym:
                z = at + (w - n_sym)
                p = 0
                while rows[z, p] >= 0:
                    p += 1
                for k in range(g):
                    v = k * m + i
                    rows[z, p + k] = v if v < at else v + c
    return rows


def group_scratch(group, n: int, m: int, d: int, centres: int = 0):
    """The ``sym`` argument of the evaluators' kernels, ``(grp, rows)``: for the cyclic group
    without centres a tuple of empty arrays (``grp`` of length 0: the kernel reads the base
    rows); for a group, ``grp`` and the ``b*m`` rows of :func:`twist_rows`; with centres, the
    group (the cyclic ``Z_g`` as ``Z_g ⋊_1 Z_1``) and the ``n`` rows of :func:`expand_rows`.
    Not None: the search calls a kernel's compiled entry point directly, which takes arrays
    (:func:`golf.evaluators.base._entry_point`)."""
    import numpy as np

    if centres:
        g = (n - centres) // m
        grp = (group.kernel(m) if group is not None
               else np.array([m, g, 1, 1], dtype=np.int64))
        return grp, np.full((n, d), -1, dtype=np.int32)
    if group is None:
        return np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.int32)
    return group.kernel(m), np.full((group.b * m, d), -1, dtype=np.int32)
