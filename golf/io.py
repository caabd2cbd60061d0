"""Edge lists in the Graph Golf format, and atomic file writes.

The format: one edge per line, two vertex ids from 0 separated by white space; blank lines are
allowed. Files ending in ``.gz`` are read and written gzipped.

Reading checks every line and raises :class:`golf.errors.GolfError` naming the file, the line
number, the offending text and what was expected (two non-negative integers, distinct).
Duplicate edges are not errors of the format: :func:`read_edges` reports them in its result so
that ``golf eval`` can warn and ``golf validate`` can reject.
"""

from __future__ import annotations

import gzip
import io as _io
import os
import secrets
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numba import njit

from golf.errors import GolfError

__all__ = ["EdgeList", "read_edges", "write_edges", "atomic_write", "format_edges",
           "format_pairs"]


@dataclass
class EdgeList:
    """What :func:`read_edges` found.

    edges : (E, 2) int64, the distinct edges in file order (first occurrence kept)
    lines : (E,) int64, the 1-based line number of each kept edge
    duplicates : list of ``(line, first_line, u, v)`` for each repeated edge
    """

    path: str
    edges: np.ndarray
    lines: np.ndarray
    duplicates: list = field(default_factory=list)

    @property
    def max_id(self) -> int:
        return int(self.edges.max()) if len(self.edges) else -1

    def graph(self, n: int | None = None, g=1, d: int | None = None):
        """The edges as a :class:`golf.graph.Graph` on ``n`` vertices (default: largest id
        + 1) with symmetry ``g`` (an integer that must hold, or ``"auto"``: the largest that
        does) and row width ``d`` (default: the largest degree). Errors name the file and
        line of the offending edge."""
        from golf.graph import Graph

        return Graph.from_edges(self.edges, n=n, g=g, d=d, source=self.path, lines=self.lines)


def _open_text(path: str):
    p = str(path)
    try:
        if p.endswith(".gz"):
            return _io.TextIOWrapper(gzip.open(p, "rb"), encoding="utf-8", errors="replace")
        return open(p, encoding="utf-8", errors="replace")
    except FileNotFoundError:
        raise GolfError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise GolfError(f"{p}: is a directory, expected an edge-list file") from None
    except PermissionError:
        raise GolfError(f"{p}: permission denied") from None


def _parse_slow(path: str, problems: list | None = None):
    """Line-by-line parse that names bad lines exactly. Raises at the first bad line, or, when
    ``problems`` is a list, appends every bad line's message to it and skips the line."""
    us, vs, ls = [], [], []

    def bad(msg):
        if problems is None:
            raise GolfError(msg)
        problems.append(msg)

    with _open_text(path) as f:
        for lineno, raw in enumerate(f, 1):
            text = raw.rstrip("\r\n")
            parts = text.split()
            if not parts:
                continue
            shown = text.strip()
            if len(shown) > 60:
                shown = shown[:57] + "..."
            where = f"{path}:{lineno}"
            if len(parts) != 2:
                bad(f"{where}: expected 2 columns 'u v', found {len(parts)}: '{shown}'")
                continue
            vals = []
            for tok in parts:
                try:
                    vals.append(int(tok))
                except ValueError:
                    bad(f"{where}: expected an integer vertex id, found '{tok}' in '{shown}'")
                    break
            if len(vals) != 2:
                continue
            if min(vals) < 0:
                bad(f"{where}: negative vertex id {min(vals)} in '{shown}' (ids start at 0)")
                continue
            if vals[0] == vals[1]:
                bad(f"{where}: self-loop '{shown}' (an edge needs two distinct vertices)")
                continue
            us.append(vals[0])
            vs.append(vals[1])
            ls.append(lineno)
    return (np.array([us, vs], dtype=np.int64).T.reshape(-1, 2), np.array(ls, dtype=np.int64))


def _line_numbers(path: str, count: int) -> np.ndarray:
    """1-based line numbers of the non-blank lines (same order as the parsed rows)."""
    with _open_text(path) as f:
        total = sum(1 for _ in f)
    if total == count:  # no blank line: the common case, no second pass in Python
        return np.arange(1, count + 1, dtype=np.int64)
    with _open_text(path) as f:
        nums = [k for k, raw in enumerate(f, 1) if raw.strip()]
    return np.array(nums[:count], dtype=np.int64)


