"""The MPI layer (mpi4py): who is launched, how work is split, how results combine.

Serial runs never import mpi4py. Under ``mpiexec``/``mpirun``/``srun`` with more than one
rank, :func:`world_if_launched` returns ``MPI.COMM_WORLD``; pass any other communicator where
a ``comm`` is taken.

Split evaluation (Figs. 3, 8 and 9 of Nakao, Murai and Sato's parallel APSP paper, see
:mod:`golf.evaluators.bitset`): an evaluator's work units (base sources for
``bfs``, 64-bit column words for ``bitset``) are cut into contiguous shares, one per rank;
each rank computes ``[ecc, dist_sum, n_at_ecc, status]`` for its share and
:func:`allreduce_parts` combines them with two ``Allreduce`` calls of a few int64 each: the
maximum of ``(ecc, status)``, then the sum of ``(dist_sum, n_at_ecc if my ecc is the maximum)``.
That is two messages of 16 bytes per rank and evaluation, whatever the graph.
"""

from __future__ import annotations

import os

import numpy as np

__all__ = ["mpiexec_prefix", "launched_size", "local_ranks", "world_if_launched", "world", "share",
           "allreduce_parts", "agree", "abort_on_error"]

# srun sets the PMI ones; SLURM_NTASKS alone (sbatch without srun) is not a launch
_SIZE_VARS = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS",
              "MV2_COMM_WORLD_SIZE")


def mpiexec_prefix(n: int) -> list[str] | None:
    """The command prefix that starts ``n`` ranks of a program: ``mpiexec -n N`` (from the
    PATH, or beside this interpreter, where the ``mpi`` extra's Open MPI puts it), with
    ``--allow-run-as-root`` as root, ``--oversubscribe`` (more ranks than slots) and
    ``--bind-to none`` (each rank's threads free to move); None where mpiexec or mpi4py is
    missing."""
    import shutil
    import sys

    exe = shutil.which("mpiexec") or shutil.which("mpiexec", path=os.path.dirname(
        sys.executable))
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return None
    if exe is None:
        return None
    root = ["--allow-run-as-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []
    return [exe, "-n", str(n), *root, "--oversubscribe", "--bind-to", "none"]


def launched_size() -> int:
    """The number of ranks the launcher started, from its environment (1 when none)."""
    for var in _SIZE_VARS:
        v = os.environ.get(var)
        if v and v.isdigit():
            return int(v)
    return 1


def local_ranks() -> int:
    """Ranks the launcher started on this node (1 when none)."""
    for var in ("OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "MV2_COMM_WORLD_LOCAL_SIZE",
                "PMI_LOCAL_SIZE", "SLURM_NTASKS_PER_NODE"):
        v = os.environ.get(var)
        if v and v.isdigit() and launched_size() > 1:
            return max(1, int(v))
    return 1


def world():
    """``MPI.COMM_WORLD`` (imports mpi4py; a clear error if it is missing)."""
    from golf.errors import GolfError

    try:
        from mpi4py import MPI
    except ImportError:
        raise GolfError("MPI runs need mpi4py and an MPI: pip install 'golf[mpi]'") from None
    return MPI.COMM_WORLD


def world_if_launched():
    """``MPI.COMM_WORLD`` under a launcher with more than one rank, else None (no import)."""
    if launched_size() > 1:
        comm = world()
        return comm if comm.size > 1 else None
    return None


def share(units: int, rank: int, size: int) -> tuple[int, int]:
    """Rank ``rank``'s contiguous share ``[u0, u1)`` of ``units`` work units: sizes differ by
    at most one; ranks beyond ``units`` get an empty share."""
    base, extra = divmod(units, size)
    u0 = rank * base + min(rank, extra)
    return u0, u0 + base + (1 if rank < extra else 0)


def allreduce_parts(comm, part) -> np.ndarray:
    """Combine every rank's ``[ecc, dist_sum, n_at_ecc, status]`` into the whole result."""
    from mpi4py import MPI

    part = np.asarray(part, dtype=np.int64)
    top = np.array([part[0], part[3]], dtype=np.int64)
    comm.Allreduce(MPI.IN_PLACE, top, op=MPI.MAX)
    sums = np.array([part[1], part[2] if part[0] == top[0] else 0], dtype=np.int64)
    comm.Allreduce(MPI.IN_PLACE, sums, op=MPI.SUM)
    if top[1] != 0:
        return np.array([top[0], 0, 0, top[1]], dtype=np.int64)
    return np.array([top[0], sums[0], sums[1], 0], dtype=np.int64)


# -- failure behaviour ---------------------------------------------------------------------
def agree(comm, error):
    """Collective check after a set-up phase: every rank passes its error message (or None).
    If any rank failed, every rank gets the first message, with its rank, and the job can stop
    cleanly: no rank is left waiting in a collective, and one rank prints it."""
    if comm is None:
        return error
    errors = comm.allgather(error)
    for rank, e in enumerate(errors):
        if e is not None:
            return e if all(x == e for x in errors) else f"{e} (rank {rank})"
    return None


def abort_on_error(comm, exc, code: int = 2) -> None:
    """A rank failed while the others may sit in a collective: print the error once (from the
    failing rank) and abort the whole job, which ends every rank within seconds."""
    import sys

    print(f"golf: error on rank {comm.rank} of {comm.size}: {exc}", file=sys.stderr, flush=True)
    comm.Abort(code)
