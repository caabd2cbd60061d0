import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

# Numba compiles on first use; the examples themselves are fast.
settings.register_profile("golf", deadline=None, max_examples=40,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("golf")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def repo_env(**extra) -> dict:
    """This environment for a subprocess, with the repository first on PYTHONPATH (what it
    held stays after it, e.g. a folder of packages) and ``extra`` set."""
    path = os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH", "")) if p)
    return dict(os.environ, PYTHONPATH=path, **extra)


def run_golf(*args, check=False, env=None, timeout=300):
    """Run the ``golf`` command in a subprocess (the real entry point)."""
    e = dict(os.environ)
    e.update(env or {})
    proc = subprocess.run([sys.executable, "-m", "golf", *map(str, args)], capture_output=True,
                          text=True, env=e, timeout=timeout, cwd=ROOT)
    if check and proc.returncode != 0:
        raise AssertionError(f"golf {' '.join(map(str, args))} failed ({proc.returncode}):\n"
                             f"{proc.stdout}\n{proc.stderr}")
    return proc


def wait_for(path, timeout=120.0):
    """Poll until ``path`` exists; fail the test if it does not appear within ``timeout`` s."""
    deadline = time.time() + timeout
    while not Path(path).exists():
        if time.time() > deadline:
            raise AssertionError(f"{path} did not appear within {timeout:g} s")
        time.sleep(0.05)


def signal_after(proc, path, sig, settle):
    """Once ``path`` exists (a run's first checkpoint), wait ``settle`` seconds more, send
    ``sig`` to ``proc`` and return its ``(stdout, stderr)``."""
    wait_for(path)
    time.sleep(settle)
    proc.send_signal(sig)
    return proc.communicate(timeout=120)


def mpiexec_cmd(n):
    """The mpiexec prefix for ``n`` ranks, or None when MPI is not installed."""
    from golf.parallel import mpiexec_prefix

    return mpiexec_prefix(n)


def cpu_split_backends() -> list[str]:
    """The registry's CPU backends that split their work over MPI ranks and run here."""
    from golf.evaluators import backend_class, names

    return [b for b in names() if backend_class(b).supports.mpi_split
            and not backend_class(b).supports.gpu and backend_class(b).unavailable() is None]


def gpu_skip_reason():
    """Why the GPU tests cannot run here (no CuPy, no GPU), or None."""
    from golf.evaluators.base import gpu_unavailable

    return gpu_unavailable()


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


# -- the fast tier exercises every module -----------------------------------------------------
# README's test command runs the tests not marked slow; a run of that whole tier (no paths, no
# -k) fails when a module of golf/ was not imported by any of its tests, so that moving a test
# to the slow tier cannot leave a module to the slow tier alone. Under pytest-xdist every
# worker reports the modules it imported and the controller checks their union.

def golf_modules() -> set:
    """Every module of the package, by its dotted name."""
    out = set()
    pkg = Path(ROOT) / "golf"
    for path in pkg.rglob("*.py"):
        parts = list(path.relative_to(pkg.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out.add(".".join(parts))
    return out


# modules a test ran as a script (runpy), which leaves no entry in sys.modules
RAN_AS_SCRIPT: set = set()


def _imported() -> set:
    return {name for name in sys.modules
            if name == "golf" or name.startswith("golf.")} | RAN_AS_SCRIPT


def _whole_fast_tier(config) -> bool:
    args = [Path(a).resolve() for a in config.args]
    return (config.getoption("markexpr") == "not slow" and not config.getoption("keyword")
            and all(a == Path(ROOT, "tests") or a == Path(ROOT) for a in args))


_SEEN: set = set()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):  # pytest-xdist: a worker's imported modules
    _SEEN.update(getattr(node, "workeroutput", {}).get("golf_modules", ()))


_CONFIG: list = []  # pytest's config object, kept at start-up


def pytest_configure(config):
    _CONFIG.append(config)


def pytest_sessionfinish(exitstatus):
    """Fail a whole fast tier that imported no test of some golf module (pytest.exit's return
    code becomes the run's exit status)."""
    config = _CONFIG[-1]
    if hasattr(config, "workeroutput"):  # an xdist worker: report to the controller
        config.workeroutput["golf_modules"] = sorted(_imported())
        return
    if exitstatus != 0 or not _whole_fast_tier(config):
        return
    missing = sorted(golf_modules() - (_SEEN | _imported()))
    if missing:
        pytest.exit(f"the fast tier imported no test of these modules of golf/ (each needs a "
                    f"test not marked slow): {', '.join(missing)}",
                    returncode=pytest.ExitCode.TESTS_FAILED)
