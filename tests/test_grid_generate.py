"""Random grid graphs (golf.starts.random_grid): simple, connected, symmetric under the lattice
rotation, every edge within reach, the documented degrees, reproducible per seed.

The checks do not trust the generator's own helpers: reach counts, the degree rule, the
rotation of the cells and the impossibility of some d = 2 cases are recomputed here the slow,
obvious way."""

import doctest
import hashlib
import itertools

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import golf.starts.random_grid
from golf.errors import GolfError
from golf.evaluators import make_evaluator
from golf.graph import Graph
from golf.grid import Grid, symmetry_problem
from golf.starts.random_grid import grid_target_degrees, random_grid_graph

COMPETITION = [(5, 5, 4, 2), (5, 10, 4, 2), (10, 10, 4, 2), (10, 10, 6, 3), (10, 10, 8, 4),
               (20, 20, 4, 2), (20, 20, 6, 3), (20, 20, 8, 4)]  # (w, h, d, r), 2019
COMPETITION_CASES = [(w, h, d, r, g) for w, h, d, r in COMPETITION for g in (1, 2, 4)
                     if symmetry_problem(w, h, g) is None]

OTHER_CASES = [  # (w, h, d, r, g): odd sizes, r = 1, crowded corners, tiny and thin lattices
    (3, 3, 3, 1, 1), (3, 5, 3, 1, 1), (7, 7, 3, 1, 1), (9, 9, 4, 1, 1), (7, 3, 5, 2, 1),
    (5, 5, 2, 2, 1), (11, 7, 5, 3, 1), (4, 4, 3, 1, 4), (6, 6, 3, 1, 2), (8, 8, 3, 1, 4),
    (6, 6, 2, 1, 4), (6, 6, 2, 1, 2), (4, 4, 2, 1, 2), (10, 10, 2, 1, 4), (6, 5, 2, 1, 2),
    (9, 4, 2, 2, 2), (7, 4, 3, 1, 2), (12, 12, 16, 6, 4), (6, 6, 9, 2, 4), (2, 2, 3, 2, 4),
    (2, 2, 3, 1, 4), (1, 7, 2, 1, 1), (1, 7, 3, 2, 1), (1, 2, 1, 1, 2), (2, 3, 2, 1, 2),
    (5, 4, 6, 0, 2), (4, 4, 20, 0, 4), (14, 14, 7, 5, 4), (13, 6, 3, 2, 2),
]


# -- slow, obvious references ------------------------------------------------------------------
def naive_reach_counts(grid):
    """Cells within the reach of each vertex's cell, counted pair by pair."""
    r = grid.r or grid.w + grid.h
    c = grid.cells()
    dist = np.abs(c[:, None, :] - c[None, :, :]).sum(axis=2)
    return ((dist <= r) & (dist > 0)).sum(axis=1)


def turn(x, y, w, h, g):
    """The cell (x, y) turned by 360/g degrees about the lattice's centre."""
    if g == 1:
        return x, y
    if g == 2:
        return w - 1 - x, h - 1 - y
    return w - 1 - y, x


def expected_degrees(grid, d):
    """The module docstring's rule: (t per vertex, number of vertices at t - 1)."""
    w, h, g, m = grid.w, grid.h, grid.g, grid.m
    t = np.minimum(d, naive_reach_counts(grid))
    single_slot = any(  # a cell within reach of its 180-degree turn
        abs(x - tx) + abs(y - ty) <= (grid.r or w + h)
        for x, y in grid.cells().tolist() for tx, ty in [turn(x, y, w, h, 2)]) and g % 2 == 0
    odd = int(t[:m].sum()) % 2 == 1
    return t, (g if odd and not single_slot else 0)


def components(n, edges):
    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from(edges.tolist())
    return nx.number_connected_components(G)


