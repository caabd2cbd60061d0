"""Start graphs: where a search begins.

``random``       random connected symmetric graphs, cyclic or over a metacyclic group
``random_grid``  random connected grid graphs (edges within the lattice's reach)
``circulant``    circulant graphs ``C_n(S)`` and the search for a good ``S``
"""
