"""Host-switch problems (the ``host-switch`` kind; the Order/Radix problem of Graph Golf 2021,
:mod:`golf.hostswitch`): ``n`` hosts, each on one switch, and switches of radix ``r`` joined
to hosts and to each other; the score is over the host pairs (h-diameter, h-ASPL).

``n`` is the order, the hosts; ``d`` the radix; the number of switches is ``switches``, a
form of the problem like a symmetry: fixed, or chosen by the trials (``switches: auto``).

**The forms the trials try** (:func:`switch_forms`): the suggested number of switches, the
even spread's, and the first times :data:`SWITCH_FACTORS`; before them, where polarity graphs
``ER_q`` hold the hosts, the two smallest as the switch graph (h-diameter 4 from the start).
"""

from __future__ import annotations

import math

from golf.errors import GolfError
from golf.problems.problem import START_KINDS, Form, Problem, check_start_file

__all__ = ["HostSwitchProblem", "switch_forms", "SWITCH_FACTORS", "POLARITY_FORMS"]

# the numbers of switches a host-switch problem tries, relative to the suggested one
SWITCH_FACTORS = (0.8, 1.25, 0.64, 1.56)
# the polarity graphs ER_q a host-switch problem tries as its switch graph, the smallest q
# that hold the hosts first: ER_16 for (4608, 36) starts at h-diameter 4, 3.923119, where
# the random starts' annealing reached h-diameter 5 (results/hostswitch/)
POLARITY_FORMS = 2


