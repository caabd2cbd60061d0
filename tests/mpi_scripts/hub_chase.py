"""Under mpiexec: ``golf chase --host-switch 48 6`` (golf.run.spreads.spread_chase) with its
spreads cut to the worst one and short trials and rounds, so that the hub spread's trial
runs, wins, and its further rounds and the polish (hill) run on every rank. Rank 0 prints the
chase's record (spreads.json) and summary as JSON. Argument: the output folder."""

import json
import os
import sys

from mpi4py import MPI

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(__file__))))

import golf.hostswitch.spread as spread  # noqa: E402
import golf.run.spreads as sp  # noqa: E402

worst = spread.spreads(48, 6)[-1]  # 12 switches of 4 hosts on a ring: far above the hubs
spread.spreads = lambda n, r: [worst]
sp.MIN_TRIAL_SECONDS, sp.HUB_ROUND, sp.MIN_HUB_ROUND = 3.5, 3.0, 1.0  # two trials
comm = MPI.COMM_WORLD
# a first, shorter chase compiles the stages' engines (a host-switch climb's compilation is
# on its own clock): on a cold cache the chase below would spend its rounds compiling
sp.spread_chase(48, 6, minutes=0.2, out=os.path.join(sys.argv[1], "warm"), comm=comm,
                quiet=True)
summary = sp.spread_chase(48, 6, minutes=0.4, out=sys.argv[1], comm=comm, quiet=True)
if comm.rank == 0:
    rec = json.loads(open(os.path.join(sys.argv[1], "h48r6", "spreads.json")).read())
    print(json.dumps({"record": rec, "summary": summary}), flush=True)
