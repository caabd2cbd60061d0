"""golf.starts.polarity: the finite fields GF(p^k) and the polarity graphs ER_q, checked
against the literature (order q^2 + q + 1, q (q+1)^2 / 2 edges, q + 1 absolute points of degree
q and the rest of degree q + 1, diameter 2, no 4-cycle) with SciPy's shortest paths; ER_q less
one polar line (q^2 vertices, degree q, diameter 3) and less k lines; the fitting, the choice
among the constructions and the algebraic start."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
import yaml
from scipy.sparse.csgraph import shortest_path

import golf
from golf.errors import GolfError
from golf.starts.polarity import (Field, line_deleted_edges, polarity_edges, polarity_graph,
                                  prime_power)

from naive import apsp_score


def test_prime_power_matches_brute_force():
    def brute(q):
        for p in range(2, q + 1):
            if all(p % f for f in range(2, p)):
                for k in range(1, 20):
                    if p**k == q:
                        return (p, k)
        return None

    for q in range(0, 600):
        assert prime_power(q) == brute(q), q


@pytest.mark.parametrize("q", [2, 3, 4, 5, 8, 9, 16, 25, 27])
def test_field_axioms(q):
    f = Field(q)
    add, mul, e = f.add, f.mul, range(q)
    assert (add[0] == np.arange(q)).all() and (mul[1] == np.arange(q)).all()
    assert (mul[0] == 0).all()
    assert (add == add.T).all() and (mul == mul.T).all()
    for a in range(1, q):  # every nonzero element has an inverse
        assert (mul[a, 1:] == 1).sum() == 1
        assert sorted(mul[a, 1:]) == list(range(1, q))
    for a in range(q):
        assert sorted(add[a]) == list(e)  # so every element has exactly one additive inverse
    triples = list(itertools.product(e, repeat=3))[:: max(1, q**3 // 3000)]
    for a, b, c in triples:
        assert add[add[a, b], c] == add[a, add[b, c]]
        assert mul[mul[a, b], c] == mul[a, mul[b, c]]
        assert mul[a, add[b, c]] == add[mul[a, b], mul[a, c]]


def test_no_field_of_a_non_prime_power():
    for q in (1, 6, 10, 12, 15, 36):
        with pytest.raises(GolfError, match="prime power"):
            Field(q)


@pytest.mark.parametrize("q", [2, 3, 4, 5, 7, 8, 9, 11, 13, 16])
def test_polarity_graph_against_the_literature(q):
    n = q * q + q + 1
    e = polarity_edges(q)
    assert len(e) == q * (q + 1) ** 2 // 2 and (e[:, 0] < e[:, 1]).all()
    assert len({tuple(x) for x in e}) == len(e)
    deg = np.bincount(e.ravel(), minlength=n)
    assert (deg == q).sum() == q + 1 and (deg == q + 1).sum() == n - q - 1
    a = sp.coo_matrix((np.ones(len(e)), (e[:, 0], e[:, 1])), shape=(n, n))
    a = (a + a.T).tocsr()
    dist = shortest_path(a, unweighted=True)
    assert dist.max() == 2
    common = (a @ a).toarray()
    np.fill_diagonal(common, 0)
    assert common.max() == 1  # no 4-cycle: two vertices share at most one neighbour


@pytest.mark.parametrize("q", [3, 4, 5, 7, 8, 9, 11, 16])
def test_polarity_graph_less_a_line(q):
    """q^2 vertices; for even q every degree is q; for odd q, q - 2 absolute points keep
    degree q - 1; diameter 3; two vertices at
    distance 3 lost the one path of length 2 that ER_q gave them, so there are at most as many
    such pairs as paths the deletion cut: (q + 1) C(q + 1, 2) through the deleted vertices,
    q (q + 1) through the dropped edges."""
    n = q * q
    e = line_deleted_edges(q)
    assert (e[:, 0] < e[:, 1]).all() and len({tuple(x) for x in e}) == len(e) and e.max() < n
    deg = np.bincount(e.ravel(), minlength=n)
    assert deg.max() == q
    assert (deg == q - 1).sum() == (0 if q % 2 == 0 else q - 2) and (deg >= q - 1).all()
    a = sp.coo_matrix((np.ones(len(e)), (e[:, 0], e[:, 1])), shape=(n, n))
    dist = shortest_path((a + a.T).tocsr(), unweighted=True)
    assert dist.max() == 3
    far = (dist == 3).sum() // 2
    assert 0 < far <= (q + 1) * (q + 1) * q // 2 + q * (q + 1)
    assert (line_deleted_edges(q) == e).all()
    if q % 2 == 0:  # the pole came back to the nucleus's neighbours: two vertices are twins
        rows = {tuple(np.flatnonzero(r)) for r in a.toarray() + a.toarray().T}
        assert len(rows) == n - 1


def _distances(e, n):
    a = sp.coo_matrix((np.ones(len(e)), (e[:, 0], e[:, 1])), shape=(n, n))
    return shortest_path((a + a.T).tocsr(), unweighted=True)


@pytest.mark.parametrize("q", [2, 3, 4, 5, 7, 8, 9, 11])
def test_levi_graph_against_the_literature(q):
    """The incidence graph of PG(2, q): 2 (q^2 + q + 1) vertices, (q + 1)-regular, bipartite
    (points even, lines odd), girth 6 (no two vertices share two neighbours), diameter 3, and
    from every vertex q + 1 at distance 1, q (q + 1) at 2 and q^2 at 3: the Moore bound of
    (n, q + 1) for diameter 3."""
    from fractions import Fraction

    from golf.lower_bounds import moore_bounds
    from golf.starts.incidence import levi_edges

    n = 2 * (q * q + q + 1)
    e = levi_edges(q)
    assert (e[:, 0] < e[:, 1]).all() and len({tuple(x) for x in e}) == len(e)
    assert len(e) == (q * q + q + 1) * (q + 1) and ((e[:, 0] + e[:, 1]) % 2 == 1).all()
    assert (np.bincount(e.ravel(), minlength=n) == q + 1).all()
    dist = _distances(e, n)
    for k, count in ((1, q + 1), (2, q * (q + 1)), (3, q * q)):
        assert ((dist == k).sum(axis=1) == count).all()
    a = sp.coo_matrix((np.ones(len(e)), (e[:, 0], e[:, 1])), shape=(n, n))
    common = ((a + a.T) @ (a + a.T)).toarray()
    np.fill_diagonal(common, 0)
    assert common.max() == 1
    total = int(dist[np.triu_indices(n, 1)].sum())
    assert Fraction(total, n * (n - 1) // 2) == moore_bounds(n, q + 1).aspl


@pytest.mark.parametrize("q", [3, 4, 5, 7, 8, 9, 16])
def test_levi_graph_less_a_pencil_or_an_antiflag(q):
    """Less a pencil: 2 q^2 + q vertices, every degree q + 1; less an antiflag: 2 (q^2 - 1)
    vertices, every degree q + 1 but one point and one line at q for even q (an odd count on
    each side); both diameter 3, the matching never joining two vertices of one side that
    were adjacent or one group."""
    from golf.starts.incidence import antiflag_deleted_edges, pencil_deleted_edges

    for e, n, low in ((pencil_deleted_edges(q), 2 * q * q + q, 0),
                      (antiflag_deleted_edges(q), 2 * (q * q - 1), 2 if q % 2 == 0 else 0)):
        assert int(e.max()) + 1 == n
        assert (e[:, 0] < e[:, 1]).all() and len({tuple(x) for x in e}) == len(e)
        deg = np.bincount(e.ravel(), minlength=n)
        assert deg.max() == q + 1 and (deg == q).sum() == low and deg.min() >= q
        assert _distances(e, n).max() == 3


def test_every_backend_scores_a_levi_graph_exactly():
    from golf.starts.incidence import antiflag_deleted_edges, levi_edges, pencil_deleted_edges

    for e in (levi_edges(5), pencil_deleted_edges(7), antiflag_deleted_edges(8)):
        graph = golf.Graph.from_edges(e, n=int(e.max()) + 1)
        want = apsp_score(graph.n, e)
        for backend in ("bitset", "bfs", "reference"):
            s = golf.evaluate(graph, backend)
            assert (s.diameter, s.total, s.peripheral) == want


@pytest.mark.slow
def test_construction_for_takes_an_incidence_graph_above_diameter_2():
    """Above d^2 + 1 vertices (no graph of diameter 2): the incidence form that fits best; a
    polarity graph wherever one is near."""
    from golf.starts.algebraic import construction_for, constructions

    assert construction_for(512, 18).name == "Levi_16-pencil"  # 528 vertices, 16 deleted
    assert construction_for(1726, 30).name == "Levi_29"  # 1742, 16 deleted
    assert construction_for(40, 5).name == "Levi_4-pencil"
    assert "Levi_17-antiflag" in {c.name for c in constructions(512, 18)}  # 576: 64 deleted
    assert not any(c.family == "Levi" for c in constructions(1024, 32))  # 1024 <= 32^2 + 1
    assert construction_for(432, 12) is None  # Levi_11 has 266 vertices
    c = construction_for(512, 18)
    assert "incidence graph of PG(2, 16)" in c.label and c.order == int(c.edges().max()) + 1


@pytest.mark.parametrize("q,k", [(7, 4), (8, 6), (11, 10)])
def test_fit_keeps_diameter_3_of_an_incidence_graph(q, k):
    """Deleting k vertices of Levi_q leaves pairs at distance 4; the plain greedy join leaves
    some of them, the join that ranks them first (diameter3) none."""
    from golf.starts.fit import fit_edges
    from golf.starts.incidence import levi_edges

    big = 2 * (q * q + q + 1)
    plain, kept = (fit_edges(levi_edges(q), big, big - k, q + 1, diameter3=x)
                   for x in (False, True))
    for e in (plain, kept):
        _check_fitted(e, big - k, q + 1)
    assert _distances(plain, big - k).max() == 4 and _distances(kept, big - k).max() == 3


@pytest.mark.parametrize("n,d", [(512, 18), (40, 5)])
def test_the_chosen_incidence_form_fits_best(n, d):
    """construction_for's incidence form against every candidate fitted (seed 0), scored by
    networkx's BFS: the lowest (diameter, total)."""
    from golf.starts.algebraic import constructions, construction_for, fitted_edges

    def fitted(c):
        return apsp_score(n, fitted_edges(c, n, d)[0])[:2]

    scores = {c.name: fitted(c) for c in constructions(n, d)}
    assert len(scores) >= 2
    assert scores[construction_for(n, d).name] == min(scores.values()), scores


