"""What every problem kind shares: the :class:`Problem` interface, the symmetry :class:`Form`
of a trial, and the competition's file names.

A *kind* is one class (:mod:`golf.problems`): it reads its section of a config, checks it,
and from then on answers every question the rest of golf asks about the problem -- its
order and bounds, the shape its evaluators score, its start graphs and files, the forms the
trials of ``g: auto`` may try, its submission name and its record in summary.json -- so that
nothing outside the kinds branches on the keys of the section.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from golf.errors import GolfError

__all__ = ["Problem", "Form", "submission_name", "START_KINDS", "check_start_file"]

# problem.start values that name a generated start graph, not a file
START_KINDS = ("random", "circulant", "algebraic")


def check_start_file(start: str, where, key: str = "problem.start") -> None:
    """``problem.start`` names a regular file golf may read; a GolfError naming the config's
    file and line (``where(key)``) and why not."""
    p = Path(start)
    try:
        if "\0" in start:
            why = f"{start!r} contains a NUL character"
        elif not p.exists():
            why = (f"no such edge-list file {start!r} (expected "
                   f"{', '.join(START_KINDS)} or an edge-list file)")
        elif p.is_dir():
            why = f"{start!r} is a folder, expected an edge-list file"
        elif not p.is_file():
            why = (f"{start!r} is not a regular file (a device or a pipe), expected an "
                   f"edge-list file")
        elif not os.access(p, os.R_OK):
            why = f"no permission to read {start!r}"
        else:
            return
    except OSError as exc:  # a name too long, ...
        why = f"cannot use {start!r}: {exc.strerror or exc}"
    raise GolfError(f"{where(key)}: {key}: {why}")


def submission_name(n: int, d: int, diameter: int, total: int, grid=None) -> str:
    """The competition's file name ``n{n}d{d}k{diameter}l{floor(100*ASPL)}.edges``, or for a
    grid problem (a :class:`golf.grid.Grid`) ``w{w}h{h}d{d}r{r}k{diameter}l{..}.edges``; the
    floor of ``100 * ASPL = 200 * total / (n(n-1))`` is taken exactly, in integers."""
    head = f"n{n}d{d}" if grid is None else f"w{grid.w}h{grid.h}d{d}r{grid.r}"
    return f"{head}k{diameter}l{200 * int(total) // (n * (n - 1))}.edges"


@dataclass(frozen=True)
class Form:
    """A symmetry form: order ``g`` and ``group`` (a :class:`golf.group.Group`, None for the
    cyclic ``Z_g``); ``construction`` names the algebraic start graph of a ``g = 1`` form that
    starts from one (``ER_32-line``: :mod:`golf.starts.algebraic`), None for the config's start;
    ``centres`` the centre vertices (:mod:`golf.graph`, ``g`` divides ``n - centres``);
    ``switches`` the number of switches of a host-switch problem (:mod:`golf.hostswitch`;
    0 for the others)."""

    g: int
    group: object = None
    construction: str | None = None
    centres: int = 0
    switches: int = 0

    @property
    def spec(self):
        """``problem.group``'s value: ``[a, r]`` or None."""
        return None if self.group is None else self.group.spec

    @property
    def start(self) -> str | None:
        """``problem.start``'s value for this form (None: the config's)."""
        return None if self.construction is None else "algebraic"

    def label(self, n: int) -> str:
        m = (n - self.centres) // self.g
        if self.switches:
            return (f"{self.construction}: " if self.construction else "") + (
                f"{self.switches} switches")
        if self.construction is not None:
            return f"{self.construction} fitted, g=1 (m={m})"
        if self.centres:
            c = self.centres
            return f"cyclic g={self.g} (m={m}) + {c} centre{'s' if c > 1 else ''}"
        if self.group is None:
            return f"cyclic g={self.g} (m={m})"
        return f"{self.group.label} (g={self.g}, m={m})"

    def record(self, n: int) -> dict:
        out = {"g": self.g, "group": self.spec, "m": (n - self.centres) // self.g,
               "label": self.label(n)}
        if self.start is not None:
            out.update(start=self.start, construction=self.construction)
        if self.centres:
            out["centres"] = self.centres
        if self.switches:
            out.update(switches=self.switches, m=self.switches)
        return out

    @classmethod
    def from_record(cls, rec: dict, where: str = "the checkpoint") -> "Form":
        """The form of a trials' record (:meth:`record`, as summary.json and the checkpoints
        keep it under ``auto_g.form``)."""
        from golf.group import parse_group

        g, c, sw = rec.get("g"), rec.get("centres", 0), rec.get("switches", 0)
        if (not isinstance(g, int) or g < 1 or not isinstance(c, int) or c < 0
                or not isinstance(sw, int) or sw < 0):
            raise GolfError(f"{where} records no g chosen by the trials")
        group = parse_group(rec.get("group"), g, f"{where}: its auto_g.form.group")
        construction = None
        if rec.get("start") == "algebraic":
            construction = rec.get("construction") or "algebraic"
        return cls(g, group, construction, c, sw)

    def changes(self) -> list:
        """The ``(section, key, value)`` settings of a config that this form sets: the
        symmetry (or the switches), and for an algebraic start the start and
        ``search.method: hill``. From a construction near the Moore bound almost every swap
        is uphill: annealing at the temperatures sampled from it never went below it on
        (1024, 32) (12.4 M evaluations in 10 minutes on 2 cores), where hill climbing (plateau
        moves taken) went from ASPL 2.039952 to 2.034921 in 60 s."""
        out = [("problem", "g", self.g), ("problem", "group", self.spec),
               ("problem", "centres", self.centres)]
        if self.switches:
            out.append(("problem", "switches", self.switches))
        if self.start is not None:
            out += [("problem", "start", self.start), ("search", "method", "hill")]
        return out


