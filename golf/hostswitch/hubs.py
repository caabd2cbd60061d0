"""Hub spreads: the hosts on leaf switches that link to hub switches alone.

A **hub spread** (:class:`HubSpread`) of ``n`` hosts at radix ``r`` puts ``h`` hosts on each
of ``P = ceil(n / h)`` leaf switches (the remainder as leaves one host short) and no host on
the ``B`` hub switches. A leaf gives every port it keeps (``r - h``, one more on a short leaf)
to a link to a distinct hub; the hubs share those links as evenly as they go (``C`` or
``C - 1`` leaves a hub) and join their ports left over among themselves. Two leaves on a
common hub are two hops apart, four hosts' hops, so the design that matters is which leaves
share a hub: :func:`golf.starts.switch_wiring.hub_ports` builds one where as many pairs of
leaves as it can find do (:func:`golf.kernels.packing.pack`), and the host-switch search
takes it from there.

Where ``h (r - h) (r - 1)`` is about ``n``, a leaf reaches most others through its hubs, and
such a graph beats every even spread (:mod:`golf.hostswitch.spread`), whose switches spend
their ports on each other: at ``(432, 12)`` the best even spread is at the Moore bound of its
switch graph, h-ASPL 4.310905 (108 switches of 4 hosts), while 72 leaves of 6 hosts on 36
hubs have the bound 4.116 below it.

:func:`hub_spreads` lists the hub spreads of ``(n, r)`` worth a trial, best bound first.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

__all__ = ["HubSpread", "hub_spreads", "MAX_LEAVES"]

# the most leaves a hub spread has: a trade of the design reads two leaves' rows of shared
# hubs, so its cost grows with the leaves, and a design of more leaves than this does not
# get near its bound in a trial's share of a chase
MAX_LEAVES = 512


@dataclass(frozen=True)
class HubSpread:
    """``hosts`` hosts on leaf switches of ``leaf_hosts`` hosts each (the remainder as
    leaves one host short), every port a leaf keeps linked to a hub, radix ``radix``."""

    hosts: int
    radix: int
    leaf_hosts: int

    @property
    def leaves(self) -> int:
        return -(-self.hosts // self.leaf_hosts)

    @property
    def short(self) -> int:
        """Leaves that hold ``leaf_hosts - 1`` hosts."""
        return self.leaves * self.leaf_hosts - self.hosts

    @property
    def ports(self) -> int:
        """Links of a full leaf, ``r - h`` (a short leaf has one more)."""
        return self.radix - self.leaf_hosts

    @property
    def links(self) -> int:
        """Leaf-hub links."""
        return self.leaves * self.ports + self.short

    @property
    def hubs(self) -> int:
        return -(-self.links // self.radix)

    @property
    def capacities(self) -> list[int]:
        """Leaves on each hub: ``links`` shared as evenly as they go, the fuller hubs
        first."""
        lo, extra = divmod(self.links, self.hubs)
        return [lo + 1] * extra + [lo] * (self.hubs - extra)

    @property
    def switches(self) -> int:
        return self.leaves + self.hubs

    @property
    def spare(self) -> bool:
        """Whether some hub keeps a port for a link to another hub."""
        return min(self.capacities) < self.radix

    @property
    def near(self) -> float:
        """The share of the other leaves that a full leaf can have on a common hub: at most
        ``(r - h) (C - 1)`` of the ``P - 1`` (``C`` the fullest hub)."""
        return min(self.leaves - 1, self.ports * (max(self.capacities) - 1)) / (self.leaves - 1)

    @property
    def label(self) -> str:
        h = self.leaf_hosts
        each = f"{h} host{'s' if h > 1 else ''} each" + (
            f", {self.short} with {h - 1}" if self.short else "")
        caps = sorted(set(self.capacities), reverse=True)
        return (f"{self.leaves} leaf switches ({each}) on {self.hubs} hub switches "
                f"({' or '.join(map(str, caps))} leaves each)")

    def possible(self) -> bool:
        """Whether the design exists and connects: every leaf on two hubs or more (the
        hubs distinct), every hub on leaves it has room for, two leaves or more."""
        p, short = self.ports, self.short
        if self.leaf_hosts < 1 or p < 2 or self.leaves < 2:
            return False
        return self.hubs >= p + (1 if short else 0) and max(self.capacities) <= self.leaves

    def bounds(self) -> tuple[int, Fraction] | None:
        """Lower bounds ``(h-diameter, h-ASPL)`` of every graph of this design (leaves
        linked to hubs alone, hubs to leaves and to each other), None where it is not
        :meth:`possible`. From a leaf, the switches ``t`` hops away are at most those of a
        tree in which a leaf has at most ``p + 1`` hubs and a hub at most ``C`` leaves
        (``C - 1`` next to the root) and ``e`` other hubs (``C`` the fullest hub, ``e``
        the most ports a hub keeps for hubs) (:func:`_leaf_levels`). With the heavy leaves
        nearest (the short ones farthest), a full leaf's host-weighted distance sum is at
        least ``W`` and a short one's at least ``W'``, and the h-total at least ``2 C(n, 2)
        + (F h W + S (h - 1) W') / 2`` (``F`` full leaves, ``S`` short)."""
        if not self.possible():
            return None
        n, h, short = self.hosts, self.leaf_hosts, self.short
        half, tops = 0, []
        for own, others_short, count, weight in (
                (self.ports, short, self.leaves - short, h),
                (self.ports + 1, short - 1, short, h - 1)):
            if not count:
                continue
            levels = _leaf_levels(self, own)
            rest = others_short  # the short leaves at the farthest places
            w = h * sum(t * c for t, c in levels)
            for t, c in reversed(levels):
                w -= t * min(c, rest)
                rest -= min(c, rest)
            half += count * weight * w
            tops.append(levels[-1][0])
        pairs = n * (n - 1) // 2
        return max(tops) + 2, Fraction(2 * pairs * 2 + half, 2 * pairs)


def _leaf_levels(hs: HubSpread, own: int) -> list[tuple[int, int]]:
    """``(hops, leaves)`` from a leaf of ``own`` hubs to the other ``P - 1`` leaves, each
    level as full as a tree of the design allows (:meth:`HubSpread.bounds`)."""
    cap = max(hs.capacities)
    extra = hs.radix - min(hs.capacities)  # the most ports a hub keeps for other hubs
    most = hs.ports + (1 if hs.short else 0)  # the most hubs of a leaf
    left, levels = hs.leaves - 1, []
    leaves, hubs, t = 0, own, 1  # the switches at distance t: hubs next to the root
    first = True
    while left > 0:
        t += 1
        new_leaves = hubs * (cap - 1 if first else cap)
        new_hubs = leaves * (most - 1) + hubs * extra
        first = False
        take = min(new_leaves, left)
        if take:
            levels.append((t, take))
        left -= take
        if new_leaves == 0 and new_hubs == 0:
            raise AssertionError("a possible hub spread connects")
        leaves, hubs = new_leaves, new_hubs
    return levels


def hub_spreads(n: int, r: int) -> list[HubSpread]:
    """The hub spreads of ``n`` hosts at radix ``r`` that exist, with at most
    :data:`MAX_LEAVES` leaves, best h-ASPL bound first (then fewer switches)."""
    out = [HubSpread(n, r, h) for h in range(1, r)]
    out = [hs for hs in out if hs.leaves <= MAX_LEAVES and hs.possible()]
    return sorted(out, key=lambda hs: (hs.bounds()[1], hs.switches))
