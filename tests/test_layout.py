"""The package's layout: no import cycle among golf's modules (counting the imports inside
functions too), no two source files sharing a stem in different roles, and the old names of
the modules that moved still importable, with a warning."""

import ast
import importlib
import sys
import warnings
from collections import defaultdict
from pathlib import Path

import pytest

from conftest import ROOT

PACKAGE = Path(ROOT) / "golf"


def modules() -> dict:
    """Module name -> source file, for every module of the package."""
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def imports(path: Path, known: dict) -> set:
    """The golf modules that ``path`` imports anywhere (top level or inside functions)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name.startswith("golf"):
                found.add(name)
    return found


def cycles(graph: dict) -> list:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle():
    known = modules()
    graph = {name: imports(path, known) - {name} for name, path in known.items()}
    # the package's own __init__ is imported by every module: leave it out of the walk
    graph = {k: v - {"golf"} for k, v in graph.items() if k != "golf"}
    assert cycles(graph) == []


def test_no_two_files_share_a_stem_in_different_roles():
    """A backend and its CUDA kernel (``evaluators/seidel.py`` and ``evaluators/cuda/seidel.cu``)
    may share a stem; nothing else may."""
    stems = defaultdict(list)
    for path in PACKAGE.rglob("*"):
        if path.suffix in (".py", ".cu", ".cuh") and path.stem != "__init__":
            stems[path.stem].append(path.relative_to(PACKAGE).as_posix())
    shared = {s: sorted(p) for s, p in stems.items() if len(p) > 1}
    backend_pairs = {s for s, p in shared.items()
                     if p == [f"evaluators/cuda/{s}.cu", f"evaluators/{s}.py"]}
    assert {s: p for s, p in shared.items() if s not in backend_pairs} == {}


def test_moved_modules_import_under_their_old_names_with_a_warning():
    from golf._moved import MOVED

    for old, new in MOVED.items():
        sys.modules.pop(old, None)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            module = importlib.import_module(old)
        assert module is importlib.import_module(new)
        assert any(issubclass(w.category, DeprecationWarning) and new in str(w.message)
                   for w in caught), old
        sys.modules.pop(old, None)
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("golf.no_such_module")
