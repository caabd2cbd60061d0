"""Problem kinds as objects: one class a kind, owning everything golf needs to know about it.

=========================  =====================================================================
``general``                :class:`OrderDegreeProblem` (:mod:`golf.problems.order_degree`):
                           ``n`` vertices of degree ``<= d``, in a symmetry form (cyclic ``g``,
                           a metacyclic group, centre vertices)
``grid``                   :class:`GridProblem` (:mod:`golf.problems.lattice`): the cells of a
                           ``w x h`` lattice, edges at most ``r`` apart, a rotation as symmetry
``host-switch``            :class:`HostSwitchProblem` (:mod:`golf.problems.order_radix`):
                           ``n`` hosts on switches of radix ``d``, scored over the host pairs
=========================  =====================================================================

:func:`kind_of` is the one place that tells a kind from the keys of a ``problem`` section;
the rest of golf builds a problem with :func:`problem_of` and asks it: its order, its
bounds, the shape its evaluators score (:attr:`Problem.shape`, which
:func:`golf.evaluators.decide` reads), its start graphs and edge files, the forms the trials
of ``g: auto`` try, its submission name and its record in summary.json. The config's checks
of a section are the kind's (:meth:`Problem.check`). ``n`` is always the order of the
problem (a host-switch problem's hosts); the switches have their own name.

>>> from golf.problems import problem_of
>>> p = problem_of({"n": 256, "d": 8, "g": 4})
>>> p.kind, p.order, p.bounds().diameter, p.submission_name(4, 89600)
('general', 256, 3, 'n256d8k4l274.edges')
"""

from __future__ import annotations

from golf.problems.lattice import GridProblem
from golf.problems.order_degree import OrderDegreeProblem
from golf.problems.order_radix import HostSwitchProblem
from golf.problems.problem import START_KINDS, Form, Problem, submission_name

__all__ = ["Problem", "Form", "OrderDegreeProblem", "GridProblem", "HostSwitchProblem",
           "KINDS", "kind_of", "problem_of", "submission_name", "START_KINDS"]

# the kinds, by name; kind_of tries them in this order, the general kind last
KINDS = {"host-switch": HostSwitchProblem, "grid": GridProblem, "general": OrderDegreeProblem}


def kind_of(section) -> type:
    """The class of the kind of a ``problem`` section (raw or validated): host-switch where
    it names hosts, a radix or switches, grid where it names a lattice, else general."""
    section = section if isinstance(section, dict) else {}
    return next(cls for cls in KINDS.values() if cls.claims(section))


def problem_of(section: dict, g=None) -> Problem:
    """The problem of a validated ``problem`` section, at its ``g`` or at ``g`` (a polish
    phase's, a cyclic form without centres)."""
    section = dict({"g": 1, "group": None, "centres": 0}, **section)
    return kind_of(section)(section, g)
