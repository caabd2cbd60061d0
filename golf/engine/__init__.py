"""The search engine: what walks from graph to graph.

``annealer``       one chain: the compiled propose-evaluate-accept loop (simulated annealing,
                   hill climbing)
``population``     K chains scored together: parallel tempering, population annealing
``tabu``           tabu search: the best of K candidate swaps a step
``moves``          the symmetric moves (2-opt swaps, near swaps, voltage moves) and their undo
``neighbourhood``  K distinct candidate swaps of one graph, recorded to apply and revert
``crossover``      a child of two graphs of one form: a ball of one, the orbits of the other
                   that fit, a repair of the degrees
``memetic``        a population of one form: parents by score and distance, crossover,
                   hill climbing, replacement by crowding

The engine scores graphs through an evaluator's compiled kernel (:mod:`golf.evaluators`,
:mod:`golf.kernels.dispatch`) and knows nothing of runs, folders or MPI (:mod:`golf.run`).
"""
