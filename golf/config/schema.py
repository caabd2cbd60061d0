"""The schema of a run config: every key with its type, default and accepted values
(:data:`SCHEMA`), what it does and when to change it (:data:`DOCS`), and :func:`validate`,
the check of one run's config against them: defaults filled in, every key checked, then the
rules of the problem's kind (:meth:`golf.problems.Problem.check`), of the backend asked for
(the registry, :mod:`golf.evaluators`) and of the search. The config reference of the
documentation is generated from this module (``docs/_ext/golfdocs.py``).
"""

from __future__ import annotations

import difflib

from golf.errors import GolfError
from golf.options import INF, POSITIVE, Spec, check_value
from golf.problems import START_KINDS

__all__ = ["SCHEMA", "DOCS", "START_KINDS", "evaluator_schema", "validate"]

# key -> Spec; a dict value is a section. The evaluator section takes ``backend`` and the
# options of the backends (each backend declares its own: golf.evaluators)
S = Spec
SCHEMA = {
    "name": S("name", None, None, "a run name (letters, digits, '-', '_', '.')"),
    "problem": {
        "n": S("int?", None, (1, 2**31 - 1), "an integer from 1 to 2147483647 (golf's "
               "largest order; for a grid problem: w*h, for a host-switch problem: its hosts, "
               "or left out)"),
        "grid": S("size?", None, None, "a lattice size [w, h] or 'WxH' (a grid problem: "
                  "golf.grid)"),
        "r": S("int?", None, (1, INF), "an integer >= 1 (a grid problem's longest edge, in "
               "Manhattan distance)"),
        "d": S("int?", None, (1, INF), "an integer >= 1"),
        "hosts": S("int?", None, (1, 2**31 - 1), "an integer >= 1 (a host-switch problem: "
                   "golf.hostswitch)"),
        "radix": S("int?", None, (1, INF), "an integer >= 1 (a host-switch problem's ports a "
                   "switch)"),
        "switches": S("int|auto?", None, (1, 2**31 - 1), "an integer >= 1, 'auto' (chosen "
                      "by trials) or null (the estimate's choice)"),
        "g": S("int|auto", 1, (1, INF), "an integer >= 1 dividing n (a grid: 1, 2 or 4), or "
               "'auto' (chosen by short trials: golf.run.portfolio)"),
        "group": S("group?", None, None, "'cyclic' or [a, r]: the symmetry group Z_a ⋊_r "
                   "Z_(g/a) of order g (golf.group; null: cyclic)"),
        "centres": S("int", 0, (0, 64), "an integer from 0 to 64 (vertices fixed by the "
                     "symmetry; g must divide n - centres)"),
        "regular": S("bool", False, None, "true or false"),
        "start": S("path?", None, None, "random, circulant, algebraic or an edge-list file (a "
                   "file named like one of those is given as ./NAME); null: random"),
    },
    "search": {
        "method": S("choice", "sa", ("sa", "hill", "tabu", "memetic", "auto"),
                    "'sa', 'hill', 'tabu', 'memetic' or 'auto'"),
        "steps": S("int", 0, (0, INF), "an integer >= 0 (0: no step limit)"),
        "time_limit": S("float?", None, POSITIVE, "seconds > 0, or null"),
        "seed": S("int", 0, (0, 2**63 - 1), "an integer >= 0"),
        "t0": S("temp", "auto", POSITIVE, "a temperature > 0 or 'auto'"),
        "t1": S("temp", "auto", POSITIVE, "a temperature > 0 or 'auto'"),
        "aspl_priority": S("bool", False, None, "true or false"),
        "tiebreak": S("bool", True, None, "true or false"),
        "peripheral_weight": S("float", 1.0, (0, INF), "a number >= 0"),
        "voltage_moves": S("float", 0.3, (0, 1), "a fraction from 0 to 1 (of the proposals "
                           "that re-target one orbit's rotation; needs g > 1)"),
        "near_moves": S("float", 0.5, (0, 1), "a fraction from 0 to 1 (of the proposals "
                        "other than voltage moves that swap two edges two hops apart)"),
        "slide_moves": S("float", 0.05, (0, 1), "a fraction from 0 to 1 (of the proposals "
                         "on a grid that change degrees: slide, fill or drop an edge)"),
        "speculate": S("int", 1, (1, 1024), "an integer from 1 to 1024 (proposal streams "
                       "of a chain: device chains score that many moves at once)"),
        "sample_moves": S("int", 200, (10, INF), "an integer >= 10"),
        "batch": S("int", 1, (1, 4096), "an integer from 1 to 4096 (chains scored together, "
                   "one evaluate_many call a step)"),
        "min_steps": S("int", 0, (0, INF), "an integer >= 0 (steps each chain of a timed "
                       "run's host population makes at least; 0: search.batch as given)"),
        "population": S("choice", "tempering", ("tempering", "annealing", "none"),
                        "tempering, annealing or none (how the batch's chains interact)"),
        "population_every": S("int", 100, (1, INF), "an integer >= 1 (steps between the "
                              "batch's exchanges or resamplings)"),
        "ladder": S("float", 4.0, (1, INF), "a number >= 1 (the hottest chain's temperature "
                    "over the coldest's, population: tempering)"),
        "auto_g_budget": S("float", 0.25, (0, 1, False), "a fraction > 0 and <= 1 of the run's "
                           "budget (seconds, or steps) for the trials of g: auto"),
        "reheat": S("float", 1.0, (0, 1, False), "a fraction > 0 and <= 1 (of the trials' "
                    "sampled T0 at which the run after the g: auto trials starts)"),
        "release": S("bool", False, None, "true or false (after the trials of g: auto, a "
                     "symmetric winner hands the run to g = 1)"),
        "members": S("int", 32, (2, 4096), "an integer from 2 to 4096 (graphs of a memetic "
                     "population)"),
        "local_steps": S("int", 5000, (1, INF), "an integer >= 1 (hill-climbing steps of each "
                         "child of a memetic search)"),
        "local_search": S("choice", "hill", ("hill", "descent"), "'hill' or 'descent'"),
        "neighbourhood": S("int", 4096, (1, 65536), "an integer from 1 to 65536 (candidate "
                           "swaps a tabu step scores)"),
        "tenure": S("int", 16, (0, 100000), "an integer from 0 to 100000 (tabu steps)"),
        "polish": S("float", 0.0, (0, 1), "a number >= 0 and < 1 (the fraction of the budget "
                    "spent in tabu search at the end; 0: none)"),
        "polish_g": S("int?", None, (1, INF), "an integer >= 1 dividing problem.g (the "
                      "symmetry of the polish phase; null: problem.g)"),
        "polish_starts": S("int", 1, (1, 65536), "an integer from 1 to 65536 (start graphs "
                           "of the polish phase: graphs of the population's chains)"),
        "polish_patience": S("int", 200, (1, 10**9), "an integer >= 1 (tabu steps without "
                             "going below the best since the polish phase's current start "
                             "before it takes the next one)"),
        "polish_kick": S("int", 5, (0, 10**6), "an integer >= 0 (tabu steps that take a random "
                         "admissible swap after each return to the best graph)"),
        "polish_method": S("choice", "tabu", ("tabu", "memetic"), "'tabu' or 'memetic'"),
    },
    "evaluator": {
        "backend": None,  # filled from the registry by evaluator_schema()
    },
    "parallel": {
        "mode": S("choice", "none", ("none", "chains", "evaluator"), "none, chains or evaluator"),
        "exchange_every": S("int", 20000, (1, INF), "an integer >= 1 (steps)"),
        "restart_fraction": S("float", 0.5, (0, 1), "a number from 0 to 1"),
        "replica_exchange": S("bool", False, None, "true or false"),
        "temperature_ladder": S("float", 1.5, (1, INF), "a number >= 1"),
    },
    "output": {
        "dir": S("str", "results", None, "a folder"),
        "checkpoint_every": S("float", 60.0, POSITIVE, "seconds > 0"),
        "trace_every": S("int", 1000, (1, INF), "an integer >= 1 (steps)"),
        "progress_every": S("float", 2.0, POSITIVE, "seconds > 0"),
        "plot": S("bool", True, None, "true or false"),
    },
}


