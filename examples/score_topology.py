"""Score classic interconnect topologies against the Moore bound.

Each topology is built with networkx, scored exactly by golf (diameter and ASPL, all pairs),
and compared with the Moore bounds for its order and degree, and with a random regular graph
of the same order and degree (what a search starts from).

    python examples/score_topology.py
"""

import networkx as nx

import golf


def topologies():
    """(name, networkx graph): 512 vertices each, degrees 6 to 9."""
    yield "3-D torus 8x8x8", nx.grid_graph(dim=[8, 8, 8], periodic=True)
    yield "hypercube Q9", nx.hypercube_graph(9)
    yield "2-D torus 16x32", nx.grid_2d_graph(16, 32, periodic=True)
    yield "random 6-regular", nx.random_regular_graph(6, 512, seed=1)


def main():
    print(f"{'topology':18} {'n':>5} {'d':>2} {'diam':>4} {'bound':>5} {'ASPL':>8} "
          f"{'bound':>8} {'gap':>7} {'random d-regular':>17}")
    for name, G in topologies():
        graph = golf.Graph.from_networkx(G)
        n, d = graph.n, graph.max_degree
        score = golf.evaluate(graph)
        b = golf.bounds(n, d)
        rand = golf.evaluate(golf.random_graph(n, d, seed=1))
        print(f"{name:18} {n:5d} {d:2d} {score.diameter:4d} {b.diameter:5d} "
              f"{score.aspl:8.4f} {float(b.aspl):8.4f} {score.aspl - float(b.aspl):+7.4f} "
              f"{rand.diameter:>7d} / {rand.aspl:.4f}")


if __name__ == "__main__":
    main()
