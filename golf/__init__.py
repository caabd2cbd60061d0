"""golf: an optimizer for the Order/Degree problem ("Graph Golf").

Find the graph on ``n`` vertices with every degree ``<= d`` that has the smallest diameter and,
among those, the smallest average shortest path length. Scores are the exact integer pair
``(diameter, total)`` where ``total`` is the sum of the distances over all unordered pairs.

>>> import golf
>>> graph = golf.random_graph(256, 8, g=4, seed=1)
>>> score = golf.evaluate(graph)
>>> score.diameter, golf.bounds(256, 8).diameter
(5, 3)

The functions below are loaded on first use, so that ``import golf`` (and the command line)
stays quick.
"""

from golf import numba_cache as _numba_cache

_numba_cache.cache_dir()  # a cache folder per source hash
_numba_cache.install()  # its cache safe across processes

from golf import moved  # noqa: E402

moved.install()  # the old names of the modules that moved (golf/moved.py)

from golf.errors import GolfError  # noqa: E402
from golf.graph import Graph  # noqa: E402

__version__ = "0.1.0"
__all__ = ["Graph", "GolfError", "Score", "Bounds", "Result", "evaluate", "make_evaluator",
           "search", "chase", "bounds", "random_graph", "circulant_graph", "read_edges",
           "write_edges", "Group", "Grid", "grid_bounds", "random_grid_graph", "read_grid_edges",
           "write_grid_edges", "__version__"]

_LAZY = {
    "evaluate": "golf.api", "make_evaluator": "golf.api", "search": "golf.api",
    "chase": "golf.api",
    "bounds": "golf.api", "random_graph": "golf.api", "read_edges": "golf.api",
    "write_edges": "golf.api", "Result": "golf.api", "Score": "golf.evaluators.base",
    "Bounds": "golf.lower_bounds", "circulant_graph": "golf.starts.circulant",
    "Group": "golf.group", "Grid": "golf.grid", "grid_bounds": "golf.lower_bounds",
    "random_grid_graph": "golf.starts.random_grid", "read_grid_edges": "golf.grid",
    "write_grid_edges": "golf.grid",
}


def __getattr__(name):
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'golf' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | set(__all__))
