"""Host-switch graphs in the file format of mnakao's ORP library (the Order/Radix Problem).

The format::

    hosts switches radix
    u v
    u v
    ...

The first line holds three integers: ``n`` hosts, ``s`` switches and the radix ``r``. Hosts
are ``0 .. n-1`` and switches ``n .. n+s-1``; every other line is one edge, two vertex ids
separated by white space. Blank lines are allowed; a name ending in ``.gz`` is read and
written gzipped. The rules of the graph are those of :mod:`golf.hostswitch.network`.

**Telling it from an edge list.** A Graph Golf edge list has two ids on every line, a grid
file two cells ``x,y``; an ORP file's first non-blank line has three. :func:`is_orp_file`
reads that one line: three whitespace-separated integers, each at least 1 (a header that can
be valid), mean ORP. Any other first line is no ORP header; an edge list's reader then takes
the file, and refuses a first line of three columns as such (``0 1 2``, say).

Reading names the file, the line and the value of every broken rule
(:func:`read_host_switch` raises the first, :func:`check_host_switch` lists them all), and
nothing read is allocated by a number of the header beyond what the edges can use. Writing
is atomic (:func:`golf.io.atomic_write`).
"""

from __future__ import annotations

import numpy as np

from golf.errors import GolfError
from golf.hostswitch.network import HostSwitchGraph, Problems, check_wiring

__all__ = ["is_orp_file", "read_host_switch", "check_host_switch", "write_host_switch",
           "format_host_switch"]


def is_orp_file(path) -> bool:
    """True when the first non-blank line of ``path`` holds three integers, each at least 1
    (the header ``hosts switches radix`` of the ORP format); False for an empty file."""
    from golf.io import INT_TOKEN, int_token, open_text, reading

    with reading(path), open_text(str(path)) as f:
        for raw in f:
            parts = raw.split()
            if parts:
                return (len(parts) == 3 and all(INT_TOKEN.fullmatch(t) for t in parts)
                        and all(int_token(t) >= 1 for t in parts))
    return False


def _header(path: str, lines):
    """``(n, s, r)`` from the first non-blank line, or a GolfError naming it."""
    from golf.graph import MAX_ORDER
    from golf.io import INT_TOKEN, int_token

    for _, parts, shown, where in lines:
        if len(parts) != 3 or not all(INT_TOKEN.fullmatch(t) for t in parts):
            raise GolfError(f"{where}: expected the header 'hosts switches radix' (three "
                            f"integers) of a host-switch file, found '{shown}'")
        n, s, r = (int_token(t) for t in parts)
        for name, value in (("the number of hosts", n), ("the number of switches", s),
                            ("the radix", r)):
            if value < 1:
                raise GolfError(f"{where}: {name} must be >= 1, got {value} in the header "
                                f"'{shown}'")
        if n + s > MAX_ORDER:
            raise GolfError(f"{where}: hosts + switches = {n + s} in the header '{shown}' "
                            f"is above the largest order golf handles, {MAX_ORDER}")
        return n, s, r
    raise GolfError(f"{path}: empty: expected the header 'hosts switches radix' (three "
                    f"integers) of a host-switch file")


def _parse(path: str, problems: Problems):
    """The header and the edges of a host-switch file: ``(n, s, r, edges, lines)``. A bad
    line (not two non-negative integers) goes to ``problems`` and is skipped."""
    from golf.io import INT_TOKEN, int_token, shorten, shown_int, text_lines

    lines = text_lines(path)
    n, s, r = _header(path, lines)
    us, vs, ls = [], [], []
    for lineno, parts, shown, where in lines:
        if len(parts) != 2:
            problems(lineno, "malformed lines", f"{where}: expected 2 columns 'u v' (an "
                     f"edge), found {len(parts)}: '{shown}'")
            continue
        bad = [t for t in parts if not INT_TOKEN.fullmatch(t)]
        if bad:
            problems(lineno, "malformed lines", f"{where}: expected an integer vertex id, "
                     f"found '{shorten(bad[0], 30)}' in '{shown}'")
            continue
        a, b = (int_token(t) for t in parts)
        if min(a, b) < 0:
            k = 0 if a < 0 else 1
            problems(lineno, "malformed lines", f"{where}: negative vertex id "
                     f"{shown_int(parts[k], min(a, b))} in '{shown}' (ids start at 0)")
            continue
        if max(a, b) >= n + s:
            k = 0 if a >= b else 1
            problems(lineno, "ids out of range", f"{where}: vertex id "
                     f"{shown_int(parts[k], max(a, b))} out of range in '{shown}': expected "
                     f"ids < n+s = {n + s} (hosts 0..{n - 1}, switches {n}..{n + s - 1})")
            continue
        us.append(a)
        vs.append(b)
        ls.append(lineno)
    edges = np.array([us, vs], dtype=np.int64).T.reshape(-1, 2)
    return n, s, r, edges, np.array(ls, dtype=np.int64)