# What each key of SCHEMA does and when to change it: the config reference of the
# documentation is generated from SCHEMA and this table (docs/_ext/golfdocs.py), and a test
# checks that every key has an entry. The evaluator section's options are documented by the
# backends' classes (golf.evaluators).
DOCS = {
    "name": "The run's name: the run folder is ``<output.dir>/<name>/``. In a file of problems, "
            "each problem's name (default ``n{n}d{d}`` or ``w{w}h{h}d{d}r{r}``) names its "
            "folder under the file's.",
    "problem.n": "The order: the number of vertices. Left out for a grid problem (``w*h``) and "
                 "a host-switch problem (its ``hosts``).",
    "problem.grid": "A grid problem of Graph Golf 2019 (:mod:`golf.grid`): the vertices are "
                    "the cells of a ``w x h`` lattice, and every edge joins cells at most "
                    "``problem.r`` apart.",
    "problem.r": "A grid problem's longest edge, in Manhattan distance.",
    "problem.d": "The degree bound: every vertex has at most ``d`` neighbours.",
    "problem.g": "The symmetry order: the graph is invariant under a group of order ``g`` "
                 "with ``m = n/g`` orbits, and every evaluation and move costs about ``1/g`` "
                 "of the asymmetric one. ``auto`` lets short trials choose the whole form "
                 "(cyclic ``g`` or a metacyclic group, :mod:`golf.run.portfolio`), a share "
                 "``search.auto_g_budget`` of the run. Change it to pin a form that you know "
                 "is good; 1 searches all graphs.",
    "problem.group": "The symmetry group of order ``g``: ``cyclic`` (or null) is the rotation "
                     "``Z_g``; ``[a, r]`` the metacyclic group ``Z_a ⋊_r Z_(g/a)``. With "
                     "``g: auto``, ``cyclic`` keeps the trials to cyclic forms.",
    "problem.hosts": "A host-switch problem (the Order/Radix problem of Graph Golf 2021, "
                     ":mod:`golf.hostswitch`): ``hosts`` hosts, each on one switch, and "
                     "switches of ``radix`` ports joined to hosts and to each other; the "
                     "score is over the host pairs (h-diameter, h-ASPL). Set it with "
                     "``radix`` instead of ``n`` and ``d``.",
    "problem.radix": "A host-switch problem's ports a switch (hosts and links alike).",
    "problem.switches": "A host-switch problem's number of switches; null: the ``s`` whose "
                        "estimate of the h-ASPL is smallest "
                        "(:func:`golf.hostswitch.radix_bounds.suggested_switches`); ``auto``: "
                        "that one and four around it tried by short trials, as ``g: auto`` "
                        "tries symmetries (:func:`golf.problems.order_radix.switch_forms`).",
    "problem.centres": "Centre vertices (:mod:`golf.graph`): ``n = g*m + centres``, the last "
                       "``centres`` vertices fixed by the symmetry and adjacent to whole "
                       "orbits (``d // g`` orbits each, laid by the start graph and kept by "
                       "the moves). For an order that no useful ``g`` divides (a prime, twice "
                       "a prime): ``g`` then divides ``n - centres``. ``g: auto`` tries this "
                       "form by itself where it helps. Scored by ``bitset``, ``bfs`` and "
                       "``reference``.",
    "problem.regular": "Keep every degree exactly ``d`` (the moves keep degrees, so this "
                       "only shapes the start graph). Off, a vertex may end below ``d``.",
    "problem.start": "The start graph: ``random`` (a random connected symmetric graph from "
                     "the seed), ``circulant`` (the best circulant ``C_n(S)`` a short search "
                     "finds), ``algebraic`` (a construction from the degree-diameter "
                     "literature near ``(n, d)``, fitted to it: :mod:`golf.starts.algebraic`; "
                     "for dense pairs, with ``g: 1``), or an edge-list file in golf's numbering "
                     "(a run's ``best.edges``) to continue from a known graph.",
    "search.method": "``sa`` (simulated annealing), ``hill`` (no uphill move), ``tabu`` "
                     "(the best of ``neighbourhood`` candidates a step), ``memetic`` (a "
                     "population of ``members`` graphs: crossover of two, ``local_steps`` of "
                     "hill climbing for each of ``batch`` children a generation; a step is a "
                     "generation; general graphs and grids without centre vertices) or "
                     "``auto`` (``sa`` and ``memetic`` each run 5% of the time limit from the "
                     "same graphs, then the better goes on: :mod:`golf.run.duel`). ``sa`` is "
                     "the one to use; ``tabu`` pays as a polish (``polish``).",
    "search.members": "The graphs of a memetic population: the start graph (after the trials "
                      "of ``g: auto`` the graphs of the winning trial's chains) and random "
                      "graphs of the form, each climbed first. ``golf chase`` holds 100 on "
                      "a grid of at most 200 cells (``golf.run.chase.GRID_MEMBERS``).",
    "search.local_steps": "Hill-climbing steps of each child of a memetic search (and of each "
                          "start graph). More climb deeper and make fewer generations.",
    "search.local_search": "The local search of each child of a memetic search (and of each "
                           "start graph): ``hill`` (``local_steps`` random swaps, each taken "
                           "where it scores no worse) or ``descent`` (every swap in turn until "
                           "none improves the graph: exhaustive first-improvement 2-opt, "
                           ":mod:`golf.engine.descent`).",
    "search.steps": "The step budget (0: none). With a step budget the same seed and backend "
                    "give the same graph on any machine; the cooling runs over the steps.",
    "search.time_limit": "The wall-time budget in seconds (null: none). Without a step "
                         "budget the cooling runs over this time.",
    "search.seed": "The seed of the start graph, the moves and the decisions; chain ``k`` of "
                   "a batch and MPI rank ``r`` take derived seeds.",
    "search.t0": "The start temperature (in units of the total distance of an orbit); "
                 "``auto`` samples moves from the start graph. Change it when the trace shows "
                 "the run freezing early (raise) or wandering (lower).",
    "search.t1": "The end temperature; ``auto`` samples it from the start graph like ``t0``.",
    "search.aspl_priority": "Let the total decide alone, so that a move may raise the "
                            "diameter. For studies; off keeps the diameter first, as the "
                            "competition ranks.",
    "search.tiebreak": "While the diameter is above its lower bound, also count the vertices "
                       "whose eccentricity is the diameter (fewer is the way down), with a "
                       "weight that fades out over the run.",
    "search.peripheral_weight": "The weight of that count against the total (``tiebreak``). "
                                "Raise it when a run stalls one above the diameter bound.",
    "search.voltage_moves": "The fraction of proposals that re-target one orbit to another "
                            "group element (its voltage); needs ``g > 1``.",
    "search.near_moves": "The fraction of the other proposals that swap two edges two hops "
                         "apart: smaller uphill steps, so more pass late in a run. Tabu search "
                         "draws that share of its candidates as near swaps.",
    "search.slide_moves": "Grid problems only: the fraction of proposals that slide an edge's "
                          "end onto a free slot within reach, join two free slots, or drop an "
                          "edge (:func:`golf.engine.moves.propose_slide`). The best grid "
                          "graphs known leave a few slots free; 0 keeps every degree.",
    "search.speculate": "Proposal streams of a chain: device chains score that many moves "
                        "at once and take the first accepted. Raise it on a GPU with few "
                        "chains.",
    "search.sample_moves": "Moves sampled from the start graph to set ``auto`` temperatures.",
    "search.batch": "Chains scored together (one ``evaluate_many`` call a step, or device "
                    "chains on a GPU). 128-256 on a GPU; 8-16 on a CPU for small graphs.",
    "search.min_steps": "With a time limit and ``g: auto``: after the trials, a population "
                        "whose chains run on the host keeps only as many chains as each make "
                        "this many steps in the time left, at the winning trial's measured "
                        "evaluations a second (at least one chain; device chains are not cut). "
                        "``golf chase`` sets 200000. 0: ``search.batch`` as given.",
    "search.population": "How a batch's chains interact every ``population_every`` steps: "
                         "``tempering`` (a temperature ladder with replica exchange), "
                         "``annealing`` (Boltzmann resampling) or ``none``.",
    "search.population_every": "Steps between the interactions of a batch's chains.",
    "search.ladder": "The hottest chain's temperature over the coldest's (``tempering``). "
                     "Raise it when every chain ends in the same basin.",
    "search.auto_g_budget": "The share of the run's budget that the trials of ``g: auto`` "
                            "take. Lower it when you already know the form is close.",
    "search.reheat": "After the trials of ``g: auto``, the run goes on from the winner's best "
                     "graph with ``T0`` (where ``auto``) this fraction of the one its trial "
                     "sampled from a random start, so that it does not melt that graph again. "
                     "``golf chase`` sets 0.1 for a grid of more than 200 cells on a CPU "
                     "(``golf.run.chase.GRID_REHEAT``).",
    "search.release": "After the trials of ``g: auto`` of an Order/Degree or grid problem, where "
                      "the winning form is symmetric (``g > 1``), the run goes on at ``g = 1`` "
                      "(every graph) from a fresh start graph and temperatures sampled from it, "
                      "the winner's best graph kept as the run's best (and so the polish's first "
                      "start) and its chains' other graphs among the polish's starts (the best "
                      "``polish_starts`` of them and the run's chains' graphs). A symmetric "
                      "form's optimum is a local one among all graphs, which ``g = 1`` needs "
                      "longer to pass than the trials' early rounds, where they drop it; the "
                      "time it needs grows with ``n``. ``golf chase`` sets it for "
                      "``n <= 128`` (``golf.run.chase.RELEASE_MAX_N``) and grids of at most 64 "
                      "cells (``GRID_RELEASE_MAX_N``). With a given ``g`` there are no trials, "
                      "and it does nothing.",
    "search.neighbourhood": "Candidate swaps a tabu step scores.",
    "search.tenure": "Tabu steps during which a removed orbit may not come back (unless it "
                     "beats the best graph).",
    "search.polish": "The fraction of the budget that ends an ``sa`` or ``hill`` run with "
                     "tabu search from its best graph. Try 0.1-0.2 on small graphs.",
    "search.polish_g": "The symmetry of the polish (a divisor of ``g``): a smaller one opens "
                       "swaps that ``g`` forbids.",
    "search.polish_starts": "Polish from up to this many graphs of a population in turn: the "
                            "chains' best graphs, then their current ones.",
    "search.polish_patience": "Tabu steps without going below the best graph since the current "
                              "start before the polish moves to its next start graph (after "
                              "the last: its best graph, then the first again).",
    "search.polish_method": "The search of the polish phase: ``tabu`` (from the start graphs "
                            "in turn) or ``memetic`` (a population of ``members`` graphs at "
                            "``polish_g``: the start graphs, then random graphs of the form; "
                            "``batch`` children a generation, ``local_steps`` each).",
    "search.polish_kick": "Back at its best graph, the polish takes this many random admissible "
                          "swaps (the first candidate drawn that qualifies) before it descends "
                          "again: it leaves the best graph's basin. On (64, 8) from a graph at "
                          "total 3960, one core, 180 s: 3901 to 3913 with 5 (three runs, two "
                          "seeds), 3955 with 0.",
    "parallel.mode": "Under ``mpiexec``: ``chains`` (each rank its own chains, exchanging "
                     "the best graph; the trials of ``g: auto`` dealt over the ranks), "
                     "``evaluator`` (the ranks split every evaluation: one large graph) or "
                     "``none``.",
    "parallel.exchange_every": "Steps between the exchanges of the best graph among MPI "
                               "ranks and among a batch's chains.",
    "parallel.restart_fraction": "The worst fraction of the chains (and ranks) that restart "
                                 "from the best graph at an exchange; 0 keeps them distinct, "
                                 "which pays in long runs.",
    "parallel.replica_exchange": "MPI chains at temperatures ``temperature_ladder**rank`` "
                                 "that swap states with their neighbours at an exchange.",
    "parallel.temperature_ladder": "The temperature ratio of neighbouring ranks under "
                                   "``replica_exchange``.",
    "output.dir": "The folder the run folders go in.",
    "output.checkpoint_every": "Seconds between checkpoints: what a kill loses at most.",
    "output.trace_every": "Steps between the rows of ``trace.csv``.",
    "output.progress_every": "Seconds between progress lines (``--quiet`` hides them).",
    "output.plot": "Write ``convergence.png`` (needs matplotlib).",
}


