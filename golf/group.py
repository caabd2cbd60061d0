"""The symmetry group of a symmetric graph: the cyclic group Z_g, or a metacyclic group
Z_a ⋊_r Z_b (``g = a*b``).

A graph is *G-symmetric* for a group ``G`` of order ``g`` when ``G`` acts on its vertices with
``m = n/g`` orbits of ``g`` vertices each and maps the graph onto itself. golf numbers the
vertices ``v = h*m + i``: base vertex ``i`` (``0 <= i < m``) moved by the group element ``h``
(``0 <= h < g``), and the element ``k`` moves ``v`` to ``(k h)*m + i`` (left multiplication).
The base rows hold the neighbours of the base vertices (``h`` = the identity, 0), and vertex
``k*m + i`` has the neighbours ``k`` applied to row ``i``.

* **Cyclic** ``Z_g`` (the default, ``group`` None): ``k h = (k + h) mod g``, so ``k`` moves a
  vertex by ``k*m`` ids: the rotation ``v -> (v + k*m) mod n``.
* **Metacyclic** ``Z_a ⋊_r Z_b``: an element is ``h = x*b + t`` with ``x`` in ``Z_a``, ``t``
  in ``Z_b``, and ``(x1, t1)(x2, t2) = (x1 + r^t1 x2 mod a, t1 + t2 mod b)``, which is a group
  when ``r^b = 1 (mod a)`` (``r`` a unit mod ``a``). ``r = 1`` is the direct product
  ``Z_a x Z_b``, ``r = a - 1`` with ``b = 2`` the dihedral group, and other ``r`` give
  non-abelian groups. ``b = 1`` is ``Z_a`` again (golf keeps it cyclic).

Why non-abelian groups: in a lift over an abelian group every commutator walk closes, so
short cycles are many and balls grow slowly; a non-abelian group removes part of them. On
(1024, 8) with ``m = 2``, ``Z_32 ⋊_3 Z_16`` reached total 1832704 in 540 s on a GPU, where
``Z_512`` reached 1930752 and golf's best cyclic graph (``Z_256``, ``m = 4``) had 1838080
(the 1832704 and 1838080 rows of 2026-11-26 were diameter 5; the chase now keeps a diameter-4
graph of ``Z_64 ⋊_7 Z_8``, ``results/quality/quality_gpu.md``).

The kernels take a group as the int64 array :meth:`Group.kernel` (``[m, a, b, r^0 .. r^(b-1)
mod a]``) or None for the cyclic group, whose arithmetic Numba then compiles in
(:mod:`golf.kernels.symmetry`).
"""

from __future__ import annotations

import math

import numpy as np

from golf.errors import GolfError

__all__ = ["Group", "parse_group", "metacyclic_groups", "invariants", "order_mod"]


