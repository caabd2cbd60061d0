"""The memetic population (golf.engine.memetic): deterministic, never worse, resumable,
better than its start."""

import numpy as np
import pytest

from golf.engine.memetic import Memetic, distance
from golf.errors import GolfError
from golf.evaluators import make_evaluator
from golf.problems import problem_of

SECTION = {"n": 96, "d": 3, "g": 6}


def population(seed=1, size=6, steps=1000):
    p = problem_of(SECTION)
    ev = make_evaluator("bitset", 96, 3, 6, threads=1)
    return Memetic([p.random_graph(s) for s in range(1, size + 1)], ev, seed=seed,
                   local_steps=steps)


def test_generations_are_deterministic_never_worse_and_improve_the_start():
    one, two = population(), population()
    start = one.best[0]
    worst = max(one.scores())
    for _ in range(40):
        before = sorted(one.scores())
        entered = one.generation()
        two.generation()
        after = sorted(one.scores())
        # the worst replaced by a better child, or nothing changed: no rank gets worse
        assert all(x <= y for x, y in zip(after, before)) and (after != before) == entered
        assert max(one.scores()) <= worst
    assert one.scores() == two.scores() and one.best[1] == two.best[1]
    assert one.entered > 0 and one.best[0] < start
    for score, graph in one.members:  # every member's score is its graph's
        s = one.evaluator.evaluate(graph)
        assert (s.diameter, s.total) == score


def test_a_population_resumes_from_its_state():
    one = population(seed=4)
    for _ in range(10):
        one.generation()
    state = one.state()
    two = population(seed=99)  # another generator, replaced by the state's
    two.load_state(state)
    for _ in range(15):
        one.generation()
        two.generation()
    assert one.scores() == two.scores() and one.generations == two.generations == 25
    assert all(a[1] == b[1] for a, b in zip(one.members, two.members))


def test_distance_counts_the_orbits_one_graph_has_and_the_other_not():
    p = problem_of(SECTION)
    a, b = p.random_graph(1), p.random_graph(2)
    assert distance(a, a) == 0 and distance(a, b) == distance(b, a) > 0


def test_refused_populations():
    ev = make_evaluator("bitset", 96, 3, 6, threads=1)
    p = problem_of(SECTION)
    with pytest.raises(GolfError, match="at least 2 graphs"):
        Memetic([p.random_graph(1)], ev)
    other = problem_of({"n": 96, "d": 3, "g": 12}).random_graph(1)
    with pytest.raises(GolfError, match="one form"):
        Memetic([p.random_graph(1), other], ev)
    m = population(size=3)
    bad = dict(m.state(), adjs=np.zeros((2, 16, 3), dtype=np.int32))
    with pytest.raises(GolfError, match="memetic state of shape"):
        m.load_state(bad)
