"""Run configurations: YAML read with ``safe_load`` only, validated against a schema.

A file describes one run, or a competition of several problems::

    name: quick                      # runs go to <output.dir>/<name>/
    problem: {n: 256, d: 8, g: 4, start: random}   # or circulant, or an edge-list file
    # a grid problem (golf.grid): problem: {grid: [10, 10], d: 6, r: 3, g: 2}
    search: {method: sa, steps: 200000, time_limit: 60, seed: 1}
    evaluator: {backend: auto}
    parallel: {mode: none}
    output: {dir: results}

    # or: the keys above as defaults, and a list of problems that may override any of them;
    # each problem runs in <output.dir>/<name>/<problem name>/
    problems:
      - {name: n50d4, problem: {n: 50, d: 4}}
      - {name: n512d6, problem: {n: 512, d: 6, g: 8}, search: {time_limit: 600}}

Every error names the file, the line, the key and what was expected; unknown keys are errors
(with the nearest known key suggested). Command-line overrides (``--set search.seed=3``) are
applied last, to every problem.

Hostile or careless files end in a GolfError, fast: a config larger than 1 MB
(:data:`MAX_CONFIG_BYTES`) is refused before it is parsed, YAML anchors and aliases are
refused where they stand (an alias "bomb" of nine levels of nine references would expand to
a billion nodes), and so is nesting deeper than :data:`MAX_YAML_DEPTH`. :func:`read_yaml` is
the one way golf reads a YAML file. Paths are checked before any search starts: ``output.dir``
must be a folder (or creatable under one) that golf may write in, ``problem.start`` a file
golf may read.
"""

from __future__ import annotations

import copy
import difflib
import os
from dataclasses import dataclass
from pathlib import Path

import yaml

from golf.errors import GolfError
from golf.options import INF, POSITIVE, Spec, check_value

__all__ = ["RunConfig", "load_config", "parse_overrides", "SCHEMA", "validate", "START_KINDS",
           "read_yaml", "load_yaml", "MAX_CONFIG_BYTES", "MAX_YAML_DEPTH", "DOCS",
           "keywords_config"]

# a config file above this size is refused before it is parsed (real ones are a few KB)
MAX_CONFIG_BYTES = 1 << 20
# mappings and lists nested deeper than this are refused (a config uses 3 or 4 levels)
MAX_YAML_DEPTH = 32

# problem.start values that name a generated start graph, not a file
START_KINDS = ("random", "circulant", "algebraic")