@pytest.mark.parametrize("q,line", [(4, False), (7, False), (9, False), (5, True), (8, True)])
def test_every_backend_scores_a_polarity_graph_exactly(q, line):
    e = line_deleted_edges(q) if line else polarity_edges(q)
    graph = golf.Graph.from_edges(e, n=q * q if line else q * q + q + 1)
    want = apsp_score(graph.n, e)
    for backend in ("bitset", "bfs", "reference"):
        s = golf.evaluate(graph, backend)
        assert (s.diameter, s.total, s.peripheral) == want


def test_polarity_graph_rows_and_errors():
    graph = polarity_graph(5, d=8)
    assert graph.n == 31 and graph.d == 8
    with pytest.raises(GolfError, match="degree 6"):
        polarity_graph(5, d=5)
    with pytest.raises(GolfError, match="prime power"):
        polarity_graph(6)


def _check_fitted(e, n, d):
    assert (e[:, 0] < e[:, 1]).all() and len({tuple(x) for x in e}) == len(e)
    assert e.max() < n
    deg = np.bincount(e.ravel(), minlength=n)
    assert deg.max() <= d
    a = sp.coo_matrix((np.ones(len(e)), (e[:, 0], e[:, 1])), shape=(n, n))
    dist = shortest_path((a + a.T).tocsr(), unweighted=True)
    assert np.isfinite(dist).all()  # connected
    return deg, dist


