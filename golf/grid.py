"""Grid graphs: the Graph Golf grid category.

A grid problem ``(w, h, d, r)`` places the ``n = w*h`` vertices on the cells ``(x, y)``,
``0 <= x < w``, ``0 <= y < h``, of a lattice; an edge may only join two cells whose Manhattan
distance ``|x1 - x2| + |y1 - y2|`` is at most ``r`` (the cable-length limit), and every degree
is at most ``d``. A symmetric grid graph (``g`` = 2 or 4) is invariant under the rotation of
the lattice by 180 or 90 degrees.

**Numbering.** golf's symmetric graphs are invariant under ``v -> v + m (mod n)``, ``m = n/g``
(:mod:`golf.graph`). The cells are numbered so that this map *is* the rotation, and every
evaluator, move and kernel works on grid graphs unchanged:

* ``g = 1``: cell ``(x, y)`` is vertex ``y*w + x`` (row-major order);
* ``g = 2``: the first ``m = n/2`` cells of row-major order are vertices ``0 .. m-1``, and vertex
  ``m + i`` is cell ``i`` turned by 180 degrees, ``(w-1-x, h-1-y)``, which is the cell at
  row-major index ``n-1-i``. Needs ``w*h`` even: on an odd lattice the centre cell is its own
  rotation, and no orbit of that rotation may have one element;
* ``g = 4``: ``w = h = s`` with ``s`` even. The base cells are the quadrant ``x, y < s/2``
  (base vertex ``i = y*(s/2) + x``), and vertex ``k*m + i`` is that cell turned ``k`` quarter
  turns, where one quarter turn maps ``(x, y)`` to ``(s-1-y, x)``. Each turn moves every
  quadrant to the next, so each orbit has exactly one cell in the base quadrant.

A rotation keeps Manhattan distances, so the ``g`` edges of an orbit are all within reach or
all beyond it: the moves check one representative (:func:`golf.engine.moves.try_swap`'s ``reach``).

**Files.** The competition writes each vertex as ``x,y`` (integers from 0, no spaces), one edge
per line, the two ends separated by white space. :func:`read_grid_edges` reads such a file into
coordinates (named errors with file and line), :meth:`GridEdges.graph` numbers them for a
:class:`Grid` and checks the lattice, the reach and the symmetry, :func:`write_grid_edges`
writes a graph back in that format.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from golf.errors import GolfError

__all__ = ["Grid", "GridEdges", "parse_size", "is_grid_file", "read_grid_edges",
           "format_grid_edges", "write_grid_edges", "rotation_symmetry", "symmetry_problem"]


def parse_size(text, source: str = "--grid") -> tuple[int, int]:
    """``"WxH"`` (or a ``[w, h]`` pair) as two integers >= 1."""
    if isinstance(text, (list, tuple)):
        parts = list(text)
    else:
        parts = re.split(r"[xX]", str(text).strip())
    try:
        if len(parts) != 2 or any(isinstance(p, bool) for p in parts):
            raise ValueError
        w, h = (int(p) for p in parts)
        if [w, h] != [float(p) for p in parts]:
            raise ValueError
    except (ValueError, TypeError, OverflowError):
        shown = str(text) if len(str(text)) <= 40 else str(text)[:37] + "..."
        raise GolfError(f"{source}: expected a lattice size WxH (e.g. 10x10), got "
                        f"'{shown}'") from None
    if w < 1 or h < 1:
        raise GolfError(f"{source}: the lattice size must be at least 1x1, got {w}x{h}")
    from golf.graph import MAX_ORDER

    if w * h > MAX_ORDER:
        raise GolfError(f"{source}: a {w}x{h} lattice has {w * h} cells; golf handles at most "
                        f"{MAX_ORDER} (vertex ids are 32-bit)")
    return w, h


def symmetry_problem(w: int, h: int, g: int) -> str | None:
    """Why the rotation symmetry ``g`` cannot be used on a ``w x h`` lattice (None: it can)."""
    if g not in (1, 2, 4):
        return f"g must be 1, 2 or 4 on a grid (rotation by 360/g degrees), got {g}"
    if g == 2 and (w * h) % 2:
        return (f"g=2 needs an even number of cells, {w}x{h} has {w * h}: the centre cell "
                f"of an odd lattice is its own 180-degree rotation")
    if g == 4 and (w != h or w % 2):
        return (f"g=4 needs a square lattice with an even side (90-degree turns without a "
                f"fixed centre cell), got {w}x{h}")
    return None


@dataclass(frozen=True)
class Grid:
    """A ``w x h`` lattice with reach ``r`` (0: no length limit) and rotation symmetry ``g``,
    and the numbering of its cells (see the module docstring)."""

    w: int
    h: int
    r: int = 0
    g: int = 1

    def __post_init__(self):
        if self.w < 1 or self.h < 1:
            raise GolfError(f"the lattice size must be at least 1x1, got {self.w}x{self.h}")
        if self.r < 0:
            raise GolfError(f"the edge length limit r must be >= 1 (0: none), got {self.r}")
        why = symmetry_problem(self.w, self.h, self.g)
        if why:
            raise GolfError(why)

    @property
    def n(self) -> int:
        return self.w * self.h

    @property
    def m(self) -> int:
        return self.n // self.g

    @property
    def label(self) -> str:
        return f"{self.w}x{self.h}"

    def cells(self) -> np.ndarray:
        """``(n, 2)`` int64: the cell ``(x, y)`` of every vertex."""
        n, m, w = self.n, self.m, self.w
        if self.g == 1:
            v = np.arange(n, dtype=np.int64)
            return np.stack([v % w, v // w], axis=1)
        if self.g == 2:
            i = np.arange(m, dtype=np.int64)
            idx = np.concatenate([i, n - 1 - i])
            return np.stack([idx % w, idx // w], axis=1)
        s, half = w, w // 2
        i = np.arange(m, dtype=np.int64)
        x, y = i % half, i // half
        out = []
        for _ in range(4):
            out.append(np.stack([x, y], axis=1))
            x, y = s - 1 - y, x
        return np.concatenate(out)

    def vertex_of(self) -> np.ndarray:
        """``(h, w)`` int64: the vertex of cell ``(x, y)`` at ``[y, x]``."""
        c = self.cells()
        out = np.empty((self.h, self.w), dtype=np.int64)
        out[c[:, 1], c[:, 0]] = np.arange(self.n, dtype=np.int64)
        return out

    @property
    def limit(self) -> int:
        """The length limit in force: ``r``, or for ``r = 0`` (none) the lattice's longest
        distance ``w + h - 2``."""
        return self.r or self.w + self.h - 2

    def reach(self) -> np.ndarray:
        """The int64 array the moves take (:mod:`golf.engine.moves`): ``[limit, w, h]``, then the
        cell ``x, y`` of every vertex, then the vertex of every cell in row-major order."""
        return np.concatenate([[self.limit, self.w, self.h], self.cells().ravel(),
                               self.vertex_of().ravel()]).astype(np.int64)

    def lengths(self, edges) -> np.ndarray:
        """Manhattan length of each edge ``(u, v)`` of an ``(E, 2)`` vertex-id array."""
        c = self.cells()
        e = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
        return np.abs(c[e[:, 0]] - c[e[:, 1]]).sum(axis=1)

    def coordinates(self, edges) -> np.ndarray:
        """``(E, 4)`` int64 ``x1, y1, x2, y2`` of the edges ``(u, v)``."""
        c = self.cells()
        e = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
        return np.concatenate([c[e[:, 0]], c[e[:, 1]]], axis=1)


# -- files ---------------------------------------------------------------------------------
_CELL = re.compile(r"(-?[0-9]+),(-?[0-9]+)")


def is_grid_file(path) -> bool:
    """True when the first non-blank line of an edge file writes its vertices as ``x,y``."""
    from golf.io import open_text, reading

    with reading(path), open_text(str(path)) as f:
        for raw in f:
            if raw.strip():
                return "," in raw
    return False


@dataclass
class GridEdges:
    """What :func:`read_grid_edges` found: the distinct edges as cell coordinates.

    coords : (E, 4) int64 ``x1, y1, x2, y2`` in file order (first occurrence kept)
    lines : (E,) int64, the 1-based line of each kept edge
    duplicates : ``(line, first_line, text)`` for each repeated edge (either orientation)
    size : ``(w, h)``, given, or the bounding box of the cells used
    """

    path: str
    coords: np.ndarray
    lines: np.ndarray
    size: tuple
    duplicates: list = field(default_factory=list)

    def outside(self, w: int, h: int) -> np.ndarray:
        """Indices of the edges with a cell outside the ``w x h`` lattice."""
        c = self.coords
        return np.flatnonzero((c[:, 0] >= w) | (c[:, 2] >= w) | (c[:, 1] >= h) | (c[:, 3] >= h))

    def text(self, k: int) -> str:
        return _pair_text(self.coords[k])

    def lengths(self) -> np.ndarray:
        """The Manhattan length of every edge."""
        c = self.coords
        return np.abs(c[:, 0] - c[:, 2]) + np.abs(c[:, 1] - c[:, 3])

    def graph(self, g=1, d: int | None = None, r: int = 0, size=None):
        """The edges as a :class:`golf.graph.Graph` numbered for a :class:`Grid` of this size
        (default: ``self.size``), reach ``r`` (0: unchecked) and symmetry ``g`` (1, 2, 4 or
        ``"auto"``: the largest that holds). Returns ``(graph, grid)``. Errors name the file
        and line: a cell outside the lattice, an edge longer than ``r``, a symmetry that does
        not hold, and what :meth:`golf.graph.Graph.from_edges` refuses."""
        from golf.graph import Graph, MAX_ORDER, check_rows

        w, h = size or self.size
        if w * h > MAX_ORDER:
            raise GolfError(f"{self.path}: a {w}x{h} lattice has {w * h} cells; golf handles "
                            f"at most {MAX_ORDER} (vertex ids are 32-bit)")
        out = self.outside(w, h)
        if len(out):
            k = out[0]
            raise GolfError(f"{self.path}:{self.lines[k]}: cell outside the {w}x{h} lattice "
                            f"in '{self.text(k)}' (x < {w}, y < {h}; {len(out)} such edges)")
        if r:
            length = self.lengths()
            far = np.flatnonzero(length > r)
            if len(far):
                k = far[0]
                raise GolfError(f"{self.path}:{self.lines[k]}: edge '{self.text(k)}' has length "
                                f"{length[k]} > r={r} ({len(far)} such edges)")
        if g == "auto":
            g = rotation_symmetry(self.coords, w, h)
        elif g in (2, 4):
            why = symmetry_problem(w, h, g)
            if why:
                raise GolfError(f"{self.path}: {why}")
            if not _rotation_holds(self.coords, w, h, g):
                raise GolfError(f"{self.path}: the graph is not invariant under the rotation "
                                f"by {360 // g} degrees (g={g})")
        if len(self.coords):  # before the lattice's arrays: rows no larger than the edges need
            c = self.coords
            _, deg = np.unique(np.concatenate([c[:, 1] * w + c[:, 0], c[:, 3] * w + c[:, 2]]),
                               return_counts=True)
            check_rows(w * h, int(d) if d is not None else int(deg.max()),
                       g if isinstance(g, int) and g >= 1 else 1, len(c), self.path)
        grid = Grid(w, h, r, g)
        vid = grid.vertex_of()
        c = self.coords
        e = np.stack([vid[c[:, 1], c[:, 0]], vid[c[:, 3], c[:, 2]]], axis=1)
        return Graph.from_edges(e, n=grid.n, g=g, d=d, source=self.path, lines=self.lines), grid


def _parse_cell(tok: str):
    from golf.io import int_token

    m = _CELL.fullmatch(tok)
    return (int_token(m.group(1)), int_token(m.group(2))) if m else None


def read_grid_edges(path, size=None, problems: list | None = None) -> GridEdges:
    """Read a grid edge file (``x1,y1 x2,y2`` per line; blank lines allowed; ``.gz`` read
    gzipped). ``size`` ``(w, h)`` is the lattice (default: the bounding box of the cells).

    With ``problems`` (a list), bad lines are appended to it as messages and skipped instead
    of raising (after :data:`golf.io.MAX_PROBLEMS` messages, the rest are counted in one). A
    bad line: not two ``x,y`` cells, a negative coordinate, one of
    :data:`golf.graph.MAX_ORDER` or more, a loop, or a cell outside ``size`` when it is given.

    Without ``size`` the lattice is the bounding box of the cells, which must hold at most
    :func:`golf.graph.order_limit` cells of the edge count (``2E + 1024``: E edges touch at
    most 2E cells): a cell far outside is refused, naming its line, before anything sized by
    the box is allocated. The memory of reading grows with the file, not with the values in
    it. A truncated, corrupt or mislabelled ``.gz`` file is a GolfError naming the file."""
    from golf.graph import MAX_ORDER, SPARE_VERTICES, order_limit
    from golf.io import BadLines, shorten, shown_int, repeated_edges, text_lines

    path = str(path)
    rows, lines = [], []
    bad = BadLines(path, problems)
    for lineno, parts, shown, where in text_lines(path):
        if len(parts) != 2:
            bad(f"{where}: expected 2 cells 'x1,y1 x2,y2', found {len(parts)} fields: "
                f"'{shown}'")
            continue
        a, b = _parse_cell(parts[0]), _parse_cell(parts[1])
        if a is None or b is None:
            tok = parts[0] if a is None else parts[1]
            bad(f"{where}: expected a cell 'x,y' (two integers, no spaces), found "
                f"'{shorten(tok, 30)}' in '{shown}'")
            continue
        if min(a + b) < 0:
            bad(f"{where}: negative coordinate in '{shown}' (cells start at 0,0)")
            continue
        if max(a + b) >= MAX_ORDER:
            k = (a + b).index(max(a + b))
            tok = re.split(",", parts[k // 2])[k % 2]
            bad(f"{where}: coordinate {shown_int(tok, max(a + b))} is too large in "
                f"'{shown}': expected coordinates < {MAX_ORDER} (golf holds vertex ids as "
                f"32-bit integers)")
            continue
        if size is not None and (max(a[0], b[0]) >= size[0] or max(a[1], b[1]) >= size[1]):
            bad(f"{where}: cell outside the {size[0]}x{size[1]} lattice in '{shown}' "
                f"(x < {size[0]}, y < {size[1]})")
            continue
        if a == b:
            bad(f"{where}: self-loop '{shown}' (an edge needs two distinct cells)")
            continue
        rows.append(a + b)
        lines.append(lineno)
    bad.close()
    coords = np.array(rows, dtype=np.int64).reshape(-1, 4)
    lines = np.array(lines, dtype=np.int64)
    if size is None:
        size = ((int(max(coords[:, 0].max(), coords[:, 2].max())) + 1,
                 int(max(coords[:, 1].max(), coords[:, 3].max())) + 1) if len(coords) else (1, 1))
        limit = order_limit(len(coords))
        if size[0] * size[1] > limit:
            k = int(np.argmax(coords.max(axis=1)))
            raise GolfError(
                f"{path}:{lines[k]}: cell in '{_pair_text(coords[k])}' makes the bounding box "
                f"{size[0]}x{size[1]} = {size[0] * size[1]} cells, too many for {len(coords)} "
                f"edges: expected at most {limit} cells ({len(coords)} edges touch at most "
                f"{2 * len(coords)} cells, and at most {SPARE_VERTICES} more may have no edge); "
                f"give the lattice with --grid WxH")
    w, h = size
    keep, repeats = repeated_edges(np.stack([coords[:, 1] * w + coords[:, 0],
                                             coords[:, 3] * w + coords[:, 2]], axis=1))
    duplicates = sorted((int(lines[k]), int(lines[k0]), _pair_text(coords[k]))
                        for k, k0 in repeats)
    return GridEdges(path, coords[keep], lines[keep], (int(w), int(h)), duplicates)


def _pair_text(c) -> str:
    """An edge ``x1, y1, x2, y2`` as the file writes it."""
    x1, y1, x2, y2 = (int(t) for t in c)
    return f"{x1},{y1} {x2},{y2}"


def _rotate(coords, w, h, quarter_turns):
    """The edges' cells turned by 180 degrees (2) or one quarter turn (1, square lattices)."""
    c = coords.copy()
    if quarter_turns == 2:
        c[:, [0, 2]] = w - 1 - coords[:, [0, 2]]
        c[:, [1, 3]] = h - 1 - coords[:, [1, 3]]
    else:
        c[:, [0, 2]] = w - 1 - coords[:, [1, 3]]
        c[:, [1, 3]] = coords[:, [0, 2]]
    return c