def check_grid_graph(grid, d, graph):
    """Every property the generator promises, checked from scratch."""
    n, g, w, h = grid.n, grid.g, grid.w, grid.h
    assert (graph.n, graph.d, graph.g) == (n, d, g)
    graph.check()  # ids in range, no loops or repeats, every slot has its reverse
    edges = graph.edges()
    # g-symmetric under golf's shift ...
    assert Graph.from_edges(edges, n=n, g=g, d=d) == graph
    # ... and that shift is the lattice rotation: the edges as cells are invariant under it
    cells = {tuple(e) for e in grid.coordinates(edges).tolist()}
    key = {tuple(sorted([(x1, y1), (x2, y2)])) for x1, y1, x2, y2 in cells}
    turned = {tuple(sorted([turn(x1, y1, w, h, g), turn(x2, y2, w, h, g)]))
              for (x1, y1), (x2, y2) in key}
    assert turned == key
    # every edge within reach
    if len(edges) and grid.r:
        assert grid.lengths(edges).max() <= grid.r
    # connected (golf's reference evaluator and networkx agree)
    if n > 1:
        assert make_evaluator("reference", n, d, g).evaluate(graph).connected
        assert components(n, edges) == 1
    # degrees: exactly t(v), except `short` vertices (one rotation orbit) at t(v) - 1
    t, short = expected_degrees(grid, d)
    deficit = t - graph.degrees()
    assert set(deficit.tolist()) <= {0, 1}
    assert deficit.sum() == short
    if short:
        (low,) = np.nonzero(deficit)[0][:1]
        orbit = {(low + k * grid.m) % n for k in range(g)}
        assert set(np.flatnonzero(deficit).tolist()) == orbit
    base_t, base_short = grid_target_degrees(grid, d)
    assert np.array_equal(np.tile(base_t, g), t) and base_short == short


# -- the generator -------------------------------------------------------------------------------
@pytest.mark.parametrize("w,h,d,r,g", COMPETITION_CASES + OTHER_CASES)
def test_random_grid_graph_properties(w, h, d, r, g):
    grid = Grid(w, h, r, g)
    for seed in (0, 1):
        check_grid_graph(grid, d, random_grid_graph(grid, d, seed=seed))


@pytest.mark.parametrize("w,h,d,r,g", COMPETITION_CASES + [(7, 7, 3, 1, 1), (10, 10, 2, 1, 4),
                                                          (10, 10, 2, 2, 4)])
def test_seeds(w, h, d, r, g):
    grid = Grid(w, h, r, g)
    graphs = [random_grid_graph(grid, d, seed=s) for s in range(4)]
    again = random_grid_graph(grid, d, seed=2)
    assert np.array_equal(again.adj, graphs[2].adj)  # same seed, same base rows
    assert len({x.edges().tobytes() for x in graphs}) == 4  # other seeds, other graphs


def test_same_graph_on_every_machine():
    """Pinned: the generator draws only from golf's xoshiro256** (no NumPy or global RNG), so
    these bytes are the same everywhere. A deliberate change of the algorithm changes them:
    then update the digest."""
    graph = random_grid_graph(Grid(10, 10, 3, 2), 6, seed=7)
    digest = hashlib.sha256(graph.edges().astype("<i8").tobytes()).hexdigest()[:16]
    assert digest == PINNED_DIGEST


PINNED_DIGEST = "25f8c00847e1f785"


@given(w=st.integers(1, 11), h=st.integers(1, 11), g=st.sampled_from([1, 2, 4]),
       r=st.integers(1, 5), d=st.integers(2, 9), seed=st.integers(0, 2**40))
