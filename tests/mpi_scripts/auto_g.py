"""Under mpiexec: ``problem.g: auto`` resolved by trials, with parallel.mode chains (the
trials dealt over the ranks) or evaluator (every trial's evaluations split over them). Rank 0
prints, as JSON, every rank's resolved g and the g of the graphs it annealed, with the
summary's ``auto_g`` record. Arguments: n d steps budget seed [mode [seconds [search [problem]]]]
(steps 0 with seconds: a time limit, the trials held to the clock; seconds 0: none; search,
problem: more settings of those sections, as JSON, e.g. a grid's ``{"grid": [6, 6], "r": 2}``)."""

import json
import os
import sys

from mpi4py import MPI

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(__file__))))

from golf.config import RunConfig, validate  # noqa: E402
from golf.run import Search  # noqa: E402

n, d, steps, seed = (int(x) for x in sys.argv[1:4] + sys.argv[5:6])
budget = float(sys.argv[4])
mode = sys.argv[6] if len(sys.argv) > 6 else "chains"
seconds = (float(sys.argv[7]) or None) if len(sys.argv) > 7 else None
more = json.loads(sys.argv[8]) if len(sys.argv) > 8 else {}
problem = json.loads(sys.argv[9]) if len(sys.argv) > 9 else {}
comm = MPI.COMM_WORLD
cfg = validate({"name": "m", "problem": {"n": n, "d": d, "g": "auto", **problem},
                "search": {"steps": steps, "seed": seed, "auto_g_budget": budget,
                           "time_limit": seconds, **more},
                "evaluator": {"backend": "bitset", "threads": 1},
                "parallel": {"mode": mode, "exchange_every": 1000},
                "output": {"plot": False}}, lambda key: "auto_g.py")
engine = Search(RunConfig("m", cfg, None, "auto_g.py"), quiet=True, comm=comm)
summary = engine.start()
used = comm.gather({"rank": comm.rank, "g": engine.cfg["problem"]["g"],
                    "graph_g": int(engine.state.ann.graph.g)}, root=0)
if comm.rank == 0:
    print(json.dumps({"ranks": used, "auto_g": summary["auto_g"],
                      "problem": summary["problem"]}), flush=True)
