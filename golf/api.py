"""golf from Python: score graphs and search for better ones.

>>> import golf
>>> graph = golf.random_graph(50, 4, seed=1)
>>> golf.evaluate(graph).diameter
5

Everything here is also reachable as ``golf.<name>``; the command line and these functions run
the same code (:func:`search` is the engine of ``golf run``).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from golf.errors import GolfError
from golf.graph import Graph

__all__ = ["evaluate", "make_evaluator", "search", "Result", "bounds", "random_graph",
           "read_edges", "write_edges"]

# the scorers of the evaluators evaluate() built, by backend, shape and options (the first
# built goes first when there are more)
_CACHE: OrderedDict = OrderedDict()
_CACHE_SIZE = 8


def make_evaluator(backend: str, n: int, d: int, g: int = 1, **options):
    """An evaluator for graphs of shape ``(n, d, g)``, to call many times.

    Parameters
    ----------
    backend : str
        ``"auto"`` or a registered backend (``golf.evaluators.names()``): ``bitset``,
        ``bfs``, ``gpu-bitset``, ``seidel``, ``reference``.
    n, d, g : int
        Vertices, largest degree (row width), symmetry (``g`` divides ``n``).
    **options
        The backend's options (its ``options`` attribute), e.g. ``threads=2``; ``comm`` (an
        MPI communicator) splits the work over its ranks, ``batch`` sizes
        ``evaluate_many``, ``symmetry`` (a :class:`golf.Group` of order ``g``) scores graphs
        with that symmetry group instead of the cyclic one.

    Returns
    -------
    golf.evaluators.base.Evaluator
        ``.evaluate(graph, max_level=0) -> Score``, ``.evaluate_many(adjs)``, ``.describe()``.

    Raises
    ------
    GolfError
        An unknown backend or option, a bad option value, a backend that cannot run here.

    Examples
    --------
    >>> import golf
    >>> ev = golf.make_evaluator("bitset", 50, 4, threads=1)
    >>> [ev.evaluate(golf.random_graph(50, 4, seed=s)).diameter for s in range(3)]
    [5, 5, 5]
    """
    from golf.evaluators import make_evaluator as make

    return make(backend, n, d, g, **options)


def _as_graph(graph):
    if isinstance(graph, Graph):
        return graph
    if hasattr(graph, "is_directed") and hasattr(graph, "nodes"):
        return Graph.from_networkx(graph)
    return Graph.from_edges(graph)


def evaluate(graph, backend: str = "auto", *, max_level: int = 0, **options):
    """The exact score of a graph: diameter, total distance, ASPL.

    Parameters
    ----------
    graph : Graph, networkx.Graph, (k, 2) array of edges, or HostSwitchGraph
        The graph; its symmetry ``g`` is used (a :class:`~golf.graph.Graph` built with
        ``g > 1`` is scored from its ``n/g`` base sources). A host-switch graph
        (:class:`golf.hostswitch.HostSwitchGraph`) is scored over its host pairs: the
        h-diameter and the h-total (``aspl`` the h-ASPL), by a host-switch backend.
    backend : str
        ``"auto"`` (picked from measured rates) or a backend name.
    max_level : int
        Stop once the diameter is known to exceed it (``status`` EXCEEDED); 0: no cap.
    **options
        Backend options, as for :func:`make_evaluator`.

    Returns
    -------
    Score
        ``diameter``, ``total`` (sum over the ``n(n-1)/2`` pairs), ``aspl``, ``peripheral``,
        ``connected``, ``status``; ``diameter`` and ``total`` are None when disconnected.

    Raises
    ------
    GolfError
        A malformed graph, or an unknown backend or option.

    Notes
    -----
    The evaluator is kept for the next call with the same shape and options (up to 8 of
    them), so a loop over graphs pays for it once; for full control build one with
    :func:`make_evaluator`.

    Examples
    --------
    >>> import networkx as nx
    >>> import golf
    >>> s = golf.evaluate(nx.petersen_graph())
    >>> s.diameter, s.total, round(s.aspl, 4)
    (2, 75, 1.6667)
    """
    if type(graph) is not Graph:
        from golf.hostswitch.network import HostSwitchGraph

        if isinstance(graph, HostSwitchGraph):  # the hosts' scores (h-diameter, h-total)
            from golf.evaluators import host_switch_scorer

            return host_switch_scorer(graph, backend, **options)[0]()
        graph = _as_graph(graph)
    key = (backend, graph.form, graph.d, tuple(options.items()))
    score = _CACHE.get(key)
    if score is None:
        score = _CACHE[key] = make_evaluator(backend, graph.n, graph.d, graph.g,
                                             symmetry=graph.group, centres=graph.centres,
                                             **options).scorer()
        if len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return score(graph.adj, max_level)


def bounds(n: int, d: int):
    """The Moore lower bounds on the diameter and the ASPL of ``n`` vertices of degree
    ``<= d``.

    Parameters
    ----------
    n, d : int
        Order and largest degree.

    Returns
    -------
    Bounds
        ``diameter`` (int), ``aspl`` (an exact ``fractions.Fraction``), ``total``; None
        where no connected graph exists.

    Raises
    ------
    GolfError
        ``n < 1`` or ``d < 0``.

    Examples
    --------
    >>> import golf
    >>> b = golf.bounds(256, 8)
    >>> b.diameter, b.aspl, b.total
    (3, Fraction(231, 85), 88704)
    """
    from golf.lower_bounds import moore_bounds

    return moore_bounds(n, d)


def random_graph(n: int, d: int, g: int = 1, seed: int = 0, group=None, centres: int = 0):
    """A random simple connected g-symmetric graph, every degree ``d`` (one class of ``g``
    vertices at ``d - 1`` where parity forces it); the same seed gives the same graph.

    Parameters
    ----------
    n, d : int
        Order and degree.
    g : int
        Symmetry: the graph is invariant under ``v -> v + n/g`` (``g`` divides ``n``).
    seed : int
        The graph is a function of ``(n, d, g, seed)``, on any machine.
    group : [a, r] or Group, optional
        A non-cyclic symmetry group of order ``g``: ``Z_a ⋊_r Z_(g/a)`` (:mod:`golf.group`).
    centres : int, optional
        Centre vertices (:mod:`golf.graph`): the last ``centres`` vertices are fixed by the
        symmetry, each adjacent to ``d // g`` whole orbits; ``g`` divides ``n - centres``.

    Returns
    -------
    Graph

    Raises
    ------
    GolfError
        ``g`` does not divide ``n`` (``n - centres``), or no connected graph of that shape
        exists.

    Examples
    --------
    >>> import golf
    >>> graph = golf.random_graph(256, 8, g=4, seed=1)
    >>> graph.n, graph.m, graph.max_degree
    (256, 64, 8)
    """
    from golf.starts.random import random_graph as build
    from golf.starts.random import random_group_graph
    from golf.group import Group, parse_group

    grp = group if isinstance(group, Group) or group is None else parse_group(group, g)
    if grp is not None or centres:
        return random_group_graph(n, d, grp, seed, centres=centres, g=g)
    return build(n, d, g, seed)


def read_edges(path):
    """Read an edge list in the competition's format (``.gz`` too).

    Parameters
    ----------
    path : str or Path
        One edge per line, two vertex ids from 0; blank lines are allowed.

    Returns
    -------
    EdgeList
        ``edges`` (k, 2), ``lines`` (each edge's line number), ``duplicates``; its
        ``graph(n=None, g=1, d=None)`` makes the :class:`~golf.graph.Graph`.

    Raises
    ------
    GolfError
        A missing file or a malformed line (named with its number).

    Examples
    --------
    >>> import os, tempfile
    >>> import golf
    >>> path = os.path.join(tempfile.mkdtemp(), "k4.edges")
    >>> golf.write_edges(path, golf.Graph.from_edges([(0, 1), (0, 2), (0, 3), (1, 2), (1, 3),
    ...                                               (2, 3)]))
    >>> golf.read_edges(path).graph(g="auto")
    Graph(n=4, d=3, g=4, edges=6)
    """
    from golf.io import read_edges as read

    return read(path)


def write_edges(path, graph) -> None:
    """Write a graph in the competition's format, atomically (``.gz``: compressed).

    Parameters
    ----------
    path : str or Path
        The file; its folder is created if missing.
    graph : Graph or (k, 2) array of edges
        Written sorted, each edge once as ``u < v``.

    Raises
    ------
    GolfError
        Edges that are not a ``(k, 2)`` integer array.

    Examples
    --------
    >>> import os, tempfile
    >>> import golf
    >>> path = os.path.join(tempfile.mkdtemp(), "petersen.edges.gz")
    >>> golf.write_edges(path, golf.random_graph(10, 3, seed=1))
    >>> golf.read_edges(path).edges.shape
    (15, 2)
    """
    from golf.io import write_edges as write

    write(path, graph)


@dataclass
class Result:
    """What :func:`search` found.

    Attributes
    ----------
    graph : Graph
        The best graph (re-checked by a second backend).
    score : Score
        Its score.
    trace : ndarray of shape (rows, 9)
        The columns of ``golf.engine.annealer.TRACE_COLUMNS`` (step, temperature, diameter, total,
        best_diameter, best_total, accepted, evaluations, seconds) every ``trace_every``
        steps.
    summary : dict
        What ``golf run`` writes to summary.json.
    path : Path or None
        The run folder (None: nothing was written).
    """

    graph: object
    score: object
    trace: np.ndarray
    summary: dict
    path: Path | None = None

    @property
    def columns(self) -> list[str]:
        """The names of the trace's columns."""
        from golf.engine.annealer import TRACE_COLUMNS

        return list(TRACE_COLUMNS)

    def plot(self, path) -> str:
        """Write the convergence plot (best and current ASPL, best diameter) to ``path``
        (needs matplotlib); returns "written" or why not."""
        from golf.run.outputs import plot_trace

        return plot_trace(path, self.trace.tolist(), self.graph.n)


def search(n: int, d: int, g: int | str = 1, *, seconds: float | None = None, steps: int = 0,
           seed: int = 0, backend: str = "auto", progress: bool = True, output=None,
           force: bool = False, comm=None, **settings) -> Result:
    """Search for a graph of ``n`` vertices and degree ``<= d`` with the smallest diameter and
    ASPL: simulated annealing (or ``method="tabu"``: tabu search) over g-symmetric swaps,
    the engine of ``golf run``.

    Parameters
    ----------
    n, d : int
        The problem.
    g : int or "auto"
        The symmetry searched in (``g`` divides ``n``); ``"auto"``: chosen by short trials
        (:mod:`golf.run.portfolio`), reported in ``Result.summary["auto_g"]``.
    seconds : float, optional
        Time limit. With ``steps`` as well, the step budget drives the cooling (the same
        result on any machine) and the time limit only stops early.
    steps : int
        Step budget (0: none; then ``seconds`` drives the cooling). One of them is needed.
    seed : int
        Seed of the start graph and of the chain.
    backend : str
        The evaluator (``"auto"``: picked from measured rates).
    progress : bool
        Print the start, a progress line every ``progress_every`` seconds and the result
        (False: silent).
    output : str or Path, optional
        A run folder to write, as ``golf run`` does (``best.edges``, ``summary.json``,
        checkpoints, ...; ``golf resume`` continues it). None: nothing is written.
    force : bool
        Start over in an ``output`` folder that already holds a run.
    comm : MPI communicator, optional
        Run under MPI (``parallel={"mode": ...}`` in ``settings`` says how).
    **settings
        Any other key of the YAML config's ``search``, ``evaluator``, ``parallel``,
        ``output`` or ``problem`` sections, e.g. ``method="hill"``, ``threads=2``,
        ``t0=5.0``, ``trace_every=100``, ``start="circulant"`` (or ``"random"``, the
        default, or an edge-list file such as ``"graph.edges"``); ``grid=[w, h], r=R`` makes
        it a grid problem (:mod:`golf.grid`; ``n = w*h``, ``g`` a rotation: 1, 2 or 4).

    Returns
    -------
    Result
        ``graph``, ``score``, ``trace``, ``summary`` and ``path``.

    Raises
    ------
    GolfError
        A bad setting (named), an unusable start graph, an ``output`` folder that holds a run.

    Examples
    --------
    >>> import golf
    >>> r = golf.search(64, 4, g=2, steps=3000, seed=1, progress=False)
    >>> r.score.diameter, r.score.total < r.summary["start"]["total"]
    (4, True)
    >>> r.graph.max_degree <= 4
    True
    """
    from golf.config import Keywords, RunConfig, validate

    if seconds is None and not steps:
        raise GolfError("search: give seconds or steps (or both)")
    keywords = Keywords(n, d, g, seconds=seconds, steps=steps, seed=seed, backend=backend,
                        plot=output is not None, settings=settings)
    cfg = validate(keywords.config(), lambda key: "search()")
    path = Path(output) if output is not None else None
    return _run(RunConfig(str(path.name) if path else "search", cfg, path, "search()"),
                progress, force, comm)


def _run(run, progress: bool, force: bool, comm) -> Result | None:
    """The search of a :class:`golf.config.RunConfig` and its :class:`Result` (None on an MPI
    rank other than 0)."""
    from golf.engine.annealer import TRACE_COLUMNS
    from golf.run import Search

    engine = Search(run, quiet=not progress, comm=comm)
    summary = engine.start(force=force)
    if summary is None:  # an MPI rank other than 0
        return None
    trace = np.asarray(engine.trace_rows, dtype=np.float64).reshape(-1, len(TRACE_COLUMNS))
    return Result(engine.best_graph, engine.best_score, trace, summary, run.path)



def chase(n: int | None, d: int, minutes: float = 10.0, *, seed: int = 1, backend: str = "auto",
          grid=None, r: int | None = None, progress: bool = True, output=None,
          force: bool = False, comm=None, **settings) -> Result:
    """The best graph golf finds for ``(n, d)`` in ``minutes`` of wall time, with nothing
    chosen by hand: ``golf chase`` in this process (:mod:`golf.run.chase`). The symmetry
    form (cyclic ``g`` or a metacyclic group) is chosen by clock-bounded trials
    (:mod:`golf.run.portfolio`; the record is ``Result.summary["auto_g"]``), then a population
    of tempering chains anneals in it.

    Parameters
    ----------
    n, d : int
        The problem (``n`` None with ``grid``).
    minutes : float
        Wall time of the whole chase, the trials included.
    seed, backend, progress, force, comm
        As :func:`search`.
    output : str or Path, optional
        As ``golf chase --out``: the run folder is ``output/n{N}d{D}`` (a grid problem's
        ``output/w{W}h{H}d{D}r{R}``); None: nothing is written.
    grid, r : optional
        A grid problem: ``grid=[w, h]`` and the edge length limit ``r``.
    **settings
        Any key of the config's sections, over the chase's own settings
        (:func:`golf.run.chase.chase_settings`), e.g. ``batch=64``.

    Returns
    -------
    Result
        As :func:`search`.

    Examples
    --------
    >>> import golf
    >>> r = golf.chase(32, 3, minutes=0.05, progress=False, batch=4)
    >>> r.summary["auto_g"]["budget"], r.graph.max_degree <= 3
    (0.25, True)
    """
    from golf.run.chase import chase_config

    run = chase_config(n, d, minutes=minutes, seed=seed, backend=backend, out=output,
                       grid=grid, r=r, comm=comm, settings=settings)
    return _run(run, progress, force, comm)