def _edge_keys(coords, w, h):
    u = coords[:, 1] * w + coords[:, 0]
    v = coords[:, 3] * w + coords[:, 2]
    return np.sort(np.minimum(u, v) * (w * h) + np.maximum(u, v))


def _rotation_holds(coords, w, h, g) -> bool:
    keys = _edge_keys(coords, w, h)
    return np.array_equal(keys, _edge_keys(_rotate(coords, w, h, 4 // g), w, h))


def rotation_symmetry(coords, w: int, h: int) -> int:
    """The largest ``g`` in (4, 2, 1) under whose rotation the edges (``(E, 4)`` cells) are
    invariant and that the lattice allows."""
    for g in (4, 2):
        if symmetry_problem(w, h, g) is None and _rotation_holds(coords, w, h, g):
            return g
    return 1


def format_grid_edges(graph, grid: Grid) -> bytes:
    """A grid graph's edges as the bytes of a competition file: ``x1,y1 x2,y2`` per line,
    sorted by the first cell's row-major index, then the second's."""
    c = grid.coordinates(graph.edges())
    a = c[:, 1] * grid.w + c[:, 0]
    b = c[:, 3] * grid.w + c[:, 2]
    swap = a > b
    c[swap] = c[swap][:, [2, 3, 0, 1]]
    a, b = np.minimum(a, b), np.maximum(a, b)
    c = c[np.lexsort((b, a))]
    return "".join(f"{x1},{y1} {x2},{y2}\n" for x1, y1, x2, y2 in c.tolist()).encode()


def write_grid_edges(path, graph, grid: Grid) -> None:
    """Write a grid graph in the competition's grid format, atomically (``.gz``: gzipped)."""
    from golf.io import atomic_write

    atomic_write(path, format_grid_edges(graph, grid))
