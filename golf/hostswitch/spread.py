"""Host-switch graphs from Order/Degree graphs: the hosts spread over the switches, the switch
graph an Order/Degree graph.

With ``w_a`` hosts on switch ``a``, two hosts on one switch are 2 hops apart and two on
switches ``a != b`` are ``2 + dist(a, b)`` apart, so the h-total of a host-switch graph is

    ``2 C(n, 2) + sum_{a < b} w_a w_b dist(a, b)``

and its h-diameter is ``2 +`` the switch graph's diameter (over the switches that hold hosts).
A **spread** (:class:`Spread`) is a number of switches ``s`` with the ``n`` hosts as even as
they go: ``most = ceil(n / s)`` on each, ``s * most - n`` switches one host short. Every
switch then keeps ``k = r - most`` ports for links, and the switch graph is an Order/Degree
problem ``(s, k)``: with ``h`` hosts on every switch (``n = s h``) its h-total is ``2 C(n, 2)
+ h^2 total`` (:meth:`Spread.h_score`), so the smallest switch graph is the smallest
host-switch graph of the spread, and golf's Order/Degree engine (symmetry groups, device
chains, algebraic starts) searches it. A short switch keeps a port more, which the
host-switch search may use afterwards.

:func:`spreads` lists the spreads worth trying for ``(n, r)``, one a host count ``h = 1, 2,
...`` (``s = ceil(n / h)``), ranked by the lower bound each gives (:meth:`Spread.bounds`).
:func:`golf.starts.switch_wiring.spread_ports` builds the host-switch graph of a switch graph
(the short switches the ones farthest from the hosts).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction


from golf.errors import GolfError

__all__ = ["Spread", "spreads"]


@dataclass(frozen=True)
class Spread:
    """``hosts`` hosts on ``switches`` switches of radix ``radix``, as even as they go: the
    remainder as switches one host short (``ceil(n / s)`` hosts a switch) or, with ``over``,
    as switches one host over (``floor(n / s)`` a switch; each of those gives up a link)."""

    hosts: int
    radix: int
    switches: int
    over: bool = False

    @property
    def most(self) -> int:
        """Hosts on the fullest switch, ``ceil(n / s)``."""
        return -(-self.hosts // self.switches)

    @property
    def base(self) -> int:
        """Hosts on a switch that is neither short nor over: ``ceil(n / s)``, or
        ``floor(n / s)`` with :attr:`over`."""
        return self.hosts // self.switches if self.over else self.most

    @property
    def degree(self) -> int:
        """Ports a switch keeps for links: ``r - base`` (one less on a switch one host
        over)."""
        return self.radix - self.base

    @property
    def short(self) -> int:
        """Switches that hold ``most - 1`` hosts."""
        return 0 if self.over else self.switches * self.most - self.hosts

    @property
    def heavy(self) -> int:
        """Switches that hold ``base + 1`` hosts (with :attr:`over`)."""
        return self.hosts - self.switches * self.base if self.over else 0

    @property
    def even(self) -> bool:
        return self.short == 0 and self.heavy == 0

    @property
    def label(self) -> str:
        each = f"{self.base} host{'s' if self.base > 1 else ''} each"
        h = (each if self.even else f"{each}, {self.short} with {self.most - 1}" if self.short
             else f"{each}, {self.heavy} with {self.base + 1}")
        return (f"{self.switches} switches ({h}; switch degree {self.degree}"
                + (f", {self.degree - 1} on those" if self.heavy else "") + ")")

    def possible(self) -> bool:
        """Whether a connected switch graph of degree :attr:`degree` on :attr:`switches`
        vertices exists (a path needs 2 ports, one switch none; a switch one host over
        keeps one port fewer, at least one)."""
        s, k = self.switches, self.degree
        if self.heavy and (k < 2 or s < 2):
            return False
        return s == 1 or (k >= 1 and s == 2) or k >= 2

    def bounds(self) -> tuple[int, Fraction] | None:
        """Lower bounds ``(h-diameter, h-ASPL)`` of every host-switch graph of this spread,
        None where no switch graph connects. At most ``k (k-1)^(t-1)`` switches lie ``t``
        hops from a switch, so the h-diameter is at least ``D + 2`` with ``D`` the Moore
        diameter of the switches that hold hosts and degree ``k``; and a switch's
        host-weighted distance sum ``sum_b w_b dist(a, b)`` is at least that of the nearest
        places filled with the fullest switches (the short ones farthest, all but one of the
        ones over nearest), ``W``, so the h-total is at least ``2 C(n, 2) + n W / 2`` (for an
        even spread ``2 C(n, 2) + h^2 C(s, 2) L``, ``L`` the Moore bound on the ASPL of
        ``(s, k)``)."""
        n, s, k = self.hosts, self.switches, min(self.degree, self.switches - 1)
        if not self.possible():
            return None
        if n < 2:
            return 0, Fraction(0)
        if s == 1:
            return 2, Fraction(2)
        levels = _moore_levels(s, k)
        far, rest = 0, self.short  # the short switches at the farthest places
        for t, c in reversed(levels):
            far += t * min(c, rest)
            rest -= min(c, rest)
        near, rest = 0, max(self.heavy - 1, 0)  # those one over at the nearest
        for t, c in levels:
            near += t * min(c, rest)
            rest -= min(c, rest)
        w = self.base * sum(t * c for t, c in levels) - far + near
        hosted = s - self.short if self.base == 1 else s  # the switches with hosts
        top = _moore_levels(hosted, k)[-1][0] if hosted > 1 else 0
        pairs = n * (n - 1) // 2
        return top + 2, Fraction(2 * pairs * 2 + n * w, 2 * pairs)

    def h_score(self, diameter: int, total: int) -> tuple[int, int]:
        """The exact ``(h-diameter, h-total)`` of an even spread whose switch graph scores
        ``(diameter, total)`` (module docstring)."""
        if not self.even:
            raise GolfError(f"{self.label}: the h-scores of an uneven spread depend on "
                            f"which switches are short: score its host-switch graph")
        n, h = self.hosts, self.base
        if self.switches == 1:
            return (2 if n > 1 else 0), n * (n - 1)
        return diameter + 2, n * (n - 1) + h * h * total


def _moore_levels(count: int, k: int) -> list[tuple[int, int]]:
    """``(distance, vertices)`` of the Moore tree that holds ``count - 1`` vertices around
    one of degree ``k >= 1`` (``count >= 2``)."""
    left, width, t, levels = count - 1, k, 0, []
    while left > 0:
        t += 1
        take = min(width, left)
        levels.append((t, take))
        left -= take
        width *= max(k - 1, 1)
    return levels


def spreads(n: int, r: int) -> list[Spread]:
    """The spreads of ``n`` hosts on switches of radix ``r`` worth a trial: for each host
    count ``h`` a switch, the fewest switches that hold the hosts at ``h`` (``s = ceil(n /
    h)``, the remainder short) and the most that hold ``h`` each (``s = floor(n / h)``, the
    remainder over), those whose switch graph can connect, each once, best lower bound first
    (:meth:`Spread.bounds`: the h-diameter, then the h-ASPL; then fewer switches, the short
    form first)."""
    from golf.hostswitch.radix_bounds import fewest_switches

    least = fewest_switches(n, r)
    if least is None:
        raise GolfError(f"no switches of radix {r} connect {n} hosts")
    seen: dict[tuple, Spread] = {}
    for h in range(1, min(n, r) + 1):
        for sp in (Spread(n, r, -(-n // h)), Spread(n, r, n // h, over=True)):
            key = (sp.switches, sp.over)
            if (sp.switches >= least and key not in seen and (not sp.over or sp.heavy)
                    and sp.bounds() is not None):
                seen[key] = sp
    return sorted(seen.values(), key=lambda sp: (*sp.bounds(), sp.switches, sp.over))
