"""Crossover of graphs of one form (golf.engine.crossover): valid children of every form,
the kept orbits kept, determinism."""

import numpy as np
import pytest

from golf.engine.crossover import ball, crossover, orbits
from golf.errors import GolfError
from golf.problems import problem_of

FORMS = [
    {"n": 64, "d": 5, "g": 1},
    {"n": 96, "d": 4, "g": 8},
    {"n": 90, "d": 5, "g": 6},  # even g: half orbits
    {"n": 105, "d": 6, "g": 15},  # odd g: self orbits take two slots
    {"n": 256, "d": 8, "g": 64, "group": [16, 3]},
    {"n": 128, "d": 5, "g": 64, "group": [8, 3]},
    {"n": 405, "d": 5, "g": 405, "group": [9, 4]},  # one orbit of vertices
]


def parents(section, seeds=(1, 2)):
    p = problem_of(section)
    return [p.random_graph(s) for s in seeds]


@pytest.mark.parametrize("section", FORMS)
def test_orbits_hold_every_slot_once(section):
    a, _ = parents(section)
    slots = [s for o in orbits(a) for s in o]
    assert len(slots) == len(set(slots)) == int((a.adj >= 0).sum())
    assert {(i, int(w)) for i in range(a.m) for w in a.adj[i] if w >= 0} == set(slots)
    # an orbit of two slots is an edge orbit of g edges, one of one slot g/2 edges (a half
    # orbit) or, when its two slots share a row, g edges too
    assert sum(a.g if len(o) == 2 else a.g // 2 for o in orbits(a)) == a.num_edges


@pytest.mark.parametrize("section", FORMS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_child_is_a_graph_of_the_form_that_keeps_a_s_orbits_at_the_ball(section, seed):
    a, b = parents(section, (seed + 1, seed + 7))
    rng = np.random.default_rng(seed)
    keep = ball(a, int(rng.integers(a.m)), max(1, a.m // 2))
    child = crossover(a, b, keep, rng)
    child.check()
    assert child.form == a.form and child.degrees().max() <= a.d
    mine = set(orbits(child))
    assert all(o in mine for o in orbits(a) if any(r in keep for r, _ in o))
    # the rest from b where it fits, then the repair: the child is about as full as a parent
    assert child.num_edges >= 0.95 * min(a.num_edges, b.num_edges)


@pytest.mark.parametrize("section", FORMS[:5])
def test_children_of_a_seed_are_the_same_and_of_one_parent_the_parent(section):
    a, b = parents(section)
    keep = ball(a, 0, a.m // 2)
    one = crossover(a, b, keep, np.random.default_rng(5))
    assert one == crossover(a, b, keep, np.random.default_rng(5))
    assert crossover(a, a, keep, np.random.default_rng(5)) == a  # a full graph: nothing to add
    assert crossover(a, b, set(range(a.m)), np.random.default_rng(5)) == a


def test_a_ball_grows_by_whole_levels_of_the_quotient_graph():
    a, _ = parents({"n": 64, "d": 3, "g": 1})
    one = ball(a, 0, 1)
    assert one == {0}
    two = ball(a, 0, 2)
    assert two == {0} | {int(w) for w in a.adj[0] if w >= 0}  # the root and its neighbours
    assert ball(a, 0, 10**6) == set(range(64))  # a random start is connected


def test_refused_forms():
    a, _ = parents({"n": 64, "d": 5, "g": 1})
    c, _ = parents({"n": 64, "d": 5, "g": 4})
    with pytest.raises(GolfError, match="parents of different forms"):
        crossover(a, c, {0}, np.random.default_rng(0))
    centred = problem_of({"n": 101, "d": 6, "g": 5, "centres": 1}).random_graph(1)
    with pytest.raises(GolfError, match="centre vertices are not handled"):
        orbits(centred)


@pytest.mark.parametrize("w,h,d,r,g", [(10, 10, 6, 3, 4), (5, 10, 4, 2, 2), (6, 6, 4, 2, 1)])
def test_the_repair_draws_on_every_cell_within_reach_and_no_other(w, h, d, r, g):
    from golf.engine.crossover import _cells, _reach_lists

    p = problem_of({"grid": [w, h], "n": w * h, "d": d, "r": r, "g": g})
    a = p.random_graph(1)
    reach = p.reach()
    cell = _cells(reach)[3]
    lists = _reach_lists(np.asarray(reach, dtype=np.int64).tobytes(), a.m)
    for x in range(a.m):
        want = {v for v in range(p.order)
                if v != x and int(np.abs(cell[v] - cell[x]).sum()) <= r}
        assert len(lists[x]) == len(want) and set(lists[x]) == want