def evaluator_schema() -> dict:
    """The evaluator section: ``backend`` (auto or a registry name) and every backend's
    options (absent unless set: the backend's own default applies)."""
    from golf.evaluators import names, option_specs

    choices = ("auto", *names())
    specs = {"backend": S("choice", "auto", choices, ", ".join(choices[:-1]) + " or "
                          + choices[-1])}
    for key, spec in option_specs().items():
        specs[key] = spec if spec.kind.endswith("?") else spec._replace(kind=spec.kind + "?")
    return specs


def _unknown(where, key: str, known, section: str = "") -> GolfError:
    pre = f"{section}." if section else ""
    hint = difflib.get_close_matches(key, list(known), n=1)
    return GolfError(f"{where(pre + key)}: unknown key '{pre}{key}'"
                     + (f" (did you mean '{pre}{hint[0]}'?)" if hint else "")
                     + f"; known{' in ' + section if section else ''}: {', '.join(known)}")


def _section(raw: dict, key: str, spec: dict, where, fill: bool = True) -> dict:
    """One section checked against ``spec``; absent keys get their defaults (``fill``) or
    stay absent."""
    section = raw.get(key) or {}
    if not isinstance(section, dict):
        raise GolfError(f"{where(key)}: {key}: expected a mapping, got {section!r}")
    for sub in section:
        if sub not in spec:
            raise _unknown(where, str(sub), spec, key)
    out = {}
    for sub, subspec in spec.items():
        dotted = f"{key}.{sub}"
        if sub in section:
            out[sub] = check_value(dotted, section[sub], subspec, where)
        elif subspec.required:  # n, d
            raise GolfError(f"{where(key)}: missing {dotted}: expected {subspec.expected}")
        elif fill or sub == "backend":
            out[sub] = subspec.default
    return out


