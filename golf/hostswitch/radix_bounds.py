"""Lower bounds on the h-diameter and the h-ASPL of a host-switch graph with ``n`` hosts and
switches of radix ``r``, whatever the number of switches.

The bound of the Order/Radix problem (R. Yasudo, M. Koibuchi, K. Nakano et al., "Order/Radix
Problem: towards low end-to-end latency interconnection networks", ICPP 2017; and R. Yasudo,
M. Koibuchi, K. Nakano, "Designing high-performance interconnection networks with host-switch
graphs", IEEE TPDS 30(2), 2019): grow the shortest-path tree of one host. Its switch sits one
hop away; every switch has ``r - 1`` ports besides the one towards the root, so at most
``(r-1)^(k-1)`` vertices lie ``k`` hops away, and a host ``j < k`` hops away takes the place of
``(r-1)^(k-j)`` of them. The other ``n - 1`` hosts, placed as near as the ports allow, give
the bounds. Both are exact (an integer and a :class:`fractions.Fraction`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from golf.errors import GolfError

__all__ = ["HostSwitchBounds", "host_switch_bounds", "fewest_switches", "suggested_switches",
           "even_switches", "pair_count_bound"]


@dataclass(frozen=True)
class HostSwitchBounds:
    """Lower bounds of the host-switch problem ``(n hosts, radix r)``, over every number of
    switches.

    Attributes
    ----------
    n : int
        The number of hosts.
    r : int
        The radix: ports of a switch.
    diameter : int or None
        The bound on the h-diameter; None when no connected host-switch graph exists.
    aspl : Fraction or None
        The bound on the h-ASPL (the mean distance over the ``n(n-1)/2`` host pairs).
    min_switches : int or None
        The fewest switches that connect ``n`` hosts (:func:`fewest_switches`).
    """

    n: int
    r: int
    diameter: int | None
    aspl: Fraction | None
    min_switches: int | None

    @property
    def total(self) -> int | None:
        """The matching bound on the h-total, the sum over unordered host pairs
        (``aspl * n(n-1)/2``, rounded up)."""
        from golf.lower_bounds import pair_total

        return pair_total(self.aspl, self.n)

    def as_dict(self) -> dict:
        return {
            "kind": "host-switch",
            "hosts": self.n,
            "radix": self.r,
            "diameter_bound": self.diameter,
            "aspl_bound": float(self.aspl) if self.aspl is not None else None,
            "aspl_bound_fraction": str(self.aspl) if self.aspl is not None else None,
            "total_bound": self.total,
            "min_switches": self.min_switches,
        }


def _check(n: int, r: int) -> tuple[int, int]:
    n, r = int(n), int(r)
    if n < 1:
        raise GolfError(f"the number of hosts must be >= 1, got {n}")
    if r < 1:
        raise GolfError(f"the radix must be >= 1, got {r}")
    return n, r


def fewest_switches(n: int, r: int) -> int | None:
    """The fewest switches of radix ``r`` that connect ``n`` hosts, or None if none do.

    ``s`` connected switches have at least ``s - 1`` switch-switch edges, which take
    ``2(s - 1)`` of their ``s*r`` ports: at most ``s*r - 2(s - 1) = s(r - 2) + 2`` hosts fit.
    So ``s >= (n - 2) / (r - 2)`` for ``r >= 3``, and a chain of switches reaches it. With
    ``r <= 2`` one switch holds every host, or the hosts cannot all be connected.

    Raises
    ------
    GolfError
        If ``n`` or ``r`` is below 1.
    """
    n, r = _check(n, r)
    if n <= r:
        return 1
    if r <= 2:
        return None
    return -(-(n - 2) // (r - 2))


def host_switch_bounds(n: int, r: int) -> HostSwitchBounds:
    """Lower bounds on the h-diameter and the h-ASPL for ``n`` hosts and radix ``r``.

    From a host ``x``, count the vertices ``k`` hops away: one at ``k = 1`` (the switch of
    ``x``; a host has one edge and no host-host edges exist), and at most ``r - 1`` times the
    switches at ``k - 1`` beyond. With every vertex nearer than ``k`` a switch, that is
    ``(r-1)^(k-1)`` places, and a host ``j < k`` hops away stands where a switch could have
    led to ``(r-1)^(k-j)`` of them. So at most ``(r-1)^(k-1)`` hosts lie within ``k`` hops of
    ``x``, and the h-diameter is at least ``D``, the least ``k >= 2`` with
    ``(r-1)^(k-1) >= n - 1``.

    The sum of the distances from ``x`` is smallest with every other host ``D - 1`` or ``D``
    hops away and as many as possible at ``D - 1``. With ``a`` hosts and ``b`` switches at
    ``D - 1`` (``a + b <= (r-1)^(D-2)``) and the other ``n - 1 - a`` hosts behind those
    switches (``n - 1 - a <= (r-1) b``), the most is
    ``a = floor(((r-1)^(D-1) - (n-1)) / (r-2))`` (and ``a = 0`` for ``D = 2``: the only vertex
    one hop away is a switch). Then every host has a distance sum of at least
    ``W = (n-1) D - a``, the h-ASPL is at least ``W / (n - 1)`` and the h-total at least
    ``n W / 2``.

    Parameters
    ----------
    n : int
        The number of hosts, >= 1.
    r : int
        The radix, >= 1.

    Returns
    -------
    HostSwitchBounds
        ``diameter`` and ``aspl`` (both 0 for one host; both None when no connected graph
        exists: ``r = 1`` with ``n >= 2``, ``r = 2`` with ``n >= 3``), and the fewest switches
        that connect the hosts.

    Raises
    ------
    GolfError
        If ``n`` or ``r`` is below 1.

    Examples
    --------
    >>> b = host_switch_bounds(32, 4)
    >>> b.diameter, b.aspl, b.total
    (5, Fraction(130, 31), 2080)
    """
    n, r = _check(n, r)
    least = fewest_switches(n, r)
    if n == 1:
        return HostSwitchBounds(n, r, 0, Fraction(0), least)
    if least is None:
        return HostSwitchBounds(n, r, None, None, least)
    if n == 2 or r == 2:  # one switch holds both hosts (r = 2 reaches here with n = 2 only)
        return HostSwitchBounds(n, r, 2, Fraction(2), least)
    D, places = 2, r - 1  # places = (r-1)^(D-1)
    while places < n - 1:
        D += 1
        places *= r - 1
    near = 0 if D == 2 else (places - (n - 1)) // (r - 2)
    return HostSwitchBounds(n, r, D, Fraction((n - 1) * D - near, n - 1), least)


def _spread_loss(n: int, r: int) -> int:
    """The least ``sum_a h_a (2 h_a - r - 2)^2`` over the ways to spread ``n`` hosts over
    switches, ``1 <= h_a <= r`` a switch (``r - 1`` where ``n > r``: a switch of a connected
    graph that holds hosts keeps a port for a link): a dynamic programme over the number of
    hosts placed, ``O(n r)``."""
    import numpy as np

    top = r if n <= r else r - 1
    h = np.arange(1, top + 1, dtype=np.int64)
    cost = h * (2 * h - r - 2) ** 2
    best = np.zeros(n + 1, dtype=np.int64)
    for m in range(1, n + 1):
        k = min(top, m)
        best[m] = (best[m - k:m][::-1] + cost[:k]).min()
    return int(best[n])


def pair_count_bound(n: int, r: int) -> tuple[int, Fraction] | None:
    """A second lower bound on the h-total and the h-ASPL, over every number of switches and
    every wiring, from counting the host pairs by their switches: ``(total, aspl)``, or None
    where no connected host-switch graph exists.

    Two hosts on one switch are 2 hops apart, hosts on two linked switches 3, all others 4
    or more. With ``h_a`` hosts on switch ``a``, ``k_a <= r - h_a`` links at ``a`` and
    ``W`` the sum of ``h_a h_b`` over the links ``ab``::

        total >= 4 C(n, 2) - sum_a h_a (h_a - 1) - W
        W = sum_a k_a h_a^2 / 2 - sum_{links ab} (h_a - h_b)^2 / 2 <= sum_a (r - h_a) h_a^2 / 2

    so ``total >= 4 C(n, 2) - sum_a h_a g(h_a)`` with ``g(h) = h - 1 + h (r - h) / 2``, which
    is ``g* - (h - h*)^2 / 2`` for ``h* = (r + 2) / 2`` and ``g* = (r^2 + 4r - 4) / 8``. Hence
    ``8 total >= 16 n (n - 1) - n (r^2 + 4r - 4) + M``, ``M`` the least
    ``sum_a h_a (2 h_a - r - 2)^2`` over the spreads of the hosts (:func:`_spread_loss`).
    The bound is reached only by graphs whose unlinked switches are all 2 apart, with every
    port used, linked switches holding equal numbers of hosts and the hosts spread as in
    ``M``; so it is close where such graphs nearly exist (a large radix, h-diameter 4) and
    loose where the h-diameter must be 5 or more, where the Order/Radix bound
    (:func:`host_switch_bounds`) is the stronger. The ``M`` programme takes ``O(n r)``
    steps of Python (about a second for ``n = 10^5``).

    >>> pair_count_bound(10000, 100)
    (186985104, Fraction(7791046, 2083125))
    """
    n, r = _check(n, r)
    if fewest_switches(n, r) is None:
        return None
    if n == 1:
        return 0, Fraction(0)
    eighth = 16 * n * (n - 1) - n * (r * r + 4 * r - 4) + _spread_loss(n, r)
    total = max(-(-eighth // 8), n * (n - 1))  # every pair at least 2 apart
    return total, Fraction(total, n * (n - 1) // 2)


def suggested_switches(n: int, r: int) -> int | None:
    """The number of switches a host-switch search starts with: the ``s`` whose estimate
    ``2 + L(s, k)`` of the h-ASPL is smallest, ``L`` the Moore bound on the ASPL of a graph
    of ``s`` vertices and degree ``k = r - ceil(n/s)`` (the ports a switch keeps for links
    with the hosts spread evenly), from the fewest switches that connect the hosts
    (:func:`fewest_switches`) up to ``n``. Fewer switches leave each fewer links, more make
    the switch graph larger; the estimate weighs the two. None where no graph connects the
    hosts.

    >>> suggested_switches(32, 4), suggested_switches(1024, 10)
    (32, 342)
    """
    from golf.lower_bounds import moore_bounds

    n, r = _check(n, r)
    least = fewest_switches(n, r)
    if least is None or least == 1:
        return least
    best, best_s = None, least
    for s in range(least, n + 1):
        k = r - -(-n // s)
        if k < 1 or (k < 2 and s > 2):
            continue
        b = moore_bounds(s, min(k, s - 1))
        if b.aspl is None:
            continue
        if best is None or b.aspl < best:
            best, best_s = b.aspl, s
    return best_s


def _moore_aspl(nodes: float, k: float) -> float:
    """The Moore bound on the ASPL of ``nodes`` vertices of degree ``k``, a real number: each
    level holds ``k (k-1)^(l-1)`` vertices until they are all placed (the levels stop where a
    level would add almost nothing, for ``k < 2``)."""
    if k + 1 >= nodes:
        return 1.0
    reached, level, total = 1.0, 1, 0.0
    while True:
        width = k * (k - 1.0) ** (level - 1)
        if reached + width >= nodes or width < 1e-9:
            break
        reached += width
        total += level * width
        level += 1
    return (total + level * (nodes - reached)) / (nodes - 1)


def even_switches(n: int, r: int) -> int | None:
    """The number of switches of the estimate of Yasudo, Koibuchi and Nakano (TPDS 2019, the
    one ORP's ``ORP_Optimize_switches`` follows): with the hosts spread evenly, ``n/s`` a
    switch, the switch graph has the real degree ``k = r - n/s``, the host pairs on two
    switches (a fraction ``n(s-1) / (s(n-1))``) lie ``2 + L(s, k)`` apart, ``L`` the Moore
    bound on its ASPL, and those on one switch 2. The first ``s`` from the fewest switches
    that connect the hosts up where the estimate stops falling. Where ports cannot be evened
    out this way it differs from :func:`suggested_switches`: 8 for (128, 24) as well, but
    101 for (432, 12) against 108, 196 for (10000, 100) against 200, and 1250 for (1024, 5)
    against 1024 (more switches than hosts: a switch without hosts adds links). None where
    no graph connects the hosts.

    >>> even_switches(128, 24), even_switches(432, 12), even_switches(10000, 100)
    (8, 101, 196)
    >>> even_switches(1024, 5)
    1250
    """
    n, r = _check(n, r)
    least = fewest_switches(n, r)
    if least is None or least == 1:
        return least
    best, best_s, s = None, least, max(least, 2) - 1
    while True:  # past n too: switches without hosts are links more
        s += 1
        if s * r - 2 * (s - 1) < n:
            continue
        est = _moore_aspl(s, r - n / s) * (s * n - n) / (s * n - s)
        if best is not None and est >= best:
            break
        best, best_s = est, s
    return best_s
