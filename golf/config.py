"""Run configurations: YAML read with ``safe_load`` only, validated against a schema.

A file describes one run, or a competition of several problems::

    name: quick                      # runs go to <output.dir>/<name>/
    problem: {n: 256, d: 8, g: 4}
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
"""

from __future__ import annotations

import copy
import difflib
from dataclasses import dataclass
from pathlib import Path

import yaml

from golf.errors import GolfError

__all__ = ["RunConfig", "load_config", "parse_overrides", "SCHEMA", "validate"]

_INF = float("inf")

# key -> (type, default, check, description); a dict value is a section. For numbers the
# check is (lo, hi), both allowed, or (lo, hi, False): lo itself not allowed
_POSITIVE = (0, _INF, False)
SCHEMA = {
    "name": ("name", None, None, "a run name (letters, digits, '-', '_', '.')"),
    "problem": {
        "n": ("int", None, (1, _INF), "an integer >= 1"),
        "d": ("int", None, (1, _INF), "an integer >= 1"),
        "g": ("int", 1, (1, _INF), "an integer >= 1 dividing n"),
        "regular": ("bool", False, None, "true or false"),
        "start": ("path?", None, None, "an edge-list file to start from, or null (random)"),
    },
    "search": {
        "method": ("choice", "sa", ("sa", "hill"), "'sa' or 'hill'"),
        "steps": ("int", 0, (0, _INF), "an integer >= 0 (0: no step limit)"),
        "time_limit": ("float?", None, _POSITIVE, "seconds > 0, or null"),
        "seed": ("int", 0, (0, 2**63 - 1), "an integer >= 0"),
        "t0": ("temp", "auto", _POSITIVE, "a temperature > 0 or 'auto'"),
        "t1": ("temp", "auto", _POSITIVE, "a temperature > 0 or 'auto'"),
        "aspl_priority": ("bool", False, None, "true or false"),
        "tiebreak": ("bool", True, None, "true or false"),
        "peripheral_weight": ("float", 1.0, (0, _INF), "a number >= 0"),
        "sample_moves": ("int", 200, (10, _INF), "an integer >= 10"),
        "batch": ("int", 1, (1, 4096), "an integer from 1 to 4096 (chains scored together "
                  "on the GPU)"),
    },
    "evaluator": {
        "backend": ("choice", "auto",
                    ("auto", "bitset", "bfs", "reference", "gpu-bitset", "seidel"),
                    "auto, bitset, bfs, reference, gpu-bitset or seidel"),
        "threads": ("int?", None, (1, _INF), "an integer >= 1, or null (all cores)"),
        "chunk_words": ("int?", None, (1, _INF), "an integer >= 1, or null (automatic)"),
    },
    "parallel": {
        "mode": ("choice", "none", ("none", "chains", "evaluator"),
                 "none, chains or evaluator"),
        "exchange_every": ("int", 20000, (1, _INF), "an integer >= 1 (steps)"),
        "restart_fraction": ("float", 0.5, (0, 1), "a number from 0 to 1"),
        "replica_exchange": ("bool", False, None, "true or false"),
        "temperature_ladder": ("float", 1.5, (1, _INF), "a number >= 1"),
    },
    "output": {
        "dir": ("str", "results", None, "a folder"),
        "checkpoint_every": ("float", 60.0, _POSITIVE, "seconds > 0"),
        "trace_every": ("int", 1000, (1, _INF), "an integer >= 1 (steps)"),
        "progress_every": ("float", 2.0, _POSITIVE, "seconds > 0"),
        "plot": ("bool", True, None, "true or false"),
    },
}


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
def _lines(text: str) -> dict:
    """Map every dotted key (list items as ``problems.0``) to its 1-based line number."""
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

    try:
        walk(yaml.compose(text, Loader=yaml.SafeLoader), "")
    except yaml.YAMLError:
        pass
    return out


