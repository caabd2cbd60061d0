"""Edge lists in the Graph Golf format, and atomic file writes.

The format: one edge per line, two vertex ids from 0 separated by white space; blank lines are
allowed. Files ending in ``.gz`` are read and written gzipped.

Reading checks every line and raises :class:`golf.errors.GolfError` naming the file, the line
number, the offending text and what was expected (two non-negative integers below
:data:`golf.graph.MAX_ORDER`, distinct). Nothing read is allocated by the size of an id: the
memory of reading grows with the file, not with the values in it. A truncated, corrupt or
mislabelled ``.gz`` file, a folder or a device is a GolfError naming the file too.
Duplicate edges are not errors of the format: :func:`read_edges` reports them in its result so
that ``golf eval`` can warn and ``golf validate`` can reject.
"""

from __future__ import annotations

import gzip
import io as _io
import os
import re
import secrets
import stat
import warnings
import zlib
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numba import njit, prange

from golf.errors import GolfError
from golf.kernels.symmetry import act, rotated

__all__ = ["EdgeList", "read_edges", "write_edges", "atomic_write", "format_edges",
           "format_pairs", "graph_text", "symmetric_edge_text"]


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

    def graph(self, n: int | None = None, g=1, d: int | None = None, group=None,
              centres: int = 0):
        """The edges as a :class:`golf.graph.Graph` on ``n`` vertices (default: largest id
        + 1) with symmetry ``g`` (an integer that must hold, or ``"auto"``: the largest that
        does; ``group``: a non-cyclic group of order ``g`` that must hold, :mod:`golf.group`;
        ``centres``: the last vertices fixed by it, :mod:`golf.graph`) and row width ``d``
        (default: the largest degree). Errors name the file and line of the offending edge."""
        from golf.graph import Graph

        return Graph.from_edges(self.edges, n=n, g=g, d=d, source=self.path, lines=self.lines,
                                group=group, centres=centres)


def open_text(path: str, ascii_only: bool = False):
    """The file as text lines (``.gz``: gunzipped); a GolfError for a missing file, a folder,
    a device (``/dev/zero`` would never end) or no permission. Errors met while reading (bad
    gzip data) surface as GolfErrors inside :func:`reading`. UTF-8 with undecodable bytes
    replaced, or with ``ascii_only`` a UnicodeDecodeError at the first byte above 127."""
    p = str(path)
    try:
        mode = os.stat(p).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
            raise GolfError(f"{p}: is a device, expected an edge-list file")
        raw = gzip.open(p, "rb") if p.endswith(".gz") else open(p, "rb")
    except FileNotFoundError:
        raise GolfError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise GolfError(f"{p}: is a directory, expected an edge-list file") from None
    except PermissionError:
        raise GolfError(f"{p}: permission denied") from None
    except OSError as exc:
        raise GolfError(f"{p}: cannot open: {exc.strerror or exc}") from None
    if ascii_only:
        return _io.TextIOWrapper(raw, encoding="ascii", errors="strict")
    return _io.TextIOWrapper(raw, encoding="utf-8", errors="replace")


@contextmanager
def reading(path):
    """Turn the errors of reading ``path`` (a truncated, corrupt or mislabelled gzip file, an
    I/O error) into a GolfError naming the file; GolfErrors pass through."""
    p = str(path)
    try:
        yield
    except GolfError:
        raise
    except EOFError as exc:
        raise GolfError(f"{p}: the gzip data ends early (a truncated file?): {exc}") from None
    except gzip.BadGzipFile as exc:
        if "Not a gzipped file" in str(exc):
            raise GolfError(f"{p}: not a gzip file ({exc}); a name ending in .gz is read "
                            f"gzipped") from None
        raise GolfError(f"{p}: corrupt gzip data: {exc}") from None
    except zlib.error as exc:
        raise GolfError(f"{p}: corrupt gzip data: {exc}") from None
    except OSError as exc:
        raise GolfError(f"{p}: cannot read: {exc.strerror or exc}") from None


def shorten(text: str, limit: int = 60) -> str:
    """``text`` as a message quotes it: control characters escaped (``\\x00``; a message
    stays one line), cut to ``limit`` characters (never whole megabytes)."""
    if not text.isprintable():
        text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text[:limit])
    return text if len(text) <= limit else text[:limit - 3] + "..."


