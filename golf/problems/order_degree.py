"""The Order/Degree problem (the ``general`` kind): ``n`` vertices of degree at most ``d``,
searched in a symmetry form -- a cyclic ``g`` or a metacyclic group of order ``g``
(:mod:`golf.group`), with centre vertices or without (:mod:`golf.graph`).

**The forms the trials of** ``g: auto`` **try** (:meth:`OrderDegreeProblem.forms`; the
trials themselves: :mod:`golf.run.portfolio`), in the order of priority that a small budget
cuts:

* Cyclic ``g``: the divisors of ``n`` with ``m >= d``, and ``g = 1``; at most
  :data:`CYCLIC_FORMS`, spread evenly over ``log g`` (the largest and ``1`` always). Below
  ``m = d`` a cyclic lift has too few classes to search: (256, 8) did best at ``g = 32``
  and (1024, 8) at ``g = 128`` in cyclic runs (``m = 8`` both).
* Metacyclic groups of order ``n/m`` for ``m`` in :data:`GROUP_M` (1, 2, 4, 8):
  :func:`golf.group.metacyclic_groups` lists the non-abelian ones, one of each
  isomorphism class (an abelian non-cyclic group adds commutator 4-cycles to every lift,
  which is what the non-abelian ones remove). Of each order :data:`GROUPS_PER_ORDER` are
  kept, ranked by :func:`group_prior`: ``a`` near ``1.5 sqrt(g)``, then a large order of
  ``r``, then a large commutator subgroup. The rank is read off the forms that won:
  ``Z_16 ⋊_3 Z_8`` for (256, 8), ``Z_32 ⋊_3 Z_16`` for (1024, 8), ``Z_32 ⋊_3 Z_8`` for
  (512, 8) and (1024, 4), ``Z_73 ⋊_10 Z_64`` for (9344, 6) and ``Z_250 ⋊_3 Z_200`` for
  (100000, 20) each rank first of their order, and the second pick has another ``a``, so
  that the two differ in shape (``results/quality/``).
* ``problem.group: cyclic`` with ``g: auto`` keeps the cyclic forms only.
* Centre-vertex forms (:func:`centre_forms`, :mod:`golf.graph`): ``n = g*m + c`` with
  ``c`` of :data:`CENTRES` (1, 2) and the largest ``g <= d`` that divides ``n - c``, where
  that ``g`` exceeds every other form's: for an order that no useful ``g`` divides (a
  prime; ``n*d`` odd), which otherwise has ``g = 1`` and ``n`` sources to score. (101, 6):
  ``Z_5`` with one centre (20 orbits) and ``Z_3`` with two, where ``g = 1`` is all else.
* Forms whose symmetry leaves more of the ``n*d`` ports free than the fullest form, by more
  than :data:`SHORT_SHARE` of them (:func:`lost_ports`: with ``g`` and ``d`` odd, an odd
  count of orbits leaves an orbit a port short), go after the others: (405, 5) tries ``g = 1``
  and ``g = 9`` before ``g = 81`` (5 orbits) and ``Z_9 ⋊_4 Z_45`` (every vertex at degree 4).
* First of all, where a construction of :mod:`golf.starts.algebraic` lies near ``(n, d)``
  (dense pairs: ``ER_32-line`` for (1024, 32)) and ``problem.start`` is random: ``g = 1`` from
  that construction fitted to the pair, which starts closer to the record than the other
  forms get in their trials.
"""

from __future__ import annotations

import math

from golf.errors import GolfError
from golf.problems.problem import START_KINDS, Form, Problem, check_start_file, submission_name

__all__ = ["OrderDegreeProblem", "divisors", "candidates", "group_prior", "centre_forms",
           "CYCLIC_FORMS", "GROUP_M", "PRIORITY_M", "GROUPS_PER_ORDER", "CENTRES",
           "M_PER_DEGREE", "lost_ports", "SHORT_SHARE"]

