"""golf.numba_cache: Numba's cache made safe across processes: the thread pool started before
a cached caller of parallel code is loaded (numba#4807), and saves exclusive, so that
processes compiling different overloads of one function at once (MPI ranks on a fresh cache,
pytest -n) cannot leave an index entry naming another overload's machine code."""

import subprocess
import sys
import threading
import time

import pytest

from conftest import ROOT

caching = pytest.importorskip("numba.core.caching")


def _cache_file(folder):
    return caching.IndexDataCacheFile(str(folder), "mod.func-1.py311", b"stamp")


def test_golf_makes_the_saves_exclusive():
    import golf  # noqa: F401  (installs the lock)
    from golf.numba_cache import _save

    assert caching.IndexDataCacheFile.save is _save


def test_two_saves_at_once_keep_each_overload_with_its_own_data(tmp_path, monkeypatch):
    """Two writers (as two processes would: each its own file object) save different keys
    at the same time, the first slowed after reading the index: both entries
    end up in the index, each naming a file that holds its own data."""
    import golf  # noqa: F401

    real = caching.IndexDataCacheFile._load_index
    started = threading.Event()

    def slow(self):
        out = real(self)
        if threading.current_thread().name == "A":  # A has read the index: B comes now
            started.set()
            time.sleep(0.3)
        return out

    monkeypatch.setattr(caching.IndexDataCacheFile, "_load_index", slow)
    a, b = _cache_file(tmp_path), _cache_file(tmp_path)
    ta = threading.Thread(target=a.save, args=("key-A", "A"), name="A")
    ta.start()
    assert started.wait(5)
    b.save("key-B", "B")
    ta.join()
    reader = _cache_file(tmp_path)
    assert reader.load("key-A") == "A"
    assert reader.load("key-B") == "B"
    names = reader._load_index()
    assert len(set(names.values())) == 2


def test_a_saved_key_keeps_its_file_and_is_overwritten(tmp_path):
    import golf  # noqa: F401

    f = _cache_file(tmp_path)
    f.save("k", 1)
    f.save("j", 2)
    f.save("k", 3)
    assert (f.load("k"), f.load("j")) == (3, 2)
    assert sorted(f._load_index().values()) == ["mod.func-1.py311.1.nbc",
                                               "mod.func-1.py311.2.nbc"]


@pytest.mark.parametrize("first", ["import golf; import numba.core.caching as c",
                                   "import numba.core.caching as c; import golf"])
def test_the_patch_is_installed_whichever_is_imported_first(first):
    code = f"{first}; print(c.IndexDataCacheFile.save.__module__, c.Cache.load_overload.__module__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True).stdout.strip()
    assert out == "golf.numba_cache golf.numba_cache"


MODULE = '''
import numpy as np
from numba import njit, prange


@njit(parallel=True, cache=True)
def inner(x):
    s = 0.0
    for i in prange(x.size):
        s += x[i] * 2.0
    return s


@njit(cache=True)
def outer(x):
    return inner(x) + 1.0
'''


def test_a_caller_of_a_parallel_function_cached_after_it_loads_and_runs(tmp_path):
    """numba/numba#4807: one process caches a parallel function, the next compiles a caller
    of it (the callee from the cache), the third loads that caller from the cache and calls
    it, which with Numba alone runs into a thread pool never started (a segmentation
    fault). With golf imported the pool is started before the first load."""
    import os

    (tmp_path / "par4807.py").write_text(MODULE)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=os.pathsep.join([str(ROOT), str(tmp_path)]))
    for name, want in (("inner", 200.0), ("outer", 201.0), ("outer", 201.0)):
        code = (f"import golf, numpy as np, par4807; "
                f"print(par4807.{name}(np.ones(100)))")
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, cwd=tmp_path)
        assert out.returncode == 0, (name, out.returncode, out.stderr[-2000:])
        assert float(out.stdout) == want


def test_a_file_system_without_locks_still_saves(tmp_path, monkeypatch):
    """Where flock fails (some NFS mounts), the save goes on unlocked."""
    import fcntl

    import golf  # noqa: F401

    def no_locks(fd, op):
        raise OSError(37, "No locks available")

    monkeypatch.setattr(fcntl, "flock", no_locks)
    f = _cache_file(tmp_path)
    f.save("k", 7)
    assert f.load("k") == 7