@settings(max_examples=60, deadline=None)
def test_drawn_lattices(w, h, g, r, d, seed):
    if g == 4:
        w = h = 2 * max(1, w // 2)  # square, even side
    elif g == 2 and (w * h) % 2:
        w += 1
    grid = Grid(w, h, r, g)
    try:
        graph = random_grid_graph(grid, d, seed=seed)
    except GolfError as err:
        for part in (f"w={w}", f"h={h}", f"d={d}", f"r={r}", f"g={g}"):
            assert part in str(err)
        # refused only where no such graph exists: with d = 2 and r = 1 a rotation-symmetric
        # Hamiltonian cycle of lattice steps (checked by search), else the degrees t cannot
        # be met even without the symmetry (maximum b-matching of the reach graph)
        if d == 2 and r == 1 and grid.n <= 20:
            assert not has_symmetric_hamiltonian_cycle(grid)
        elif d == 2 and r == 1:  # the chessboard argument, on larger lattices
            colour_change = {1: 0, 2: (w + h) % 2, 4: 1}[g]
            assert grid.m % 2 != colour_change
        else:
            t, _ = expected_degrees(Grid(w, h, r, 1), d)
            assert max_degree_sum(Grid(w, h, r, 1), t) < t.sum() - 1
        return
    check_grid_graph(grid, d, graph)


def max_degree_sum(grid, t):
    """The largest degree sum of a subgraph of the reach graph with degrees <= t, by the
    textbook reduction of b-matching to matching (each edge split in two, each vertex copied
    t times)."""
    c = grid.cells()
    n = grid.n
    edges = [(u, v) for u in range(n) for v in range(u + 1, n)
             if np.abs(c[u] - c[v]).sum() <= grid.r]
    G = nx.Graph()
    for k, (u, v) in enumerate(edges):
        G.add_edge(("e", k, u), ("e", k, v))
        for x in (u, v):
            for j in range(int(t[x])):
                G.add_edge(("v", x, j), ("e", k, x))
    return 2 * (len(nx.max_weight_matching(G, maxcardinality=True)) - len(edges))


def has_symmetric_hamiltonian_cycle(grid):
    """Depth-first search for a Hamiltonian cycle of lattice steps invariant under the
    rotation (small lattices only)."""
    w, h, g, n = grid.w, grid.h, grid.g, grid.n
    assert n <= 24
    cell = [(v % w, v // w) for v in range(n)]
    index = {xy: v for v, xy in enumerate(cell)}
    nbrs = [[index[(x + dx, y + dy)] for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))
             if (x + dx, y + dy) in index] for x, y in cell]
    rot = [index[turn(x, y, w, h, g)] for x, y in cell]
    path, seen = [0], [False] * n
    seen[0] = True

    def invariant(cycle):
        e = {frozenset(p) for p in zip(cycle, cycle[1:] + cycle[:1])}
        return {frozenset(rot[v] for v in p) for p in e} == e

    def dfs():
        if len(path) == n:
            return 0 in nbrs[path[-1]] and invariant(path)
        for u in nbrs[path[-1]]:
            if not seen[u]:
                seen[u] = True
                path.append(u)
                if dfs():
                    return True
                path.pop()
                seen[u] = False
        return False

    return n > 2 and dfs()


def lattices_up_to(cells):
    for w, h in itertools.product(range(2, 7), repeat=2):
        for g in (1, 2, 4):
            if w * h <= cells and symmetry_problem(w, h, g) is None:
                yield w, h, g


@pytest.mark.parametrize("w,h,g", list(lattices_up_to(20)))
def test_degree_two_with_lattice_steps_exactly_when_a_cycle_exists(w, h, g):
    """d = 2, r = 1 needs a rotation-symmetric Hamiltonian cycle of lattice steps: the
    generator builds one exactly when a search finds one, and otherwise says why."""
    grid = Grid(w, h, 1, g)
    if has_symmetric_hamiltonian_cycle(grid):
        check_grid_graph(grid, 2, random_grid_graph(grid, 2, seed=3))
    else:
        with pytest.raises(GolfError, match=f"{w}x{h} grid .*d=2, r=1, g={g}.*Hamiltonian"):
            random_grid_graph(grid, 2, seed=3)


@pytest.mark.parametrize("w,h,d,r,g,match", [
    (3, 3, 1, 2, 1, r"no connected graph on the 3x3 grid \(w=3, h=3\) with d=1, r=2, g=1"),
    (4, 4, 0, 1, 4, r"w=4, h=4\) with d=0, r=1, g=4"),
    (3, 3, 6, 2, 1, r"could not build .*w=3, h=3\) with d=6, r=2, g=1.*min\(d, cells"),
    (3, 4, 7, 2, 2, r"could not build .*w=3, h=4\) with d=7, r=2, g=2"),
    (3, 3, -1, 1, 1, r"d must be >= 0"),
])
def test_impossible_problems_are_named(w, h, d, r, g, match):
    with pytest.raises(GolfError, match=match):
        random_grid_graph(Grid(w, h, r, g), d, seed=0)


def test_crowded_refusals_are_real():
    """The 'could not build' cases above have no graph with the degrees t, symmetric or not."""
    for w, h, d, r in [(3, 3, 6, 2), (3, 4, 7, 2)]:
        grid = Grid(w, h, r, 1)
        t, _ = expected_degrees(grid, d)
        assert max_degree_sum(grid, t) < t.sum() - 1


def test_tiny_and_complete():
    one = random_grid_graph(Grid(1, 1, 1, 1), 3)
    assert (one.n, one.num_edges) == (1, 0)
    pair = random_grid_graph(Grid(2, 1, 1, 2), 1)  # the one edge is its own 180-degree turn
    assert pair.edges().tolist() == [[0, 1]] and pair.g == 2
    full = random_grid_graph(Grid(4, 4, 0, 4), 15)  # r = 0: no length limit, K16
    assert full.num_edges == 16 * 15 // 2


def test_target_degrees_match_the_naive_rule():
    for w, h, r, g in [(7, 5, 2, 1), (8, 6, 3, 2), (10, 10, 4, 4), (6, 6, 1, 4), (9, 1, 2, 1)]:
        grid = Grid(w, h, r, g)
        for d in range(1, 12):
            t, short = grid_target_degrees(grid, d)
            nt, nshort = expected_degrees(grid, d)
            assert np.array_equal(np.tile(t, g), nt) and short == nshort


def test_docstring_examples():
    result = doctest.testmod(golf.starts.random_grid, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0