# key -> Spec; a dict value is a section. The evaluator section takes ``backend`` and the
# options of the backends (each backend declares its own: golf.evaluators)
S = Spec
SCHEMA = {
    "name": S("name", None, None, "a run name (letters, digits, '-', '_', '.')"),
    "problem": {
        "n": S("int?", None, (1, 2**31 - 1), "an integer from 1 to 2147483647 (golf's "
               "largest order; for a grid problem: w*h, or left out)"),
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
        "method": S("choice", "sa", ("sa", "hill", "tabu"), "'sa', 'hill' or 'tabu'"),
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
    "problem.n": "The order: the number of vertices. Left out for a grid problem (``w*h``).",
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
                        "tries symmetries (:func:`golf.run.portfolio.switch_forms`).",
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
    "search.method": "``sa`` (simulated annealing), ``hill`` (no uphill move) or ``tabu`` "
                     "(the best of ``neighbourhood`` candidates a step). ``sa`` is the one to "
                     "use; ``tabu`` pays as a polish (``polish``).",
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


def keywords_config(n, d, g, seconds, steps, seed, backend, plot, settings) -> dict:
    """A raw run config from the arguments of :func:`golf.search` (and :func:`golf.chase`):
    every other keyword goes to the section of the schema that has it (search, evaluator,
    output, parallel, problem)."""
    cfg = {"name": "search", "problem": {"n": n, "d": d, "g": g},
           "search": {"seed": seed, "steps": steps, "time_limit": seconds},
           "evaluator": {"backend": backend}, "parallel": {}, "output": {"plot": plot}}
    sections = {name: (evaluator_schema() if name == "evaluator" else spec)
                for name, spec in SCHEMA.items() if isinstance(spec, dict)}
    for key, value in settings.items():
        home = [name for name, spec in sections.items() if key in spec]
        taken = {"n", "d", "g", "dir", "time_limit"}  # arguments of search() or its output
        if not home or key in taken:
            known = sorted({k for spec in sections.values() for k in spec} - taken)
            raise GolfError(f"search: unknown setting '{key}'; known: {', '.join(known)}")
        cfg[home[0]][key] = value
    return cfg


@dataclass
class RunConfig:
    """One validated run: ``data`` is the full config (defaults filled in), ``path`` the run
    folder."""

    name: str
    data: dict
    path: Path
    source: str

    def __getitem__(self, key):
        return self.data[key]


# ------------------------------------------------------------------------------------------
class _Refused(Exception):
    """A YAML construct golf does not read, at ``mark``."""

    def __init__(self, mark, message):
        super().__init__(message)
        self.mark, self.message = mark, message


class _Loader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses anchors and aliases and nesting deeper than
    :data:`MAX_YAML_DEPTH`, where they stand (before anything is expanded)."""

    _depth = 0

    def compose_node(self, parent, index):
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent):
            raise _Refused(event.start_mark, f"YAML alias '*{event.anchor}': anchors and "
                           f"aliases are not read (write the settings out; settings at the top "
                           f"of a file of problems are every problem's defaults)")
        if getattr(event, "anchor", None) is not None:
            raise _Refused(event.start_mark, f"YAML anchor '&{event.anchor}': anchors and "
                           f"aliases are not read (write the settings out; settings at the top "
                           f"of a file of problems are every problem's defaults)")
        self._depth += 1
        try:
            if self._depth > MAX_YAML_DEPTH:
                raise _Refused(event.start_mark, f"nested more than {MAX_YAML_DEPTH} levels "
                               f"deep; a config needs 3 or 4")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_object(self, node, deep=False):
        """A value PyYAML's constructors fail on (a date like 2020-13-45) is refused at its
        line."""
        try:
            return super().construct_object(node, deep=deep)
        except (ValueError, OverflowError, TypeError) as exc:
            raise _Refused(node.start_mark, f"cannot read the value {_quoted(node)}: "
                           f"{exc}") from None

    def construct_yaml_int(self, node):
        """Integers of at most 100 characters (Python refuses int() of 4300 digits, and no
        setting needs more than 20)."""
        text = self.construct_scalar(node)
        if len(text) > 100:
            raise _Refused(node.start_mark, f"a number of {len(text)} characters "
                           f"({_quoted(node)}); expected at most 100")
        return super().construct_yaml_int(node)


def _quoted(node) -> str:
    text = str(node.value) if isinstance(node, yaml.ScalarNode) else node.tag
    return repr(text if len(text) <= 40 else text[:37] + "...")


_Loader.add_constructor("tag:yaml.org,2002:int", _Loader.construct_yaml_int)


def load_yaml(text: str, source: str, with_line: bool = True):
    """Parse YAML text with :class:`_Loader` (safe types only, no anchors or aliases, nesting
    at most :data:`MAX_YAML_DEPTH` levels). Messages start ``<source>:<line>:``, or
    ``<source>:`` without ``with_line`` (a one-line value).

    Returns
    -------
    (data, lines)
        The document (None when empty) and the 1-based line of every dotted key
        (:func:`_node_lines`).

    Raises
    ------
    GolfError
        ``<source>:<line>: ...`` for bad YAML, an anchor or alias, deep nesting, or a
        value PyYAML cannot build (a date like 2020-13-45, an integer of 5000 digits).
    """
    def at(mark):
        return f"{source}:{mark.line + 1}" if mark and with_line else str(source)

    loader = None
    try:
        loader = _Loader(text)  # refuses non-printable characters at once
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except _Refused as exc:
        raise GolfError(f"{at(exc.mark)}: {exc.message}") from None
    except yaml.reader.ReaderError as exc:  # a control character: no mark, a position
        line = text.count("\n", 0, exc.position) + 1
        where = f"{source}:{line}" if with_line else str(source)
        char = chr(exc.character) if isinstance(exc.character, int) else exc.character
        raise GolfError(f"{where}: not valid YAML: character {char!r} is not allowed "
                        f"(special characters)") from None
    except yaml.YAMLError as exc:
        raise GolfError(f"{at(getattr(exc, 'problem_mark', None))}: not valid YAML: "
                        f"{getattr(exc, 'problem', None) or exc}") from None
    except RecursionError:  # pragma: no cover - the depth limit comes first
        raise GolfError(f"{source}: nested too deeply") from None
    finally:
        if loader is not None:
            loader.dispose()
    return data, _node_lines(node)


def read_yaml(path, what: str = "config file"):
    """Read a YAML file with :func:`load_yaml`, refusing a file over
    :data:`MAX_CONFIG_BYTES` before parsing it (reading stops there: a device or a pipe that
    never ends is refused too). The shared entry for every YAML file golf reads (configs, a
    run folder's ``run.yaml``).

    Returns
    -------
    (data, lines)
        As :func:`load_yaml`.

    Raises
    ------
    GolfError
        Naming the file: missing, unreadable, too large, not UTF-8, or what
        :func:`load_yaml` refuses (with the line).
    """
    path = Path(path)
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_CONFIG_BYTES + 1)
    except FileNotFoundError:
        raise GolfError(f"{path}: no such {what}") from None
    except OSError as exc:
        raise GolfError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise GolfError(f"{path}: larger than {MAX_CONFIG_BYTES} bytes; expected a {what} of "
                        f"a few KB")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise GolfError(f"{path}: cannot read: not UTF-8 text ({exc.reason} at byte "
                        f"{exc.start})") from None
    return load_yaml(text, str(path))


def _node_lines(node) -> dict:
    """Map every dotted key (list items as ``problems.0``) of a composed YAML document to its
    1-based line number (a tree: :class:`_Loader` allows no aliases, so one visit a node)."""
    out = {}

    def walk(node, prefix):
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                key = f"{prefix}.{k.value}" if prefix else str(k.value)
                out[key] = k.start_mark.line + 1
                walk(v, key)
        elif isinstance(node, yaml.SequenceNode):
            for i, v in enumerate(node.value):
                key = f"{prefix}.{i}"
                out[key] = v.start_mark.line + 1
                walk(v, key)

    if node is not None:
        walk(node, "")
    return out


class _Where:
    def __init__(self, source, lines, index=None):
        self.source, self.lines, self.index = source, lines, index

    def __call__(self, key: str) -> str:
        full = key if self.index is None else f"problems.{self.index}.{key}"
        line = self.lines.get(full) or self.lines.get(key)
        return f"{self.source}:{line}" if line else self.source


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


def _check_centres(p: dict, s: dict, where) -> None:
    """The rules of ``problem.centres`` (:mod:`golf.graph`): ``g >= 2`` divides ``n -
    centres``, a centre takes at least one orbit (``g <= d``), the start is random or a file,
    no grid, a polish at ``g`` or 1, and a regular graph needs ``g | d``."""
    n, d, g, c = p["n"], p["d"], p["g"], p["centres"]
    at = f"{where('problem.centres')}: problem.centres"
    if p["grid"] is not None:
        raise GolfError(f"{at}: a grid problem has no centre vertices")
    if g < 2 or (n - c) % g:
        raise GolfError(f"{at}: {c} centres need a problem.g >= 2 dividing n - centres = "
                        f"{n - c}, got g={g}")
    if g > d:
        raise GolfError(f"{at}: a centre is adjacent to whole orbits of g={g} vertices, so "
                        f"g must be <= d={d}")
    if c * (d // g) > (n - c) // g * d:
        raise GolfError(f"{at}: {c} centres of {d // g} orbits each need more slots than "
                        f"the {(n - c) // g} base rows hold")
    if p["start"] in ("circulant", "algebraic"):
        raise GolfError(f"{where('problem.start')}: problem.start: {p['start']} starts have "
                        f"no centre vertices; start from random or a file")
    if s["polish_g"] not in (None, 1, g):
        raise GolfError(f"{where('search.polish_g')}: search.polish_g: with centres the "
                        f"polish runs at g={g} or 1, got {s['polish_g']}")
    if p["regular"] and d % g:
        raise GolfError(f"{where('problem.regular')}: problem.regular: a centre has degree "
                        f"g*(d // g) = {g * (d // g)} < d={d}; choose a g dividing d or "
                        f"regular: false")


def _check_relations(out: dict, where) -> None:
    """The rules that tie several keys together."""
    from golf.evaluators import check_options

    p, s, e = out["problem"], out["search"], out["evaluator"]
    if p["hosts"] is not None or p["radix"] is not None or p["switches"] is not None:
        _check_host_switch(p, s, e, out["parallel"], where)
        _check_search(out, where)
        return
    _check_grid(p, where)
    if p["d"] is None:
        raise GolfError(f"{where('problem')}: missing problem.d: expected an integer >= 1")
    n, d, g = p["n"], p["d"], p["g"]
    c = p.get("centres", 0)
    if g == "auto":  # resolved by trials before the run (golf.run.portfolio)
        g = 1
        if c:
            raise GolfError(f"{where('problem.centres')}: problem.centres: centres need an "
                            f"integer problem.g (g: auto chooses its own form)")
    if c:
        _check_centres(p, s, where)
    elif n % g:
        raise GolfError(f"{where('problem.g')}: problem.g: {g} does not divide n={n}")
    if p["group"] is not None and p["group"] != "cyclic":
        from golf.group import parse_group

        if p["g"] == "auto" or p["grid"] is not None:
            raise GolfError(f"{where('problem.group')}: problem.group: a group needs an integer "
                            f"problem.g (not auto) and no grid")
        parse_group(p["group"], p["g"], f"{where('problem.group')}: problem.group")
        if s["polish_g"] not in (None, 1, p["g"]):
            raise GolfError(f"{where('search.polish_g')}: search.polish_g: with problem.group "
                            f"the polish runs at g={p['g']} or 1, got {s['polish_g']}")
        if p["start"] == "circulant":
            raise GolfError(f"{where('problem.start')}: problem.start: circulant starts are "
                            f"cyclic; with problem.group start from random or a file")
    if d >= n:
        raise GolfError(f"{where('problem.d')}: problem.d: expected d < n (a simple graph on "
                        f"{n} vertices has degree <= {n - 1}), got {d}")
    if p["regular"] and (n * d) % 2:
        raise GolfError(f"{where('problem.regular')}: problem.regular: no {d}-regular graph "
                        f"on n={n} vertices exists (n*d is odd); set regular: false")
    if p["regular"] and not c and g % 2 and (n // g * d) % 2:
        raise GolfError(f"{where('problem.regular')}: problem.regular: with odd g={g} every "
                        f"class needs an even slot count m*d={n // g * d}; choose another g")
    start = p["start"]
    if start is not None and start not in START_KINDS:
        _check_start(start, where)
    if start == "algebraic":
        from golf.starts.algebraic import NO_CONSTRUCTION, constructions

        if p["g"] != 1 or p["grid"] is not None or p["group"] not in (None, "cyclic"):
            raise GolfError(f"{where('problem.start')}: problem.start: algebraic starts are "
                            f"not symmetric in golf's numbering and have no lattice: they need "
                            f"problem.g: 1 and no grid")
        if not constructions(n, d):
            raise GolfError(f"{where('problem.start')}: problem.start: algebraic: no "
                            f"construction lies near (n={n}, d={d}) ({NO_CONSTRUCTION})")
    if e["backend"] != "auto":
        check_options(e["backend"], {k: v for k, v in e.items() if k != "backend"},
                      lambda key: where(f"evaluator.{key}"))
    _check_search(out, where)


def _check_host_switch(p: dict, s: dict, e: dict, par: dict, where) -> None:
    """A host-switch problem (``problem.hosts``, :mod:`golf.hostswitch`): the hosts and the
    radix given, ``n`` the switches and ``d`` the radix from here on, ``g = 1``; no lattice,
    group or centres; a random start, a polarity graph or an ORP file; annealing (sa or
    hill); the evaluator one of :data:`golf.evaluators.REGISTRY`'s host-switch backends (``auto`` or
    ``bitset``, with threads and chunk_words; ``bfs``, with threads; ``gpu-bitset``, with
    device)."""
    at = where("problem")
    if p["hosts"] is None:
        raise GolfError(f"{at}: problem.radix and problem.switches belong to a host-switch "
                        f"problem: set problem.hosts too")
    r = p["radix"] if p["radix"] is not None else p["d"]
    if r is None:
        raise GolfError(f"{at}: missing problem.radix: a host-switch problem needs the ports "
                        f"a switch (an integer >= 1)")
    if p["d"] is not None and p["d"] != r:
        raise GolfError(f"{where('problem.d')}: problem.d: a host-switch problem's degree is "
                        f"its radix ({r}); leave d out")
    trials = p["switches"] == "auto" or (p["switches"] is None and p["g"] == "auto")
    if trials:  # chosen by trials (golf.run.portfolio.switch_forms); n the first guess
        p["switches"], p["n"] = None, None
    if p["n"] is not None:  # a validated config (run.yaml) holds n = switches too
        if p["switches"] is not None and p["n"] != p["switches"]:
            raise GolfError(f"{where('problem.n')}: problem.n: a host-switch problem's n is "
                            f"its number of switches ({p['switches']}); leave n out")
        p["switches"] = p["n"]
    for key, bad in (("grid", p["grid"] is not None),
                     ("group", p["group"] not in (None, "cyclic")), ("centres", p["centres"]),
                     ("g", p["g"] not in (1, "auto")), ("regular", p["regular"])):
        if bad:
            raise GolfError(f"{where('problem.' + key)}: problem.{key}: not for a host-switch "
                            f"problem (problem.hosts, radix and switches set it)")
    from golf.hostswitch.radix_bounds import fewest_switches, suggested_switches

    n = p["hosts"]
    least = fewest_switches(n, r)
    if least is None:
        raise GolfError(f"{at}: no switches of radix {r} connect {n} hosts")
    sw = p["switches"] if p["switches"] is not None else suggested_switches(n, r)
    if sw < least or (sw == 1 and n > r) or (sw > 1 and (-(-n // sw) >= r
                                                        or sw * r - n < 2 * (sw - 1))):
        raise GolfError(f"{where('problem.switches')}: problem.switches: {sw} switches of "
                        f"radix {r} cannot connect {n} hosts (at least {least}, with a port "
                        f"for a link on each)")
    p.update(n=sw, d=r, g="auto" if trials else 1, radix=r,
             switches="auto" if trials else sw)
    start = p["start"]
    if start == "algebraic":  # the polarity graph ER_q as the switch graph
        from golf.starts.switch_wiring import polarity_fits

        fits = [q * q + q + 1 for q in polarity_fits(n, r)]
        if trials or sw not in fits:
            raise GolfError(f"{where('problem.start')}: problem.start: algebraic: a "
                            f"host-switch problem starts from a polarity graph ER_q with "
                            f"problem.switches q^2 + q + 1, one whose switches hold the hosts "
                            f"at radix {r}: "
                            + (", ".join(map(str, fits)) if fits else "none for this pair"))
    elif start not in (None, "random"):
        if start in START_KINDS:
            raise GolfError(f"{where('problem.start')}: problem.start: a host-switch problem "
                            f"starts from random, algebraic or an ORP file, not {start}")
        _check_start(start, where)
    if s["method"] == "tabu" or s["polish"] > 0:
        key = "method" if s["method"] == "tabu" else "polish"
        raise GolfError(f"{where('search.' + key)}: search.{key}: a host-switch problem "
                        f"anneals (sa or hill); the tabu search takes no host moves")
    from golf.evaluators import check_options, names

    if e["backend"] != "auto" and e["backend"] not in names("host-switch"):
        raise GolfError(f"{where('evaluator.backend')}: evaluator.backend: a host-switch "
                        f"problem is scored by golf's host-switch evaluators: auto or bitset "
                        f"(the weighted bit matrix), bfs (one BFS a switch with hosts) or "
                        f"gpu-bitset (the weighted bit matrix on the GPU)")
    if e["backend"] != "auto":
        check_options(e["backend"], {k: v for k, v in e.items() if k != "backend"},
                      lambda key: where(f"evaluator.{key}"), kind="host-switch")


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
    if s["method"] == "tabu" and (s["polish"] > 0 or s["batch"] > 1):
        key = "polish" if s["polish"] > 0 else "batch"
        raise GolfError(f"{where('search.' + key)}: search.{key}: method tabu takes no "
                        f"{key} (a tabu step scores search.neighbourhood candidates of one "
                        f"graph; polish is the tabu phase of an sa or hill run)")
    for key, what, used in (("polish_g", "symmetry", s["polish_g"] is not None),
                            ("polish_starts", "start graphs", s["polish_starts"] > 1)):
        if used and s["polish"] <= 0:
            raise GolfError(f"{where('search.' + key)}: search.{key}: sets the polish phase's "
                            f"{what}, which needs search.polish > 0 (the fraction of the "
                            f"budget spent in it)")
    if s["polish_g"] is not None:
        _check_polish_g(p, s, where)
    if s["t0"] != "auto" and s["t1"] != "auto" and s["t1"] > s["t0"]:
        raise GolfError(f"{where('search.t1')}: search.t1: expected t1 <= t0={s['t0']}, "
                        f"got {s['t1']}")


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


def _check_start(start: str, where) -> None:
    """``problem.start`` names a regular file golf may read."""
    key = "problem.start"
    p = Path(start)
    try:
        if "\0" in start:
            why = f"{start!r} contains a NUL character"
        elif not p.exists():
            why = (f"no such edge-list file {start!r} (expected "
                   f"{', '.join(START_KINDS)} or an edge-list file)")
        elif p.is_dir():
            why = f"{start!r} is a folder, expected an edge-list file"
        elif not p.is_file():
            why = (f"{start!r} is not a regular file (a device or a pipe), expected an "
                   f"edge-list file")
        elif not os.access(p, os.R_OK):
            why = f"no permission to read {start!r}"
        else:
            return
    except OSError as exc:  # a name too long, ...
        why = f"cannot use {start!r}: {exc.strerror or exc}"
    raise GolfError(f"{where(key)}: {key}: {why}")


def _check_output(run: "RunConfig", where) -> None:
    """The run folder (``output.dir``/name) is a folder golf may write in, or can be created:
    its nearest existing ancestor is a folder golf may write in. Nothing is created here."""
    key = "output.dir"
    folder = str(run.path)
    if "\0" in folder:
        raise GolfError(f"{where(key)}: {key}: {folder!r} contains a NUL character")
    p = run.path
    try:
        while not p.exists() and p != p.parent:
            p = p.parent
        here = "" if p == run.path else f" (on the way to the run folder {folder!r})"
        if not p.is_dir():
            raise GolfError(f"{where(key)}: {key}: {str(p)!r} is a file, expected a "
                            f"folder{here}")
        if not os.access(p, os.W_OK | os.X_OK):
            raise GolfError(f"{where(key)}: {key}: no permission to write in "
                            f"{str(p)!r}{here}")
    except OSError as exc:  # a name too long, ...
        raise GolfError(f"{where(key)}: {key}: cannot use {folder!r}: "
                        f"{exc.strerror or exc}") from None


def _check_grid(p: dict, where) -> None:
    """A grid problem (``problem.grid``) needs ``r`` and a lattice rotation as ``g``, and sets
    ``n = w*h``; any other problem needs ``n`` and takes no ``r``."""
    from golf.grid import symmetry_problem

    if p["grid"] is None:
        if p["n"] is None:
            raise GolfError(f"{where('problem')}: missing problem.n: expected an integer >= 1 "
                            f"(or problem.grid for a grid problem)")
        if p["r"] is not None:
            raise GolfError(f"{where('problem.r')}: problem.r: the edge length limit of a grid "
                            f"problem; set problem.grid too, or leave r out")
        return
    w, h = p["grid"]
    if p["n"] is not None and p["n"] != w * h:
        raise GolfError(f"{where('problem.n')}: problem.n: a {w}x{h} grid has n={w * h}, got "
                        f"{p['n']} (leave n out)")
    p["n"] = w * h
    if p["r"] is None:
        raise GolfError(f"{where('problem')}: missing problem.r: a grid problem needs the "
                        f"longest edge r (an integer >= 1, in Manhattan distance)")
    if p["g"] != "auto":
        why = symmetry_problem(w, h, p["g"])
        if why:
            raise GolfError(f"{where('problem.g')}: problem.g: {why}")
    if p["start"] == "circulant":
        raise GolfError(f"{where('problem.start')}: problem.start: circulant starts are for "
                        f"problems without a lattice; a grid problem starts from random or "
                        f"an edge file")


def _merge(base: dict, over: dict) -> dict:
    out = copy.deepcopy(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _merge(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


def parse_overrides(items) -> dict:
    """``["search.seed=3", "problem.g=8"]`` -> nested dict; values are YAML scalars."""
    out: dict = {}
    for item in items or []:
        if "=" not in item:
            raise GolfError(f"--set {item}: expected key=value, e.g. search.seed=3")
        key, text = item.split("=", 1)
        parts = key.strip().split(".")
        if not all(parts):
            raise GolfError(f"--set {item}: bad key '{key}'")
        value = load_yaml(text, f"--set {item}", with_line=False)[0] if text.strip() else None
        node = out
        for p in parts[:-1]:
            node = node.setdefault(p, {})
        node[parts[-1]] = value
    return out


def load_config(path, overrides=(), only=None) -> list[RunConfig]:
    """Read and validate a config file; returns one RunConfig per problem to run.

    Raises GolfError for a missing, unreadable or too large file, bad YAML, an anchor or
    alias (with the line), any invalid setting, or a path that cannot be used (an output
    folder golf cannot create or write in, a start file it cannot read)."""
    path = Path(path)
    if path.is_dir():
        raise GolfError(f"{path}: cannot read: is a directory, expected a config file")
    raw, lines = read_yaml(path)
    if raw is None:
        raise GolfError(f"{path}: the file is empty")
    if not isinstance(raw, dict):
        raise GolfError(f"{path}: expected a mapping of settings at the top")
    over = parse_overrides(overrides)
    src = str(path)
    problems = raw.pop("problems", None)
    if problems is None:
        data = validate(_merge(raw, over), _Where(src, lines))
        out_dir = Path(data["output"]["dir"]) / data["name"]
        runs = [RunConfig(data["name"], data, out_dir, src)]
        _check_output(runs[0], _Where(src, lines))
    else:
        if not isinstance(problems, list) or not problems:
            raise GolfError(f"{_Where(src, lines)('problems')}: problems: expected a non-empty "
                            f"list of problem settings")
        if "name" not in raw:
            raise GolfError(f"{path}: missing 'name' (the competition's folder)")
        top = check_value("name", raw["name"], SCHEMA["name"], _Where(src, lines))
        runs = []
        seen = set()
        for i, entry in enumerate(problems):
            if not isinstance(entry, dict):
                raise GolfError(f"{_Where(src, lines)(f'problems.{i}')}: problems[{i}]: "
                                f"expected a mapping, got {entry!r}")
            merged = _merge(_merge({k: v for k, v in raw.items() if k != "name"}, entry), over)
            merged.setdefault("name", _default_name(merged.get("problem")))
            name = check_value("name", merged["name"], SCHEMA["name"], _Where(src, lines, i))
            if name in seen:
                raise GolfError(f"{_Where(src, lines, i)('name')}: two problems are named "
                                f"'{name}'")
            seen.add(name)
            if only and name not in only:
                continue  # not run: its settings are checked when it is (an override such as
                # --set problem.g=2 may suit the problems selected and not the others)
            data = validate(merged, _Where(src, lines, i))
            runs.append(RunConfig(name, data, Path(data["output"]["dir"]) / top / name, src))
            _check_output(runs[-1], _Where(src, lines, i))
    names = [r.name for r in runs] if problems is None else seen
    missing = set(only or ()) - set(names)
    if missing:
        raise GolfError(f"{path}: no problem named {', '.join(sorted(missing))}; have: "
                        f"{', '.join(sorted(names))}")
    return runs


def _default_name(problem) -> str:
    """A problem's folder name when the config gives none: ``n{n}d{d}``, for a grid
    ``w{w}h{h}d{d}r{r}``, for a host-switch problem ``h{hosts}r{radix}`` (the competition's
    names)."""
    from golf.grid import parse_size

    p = problem if isinstance(problem, dict) else {}
    if p.get("hosts") is not None:
        return f"h{p['hosts']}r{p.get('radix', p.get('d'))}"
    if p.get("grid") is not None:
        try:
            w, h = parse_size(p["grid"])
            return f"w{w}h{h}d{p.get('d')}r{p.get('r')}"
        except GolfError:
            pass  # validate() names the bad size
    return f"n{p.get('n')}d{p.get('d')}"


def dump(data: dict) -> str:
    return yaml.safe_dump(data, sort_keys=False)