@pytest.mark.parametrize("q,n,d", [(7, 64, 8), (7, 70, 9), (5, 40, 6), (4, 30, 8)])
def test_fit_adds_vertices_that_keep_the_old_degrees(q, n, d):
    from golf.starts.fit import fit_edges

    base = polarity_edges(q)
    big_n = q * q + q + 1
    e = fit_edges(base, big_n, n, d, seed=3)
    deg, dist = _check_fitted(e, n, d)
    old = np.bincount(base.ravel(), minlength=big_n)
    assert (deg[:big_n] >= old).all()  # splits keep degrees; free slots only add
    assert (deg[big_n:] >= d - 1).all()  # every new vertex is full, or one short of it
    assert dist.max() <= 4
    assert (fit_edges(base, big_n, n, d, seed=3) == e).all()  # the same for a seed
    assert not np.array_equal(fit_edges(base, big_n, n, d, seed=4), e)


@pytest.mark.parametrize("q,k,n,d", [(8, 2, 60, 8), (9, 2, 90, 9), (7, 0, 100, 8)])
def test_fit_adds_vertices_to_a_graph_with_many_free_slots(q, k, n, d):
    """Spread (the default): more old free slots than the new vertices' degrees hold (ER_8
    less 2 lines: 54 vertices with one free slot each, 6 added of degree 8), and more
    vertices added than the construction has free slots for (ER_7 plus 43): degrees stay at
    most d, old degrees are kept, every new vertex is full or one short, the graph is
    connected, and the new vertices share the old slots evenly before the join."""
    from golf.starts.fit import _add, fit_edges, neighbour_sets
    from golf.starts.polarity import lines_deleted_edges

    base = lines_deleted_edges(q, k) if k else polarity_edges(q)
    big_n = int(base.max()) + 1
    e = fit_edges(base, big_n, n, d, seed=2)
    deg, dist = _check_fitted(e, n, d)
    assert (deg[:big_n] >= np.bincount(base.ravel(), minlength=big_n)).all()
    assert (deg[big_n:] >= d - 1).all()
    nbrs = neighbour_sets(base, big_n)
    _add(nbrs, big_n, n, d, np.random.default_rng(2))
    old = [len([u for u in nbrs[x] if u < big_n]) for x in range(big_n, n)]
    assert max(old) - min(old) <= 1 and max(old) <= d


