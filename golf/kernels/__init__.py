"""Small pure Numba kernels shared by golf's backends, moves and search, one module a topic.

``bits``       popcount and the vectorised row OR of a bit-matrix level; page-aligned arrays
``symmetry``   index arithmetic of g-symmetric graphs (base row and rotation of a vertex)
``merge``      the status codes of a partial result and how partial results combine
``rng``        the xoshiro256** generator whose whole state is an array (checkpointable)
``changes``    which slots of two row arrays differ (the GPU backends' patch of a swap)
``reach``      how many vertices a BFS reaches in a CSR graph (golf validate's connectivity)

Everything here is a function over arrays and integers: no I/O, no errors for users, no Python
objects; Python code around them does the orchestration. All are compiled with
``cache=True``, so that a second process loads them from disk instead of compiling again.
"""
