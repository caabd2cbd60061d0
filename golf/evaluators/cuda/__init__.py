"""The CUDA sources of the GPU backends (``.cu`` and ``.cuh`` files beside this module, shipped
as package data) and the host helpers both backends share: CuPy or a clear error, the GPU to
use, and the modules compiled from the sources.

A module's source is its files' texts one after another, each behind a ``#line 1 "file"``
directive, so that nvrtc's messages name the file and line to look at. A header's text goes
in front of the ``.cu`` text rather than through ``#include``: CuPy's on-disk kernel cache
keys on the source string and would not see a change to an included header.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

from golf.errors import GolfError

__all__ = ["cupy_or_error", "select_device", "module_source", "load_module"]

# how a file of this package is named in #line directives (and so in nvrtc's messages)
_LABEL = "golf/evaluators/cuda"


def cupy_or_error():
    """Import CuPy and check that a GPU is there; a clear GolfError otherwise."""
    try:
        import cupy as cp
    except ImportError:
        raise GolfError("the GPU backends need CuPy and an NVIDIA GPU: pip install "
                        "'golf[gpu]' (a CuPy build matching your CUDA)") from None
    try:
        if cp.cuda.runtime.getDeviceCount() < 1:
            raise GolfError("CuPy found no NVIDIA GPU")
    except cp.cuda.runtime.CUDARuntimeError as exc:
        raise GolfError(f"CuPy cannot use a GPU here: {exc}") from None
    return cp


def select_device(cp, device=None, comm=None) -> int:
    """The GPU to use: ``device`` if given; under MPI, one per rank on a node (the node-local
    rank modulo the GPUs there); else GPU 0. Makes it current and returns its index."""
    count = cp.cuda.runtime.getDeviceCount()
    if device is None:
        local = None
        for var in ("OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID",
                    "MV2_COMM_WORLD_LOCAL_RANK", "PMI_LOCAL_RANK"):
            if os.environ.get(var, "").isdigit():
                local = int(os.environ[var])
                break
        if local is None and comm is not None:
            local = comm.rank
        device = (local or 0) % count
    if not 0 <= int(device) < count:
        raise GolfError(f"GPU {device} does not exist ({count} found)")
    cp.cuda.Device(int(device)).use()
    return int(device)


def _name(file) -> str:
    """How ``#line`` names a source: a file name of this package (str), or any file on disk
    (a path object)."""
    return Path(file).as_posix() if isinstance(file, os.PathLike) else f"{_LABEL}/{file}"


def _text(file) -> str:
    if isinstance(file, os.PathLike):
        return Path(file).read_text()
    return resources.files(__name__).joinpath(file).read_text()


def module_source(files) -> str:
    """The source of a module: each file's text after a ``#line 1 "name"`` directive, in the
    order given (headers first). ``files``: names of this package's files (``"common.cuh"``)
    or paths of others (``pathlib.Path``)."""
    parts = []
    for file in files:
        text = _text(file)
        parts.append(f'#line 1 "{_name(file)}"\n{text}' + ("" if text.endswith("\n") else "\n"))
    return "".join(parts)


_MODULES: dict = {}


def load_module(files, *, options=("-std=c++17",), name_expressions=(), cooperative=False):
    """The ``cupy.RawModule`` of ``files`` (see :func:`module_source`) for the current GPU,
    compiled on the first call for that GPU and these arguments and kept for the process.
    ``name_expressions``: the template kernels to instantiate, each fetched by the same string
    (``module.get_function("kern<1,2>")``); ``cooperative``: CuPy then launches every kernel
    of the module cooperatively. A compile error is a GolfError with nvrtc's messages."""
    cp = cupy_or_error()
    files = tuple(f if isinstance(f, str) else Path(f) for f in files)
    key = (cp.cuda.Device().id, files, tuple(options), tuple(name_expressions),
           bool(cooperative))
    if key not in _MODULES:
        from cupy.cuda.compiler import CompileException

        module = cp.RawModule(code=module_source(files), options=tuple(options),
                              name_expressions=tuple(name_expressions) or None,
                              enable_cooperative_groups=bool(cooperative))
        try:
            module.compile()
        except CompileException as exc:
            raise GolfError(f"nvrtc could not compile {', '.join(map(_name, files))}:\n"
                            f"{exc}") from None
        _MODULES[key] = module
    return _MODULES[key]
