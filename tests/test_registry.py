"""The backend registry and its one decision: every line names a class that scores the kinds it
says, the config's evaluator options are the registry's, and ``decide`` picks and explains a
backend for every kind (``auto``, a chase's rules, a backend asked for, a centre form's
fallback) the way the command line, the run and the chase then build it."""

import pytest

from golf.errors import GolfError
from golf.evaluators import (GRAPHS, HOSTS, KINDS, REGISTRY, Shape, backend_class, backends,
                             build, check_options, decide, entry, gpu_usable, names,
                             option_specs)


def test_every_line_is_a_class_of_its_name_for_its_kinds():
    seen = set()
    for line in REGISTRY:
        assert line.kinds in (GRAPHS, HOSTS)
        for kind in line.kinds:
            assert (line.name, kind) not in seen  # one class a name and kind
            seen.add((line.name, kind))
            cls = backend_class(line.name, kind)
            assert cls.__name__ == line.target.split(":")[1]
            # a host-switch class names itself h-<name>, the others by their registry name
            assert cls.name == (line.name if kind in GRAPHS else f"h-{line.name}")
    assert names("host-switch") == ["bitset", "bfs", "gpu-bitset"]
    assert names("general") == names("grid") == names() == [
        "bitset", "bfs", "gpu-bitset", "seidel", "reference"]
    assert set(KINDS) == {k for line in REGISTRY for k in line.kinds}


def test_a_name_a_kind_does_not_have_is_refused_with_the_choices():
    with pytest.raises(GolfError, match="unknown backend 'seidel' for a host-switch problem; "
                                        "expected one of: auto, bitset, bfs, gpu-bitset"):
        entry("seidel", "host-switch")
    with pytest.raises(GolfError, match="unknown backend 'nope'; expected one of: auto, bitset"):
        backend_class("nope")
    with pytest.raises(GolfError, match="unknown problem kind 'torus'"):
        entry("bitset", "torus")


def test_the_configs_evaluator_options_are_the_registrys():
    from golf.config import evaluator_schema

    specs = evaluator_schema()
    assert set(specs) == {"backend"} | set(option_specs())
    assert set(specs["backend"].check) == {"auto", *names()}
    for kind in ("general", "host-switch"):
        for name, cls in backends(kind).items():
            assert set(cls.options) <= set(specs), (name, kind)
    with pytest.raises(GolfError, match=r"backend 'bfs' \(host-switch\) has no option "
                                        r"'chunk_words'; its options: threads"):
        check_options("bfs", {"chunk_words": 2}, kind="host-switch")


def test_auto_takes_the_smallest_estimate_and_says_why():
    found = decide(Shape("general", 4096, 8, 1))
    assert found.name == "bitset" and not found.gpu
    assert found.reason.startswith("bitset: ~") and "per evaluation estimated" in found.reason
    assert decide(Shape("general", 20000, 2, 1)).name == "bfs"
    assert decide(Shape("grid", 100, 4, 2)).name in names("grid")


def test_a_backend_asked_for_is_checked_against_the_form():
    shape = Shape("general", 101, 6, 5, centres=1)
    found = decide(shape, "bfs")
    assert found[:3] == ("bfs", "bfs: asked for", False) and found.seconds > 0
    with pytest.raises(GolfError, match="backend 'seidel' has no centre-vertex form"):
        decide(shape, "seidel")
    fallback = decide(shape, "seidel", fallback=True)
    assert fallback.name in ("bitset", "bfs")
    assert fallback.reason.startswith("seidel has no centre-vertex form; ")


def test_a_form_not_chosen_yet_leaves_auto_to_each_form():
    shape = Shape("general", 256, 8, None)
    if gpu_usable():
        pytest.skip("with a GPU a chase decides gpu-bitset before the form")
    assert decide(shape).name == "auto"
    assert decide(shape, chase=True).name == "auto"