@pytest.mark.parametrize("q,n,d", [(7, 50, 8), (8, 64, 9), (5, 25, 6)])
def test_fit_deletes_vertices_and_rejoins_their_slots(q, n, d):
    from golf.starts.fit import fit_edges

    big_n = q * q + q + 1
    e = fit_edges(polarity_edges(q), big_n, n, d, seed=1)
    deg, _ = _check_fitted(e, n, d)
    # the freed slots, then the free ones (the absolute points' where d = q + 1), are joined
    # in pairs: every vertex ends full, but for the few stubs left without a partner that is
    # not yet a neighbour
    assert (d - deg).sum() <= 2
    kept = {tuple(x) for x in polarity_edges(q) if x.max() < n}
    assert kept <= {tuple(x) for x in e}  # the edges among the remaining vertices stay


def test_fit_refuses_a_construction_above_d():
    from golf.starts.fit import fit_edges

    with pytest.raises(GolfError, match="degree 8 > d = 7"):
        fit_edges(polarity_edges(7), 57, 60, 7)


@pytest.mark.slow
@pytest.mark.parametrize("name,n,d", [("ER_7", 64, 8), ("ER_7", 60, 8), ("Levi_4-pencil", 40, 5),
                                      ("ER_37", 1560, 40)])
def test_fitted_edges_adds_vertices_the_better_way(name, n, d):
    """fitted_edges fits both ways of adding vertices (spread, filled) and keeps the one of
    the lower (diameter, total), by SciPy's BFS."""
    from golf.starts.algebraic import constructions, fitted_edges
    from golf.starts.fit import fit_edges

    c = next(c for c in constructions(n, d) if c.name == name)
    built = c.edges(0)
    both = [apsp_score(n, fit_edges(built, c.order, n, d, diameter3=c.family == "Levi",
                                    fill=fill))[:2] for fill in (False, True)]
    assert apsp_score(n, fitted_edges(c, n, d)[0])[:2] == min(both)


