"""Problem kinds as objects (golf.problems): the one place that tells a kind from a section's
keys, what each kind answers (order, bounds, shape, names, records, forms), the checks of a
config that are the kind's, ``n`` as the order of every kind, the keyword configs of the Python
API, and a trials' form read back from its record."""

import pytest

from golf.config import Keywords, validate
from golf.errors import GolfError
from golf.problems import (Form, GridProblem, HostSwitchProblem, OrderDegreeProblem, kind_of,
                           problem_of)


def valid(problem: dict, **sections) -> dict:
    return validate({"name": "t", "problem": problem, "search": {"steps": 10}, **sections},
                    lambda key: "t.yaml")


def test_the_kind_of_a_section_is_read_in_one_place():
    assert kind_of({"n": 64, "d": 4}) is OrderDegreeProblem
    assert kind_of({"grid": [10, 10], "d": 4, "r": 2}) is GridProblem
    for keys in ({"hosts": 32}, {"radix": 4}, {"switches": 5}):
        assert kind_of(dict(keys, d=4)) is HostSwitchProblem
    assert kind_of(None) is OrderDegreeProblem  # validate() names what is missing


def test_each_kind_answers_for_its_problem():
    general = problem_of(valid({"n": 256, "d": 8, "g": 4})["problem"])
    assert (general.kind, general.order, general.g, general.label) == (
        "general", 256, 4, "n=256 d=8 g=4")
    assert general.bounds().diameter == 3 and general.reach() is None
    assert general.submission_name(4, 89600) == "n256d8k4l274.edges"
    assert general.summary() == {"kind": "general", "n": 256, "d": 8, "g": 4}
    assert general.shape == ("general", 256, 8, 4, 0, None, None)
    grid = problem_of(valid({"grid": "10x10", "d": 4, "r": 2, "g": 2})["problem"])
    assert (grid.kind, grid.order, grid.n) == ("grid", 100, 100)
    assert grid.reach() is not None and grid.summary()["grid"] == [10, 10]
    assert grid.submission_name(9, 19774).startswith("w10h10d4r2k9l")
    hs = problem_of(valid({"hosts": 80, "radix": 6, "switches": 40})["problem"])
    assert (hs.kind, hs.n, hs.order, hs.d, hs.switches) == ("host-switch", 80, 80, 6, 40)
    assert hs.summary() == {"kind": "host-switch", "hosts": 80, "radix": 6, "switches": 40}
    assert hs.shape == ("host-switch", 80, 6, 1, 0, None, 40) and hs.host_moves
    assert hs.submission_name(5, 14069).startswith("h80r6k5l")
    assert hs.bounds().diameter == problem_of(
        valid({"hosts": 80, "radix": 6})["problem"]).bounds().diameter


def test_n_is_the_order_of_every_kind():
    """A host-switch problem's n is its hosts; the switches have their own key, in the
    validated config and in what the trials set."""
    p = valid({"hosts": 1024, "radix": 10})["problem"]
    assert p["n"] == p["hosts"] == 1024 and p["d"] == p["radix"] == 10
    assert isinstance(p["switches"], int) and p["switches"] != 1024
    trials = valid({"hosts": 1024, "radix": 10, "switches": "auto"})["problem"]
    assert trials["n"] == 1024 and trials["switches"] == "auto" and trials["g"] == "auto"
    form = Form(1, switches=400)
    assert ("problem", "n", 400) not in form.changes()
    assert problem_of(trials).at_form(form).switches == 400
    with pytest.raises(GolfError, match=r"problem.n: a host-switch problem's order is its "
                                        r"hosts \(1024\)"):
        valid({"hosts": 1024, "radix": 10, "n": 77})
    # a run.yaml of an earlier golf held the switches in n: read as the switches
    old = valid({"hosts": 1024, "radix": 10, "switches": 400, "n": 400})["problem"]
    assert (old["n"], old["switches"]) == (1024, 400)


def test_a_kinds_checks_are_its_own():
    with pytest.raises(GolfError, match="t.yaml: problem.group: not for a host-switch problem"):
        valid({"hosts": 32, "radix": 4, "group": [4, 3]})
    with pytest.raises(GolfError, match="a grid problem has no centre vertices"):
        valid({"grid": [6, 6], "d": 4, "r": 2, "g": 2, "centres": 1})
    with pytest.raises(GolfError, match="problem.r: the edge length limit of a grid problem"):
        valid({"n": 36, "d": 4, "r": 2})
    with pytest.raises(GolfError, match="missing problem.r"):
        valid({"grid": [6, 6], "d": 4})
    with pytest.raises(GolfError, match="missing problem.d"):
        valid({"n": 36})


def test_default_names_are_the_competitions():
    assert OrderDegreeProblem.default_name({"n": 64, "d": 4}) == "n64d4"
    assert GridProblem.default_name({"grid": "5x10", "d": 4, "r": 2}) == "w5h10d4r2"
    assert HostSwitchProblem.default_name({"hosts": 32, "radix": 4}) == "h32r4"


def test_the_forms_of_each_kind():
    general, rule = problem_of(valid({"n": 256, "d": 8, "g": "auto"})["problem"]).forms()
    assert general[0] == Form(32) and "cyclic g" in rule
    grid, rule = problem_of(valid({"grid": [10, 10], "d": 4, "r": 2, "g": "auto"})[
        "problem"]).forms()
    assert grid == [Form(1), Form(2), Form(4)] and "rotations" in rule
    hs, rule = problem_of(valid({"hosts": 80, "radix": 6, "switches": "auto"})[
        "problem"]).forms()
    assert all(f.g == 1 and f.switches for f in hs) and "switches" in rule


def test_a_form_reads_back_from_its_record():
    from golf.group import Group

    for form in (Form(32), Form(128, Group(16, 8, 3)), Form(4, centres=1),
                 Form(1, construction="ER_31-line"), Form(1, switches=40),
                 Form(1, construction="ER_13", switches=183)):
        back = Form.from_record(form.record(256 if not form.switches else 1281))
        assert back.changes() == form.changes()
    with pytest.raises(GolfError, match="the checkpoint records no g chosen by the trials"):
        Form.from_record({"g": "auto"})


def test_keywords_make_the_run_config_of_the_python_api():
    kw = Keywords(64, 4, 2, seconds=5.0, seed=3, backend="bfs", settings={"batch": 4,
                                                                           "threads": 1})
    cfg = validate(kw.config(), lambda key: "search()")
    assert cfg["problem"]["n"] == 64 and cfg["search"]["batch"] == 4
    assert cfg["search"]["time_limit"] == 5.0 and cfg["search"]["seed"] == 3
    assert cfg["evaluator"] == {"backend": "bfs", "threads": 1}
    with pytest.raises(GolfError, match="search: unknown setting 'nope'"):
        Keywords(64, 4, settings={"nope": 1}).config()
    with pytest.raises(GolfError, match="unknown setting 'time_limit'"):
        Keywords(64, 4, settings={"time_limit": 1}).config()
