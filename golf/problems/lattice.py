"""Grid problems (the ``grid`` kind, Graph Golf 2019): the ``w*h`` vertices are the cells of a
lattice (:mod:`golf.grid`), every edge joins cells at most ``r`` apart, and the symmetry is a
rotation of the lattice (``g`` = 1, 2 or 4, where the lattice allows it). An Order/Degree
problem otherwise: scored by the same backends, searched by the same moves with a length
limit. The trials of ``g: auto`` try the rotations the lattice allows.
"""

from __future__ import annotations

from golf.errors import GolfError
from golf.problems.order_degree import OrderDegreeProblem
from golf.problems.problem import Form

__all__ = ["GridProblem"]


class GridProblem(OrderDegreeProblem):
    """A grid problem (``problem: {grid: [w, h], d, r}``) at a rotation ``g``; ``grid`` is
    its :class:`golf.grid.Grid` (the cells numbered for ``g``)."""

    kind = "grid"
    lattice = True

    def __init__(self, section: dict, g=None):
        from golf.grid import Grid

        super().__init__(section, g)
        w, h = section["grid"]
        self.grid = Grid(w, h, section["r"], self.g if self.g != "auto" else 1)

    @staticmethod
    def claims(section: dict) -> bool:
        return section.get("grid") is not None

    @classmethod
    def default_name(cls, section: dict) -> str:
        from golf.grid import parse_size

        try:
            w, h = parse_size(section["grid"])
        except GolfError:
            return OrderDegreeProblem.default_name(section)  # validate() names the bad size
        return f"w{w}h{h}d{section.get('d')}r{section.get('r')}"

    @classmethod
    def _check_size(cls, p: dict, where) -> None:
        """``n = w*h`` (given or not), ``r`` given, ``g`` a rotation the lattice allows,
        no circulant start."""
        from golf.grid import symmetry_problem

        w, h = p["grid"]
        if p["n"] is not None and p["n"] != w * h:
            raise GolfError(f"{where('problem.n')}: problem.n: a {w}x{h} grid has n={w * h}, "
                            f"got {p['n']} (leave n out)")
        p["n"] = w * h
        if p["r"] is None:
            raise GolfError(f"{where('problem')}: missing problem.r: a grid problem needs the "
                            f"longest edge r (an integer >= 1, in Manhattan distance)")
        if p["g"] != "auto":
            why = symmetry_problem(w, h, p["g"])
            if why:
                raise GolfError(f"{where('problem.g')}: problem.g: {why}")
        if p["start"] == "circulant":
            raise GolfError(f"{where('problem.start')}: problem.start: circulant starts are "
                            f"for problems without a lattice; a grid problem starts from random "
                            f"or an edge file")

    @property
    def label(self) -> str:
        return (f"grid {self.grid.label} (n={self.n}) d={self.d} r={self.grid.r} "
                f"g={self.g}")

    def bounds(self):
        """The lattice bound (:func:`golf.lower_bounds.grid_bounds`)."""
        from golf.lower_bounds import grid_bounds

        return grid_bounds(self.grid.w, self.grid.h, self.d, self.grid.r)

    def reach(self):
        """The moves' length limit (:meth:`golf.grid.Grid.reach`)."""
        return self.grid.reach()

    def random_graph(self, seed: int):
        from golf.starts.random_grid import random_grid_graph

        return random_grid_graph(self.grid, self.d, seed=seed)

    def read(self, path):
        """A grid file (cells ``x,y``)."""
        from golf.grid import is_grid_file, read_grid_edges

        if not is_grid_file(path):
            raise GolfError(f"{path}: a grid problem reads cells 'x,y' (one edge 'x1,y1 x2,y2' "
                            f"a line); this file holds vertex ids")
        ge = read_grid_edges(path, size=(self.grid.w, self.grid.h))
        if ge.duplicates:
            line, first, text = ge.duplicates[0]
            raise GolfError(f"{path}:{line}: duplicate edge '{text}' (first on line {first})")
        return ge.graph(g=self.g, d=self.d, r=self.grid.r)[0]

    def write(self, path, graph) -> None:
        from golf.grid import write_grid_edges

        write_grid_edges(path, graph, self.grid)

    def renumber(self, graphs, g: int):
        """``graphs`` of this problem's numbering as graphs of the rotation ``g`` (a divisor
        of this ``g``, the polish phase's): the cells numbered for ``g``
        (:meth:`golf.grid.Grid.vertex_of`)."""
        from golf.graph import Graph

        other = type(self)(self.section, g)
        cells = self.grid.cells()
        ids = other.grid.vertex_of()[cells[:, 1], cells[:, 0]]
        return [Graph.from_edges(ids[b.edges()], n=b.n, g=g, d=b.d) for b in graphs]

    def submission_name(self, diameter: int, total: int) -> str:
        from golf.problems.problem import submission_name

        return submission_name(self.n, self.d, diameter, total, self.grid)

    def check_graph(self, graph) -> None:
        """Every edge within the length limit."""
        lengths = self.grid.lengths(graph.edges())
        if len(lengths) and lengths.max() > self.grid.r:
            raise GolfError(f"internal error: an edge of length {int(lengths.max())} > "
                            f"r={self.grid.r}")

    def forms(self):
        """The rotations the lattice allows (1, 2 and 4 where they exist)."""
        from golf.grid import symmetry_problem

        gs = [g for g in (1, 2, 4) if symmetry_problem(self.grid.w, self.grid.h, g) is None]
        return [Form(g) for g in gs], f"the rotations a {self.grid.label} lattice allows"

    def warm_up_section(self):
        """A 4x4 lattice: a grid's moves and tabu search take a length limit, code of their
        own."""
        return dict(super().warm_up_section(), grid=[4, 4], r=2)

    def summary(self) -> dict:
        return {"kind": self.kind, "grid": [self.grid.w, self.grid.h], "n": self.n,
                "d": self.d, "r": self.grid.r, "g": self.g}
