"""Slow, obvious implementations that the fast code is tested against.

Nothing here uses golf's kernels or its symmetry shortcut: distances come from networkx on the
full expanded graph, symmetric graphs are built edge by edge from rotations of random edges,
and lifts over metacyclic groups edge by edge from the semidirect product's multiplication.
"""

from __future__ import annotations

import itertools
import math

import networkx as nx
import numpy as np


def apsp_score(n, edges):
    """(diameter, total, peripheral) over all pairs with networkx, or None if disconnected."""
    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from(map(tuple, np.asarray(edges).tolist()))
    if n > 1 and not nx.is_connected(G):
        return None
    total = 0
    ecc = {}
    for s, dist in nx.all_pairs_shortest_path_length(G):
        total += sum(dist.values())
        ecc[s] = max(dist.values())
    diameter = max(ecc.values()) if ecc else 0
    peripheral = sum(1 for v in ecc.values() if v == diameter)
    return diameter, total // 2, peripheral


def distances(n, edges):
    """The n x n matrix of hop distances with networkx (-1: unreachable)."""
    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from(map(tuple, np.asarray(edges).tolist()))
    dist = np.full((n, n), -1)
    for s, row in nx.all_pairs_shortest_path_length(G):
        for v, k in row.items():
            dist[s, v] = k
    return dist