class Group:
    """The metacyclic group ``Z_a ⋊_r Z_b`` (see the module docstring).

    Parameters
    ----------
    a, b : int
        Orders of the normal cyclic subgroup and of the quotient (``g = a*b``).
    r : int
        The action: the generator of ``Z_b`` multiplies ``Z_a`` by ``r``; needs
        ``gcd(r, a) = 1`` and ``r^b = 1 (mod a)``.
    """

    __slots__ = ("a", "b", "r", "pw")

    def __init__(self, a: int, b: int, r: int):
        for name, v in (("a", a), ("b", b), ("r", r)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise GolfError(f"group: {name} must be an integer, got {v!r}")
        a, b, r = int(a), int(b), int(r)
        if a < 1 or b < 1:
            raise GolfError(f"group: a and b must be >= 1, got a={a}, b={b}")
        r %= a
        if a > 1 and math.gcd(r, a) != 1:
            raise GolfError(f"group: r={r} must be a unit mod a={a} (gcd(r, a) = 1)")
        if pow(r, b, a) != 1 % a:
            raise GolfError(f"group: r={r} does not give a group Z_{a} ⋊ Z_{b}: r^{b} mod {a} "
                            f"= {pow(r, b, a)}, expected 1")
        self.a, self.b, self.r = a, b, r
        period = order_mod(r, a)  # r^t mod a repeats with the order of r, a divisor of b
        one = np.array([pow(r, t, a) for t in range(period)], dtype=np.int64)
        self.pw = np.tile(one, b // period)

    @property
    def g(self) -> int:
        return self.a * self.b

    @property
    def abelian(self) -> bool:
        return self.r == 1 % self.a

    @property
    def label(self) -> str:
        return f"Z_{self.a} ⋊_{self.r} Z_{self.b}" if not self.abelian else (
            f"Z_{self.a} x Z_{self.b}")

    @property
    def spec(self) -> list:
        """The config form ``[a, r]`` (``b = g / a``)."""
        return [self.a, self.r]

    def __eq__(self, other) -> bool:
        return isinstance(other, Group) and (self.a, self.b, self.r) == (other.a, other.b,
                                                                          other.r)

    def __hash__(self) -> int:
        return hash((self.a, self.b, self.r))

    def __repr__(self) -> str:
        return f"Group(a={self.a}, b={self.b}, r={self.r})"

    def kernel(self, m: int) -> np.ndarray:
        """The int64 array the compiled kernels take: ``[m, a, b, r^0 .. r^(b-1) mod a]``."""
        return np.concatenate([np.array([m, self.a, self.b], dtype=np.int64), self.pw])

    # -- element arithmetic (vectorised) ----------------------------------------------------
    def mul(self, k, h):
        """The product ``k h`` of elements (arrays or ints)."""
        k = np.asarray(k, dtype=np.int64)
        h = np.asarray(h, dtype=np.int64)
        x1, t1 = np.divmod(k, self.b)
        x2, t2 = np.divmod(h, self.b)
        return ((x1 + self.pw[t1] * x2) % self.a) * self.b + (t1 + t2) % self.b

    def inv(self, k):
        """The inverse of element ``k``."""
        k = np.asarray(k, dtype=np.int64)
        x, t = np.divmod(k, self.b)
        ti = (-t) % self.b
        return ((-self.pw[ti] * x) % self.a) * self.b + ti

    def act(self, w, k, m: int):
        """Vertex ``w`` moved by element ``k``: ``(k h)*m + i`` for ``w = h*m + i``."""
        h, i = np.divmod(np.asarray(w, dtype=np.int64), m)
        return self.mul(k, h) * m + i


def parse_group(spec, g: int, source: str = "group") -> Group | None:
    """The group of a config's ``problem.group`` for symmetry order ``g``: None (cyclic) for
    None or ``"cyclic"``; ``[a, r]`` is ``Z_a ⋊_r Z_(g/a)``. A GolfError naming ``source`` for
    anything else, an ``a`` that does not divide ``g``, or an ``r`` that gives no group."""
    if spec is None or spec == "cyclic":
        return None
    if (not isinstance(spec, (list, tuple)) or len(spec) != 2
            or any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) for v in spec)):
        raise GolfError(f"{source}: expected 'cyclic' or [a, r] (the group Z_a ⋊_r Z_(g/a)), "
                        f"got {spec!r}")
    a, r = int(spec[0]), int(spec[1])
    if isinstance(g, str) or a < 1 or g % a:
        raise GolfError(f"{source}: a={a} must divide g={g} (the group Z_a ⋊_r Z_(g/a) has "
                        f"order g)")
    try:
        grp = Group(a, g // a, r)
    except GolfError as e:
        raise GolfError(f"{source}: {str(e).removeprefix('group: ')}") from None
    return None if grp.b == 1 else grp


def order_mod(r: int, a: int) -> int:
    """The multiplicative order of the unit ``r`` mod ``a`` (1 for ``a`` <= 1)."""
    if a <= 1:
        return 1
    k, x = 1, r % a
    while x != 1:
        x = x * r % a
        k += 1
    return k


def invariants(grp: Group) -> tuple:
    """Isomorphism invariants of ``Z_a ⋊_r Z_b``, in closed form: the order ``g``, the orders
    of the commutator subgroup (``a / gcd(a, r - 1)``, generated by ``r - 1`` in ``Z_a``) and
    of the centre (``(b / ord r) * gcd(a, r - 1)``: ``(x, t)`` is central when ``r^t = 1`` and
    ``(r - 1) x = 0``), the number of involutions (``(x, 0)`` with ``2x = 0``, and for even
    ``b`` the ``(x, b/2)`` with ``(1 + r^(b/2)) x = 0``), and the number of elements of
    order dividing 4 in ``Z_a`` times the same count's analogue for ``t`` (a cheap tie-break).
    Isomorphic groups agree on all of them; two groups that agree are taken as one candidate
    by :func:`metacyclic_groups` (a rare false merge only drops a candidate)."""
    return _invariants(grp.a, grp.b, np.array([grp.r], dtype=np.int64))[0]


def metacyclic_groups(g: int, abelian: bool = False) -> list[Group]:
    """The metacyclic groups ``Z_a ⋊_r Z_b`` of order ``g`` (``a, b >= 2``), one of each class
    of :func:`invariants` (the one of the smallest ``(a, r)``), non-abelian only unless
    ``abelian``: every ``(a, b = g/a, r)`` with ``r`` a unit mod ``a`` and ``r^b = 1 (mod
    a)``. ``r`` and ``r^k`` with ``gcd(k, b) = 1`` give the same group (``t^k`` generates
    ``Z_b`` as well), and so does any isomorphic choice; ``Z_a x Z_b`` with ``gcd(a, b) = 1``
    is the cyclic group ``Z_g``, never listed.

    >>> [g.label for g in metacyclic_groups(8)]
    ['Z_4 ⋊_3 Z_2']
    >>> sorted({g.label for g in metacyclic_groups(16)})  # doctest: +NORMALIZE_WHITESPACE
    ['Z_4 ⋊_3 Z_4', 'Z_8 ⋊_3 Z_2', 'Z_8 ⋊_5 Z_2', 'Z_8 ⋊_7 Z_2']
    """
    seen: dict = {}
    for a in range(2, g // 2 + 1):
        if g % a:
            continue
        b = g // a
        r = np.arange(1 if abelian else 2, a, dtype=np.int64)
        r = r[(np.gcd(r, a) == 1) & (_powmod(r, b, a) == 1)]
        if abelian and math.gcd(a, b) == 1:
            r = r[r != 1]
        for key, x in zip(_invariants(a, b, r), r.tolist()):
            seen.setdefault(key, (a, x))
    return [Group(a, g // a, x) for a, x in seen.values()]


def _powmod(r: np.ndarray, e, a: int) -> np.ndarray:
    """``r[i]^e[i] mod a`` elementwise (``e`` an int or an array like ``r``; ``a < 2^31``:
    products fit in int64)."""
    out = np.ones_like(r) % a
    base = r % a
    e = np.array(np.broadcast_to(e, r.shape), dtype=np.int64)
    while e.any():
        odd = (e & 1) == 1
        out[odd] = out[odd] * base[odd] % a
        base = base * base % a
        e >>= 1
    return out


def _orders(r: np.ndarray, a: int, b: int) -> np.ndarray:
    """The multiplicative orders mod ``a`` of units ``r`` with ``r^b = 1``: ``b`` divided by
    each prime of ``b`` while the power stays 1."""
    order = np.full(len(r), b, dtype=np.int64)
    rest, p = b, 2
    while rest > 1:
        if p * p > rest:
            p = rest
        if rest % p == 0:
            while rest % p == 0:
                rest //= p
            while True:  # lower the order by p where r^(order/p) is still 1
                idx = np.flatnonzero(order % p == 0)
                sub = order[idx] // p
                ok = _powmod(r[idx], sub, a) == 1 % a
                if not ok.any():
                    break
                order[idx[ok]] = sub[ok]
        p += 1
    return order


def _invariants(a: int, b: int, r: np.ndarray) -> list:
    """:func:`invariants` of ``Z_a ⋊_r Z_b`` for every ``r`` of an array, vectorised."""
    if not len(r):
        return []
    h = np.gcd(a, (r - 1) % a)
    z = (b // _orders(r, a, b)) * h
    inv = np.full(len(r), math.gcd(a, 2) - 1, dtype=np.int64)
    if b % 2 == 0:
        inv += np.gcd(a, (1 + _powmod(r, b // 2, a)) % a)
    last = math.gcd(a, 4) * math.gcd(b, 4)
    return [(a * b, a // int(x), int(y), int(w), last) for x, y, w in zip(h, z, inv)]
