"""search.method: auto (golf.run.duel): annealing and the memetic search run the same share of
the clock from the same graphs, the better goes on; where the memetic search does not apply
the run anneals and says why."""

import pytest

import golf
from golf.run.duel import DUEL_SHARE


def test_the_duel_runs_both_engines_on_the_clock_and_the_better_goes_on(tmp_path):
    # both engines compiled first (a first compilation is not on the duel's clock in a chase,
    # whose trials compile what they run)
    for method in ("memetic", "sa"):
        golf.search(96, 3, g=6, steps=2, method=method, members=2, local_steps=10, batch=2,
                    backend="bitset", threads=1, progress=False)
    seconds = 6.0
    r = golf.search(96, 3, g=6, seconds=seconds, seed=5, method="auto", members=6,
                    local_steps=500, batch=2, backend="bitset", threads=1,
                    output=tmp_path / "r", progress=False)
    s, duel = r.summary, r.summary["duel"]
    won = duel["won"]
    assert won in ("sa", "memetic") and s["method"] == won
    for name in ("sa", "memetic"):
        assert duel[name]["evaluations"] > 0 and duel[name]["steps"] > 0
        # its share of the clock, plus a chunk of steps (~0.2 s) at most, and no less
        assert DUEL_SHARE * seconds <= duel[name]["seconds"] + 0.05
        assert duel[name]["seconds"] <= DUEL_SHARE * seconds + 2.0
    other = "sa" if won == "memetic" else "memetic"
    assert (tuple(duel[won]["best"]) < tuple(duel[other]["best"])
            or (won == "sa" and duel["sa"]["best"] == duel["memetic"]["best"]))
    # the run ends at least as low as the winner's best, within its clock
    assert (s["best"]["diameter"], s["best"]["total"]) <= tuple(duel[won]["best"])
    assert s["seconds"] <= seconds * 1.05 + 2.0
    log = (tmp_path / "r" / "log.txt").read_text()
    assert f"method: {won} won the duel of {DUEL_SHARE * seconds:.1f} s each" in log
    assert f"the run goes on with {won}" in log


@pytest.mark.parametrize("kw,why", [
    ({"steps": 2000}, "no time limit (the duel is on the clock)"),
    ({"seconds": 1, "hosts": 32, "radix": 6, "switches": 12},
     "the memetic search takes general graphs and grids, not a host-switch problem"),
])
def test_no_duel_where_the_memetic_search_does_not_apply(tmp_path, kw, why):
    n, d = (None, None) if "hosts" in kw else (64, 4)
    r = golf.search(n, d, g=1, method="auto", backend="bitset", threads=1,
                    output=tmp_path / "r", progress=False, **kw)
    assert r.summary["method"] == "sa" and r.summary["duel"] == {"won": "sa", "why": why}
    assert f"method: sa, without a duel: {why}" in (tmp_path / "r" / "log.txt").read_text()


def test_no_duel_where_a_memetic_step_would_not_fit_its_slice(tmp_path):
    """The clock is read between steps: a step of the memetic search longer than the duel's
    slice (at the backend's estimate of an evaluation) means no duel."""
    r = golf.search(64, 4, g=2, seconds=1, method="auto", local_steps=10**8, backend="bitset",
                    threads=1, output=tmp_path / "r", progress=False)
    assert r.summary["method"] == "sa"
    assert "would not fit the duel's 0.05 s" in r.summary["duel"]["why"]


def test_a_memetic_winner_exchanges_as_often_in_time_as_the_annealer_would():
    """Among MPI chains the winner's islands exchange every as many generations as it makes
    in the seconds the annealer takes for parallel.exchange_every steps."""
    from golf.run.duel import memetic_exchange

    rates = {"sa": {"steps": 40_000, "seconds": 2.0}, "memetic": {"steps": 50, "seconds": 2.0}}
    assert memetic_exchange(200_000, rates) == 250  # 10 s of annealing, 25 generations a s
    assert memetic_exchange(20, rates) == 1  # at least one generation
    assert memetic_exchange(200_000, dict(rates, memetic={"steps": 0, "seconds": 2.0})) == 5