def symmetric_edges(n, g, num_orbits, rng, half_orbits=0):
    """A random g-symmetric simple edge set: rotations of random edges (degrees arbitrary).

    ``half_orbits`` adds that many edges ``v -- v + n/2`` (with their rotations) when g is even.
    """
    m = n // g
    edges = set()
    for _ in range(num_orbits):
        u, v = (int(x) for x in rng.integers(0, n, 2))
        if u == v:
            continue
        for k in range(g):
            a, b = (u + k * m) % n, (v + k * m) % n
            edges.add((min(a, b), max(a, b)))
    if g % 2 == 0:
        for _ in range(half_orbits):
            u = int(rng.integers(0, n))
            for k in range(g):
                a, b = (u + k * m) % n, (u + k * m + n // 2) % n
                edges.add((min(a, b), max(a, b)))
    return np.array(sorted(edges), dtype=np.int64).reshape(-1, 2)


def moore_bounds(n, d):
    """Moore bounds by literally filling a tree level by level."""
    if n == 1:
        return 0, 0.0
    left, depth, level_size, depths = n - 1, 0, d, []
    while left > 0:
        depth += 1
        if level_size == 0:
            return None, None
        take = min(left, level_size)
        depths += [depth] * take
        left -= take
        level_size = level_size * (d - 1)
    return depth, sum(depths) / (n - 1)


def brute_min_aspl(n, d):
    """Smallest (diameter, total) over ALL graphs on n vertices with degree <= d (tiny n)."""
    pairs = list(itertools.combinations(range(n), 2))
    best = None
    for mask in range(1 << len(pairs)):
        edges = [p for k, p in enumerate(pairs) if mask >> k & 1]
        deg = [0] * n
        for u, v in edges:
            deg[u] += 1
            deg[v] += 1
        if max(deg, default=0) > d:
            continue
        s = apsp_score(n, edges)
        if s is not None and (best is None or s[:2] < best):
            best = s[:2]
    return best


def aspl(n, total):
    return total / math.comb(n, 2)


def grid_turn(cells, w, h, quarter_turns):
    """Cells ``(x, y)`` (an ``(k, 2)`` array) turned about the lattice's centre: 2 quarter
    turns is 180 degrees, 1 is 90 degrees (square lattices), geometry only."""
    x, y = cells[:, 0], cells[:, 1]
    if quarter_turns == 2:
        return np.stack([w - 1 - x, h - 1 - y], axis=1)
    return np.stack([w - 1 - y, x], axis=1)


def grid_edges(w, h, r, g, num_orbits, rng):
    """A random grid edge set as ``(E, 4)`` cells ``x1, y1, x2, y2``: random edges of length
    <= r, each with its turns by 360/g degrees (found geometrically, without golf's numbering);
    degrees arbitrary, connected or not."""
    edges = set()
    for _ in range(num_orbits):
        x1, y1 = int(rng.integers(0, w)), int(rng.integers(0, h))
        dx, dy = (int(t) for t in rng.integers(-r, r + 1, 2))
        x2, y2 = x1 + dx, y1 + dy
        if abs(dx) + abs(dy) > r or not (0 <= x2 < w and 0 <= y2 < h) or (dx, dy) == (0, 0):
            continue
        pair = np.array([[x1, y1], [x2, y2]])
        for _k in range(g):
            a, b = (tuple(int(t) for t in c) for c in pair)
            edges.add((a + b) if a < b else (b + a))
            pair = grid_turn(pair, w, h, 4 // g)
    return np.array(sorted(edges), dtype=np.int64).reshape(-1, 4)


def product(a, b, r, k, h):
    """(x1, t1)(x2, t2) = (x1 + r^t1 x2 mod a, t1 + t2 mod b), elements as x*b + t."""
    x1, t1 = divmod(k, b)
    x2, t2 = divmod(h, b)
    return ((x1 + pow(r, t1, a) * x2) % a) * b + (t1 + t2) % b


def lift_edges(a, b, r, m, orbits):
    """The edges of the lift: orbit (i, j, c) joins (h, i) and (h c, j) for every h; vertex
    (h, i) is h*m + i. Built edge by edge, without golf."""
    g = a * b
    edges = set()
    for i, j, c in orbits:
        for h in range(g):
            u, v = h * m + i, product(a, b, r, h, c) * m + j
            if u != v:
                edges.add((min(u, v), max(u, v)))
    return sorted(edges)


def random_lift(rng, a, b, r, m, count):
    """A lift of ``count`` random orbits over Z_a ⋊_r Z_b with m base vertices (degrees
    arbitrary, maybe disconnected)."""
    return lift_edges(a, b, r, m, [(int(rng.integers(m)), int(rng.integers(m)),
                                    int(rng.integers(a * b))) for _ in range(count)])


def centre_lift(rng, g, m, c, count, attach, group=None):
    """A random graph with ``c`` centre vertices ``g*m .. g*m+c-1``: ``count`` random edge
    orbits among the ``g*m`` others (cyclic: ``u -- v`` moved by ``k*m`` mod ``g*m``; with
    ``group = (a, b, r)``: the lift's orbits) and ``attach`` random (centre, orbit) pairs,
    each joining the centre to all ``g`` vertices of the orbit. Built edge by edge, without
    golf; degrees arbitrary, maybe disconnected."""
    n_sym = g * m
    edges = set()
    for _ in range(count):
        i, j, k = int(rng.integers(m)), int(rng.integers(m)), int(rng.integers(g))
        for h in range(g):
            if group is None:
                u, v = h * m + i, ((h + k) % g) * m + j
            else:
                u, v = h * m + i, product(*group, h, k) * m + j
            if u != v:
                edges.add((min(u, v), max(u, v)))
    for _ in range(attach):
        z, i = n_sym + int(rng.integers(c)), int(rng.integers(m))
        for h in range(g):
            edges.add((h * m + i, z))
    return sorted(edges)


def host_switch_score(n, s, edges):
    """(h-diameter, h-total, peripheral hosts) of a host-switch graph by BFS over the whole
    graph (hosts ``0..n-1`` and switches ``n..n+s-1`` alike) with networkx, or None when two
    hosts cannot reach each other. ``edges`` uses the file's ids; repeats change nothing."""
    G = nx.Graph()
    G.add_nodes_from(range(n + s))
    G.add_edges_from(map(tuple, np.asarray(edges).tolist()))
    total, ecc = 0, []
    for x in range(n):
        dist = nx.single_source_shortest_path_length(G, x)
        far = [dist.get(y) for y in range(n) if y != x]
        if any(k is None for k in far):
            return None
        total += sum(far)
        ecc.append(max(far, default=0))
    diameter = max(ecc)
    return diameter, total // 2, sum(1 for e in ecc if e == diameter)


def host_switch_bounds(n, r):
    """(h-diameter bound, h-ASPL bound as a Fraction) by trying every way to fill the levels
    of one host's shortest-path tree: level 1 is its switch; each switch at a level gives
    ``r - 1`` places at the next, each taken by a host, a switch, or left empty. The least
    deepest level and the least sum of depths over the other ``n - 1`` hosts, found apart.
    None, None when the hosts cannot all be placed (tiny n and r only)."""
    from fractions import Fraction
    from functools import lru_cache

    if n == 1:
        return 0, Fraction(0)

    @lru_cache(maxsize=None)
    def best(places, left, depth):
        # (least deepest level, least sum of depths) to place `left` hosts in `places` places
        # at `depth`; None if it cannot be done
        if left == 0:
            return depth - 1, 0
        if places == 0 or depth > 3 * n:
            return None
        deep, total = None, None
        for hosts in range(0, min(places, left) + 1):
            rest = best(min((places - hosts) * (r - 1), left - hosts), left - hosts, depth + 1)
            if rest is None:
                continue
            d = max(rest[0], depth) if hosts else rest[0]
            t = rest[1] + hosts * depth
            deep = d if deep is None else min(deep, d)
            total = t if total is None else min(total, t)
        return None if deep is None else (deep, total)

    found = best(min(r - 1, n - 1), n - 1, 2)  # level 1 is the host's switch: its r-1 ports
    if found is None or r < 1:
        return None, None
    return found[0], Fraction(found[1], n - 1)


def empty_slots(graph, rng, p):
    """``graph`` with each slot of its base rows emptied with probability ``p``, with the
    other end of its orbit (the reverse slot), so that it stays a valid symmetric graph."""
    adj = graph.adj.copy()
    for i, j in zip(*np.nonzero(rng.random(adj.shape) < p)):
        w = adj[i, j]
        if w >= 0:
            adj[i, j] = -1
            k, i2 = divmod(int(w), graph.m)
            back = graph.moved(i, graph.group.inv(k) if graph.group else -k)
            adj[i2][adj[i2] == back] = -1
    return graph.with_rows(adj)
