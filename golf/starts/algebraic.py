"""Algebraic start graphs for dense pairs: a construction from the degree-diameter literature
near ``(n, d)``, fitted to it (:mod:`golf.starts.fit`).

For a pair with a large degree the best graphs have almost every pair of vertices at
distance 2, which local moves from a random graph do not reach. The constructions:

* the polarity graph ``ER_q`` (:mod:`golf.starts.polarity`): ``q^2 + q + 1`` vertices of
  degree ``q + 1`` (``q`` a prime power), diameter 2.

:func:`construction_for` takes the largest ``ER_q`` with ``q + 1 <= d`` whose order lies within
:data:`NEAR` of ``n``: e.g. ``ER_31`` (993 vertices) for (1024, 32), ``ER_37`` (1407) for
(1560, 40), ``ER_53`` (2863) for (3250, 57). Fitted before any search, they score (diameter,
ASPL) 3 / 2.0400, 3 / 2.1103 and 3 / 2.1543 (excess ratios against the 2016 records 2.43, 2.14
and 1.96), where the search from a random graph ended at ratios 6.8, 3.3 and 2.7
(``results/quality/``).

The start is not symmetric in golf's numbering: it needs ``problem.g: 1``.
"""

from __future__ import annotations

from golf.errors import GolfError

__all__ = ["NEAR", "construction_for", "algebraic_graph"]

# a construction is near (n, d) when its order is within this fraction of n, either side
NEAR = 0.15


def construction_for(n: int, d: int) -> tuple[int, str] | None:
    """``(q, label)`` of the construction the ``algebraic`` start fits to ``(n, d)``, or None
    where none is near (module docstring)."""
    from golf.starts.polarity import prime_power

    for q in range(d - 1, 1, -1):
        order = q * q + q + 1
        if prime_power(q) and abs(order - n) <= NEAR * n:
            return q, f"ER_{q} ({order} vertices, degree {q + 1}, diameter 2)"
    return None


def algebraic_graph(n: int, d: int, seed: int = 0):
    """The fitted construction for ``(n, d)`` as a :class:`golf.Graph` (``g = 1``, rows ``d``
    wide) and a line for the log that says which construction and how it was fitted; a
    GolfError where no construction is near."""
    from golf.graph import Graph
    from golf.starts.fit import fit_edges
    from golf.starts.polarity import polarity_edges

    found = construction_for(n, d)
    if found is None:
        raise GolfError(f"problem.start: algebraic: no construction lies near (n={n}, d={d}) "
                        f"(the polarity graphs ER_q, q + 1 <= d, of order within "
                        f"{NEAR:.0%} of n)")
    q, label = found
    order = q * q + q + 1
    edges = fit_edges(polarity_edges(q), order, n, d, seed=seed)
    how = (f"{n - order} vertices added (free slots, then split edges)" if n > order else
           f"{order - n} vertices deleted (their slots rejoined in pairs)" if n < order else
           "as it is")
    return (Graph.from_edges(edges, n=n, d=d, source=f"ER_{q} fitted"),
            f"start graph: {label} fitted to (n={n}, d={d}), seed {seed}: {how}")