def validate(raw: dict, where, *, need_name=True) -> dict:
    """Fill defaults and check every key of one run's config; returns a new dict. The
    evaluator section keeps only the options that are set (each backend has its own
    defaults); with a named backend, an option it does not take is an error."""
    if not isinstance(raw, dict):
        raise GolfError(f"{where('')}: expected a mapping of settings, got {type(raw).__name__}")
    for key in raw:
        if key not in SCHEMA:
            raise _unknown(where, str(key), SCHEMA)
    out = {}
    for key, spec in SCHEMA.items():
        if key == "evaluator":
            out[key] = _section(raw, key, evaluator_schema(), where, fill=False)
        elif isinstance(spec, dict):
            out[key] = _section(raw, key, spec, where)
        elif key in raw:
            out[key] = check_value(key, raw[key], spec, where)
        elif need_name:
            raise GolfError(f"{where('')}: missing '{key}': expected {spec.expected}")
    _check_relations(out, where)
    return out


def _check_relations(out: dict, where) -> None:
    """The rules that tie several keys together: the kind's (:func:`golf.problems.kind_of`),
    the backend's (it scores the problem; its options), the search's."""
    from golf.problems import kind_of

    kind = kind_of(out["problem"])
    kind.check(out, where)
    _check_backend(out, where)
    _check_search(out, where)


