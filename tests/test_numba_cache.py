"""golf.numba_cache: Numba's cache saves made exclusive, so that processes compiling different
overloads of one function at once (MPI ranks on a fresh cache, pytest -n) cannot leave an
index entry naming another overload's machine code."""

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
def test_the_lock_is_installed_whichever_is_imported_first(first):
    code = f"{first}; print(c.IndexDataCacheFile.save.__module__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True).stdout.strip()
    assert out == "golf.numba_cache"