class _Where:
    def __init__(self, source, lines, index=None):
        self.source, self.lines, self.index = source, lines, index

    def __call__(self, key: str) -> str:
        full = key if self.index is None else f"problems.{self.index}.{key}"
        line = self.lines.get(full) or self.lines.get(key)
        return f"{self.source}:{line}" if line else self.source


def _check_value(key, value, spec, where):
    kind, _default, check, expected = spec

    def bad():
        raise GolfError(f"{where(key)}: {key}: expected {expected}, got {value!r}")

    if kind.endswith("?") and value is None:
        return None
    base = kind.rstrip("?")
    if base == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            bad()
    elif base == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            bad()
        value = float(value)
    elif base == "bool":
        if not isinstance(value, bool):
            bad()
    elif base == "temp":
        if value == "auto":
            return value
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
            bad()
        return float(value)
    elif base == "choice":
        if value not in check:
            bad()
        return value
    elif base in ("str", "path"):
        if not isinstance(value, str) or not value:
            bad()
        return value
    elif base == "name":
        if not isinstance(value, str) or not value or any(
                not (c.isalnum() or c in "-_.") for c in value) or value.startswith("."):
            bad()
        return value
    if check is not None and base in ("int", "float"):
        lo, hi, lo_allowed = (*check, True)[:3]
        if value < lo or value > hi or (not lo_allowed and value == lo):
            bad()
    return value


def _unknown(where, key: str, known, section: str = "") -> GolfError:
    pre = f"{section}." if section else ""
    hint = difflib.get_close_matches(key, list(known), n=1)
    return GolfError(f"{where(pre + key)}: unknown key '{pre}{key}'"
                     + (f" (did you mean '{pre}{hint[0]}'?)" if hint else "")
                     + f"; known{' in ' + section if section else ''}: {', '.join(known)}")