INT_TOKEN = re.compile(r"[+-]?[0-9]+")
_HUGE = 10**18  # stands for a token of more digits: far above any id, and no int() of it


def int_token(tok: str) -> int:
    """The value of an integer token (``[+-]?[0-9]+``), or ``+-10**18`` for one of more than
    18 significant digits (Python refuses int() of 4300 digits, and a long one is slow)."""
    digits = tok.lstrip("+-").lstrip("0")
    sign = -1 if tok.startswith("-") else 1
    return sign * (int(digits or "0") if len(digits) <= 18 else _HUGE)


def shown_int(tok: str, value: int) -> str:
    """How a message quotes an integer token: its value, or the token cut short."""
    return str(value) if abs(value) < _HUGE else shorten(tok, 30)


def text_lines(path: str):
    """``(line number, fields, the line as a message quotes it, "path:line")`` for each
    non-blank line of a text file (``.gz``: gzipped), reading errors as GolfErrors."""
    with reading(path), open_text(path) as f:
        for lineno, raw in enumerate(f, 1):
            parts = raw.split()
            if parts:
                yield lineno, parts, shorten(raw.strip()), f"{path}:{lineno}"


class BadLines:
    """What a reader does with a bad line of ``path``: raise it (``problems`` None), or append
    it to ``problems`` and go on, the first :data:`MAX_PROBLEMS` one by one and the rest
    counted in one message by :meth:`close`."""

    def __init__(self, path: str, problems: list | None):
        self.path, self.problems, self.count = path, problems, 0

    def __call__(self, msg: str) -> None:
        if self.problems is None:
            raise GolfError(msg)
        if self.count < MAX_PROBLEMS:
            self.problems.append(msg)
        self.count += 1

    def close(self) -> None:
        if self.count > MAX_PROBLEMS:
            self.problems.append(f"{self.path}: {self.count - MAX_PROBLEMS} more malformed "
                                 f"lines")


def _parse_slow(path: str, problems: list | None = None):
    """Line-by-line parse that names bad lines exactly. Raises at the first bad line, or, when
    ``problems`` is a list, appends every bad line's message to it and skips the line (after
    :data:`MAX_PROBLEMS` messages it counts the rest in one last message)."""
    from golf.graph import MAX_ORDER

    us, vs, ls = [], [], []
    bad = BadLines(path, problems)
    for lineno, parts, shown, where in text_lines(path):
        if len(parts) != 2:
            bad(f"{where}: expected 2 columns 'u v', found {len(parts)}: '{shown}'")
            continue
        vals = []
        for tok in parts:
            if not INT_TOKEN.fullmatch(tok):
                bad(f"{where}: expected an integer vertex id, found '{shorten(tok, 30)}' in "
                    f"'{shown}'")
                break
            vals.append(int_token(tok))
        if len(vals) != 2:
            continue
        lo, hi = (0, 1) if vals[0] <= vals[1] else (1, 0)
        if vals[lo] < 0:
            bad(f"{where}: negative vertex id {shown_int(parts[lo], vals[lo])} in "
                f"'{shown}' (ids start at 0)")
            continue
        if vals[hi] >= MAX_ORDER:
            bad(f"{where}: vertex id {shown_int(parts[hi], vals[hi])} is too large in "
                f"'{shown}': expected ids < {MAX_ORDER} (golf holds vertex ids as 32-bit "
                f"integers)")
            continue
        if vals[0] == vals[1]:
            bad(f"{where}: self-loop '{shown}' (an edge needs two distinct vertices)")
            continue
        us.append(vals[0])
        vs.append(vals[1])
        ls.append(lineno)
    bad.close()
    return (np.array([us, vs], dtype=np.int64).T.reshape(-1, 2), np.array(ls, dtype=np.int64))


def repeated_edges(e):
    """The repeats of an ``(E, 2)`` edge list (either orientation), found by sorting the pairs
    (no key sized by the ids): ``keep``, a mask of the first occurrences, and ``(k, k0)`` for
    each repeat ``k`` of the edge first at ``k0``."""
    a = np.minimum(e[:, 0], e[:, 1])
    b = np.maximum(e[:, 0], e[:, 1])
    if len(e) and int(b.max()) < 2**31:  # one key a pair: a plain sort finds any repeat
        key = np.sort(a * (int(b.max()) + 1) + b)
        if not (key[1:] == key[:-1]).any():
            return np.ones(len(e), dtype=bool), []
    order = np.lexsort((b, a))  # stable: equal pairs stay in file order
    sa, sb = a[order], b[order]
    same = (sa[1:] == sa[:-1]) & (sb[1:] == sb[:-1])
    keep = np.ones(len(e), dtype=bool)
    # the first occurrence of each pair, in sorted order
    first_of = np.maximum.accumulate(np.where(np.r_[True, ~same], np.arange(len(sa)), 0))
    repeats = [(int(order[r]), int(order[first_of[r]])) for r in np.flatnonzero(same) + 1]
    for k, _ in repeats:
        keep[k] = False
    return keep, repeats


