"""A search run from a config: its folder, progress, checkpoints, outputs, resume and export.

A run folder ``<output.dir>/<name>/`` holds:

``run.yaml``        the config as run (defaults filled in, overrides applied)
``log.txt``         what the run printed, with times
``checkpoint.npz``  the whole search state: first before the first step, then every
                    ``checkpoint_every`` seconds, on SIGINT/SIGTERM and at the end
``checkpoint.prev.npz``  the checkpoint before the newest (a resume falls back on it when
                    the newest is damaged; see :func:`golf.run.checkpoint.pick_checkpoint`)
``best.edges``      the best graph so far in the competition's format (atomic; re-checked)
``trace.csv``       step, temperature, current and best score every ``trace_every`` steps
``summary.json``    the result (written at the end)
``convergence.png`` the best and current ASPL over the steps (when matplotlib is installed)
``.lock``           present while a process works in the folder

Nothing is ever half-written: every file is written to a temporary file and renamed. A run
killed even with SIGKILL keeps its last checkpoint and best graph; ``golf resume DIR`` goes on
from the checkpoint (from the one before it where the newest is damaged; from the beginning
where the run was killed before its first) and, for a step-limited run, reaches exactly the
result of an uninterrupted one. A ``.lock`` left by a killed run names a process that is gone:
the next run or resume on that host takes it over.

The parts, one job each:

``driver``      a run from its lock to its summary (:class:`Search`), over the three parts:
``start``       the form (``g: auto``), the start graph, the engine and its temperatures
``loop``        the loop over chunks of steps, and the switch to the polish phase
``records``     best.edges, checkpoints, trace.csv and run.yaml as it goes; the summary
``setup``       what a config builds: its evaluator and annealer (for the run and the trials)
``portfolio``   ``problem.g: auto``: the trials that choose the form before the run
``phases``      the tabu search of ``method: tabu``, and the polish phase of an annealing run
``coordinate``  what the MPI ranks decide together
``checkpoint``  the checkpoint format
``folder``      the run folder and its lock
``report``      the log and the progress line
``outputs``     trace, plot, re-check, submission file
``chase``       ``golf chase``: the config of a chase, and its own ranks
``spreads``     ``golf chase --host-switch``: the switch graph from Order/Degree chases
"""

from __future__ import annotations

from golf.run.checkpoint import load_checkpoint
from golf.run.coordinate import collective
from golf.run.driver import Interrupted, Search
from golf.run.folder import RunDir, read_run_config
from golf.run.outputs import export_run, recheck_graph

__all__ = ["run_config", "resume_run", "export_run", "load_checkpoint", "recheck_graph",
           "RunDir", "Search", "Interrupted"]


def run_config(path, overrides=(), quiet=False, force=False, only=None, comm=None) -> list:
    """Run every problem of a config file; returns their summaries."""
    from golf.config import load_config

    runs = collective(comm, lambda: load_config(path, overrides, only))
    return [Search(run, quiet=quiet, comm=comm).start(force=force) for run in runs]


def resume_run(run_dir, quiet=False, comm=None) -> dict:
    """Continue the run of ``run_dir`` from its checkpoint; returns its summary."""
    run = collective(comm, lambda: read_run_config(run_dir))
    return Search(run, quiet=quiet, comm=comm).resume()
