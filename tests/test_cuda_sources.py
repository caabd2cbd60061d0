"""The CUDA sources of the GPU backends, without a GPU: every file ships with the package and is
compiled into some module, a module's source maps each line back to its file, the kernels the
host fetches are defined there, and the grid module instantiates every variant the host can
choose. The last tests (marked gpu) compile: a planted error names its file and line."""

import ast
import fnmatch
import re
from importlib import resources
from pathlib import Path

import pytest

from golf.errors import GolfError
from golf.evaluators import gpu_bitset, seidel
from golf.evaluators.cuda import load_module, module_source
from golf.evaluators.gpu_bitset import GpuBitsetEvaluator
from golf.evaluators import h_gpu_bitset

from conftest import gpu_skip_reason

PACKAGE = "golf.evaluators.cuda"
MODULES = {"block": gpu_bitset.BLOCK_FILES, "grid": gpu_bitset.GRID_FILES,
           "anneal": gpu_bitset.ANNEAL_FILES,
           "seidel": seidel.FILES, "h-gpu-bitset": h_gpu_bitset.FILES}
MARKER = re.compile(r'#line (\d+) "([^"]+)"')


def shipped():
    """The .cu and .cuh files of the package, as importlib.resources finds them."""
    return {f.name: f for f in resources.files(PACKAGE).iterdir()
            if f.name.endswith((".cu", ".cuh"))}


def defined_kernels(source):
    """Names of the extern "C" kernels a source defines."""
    return set(re.findall(r'extern "C" __global__ void (?:__launch_bounds__\([^)]*\) )?(\w+)\(',
                          source))