def _check_backend(out: dict, where) -> None:
    """A backend asked for scores the problem, its kind and its form
    (:func:`golf.evaluators.decide`), and takes the options given (the registry's); ``auto``
    leaves out the options of the backends it does not choose."""
    from golf.evaluators import check_options, decide
    from golf.problems import problem_of

    e = out["evaluator"]
    if e["backend"] == "auto":
        return
    shape = problem_of(out["problem"]).shape
    try:
        decide(shape, e["backend"])
    except GolfError as exc:
        raise GolfError(f"{where('evaluator.backend')}: evaluator.backend: {exc}") from None
    check_options(e["backend"], {k: v for k, v in e.items() if k != "backend"},
                  lambda key: where(f"evaluator.{key}"), kind=shape.kind)


def _check_search(out: dict, where) -> None:
    """The rules of the search and parallel sections."""
    p, s = out["problem"], out["search"]
    if s["steps"] == 0 and s["time_limit"] is None:
        raise GolfError(f"{where('search')}: search: set steps (> 0) or time_limit (or both); "
                        f"a run with neither would never stop")
    par = out["parallel"]
    if s["batch"] > 1 and par["mode"] == "chains" and par["replica_exchange"]:
        raise GolfError(f"{where('parallel.replica_exchange')}: parallel.replica_exchange "
                        f"between ranks needs search.batch: 1; with a batch on every rank, "
                        f"search.population: tempering runs the ladder within each batch")
    if s["polish"] >= 1:
        raise GolfError(f"{where('search.polish')}: search.polish: expected a number >= 0 and "
                        f"< 1 (the fraction of the budget spent in tabu search at the end; 0: "
                        f"none), got {s['polish']}")
    if s["method"] == "memetic":
        _check_memetic(p, where)
    if s["polish_method"] == "memetic" and s["polish"] > 0:
        _check_memetic(p, where, "search.polish_method")
    if s["method"] == "tabu" and (s["polish"] > 0 or s["batch"] > 1):
        key = "polish" if s["polish"] > 0 else "batch"
        raise GolfError(f"{where('search.' + key)}: search.{key}: method tabu takes no "
                        f"{key} (a tabu step scores search.neighbourhood candidates of one "
                        f"graph; polish is the tabu phase of an sa or hill run)")
    for key, what, used in (("polish_g", "symmetry", s["polish_g"] is not None),
                            ("polish_starts", "start graphs", s["polish_starts"] > 1),
                            ("polish_method", "search", s["polish_method"] != "tabu")):
        if used and s["polish"] <= 0:
            raise GolfError(f"{where('search.' + key)}: search.{key}: sets the polish phase's "
                            f"{what}, which needs search.polish > 0 (the fraction of the "
                            f"budget spent in it)")
    if s["polish_g"] is not None:
        _check_polish_g(p, s, where)
    if s["release"]:
        _check_release(p, where)
    if s["t0"] != "auto" and s["t1"] != "auto" and s["t1"] > s["t0"]:
        raise GolfError(f"{where('search.t1')}: search.t1: expected t1 <= t0={s['t0']}, "
                        f"got {s['t1']}")