def read_edges(path, problems: list | None = None) -> EdgeList:
    """Read a Graph Golf edge list.

    With ``problems`` (a list), malformed lines are appended to it as messages and skipped
    instead of raising, so that a validator can list them all.

    Returns
    -------
    EdgeList
        The distinct edges with their line numbers, and the duplicates found.

    Raises
    ------
    GolfError
        For a missing file or the first malformed line: wrong column count, a non-integer,
        a negative id, or a self-loop.
    """
    path = str(path)
    if not os.path.exists(path):
        raise GolfError(f"{path}: no such file")
    e = None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # empty file warning
            with _open_text(path) as f:
                e = np.loadtxt(f, dtype=np.int64, ndmin=2, comments=None)
        if e.size == 0:
            e = e.reshape(0, 2)
        if e.shape[1] != 2 or (e < 0).any() or (e[:, 0] == e[:, 1]).any():
            e = None
    except (ValueError, OverflowError, UnicodeDecodeError, EOFError, OSError):
        e = None
    if e is None:  # something is wrong: find the exact line(s)
        e, lines = _parse_slow(path, problems)
    else:
        lines = _line_numbers(path, len(e))
    # duplicates (either orientation)
    a = np.minimum(e[:, 0], e[:, 1])
    b = np.maximum(e[:, 0], e[:, 1])
    key = a * (int(b.max()) + 1 if len(b) else 1) + b
    order = np.argsort(key, kind="stable")
    sk = key[order]
    rep = np.flatnonzero(sk[1:] == sk[:-1]) + 1
    duplicates = []
    keep = np.ones(len(e), dtype=bool)
    if len(rep):
        # first occurrence of each key in sorted order
        first_of = np.maximum.accumulate(np.where(np.r_[True, sk[1:] != sk[:-1]],
                                                  np.arange(len(sk)), 0))
        for r in rep:
            k, k0 = order[r], order[first_of[r]]
            keep[k] = False
            duplicates.append((int(lines[k]), int(lines[k0]), int(e[k, 0]), int(e[k, 1])))
        duplicates.sort()
    return EdgeList(path, e[keep], lines[keep], duplicates)


@njit(cache=True)
def format_pairs(e):
    """ASCII bytes of ``"u v\\n"`` lines for the rows of an (E, 2) int64 array."""
    # at most 20 digits + separator per number
    out = np.empty(e.shape[0] * 42, dtype=np.uint8)
    tmp = np.empty(20, dtype=np.uint8)
    pos = 0
    for r in range(e.shape[0]):
        for c in range(2):
            x = e[r, c]
            if x < 0:
                out[pos] = 45  # '-'
                pos += 1
                x = -x
            k = 0
            while True:
                tmp[k] = 48 + x % 10
                k += 1
                x //= 10
                if x == 0:
                    break
            for t in range(k - 1, -1, -1):
                out[pos] = tmp[t]
                pos += 1
            out[pos] = 32 if c == 0 else 10
            pos += 1
    return out[:pos]


def format_edges(edges) -> bytes:
    """The edge list as the bytes of a Graph Golf file (one ``u v`` per line)."""
    e = np.ascontiguousarray(edges, dtype=np.int64).reshape(-1, 2)
    return format_pairs(e).tobytes()


def _create_temp(folder: Path, name: str) -> tuple[int, str]:
    """A new file beside ``name`` in ``folder``, created with mode 0666 less the umask (the
    permissions any other file of the user gets; ``tempfile.mkstemp`` would make it 0600)."""
    for _ in range(100):
        tmp = folder / f".{name}.{secrets.token_hex(6)}.tmp"
        try:
            return os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666), str(tmp)
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {folder / name}")


def atomic_write(path, data: bytes | str) -> None:
    """Write ``data`` to ``path`` atomically: a temporary file in the same folder, flushed
    and synced, then renamed over ``path``. A reader sees the old file or the new one, never
    a half-written one. ``.gz`` paths are compressed. The file gets the mode of any new file
    under the user's umask."""
    path = Path(path)
    if isinstance(data, str):
        data = data.encode()
    if path.suffix == ".gz":
        data = gzip.compress(data, mtime=0)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = _create_temp(path.parent, path.name)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def write_edges(path, edges) -> None:
    r"""Write a graph's edges (a :class:`golf.graph.Graph`, or a ``(k, 2)`` array of ids) in
    the competition's format, sorted (each edge as ``u < v``, by ``u`` then ``v``),
    atomically; ``.gz`` paths are compressed.

    Examples
    --------
    >>> import os, tempfile
    >>> import golf
    >>> path = os.path.join(tempfile.mkdtemp(), "c4.edges")
    >>> golf.write_edges(path, [(0, 1), (1, 2), (2, 3), (3, 0)])
    >>> open(path).read()
    '0 1\n0 3\n1 2\n2 3\n'
    """
    from golf.graph import Graph, edge_array

    e = edges.edges() if isinstance(edges, Graph) else edge_array(edges, str(path))
    e = np.sort(e, axis=1)
    e = e[np.lexsort((e[:, 1], e[:, 0]))]
    atomic_write(path, format_edges(e))
