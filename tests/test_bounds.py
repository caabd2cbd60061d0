from fractions import Fraction

import networkx as nx
import numpy as np
import pytest

from golf.lower_bounds import moore_bounds
from golf.errors import GolfError

from naive import apsp_score, brute_min_aspl
from naive import moore_bounds as naive_bounds


@pytest.mark.parametrize("n,d,diam,aspl", [
    (16, 4, 2, Fraction(26, 15)),
    (36, 3, 4, 3.057143),
    (1024, 32, 2, 1.968719),
    (10, 3, 2, Fraction(5, 3)),
])
def test_known_values(n, d, diam, aspl):
    b = moore_bounds(n, d)
    assert b.diameter == diam
    if isinstance(aspl, Fraction):
        assert b.aspl == aspl
    else:
        assert float(b.aspl) == pytest.approx(aspl, abs=5e-7)


@pytest.mark.parametrize("n", range(1, 60))
@pytest.mark.parametrize("d", [2, 3, 4, 7])
def test_matches_literal_tree_filling(n, d):
    b = moore_bounds(n, d)
    diam, aspl = naive_bounds(n, d)
    assert b.diameter == diam
    assert float(b.aspl) == pytest.approx(aspl, rel=1e-12)


def test_petersen_meets_both_bounds():
    P = nx.petersen_graph()
    diam, total, _ = apsp_score(10, np.array(P.edges()))
    b = moore_bounds(10, 3)
    assert (diam, total) == (b.diameter, b.total)


@pytest.mark.parametrize("n,d", [(4, 2), (5, 2), (5, 3), (6, 3)])
def test_bounds_below_the_best_graph(n, d):
    best = brute_min_aspl(n, d)
    b = moore_bounds(n, d)
    assert b.diameter <= best[0] and b.total <= best[1]


def test_degenerate():
    assert moore_bounds(1, 0).diameter == 0
    assert moore_bounds(2, 1).diameter == 1
    assert moore_bounds(3, 1).diameter is None
    assert moore_bounds(3, 0).aspl is None
    with pytest.raises(GolfError):
        moore_bounds(0, 3)
    with pytest.raises(GolfError):
        moore_bounds(5, -1)
