"""Under mpiexec: rank 1 raises in the middle of a search run; the whole job must end
promptly with a non-zero status and the error printed by rank 1."""

import sys

from mpi4py import MPI

import golf.engine.annealer
from golf.cli import main

comm = MPI.COMM_WORLD
if comm.rank == 1:
    original = golf.engine.annealer.Annealer.run
    calls = {"n": 0}

    def failing(self, *args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 3:
            raise RuntimeError("injected failure on rank 1")
        return original(self, *args, **kwargs)

    golf.engine.annealer.Annealer.run = failing
sys.exit(main(["run", sys.argv[1], "--force", "--quiet"]))