# the floor on m = n/g of a cyclic form, in units of d
M_PER_DEGREE = 1
CYCLIC_FORMS = 3
GROUP_M = (1, 2, 4, 8)
# the order in which the first group of each m comes in the portfolio (after the largest
# cyclic g; g = 1 comes fourth): small budgets try the first forms only
PRIORITY_M = (2, 4, 1, 8)
GROUPS_PER_ORDER = 2
# the centre counts of the centre-vertex forms (centre_forms)
CENTRES = (1, 2)
# a form whose symmetry leaves more of the n*d ports free than the fullest form's, by more
# than this share of them, goes after the others (lost_ports)
SHORT_SHARE = 0.01
# the seconds of a random start graph a slot (n * d of them), the cost model of the trials:
# at g = 1 0.21-0.37 us measured on 2 cores (AMD EPYC) at n = 1e5 to 1e6, d = 16 (5.1 s at
# 1e6); a symmetric form's base rows are drawn in no time and its connectivity checked on the
# full graph, ~0.04 us a slot (0.66 s for Z_625 ⋊_7 Z_200 at 1e6, 0.2 ms for cyclic
# g = 62500, which needs no check)
START_SECONDS_PER_SLOT = 4e-7
START_SECONDS_PER_SYMMETRIC_SLOT = 6e-8


