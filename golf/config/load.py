"""Reading run configurations: YAML read with ``safe_load`` only, a file of problems and the
command line's overrides merged, each run validated against the schema
(:mod:`golf.config.schema`).

A file describes one run, or a competition of several problems (:mod:`golf.config` shows
both).

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
import os
from dataclasses import dataclass
from pathlib import Path

import yaml

from golf.config.schema import SCHEMA, validate
from golf.errors import GolfError
from golf.options import check_value
from golf.problems import kind_of

__all__ = ["RunConfig", "load_config", "parse_overrides", "merge", "read_yaml", "load_yaml",
           "MAX_CONFIG_BYTES", "MAX_YAML_DEPTH", "Where", "check_output", "dump"]

# a config file above this size is refused before it is parsed (real ones are a few KB)
MAX_CONFIG_BYTES = 1 << 20
# mappings and lists nested deeper than this are refused (a config uses 3 or 4 levels)
MAX_YAML_DEPTH = 32


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


class Where:
    """``where(key)``: ``<file>:<line>`` of a dotted key of a config (the line of the problem's
    own key in a file of problems, ``index``), or the file alone; the place every message of
    the checks starts with."""

    def __init__(self, source, lines, index=None):
        self.source, self.lines, self.index = source, lines, index

    def __call__(self, key: str) -> str:
        full = key if self.index is None else f"problems.{self.index}.{key}"
        line = self.lines.get(full) or self.lines.get(key)
        return f"{self.source}:{line}" if line else self.source


def merge(base: dict, over: dict) -> dict:
    """``over`` merged into a copy of ``base``, section by section (``over`` wins)."""
    out = copy.deepcopy(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = merge(out[k], v)
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
        data = validate(merge(raw, over), Where(src, lines))
        out_dir = Path(data["output"]["dir"]) / data["name"]
        runs = [RunConfig(data["name"], data, out_dir, src)]
        check_output(runs[0], Where(src, lines))
    else:
        if not isinstance(problems, list) or not problems:
            raise GolfError(f"{Where(src, lines)('problems')}: problems: expected a non-empty "
                            f"list of problem settings")
        if "name" not in raw:
            raise GolfError(f"{path}: missing 'name' (the competition's folder)")
        top = check_value("name", raw["name"], SCHEMA["name"], Where(src, lines))
        runs = []
        seen = set()
        for i, entry in enumerate(problems):
            if not isinstance(entry, dict):
                raise GolfError(f"{Where(src, lines)(f'problems.{i}')}: problems[{i}]: "
                                f"expected a mapping, got {entry!r}")
            merged = merge(merge({k: v for k, v in raw.items() if k != "name"}, entry), over)
            section = merged.get("problem")  # not a mapping: validate() names it
            section = section if isinstance(section, dict) else {}
            merged.setdefault("name", kind_of(section).default_name(section))
            name = check_value("name", merged["name"], SCHEMA["name"], Where(src, lines, i))
            if name in seen:
                raise GolfError(f"{Where(src, lines, i)('name')}: two problems are named "
                                f"'{name}'")
            seen.add(name)
            if only and name not in only:
                continue  # not run: its settings are checked when it is (an override such as
                # --set problem.g=2 may suit the problems selected and not the others)
            data = validate(merged, Where(src, lines, i))
            runs.append(RunConfig(name, data, Path(data["output"]["dir"]) / top / name, src))
            check_output(runs[-1], Where(src, lines, i))
    names = [r.name for r in runs] if problems is None else seen
    missing = set(only or ()) - set(names)
    if missing:
        raise GolfError(f"{path}: no problem named {', '.join(sorted(missing))}; have: "
                        f"{', '.join(sorted(names))}")
    return runs


def check_output(run: "RunConfig", where) -> None:
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


def dump(data: dict) -> str:
    """A config as YAML (a run folder's run.yaml), in the order of its keys."""
    return yaml.safe_dump(data, sort_keys=False)
