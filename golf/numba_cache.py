"""golf's on-disk Numba cache: a folder per source hash, safe for processes that share it.

* :func:`cache_dir`: Numba re-compiles a cached function when *its own* file changes, not when
  a function it inlines or calls from another file does: the compiled search loop
  (golf.engine.annealer) holds the moves (golf.engine.moves) and the evaluators' kernels, and
  after an edit or a ``git pull`` that touches only those it would run the old machine code.
  A folder per source hash makes every change of golf a fresh cache. ``NUMBA_CACHE_DIR`` set
  by the user is kept as it is.

* :func:`patch` makes two things safe that Numba's cache gets wrong across processes:

  - **Loads.** A cached function that calls a ``parallel=True`` one holds its parallel
    loops' code, and those need Numba's thread pool. Numba starts the pool when it loads such
    a function only if the function's own compilation lowered the loops; when the callee
    came from the cache at that time (compiled by an earlier process: ``golf random``, then
    ``golf eval``), the caller is cached without that note, and a later process that loads
    it calls into a pool that was never started (a segmentation fault in a kernel:
    numba/numba#4807). golf starts the pool before the first load from the cache.
  - **Saves.** Numba saves a compiled overload by reading the function's index file, taking
    the first data-file number the index does not name, writing the index, then the data.
    Two processes that compile different overloads of one function at the same time
    (``mpiexec`` ranks starting on a fresh cache, ``pytest -n``) take the same number, and one
    index entry can name the other's machine code. golf makes each save exclusive (an
    ``flock`` on the cache folder), reads the index inside the lock and writes the data
    before the index, so an index entry always names its own, complete data file.

  :func:`install` applies it when Numba's caching module is first imported (``import golf``
  does not import Numba).
"""

from __future__ import annotations

import contextlib
import os
import sys

__all__ = ["cache_dir", "install", "patch"]


def cache_dir() -> None:
    """Point Numba's on-disk cache at a folder named by a hash of golf's source files
    (module docstring), unless ``NUMBA_CACHE_DIR`` is set."""
    if "NUMBA_CACHE_DIR" in os.environ:
        return
    import hashlib
    from pathlib import Path

    root = Path(__file__).parent
    digest = hashlib.sha1()
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder = os.path.join(base, "golf", "numba", digest.hexdigest()[:16])
    os.environ["NUMBA_CACHE_DIR"] = folder
    if "numba" in sys.modules:  # imported before golf: its config has been read already
        from numba.core import config

        config.CACHE_DIR = folder


@contextlib.contextmanager
def _exclusive(folder: str):
    """An exclusive ``flock`` on ``folder`` (none where the platform or the file system has
    none)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # a folder that cannot be opened: Numba's own save reports the trouble
        fd = None
    try:
        if fd is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
            except OSError:  # a file system without locks (some NFS): save unlocked
                pass
        yield
    finally:
        if fd is not None:
            os.close(fd)  # releases the lock


def _save(self, key, data):
    """``IndexDataCacheFile.save`` made exclusive across processes (module docstring)."""
    with _exclusive(self._cache_path):
        overloads = self._load_index()
        name = overloads.get(key)
        if name is None:
            used = set(overloads.values())
            i = 1
            while self._data_name(i) in used:
                i += 1
            name = self._data_name(i)
        self._save_data(name, data)  # the data first: an index entry names a whole file
        if overloads.get(key) != name:
            overloads[key] = name
            self._save_index(overloads)


def _thread_pool() -> None:
    """Start Numba's thread pool (``numba.get_num_threads`` starts it: public API)."""
    import numba

    numba.get_num_threads()


def patch(caching) -> bool:
    """Make the cache of Numba's ``caching`` module safe across processes (module
    docstring): the thread pool started before the first load, saves exclusive. False where
    the module has not the known shape (nothing changed)."""
    index, cache = (getattr(caching, "IndexDataCacheFile", None),
                    getattr(caching, "Cache", None))
    needed = ("_load_index", "_save_data", "_save_index", "_data_name")
    if (index is None or cache is None or not hasattr(cache, "load_overload")
            or not all(hasattr(index, a) for a in needed)):
        return False
    load = cache.load_overload

    def load_overload(self, sig, target_context):
        _thread_pool()
        return load(self, sig, target_context)

    if not getattr(load, "_golf", False):
        load_overload._golf = True
        cache.load_overload = load_overload
    index.save = _save
    return True


class _Hook:
    """A meta path finder that patches ``numba.core.caching`` as it is first imported."""

    NAME = "numba.core.caching"

    def find_spec(self, fullname, path, target=None):
        if fullname != self.NAME:
            return None
        sys.meta_path.remove(self)
        import importlib.util

        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None:
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            patch(module)

        spec.loader.exec_module = exec_module
        return spec


def install() -> None:
    """:func:`patch` now, or when Numba's caching module is first imported."""
    if _Hook.NAME in sys.modules:
        patch(sys.modules[_Hook.NAME])
    elif not any(isinstance(f, _Hook) for f in sys.meta_path):
        sys.meta_path.insert(0, _Hook())
