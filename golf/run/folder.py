"""A run folder: its files and its lock.

``<output.dir>/<name>/`` holds ``run.yaml`` (the config as run), ``log.txt``,
``checkpoint.npz``, ``best.edges``, ``trace.csv``, ``summary.json``, ``convergence.png``, and
``.lock`` while a process works in it.
"""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

from golf.errors import GolfError

__all__ = ["RunDir", "CHECKPOINT", "OUTPUTS", "read_run_config"]

CHECKPOINT = "checkpoint.npz"
# what a run writes; a fresh start (--force) removes them first
OUTPUTS = (CHECKPOINT, "summary.json", "best.edges", "trace.csv", "log.txt", "convergence.png")


class RunDir:
    """A run folder with an exclusive lock (a file naming the process and host that hold it;
    a lock whose process is gone on this host is taken over)."""

    def __init__(self, path):
        self.path = Path(path)

    def file(self, name) -> Path:
        return self.path / name

    @property
    def has_run(self) -> bool:
        return self.file(CHECKPOINT).exists() or self.file("summary.json").exists()

    def lock(self) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        lock = self.file(".lock")
        me = f"{os.getpid()} {socket.gethostname()} {time.strftime('%Y-%m-%d %H:%M:%S')}\n"
        for _ in range(2):
            try:
                fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666)
            except FileExistsError:
                self._refuse_or_clear(lock)
                continue
            with os.fdopen(fd, "w") as f:
                f.write(me)
            return
        raise GolfError(f"could not lock {self.path}")

    def _refuse_or_clear(self, lock: Path) -> None:
        """A lock is there: refuse if its process lives (or is on another host), else remove."""
        try:
            pid, host, *when = lock.read_text().split()
            pid = int(pid)
        except (OSError, ValueError):
            pid, host, when = -1, "?", []
        if host == socket.gethostname() and pid > 0 and _alive(pid):
            raise GolfError(f"{self.path} is in use by another golf run (pid {pid}, since "
                            f"{' '.join(when)}); wait for it or use another output folder")
        if host != socket.gethostname():
            raise GolfError(f"{self.path} is locked by a golf run on {host} (pid {pid}); if "
                            f"that run is gone, delete {lock}")
        lock.unlink(missing_ok=True)  # stale: its process is gone

    def unlock(self) -> None:
        self.file(".lock").unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def read_run_config(run_dir):
    """The RunConfig of a run folder, from the ``run.yaml`` it was run with."""
    import yaml

    from golf.config import RunConfig, validate

    cfg_path = RunDir(run_dir).file("run.yaml")
    if not cfg_path.exists():
        raise GolfError(f"{run_dir}: no run.yaml here; is this a golf run folder?")
    try:
        data = yaml.safe_load(cfg_path.read_text())
    except yaml.YAMLError as exc:
        raise GolfError(f"{cfg_path}: not valid YAML: {exc}") from None
    data = validate(data, lambda key: str(cfg_path))
    return RunConfig(data["name"], data, Path(run_dir), str(cfg_path))
