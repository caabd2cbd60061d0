"""What a run needs to know about its problem beyond ``n``, ``d`` and ``g``: an Order/Degree
problem, or a grid problem (:mod:`golf.grid`: a lattice, an edge length limit, rotation
symmetry). The driver, the ``g: auto`` trials and ``golf export`` ask this one place for the
bounds, the start graph, the moves' length limit and the edge-file format."""

from __future__ import annotations

from golf.errors import GolfError

__all__ = ["Problem", "submission_name", "build_evaluator"]


def submission_name(n: int, d: int, diameter: int, total: int, grid=None) -> str:
    """The competition's file name ``n{n}d{d}k{diameter}l{floor(100*ASPL)}.edges``, or for a
    grid problem (a :class:`golf.grid.Grid`) ``w{w}h{h}d{d}r{r}k{diameter}l{..}.edges``; the
    floor of ``100 * ASPL = 200 * total / (n(n-1))`` is taken exactly, in integers."""
    head = f"n{n}d{d}" if grid is None else f"w{grid.w}h{grid.h}d{d}r{grid.r}"
    return f"{head}k{diameter}l{200 * int(total) // (n * (n - 1))}.edges"


class Problem:
    """The ``problem`` section of a validated run config (``g`` resolved, or the one given)."""

    def __init__(self, problem: dict, g=None):
        from golf.grid import Grid

        from golf.group import parse_group

        self.n, self.d = problem["n"], problem["d"]
        # a host-switch problem (golf.hostswitch): n switches of radix d holding these hosts
        self.hosts = problem.get("hosts")
        self.g = g if g is not None else problem["g"]
        # the symmetry group at the config's g (another g, a polish phase's, is cyclic)
        spec = problem.get("group")
        own = self.g == problem["g"] and self.g != "auto"
        self.group = parse_group(spec, self.g, "problem.group") if own else None
        # the centre vertices of the form (golf.graph); another g (a polish's) has none
        self.centres = problem.get("centres", 0) if own else 0
        size = problem.get("grid")
        g_grid = self.g if self.g != "auto" else 1
        self.grid = Grid(size[0], size[1], problem["r"], g_grid) if size is not None else None

    @property
    def kind(self) -> str:
        """``general``, ``grid`` or ``host-switch``."""
        return "host-switch" if self.hosts is not None else (
            "grid" if self.grid is not None else "general")

    @property
    def shape(self):
        """What an evaluator of this problem scores (:class:`golf.evaluators.Shape`)."""
        from golf.evaluators import Shape

        if self.hosts is not None:
            return Shape("host-switch", self.hosts, self.d, None, switches=self.n)
        g = self.g if self.g != "auto" else None
        return Shape(self.kind, self.n, self.d, g, self.centres, self.group)

    @property
    def order(self) -> int:
        """The vertices whose pairs the score averages over: the hosts of a host-switch
        problem, else all ``n``."""
        return self.hosts if self.hosts is not None else self.n

    @property
    def label(self) -> str:
        """``n=.. d=.. g=..``, with the lattice and reach of a grid problem."""
        if self.hosts is not None:
            return f"host-switch: {self.hosts} hosts, {self.n} switches of radix {self.d}"
        if self.grid is None:
            grp = "" if self.group is None else f" group {self.group.label}"
            cen = f" centres={self.centres}" if self.centres else ""
            return f"n={self.n} d={self.d} g={self.g}{grp}{cen}"
        return f"grid {self.grid.label} (n={self.n}) d={self.d} r={self.grid.r} g={self.g}"

    def bounds(self):
        """The lower bounds: Moore's, or the lattice bound of a grid problem."""
        from golf.lower_bounds import grid_bounds, moore_bounds

        if self.hosts is not None:
            from golf.hostswitch.radix_bounds import host_switch_bounds

            return host_switch_bounds(self.hosts, self.d)
        if self.grid is None:
            return moore_bounds(self.n, self.d)
        return grid_bounds(self.grid.w, self.grid.h, self.d, self.grid.r)

    def reach(self):
        """The moves' length limit (:meth:`golf.grid.Grid.reach`), None without a lattice."""
        return None if self.grid is None else self.grid.reach()

    def random_graph(self, seed: int):
        """A random connected start graph of the problem for ``g``."""
        if self.hosts is not None:
            from golf.hostswitch.ports import PortGraph
            from golf.starts.switch_wiring import random_ports

            return PortGraph(self.hosts, random_ports(self.hosts, self.n, self.d, seed))
        if self.grid is None and (self.group is not None or self.centres):
            from golf.starts.random import random_group_graph

            return random_group_graph(self.n, self.d, self.group, seed=seed,
                                      centres=self.centres, g=self.g)
        if self.grid is None:
            from golf.starts.random import random_graph

            return random_graph(self.n, self.d, self.g, seed=seed)
        from golf.starts.random_grid import random_grid_graph

        return random_grid_graph(self.grid, self.d, seed=seed)

    def read(self, path):
        """The graph of an edge file (``problem.start``, a run's best.edges) for ``g``: the
        competition's format for the problem's kind, every rule checked, errors naming the
        file and line."""
        if self.hosts is not None:
            from golf.hostswitch.orp_format import read_host_switch
            from golf.hostswitch.ports import PortGraph, to_ports

            net = read_host_switch(path)
            if (net.n, net.s, net.r) != (self.hosts, self.n, self.d):
                raise GolfError(f"{path}: a host-switch graph of {net.n} hosts, {net.s} "
                                f"switches, radix {net.r}; this problem has {self.hosts}, "
                                f"{self.n}, {self.d}")
            return PortGraph(self.hosts, to_ports(net))
        if self.grid is None:
            from golf.io import read_edges

            el = read_edges(path)
            if el.duplicates:
                line, first, u, v = el.duplicates[0]
                raise GolfError(f"{path}:{line}: duplicate edge '{u} {v}' (first on line "
                                f"{first})")
            return el.graph(n=self.n, g=self.g, d=self.d, group=self.group,
                            centres=self.centres)
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
        """Write ``graph`` in the problem's edge-file format, atomically."""
        if self.hosts is not None:
            from golf.hostswitch.orp_format import write_host_switch

            write_host_switch(path, graph.net())
        elif self.grid is None:
            from golf.io import write_edges

            write_edges(path, graph.edges())
        else:
            from golf.grid import write_grid_edges

            write_grid_edges(path, graph, self.grid)

    def submission_name(self, diameter: int, total: int) -> str:
        """The competition's file name for a result (a host-switch problem's:
        ``h{hosts}r{radix}k{h-diameter}l{floor(100 h-ASPL)}.edges``)."""
        if self.hosts is not None:
            n = self.hosts
            return f"h{n}r{self.d}k{diameter}l{200 * int(total) // (n * (n - 1))}.edges"
        return submission_name(self.n, self.d, diameter, total, self.grid)

    def check(self, graph) -> None:
        """The rules a result must keep beyond :meth:`golf.graph.Graph.check`: on a grid,
        every edge within the length limit; a host-switch graph, every rule of its ports."""
        if self.hosts is not None:
            graph.check()
            return
        if self.grid is None:
            return
        lengths = self.grid.lengths(graph.edges())
        if len(lengths) and lengths.max() > self.grid.r:
            raise GolfError(f"internal error: an edge of length {int(lengths.max())} > "
                            f"r={self.grid.r}")

    def trial_candidates(self, default):
        """``g: auto``'s candidates and the rule that chose them: ``default`` (a pair) for an
        Order/Degree problem, the rotations the lattice allows for a grid."""
        if self.grid is None:
            return default
        from golf.grid import symmetry_problem

        gs = [g for g in (1, 2, 4) if symmetry_problem(self.grid.w, self.grid.h, g) is None]
        return gs, f"the rotations a {self.grid.label} lattice allows"


def build_evaluator(cfg, comm=None):
    """The evaluator of a validated run config (``problem``, ``evaluator``, ``search.batch``
    -- or, where a tabu search runs, ``search.neighbourhood`` as far as its candidates' rows
    fit in ~256 MiB -- and ``parallel.mode``): the work is split over ``comm``'s ranks only
    with ``parallel.mode: evaluator``."""
    from golf.evaluators import build

    p, e, s = cfg["problem"], dict(cfg["evaluator"]), cfg["search"]
    split = comm if cfg["parallel"]["mode"] == "evaluator" else None
    problem = Problem(p)
    backend = e.pop("backend")
    batch = s["batch"]
    if problem.hosts is None and (s["method"] == "tabu" or s["polish"] > 0):
        # a tabu step scores its candidates together, in batches of rows up to ~256 MiB
        rows = 4 * p["n"] // p["g"] * p["d"]
        batch = max(batch, min(s["neighbourhood"], (256 << 20) // rows))
    return build(problem.shape, backend, comm=split, batch=batch, **e)