class Problem:
    """A problem of one kind, at one symmetry form: built from the ``problem`` section of a
    validated config (:func:`golf.problems.problem_of`), at the section's ``g`` or another
    (the polish phase's; with ``g: auto`` the trials build one a form).

    Attributes every kind has: ``kind`` (``general``, ``grid`` or ``host-switch``), ``n`` the
    order (the vertices whose pairs the score averages over: the hosts of a host-switch
    problem), ``d`` the degree bound (a host-switch problem's radix), ``g`` the symmetry
    order (``auto`` while the trials have not chosen it), ``section`` the config section."""

    kind = "?"

    def __init__(self, section: dict, g=None):
        self.section = section
        self.n, self.d = section["n"], section["d"]
        self.g = g if g is not None else section["g"]

    # -- the config ---------------------------------------------------------------------------
    @staticmethod
    def claims(section: dict) -> bool:
        """Whether a ``problem`` section (raw or validated) is of this kind."""
        raise NotImplementedError

    @classmethod
    def check(cls, cfg: dict, where) -> None:
        """Check a config whose sections hold their defaults and fill in what the kind
        derives (``n`` of a grid, the switches of a host-switch problem); a GolfError naming
        the file, the line and the key (``where(key)``) for anything it cannot take."""
        raise NotImplementedError

    @classmethod
    def default_name(cls, section: dict) -> str:
        """A problem's folder name when the config gives none (the competition's names)."""
        raise NotImplementedError

    # -- what the run asks --------------------------------------------------------------------
    @property
    def order(self) -> int:
        """The vertices whose pairs the score averages over (``n``)."""
        return self.n

    @property
    def label(self) -> str:
        raise NotImplementedError

    @property
    def shape(self):
        """What an evaluator of this problem scores (:class:`golf.evaluators.Shape`)."""
        raise NotImplementedError

    def bounds(self):
        """The lower bounds (:class:`golf.lower_bounds.Bounds`)."""
        raise NotImplementedError

    def reach(self):
        """The moves' length limit (a grid's; None for the others)."""
        return None

    def start_seconds(self) -> float | None:
        """The predicted seconds of its random start graph (the trials of ``g: auto`` skip a
        form whose set-up cannot fit its slice); None where there is no model."""
        return None

    @property
    def host_moves(self) -> bool:
        """Whether the moves move hosts (a host-switch graph's)."""
        return False

    def random_graph(self, seed: int):
        """A random connected start graph of the problem at this form."""
        raise NotImplementedError

    def start_graph(self, start: str | None, seed: int):
        """The start graph of ``problem.start`` (None: random) at this form, and a note for
        the log on what it is (None where there is nothing to say)."""
        if start in (None, "random"):
            return self.random_graph(seed), None
        return self.read(start), None

    def graph(self, rows):
        """The graph of base rows at this form (a trial's best rows)."""
        raise NotImplementedError

    def read(self, path):
        """The graph of an edge file (``problem.start``, a run's best.edges) at this form:
        the competition's format for the kind, every rule checked, errors naming the file
        and line."""
        raise NotImplementedError

    def write(self, path, graph) -> None:
        """Write ``graph`` in the kind's edge-file format, atomically."""
        raise NotImplementedError

    def submission_name(self, diameter: int, total: int) -> str:
        """The competition's file name for a result."""
        raise NotImplementedError

    def check_graph(self, graph) -> None:
        """The rules a result must keep beyond :meth:`golf.graph.Graph.check`."""

    def forms(self) -> tuple[list, str]:
        """The forms the trials of ``g: auto`` try, in the order of priority that a small
        budget cuts, and the rule that made them."""
        raise NotImplementedError

    def at_form(self, form: Form) -> "Problem":
        """The problem at ``form`` (a trial's)."""
        section = dict(self.section)
        for where, key, value in form.changes():
            if where == "problem":
                section[key] = value
        return type(self)(section)

    def warm_up_section(self):
        """A small problem section of this kind for compiling, before the trials' clock
        starts, the code its trials run (:func:`golf.run.portfolio.warm_up`); None where
        nothing is compiled that way."""
        return None

    def summary(self) -> dict:
        """The problem's record in summary.json."""
        raise NotImplementedError
