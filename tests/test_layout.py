"""The package's layout: the layers of docs/architecture.md hold (a module imports only its
own layer and the layers below, counting the imports inside functions too), no import cycle
among golf's modules nor among its packages, no private name imported across modules, no
config key of a problem kind read outside the kinds and the config, no two source files
sharing a stem in different roles, and the old names of the modules that moved still
importable, with a warning."""

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


# the layers of docs/architecture.md, top to bottom: (its name in the doc's table, the modules
# and packages it holds)
LAYERS = [
    ("entry points", ["golf", "golf.__main__", "golf.cli", "golf.api"]),
    ("runs", ["golf.run"]),
    ("configs", ["golf.config"]),
    ("problem kinds", ["golf.problems"]),
    ("start graphs", ["golf.starts"]),
    ("evaluators", ["golf.evaluators"]),
    ("the engine", ["golf.engine"]),
    ("the model", ["golf.graph", "golf.group", "golf.grid", "golf.io", "golf.lower_bounds",
                   "golf.options", "golf.errors", "golf.parallel", "golf.moved", "golf.numba_cache",
                   "golf.hostswitch"]),
    ("kernels", ["golf.kernels"]),
]


def layer_of(module: str) -> int:
    """The index of ``module``'s layer in :data:`LAYERS` (0 the top); -1 where none holds it."""
    best, found = -1, ""
    for i, (_, units) in enumerate(LAYERS):
        for unit in units:
            if (module == unit or module.startswith(unit + ".")) and len(unit) > len(found):
                best, found = i, unit
    return best


def unit_of(module: str) -> str:
    """The package or top-level module ``module`` belongs to (``golf.run.driver`` ->
    ``golf.run``)."""
    parts = module.split(".")
    return ".".join(parts[:2])


def import_edges() -> list:
    known = modules()
    return [(name, target) for name, path in known.items()
            for target in imports(path, known) if target != name]


def test_every_module_has_a_layer():
    assert [m for m in modules() if layer_of(m) < 0] == []


def test_the_layers_hold():
    """A module imports its own layer and those below it, never one above."""
    upward = [(a, b) for a, b in import_edges()
              if b != "golf" and layer_of(b) < layer_of(a)]
    assert upward == []


def test_the_layer_check_sees_an_upward_import():
    assert layer_of("golf.engine.annealer") > layer_of("golf.run.driver")
    assert layer_of("golf.hostswitch.ports") == layer_of("golf.graph") > layer_of("golf.starts")
    assert layer_of("golf.kernels.bits") == len(LAYERS) - 1 and layer_of("golf.cli") == 0


def test_the_architecture_page_lists_the_layers_in_order():
    text = (Path(ROOT) / "docs" / "architecture.md").read_text()
    rows = [line.split("|")[1].strip() for line in text.splitlines()
            if line.startswith("| ") and not line.startswith("| layer")]
    assert rows == [name for name, _ in LAYERS]


def test_no_import_cycle_between_packages():
    """No package (``golf.run``, ``golf.evaluators``, ...; a top-level module counts as its own)
    imports one that imports it back."""
    graph: dict = {}
    for a, b in import_edges():
        ua, ub = unit_of(a), unit_of(b)
        graph.setdefault(ua, set())
        graph.setdefault(ub, set())
        if ua != ub and "golf" not in (ua, ub):
            graph[ua].add(ub)
    assert cycles(graph) == []


def private_imports(path: Path) -> list:
    """``(line, module, name)`` of each private name (``_x``, not ``__x__``) that ``path``
    imports from a golf module, and of each private golf module it imports."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith(
                "golf"):
            parts = node.module.split(".")
            out += [(node.lineno, node.module, p) for p in parts if p.startswith("_")]
            out += [(node.lineno, node.module, a.name) for a in node.names
                    if a.name.startswith("_") and not a.name.startswith("__")]
        elif isinstance(node, ast.Import):
            out += [(node.lineno, a.name, p) for a in node.names if a.name.startswith("golf")
                    for p in a.name.split(".") if p.startswith("_") and not p.startswith("__")]
    return out


def test_no_private_name_is_imported_across_modules():
    found = {str(path.relative_to(PACKAGE.parent)): private_imports(path)
             for path in PACKAGE.rglob("*.py")}
    assert {k: v for k, v in found.items() if v} == {}


def test_the_private_import_check_sees_one(tmp_path):
    p = tmp_path / "x.py"
    p.write_text("from golf.io import _x, y\nimport golf._hidden\nfrom golf.a import __all__\n")
    assert private_imports(p) == [(1, "golf.io", "_x"), (2, "golf._hidden", "_hidden")]


# the keys of a problem section that tell its kind (golf.problems.kind_of reads them)
KIND_KEYS = {"hosts", "radix", "switches", "grid", "r", "centres"}


def kind_key_reads(path: Path) -> list:
    """``(line, code)`` of each read of a kind's key from a mapping (``x["grid"]``,
    ``x.get("hosts")``, ``"centres" in x``)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            key = node.slice.value
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr == "get" and node.args
              and isinstance(node.args[0], ast.Constant)):
            key = node.args[0].value
        elif (isinstance(node, ast.Compare) and isinstance(node.left, ast.Constant)
              and any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops)):
            key = node.left.value
        else:
            continue
        if key in KIND_KEYS:
            out.append((node.lineno, ast.unparse(node)))
    return out


def test_only_the_kinds_and_the_config_read_a_kinds_keys():
    """The run, the engine, the evaluators, the start graphs, the model and the Python API ask
    the problem kind (golf.problems) instead of reading the keys of its config section; the
    command line formats its own outputs."""
    allowed = ("golf/problems/", "golf/config/", "golf/cli.py")
    found = {}
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE.parent).as_posix()
        if not rel.startswith(allowed) and kind_key_reads(path):
            found[rel] = kind_key_reads(path)
    assert found == {}


def test_the_kind_key_check_sees_a_read(tmp_path):
    p = tmp_path / "x.py"
    p.write_text('a = p["grid"]\nb = p.get("hosts")\nc = "centres" in p\nd = p["n"]\n')
    assert [line for line, _ in kind_key_reads(p)] == [1, 2, 3]


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
    from golf.moved import MOVED

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