def test_host_switch_problems_score_on_the_cpu_unless_a_large_chase_has_a_gpu():
    small, large = Shape("host-switch", 32, 4), Shape("host-switch", 10000, 10)
    assert decide(small).name == "bitset" and decide(large).name == "bitset"
    assert decide(small, chase=True).name == "bitset"
    assert decide(large, chase=True).name == ("gpu-bitset" if gpu_usable() else "bitset")
    assert "weighted bit matrix" in decide(small).reason


def test_build_makes_the_decided_backend_for_every_kind():
    from golf.hostswitch.ports import PortGraph
    from golf.starts.random import random_graph
    from golf.starts.switch_wiring import random_ports

    ev = build(Shape("host-switch", 32, 4, 1, switches=26), threads=1)
    assert ev.name == "h-bitset" and ev.auto_reason.startswith("bitset:")
    assert ev.evaluate(PortGraph(32, random_ports(32, 26, 4, seed=1))).connected
    ev = build(Shape("general", 60, 4, 2), "bfs")
    assert ev.name == "bfs" and ev.auto_reason is None
    assert ev.evaluate(random_graph(60, 4, 2, seed=1)).connected
    ev = build(Shape("general", 60, 4, 2), threads=1, chains="device")
    assert ev.dropped_options == (["chains"] if ev.name != "gpu-bitset" else [])
    with pytest.raises(GolfError, match="has no option 'chains'"):
        build(Shape("general", 60, 4, 2), "bfs", chains="device")


def test_every_line_says_what_it_scores():
    """A line's kinds, forms, device and options, as its class declares them."""
    lines = {(e.name, e.kinds): e for e in REGISTRY}
    assert lines["seidel", GRAPHS].forms == ("cyclic", "group")  # no centre vertices
    assert lines["bitset", GRAPHS].forms == ("cyclic", "group", "centres")
    assert lines["bitset", HOSTS].forms == ("switches",)
    assert {e.name for e in REGISTRY if e.device == "gpu"} == {"gpu-bitset", "seidel"}
    assert set(lines["bfs", HOSTS].options) == {"threads"}
    assert "chains" in lines["gpu-bitset", GRAPHS].options


def test_the_config_asks_decide_whether_the_backend_scores_the_problem():
    from golf.config import validate

    def cfg(backend, **problem):
        return validate({"name": "t", "problem": problem, "search": {"steps": 10},
                         "evaluator": {"backend": backend}}, lambda key: "t.yaml")

    with pytest.raises(GolfError, match="t.yaml: evaluator.backend: backend 'seidel' has no "
                                        "centre-vertex form"):
        cfg("seidel", n=101, d=6, g=5, centres=1)
    assert cfg("bfs", n=101, d=6, g=5, centres=1)["evaluator"] == {"backend": "bfs"}
    with pytest.raises(GolfError, match="unknown backend 'reference' for a host-switch"):
        cfg("reference", hosts=32, radix=4)


def test_a_result_is_rechecked_by_another_backend():
    from golf.evaluators import recheck_backend

    assert recheck_backend(256, 8, 64, "bitset") == "reference"  # SciPy, for a small graph
    big = (10**6, 32, 25_000)
    assert recheck_backend(*big, "bitset") == "bfs"
    assert recheck_backend(*big, "bfs") == "bitset"
    assert recheck_backend(*big, "gpu-bitset") == "bitset"
    # a run's share of its clock: SciPy only where it is predicted to fit (10^7 vertices:
    # ~25 s measured, past a 3-minute clock's 5%)
    huge = (10**7, 16, 2)
    assert recheck_backend(*huge, "gpu-bitset") == "reference"
    assert recheck_backend(*huge, "gpu-bitset", seconds=6.0) == "bitset"
    assert recheck_backend(*huge, "gpu-bitset", seconds=60.0) == "reference"
    assert recheck_backend(256, 8, 64, "bitset", seconds=2.0) == "reference"
