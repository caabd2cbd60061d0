"""golf: an optimizer for the Order/Degree problem ("Graph Golf").

Find the graph on ``n`` vertices with every degree ``<= d`` that has the smallest diameter and,
among those, the smallest average shortest path length. Scores are the exact integer pair
``(diameter, total)`` where ``total`` is the sum of the distances over all unordered pairs.
"""

from golf.errors import GolfError
from golf.graph import Graph

__version__ = "0.1.0"
__all__ = ["Graph", "GolfError", "__version__"]