def _connects(hosts: int, switches: int, r: int) -> bool:
    """Whether ``switches`` switches of radix ``r`` can hold ``hosts`` hosts evenly with a
    port for a link on each (and a tree's links in all)."""
    sw = switches
    return sw == 1 or (-(-hosts // sw) < r and sw * r - hosts >= 2 * (sw - 1))


def switch_forms(hosts: int, r: int) -> tuple[list[Form], str]:
    """The numbers of switches a host-switch problem tries: the one of
    :func:`golf.hostswitch.radix_bounds.suggested_switches` first, then the one of
    :func:`~golf.hostswitch.radix_bounds.even_switches` (the hosts spread evenly over a real
    degree; 101 against 108 on (432, 12), 196 against 200 on (10000, 100)), then the first
    times :data:`SWITCH_FACTORS`, each rounded, those that can connect the hosts (a port for
    a link on every switch) with no more switches than hosts, each once; before them the
    polarity graphs that hold the hosts (module docstring)."""
    from golf.hostswitch.radix_bounds import even_switches, fewest_switches, suggested_switches
    from golf.starts.switch_wiring import polarity_fits

    best = suggested_switches(hosts, r)
    even = even_switches(hosts, r)
    least = fewest_switches(hosts, r)
    out: list[int] = []
    for f in (1.0, even / best, *SWITCH_FACTORS):
        sw = max(least, int(round(best * f)))
        if _connects(hosts, sw, r) and sw not in out and sw <= hosts:
            out.append(sw)
    rule = (f"switches: {best} (the smallest estimate of the h-ASPL: golf.hostswitch."
            f"radix_bounds.suggested_switches), {even} (hosts spread evenly: even_switches), "
            f"and {best} times {', '.join(map(str, SWITCH_FACTORS))}")
    forms = [Form(1, switches=sw) for sw in out]
    qs = polarity_fits(hosts, r)[:POLARITY_FORMS]
    if qs:  # first: h-diameter 4 from the start wherever they hold the hosts
        forms = [Form(1, construction=f"ER_{q}", switches=q * q + q + 1) for q in qs] + forms
        rule = (f"first the polarity graphs {', '.join(f'ER_{q}' for q in qs)} as the switch "
                f"graph (diameter 2: golf.starts.switch_wiring.polarity_ports), then " + rule)
    return forms, rule


class HostSwitchProblem(Problem):
    """A host-switch problem (``problem: {hosts, radix}``): ``n`` hosts, radix ``d``, on
    ``switches`` switches (None while the trials have not chosen them)."""

    kind = "host-switch"

    def __init__(self, section: dict, g=None):
        super().__init__(section, g)
        sw = section.get("switches")
        self.switches = sw if isinstance(sw, int) else None
        self.group, self.centres = None, 0

    # -- the config ---------------------------------------------------------------------------
    @staticmethod
    def claims(section: dict) -> bool:
        return any(section.get(k) is not None for k in ("hosts", "radix", "switches"))

    @classmethod
    def default_name(cls, section: dict) -> str:
        return f"h{section.get('hosts')}r{section.get('radix', section.get('d'))}"

    @classmethod
    def check(cls, cfg: dict, where) -> None:
        """The hosts and the radix given; ``n`` the hosts and ``d`` the radix from here on,
        ``g = 1`` (``auto`` while the trials choose the switches); no lattice, group or
        centres; a random start, a polarity graph or an ORP file; annealing (sa or hill)."""
        p, s = cfg["problem"], cfg["search"]
        at = where("problem")
        if p["hosts"] is None:
            raise GolfError(f"{at}: problem.radix and problem.switches belong to a host-switch "
                            f"problem: set problem.hosts too")
        r = p["radix"] if p["radix"] is not None else p["d"]
        if r is None:
            raise GolfError(f"{at}: missing problem.radix: a host-switch problem needs the "
                            f"ports a switch (an integer >= 1)")
        if p["d"] is not None and p["d"] != r:
            raise GolfError(f"{where('problem.d')}: problem.d: a host-switch problem's degree "
                            f"is its radix ({r}); leave d out")
        n = p["hosts"]
        trials = p["switches"] == "auto" or (p["switches"] is None and p["g"] == "auto")
        # a run.yaml written before n was the order held the switches in n
        if p["n"] is not None and p["n"] != n and not (trials or p["n"] == p["switches"]):
            raise GolfError(f"{where('problem.n')}: problem.n: a host-switch problem's order "
                            f"is its hosts ({n}); leave n out")
        for key, bad in (("grid", p["grid"] is not None),
                         ("group", p["group"] not in (None, "cyclic")),
                         ("centres", p["centres"]), ("g", p["g"] not in (1, "auto")),
                         ("regular", p["regular"])):
            if bad:
                raise GolfError(f"{where('problem.' + key)}: problem.{key}: not for a "
                                f"host-switch problem (problem.hosts, radix and switches set "
                                f"it)")
        from golf.hostswitch.radix_bounds import fewest_switches, suggested_switches

        least = fewest_switches(n, r)
        if least is None:
            raise GolfError(f"{at}: no switches of radix {r} connect {n} hosts")
        sw = (p["switches"] if p["switches"] not in (None, "auto")
              else suggested_switches(n, r))
        if sw < least or (sw == 1 and n > r) or (sw > 1 and not _connects(n, sw, r)):
            raise GolfError(f"{where('problem.switches')}: problem.switches: {sw} switches of "
                            f"radix {r} cannot connect {n} hosts (at least {least}, with a port "
                            f"for a link on each)")
        p.update(n=n, d=r, g="auto" if trials else 1, radix=r,
                 switches="auto" if trials else sw)
        start = p["start"]
        if start == "algebraic":  # the polarity graph ER_q as the switch graph
            from golf.starts.switch_wiring import polarity_fits

            fits = [q * q + q + 1 for q in polarity_fits(n, r)]
            if trials or sw not in fits:
                raise GolfError(f"{where('problem.start')}: problem.start: algebraic: a "
                                f"host-switch problem starts from a polarity graph ER_q with "
                                f"problem.switches q^2 + q + 1, one whose switches hold the "
                                f"hosts at radix {r}: "
                                + (", ".join(map(str, fits)) if fits else "none for this pair"))
        elif start not in (None, "random"):
            if start in START_KINDS:
                raise GolfError(f"{where('problem.start')}: problem.start: a host-switch "
                                f"problem starts from random, algebraic or an ORP file, not "
                                f"{start}")
            check_start_file(start, where)
        if s["method"] == "tabu" or s["polish"] > 0:
            key = "method" if s["method"] == "tabu" else "polish"
            raise GolfError(f"{where('search.' + key)}: search.{key}: a host-switch problem "
                            f"anneals (sa or hill); the tabu search takes no host moves")

    # -- what the run asks --------------------------------------------------------------------
    @property
    def label(self) -> str:
        return f"host-switch: {self.n} hosts, {self.switches} switches of radix {self.d}"

    @property
    def shape(self):
        from golf.evaluators import Shape

        return Shape(self.kind, self.n, self.d, 1, switches=self.switches)

    @property
    def host_moves(self) -> bool:
        return True

    def bounds(self):
        """The bounds over every number of switches
        (:func:`golf.hostswitch.radix_bounds.host_switch_bounds`)."""
        from golf.hostswitch.radix_bounds import host_switch_bounds

        return host_switch_bounds(self.n, self.d)

    def random_graph(self, seed: int):
        from golf.hostswitch.ports import PortGraph
        from golf.starts.switch_wiring import random_ports

        return PortGraph(self.n, random_ports(self.n, self.switches, self.d, seed))

    def start_graph(self, start, seed: int):
        """``random``, ``algebraic`` (the polarity graph ER_q as the switches,
        :func:`golf.starts.switch_wiring.polarity_ports`) or an ORP file."""
        if start == "algebraic":
            from golf.hostswitch.ports import PortGraph
            from golf.starts.switch_wiring import polarity_ports

            s = self.switches
            q = round((math.sqrt(4 * s - 3) - 1) / 2)  # s = q^2 + q + 1 switches
            note = (f"start graph: the polarity graph ER_{q} as the {s} switches, the hosts "
                    f"spread evenly, free ports joined")
            return PortGraph(self.n, polarity_ports(self.n, self.d, q, seed)), note
        return super().start_graph(start, seed)

    def graph(self, rows):
        from golf.hostswitch.ports import PortGraph

        return PortGraph(self.n, rows)

    def read(self, path):
        """An ORP file (mnakao's format) of these hosts, switches and radix."""
        from golf.hostswitch.orp_format import read_host_switch
        from golf.hostswitch.ports import PortGraph, to_ports

        net = read_host_switch(path)
        if (net.n, net.s, net.r) != (self.n, self.switches, self.d):
            raise GolfError(f"{path}: a host-switch graph of {net.n} hosts, {net.s} switches, "
                            f"radix {net.r}; this problem has {self.n}, {self.switches}, "
                            f"{self.d}")
        return PortGraph(self.n, to_ports(net))

    def write(self, path, graph) -> None:
        from golf.hostswitch.orp_format import write_host_switch

        write_host_switch(path, graph.net())

    def submission_name(self, diameter: int, total: int) -> str:
        """``h{hosts}r{radix}k{h-diameter}l{floor(100 h-ASPL)}.edges``."""
        n = self.n
        return f"h{n}r{self.d}k{diameter}l{200 * int(total) // (n * (n - 1))}.edges"

    def check_graph(self, graph) -> None:
        """Every rule of the ports (:meth:`golf.hostswitch.ports.PortGraph.check`)."""
        graph.check()

    def forms(self):
        return switch_forms(self.n, self.d)

    def summary(self) -> dict:
        return {"kind": self.kind, "hosts": self.n, "radix": self.d,
                "switches": self.switches}