def _check_release(p: dict, where) -> None:
    """``search.release: true`` acts on the choice of the trials of an Order/Degree or grid
    problem (with a given ``g``, as in the run.yaml of a run whose trials chose one, it has
    nothing to act on)."""
    from golf.problems import kind_of

    key = "search.release"
    if kind_of(p).kind not in ("general", "grid"):
        raise GolfError(f"{where(key)}: {key}: hands an Order/Degree or grid problem's run to "
                        f"g = 1; this is a {kind_of(p).kind} problem")


def _check_memetic(p: dict, where, key: str = "search.method") -> None:
    """``search.method: memetic`` (or ``key: memetic``) takes what
    :func:`golf.engine.memetic.refused` does not refuse."""
    from golf.engine.memetic import refused
    from golf.problems import kind_of

    why = refused(kind_of(p).kind, p.get("centres") or 0)
    if why is not None:
        raise GolfError(f"{where(key)}: {key}: memetic: {why}")


def _check_polish_g(p: dict, s: dict, where) -> None:
    """``search.polish_g`` (with ``search.polish > 0``): the polish phase at a divisor of
    ``problem.g`` (every g-symmetric graph is also polish_g-symmetric); with ``g: auto`` only
    1, which divides whatever g the trials choose. A grid problem's polish numbers the cells
    for the rotation of its polish_g (:mod:`golf.grid`)."""
    pg, g, key = s["polish_g"], p["g"], "search.polish_g"
    if g == "auto" and pg != 1:
        raise GolfError(f"{where(key)}: {key}: with problem.g: auto only 1 divides every g "
                        f"the trials may choose, got {pg}")
    if g != "auto" and g % pg:
        raise GolfError(f"{where(key)}: {key}: expected a divisor of problem.g={g}, got {pg}")