def divisors(n: int) -> list[int]:
    """The divisors of ``n``, ascending."""
    small = [k for k in range(1, math.isqrt(n) + 1) if n % k == 0]
    return sorted(set(small + [n // k for k in small]))


def candidates(n: int, d: int, cap: int = CYCLIC_FORMS) -> list[int]:
    """The cyclic orders ``g`` worth a trial, ascending: divisors of ``n`` with ``n/g >= d``,
    and 1; at most ``cap``, spread over ``log g`` (the largest and 1 always).

    >>> candidates(256, 8)
    [1, 8, 32]
    >>> candidates(256, 8, cap=8)
    [1, 2, 4, 8, 16, 32]
    >>> candidates(101, 4)
    [1]
    >>> candidates(64, 8)  # 2 and 4 as far from sqrt(8) in log: the larger
    [1, 4, 8]
    """
    ok = [g for g in divisors(n) if g == 1 or n // g >= M_PER_DEGREE * d]
    if len(ok) <= cap:
        return ok
    top = math.log(ok[-1])
    picked: list[int] = []
    for k in range(cap - 1, -1, -1):
        target = top * k / (cap - 1)
        free = [g for g in ok if g not in picked]
        # a tie (equal distances in log, e.g. 2 and 4 from 8 ** 0.5) goes to the larger g:
        # rounded, so that the last bit of the logarithms does not decide it
        picked.append(min(free, key=lambda g: (round(abs(math.log(g) - target), 9), -g)))
    return sorted(picked)


def lost_ports(n: int, d: int, g: int, centres: int = 0) -> int:
    """Ports of the ``n * d`` that every graph of degree at most ``d`` in the form ``g`` (any
    group of that order; ``centres`` fixed vertices, ``g`` dividing ``n - centres``) leaves
    free. An edge orbit adds 1 to the degree of each vertex of two vertex orbits, or 2 to one
    orbit's, or 1 to one orbit's where an involution joins its vertices in pairs, which a
    group of odd order lacks; a centre joins whole orbits, ``g`` ports a time. So with ``g``
    and ``d`` odd every orbit takes an odd number of links from other orbits and centres, and
    the orbits' count less the centres' links (``c * (d // g)``) must be even, else one orbit
    of ``g`` vertices is a port short; a centre keeps ``d mod g`` ports free. ``g = 1``: one
    port where ``n d`` is odd. (405, 5): ``g = 81`` (5 orbits) leaves 81, ``Z_9 ⋊_4 Z_45``
    (one orbit) 405: every vertex of degree 4.

    >>> lost_ports(405, 5, 81), lost_ports(405, 5, 405), lost_ports(405, 5, 1)
    (81, 405, 1)
    """
    if g == 1:
        return (n * d) % 2
    m = (n - centres) // g
    links = centres * (d // g)
    short = g if g % 2 and d % 2 and (m - links) % 2 else 0
    return centres * (d % g) + short


def group_prior(grp) -> tuple:
    """The rank of a group among those of its order (smaller first; module docstring): how far
    ``a`` is from ``1.5 sqrt(g)`` (in log), less a half of ``log ord(r) / log g`` and 0.3 of
    the commutator subgroup's share of ``Z_a``.

    >>> from golf.group import metacyclic_groups
    >>> min(metacyclic_groups(512), key=group_prior).label
    'Z_32 ⋊_3 Z_16'
    """
    from golf.group import invariants, order_mod

    g = grp.g
    score = (abs(math.log(grp.a / math.sqrt(g)) - math.log(1.5))
             - 0.5 * math.log(order_mod(grp.r, grp.a)) / math.log(g)
             - 0.3 * invariants(grp)[1] / grp.a)
    return (score, grp.a, grp.r)


def _groups_of_order(g: int) -> list:
    """The :data:`GROUPS_PER_ORDER` best groups of order ``g`` by :func:`group_prior`, each
    with an ``a`` of its own."""
    from golf.group import metacyclic_groups

    out, seen_a = [], set()
    for grp in sorted(metacyclic_groups(g), key=group_prior):
        if grp.a not in seen_a:
            out.append(grp)
            seen_a.add(grp.a)
        if len(out) == GROUPS_PER_ORDER:
            break
    return out


def centre_forms(n: int, d: int) -> list[tuple[int, int]]:
    """``(g, c)`` of the centre-vertex forms worth a trial (:mod:`golf.graph`): for each
    ``c`` in :data:`CENTRES`, the largest ``g`` with ``3 <= g <= d`` (a centre takes whole
    orbits of ``g`` vertices; ``g = 2`` would halve the sources only) dividing ``n - c`` with
    ``m = (n - c)/g >= d``.

    >>> centre_forms(101, 6)
    [(5, 1), (3, 2)]
    """
    out = []
    for c in CENTRES:
        ok = [g for g in divisors(n - c) if 3 <= g <= d and (n - c) // g >= M_PER_DEGREE * d]
        if ok:
            out.append((max(ok), c))
    return out


class OrderDegreeProblem(Problem):
    """An Order/Degree problem (``problem: {n, d}``) at a symmetry form: ``g``, ``group``
    (:class:`golf.group.Group`, None for the cyclic one) and ``centres``. At another ``g``
    than the section's (a polish phase's) the form is cyclic, without centres."""

    kind = "general"
    # grid problems (golf.problems.lattice) place the vertices on a lattice
    lattice = False

    def __init__(self, section: dict, g=None):
        from golf.group import parse_group

        super().__init__(section, g)
        # the symmetry group at the section's g (another g, a polish phase's, is cyclic)
        own = self.g == section["g"] and self.g != "auto"
        self.group = parse_group(section.get("group"), self.g, "problem.group") if own else None
        # the centre vertices of the form (golf.graph); another g (a polish's) has none
        self.centres = section.get("centres", 0) if own else 0

    # -- the config ---------------------------------------------------------------------------
    @staticmethod
    def claims(section: dict) -> bool:
        return True  # what the other kinds do not claim

    @classmethod
    def default_name(cls, section: dict) -> str:
        return f"n{section.get('n')}d{section.get('d')}"

    @classmethod
    def check(cls, cfg: dict, where) -> None:
        """The problem section of an Order/Degree (or grid) problem: ``n`` and ``d``; ``g``
        dividing ``n`` (``n - centres``) or ``auto``; a group of order ``g``; centre
        vertices; a start graph this form can take."""
        p, s = cfg["problem"], cfg["search"]
        cls._check_size(p, where)
        if p["d"] is None:
            raise GolfError(f"{where('problem')}: missing problem.d: expected an integer >= 1")
        n, d, g = p["n"], p["d"], p["g"]
        c = p.get("centres", 0)
        if g == "auto":  # resolved by trials before the run (golf.run.portfolio)
            g = 1
            if c:
                raise GolfError(f"{where('problem.centres')}: problem.centres: centres need an "
                                f"integer problem.g (g: auto chooses its own form)")
        if c:
            cls._check_centres(p, s, where)
        elif n % g:
            raise GolfError(f"{where('problem.g')}: problem.g: {g} does not divide n={n}")
        if p["group"] is not None and p["group"] != "cyclic":
            cls._check_group(p, s, where)
        if d >= n:
            raise GolfError(f"{where('problem.d')}: problem.d: expected d < n (a simple graph "
                            f"on {n} vertices has degree <= {n - 1}), got {d}")
        if p["regular"] and (n * d) % 2:
            raise GolfError(f"{where('problem.regular')}: problem.regular: no {d}-regular graph "
                            f"on n={n} vertices exists (n*d is odd); set regular: false")
        if p["regular"] and not c and g % 2 and (n // g * d) % 2:
            raise GolfError(f"{where('problem.regular')}: problem.regular: with odd g={g} every "
                            f"class needs an even slot count m*d={n // g * d}; choose another g")
        start = p["start"]
        if start is not None and start not in START_KINDS:
            check_start_file(start, where)
        if start == "algebraic":
            cls._check_algebraic(p, where)

    @classmethod
    def _check_size(cls, p: dict, where) -> None:
        """``n`` given; no lattice keys (:mod:`golf.problems.lattice` reads them)."""
        if p["n"] is None:
            raise GolfError(f"{where('problem')}: missing problem.n: expected an integer >= 1 "
                            f"(or problem.grid for a grid problem)")
        if p["r"] is not None:
            raise GolfError(f"{where('problem.r')}: problem.r: the edge length limit of a grid "
                            f"problem; set problem.grid too, or leave r out")

    @classmethod
    def _check_centres(cls, p: dict, s: dict, where) -> None:
        """The rules of ``problem.centres`` (:mod:`golf.graph`): ``g >= 2`` divides ``n -
        centres``, a centre takes at least one orbit (``g <= d``), the start is random or a
        file, no lattice, a polish at ``g`` or 1, and a regular graph needs ``g | d``."""
        n, d, g, c = p["n"], p["d"], p["g"], p["centres"]
        at = f"{where('problem.centres')}: problem.centres"
        if cls.lattice:
            raise GolfError(f"{at}: a grid problem has no centre vertices")
        if g < 2 or (n - c) % g:
            raise GolfError(f"{at}: {c} centres need a problem.g >= 2 dividing n - centres = "
                            f"{n - c}, got g={g}")
        if g > d:
            raise GolfError(f"{at}: a centre is adjacent to whole orbits of g={g} vertices, so "
                            f"g must be <= d={d}")
        if c * (d // g) > (n - c) // g * d:
            raise GolfError(f"{at}: {c} centres of {d // g} orbits each need more slots than "
                            f"the {(n - c) // g} base rows hold")
        if p["start"] in ("circulant", "algebraic"):
            raise GolfError(f"{where('problem.start')}: problem.start: {p['start']} starts "
                            f"have no centre vertices; start from random or a file")
        if s["polish_g"] not in (None, 1, g):
            raise GolfError(f"{where('search.polish_g')}: search.polish_g: with centres the "
                            f"polish runs at g={g} or 1, got {s['polish_g']}")
        if p["regular"] and d % g:
            raise GolfError(f"{where('problem.regular')}: problem.regular: a centre has degree "
                            f"g*(d // g) = {g * (d // g)} < d={d}; choose a g dividing d or "
                            f"regular: false")

    @classmethod
    def _check_group(cls, p: dict, s: dict, where) -> None:
        """A metacyclic group ``[a, r]`` of order ``g`` (:mod:`golf.group`)."""
        from golf.group import parse_group

        if p["g"] == "auto" or cls.lattice:
            raise GolfError(f"{where('problem.group')}: problem.group: a group needs an "
                            f"integer problem.g (not auto) and no grid")
        parse_group(p["group"], p["g"], f"{where('problem.group')}: problem.group")
        if s["polish_g"] not in (None, 1, p["g"]):
            raise GolfError(f"{where('search.polish_g')}: search.polish_g: with problem.group "
                            f"the polish runs at g={p['g']} or 1, got {s['polish_g']}")
        if p["start"] == "circulant":
            raise GolfError(f"{where('problem.start')}: problem.start: circulant starts are "
                            f"cyclic; with problem.group start from random or a file")

    @classmethod
    def _check_algebraic(cls, p: dict, where) -> None:
        """``problem.start: algebraic``: ``g = 1``, no lattice or group, a construction near
        the pair (:mod:`golf.starts.algebraic`)."""
        from golf.starts.algebraic import NO_CONSTRUCTION, constructions

        if p["g"] != 1 or cls.lattice or p["group"] not in (None, "cyclic"):
            raise GolfError(f"{where('problem.start')}: problem.start: algebraic starts are "
                            f"not symmetric in golf's numbering and have no lattice: they need "
                            f"problem.g: 1 and no grid")
        if not constructions(p["n"], p["d"]):
            raise GolfError(f"{where('problem.start')}: problem.start: algebraic: no "
                            f"construction lies near (n={p['n']}, d={p['d']}) "
                            f"({NO_CONSTRUCTION})")

    # -- what the run asks --------------------------------------------------------------------
    @property
    def label(self) -> str:
        grp = "" if self.group is None else f" group {self.group.label}"
        cen = f" centres={self.centres}" if self.centres else ""
        return f"n={self.n} d={self.d} g={self.g}{grp}{cen}"

    @property
    def shape(self):
        from golf.evaluators import Shape

        g = self.g if self.g != "auto" else None
        return Shape(self.kind, self.n, self.d, g, self.centres, self.group)

    def bounds(self):
        """The Moore bounds (:func:`golf.lower_bounds.moore_bounds`)."""
        from golf.lower_bounds import moore_bounds

        return moore_bounds(self.n, self.d)

    def start_seconds(self) -> float:
        """:data:`START_SECONDS_PER_SLOT` for each of the ``n * d`` slots at ``g = 1``,
        :data:`START_SECONDS_PER_SYMMETRIC_SLOT` at a symmetric form."""
        per = START_SECONDS_PER_SLOT if self.g == 1 else START_SECONDS_PER_SYMMETRIC_SLOT
        return per * self.n * self.d

    def random_graph(self, seed: int):
        if self.group is not None or self.centres:
            from golf.starts.random import random_group_graph

            return random_group_graph(self.n, self.d, self.group, seed=seed,
                                      centres=self.centres, g=self.g)
        from golf.starts.random import random_graph

        return random_graph(self.n, self.d, self.g, seed=seed)

    def start_graph(self, start, seed: int):
        """``random``, ``circulant`` (the best circulant
        :func:`golf.starts.circulant.find_circulant` finds from the seed), ``algebraic``
        (:func:`golf.starts.algebraic.algebraic_graph`, at ``g = 1``) or an edge-list file."""
        if start == "circulant":
            from golf.starts.circulant import find_circulant

            if self.group is not None:
                raise GolfError("problem.start: circulant starts are cyclic, not "
                                f"{self.group.label}")
            found = find_circulant(self.n, self.d, seed=seed)
            note = (f"start graph: circulant {found.label()} (seed {seed}): diameter "
                    f"{found.diameter}, ASPL {found.aspl:.10f}")
            return found.graph(self.g, self.d), note
        if start == "algebraic":
            from golf.starts.algebraic import algebraic_graph

            return algebraic_graph(self.n, self.d, seed=seed)
        return super().start_graph(start, seed)

    def graph(self, rows):
        from golf.graph import Graph

        return Graph(self.n, self.d, self.g, rows, group=self.group, centres=self.centres)

    def renumber(self, graphs, g: int):
        """``graphs`` of this form as graphs of the cyclic ``g`` (a divisor of this ``g``, the
        polish phase's): every ``g``-symmetric graph is also ``g'``-symmetric for a divisor
        ``g'``, taken apart into the base rows of ``g'``."""
        from golf.graph import Graph

        return [Graph.from_edges(b.edges(), n=b.n, g=g, d=b.d) for b in graphs]

    def read(self, path):
        from golf.io import read_edges

        el = read_edges(path)
        if el.duplicates:
            line, first, u, v = el.duplicates[0]
            raise GolfError(f"{path}:{line}: duplicate edge '{u} {v}' (first on line {first})")
        return el.graph(n=self.n, g=self.g, d=self.d, group=self.group, centres=self.centres)

    def write(self, path, graph) -> None:
        from golf.io import write_edges

        write_edges(path, graph)  # straight from the base rows

    def submission_name(self, diameter: int, total: int) -> str:
        return submission_name(self.n, self.d, diameter, total)

    def forms(self):
        """The portfolio (module docstring)."""
        from golf.starts.algebraic import construction_for

        section, n, d = self.section, self.n, self.d
        floor = "d" if M_PER_DEGREE == 1 else f"{M_PER_DEGREE}d"
        cyclic = [Form(g) for g in sorted(candidates(n, d), reverse=True)]
        rule = (f"cyclic g: divisors of n={n} with m = n/g >= {floor} = {M_PER_DEGREE * d}, "
                f"and 1 (at most {CYCLIC_FORMS})")
        if section.get("group") == "cyclic":
            return cyclic, rule + "; problem.group: cyclic"
        groups = {m: [Form(n // m, grp) for grp in _groups_of_order(n // m)]
                  for m in GROUP_M if n % m == 0 and n // m >= 6}
        # the order of priority, which a small budget cuts (golf.run.portfolio)
        first = [groups[m][0] for m in PRIORITY_M if groups.get(m)]
        lead = first[:2] + cyclic[-1:] + first[2:]
        rest = cyclic[1:-1] + [f for m in PRIORITY_M for f in groups.get(m, [])[1:]]
        out = cyclic[:1] + [f for f in lead if f not in cyclic[:1]] + rest
        rule += (f"; metacyclic groups of order n/m for m in {list(GROUP_M)}, "
                 f"{GROUPS_PER_ORDER} an order (golf.problems.order_degree.group_prior)")
        top = max(f.g for f in out)
        centred = [Form(g, None, None, c) for g, c in centre_forms(n, d) if g > top]
        random_start = section.get("start") in (None, "random")
        if centred and random_start:
            out = out[:1] + centred + out[1:]
            rule += (f"; with centres: n - c = g*m for c in {list(CENTRES)}, 3 <= g <= d, "
                     f"m >= d, the largest g of each c, where it beats every other form's g")
        lost = [lost_ports(n, d, f.g, f.centres) for f in out]
        short = [f for f, k in zip(out, lost) if k - min(lost) > SHORT_SHARE * n * d]
        if short:  # a form that must leave vertices a port short goes after the others
            out = [f for f in out if f not in short] + short
            rule += (f"; last, the forms whose symmetry leaves more than {SHORT_SHARE:.0%} of "
                     f"the n*d ports free beyond the fullest form's "
                     f"(golf.problems.order_degree.lost_ports): "
                     + ", ".join(f.label(n) for f in short))
        found = construction_for(n, d) if random_start else None
        if found is not None:  # first: for a dense pair it starts far closer than any other
            out.insert(0, Form(1, None, found.name))
            rule += f"; first, g=1 from the algebraic start {found.label}"
        return out, rule

    def warm_up_section(self):
        return dict(self.section, n=16, d=3, start=None, regular=False)

    def summary(self) -> dict:
        return {"kind": self.kind, "n": self.n, "d": self.d, "g": self.g}
