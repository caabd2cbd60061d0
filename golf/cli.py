"""The ``golf`` command.

Every subcommand turns bad input into one line on stderr (``golf: error: ...``) and a non-zero
exit code; tracebacks are for bugs only. Heavy modules (Numba kernels, SciPy) are imported inside
the subcommands that need them, so ``golf bounds`` answers at once.

A reader that goes away (``golf bounds 256 8 | head -1``) ends golf quietly with exit code 141,
what a shell reports for a program killed by SIGPIPE (128 + 13): nothing on stderr, and
``set -o pipefail`` still sees that the output was cut short.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from golf.errors import AgreedError, GolfError, Interrupted

__all__ = ["main"]

EXIT_ERROR = 2  # bad input or failed check
EXIT_INTERRUPT = 130
EXIT_PIPE = 141  # stdout's reader went away: 128 + SIGPIPE, as a shell reports it


def _int_at_least(lo: int):
    """An argparse type: a whole number >= lo, with a clear message otherwise."""
    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got '{text}'") from None
        if v < lo:
            raise argparse.ArgumentTypeError(f"expected a number >= {lo}, got {v}")
        return v

    return parse


_positive_int = _int_at_least(1)
_nonneg_int = _int_at_least(0)


def _size(text: str):
    """An argparse type: a lattice size ``WxH``."""
    from golf.grid import parse_size

    try:
        return parse_size(text)
    except GolfError as exc:
        raise argparse.ArgumentTypeError(str(exc).replace("--grid: ", "")) from None


def _g_value(text: str):
    return "auto" if text == "auto" else _positive_int(text)


def _say(msg: str = "", quiet: bool = False) -> None:
    if not quiet:
        print(msg, flush=True)


def _warn(msg: str) -> None:
    print(f"golf: warning: {msg}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------------------------------
def load_graph(path: str, g=1, n: int | None = None, d: int | None = None,
               warn=_warn, group=None):
    """Read an edge list into a Graph (``group``: a symmetry group of order ``g`` that must
    hold, :mod:`golf.group`); duplicates are dropped with a warning."""
    from golf.io import read_edges

    el = read_edges(path)
    for line, first, u, v in el.duplicates[:5]:
        warn(f"{path}:{line}: duplicate edge '{u} {v}' (first on line {first}); ignored")
    if len(el.duplicates) > 5:
        warn(f"{path}: {len(el.duplicates) - 5} more duplicate edges ignored")
    return el.graph(n=n, g=g, d=d, group=group)


def _group(text, g, option="--group"):
    """``--group A,R`` for symmetry order ``g``: the group Z_A ⋊_R Z_(g/A), or None."""
    from golf.group import parse_group

    if text is None:
        return None
    try:
        spec = [int(x) for x in text.split(",")]
    except ValueError:
        raise GolfError(f"{option}: expected A,R (the group Z_A ⋊_R Z_(g/A)), got {text!r}")
    return parse_group(spec, g, option)


def load_grid(path: str, size=None, g=1, d: int | None = None, r: int | None = None,
              warn=_warn):
    """Read a grid edge file (cells ``x,y``) into ``(graph, grid)``: numbered for the
    symmetry ``g`` (or the largest that holds, ``"auto"``), on a lattice of ``size`` (default:
    the bounding box of the cells); duplicates are dropped with a warning."""
    from golf.grid import read_grid_edges

    ge = read_grid_edges(path, size=size)
    for line, first, text in ge.duplicates[:5]:
        warn(f"{path}:{line}: duplicate edge '{text}' (first on line {first}); ignored")
    if len(ge.duplicates) > 5:
        warn(f"{path}: {len(ge.duplicates) - 5} more duplicate edges ignored")
    return ge.graph(g=g, d=d, r=r or 0)


def _is_grid(args) -> bool:
    """``--grid`` given, or a file that writes its vertices as cells ``x,y``."""
    from golf.grid import is_grid_file

    return args.grid is not None or is_grid_file(args.file)


def _backend_options(args) -> dict:
    """The evaluator options of ``golf eval``: --threads, --chunk-words and every --opt."""
    from golf.config import parse_overrides

    options = parse_overrides(args.opt) if args.opt else {}
    nested = [k for k, v in options.items() if isinstance(v, dict)]
    if nested:
        raise GolfError(f"--opt {nested[0]}...: expected KEY=VALUE with a backend option as "
                        f"KEY, e.g. --opt chunk_words=8")
    if args.threads:
        options["threads"] = args.threads
    if args.chunk_words:
        options["chunk_words"] = args.chunk_words
    return options


def _is_host_switch(args) -> bool:
    """``--host-switch`` given, or a file whose first line is ORP's header ``hosts switches
    radix`` (:func:`golf.hostswitch.orp_format.is_orp_file`; never with ``--grid``)."""
    from golf.hostswitch.orp_format import is_orp_file

    return args.host_switch or (args.grid is None and is_orp_file(args.file))


def _refuse_for_host_switch(args, options) -> None:
    """A GolfError for the first of ``options`` (names of ``args``' attributes) given with a
    host-switch file: they describe graphs of vertex ids or cells."""
    from golf.evaluators import names

    scorers = names("host-switch")
    defaults = {"g": 1, "backend": "auto"}
    for name in options:
        value = getattr(args, name, None)
        if name == "backend" and value in scorers:
            continue
        if value is not None and value != defaults.get(name) and value != []:
            flag = "--" + name.replace("_", "-")
            if name == "backend":
                raise GolfError(f"--backend {value}: {args.file} is a host-switch graph, "
                                f"scored by golf's host-switch scorers, the bit matrix over "
                                f"the switches weighted by host counts: --backend "
                                f"{' or '.join(scorers)} (bfs: a BFS a switch; gpu-bitset: "
                                f"golf.evaluators.h_gpu_bitset), or leave --backend out")
            raise GolfError(f"{flag}: does not apply to the host-switch graph {args.file} "
                            f"(hosts, switches and radix come from its first line)")


def load_host_switch(path: str, warn=_warn):
    """Read a host-switch file (mnakao's ORP format) into a
    :class:`golf.hostswitch.HostSwitchGraph`; repeated edges are left out with a warning
    (they still count against the radix)."""
    from golf.hostswitch.orp_format import read_host_switch

    duplicates: list = []
    net = read_host_switch(path, duplicates=duplicates)
    for line, first, u, v in duplicates[:5]:
        warn(f"{path}:{line}: duplicate edge '{u} {v}' (first on line {first}); ignored")
    if len(duplicates) > 5:
        warn(f"{path}: {len(duplicates) - 5} more duplicate edges ignored")
    return net


def _eval_host_switch(args) -> int:
    """``golf eval`` of a host-switch file: the h-values (host pairs only) and the bounds of
    the Order/Radix problem."""
    from golf.hostswitch.radix_bounds import host_switch_bounds

    _refuse_for_host_switch(args, ["group", "n", "d", "grid", "r", "backend", "chunk_words",
                                   "opt"])
    net = load_host_switch(args.file)
    from golf.evaluators import host_switch_scorer

    g = args.g
    if g != 1:
        scorer, backend, why, g = _rotated_scorer(args, net)
    else:
        scorer, backend, why = host_switch_scorer(net, args.backend or "auto",
                                                  threads=args.threads)
    comm = args.comm
    rank0 = comm is None or comm.rank == 0
    if args.explain and rank0 and g != 1:
        print(f"host-switch scorer {backend}: one BFS from each switch with hosts among the "
              f"first {net.s // g} of {net.s}, counted {g} times; {why}", file=sys.stderr)
    elif args.explain and rank0:
        print(f"host-switch scorer {backend}: the bit matrix over the {net.s} switches, a "
              f"column for each of the {int((net.host_counts > 0).sum())} that hold hosts, "
              f"the level sums weighted by host counts ("
              + ("golf.evaluators.h_scoring.h_score)" if backend == "h-bitset" else
                 f"the search's evaluator {backend})") + f"; {why}", file=sys.stderr)
    t0 = time.perf_counter()
    score = scorer()
    seconds = time.perf_counter() - t0
    if args.repeat:
        t0 = time.perf_counter()
        for _ in range(args.repeat):
            score = scorer()
        seconds = (time.perf_counter() - t0) / args.repeat
    if not rank0:
        return 0
    b = host_switch_bounds(net.n, net.r)
    connected = score.connected
    out = {
        "file": args.file, "kind": "host-switch",
        "hosts": net.n, "switches": net.s, "radix": net.r,
        "edges": net.num_edges, "switch_edges": net.switches.num_edges,
        "max_ports": int(net.ports_used.max()),
        "diameter": score.diameter, "total": score.total,
        "aspl": score.aspl if connected else None,
        "connected": connected, "peripheral": score.peripheral,
        "diameter_bound": b.diameter,
        "aspl_bound": float(b.aspl) if b.aspl is not None else None,
        "aspl_bound_fraction": str(b.aspl) if b.aspl is not None else None,
        "diameter_gap": score.diameter - b.diameter if connected else None,
        "aspl_gap": score.aspl - float(b.aspl) if connected else None,
        "backend": backend, "g": g, "seconds": seconds, "repeat": args.repeat,
    }
    if args.json:
        print(json.dumps(out))
        return 0
    print(format_host_switch_table(out))
    return 0


def _rotated_scorer(args, net):
    """``(score, its name, why, g)`` of ``golf eval --g G`` on a host-switch file: the turn of
    the switches by ``s / G`` must hold (``auto``: the largest that does), and one BFS from
    each switch with hosts among the first ``s / G`` scores the graph
    (:func:`golf.evaluators.h_scoring.rotated_score`); a GolfError names the file and what
    breaks the symmetry."""
    from golf.evaluators.h_scoring import largest_rotation, rotated_score, rotation_fault

    if args.backend not in (None, "auto"):
        raise GolfError(f"--backend {args.backend} with --g {args.g}: {args.file}'s symmetric "
                        f"h-scores come from one BFS a switch of an orbit; leave --backend out")
    g = largest_rotation(net) if args.g == "auto" else args.g
    fault = rotation_fault(net, g)
    if fault is not None:
        raise GolfError(f"--g {g}: {args.file}: no symmetry of order {g} turns its switches "
                        f"(switch a to a + s/g): {fault}")
    why = (f"the switches turned by {net.s // g} (s / g) map the graph onto itself, hosts "
           f"with their switches ({'the largest such g' if args.g == 'auto' else 'asked for'})")
    return (lambda: rotated_score(net, g)), f"h-bfs, g={g}", why, g


def format_host_switch_table(o: dict) -> str:
    """``golf eval``'s text for a host-switch graph (the keys of its JSON)."""
    lines = [
        f"file          {o['file']}",
        f"host-switch   {o['hosts']} hosts, {o['switches']} switches, radix {o['radix']} "
        f"(at most {o['max_ports']} ports used)",
        f"edges         {o['edges']} ({o['hosts']} host, {o['switch_edges']} switch-switch)",
    ]
    if o["connected"]:
        lines += [
            f"h-diameter    {o['diameter']}   bound {o['diameter_bound']}   gap "
            f"{o['diameter_gap']}",
            f"h-total       {o['total']}",
            f"h-ASPL        {o['aspl']:.10f}   bound {o['aspl_bound']:.10f} "
            f"({o['aspl_bound_fraction']})   gap {o['aspl_gap']:.10f}",
        ]
    else:
        lines += ["h-diameter    inf   (hosts disconnected)",
                  "h-ASPL        inf   (hosts disconnected)"]
    timing = f"{o['seconds']:.6g}" + (f" (mean of {o['repeat']} after a warm-up)"
                                       if o["repeat"] else "")
    lines += [f"scorer        {o['backend']}", f"seconds       {timing}"]
    return "\n".join(lines)


def cmd_eval(args) -> int:
    from golf.lower_bounds import grid_bounds, moore_bounds
    from golf.evaluators import make_evaluator

    if _is_host_switch(args):
        return _eval_host_switch(args)
    grid = None
    if _is_grid(args):
        if args.n is not None:
            raise GolfError("--n: a grid's vertex count is w*h; give the lattice with --grid WxH")
        graph, grid = load_grid(args.file, size=args.grid, g=args.g, d=args.d, r=args.r)
    else:
        if args.r is not None:
            raise GolfError(f"--r: {args.file} holds vertex ids, not grid cells 'x,y' (--grid "
                            f"WxH reads it as a grid)")
        graph = load_graph(args.file, g=args.g, n=args.n, d=args.d,
                           group=_group(args.group, args.g))
    n, g = graph.n, graph.g
    d = args.d if args.d is not None else graph.max_degree
    comm = args.comm  # under mpiexec: split the work units over the ranks
    ev = make_evaluator(args.backend, n, graph.d, g, comm=comm, symmetry=graph.group,
                        **_backend_options(args))
    rank0 = comm is None or comm.rank == 0
    if args.explain and rank0:
        print(f"auto chose {ev.auto_reason}" if ev.auto_reason else
              f"backend {ev.name} (chosen by --backend)", file=sys.stderr)
        if ev.dropped_options:
            print(f"options not taken by {ev.name}, left out: "
                  f"{', '.join(ev.dropped_options)}", file=sys.stderr)
        print(ev.describe(), file=sys.stderr)
    t0 = time.perf_counter()
    score = ev.evaluate(graph)
    seconds = time.perf_counter() - t0
    if args.repeat:
        t0 = time.perf_counter()
        for _ in range(args.repeat):
            score = ev.evaluate(graph)
        seconds = (time.perf_counter() - t0) / args.repeat
    if not rank0:
        return 0
    out = {"file": args.file}
    if grid is None:
        b = moore_bounds(n, d)
    else:
        longest = int(grid.lengths(graph.edges()).max()) if graph.num_edges else 0
        r = args.r if args.r is not None else max(longest, 1)
        b = grid_bounds(grid.w, grid.h, d, r)
        out.update(grid=[grid.w, grid.h], r=r, r_given=args.r is not None, longest_edge=longest)
    out.update({
        "n": n, "d": d, "g": g, "edges": graph.num_edges,
        "diameter": score.diameter, "total": score.total,
        "aspl": None if not score.connected else score.aspl,
        "connected": score.connected, "peripheral": score.peripheral,
        "diameter_bound": b.diameter,
        "aspl_bound": float(b.aspl) if b.aspl is not None else None,
        "aspl_bound_fraction": str(b.aspl) if b.aspl is not None else None,
        "diameter_gap": (score.diameter - b.diameter)
        if score.connected and b.diameter is not None else None,
        "aspl_gap": (score.aspl - float(b.aspl)) if score.connected and b.aspl is not None
        else None,
        "backend": ev.name, "seconds": seconds, "repeat": args.repeat,
        "ranks": comm.size if comm is not None else 1,
    })
    if args.json:
        print(json.dumps(out))
        return 0
    print(format_score_table(out, graph.max_degree))
    return 0


def format_score_table(o: dict, max_degree: int) -> str:
    def fmt(x, spec):
        return "-" if x is None else format(x, spec)

    lines = [f"file          {o['file']}"]
    if "grid" in o:
        lines.append(f"grid          {o['grid'][0]}x{o['grid'][1]}, longest edge "
                     f"{o['longest_edge']}, bounds for r = {o['r']}"
                     + ("" if o["r_given"] else " (the longest edge; --r sets it)"))
    lines += [
        f"n             {o['n']}",
        f"max degree    {max_degree}   (d = {o['d']})",
        f"g             {o['g']}",
        f"edges         {o['edges']}",
    ]
    if o["connected"]:
        lines += [
            f"diameter      {o['diameter']}   bound {fmt(o['diameter_bound'], 'd')}   "
            f"gap {fmt(o['diameter_gap'], 'd')}",
            f"total         {o['total']}",
            f"ASPL          {o['aspl']:.10f}   bound {fmt(o['aspl_bound'], '.10f')} "
            f"({o['aspl_bound_fraction']})   gap {fmt(o['aspl_gap'], '.10f')}",
        ]
    else:
        lines += ["diameter      inf   (disconnected)", "ASPL          inf   (disconnected)"]
    timing = f"{o['seconds']:.6g}" + (f" (mean of {o['repeat']} after a warm-up)"
                                       if o["repeat"] else "")
    lines += [f"backend       {o['backend']}", f"seconds       {timing}"]
    return "\n".join(lines)


def _capped(problems: list, where, found, message, what: str, limit: int = 10) -> None:
    """Append ``message(k)`` for the first ``limit`` of the indices ``found``, and one line
    ``<where>: <count> more <what>`` for the rest."""
    problems.extend(message(k) for k in found[:limit])
    if len(found) > limit:
        problems.append(f"{where}: {len(found) - limit} more {what}")


def _id_edges(args, problems: list):
    """``golf validate`` of a file of vertex ids: its edges with ids < n, the vertex count,
    the name of a vertex, and the ends of the duplicate lines."""
    import numpy as np

    from golf.io import read_edges

    if args.n is None:
        raise GolfError("validate: give --n N (or --grid WxH and --r R for a grid file)")
    if args.r is not None:
        raise GolfError(f"--r: {args.file} holds vertex ids, not grid cells 'x,y' (--grid WxH "
                        f"reads it as a grid)")
    el = read_edges(args.file, problems=problems)
    e, n = el.edges, args.n
    for line, first, u, v in el.duplicates:
        problems.append(f"{args.file}:{line}: duplicate edge '{u} {v}' (first on line {first})")
    if len(e):
        big = np.flatnonzero(e.max(axis=1) >= n)
        _capped(problems, args.file, big, lambda k: f"{args.file}:{el.lines[k]}: vertex id "
                f"{e[k].max()} >= n={n} in '{e[k, 0]} {e[k, 1]}'", f"edges with ids >= n={n}")
        e = e[e.max(axis=1) < n]
    ends = [(u, v) for _, _, u, v in el.duplicates if u < n and v < n]
    return e, n, (lambda v: f"vertex {v}"), ends, f"n={n}"


def _grid_edges(args, problems: list):
    """``golf validate`` of a grid file: its edges inside the lattice as row-major cell ids,
    and the rest as :func:`_id_edges` returns; an edge longer than ``r`` is a problem."""
    import numpy as np

    from golf.grid import read_grid_edges

    if args.grid is None or args.r is None:
        raise GolfError(f"validate: {args.file} holds grid cells 'x,y': give the lattice and "
                        f"the longest edge allowed with --grid WxH --r R")
    if args.n is not None:
        raise GolfError("--n: a grid's vertex count is w*h; --grid WxH gives the lattice")
    (w, h), r = args.grid, args.r
    ge = read_grid_edges(args.file, size=(w, h), problems=problems)
    for line, first, text in ge.duplicates:
        problems.append(f"{args.file}:{line}: duplicate edge '{text}' (first on line {first})")
    c, length = ge.coords, ge.lengths()
    far = np.flatnonzero(length > r)
    _capped(problems, args.file, far, lambda k: f"{args.file}:{ge.lines[k]}: edge "
            f"'{ge.text(k)}' has length {length[k]} > r={r}", f"edges longer than r={r}")
    e = np.stack([c[:, 1] * w + c[:, 0], c[:, 3] * w + c[:, 2]], axis=1)
    # a duplicate line repeats the edge of its first line (ge.lines ascends)
    ends = e[np.searchsorted(ge.lines, [first for _, first, _ in ge.duplicates])]
    return e, w * h, (lambda v: f"cell {v % w},{v // w}"), ends, f"{w}x{h} r={r}"


def cmd_validate(args) -> int:
    """``golf validate``: every problem of the file, one a line, then a verdict. Memory grows
    with the file's edges, not with ``--n`` or the lattice: degrees and connectivity are
    computed on the vertices the edges touch."""
    import numpy as np

    from golf.kernels.reach import reached_from

    if _is_host_switch(args):
        return _validate_host_switch(args)
    if args.d is None:
        args.validate_parser.error("the following arguments are required: --d")
    problems: list[str] = []
    e, n, name, dup_ends, shape = (_grid_edges if _is_grid(args) else _id_edges)(args, problems)
    d = args.d
    # duplicates count against the degree too: the competition counts every line
    ends = np.concatenate([e.ravel(), np.asarray(dup_ends, dtype=np.int64).ravel()])
    touched, deg = np.unique(ends, return_counts=True)
    over = np.flatnonzero(deg > d)
    _capped(problems, args.file, over, lambda k: f"{args.file}: {name(touched[k])} has degree "
            f"{deg[k]} > d={d}", f"vertices with degree > d={d}")
    missing = n - len(touched)
    reached = n
    if n > 1:
        # BFS from vertex 0 over the touched vertices only (numbered by np.unique)
        ids, local = np.unique(e.ravel(), return_inverse=True)
        if len(ids) and ids[0] == 0:
            local = local.reshape(-1, 2)
            u = np.concatenate([local[:, 0], local[:, 1]])
            v = np.concatenate([local[:, 1], local[:, 0]])
            order = np.argsort(u, kind="stable")
            indptr = np.zeros(int(local.max()) + 2, dtype=np.int64)
            np.cumsum(np.bincount(u, minlength=len(indptr) - 1), out=indptr[1:])
            reached = int(reached_from(indptr, v[order].astype(np.int64), 0))
        else:
            reached = 1
    if reached < n:
        extra = f" ({missing} vertices have no edge at all)" if missing else ""
        problems.append(f"{args.file}: disconnected: {name(0)} reaches {reached} of n={n} "
                        f"vertices{extra}")
    if problems:
        return _invalid(args.file, problems)
    top = int(deg.max()) if len(deg) else 0
    print(f"{args.file}: valid: {shape}, {len(e)} edges, max degree {top} <= d={d}, "
          f"simple, connected")
    return 0


def _invalid(path, problems: list) -> int:
    """Print every problem of ``golf validate`` and the verdict (stderr); the exit code."""
    for p in problems:
        print(p, file=sys.stderr)
    print(f"golf: {path}: INVALID ({len(problems)} problem{'s' if len(problems) != 1 else ''})",
          file=sys.stderr)
    return EXIT_ERROR


def _validate_host_switch(args) -> int:
    """``golf validate`` of a host-switch file: every broken rule (with the file and the
    line), then whether the hosts reach each other."""
    from golf.evaluators.h_scoring import hosts_reached
    from golf.hostswitch.orp_format import check_host_switch

    _refuse_for_host_switch(args, ["n", "d", "grid", "r"])
    problems, net = check_host_switch(args.file)
    if net is not None:
        reached = hosts_reached(net)
        if reached < net.n:
            problems.append(f"{args.file}: disconnected: host 0 (on switch "
                            f"{net.host_switch[0] + net.n}) reaches {reached} of the n={net.n} "
                            f"hosts")
    if problems:
        return _invalid(args.file, problems)
    print(f"{args.file}: valid host-switch graph: {net.n} hosts, {net.s} switches, radix "
          f"{net.r}, {net.num_edges} edges; every host on one switch, at most "
          f"{int(net.ports_used.max())} <= r={net.r} edges a switch, simple, hosts connected")
    return 0


def _two_numbers(args, parser) -> list[int]:
    """The two positional numbers of ``bounds`` and ``chase``: ``n d``, or with ``--grid``
    ``D R``. They stay text until ``--grid`` says what they are; a missing or bad one is a
    usage error of ``parser``, worded as argparse words it."""
    names = ("D", "R") if args.grid is not None else ("n", "d")
    kinds = (_nonneg_int, _positive_int) if args.grid is not None else (_positive_int,
                                                                         _nonneg_int)
    if getattr(args, "host_switch", False):
        if args.grid is not None:
            parser.error("--host-switch and --grid: a host-switch problem has no lattice; "
                         "give one of them")
        names, kinds = ("N", "R"), (_positive_int, _positive_int)
    missing = [name for name, text in zip(names, (args.n, args.d)) if text is None]
    if missing:
        parser.error(f"the following arguments are required: {', '.join(missing)}")
    values = []
    for name, kind, text in zip(names, kinds, (args.n, args.d)):
        try:
            values.append(kind(text))
        except argparse.ArgumentTypeError as exc:
            parser.error(f"argument {name}: {exc}")
    return values


def cmd_bounds(args) -> int:
    """``golf bounds N D`` (Moore bounds) or ``golf bounds --grid WxH D R`` (lattice bounds).

    The two numbers stay text until here, where ``--grid`` says what they are; a missing or bad
    one is a usage error of the bounds parser, worded as argparse words it.
    """
    from golf.lower_bounds import grid_bounds, moore_bounds

    values = _two_numbers(args, args.bounds_parser)
    if args.host_switch:
        return _host_switch_bounds(args, *values)
    if args.grid is not None:
        from golf.grid import parse_size

        w, h = parse_size(args.grid)
        d, r = values
        b = grid_bounds(w, h, d, r)
        label = f"grid {w}x{h} d={d} r={r} (n={b.n})"
    else:
        b = moore_bounds(*values)
        label = f"n={b.n} d={b.d}"
    if args.json:
        print(json.dumps(b.as_dict()))
    elif b.diameter is None:
        print(f"{label}: no connected graph exists")
    else:
        print(f"{label}\ndiameter >= {b.diameter}\n"
              f"ASPL     >= {float(b.aspl):.10f}  ({b.aspl})\ntotal    >= {b.total}")
    return 0


def _host_switch_bounds(args, n: int, r: int) -> int:
    """``golf bounds --host-switch N R``: the Order/Radix bounds over every number of
    switches (:func:`golf.hostswitch.radix_bounds.host_switch_bounds`), and the bound from
    counting host pairs by their switches (:func:`~golf.hostswitch.radix_bounds.
    pair_count_bound`), the stronger of the two on the h-ASPL for a large radix."""
    from golf.hostswitch.radix_bounds import host_switch_bounds, pair_count_bound

    b = host_switch_bounds(n, r)
    count = pair_count_bound(n, r)
    label = f"hosts={n} r={r} (host-switch, any number of switches"
    if args.json:
        out = b.as_dict()
        out.update(pair_count_total_bound=count[0] if count else None,
                   pair_count_aspl_bound=float(count[1]) if count else None,
                   pair_count_aspl_bound_fraction=str(count[1]) if count else None)
        print(json.dumps(out))
    elif b.diameter is None:
        print(f"hosts={n} r={r}: no connected host-switch graph exists")
    else:
        print(f"{label}; at least {b.min_switches} connect the hosts)\n"
              f"h-diameter >= {b.diameter}\n"
              f"h-ASPL     >= {float(b.aspl):.10f}  ({b.aspl})\nh-total    >= {b.total}\n"
              f"pair count: h-ASPL >= {float(count[1]):.10f}  ({count[1]}), "
              f"h-total >= {count[0]}")
    return 0


def cmd_chase(args) -> int:
    """``golf chase N D`` / ``golf chase --grid WxH D R``: a run of :mod:`golf.run.chase`'s
    config, then the best graph exported beside it. Without a launcher it first starts itself
    under mpiexec with a process a core (CPU) or a GPU (:func:`golf.run.chase.relaunch`)."""
    from golf.run import Search, collective, export_run
    from golf.run.chase import chase_backend, chase_config, default_ranks, relaunch

    first, second = _two_numbers(args, args.chase_parser)
    grid = r = None
    if args.host_switch and args.grid is not None:
        args.chase_parser.error("--host-switch takes N R (hosts, radix), not --grid")
    if args.host_switch or args.grid is None:
        n, d = first, second
    if args.grid is not None:
        from golf.grid import parse_size

        grid, (d, r), n = parse_size(args.grid), (first, second), None
    comm = args.comm
    found = collective(comm, lambda: chase_backend(n, d, args.backend, grid=grid,
                                                   host_switch=args.host_switch))
    if comm is None and args.ranks != 1:
        ranks = args.ranks or default_ranks(found.gpu, None if args.host_switch else n)
        code = relaunch(args.rest, ranks, found.gpu)
        if code is not None:
            return code
    if args.host_switch:  # the switch graph from the Order/Degree engine, then polished
        from golf.run.spreads import spread_chase

        from pathlib import Path

        path = Path(args.out) / f"h{n}r{d}"
        summary = spread_chase(n, d, minutes=args.minutes, seed=args.seed, backend=args.backend,
                               out=args.out, comm=comm, quiet=args.quiet, force=args.force,
                               sets=args.set)
    else:
        run = collective(comm, lambda: chase_config(
            n, d, minutes=args.minutes, seed=args.seed, backend=found.name, out=args.out,
            grid=grid, r=r, comm=comm, sets=args.set))
        path = run.path
        summary = Search(run, quiet=args.quiet, comm=comm).start(force=args.force)
    if summary is None:  # an MPI rank other than 0
        return 0
    # best.edges was written and re-checked by the run's end: linked under its name
    target, check = export_run(path, str(path) + os.sep, checked=summary["recheck"])
    form = (summary.get("auto_g") or {}).get("form", {}).get("label")
    p = summary["problem"]
    if p.get("kind") == "host-switch":
        form = f"{p['switches']} switches"
    print(f"golf chase: {path}: {form or 'g=' + str(p['g'])}; best "
          f"diameter {check['diameter']}, total {check['total']}; submission file {target}")
    return 0


def cmd_random(args) -> int:
    from golf.starts.random import random_graph, random_group_graph
    from golf.io import write_edges

    t0 = time.perf_counter()
    group = _group(args.group, args.g)
    graph = (random_graph(args.n, args.d, args.g, args.seed) if group is None else
             random_group_graph(args.n, args.d, group, args.seed))
    write_edges(args.output, graph)
    if not args.quiet:
        deg = graph.degrees()
        print(f"wrote {args.output}: n={graph.n} d={args.d} g={graph.g} edges={graph.num_edges} "
              f"degrees {deg.min()}..{deg.max()} seed={args.seed} "
              f"({time.perf_counter() - t0:.2f} s)")
    return 0


def cmd_run(args) -> int:
    from golf.run import run_config

    run_config(args.config, overrides=args.set, quiet=args.quiet, force=args.force,
               only=args.only, comm=args.comm)
    return 0


def cmd_resume(args) -> int:
    from golf.run import resume_run

    resume_run(args.run_dir, quiet=args.quiet, comm=args.comm)
    return 0


def cmd_export(args) -> int:
    from golf.run import export_run

    target, check = export_run(args.run_dir, args.output, gz=args.gzip)
    here = " (the current folder; -o chooses another)" if args.output is None else ""
    print(f"wrote {target.resolve()}{here}: diameter {check['diameter']}, total "
          f"{check['total']} (re-checked with {check['backend']})")
    return 0


# ------------------------------------------------------------------------------------------
def _pair_arguments(s, grid_help: str) -> None:
    """The positional ``n d`` of ``bounds`` and ``chase``, or with ``--grid WxH`` the degree
    ``D`` and edge length limit ``R`` (checked by :func:`_two_numbers`)."""
    s.add_argument("n", nargs="?", help="vertex count (>= 1); with --grid: the degree D (>= 0)")
    s.add_argument("d", nargs="?",
                   help="degree (>= 0); with --grid: the edge length limit R (>= 1)")
    s.add_argument("--grid", metavar="WxH", help=grid_help)


def _run_arguments(s) -> None:
    """``--set``, ``--force`` and ``--quiet`` of the commands that start a run."""
    s.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a setting, e.g. --set search.seed=3 (repeatable)")
    s.add_argument("--force", action="store_true",
                   help="start over in a folder that already holds a run")
    s.add_argument("--quiet", action="store_true", help="no progress on the terminal")


def build_parser() -> argparse.ArgumentParser:
    from golf import __version__

    p = argparse.ArgumentParser(prog="golf", description="Graph Golf optimizer: exact "
                                "evaluation and search for the Order/Degree problem.")
    p.add_argument("--version", action="version", version=f"golf {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    from golf.evaluators import names

    backends = ["auto", *names()]
    s = sub.add_parser("eval", help="score an edge-list file: diameter, total, ASPL, bounds")
    s.add_argument("file")
    s.add_argument("--g", type=_g_value, default=1, metavar="G",
                   help="symmetry to exploit (must hold), or 'auto' to detect the largest")
    s.add_argument("--group", metavar="A,R", help="with --g G: the symmetry group Z_A ⋊_R "
                   "Z_(G/A) instead of the cyclic one (must hold in golf's numbering)")
    s.add_argument("--n", type=_positive_int, help="vertex count (default: largest id + 1)")
    s.add_argument("--d", type=_nonneg_int, help="degree for the bounds (default: max degree)")
    s.add_argument("--grid", type=_size, metavar="WxH", help="read the file as a grid graph on "
                   "a W x H lattice (cells 'x,y'; default for such files: the cells' bounding "
                   "box)")
    s.add_argument("--r", type=_positive_int, help="a grid's longest edge allowed, for the "
                   "lattice bounds (default: the file's longest edge)")
    s.add_argument("--backend", default="auto", choices=backends)
    s.add_argument("--threads", type=_positive_int, help="CPU threads (default: all cores)")
    s.add_argument("--chunk-words", type=_positive_int,
                   help="bit-matrix column chunk, in 64-bit words")
    s.add_argument("--opt", action="append", metavar="KEY=VALUE",
                   help="any other option of the backend, e.g. --opt thread_mode=rows "
                   "(repeatable; the backends' options: docs/backends.md)")
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.add_argument("--repeat", type=_nonneg_int, default=0, metavar="N",
                   help="time N more evaluations after a warm-up; report the mean")
    s.add_argument("--explain", action="store_true", help="say which backend and why")
    s.add_argument("--host-switch", action="store_true", help="read the file as a host-switch "
                   "graph (ORP's format: first line 'hosts switches radix'; found by itself "
                   "when the first line holds three integers) and print the h-values")
    s.set_defaults(func=cmd_eval)

    s = sub.add_parser("validate", help="check a submission: ids, degree, simple, connected "
                       "(a grid file: cells in the lattice, edge lengths too)")
    s.add_argument("file")
    s.add_argument("--n", type=_positive_int, help="vertex count (files of vertex ids)")
    s.add_argument("--d", type=_nonneg_int, help="the degree limit (required, but for a "
                   "host-switch file)")
    s.add_argument("--grid", type=_size, metavar="WxH", help="the lattice of a grid file")
    s.add_argument("--r", type=_positive_int, help="the longest edge of a grid file")
    s.add_argument("--host-switch", action="store_true", help="check the file as a "
                   "host-switch graph (ORP's format; found by itself when its first line "
                   "holds three integers): one edge a host, to a switch, <= radix edges a "
                   "switch, simple, hosts connected")
    s.set_defaults(func=cmd_validate, validate_parser=s)

    s = sub.add_parser("bounds", help="Moore lower bounds on diameter and ASPL (--grid: the "
                       "lattice bounds of a grid problem; --host-switch: the Order/Radix "
                       "bounds)",
                       usage="golf bounds [-h] [--json] n d\n"
                       "       golf bounds [-h] [--json] --grid WxH D R\n"
                       "       golf bounds [-h] [--json] --host-switch N R")
    _pair_arguments(s, "the bounds of the grid problem on a W x H lattice, degree D, edges "
                    "of Manhattan length <= R")
    s.add_argument("--host-switch", action="store_true", help="the bounds on h-diameter and "
                   "h-ASPL of N hosts on switches of radix R, over every number of switches")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_bounds, bounds_parser=s)

    s = sub.add_parser("random", help="write a random connected g-symmetric graph")
    s.add_argument("n", type=_positive_int)
    s.add_argument("d", type=_nonneg_int)
    s.add_argument("--g", type=_positive_int, default=1)
    s.add_argument("--group", metavar="A,R", help="the symmetry group Z_A ⋊_R Z_(G/A) of "
                   "order --g instead of the cyclic one")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("-o", "--output", required=True)
    s.add_argument("--quiet", action="store_true")
    s.set_defaults(func=cmd_random)

    s = sub.add_parser("run", help="run the search of a YAML config (one or several problems)")
    s.add_argument("config")
    s.add_argument("--only", action="append", metavar="NAME",
                   help="run only this problem of a multi-problem config (repeatable)")
    _run_arguments(s)
    s.set_defaults(func=cmd_run)

    s = sub.add_parser("chase", help="search the best graph of a pair in a given time, the "
                       "symmetry form chosen by trials (golf.run.chase)",
                       usage="golf chase [-h] [options] n d\n"
                       "       golf chase [-h] [options] --grid WxH D R\n"
                       "       golf chase [-h] [options] --host-switch N R")
    _pair_arguments(s, "a grid problem on a W x H lattice")
    s.add_argument("--host-switch", action="store_true",
                   help="a host-switch problem: N hosts, switches of radix R (golf.hostswitch)")
    s.add_argument("--minutes", type=float, default=10.0,
                   help="wall time of the whole chase, trials included (default 10)")
    s.add_argument("--out", default="runs", metavar="DIR",
                   help="the run folder goes to DIR/n{N}d{D} (default: runs)")
    s.add_argument("--seed", type=int, default=1)
    s.add_argument("--backend", default="auto", choices=backends)
    s.add_argument("--ranks", type=_nonneg_int, default=0, metavar="R",
                   help="processes to start under mpiexec when not launched by it (default 0: "
                   "one a GPU for the GPU backends, else one a core; 1: this process only)")
    _run_arguments(s)
    s.set_defaults(func=cmd_chase, chase_parser=s)

    s = sub.add_parser("resume", help="continue a run from its checkpoint")
    s.add_argument("run_dir")
    s.add_argument("--quiet", action="store_true")
    s.set_defaults(func=cmd_resume)

    s = sub.add_parser("export", help="write a run's best graph as a submission file")
    s.add_argument("run_dir")
    s.add_argument("-o", "--output", help="file or folder (default: the current folder, "
                   "under the competition's name n{n}d{d}k{diameter}l{floor(100*ASPL)}.edges, "
                   "for a grid w{w}h{h}d{d}r{r}k{diameter}l{floor(100*ASPL)}.edges)")
    s.add_argument("--gzip", action="store_true", help="gzip the file (adds .gz)")
    s.set_defaults(func=cmd_export)
    return p


def main(argv=None) -> int:
    """Run one ``golf`` command; returns its exit code (see the module docstring)."""
    try:
        try:
            return _main(argv)
        finally:  # a reader gone away shows here at the latest, not at interpreter exit
            if sys.stdout is not None:  # None: started with stdout closed
                sys.stdout.flush()
    except BrokenPipeError:
        _stdout_to_devnull()
        return EXIT_PIPE


def _stdout_to_devnull() -> None:
    """Point stdout at /dev/null, so that the interpreter's last flush of what is still
    buffered does not fail again on the closed pipe."""
    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, sys.stdout.fileno())
        os.close(fd)
    except (OSError, ValueError):  # no file descriptor (stdout replaced, e.g. captured)
        pass


def _main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    argv = list(sys.argv[1:] if argv is None else argv)
    args.rest = argv[argv.index(args.command) + 1:] if args.command in argv else []
    from golf.parallel import world_if_launched
    comm = args.comm = None
    try:
        # under mpiexec with several ranks: MPI.COMM_WORLD for the commands that use it
        if args.command in ("eval", "run", "resume", "chase"):
            comm = args.comm = world_if_launched()
        return args.func(args) or 0
    except Interrupted as exc:  # SIGINT/SIGTERM: a checkpoint was written
        return exc.code
    except BrokenPipeError:  # stdout's reader went away: main ends quietly
        raise
    except AgreedError as exc:  # every rank raised it together: one prints
        if comm is None or comm.rank == 0:
            print(f"golf: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except (Exception, KeyboardInterrupt) as exc:
        if comm is not None and not isinstance(exc, KeyboardInterrupt):
            # one rank failed while the others may wait in a collective: end the job now
            from golf.parallel import abort_on_error

            if not isinstance(exc, (GolfError, OSError)):
                import traceback

                traceback.print_exc()
            abort_on_error(comm, exc)
        if isinstance(exc, (GolfError, OSError)):  # OSError: e.g. an unwritable folder
            print(f"golf: error: {exc}", file=sys.stderr)
            return EXIT_ERROR
        if isinstance(exc, KeyboardInterrupt):
            print("golf: interrupted", file=sys.stderr)
            return EXIT_INTERRUPT
        raise


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
