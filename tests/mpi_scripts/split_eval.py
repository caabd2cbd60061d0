"""Under mpiexec: split evaluation must equal the serial result, for every CPU backend of the
registry that splits its work over ranks, on many random graphs (regular and not, symmetric
and not, disconnected, grid graphs, centre forms). Any mismatch raises (and the job fails); rank 0 prints
the count."""

import sys

import numpy as np
from mpi4py import MPI

sys.path.insert(0, __import__("os").path.dirname(__import__("os").path.dirname(__file__)))

from conftest import cpu_split_backends  # noqa: E402
from golf.evaluators import backend_class, make_evaluator  # noqa: E402
from golf.starts.random import random_graph  # noqa: E402
from golf.graph import Graph  # noqa: E402
from golf.grid import Grid  # noqa: E402
from naive import centre_lift, grid_edges, symmetric_edges  # noqa: E402

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
for w, h, r, g in ((10, 10, 3, 4), (9, 7, 2, 1), (12, 5, 4, 2)):  # grid graphs (golf.grid)
    cells = grid_edges(w, h, r, g, 2 * w * h, rng)
    vid = Grid(w, h, r, g).vertex_of()
    e = np.stack([vid[cells[:, 1], cells[:, 0]], vid[cells[:, 3], cells[:, 2]]], axis=1)
    graphs.append(Graph.from_edges(e, n=w * h, g=g))
for g, m, c in ((5, 30, 1), (6, 25, 2), (3, 70, 1)):  # centre forms (golf.graph)
    e = centre_lift(rng, g, m, c, 3 * m, 2 * c)
    graphs.append(Graph.from_edges(e, n=g * m + c, g=g, centres=c))
checked = 0
for graph in graphs:
    for backend in cpu_split_backends():
        takes = backend_class(backend).options
        # one thread a rank (two cores here), and 1-word chunks: more work units than ranks
        opts = {k: v for k, v in (("threads", 1), ("chunk_words", 1)) if k in takes}
        opts["centres"] = graph.centres
        serial = make_evaluator(backend, graph.n, graph.d, graph.g, **opts)
        split = make_evaluator(backend, graph.n, graph.d, graph.g, comm=comm, **opts)
        a, b = serial.evaluate(graph), split.evaluate(graph)
        if a != b:
            raise AssertionError(f"rank {comm.rank}: {backend} n={graph.n} g={graph.g}: "
                                 f"serial {a} != split {b}")
        checked += 1
total = comm.allreduce(checked, op=MPI.MIN)  # every rank checked every graph
if comm.rank == 0:
    print(f"OK {total} split evaluations over {comm.size} ranks", flush=True)
