"""A run folder: its files and its lock.

``<output.dir>/<name>/`` holds ``run.yaml`` (the config as run), ``log.txt``,
``checkpoint.npz`` and ``checkpoint.prev.npz`` (the newest checkpoint and the one before it),
``best.edges``, ``trace.csv``, ``summary.json``, ``convergence.png``, and ``.lock`` while a
process works in it. A resume that met a damaged checkpoint leaves it as
``checkpoint.damaged.npz``, and a best graph the checkpoint it resumed from does not hold as
``best.before-resume.edges`` (:meth:`golf.run.driver.Search.resume`).
"""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

from golf.errors import GolfError

__all__ = ["RunDir", "CHECKPOINT", "PREVIOUS", "DAMAGED", "SET_ASIDE", "OUTPUTS",
           "read_run_config"]

CHECKPOINT = "checkpoint.npz"
PREVIOUS = "checkpoint.prev.npz"  # golf.run.checkpoint.previous_path
DAMAGED = "checkpoint.damaged.npz"  # golf.run.checkpoint.damaged_path
SET_ASIDE = "best.before-resume"  # + ".edges", ".2.edges", ...
# what a run writes; a fresh start (--force) removes them first (run.yaml before the others:
# a start killed part-way never leaves an old run.yaml beside no checkpoint)
OUTPUTS = ("run.yaml", CHECKPOINT, PREVIOUS, DAMAGED, "summary.json", "best.edges",
           "trace.csv", "log.txt", "convergence.png")


class RunDir:
    """A run folder with an exclusive lock (a file naming the process and host that hold it;
    a lock whose process is gone on this host is taken over)."""

    def __init__(self, path):
        self.path = Path(path)
        self.token = None  # the lock's text while this object holds it


    def file(self, name) -> Path:
        return self.path / name

    @property
    def has_run(self) -> bool:
        """A checkpoint (either generation) or a summary is here."""
        return any(self.file(f).exists() for f in (CHECKPOINT, PREVIOUS, "summary.json"))

    def set_aside_name(self) -> Path:
        """A free name ``best.before-resume[.K].edges``."""
        k = 1
        while True:
            path = self.file(f"{SET_ASIDE}.edges" if k == 1 else f"{SET_ASIDE}.{k}.edges")
            if not path.exists():
                return path
            k += 1

    def lock(self) -> str:
        """Take the lock (refused while a live process holds it); returns its text, which
        :meth:`unlock_if` takes. Temporary files (``.NAME.XXXX.tmp``) that a killed writer
        left are removed: no other process writes here while the lock is held."""
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
            self.token = me
            for tmp in self.path.glob(".*.tmp"):
                tmp.unlink(missing_ok=True)
            return me
        raise GolfError(f"could not lock {self.path}")

    def _refuse_or_clear(self, lock: Path) -> None:
        """A lock is there: refuse if its process lives (or is on another host), else remove.
        A lock without a readable owner is stale once it is a few seconds old (its writer
        writes the owner at once)."""
        try:
            since = lock.stat().st_mtime
            pid, host, *when = lock.read_text().split()
            pid = int(pid)
        except FileNotFoundError:
            return  # released meanwhile
        except (OSError, ValueError):
            if time.time() - since < 5:
                raise GolfError(f"{self.path} is being locked by another golf run; wait for "
                                f"it or use another output folder") from None
            lock.unlink(missing_ok=True)
            return
        if host == socket.gethostname() and pid > 0 and _alive(pid):
            raise GolfError(f"{self.path} is in use by another golf run (pid {pid}, since "
                            f"{' '.join(when)}); wait for it or use another output folder")
        if host != socket.gethostname():
            raise GolfError(f"{self.path} is locked by a golf run on {host} (pid {pid}); if "
                            f"that run is gone, delete {lock}")
        lock.unlink(missing_ok=True)  # stale: its process is gone

    def unlock(self) -> None:
        """Release the lock this object holds (nothing if it holds none: never another
        process's)."""
        if self.token is not None:
            self.unlock_if(self.token)
            self.token = None

    def unlock_if(self, token: str) -> None:
        """Remove the lock if it is still the one whose text is ``token`` (an MPI rank other
        than the one that took it clears it this way before the job is aborted)."""
        lock = self.file(".lock")
        try:
            if lock.read_text() == token:
                lock.unlink(missing_ok=True)
        except OSError:
            pass


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs. A zombie does not (where Linux's /proc tells): a killed
    MPI rank whose launcher exited first stays one until init reaps it, which in a container
    whose first process reaps no orphans can be never."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True  # no /proc (not Linux): what os.kill said
    return state not in ("Z", "X")


def read_run_config(run_dir):
    """The RunConfig of a run folder, from the ``run.yaml`` it was run with."""
    from golf.config import RunConfig, read_yaml, validate

    cfg_path = RunDir(run_dir).file("run.yaml")
    if not cfg_path.exists():
        raise GolfError(f"{run_dir}: no run.yaml here; is this a golf run folder?")
    data = validate(read_yaml(cfg_path, "run.yaml")[0], lambda key: str(cfg_path))
    return RunConfig(data["name"], data, Path(run_dir), str(cfg_path))