def check_host_switch(path) -> tuple[list[str], HostSwitchGraph | None]:
    """Every broken rule of a host-switch file, and the graph when there is none.

    Returns
    -------
    messages : list of str
        One a problem, ``file:line: ...`` (a problem of the whole file names the file only),
        by line; at most :data:`golf.hostswitch.network.SHOWN_PER_KIND` of a kind, the rest
        counted in one more message.
    graph : HostSwitchGraph or None
        None when a rule is broken.

    Raises
    ------
    GolfError
        For a file that cannot be read or whose header is not ``hosts switches radix``.
    """
    path = str(path)
    problems = Problems(path)
    n, s, r, edges, lines = _parse(path, problems)
    found = check_wiring(n, s, r, edges, lines, problems)
    if found is None:
        return problems.messages(), None
    return [], HostSwitchGraph.from_wiring(n, s, r, *found)


def read_host_switch(path, duplicates: list | None = None) -> HostSwitchGraph:
    """Read a host-switch graph in ORP's format (module docstring).

    Parameters
    ----------
    path : str or Path
    duplicates : list, optional
        Without it a repeated edge is an error. With it, each repeat is appended to it as
        ``(line, first_line, u, v)`` and left out (the distances do not change; ORP's own
        sample graphs repeat some switch-switch edges). A repeated line still takes a port:
        it counts against the radix either way.

    Returns
    -------
    HostSwitchGraph

    Raises
    ------
    GolfError
        For a missing or unreadable file, a header that is not three integers >= 1, or the
        first broken rule by line: a malformed line, an id out of range, a self-loop, a
        host-host edge, a host's second edge, a switch with more than ``r`` edges, a host
        without an edge, a duplicate edge (without ``duplicates``). The message names the
        file, the line and the value, and counts the other problems (``golf validate``
        lists them).

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "h4s2r3.edges")
    >>> _ = open(path, "w").write("4 2 3\\n0 4\\n1 4\\n2 5\\n3 5\\n4 5\\n")
    >>> read_host_switch(path)
    HostSwitchGraph(n=4, s=2, r=3, switch_edges=1)
    """
    path = str(path)
    problems = Problems(path)
    n, s, r, edges, lines = _parse(path, problems)
    found = check_wiring(n, s, r, edges, lines, problems, duplicates)
    problems.raise_first()
    return HostSwitchGraph.from_wiring(n, s, r, *found)


def format_host_switch(net: HostSwitchGraph) -> bytes:
    """The bytes of ``net`` in ORP's format: the header, the host edges ``host switch`` by
    host, then the switch edges ``a b`` (``a < b``), sorted."""
    from golf.io import format_edges

    return f"{net.n} {net.s} {net.r}\n".encode() + format_edges(net.edges())


def write_host_switch(path, net: HostSwitchGraph) -> None:
    """Write ``net`` to ``path`` in ORP's format (:func:`format_host_switch`), atomically:
    a reader sees the old file or the new one, never a part (``.gz``: gzipped).

    Raises
    ------
    GolfError
        If ``net`` breaks a rule (:meth:`HostSwitchGraph.check`); nothing is written then.
    """
    from golf.io import atomic_write

    net.check()
    atomic_write(path, format_host_switch(net))
