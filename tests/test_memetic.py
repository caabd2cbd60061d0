"""The memetic search (golf.engine.memetic): deterministic, never worse, resumable, better
than its start, within its budget and its bounds, islands that take a better graph."""

import numpy as np
import pytest

from golf.engine.annealer import SC, StopReason
from golf.engine.crossover import orbits
from golf.engine.memetic import Memetic, distance
from golf.errors import GolfError
from golf.evaluators import make_evaluator
from golf.problems import problem_of

from conftest import gpu_skip_reason

SECTION = {"n": 96, "d": 3, "g": 6}


def population(seed=1, size=6, steps=1000, brood=1, budget=0, first=1, ev=None,
               local_search="hill"):
    p = problem_of(SECTION)
    ev = ev or make_evaluator("bitset", 96, 3, 6, threads=1)
    return Memetic([p.random_graph(s) for s in range(first, first + size)], ev, seed=seed,
                   local_steps=steps, brood=brood, steps=budget, bounds=p.bounds(),
                   options={"near_moves": 0.5, "voltage_moves": 0.3},
                   local_search=local_search)


@pytest.mark.parametrize("brood,local_search", [(1, "hill"), (3, "hill"), (3, "descent")])
def test_steps_are_deterministic_never_worse_and_improve_the_start(brood, local_search):
    one = population(brood=brood, local_search=local_search)
    two = population(brood=brood, local_search=local_search)
    start = one.best[0]
    worst = max(one.scores())
    for _ in range(30):
        before, entered = sorted(one.scores()), int(one.sc[SC.ACCEPTED])
        rows = one.run(1)
        two.run(1)
        after = sorted(one.scores())
        # a member climbed or the worst replaced by a better child: no rank gets worse
        assert all(x <= y for x, y in zip(after, before))
        if one.climbed == len(one.members) and int(one.sc[SC.STEP]) > -(-6 // brood):
            assert (after != before) == (int(one.sc[SC.ACCEPTED]) > entered)
        assert max(one.scores()) <= worst
        assert rows.shape == (1, 8) and rows[0, 4:6].tolist() == list(one.best[0][:2])
    assert one.scores() == two.scores() and one.best[1] == two.best[1]
    assert int(one.sc[SC.ACCEPTED]) > 0 and one.best[0] < start
    assert int(one.sc[SC.EVALS]) > 20 * 1000  # a step proposes no valid swap at times
    for score, graph, mine in one.members:  # every member's score and orbits are its graph's
        assert mine == frozenset(orbits(graph))
        graph.check()
        s = one.evaluator.evaluate(graph)
        assert (s.diameter, s.total) == score[:2]
    best = one.best_graphs(3)
    assert len(best) == 3 and best[0] == one.best_graph()
    assert [one.evaluator.evaluate(g).total for g in best] == sorted(
        one.evaluator.evaluate(g).total for g in best)


@pytest.mark.parametrize("local_search", ["hill", "descent"])
def test_a_population_resumes_from_its_state(local_search):
    one = population(seed=4, local_search=local_search)
    one.run(10)
    state = one.state()
    two = population(seed=4, first=20, local_search=local_search)  # other start graphs,
    # replaced by the state's
    two.load_state(state)
    for _ in range(15):
        one.run(1)
        two.run(1)
    assert one.scores() == two.scores() and int(one.sc[SC.STEP]) == int(two.sc[SC.STEP]) == 25
    assert all(a[1] == b[1] for a, b in zip(one.members, two.members))
    assert np.array_equal(one.sc, two.sc)


def test_the_step_budget_and_the_bounds_stop_it():
    m = population(budget=8, steps=200)
    assert m.run(100).shape[0] == 8 and m.stop_reason == StopReason.STEPS
    p = problem_of({"n": 4, "d": 3, "g": 1})  # K4: every graph at the bounds
    ev = make_evaluator("bitset", 4, 3, 1, threads=1)
    k4 = Memetic([p.random_graph(1), p.random_graph(2)], ev, bounds=p.bounds())
    assert k4.run(5).shape[0] == 0 and k4.stop_reason == StopReason.BOUNDS


def test_an_island_takes_a_better_graph_once():
    m = population(size=4, steps=200)
    other = population(seed=9, size=4, steps=2000, first=40)
    other.run(8)
    (d, total, per), graph = other.best
    assert (d, total) < max(m.scores())
    m.offer_best(graph.adj, np.array([d, total, per]))
    assert (d, total) in m.scores() and m.best[0][:2] <= (d, total)
    assert m.restart_worst() == [0]  # it entered
    before = m.scores()
    m.offer_best(graph.adj, np.array([d, total, per]))  # a copy does not enter
    assert m.scores() == before and m.restart_worst() == []


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
    bad = dict(m.state(), adj=np.zeros((2, 16, 3), dtype=np.int32))
    with pytest.raises(GolfError, match="search.members=2"):
        m.load_state(bad)
    centred = problem_of({"n": 97, "d": 3, "g": 3, "centres": 1})
    ev = make_evaluator("bitset", 97, 3, 3, threads=1, centres=1)
    with pytest.raises(GolfError, match="centre vertices"):
        Memetic([centred.random_graph(1), centred.random_graph(2)], ev)


@pytest.mark.parametrize("problem,pattern", [
    ("{hosts: 32, radix: 6}", r"c\.yaml:3: search.method: memetic: the memetic search takes "
                              r"general graphs and grids, not a host-switch problem"),
    ("{n: 97, d: 3, g: 3, centres: 1}", r"c\.yaml:3: search.method: memetic: the memetic "
                                        r"search takes no centre vertices \(problem.centres: "
                                        r"1\)"),
    ("{n: 64, d: 4, g: 2}", r"c\.yaml:3: search.members: expected an integer from 2"),
])
def test_config_refuses_what_the_memetic_search_cannot_take(tmp_path, problem, pattern):
    from golf.config import load_config

    p = tmp_path / "c.yaml"
    members = ", members: 1" if "n: 64" in problem else ""
    p.write_text(f"name: t\nproblem: {problem}\nsearch: {{steps: 5, method: memetic{members}}}\n")
    with pytest.raises(GolfError, match=pattern):
        load_config(p)


REASON = gpu_skip_reason()


@pytest.mark.gpu
@pytest.mark.skipif(REASON is not None, reason=REASON or "")
@pytest.mark.parametrize("chains,local_search", [("device", "hill"), ("host", "hill"),
                                                 ("host", "descent")])
def test_on_the_gpu_the_search_walks_the_cpu_one(chains, local_search):
    """gpu-bitset climbs a generation's children together (device chains, or host chains
    scored in one launch a step), or descends from each with its tries scored in batches of
    3: the same members, scores and counters as on the CPU."""
    ev = make_evaluator("gpu-bitset", 96, 3, 6, chains=chains, batch=3)
    gpu = population(brood=3, steps=300, ev=ev, local_search=local_search)
    cpu = population(brood=3, steps=300, local_search=local_search)
    gpu.run(8)
    cpu.run(8)
    assert gpu.scores() == cpu.scores() and np.array_equal(gpu.sc, cpu.sc)
    assert all(a[1] == b[1] for a, b in zip(gpu.members, cpu.members))
    assert int(cpu.sc[SC.ACCEPTED]) > 0


def test_on_a_grid_the_children_keep_the_length_limit_and_the_search_its_rules(tmp_path):
    """A grid problem: blocks of the lattice, repairs within reach, climbs with the grid's
    moves; every member a graph of the problem (lengths, degrees, the rotation)."""
    import golf
    from golf.engine.crossover import block, crossover

    p = problem_of({"grid": [10, 10], "n": 100, "d": 4, "r": 3, "g": 4})
    reach, rng = p.reach(), np.random.default_rng(3)
    a, b = p.random_graph(1), p.random_graph(2)
    for _ in range(20):
        keep = block(a, reach, int(rng.integers(100)), a.m // 2)
        assert len(keep) >= a.m // 2
        child = crossover(a, b, keep, rng, reach)
        child.check()
        p.check_graph(child)
        assert p.grid.lengths(child.edges()).max() <= 3
    r = golf.search(None, 4, g=4, grid=(10, 10), r=3, steps=10, seed=2, method="memetic",
                    members=4, local_steps=300, batch=2, backend="bitset", threads=1,
                    output=tmp_path / "g", progress=False)
    assert r.summary["method"] == "memetic" and r.summary["steps"] == 10
    assert r.summary["best"]["total"] < r.summary["start"]["total"]
    best = p.read(tmp_path / "g" / "best.edges")
    p.check_graph(best)
    assert p.grid.lengths(best.edges()).max() <= 3


def test_a_memetic_run_ends_in_a_polish_from_its_members(tmp_path):
    """search.polish after a memetic search: tabu search at g = 1 from the best members (the
    chase's polish of a small pair), the best graph valid and at least as low."""
    import golf

    r = golf.search(64, 4, g=2, seconds=3, seed=4, method="memetic", members=4, local_steps=300,
                    batch=2, polish=0.5, polish_g=1, polish_starts=3, neighbourhood=16,
                    backend="bitset", threads=1, output=tmp_path / "p", progress=False)
    s = r.summary
    assert s["method"] == "memetic" and s["polish"]["g"] == 1 and s["polish"]["starts"] == 3
    assert (s["best"]["diameter"], s["best"]["total"]) <= tuple(s["polish"]["annealer_best"])
    score = golf.evaluate(golf.read_edges(tmp_path / "p" / "best.edges").edges, "bitset")
    assert (score.diameter, score.total) == (s["best"]["diameter"], s["best"]["total"])


def test_a_memetic_run_after_the_trials_starts_from_the_winners_chains(tmp_path):
    """g: auto then search.method: memetic: the population starts from the graphs of the
    winning trial's chains (their best graphs, then their current ones), not from one graph
    and random ones."""
    import re

    import golf

    r = golf.search(64, 4, g="auto", seconds=8, auto_g_budget=0.5, seed=3, method="memetic",
                    members=6, local_steps=200, batch=3, backend="bitset", threads=1,
                    output=tmp_path / "m", progress=False)
    s = r.summary
    log = (tmp_path / "m" / "log.txt").read_text()
    got = re.search(r"memetic: 6 members \((\d+) graphs of the trials' winner's chains and "
                    r"(\d+) random graphs", log)
    assert got and 2 <= int(got[1]) <= 6 and int(got[1]) + int(got[2]) == 6
    # the run starts at the winner's trial's best score, and ends no higher
    won = [t for t in s["auto_g"]["trials"] if t["label"] == s["auto_g"]["form"]["label"]][0]
    assert [s["start"]["diameter"], s["start"]["total"]] == won["best"]
    assert (s["best"]["diameter"], s["best"]["total"]) <= tuple(won["best"])


def test_a_memetic_polish_at_g1_continues_the_annealer(tmp_path):
    """search.polish_method: memetic: the polish phase at polish_g is a memetic population
    from the chains' graphs (then random graphs), its counts going on from the annealer's;
    the run's best graph is exact."""
    import re

    import golf
    from golf.run import load_checkpoint

    kw = dict(steps=3000, seed=4, batch=2, members=4, local_steps=100, polish=0.5,
              polish_g=1, polish_starts=3, polish_method="memetic", backend="bitset",
              threads=1, progress=False)
    r = golf.search(64, 4, g=4, output=tmp_path / "p", **kw)
    s = r.summary
    assert s["polish"]["g"] == 1 and s["polish"]["method"] == "memetic"
    assert s["steps"] > s["polish"]["from_step"]
    assert (s["best"]["diameter"], s["best"]["total"]) <= tuple(s["polish"]["annealer_best"])
    score = golf.evaluate(golf.read_edges(tmp_path / "p" / "best.edges").edges, "bitset")
    assert (score.diameter, score.total) == (s["best"]["diameter"], s["best"]["total"])
    log = (tmp_path / "p" / "log.txt").read_text()
    assert "polish: a memetic search from the best graph" in log
    assert re.search(r"4 members \([23] graphs of the chains, then random graphs of the "
                     r"form\)", log)
    ck = load_checkpoint(tmp_path / "p" / "checkpoint.npz")
    assert ck["states"][0]["adj"].shape == (4, 64, 4)  # the population at g = 1
    # a resume within the polish: test_checkpoint (MEMETIC_POLISH)


@pytest.mark.parametrize("extra,message", [
    ("polish_method: memetic", r"search.polish_method: sets the polish phase's search, which "
                               r"needs search.polish > 0"),
    ("polish: 0.5, polish_method: memetic",
     r"search.polish_method: memetic: the memetic search takes no centre vertices"),
])
def test_a_memetic_polish_is_refused_where_it_cannot_run(tmp_path, extra, message):
    from golf.config import load_config

    p = tmp_path / "c.yaml"
    p.write_text("name: t\nproblem: {n: 97, d: 3, g: 3, centres: 1}\n"
                 f"search: {{steps: 5, {extra}}}\n")
    with pytest.raises(GolfError, match=r"c\.yaml:3: " + message):
        load_config(p)
