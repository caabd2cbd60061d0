"""A memetic search: a population of graphs of one form, crossover plus local search.

Each generation makes one child (:meth:`Memetic.generation`):

1. **Parents** by score and by distance: ``a`` wins a tournament of :data:`TOURNAMENT` members
   (the better score), ``b`` is the member of another draw of :data:`TOURNAMENT` farthest from
   ``a`` (the orbits one has and the other has not, :func:`distance`), so that the children
   mix graphs that differ.
2. **Crossover** (:func:`golf.engine.crossover.crossover`): ``a``'s orbits at a ball of half
   the base vertices around a random root, ``b``'s orbits that fit, a repair.
3. **Local search**: hill climbing with golf's own chain (:class:`golf.engine.annealer.Annealer`,
   ``method='hill'``, its compiled incremental scoring) for ``local_steps`` steps; the climb
   ends at its best graph.
4. **Replacement**: the child takes the place of the worst member when it scores better and
   no member has its score and orbits (no copies).

Scores are exact ``(diameter, total)`` pairs, smaller better. The same seed, graphs and
evaluator give the same generations; :meth:`Memetic.state` and :meth:`Memetic.load_state`
carry a population and its generator across a checkpoint.
"""

from __future__ import annotations

import numpy as np

from golf.engine.crossover import ball, crossover, orbits
from golf.errors import GolfError

__all__ = ["Memetic", "distance", "TOURNAMENT"]

# members drawn for each parent
TOURNAMENT = 3


def distance(a, b) -> int:
    """The edge orbits that one of two graphs of one form has and the other has not."""
    return len(set(orbits(a)) ^ set(orbits(b)))


class Memetic:
    """The population of ``graphs`` (one form, each climbed first) scored by ``evaluator``
    (module docstring). ``local_steps``: hill-climbing steps a child; ``near_moves``,
    ``voltage_moves``: the climb's move mix (:class:`golf.engine.annealer.Annealer`)."""

    def __init__(self, graphs, evaluator, *, seed: int = 0, local_steps: int = 5000,
                 near_moves: float = 0.5, voltage_moves: float = 0.3):
        if len(graphs) < 2:
            raise GolfError(f"a memetic population needs at least 2 graphs, got {len(graphs)}")
        if len({g.form for g in graphs}) != 1:
            raise GolfError("a memetic population holds graphs of one form")
        self.evaluator = evaluator
        self.local_steps = int(local_steps)
        self.moves = {"near_moves": near_moves,
                      "voltage_moves": voltage_moves if graphs[0].g > 1 else 0.0}
        self.rng = np.random.default_rng(int(seed))
        self.generations = 0
        self.entered = 0
        self.members = []
        for k, graph in enumerate(graphs):
            self.members.append(self._climb(graph, int(seed) * 1_000_003 + k))

    # -- one generation ---------------------------------------------------------------------
    def generation(self) -> bool:
        """Make one child (module docstring); True when it entered the population."""
        self.generations += 1
        rng, pop = self.rng, self.members
        a = min(rng.choice(len(pop), TOURNAMENT), key=lambda k: pop[k][0])
        others = [k for k in rng.choice(len(pop), TOURNAMENT) if k != a] or [
            (a + 1) % len(pop)]
        b = max(others, key=lambda k: (distance(pop[a][1], pop[k][1]), -k))
        ga = pop[a][1]
        keep = ball(ga, int(rng.integers(ga.m)), max(1, ga.m // 2))
        child = crossover(ga, pop[b][1], keep, rng)
        if not self.evaluator.evaluate(child).connected:
            return False
        score, graph = self._climb(child, int(rng.integers(2**62)))
        worst = max(range(len(pop)), key=lambda k: pop[k][0])
        if score >= pop[worst][0] or any(score == s and graph == g for s, g in pop):
            return False
        pop[worst] = (score, graph)
        self.entered += 1
        return True

    def _climb(self, graph, seed: int):
        """The best graph of a hill climb of ``local_steps`` from ``graph``, and its score."""
        from golf.engine.annealer import Annealer

        ann = Annealer(graph, self.evaluator, steps=self.local_steps, method="hill",
                       seed=seed, **self.moves)
        ann.set_temperatures(1.0, 1.0)  # unused by a hill climb
        while int(ann.stop_reason) == 0:
            ann.run(self.local_steps)
        best = ann.best_graph()
        s = self.evaluator.evaluate(best)
        return (s.diameter, s.total), best

    # -- what it holds ----------------------------------------------------------------------
    @property
    def best(self):
        """``(score, graph)`` of the best member."""
        return min(self.members, key=lambda m: m[0])

    def scores(self) -> list:
        return [s for s, _ in self.members]

    def state(self) -> dict:
        """The population, the counters and the generator, for a checkpoint."""
        return {"adjs": np.stack([g.adj for _, g in self.members]),
                "scores": np.array([s for s, _ in self.members], dtype=np.int64),
                "generations": self.generations, "entered": self.entered,
                "rng": self.rng.bit_generator.state}

    def load_state(self, state: dict) -> None:
        """Take a population of the same form and size from :meth:`state`."""
        adjs = np.asarray(state["adjs"])
        if adjs.shape != (len(self.members), *self.members[0][1].adj.shape):
            raise GolfError(f"a memetic state of shape {adjs.shape} for a population of "
                            f"{len(self.members)} graphs of rows {self.members[0][1].adj.shape}")
        like = self.members[0][1]
        self.members = [((int(s[0]), int(s[1])), like.with_rows(adj.copy()))
                        for s, adj in zip(state["scores"], adjs)]
        self.generations, self.entered = int(state["generations"]), int(state["entered"])
        self.rng.bit_generator.state = state["rng"]