# malformed lines listed one by one (golf validate); the rest are counted
MAX_PROBLEMS = 100


def _line_numbers(path: str, count: int) -> np.ndarray:
    """1-based line numbers of the non-blank lines (same order as the parsed rows)."""
    with reading(path), open_text(path) as f:
        total = sum(1 for _ in f)
    if total == count:  # no blank line: the common case, no second pass in Python
        return np.arange(1, count + 1, dtype=np.int64)
    with reading(path), open_text(path) as f:
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
        For a missing file, a folder or a device, a truncated, corrupt or mislabelled
        ``.gz`` file, or the first malformed line: wrong column count, a non-integer, a
        negative id, an id of :data:`golf.graph.MAX_ORDER` or more, or a self-loop.
    """
    from golf.graph import MAX_ORDER

    path = str(path)
    if not os.path.exists(path):
        raise GolfError(f"{path}: no such file")
    e = None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # empty file warning
            # ASCII only: NumPy's loadtxt (2.4) reads some characters beyond U+EFFFF as
            # digits and crashes on others; any other byte goes to the line-by-line parse
            with open_text(path, ascii_only=True) as f:
                e = np.loadtxt(f, dtype=np.int64, ndmin=2, comments=None)
        if e.size == 0:
            e = e.reshape(0, 2)
        if e.shape[1] != 2 or (e < 0).any() or (e >= MAX_ORDER).any() or (
                e[:, 0] == e[:, 1]).any():
            e = None
    except (ValueError, OverflowError, UnicodeDecodeError, EOFError, OSError, zlib.error):
        e = None  # GolfErrors (a folder, a device) are raised as they are
    if e is None:  # something is wrong: find the exact line(s)
        e, lines = _parse_slow(path, problems)
    else:
        lines = _line_numbers(path, len(e))
    keep, repeats = repeated_edges(e)
    duplicates = sorted((int(lines[k]), int(lines[k0]), int(e[k, 0]), int(e[k, 1]))
                        for k, k0 in repeats)
    return EdgeList(path, e[keep], lines[keep], duplicates)


@njit(cache=True, inline="always")
def _digits(x, out, pos):
    """The decimal digits of ``x >= 0`` into ``out`` from ``pos``; returns the next place."""
    k = 1
    y = x
    while y >= 10:
        y //= 10
        k += 1
    for t in range(k - 1, -1, -1):
        out[pos + t] = 48 + x % 10
        x //= 10
    return pos + k


@njit(cache=True)
def format_pairs(e):
    """ASCII bytes of ``"u v\\n"`` lines for the rows of an (E, 2) int64 array."""
    # at most 20 digits + sign + separator per number
    out = np.empty(e.shape[0] * 44, dtype=np.uint8)
    pos = 0
    for r in range(e.shape[0]):
        for c in range(2):
            x = e[r, c]
            if x < 0:
                out[pos] = 45  # '-'
                pos += 1
                x = -x
            pos = _digits(x, out, pos)
            out[pos] = 32 if c == 0 else 10
            pos += 1
    return out[:pos]


@njit(cache=True)
def _row_ends(adj, n, grp, u, row):
    """The neighbours ``v > u`` of vertex ``u`` of a symmetric graph (its base rows ``adj``,
    ``grp`` a group's kernel array or empty for the cyclic group), sorted into ``row``;
    returns how many."""
    m, d = adj.shape
    k = u // m
    i = u - k * m
    off = k * m
    cnt = 0
    for j in range(d):
        w = adj[i, j]
        if w < 0:
            continue
        v = rotated(w, off, n) if grp.shape[0] == 0 else act(w, off, n, grp)
        if v > u:
            t = cnt
            while t > 0 and row[t - 1] > v:  # insertion: a row holds at most d
                row[t] = row[t - 1]
                t -= 1
            row[t] = v
            cnt += 1
    return cnt


@njit(cache=True, parallel=True)
def symmetric_edge_text(adj, n, grp):
    """ASCII bytes of the sorted edge list (``"u v\n"``, ``u < v``, by ``u`` then ``v``) of
    the symmetric graph with base rows ``adj`` (``grp`` a group's kernel array, or empty for
    the cyclic group), straight from the base rows: two passes over blocks of vertices in
    parallel, the bytes of each block counted, then written at its offset."""
    d = adj.shape[1]
    block = 1 << 14
    nb = (n + block - 1) // block
    size = np.zeros(nb + 1, dtype=np.int64)
    for b in prange(nb):
        row = np.empty(d, dtype=np.int64)
        tmp = np.empty(24, dtype=np.uint8)
        total = 0
        for u in range(b * block, min(n, (b + 1) * block)):
            cnt = _row_ends(adj, n, grp, u, row)
            if cnt:
                lu = _digits(u, tmp, 0) + 1
                for c in range(cnt):
                    total += lu + _digits(row[c], tmp, 0) + 1
        size[b + 1] = total
    for b in range(nb):
        size[b + 1] += size[b]
    out = np.empty(size[nb], dtype=np.uint8)
    for b in prange(nb):
        row = np.empty(d, dtype=np.int64)
        pos = size[b]
        for u in range(b * block, min(n, (b + 1) * block)):
            cnt = _row_ends(adj, n, grp, u, row)
            for c in range(cnt):
                pos = _digits(u, out, pos)
                out[pos] = 32
                pos = _digits(row[c], out, pos + 1)
                out[pos] = 10
                pos += 1
    return out


def format_edges(edges) -> bytes:
    """The edge list as the bytes of a Graph Golf file (one ``u v`` per line)."""
    e = np.ascontiguousarray(edges, dtype=np.int64).reshape(-1, 2)
    return format_pairs(e).tobytes()


def create_temp(folder: Path, name: str) -> tuple[int, str]:
    """A new file beside ``name`` in ``folder``, created with mode 0666 less the umask (the
    permissions any other file of the user gets; ``tempfile.mkstemp`` would make it 0600)."""
    for _ in range(100):
        tmp = folder / f".{name}.{secrets.token_hex(6)}.tmp"
        try:
            return os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666), str(tmp)
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {folder / name}")


def fsync_dir(folder) -> None:
    """Make the renames in ``folder`` durable (where the system lets a folder be synced)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write(path, data: bytes | str | np.ndarray, before_replace=None) -> None:
    """Write ``data`` to ``path`` atomically: a temporary file in the same folder, flushed
    and synced, then renamed over ``path`` (and the folder synced). A reader sees the old file
    or the new one, never a half-written one. ``.gz`` paths are compressed. The file gets the
    mode of any new file under the user's umask. ``before_replace()``, when given, runs once
    the new data is safe on disk and before the rename (a checkpoint keeps the file it
    replaces there)."""
    path = Path(path)
    if isinstance(data, str):
        data = data.encode()
    elif isinstance(data, np.ndarray):  # bytes in an array (a compiled writer's), not copied
        data = memoryview(np.ascontiguousarray(data, dtype=np.uint8))
    if path.suffix == ".gz":
        data = gzip.compress(data, mtime=0)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = create_temp(path.parent, path.name)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if before_replace is not None:
            before_replace()
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    fsync_dir(path.parent)


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

    if isinstance(edges, Graph):
        atomic_write(path, graph_text(edges))
        return
    e = np.sort(edge_array(edges, str(path)), axis=1)
    e = e[np.lexsort((e[:, 1], e[:, 0]))]
    atomic_write(path, format_edges(e))


def graph_text(graph) -> np.ndarray:
    """The bytes of a :class:`golf.graph.Graph`'s sorted edge list in the competition's
    format, as a uint8 array: a symmetric graph's straight from its base rows
    (:func:`symmetric_edge_text`, compiled and parallel), a centre form's from
    :meth:`~golf.graph.Graph.edges`."""
    if graph.centres:
        return np.frombuffer(format_edges(graph.edges()), dtype=np.uint8)
    grp = np.zeros(0, dtype=np.int64) if graph.group is None else graph.group.kernel(graph.m)
    return symmetric_edge_text(np.ascontiguousarray(graph.adj), graph.n, grp)