@pytest.mark.slow
def test_construction_for_weighs_added_vertices_against_deleted_lines():
    """(1560, 40): ER_41 less 2 lines (degree 40, 1638 vertices, 78 deleted) by the rule,
    ER_37 (degree 38, 1407, 153 added) fitted beside it; each fit scored by SciPy."""
    from golf.starts.algebraic import construction_for, constructions, fitted_edges

    def fitted(name):
        c = next(c for c in constructions(1560, 40) if c.name == name)
        return apsp_score(1560, fitted_edges(c, 1560, 40)[0])[:2]

    assert construction_for(1560, 40).name == "ER_37"
    assert fitted("ER_37") < fitted("ER_41-2lines")


@pytest.mark.slow
def test_construction_for_takes_the_fullest_degree_then_the_nearest_order():
    from golf.starts.algebraic import constructions, construction_for

    assert construction_for(1024, 32).name == "ER_32-line"  # exactly 32^2 vertices of degree 32
    assert construction_for(1560, 40).name == "ER_37"  # plus 153: it fits better (below)
    assert construction_for(3250, 57).name == "ER_59-3lines"
    assert construction_for(60, 8).name == "ER_7"
    assert construction_for(64, 8).name == "ER_8-line"
    assert {"ER_31", "ER_32-line"} <= {c.name for c in constructions(1024, 32)}
    assert all(c.degree <= 20 for c in constructions(400, 20))  # never above d
    assert construction_for(256, 8) is None  # ER_7 has 57 vertices: too far from 256
    assert construction_for(1024, 3) is None


