"""What a run leaves behind besides its checkpoint: the trace, the convergence plot, the
re-check of the best graph, and the submission file ``golf export`` writes."""

from __future__ import annotations

import csv
import io
import os
import time
from pathlib import Path

import numpy as np

from golf.errors import GolfError

__all__ = ["write_trace", "plot_trace", "recheck_graph", "export_run"]


def write_trace(path, rows) -> None:
    """trace.csv from the trace rows (columns :data:`golf.engine.annealer.TRACE_COLUMNS`),
    atomically."""
    from golf.engine.annealer import TRACE_COLUMNS
    from golf.io import atomic_write

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(TRACE_COLUMNS)
    for r in rows:
        w.writerow([int(r[0]), f"{r[1]:.6g}", *(int(x) for x in r[2:8]), f"{r[8]:.3f}"])
    atomic_write(path, buf.getvalue())


def plot_trace(path, rows, n) -> str:
    """convergence.png from the trace; returns 'written' or why not."""
    if not rows:
        return "no trace rows"
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError:
        return "matplotlib is not installed (pip install 'golf[plot]')"
    from golf.io import atomic_write

    a = np.asarray(rows)
    pairs = n * (n - 1) / 2
    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    ax.plot(a[:, 0], a[:, 3] / pairs, lw=0.6, alpha=0.6, label="current ASPL")
    ax.plot(a[:, 0], a[:, 5] / pairs, lw=1.4, label="best ASPL")
    ax.set_xlabel("step")
    ax.set_ylabel("ASPL")
    ax2 = ax.twinx()
    ax2.step(a[:, 0], a[:, 4], where="post", color="tab:red", lw=1, label="best diameter")
    ax2.set_ylabel("diameter")
    ax2.set_ylim(a[:, 4].min() - 0.5, a[:, 4].max() + 0.5)  # whole levels, also when flat
    ax2.yaxis.set_major_locator(matplotlib.ticker.MultipleLocator(1))
    lines = ax.get_legend_handles_labels()
    more = ax2.get_legend_handles_labels()
    ax.legend(lines[0] + more[0], lines[1] + more[1], loc="upper right")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    atomic_write(path, buf.getvalue())
    return "written"


def recheck_graph(graph, d, backend, seconds=None) -> dict:
    """Re-score a result with another backend than the one that found it (see
    :func:`golf.evaluators.recheck_backend`; ``seconds``: the most the re-check may take) and
    apply the validation rules; raise on any problem."""
    from golf.evaluators import make_evaluator

    if hasattr(graph, "hosts"):  # a host-switch graph (golf.hostswitch.ports.PortGraph)
        from golf.evaluators.h_scoring import recheck

        graph.check()
        t = time.perf_counter()
        diameter, total = recheck(graph.net())
        if diameter is None:
            raise GolfError("internal error: the best host-switch graph is disconnected")
        return {"backend": "switch BFS", "diameter": diameter, "total": total,
                "seconds": round(time.perf_counter() - t, 3)}
    if graph.max_degree > d:
        raise GolfError(f"internal error: best graph has degree {graph.max_degree} > d={d}")
    graph.check()
    from golf.evaluators import recheck_backend

    name = recheck_backend(graph.n, graph.d, graph.m, backend, seconds)
    t = time.perf_counter()
    score = make_evaluator(name, graph.n, graph.d, graph.g, symmetry=graph.group,
                           centres=graph.centres).evaluate(graph)
    if not score.connected:
        raise GolfError("internal error: the best graph is disconnected")
    return {"backend": name, "diameter": score.diameter, "total": score.total,
            "seconds": round(time.perf_counter() - t, 3)}


def export_run(run_dir, output=None, gz=False, checked=None) -> tuple[Path, dict]:
    """Copy a run's best graph into a submission file, re-checked; named in the competition's
    style (:meth:`golf.problems.Problem.submission_name`; a grid problem's
    ``w{w}h{h}d{d}r{r}k{diameter}l{..}``, in the grid format) when ``output`` is a folder or None
    (None: the current folder). Returns the file written and the re-check. ``checked``: the
    re-check of the run that has just written best.edges (its summary's ``recheck``): the
    file is then linked (or copied) under its name, not read and written again -- seconds
    to minutes at millions of vertices."""
    from golf.problems import problem_of
    from golf.run.folder import RunDir, read_run_config

    rd = RunDir(run_dir)
    best = rd.file("best.edges")
    if not best.exists():
        raise GolfError(f"{run_dir}: no best.edges (has this run written a checkpoint yet?)")
    cfg = read_run_config(run_dir).data
    # a polish phase at search.polish_g leaves a graph of that symmetry (a divisor of g)
    problem = problem_of(cfg["problem"], cfg["search"]["polish_g"] or cfg["problem"]["g"])
    graph = None
    if checked is not None and not gz:
        check = checked
    else:
        graph = problem.read(best)
        check = recheck_graph(graph, problem.d, "bitset")
    name = problem.submission_name(check["diameter"], check["total"])
    if output is None:
        target = Path(name)
    else:
        target = Path(output)
        if target.is_dir() or str(output).endswith(os.sep):
            target = target / name
    if gz and target.suffix != ".gz":
        target = target.with_name(target.name + ".gz")
    if graph is None:
        _link(best, target)
    else:
        problem.write(target, graph)
    return target, check


def _link(source: Path, target: Path) -> None:
    """``target`` made a file of ``source``'s content: a hard link (a file written later over
    ``source`` is renamed into place, so the link keeps this content), else a copy; either
    way atomically."""
    import shutil

    from golf.io import create_temp

    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = create_temp(target.parent, target.name)
    os.close(fd)
    os.unlink(tmp)
    try:
        os.link(source, tmp)
    except OSError:
        shutil.copyfile(source, tmp)
    os.replace(tmp, target)