def fetched_kernels(module):
    """The names a host module passes to get_function as plain strings."""
    tree = ast.parse(Path(module.__file__).read_text())
    return {node.args[0].value for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get_function" and isinstance(node.args[0], ast.Constant)}


def test_every_source_is_found_and_used():
    files = shipped()
    assert {"common.cuh", "bitset_block.cu", "bitset_grid.cu", "anneal.cu",
            "seidel.cu", "h_gpu_bitset.cu"} <= set(files)
    used = {f for names in MODULES.values() for f in names}
    assert used == set(files)  # no module names a missing file, no file is left unused
    for name in files:
        assert files[name].read_text().strip()


def test_package_data_globs_cover_every_source():
    tomllib = pytest.importorskip("tomllib")
    root = Path(__file__).resolve().parent.parent
    data = tomllib.loads((root / "pyproject.toml").read_text())
    globs = data["tool"]["setuptools"]["package-data"][PACKAGE]
    for name in shipped():
        assert any(fnmatch.fnmatch(name, g) for g in globs), name


@pytest.mark.parametrize("module", sorted(MODULES))
def test_line_markers_map_every_line_to_its_file(module):
    files = MODULES[module]
    lines = module_source(files).split("\n")
    markers = [i for i, line in enumerate(lines) if MARKER.fullmatch(line)]
    assert len(markers) == len(files) and markers[0] == 0
    texts = {name: shipped()[name].read_text().split("\n") for name in files}
    seen = []
    for i, line in enumerate(lines):
        m = MARKER.fullmatch(line)
        if m:
            at, label = int(m.group(1)) - 1, m.group(2)
            name = label.rsplit("/", 1)[1]
            assert label == f"golf/evaluators/cuda/{name}"
            seen.append(name)
            continue
        if i == len(lines) - 1 and line == "":
            break  # the newline that ends the last file
        assert line == texts[name][at], (module, name, at + 1)
        at += 1
    assert seen == list(files)  # in the order given: headers first


def test_a_path_source_is_named_by_its_path(tmp_path):
    extra = tmp_path / "extra.cu"
    extra.write_text("// no newline at the end")
    source = module_source(("common.cuh", extra))
    assert f'#line 1 "{extra.as_posix()}"\n// no newline at the end\n' in source
    assert source.startswith('#line 1 "golf/evaluators/cuda/common.cuh"\n')


def test_headers_are_prepended_not_included():
    """CuPy's on-disk cache keys on the source string: a header reached by #include would
    not be part of it, and a change to it would reuse a stale binary."""
    for name, file in shipped().items():
        assert not re.search(r'^\s*#\s*include\s*"', file.read_text(), re.M), name


def test_kernels_the_host_fetches_are_defined():
    fetched = fetched_kernels(gpu_bitset)
    assert fetched == {"bitset_block", "patch_adj", "twist_rows"}
    assert fetched <= defined_kernels(module_source(gpu_bitset.BLOCK_FILES))
    # the annealing chains' kernels, fetched by name from a table
    anneal = set(gpu_bitset.ANNEAL_KERNELS.values())
    assert anneal == defined_kernels(module_source(gpu_bitset.ANNEAL_FILES))
    sq = fetched_kernels(seidel)
    assert sq == {"square_step", "parity_step"}
    assert sq <= defined_kernels(module_source(seidel.FILES))
    assert fetched_kernels(h_gpu_bitset) == {"h_bitset", "h_patch"} == defined_kernels(
        module_source(h_gpu_bitset.FILES))
    grid = module_source(gpu_bitset.GRID_FILES)
    assert re.search(r"template <int PS, int PD, int G>\n__global__ void "
                     r"__launch_bounds__\(256, GRID_MINB\) bitset_grid\(", grid)
    assert not defined_kernels(grid)  # its kernels are all templates


def test_grid_name_expressions_cover_every_variant_the_host_chooses(monkeypatch):
    calls = []
    monkeypatch.setattr(gpu_bitset, "load_module",
                        lambda files, **kw: calls.append((files, kw)) or object())
    gpu_bitset._modules(3)
    (block_files, block_kw), (grid_files, grid_kw) = calls
    assert block_files == gpu_bitset.BLOCK_FILES and not block_kw.get("cooperative")
    assert grid_files == gpu_bitset.GRID_FILES and grid_kw["cooperative"]
    assert "-DGRID_MINB=3" in grid_kw["options"]
    exprs = set(grid_kw["name_expressions"])
    chosen = set()
    for d in (1, 2, 3, 8, 9, 32):
        for cw in (1, 2, 4, 8, 16, 32, 64, 256):
            for dense_frac in (0.0, 0.5, 2.0):
                GpuBitsetEvaluator.grid_variant(d, cw, dense_frac)  # the defaults exist
                for piece in (None, 0, 1, 2, 3, 4, 5, 8, 16):
                    for group in (None, 0, 1, 2, 3, 4, 8):
                        try:
                            p, g = GpuBitsetEvaluator.grid_variant(d, cw, dense_frac, piece,
                                                                   group)
                        except GolfError:
                            continue
                        chosen.add(gpu_bitset.grid_kernel(p, g))
    assert chosen == exprs  # every choice is instantiated, every instantiation reachable
    for expr in exprs:  # dense pieces of 2 words (1 where the sparse ones are 1 word)
        ps, pd, g = map(int, re.fullmatch(r"bitset_grid<(\d+),(\d+),(\d+)>", expr).groups())
        assert pd == min(2, ps)


GPU_REASON = gpu_skip_reason()
needs_gpu = pytest.mark.skipif(GPU_REASON is not None, reason=GPU_REASON or "")


@pytest.mark.gpu
@needs_gpu
def test_a_compile_error_names_its_file_and_line(tmp_path):
    lines = shipped()["bitset_block.cu"].read_text().split("\n")
    at = lines.index("// patch the base rows: count slots (flat index into adj, value)")
    lines.insert(at, "__device__ int planted = no_such_name;")
    planted = tmp_path / "bitset_block.cu"
    planted.write_text("\n".join(lines))
    with pytest.raises(GolfError, match="nvrtc could not compile") as err:
        load_module(("common.cuh", planted))
    assert f"{planted.as_posix()}({at + 1}): error" in str(err.value), str(err.value)
    assert "no_such_name" in str(err.value)


@pytest.mark.gpu
@needs_gpu
def test_a_module_is_compiled_once_per_device(monkeypatch):
    import cupy

    from golf.evaluators import cuda, make_evaluator

    built = []

    def counting(*args, **kw):
        built.append(kw.get("name_expressions"))
        return raw(*args, **kw)

    raw = cupy.RawModule
    monkeypatch.setattr(cuda, "_MODULES", {})
    monkeypatch.setattr(cupy, "RawModule", counting)
    for _ in range(3):
        make_evaluator("seidel", 40, 3, 1)
    assert len(built) == 1
    for kernel in ("block", "grid", "block"):
        make_evaluator("gpu-bitset", 200, 3, 1, kernel=kernel, min_blocks=2)
    assert len(built) == 3 and built[2] is not None and len(built[2]) == 8
    assert load_module(seidel.FILES) is load_module(seidel.FILES)


def cuda_enums(source: str) -> dict:
    """Every ``enum { A, B = 2, C = A + B, ... }`` of a CUDA source, as ``name -> value``
    (counting on from the last value given, as C does; a value given as arithmetic of earlier
    names is computed)."""
    out = {}
    for body in re.findall(r"\benum\s*\{([^}]*)\}", source):
        value = -1
        for item in (x.strip() for x in re.sub(r"//[^\n]*", "", body).split(",")):
            if not item:
                continue
            name, _, given = (x.strip() for x in item.partition("="))
            value = eval(given, {"__builtins__": {}}, dict(out)) if given else value + 1
            out[name] = value
    return out


def test_cuda_enums_of_the_device_chains_match_the_python_ones():
    """anneal.cu's slots of the counter, float and parameter arrays and its stop reasons are
    those of golf.engine.annealer (the device chains and the CPU search share the arrays):
    ``SC_X`` is ``SC.X``, ``NSC`` is ``len(SC)``, and so for ``FL`` and ``P``; ``STOP_X`` is
    ``StopReason.X`` for the reasons the compiled loop sets."""
    from golf.engine.annealer import FL, SC, P, StopReason

    enums = cuda_enums(module_source(gpu_bitset.ANNEAL_FILES))
    for prefix, py in (("SC", SC), ("FL", FL), ("P", P)):
        found = {k[len(prefix) + 1:]: v for k, v in enums.items() if k.startswith(prefix + "_")}
        assert found == {m.name: int(m) for m in py}, prefix
        assert enums[f"N{prefix}"] == len(py), prefix
    stops = {k[len("STOP_"):]: v for k, v in enums.items() if k.startswith("STOP_")}
    assert stops and stops == {k: int(StopReason[k]) for k in stops}


def test_the_enum_reader_counts_as_c_does():
    assert cuda_enums("enum { A, B = 5, C, // a comment, with a comma\n D };\n"
                      "enum { E = 1, F = B + 2 * C };") == {"A": 0, "B": 5, "C": 6, "D": 7,
                                                           "E": 1, "F": 17}