def validate(raw: dict, where, *, need_name=True) -> dict:
    """Fill defaults and check every key of one run's config; returns a new dict."""
    if not isinstance(raw, dict):
        raise GolfError(f"{where('')}: expected a mapping of settings, got {type(raw).__name__}")
    out = {}
    for key in raw:
        if key not in SCHEMA:
            raise _unknown(where, str(key), SCHEMA)
    for key, spec in SCHEMA.items():
        if isinstance(spec, dict):
            section = raw.get(key) or {}
            if not isinstance(section, dict):
                raise GolfError(f"{where(key)}: {key}: expected a mapping, got {section!r}")
            for sub in section:
                if sub not in spec:
                    raise _unknown(where, str(sub), spec, key)
            out[key] = {}
            for sub, subspec in spec.items():
                dotted = f"{key}.{sub}"
                if sub in section:
                    out[key][sub] = _check_value(dotted, section[sub], subspec, where)
                elif subspec[1] is None and not subspec[0].endswith("?"):  # n, d: required
                    raise GolfError(f"{where(key)}: missing {dotted}: expected {subspec[3]}")
                else:
                    out[key][sub] = subspec[1]
        else:
            if key in raw:
                out[key] = _check_value(key, raw[key], spec, where)
            elif need_name:
                raise GolfError(f"{where('')}: missing '{key}': expected {spec[3]}")
    # relations between keys
    p, s = out["problem"], out["search"]
    n, d, g = p["n"], p["d"], p["g"]
    if n % g:
        raise GolfError(f"{where('problem.g')}: problem.g: {g} does not divide n={n}")
    if d >= n:
        raise GolfError(f"{where('problem.d')}: problem.d: expected d < n (a simple graph on "
                        f"{n} vertices has degree <= {n - 1}), got {d}")
    if p["regular"] and (n * d) % 2:
        raise GolfError(f"{where('problem.regular')}: problem.regular: no {d}-regular graph "
                        f"on n={n} vertices exists (n*d is odd); set regular: false")
    if p["regular"] and g % 2 and (n // g * d) % 2:
        raise GolfError(f"{where('problem.regular')}: problem.regular: with odd g={g} every "
                        f"class needs an even slot count m*d={n // g * d}; choose another g")
    if s["steps"] == 0 and s["time_limit"] is None:
        raise GolfError(f"{where('search')}: search: set steps (> 0) or time_limit (or both); "
                        f"a run with neither would never stop")
    if s["batch"] > 1 and out["evaluator"]["backend"] != "gpu-bitset":
        raise GolfError(f"{where('search.batch')}: search.batch: {s['batch']} chains are scored "
                        f"together by the GPU; set evaluator.backend: gpu-bitset")
    if s["batch"] > 1 and out["parallel"]["mode"] == "chains":
        raise GolfError(f"{where('search.batch')}: search.batch > 1 with parallel.mode: chains "
                        f"is not supported; use one or the other")
    if s["t0"] != "auto" and s["t1"] != "auto" and s["t1"] > s["t0"]:
        raise GolfError(f"{where('search.t1')}: search.t1: expected t1 <= t0={s['t0']}, "
                        f"got {s['t1']}")
    return out


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
        try:
            value = yaml.safe_load(text) if text.strip() else None
        except yaml.YAMLError as exc:
            raise GolfError(f"--set {item}: cannot read the value: {exc}") from None
        node = out
        for p in parts[:-1]:
            node = node.setdefault(p, {})
        node[parts[-1]] = value
    return out


def load_config(path, overrides=(), only=None) -> list[RunConfig]:
    """Read and validate a config file; returns one RunConfig per problem to run.

    Raises GolfError for a missing or unreadable file, bad YAML (with the line), or any
    invalid setting."""
    path = Path(path)
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise GolfError(f"{path}: no such config file") from None
    except (IsADirectoryError, PermissionError, UnicodeDecodeError) as exc:
        raise GolfError(f"{path}: cannot read: {exc}") from None
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        raise GolfError(f"{where}: not valid YAML: {getattr(exc, 'problem', exc)}") from None
    if raw is None:
        raise GolfError(f"{path}: the file is empty")
    if not isinstance(raw, dict):
        raise GolfError(f"{path}: expected a mapping of settings at the top")
    lines = _lines(text)
    over = parse_overrides(overrides)
    src = str(path)
    problems = raw.pop("problems", None)
    if problems is None:
        data = validate(_merge(raw, over), _Where(src, lines))
        out_dir = Path(data["output"]["dir"]) / data["name"]
        runs = [RunConfig(data["name"], data, out_dir, src)]
    else:
        if not isinstance(problems, list) or not problems:
            raise GolfError(f"{_Where(src, lines)('problems')}: problems: expected a non-empty "
                            f"list of problem settings")
        if "name" not in raw:
            raise GolfError(f"{path}: missing 'name' (the competition's folder)")
        top = _check_value("name", raw["name"], SCHEMA["name"], _Where(src, lines))
        runs = []
        seen = set()
        for i, entry in enumerate(problems):
            if not isinstance(entry, dict):
                raise GolfError(f"{_Where(src, lines)(f'problems.{i}')}: problems[{i}]: "
                                f"expected a mapping, got {entry!r}")
            merged = _merge(_merge({k: v for k, v in raw.items() if k != "name"}, entry), over)
            n = (merged.get("problem") or {}).get("n")
            d = (merged.get("problem") or {}).get("d")
            merged.setdefault("name", f"n{n}d{d}")
            data = validate(merged, _Where(src, lines, i))
            if data["name"] in seen:
                raise GolfError(f"{_Where(src, lines, i)('name')}: two problems are named "
                                f"'{data['name']}'")
            seen.add(data["name"])
            runs.append(RunConfig(data["name"], data,
                                  Path(data["output"]["dir"]) / top / data["name"], src))
    if only:
        wanted = set(only)
        missing = wanted - {r.name for r in runs}
        if missing:
            raise GolfError(f"{path}: no problem named {', '.join(sorted(missing))}; have: "
                            f"{', '.join(r.name for r in runs)}")
        runs = [r for r in runs if r.name in wanted]
    return runs


def dump(data: dict) -> str:
    return yaml.safe_dump(data, sort_keys=False)
