"""The checkpoint format: ``checkpoint.npz`` holds everything a run needs to continue bit for
bit.

``meta``          JSON (as uint8 bytes): temperatures, start score, start time, elapsed seconds,
                  steps, number of chains, ``auto_g`` (the trials' record, with the chosen g)
                  where ``problem.g`` was ``auto``, and ``polish`` once a run is in its polish
                  phase
``trace``         the trace rows so far, ``(rows, len(TRACE_COLUMNS))`` float64
``r{R}_{key}``    chain ``R``'s state arrays (``adj``, ``best_adj``, ``rng``, ``sc``, ``fl``;
                  see :meth:`golf.engine.annealer.Annealer.state`; a tabu search adds ``tabu``, its
                  tabu list, and ``pool``, ``pool_sc``, ``pool_at``, its further start graphs,
                  their scores and which is next); one chain unless the run had parallel
                  chains under MPI (K chains on one GPU are one state of stacked arrays)

Two generations are kept. :func:`save_checkpoint` writes the new file to a temporary file
(flushed and synced), makes the checkpoint it replaces ``checkpoint.prev.npz`` (a hard link,
renamed over the old one, so that ``checkpoint.npz`` never goes missing; a rename where the
file system has no hard links), then renames the temporary file over ``checkpoint.npz``. A
reader sees a whole file or none; a kill at any moment leaves at least one whole checkpoint
once the first has been written.

:func:`load_checkpoint` checks a file before using it: a zip archive whose members are arrays
(no pickled objects, none claiming more bytes than it holds), the ``meta`` keys a run needs,
every chain's state arrays. Anything else -- cut short, zero bytes, garbage, a bad CRC, a
missing key -- is a :class:`golf.errors.GolfError` that names the file and what is wrong.
:func:`pick_checkpoint` chooses the checkpoint a resume starts from (the rules are in its
docstring).
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from pathlib import Path

import numpy as np

from golf.errors import GolfError

__all__ = ["save_checkpoint", "load_checkpoint", "pick_checkpoint", "Picked",
           "previous_path", "damaged_path", "META_KEYS", "STATE_KEYS"]

# what a run's meta data must hold for a resume
META_KEYS = ("t0", "t1", "start", "elapsed", "steps", "chains")
# every chain's state arrays (golf.engine.annealer.Annealer.state; a tabu search and a batch add
# more)
STATE_KEYS = ("adj", "best_adj", "rng", "sc", "fl")


def previous_path(path) -> Path:
    """``checkpoint.prev.npz`` beside ``checkpoint.npz``: the checkpoint before the newest."""
    path = Path(path)
    return path.with_name(f"{path.stem}.prev{path.suffix}")


def damaged_path(path) -> Path:
    """``checkpoint.damaged.npz``: where a resume moves a damaged newest checkpoint."""
    path = Path(path)
    return path.with_name(f"{path.stem}.damaged{path.suffix}")


def _keep_as_previous(path: Path, prev: Path) -> None:
    """``prev`` becomes the checkpoint now at ``path``, which stays in place (a hard link,
    renamed over ``prev``); where hard links fail, ``path`` is renamed to ``prev``."""
    from golf.io import create_temp

    fd, tmp = create_temp(prev.parent, prev.name)
    os.close(fd)
    os.unlink(tmp)
    try:
        os.link(path, tmp)
    except OSError:  # no hard links on this file system
        os.replace(path, prev)
        return
    try:
        os.replace(tmp, prev)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def save_checkpoint(path, meta: dict, trace_rows, states: list[dict]) -> None:
    """Write the checkpoint of ``states`` (one dict of arrays a chain) atomically, keeping the
    one it replaces as :func:`previous_path` (see the module docstring)."""
    from golf.engine.annealer import TRACE_COLUMNS
    from golf.io import atomic_write

    path = Path(path)
    buf = io.BytesIO()
    arrays = {f"r{r}_{k}": v for r, st in enumerate(states) for k, v in st.items()}
    np.savez(buf, meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8),
             trace=np.asarray(trace_rows, dtype=np.float64).reshape(-1, len(TRACE_COLUMNS)),
             **arrays)

    def keep_previous():
        if path.exists():
            _keep_as_previous(path, previous_path(path))

    atomic_write(path, buf.getvalue(), before_replace=keep_previous)


def _check_members(zf: zipfile.ZipFile) -> None:
    """Every member an ``.npy`` array that claims no more bytes than it holds (so that a
    damaged header cannot make the reader allocate gigabytes) and holds no Python objects."""
    from numpy.lib import format as npy

    for info in zf.infolist():
        if not info.filename.endswith(".npy"):
            raise ValueError(f"member {info.filename!r} is not an array")
        with zf.open(info) as f:
            version = npy.read_magic(f)
            if version == (1, 0):
                shape, _, dtype = npy.read_array_header_1_0(f)
            else:
                shape, _, dtype = npy.read_array_header_2_0(f)
        if dtype.hasobject:
            raise ValueError(f"member {info.filename!r} holds Python objects")
        need = int(np.prod(shape, dtype=object)) * dtype.itemsize
        if need > info.file_size:
            raise ValueError(f"member {info.filename!r} claims {need} bytes and holds "
                             f"{info.file_size}")


def _read(path) -> dict:
    """The checkpoint's arrays and meta data, the file's damage raised as ValueError."""
    with zipfile.ZipFile(path) as zf:
        _check_members(zf)
    with np.load(path, allow_pickle=False) as z:
        arrays = {key: z[key] for key in z.files}
    for key in ("meta", "trace"):
        if key not in arrays:
            raise ValueError(f"no '{key}' array")
    meta = json.loads(bytes(arrays.pop("meta")).decode())
    if not isinstance(meta, dict):
        raise ValueError("'meta' is not a mapping")
    missing = [k for k in META_KEYS if k not in meta]
    if missing:
        raise ValueError(f"'meta' lacks {', '.join(missing)}")
    trace = arrays.pop("trace")
    if trace.ndim != 2 or trace.dtype != np.float64:
        raise ValueError(f"'trace' is {trace.dtype} of shape {trace.shape}, not 2-D float64")
    states: dict[int, dict] = {}
    for key, a in arrays.items():
        r, _, name = key[1:].partition("_")
        if not key.startswith("r") or not r.isdigit() or not name:
            raise ValueError(f"unknown array '{key}'")
        states.setdefault(int(r), {})[name] = a
    chains = meta["chains"]
    if sorted(states) != list(range(len(states))) or len(states) != chains:
        raise ValueError(f"'meta' says {chains} chains; the file holds states "
                         f"{sorted(states)}")
    for r, st in states.items():
        missing = [k for k in STATE_KEYS if k not in st]
        if missing:
            raise ValueError(f"chain {r} lacks {', '.join(missing)}")
        if st["adj"].shape != st["best_adj"].shape or st["adj"].dtype.kind != "i":
            raise ValueError(f"chain {r}: 'adj' and 'best_adj' do not match")
    return {"meta": meta, "trace": trace, "states": [states[r] for r in sorted(states)]}


def load_checkpoint(path) -> dict:
    """``{"meta", "trace", "states"}``: ``states[r]`` is chain ``r``'s state (one entry
    unless the run had parallel chains).

    Raises
    ------
    GolfError
        The file is missing, unreadable or damaged (the message names it and says why).
    """
    if not Path(path).is_file():
        raise GolfError(f"{path}: no such checkpoint")
    try:
        return _read(path)
    except OSError as exc:
        raise GolfError(f"{path}: unreadable checkpoint ({exc.strerror or exc})") from None
    except Exception as exc:  # noqa: BLE001 -- whatever the decoder trips on, the file is bad
        why = str(exc) or type(exc).__name__
        raise GolfError(f"{path}: damaged checkpoint ({why}); size "
                        f"{Path(path).stat().st_size} bytes") from None


class Picked:
    """The checkpoint a resume starts from: ``path`` and its contents ``data`` (both None when
    the run has not written one yet: the resume starts it from the beginning), and ``notes``
    for the log (a fall-back, a damaged file moved aside)."""

    def __init__(self, path=None, data=None, notes=()):
        self.path, self.data, self.notes = path, data, list(notes)

    @property
    def fell_back(self) -> bool:
        return self.path is not None and self.path.name.endswith(".prev.npz")


def pick_checkpoint(path) -> Picked:
    """The checkpoint to resume from, given the newest one's ``path`` (``checkpoint.npz``):

    1. ``checkpoint.npz`` when it loads;
    2. else ``checkpoint.prev.npz`` (the one before it) when that loads: a damaged
       ``checkpoint.npz`` is moved to ``checkpoint.damaged.npz`` (kept for a look, and out of
       the way of the next rotation, which would otherwise make it the previous one), and the
       notes say so;
    3. neither file there, nor a ``checkpoint.damaged.npz``: the run stopped before its first
       checkpoint; Picked() (start from the beginning; nothing had been computed that a start
       does not compute again);
    4. else a GolfError naming each damaged file.

    Called by the process that holds the run folder's lock.
    """
    path = Path(path)
    prev, damaged = previous_path(path), damaged_path(path)
    errors = []
    if path.exists():
        try:
            return Picked(path, load_checkpoint(path))
        except GolfError as exc:
            errors.append(str(exc))
    if prev.exists():
        try:
            data = load_checkpoint(prev)
        except GolfError as exc:
            errors.append(str(exc))
        else:
            notes = []
            if errors:
                os.replace(path, damaged)
                notes.append(f"{errors[0]}: moved to {damaged.name}")
            else:
                notes.append(f"{path}: missing (the run stopped between writing its "
                             f"checkpoints)")
            notes.append(f"resuming from {prev.name}, the checkpoint before it (step "
                         f"{data['meta']['steps']}); the steps after it are run again")
            return Picked(prev, data, notes)
    if errors:
        raise GolfError("; ".join(errors) + ("" if prev.exists() else
                                             f"; no {prev.name} to fall back on")
                        + "; start the run again with golf run --force")
    if damaged.exists():
        raise GolfError(f"{path.parent}: only a damaged checkpoint ({damaged.name}) here; "
                        f"start the run again with golf run --force")
    return Picked()
