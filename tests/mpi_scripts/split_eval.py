"""Under mpiexec: split evaluation must equal the serial result, for both backends, on many
random graphs (regular and not, symmetric and not, disconnected). Rank 0 prints one line per
graph; any mismatch raises (and the job fails)."""

import sys

import numpy as np
from mpi4py import MPI

sys.path.insert(0, __import__("os").path.dirname(__import__("os").path.dirname(__file__)))

from golf.evaluators import make_evaluator  # noqa: E402
from golf.generate import random_graph  # noqa: E402
from golf.graph import Graph  # noqa: E402
from naive import symmetric_edges  # noqa: E402

comm = MPI.COMM_WORLD
rng = np.random.default_rng(2024)
graphs = []
for k in range(12):
    g = int(rng.choice([1, 2, 3, 4, 6]))
    m = int(rng.integers(20, 200))
    n = m * g
    if k % 3 == 0:
        graphs.append(random_graph(n, int(rng.integers(3, 7)), g, seed=k))
    else:
        e = symmetric_edges(n, g, int(rng.integers(n // 3, 2 * n)), rng, half_orbits=k % 2)
        graphs.append(Graph.from_edges(e, n=n, g=g))
checked = 0
for graph in graphs:
    for backend in ("bitset", "bfs"):
        opts = {"chunk_words": 1} if backend == "bitset" else {}
        serial = make_evaluator(backend, graph.n, graph.d, graph.g, threads=1, **opts)
        split = make_evaluator(backend, graph.n, graph.d, graph.g, threads=1, comm=comm, **opts)
        a, b = serial.evaluate(graph), split.evaluate(graph)
        if a != b:
            raise AssertionError(f"rank {comm.rank}: {backend} n={graph.n} g={graph.g}: "
                                 f"serial {a} != split {b}")
        checked += 1
total = comm.allreduce(checked, op=MPI.MIN)  # every rank checked every graph
if comm.rank == 0:
    print(f"OK {total} split evaluations over {comm.size} ranks", flush=True)