@pytest.mark.parametrize("q,k", [(7, 2), (8, 3), (11, 3), (16, 2), (17, 5)])
def test_polarity_graph_less_k_lines(q, k):
    """About q^2 + q + 1 - k (q + 2) + k (k - 1) / 2 vertices (fewer lines meet in one point,
    more vertices stay), degree q + 1 - k but for a few one less, diameter at most 4; the
    same graph for a seed, another for another seed."""
    from golf.starts.polarity import lines_deleted_edges

    e = lines_deleted_edges(q, k, seed=1)
    n = int(e.max()) + 1
    assert 0 <= n - (q * q + q + 1 - k * (q + 2) + k * (k - 1) // 2) <= k
    assert (e[:, 0] < e[:, 1]).all() and len({tuple(x) for x in e}) == len(e)
    deg = np.bincount(e.ravel(), minlength=n)
    assert deg.max() == q + 1 - k and (deg >= q - k).all()
    assert (deg == q - k).sum() <= n // 4
    a = sp.coo_matrix((np.ones(len(e)), (e[:, 0], e[:, 1])), shape=(n, n))
    dist = shortest_path((a + a.T).tocsr(), unweighted=True)
    assert dist.max() <= 4 and (dist == 4).sum() // 2 <= n // 8
    assert np.array_equal(lines_deleted_edges(q, k, seed=1), e)
    assert not np.array_equal(lines_deleted_edges(q, k, seed=2), e)
    with pytest.raises(GolfError, match="k >= 2"):
        lines_deleted_edges(q, 1)


@pytest.mark.slow
@pytest.mark.parametrize("n,d", [(1024, 32), (1560, 40), (64, 8), (60, 8), (120, 12)])
def test_the_chosen_construction_fits_better_than_the_others(n, d):
    """The rule of construction_for against the scores of every candidate fitted (seed 0)."""
    from golf.graph import Graph
    from golf.starts.algebraic import constructions, construction_for
    from golf.starts.fit import fit_edges

    def fitted(c):
        e = c.edges(0)
        e = fit_edges(e, int(e.max()) + 1, n, d, seed=0)
        s = golf.evaluate(Graph.from_edges(e, n=n, d=d), "bitset")
        return s.diameter, s.total

    scores = {c.name: fitted(c) for c in constructions(n, d)}
    assert len(scores) >= 2
    assert scores[construction_for(n, d).name] == min(scores.values()), scores


def test_algebraic_start_runs_and_says_what_it_built(tmp_path):
    from golf.starts.algebraic import algebraic_graph

    graph, note = algebraic_graph(60, 8, seed=2)
    assert graph.n == 60 and graph.d == 8 and "ER_7" in note and "3 vertices added" in note
    start = golf.evaluate(graph, "reference")
    res = golf.search(60, 8, g=1, start="algebraic", steps=3000, seed=2, progress=False,
                      backend="bitset", threads=1, output=tmp_path / "run")
    assert res.summary["start"]["total"] == start.total  # the search began at the fitted graph
    assert res.score.total <= start.total and res.score.diameter <= 3
    assert "start graph: ER_7" in (res.path / "log.txt").read_text()


@pytest.mark.slow
@pytest.mark.parametrize("method", ["tabu", "hill", "sa"])
def test_every_search_polishes_an_algebraic_start_without_raising_its_diameter(tmp_path, method):
    """Tabu search, hill climbing and annealing from ER_7 fitted to (60, 8) (diameter 3): the
    run begins at the fitted graph, no state it walks (the trace, every 10 steps) has a larger
    diameter, and the tabu search lowers the total."""
    import csv

    from golf.starts.algebraic import algebraic_graph

    start = golf.evaluate(algebraic_graph(60, 8, seed=3)[0], "reference")
    res = golf.search(60, 8, g=1, start="algebraic", method=method, steps=2000, seed=3,
                      progress=False, backend="bitset", threads=1, output=tmp_path / method,
                      trace_every=10)
    assert res.summary["start"]["total"] == start.total
    with open(res.path / "trace.csv") as f:
        walked = [int(row["diameter"]) for row in csv.DictReader(f)]
    assert len(walked) >= 100 and max(walked) <= start.diameter
    if method == "tabu":
        assert res.score.diameter <= start.diameter and res.score.total < start.total


def test_algebraic_start_refused_where_it_cannot_serve(tmp_path):
    from golf.config import load_config

    bad = tmp_path / "c.yaml"
    for problem, why in [("{n: 64, d: 8, g: 4, start: algebraic}", "need problem.g: 1"),
                         ("{n: 256, d: 8, start: algebraic}", "no construction lies near"),
                         ("{n: 64, d: 8, g: auto, start: algebraic}", "need problem.g: 1")]:
        bad.write_text(f"name: x\nproblem: {problem}\nsearch: {{steps: 10}}\n")
        with pytest.raises(GolfError, match=why) as err:
            load_config(str(bad))
        assert "c.yaml:2: problem.start" in str(err.value)  # the file, the line, the key


def test_g_auto_tries_the_algebraic_start_first_on_a_dense_pair(tmp_path):
    """(60, 8) lies near ER_7 (57 vertices): g: auto puts g=1 from the fitted ER_7 first in
    its portfolio, records it, and the run whose trials pick it starts from it and climbs
    (run.yaml says so, and the log names the construction)."""
    from golf.problems import problem_of

    problem = {"n": 60, "d": 8, "g": "auto", "group": None, "start": None, "grid": None,
               "r": None, "regular": False}
    portfolio, rule = problem_of(problem).forms()
    assert portfolio[0].start == "algebraic" and portfolio[0].g == 1
    assert "ER_7" in rule and portfolio[0].label(60) == "ER_7 fitted, g=1 (m=60)"
    assert problem_of(dict(problem, start="circulant")).forms()[0][0].start is None
    assert all(f.start is None for f in problem_of(dict(problem, n=256)).forms()[0])

    res = golf.search(60, 8, g="auto", steps=6000, seed=1, progress=False, backend="bitset",
                      threads=1, output=tmp_path / "run")
    auto = res.summary["auto_g"]
    assert auto["candidates"][0]["start"] == "algebraic"
    tried = [t for t in auto["trials"] if t.get("start") == "algebraic"]
    assert len(tried) == 1 and tried[0]["by_round"]
    # with a step budget the choice is the same on any machine: here the algebraic form wins
    assert auto["form"]["start"] == "algebraic", auto["form"]
    run_yaml = yaml.safe_load((res.path / "run.yaml").read_text())
    assert run_yaml["problem"]["start"] == "algebraic" and run_yaml["problem"]["g"] == 1
    assert run_yaml["search"]["method"] == "hill"  # the form's own setting (Form.changes)
    assert "start graph: ER_7" in (res.path / "log.txt").read_text()


def test_a_timed_run_whose_trials_choose_an_algebraic_start_polishes_from_their_end(tmp_path):
    """(60, 8), 8 seconds, a quarter polished: the trials choose the fitted ER_7, and the
    polish takes all the time after them (search.polish = 1 - the trials' share, in
    run.yaml; the log says why): the switch comes after the run's first step (without the
    rule, at three quarters of the time). The rule itself: only a timed run, with a polish,
    from an algebraic form, is changed."""
    from golf.problems import Form
    from golf.run.start import Starter

    res = golf.search(60, 8, g="auto", seconds=8, polish=0.25, seed=1, progress=False,
                      backend="bitset", threads=1, output=tmp_path / "run")
    auto, s = res.summary["auto_g"], res.summary
    assert auto["form"]["start"] == "algebraic", auto["form"]
    run_yaml = yaml.safe_load((res.path / "run.yaml").read_text())
    assert run_yaml["search"]["method"] == "hill"
    assert run_yaml["search"]["polish"] == pytest.approx(1 - auto["seconds"] / 8, abs=2e-3)
    assert run_yaml["search"]["polish"] > 0.25
    log = (res.path / "log.txt").read_text()
    assert "polish: from the end of the trials" in log and "polish: tabu search from" in log
    assert s["polish"]["from_step"] == 1, s["polish"]  # the hill climb's first step

    def polish_after(form, **search):
        cfg = {"search": dict({"time_limit": 60.0, "polish": 0.5}, **search)}
        starter = Starter.__new__(Starter)
        starter.cfg, starter.log = cfg, lambda line: None
        starter._polish_at_once(form, 15.0)
        return cfg["search"]["polish"]

    er = Form(1, None, "ER_7")
    assert polish_after(er) == pytest.approx(0.75)
    assert polish_after(Form(4)) == 0.5                   # no algebraic start
    assert polish_after(er, polish=0.0) == 0.0            # no polish asked for
    assert polish_after(er, time_limit=None) == 0.5       # a step budget: as asked
    assert polish_after(er, polish=0.8) == 0.8            # already from the trials' end on


@pytest.mark.parametrize("q,t", [(4, 5), (7, 10), (9, 20), (16, 15), (8, 30)])
def test_polarity_graph_plus_vertices_joined_to_polar_lines(q, t):
    """ER_q plus t vertices, each joined to the q + 1 points of a distinct polar line:
    diameter 2 (SciPy), the added vertices of degree q + 1, the points' added neighbours
    shared out within 2 of the even share; the same graph for a seed; no more vertices than
    lines."""
    from golf.starts.polarity import incidence, line_joined_edges

    base = q * q + q + 1
    n = base + t
    e = line_joined_edges(q, t, seed=1)
    assert (e[:, 0] < e[:, 1]).all() and len({tuple(x) for x in e}) == len(e)
    deg = np.bincount(e.ravel(), minlength=n)
    assert int(e.max()) == n - 1 and (deg[base:] == q + 1).all()
    lines = {frozenset(e[e[:, 1] == x, 0].tolist()) for x in range(base, n)}
    assert len(lines) == t  # distinct lines, each a polar line's points
    inc = incidence(q)
    assert all(any(set(np.flatnonzero(inc[p]).tolist()) == set(ln) for p in range(base))
               for ln in lines)
    assert (deg[:base] - (q + 1)).max() <= -(-t * (q + 1) // base) + 2
    a = sp.coo_matrix((np.ones(len(e)), (e[:, 0], e[:, 1])), shape=(n, n))
    assert shortest_path((a + a.T).tocsr(), unweighted=True).max() == 2
    assert np.array_equal(line_joined_edges.__wrapped__(q, t, seed=1), e)  # built again
    with pytest.raises(GolfError, match="polar lines"):
        line_joined_edges(q, base + 1)


@pytest.mark.parametrize("q,t,d", [(11, 20, 16), (16, 69, 24), (17, 35, 24)])
def test_split_within_2_fills_short_vertices_and_keeps_diameter_2(q, t, d):
    """ER_q plus t line-joined vertices with its free slots joined (diameter 2, some vertices
    left two or more slots short): the splits add edges, keep every degree within d and the
    diameter 2 (SciPy). On ER_q itself (no 4-cycle: every edge the only path of length 2
    between some pairs) no split keeps diameter 2, and none is made."""
    from golf.starts.fit import fit_edges, split_within_2
    from golf.starts.polarity import line_joined_edges

    n = q * q + q + 1 + t
    joined = fit_edges(line_joined_edges(q, t), n, n, d, seed=0)
    out = split_within_2(joined, n, d, seed=3)
    assert len(out) > len(joined) and (out[:, 0] < out[:, 1]).all()
    assert np.bincount(out.ravel(), minlength=n).max() <= d
    a = sp.coo_matrix((np.ones(len(out)), (out[:, 0], out[:, 1])), shape=(n, n))
    assert shortest_path((a + a.T).tocsr(), unweighted=True).max() == 2
    plain = polarity_edges(7)
    assert np.array_equal(split_within_2(plain, 57, 10, seed=3), plain)


def test_the_line_joined_start_meets_the_moore_bound_of_342_24():
    """(342, 24): the algebraic start is ER_17 plus 35 vertices joined to polar lines, its free
    slots joined and split: 24-regular of diameter 2 (networkx), the lower bound of the pair
    met before any search."""
    from golf.starts.algebraic import algebraic_graph, construction_for

    assert construction_for(342, 24).name == "ER_17+35"
    graph, note = algebraic_graph(342, 24)
    assert "ER_17+35" in note and "diameter 2" in note
    diameter, total, _ = apsp_score(342, graph.edges())
    assert diameter == 2 and total == 342 * 341 - 342 * 24 // 2  # pairs at 2, less the edges
    b = golf.bounds(342, 24)
    assert (diameter, total) == (b.diameter, b.total)


def test_a_large_pair_takes_its_incidence_form_by_rule_without_fitting(monkeypatch):
    """Above FIT_ALL_MAX vertices the incidence forms are not all fitted (minutes each): the
    fullest degree, then the nearest order ((2978, 42): Levi_41-antiflag, 3360 vertices of
    degree 42, the one the fits chose too); no fit is run."""
    import golf.starts.algebraic as alg

    def no_fit(*args):
        raise AssertionError("fitted")

    monkeypatch.setattr(alg, "fitted_score", no_fit)
    assert 2978 > alg.FIT_ALL_MAX
    c = alg.construction_for(2978, 42)
    assert c.name == "Levi_41-antiflag" and c.degree == 42
