"""The modules that moved when the package was grouped by layer, under their old names for
one release: ``import golf.anneal`` still works, gives the module ``golf.engine.annealer``
itself (the same object, so monkeypatching either name patches both) and warns with a
DeprecationWarning that names the new place."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

# old module name -> new module name
MOVED = {
    "golf.anneal": "golf.engine.annealer",
    "golf.population": "golf.engine.population",
    "golf.tabu": "golf.engine.tabu",
    "golf.moves": "golf.engine.moves",
    "golf.neighbourhood": "golf.engine.neighbourhood",
    "golf.generate": "golf.starts.random",
    "golf.grid_generate": "golf.starts.random_grid",
    "golf.circulant": "golf.starts.circulant",
    "golf.run.symmetry": "golf.run.portfolio",
    "golf.hostswitch.h_scoring": "golf.evaluators.h_scoring",
    "golf.hostswitch.h_gpu": "golf.evaluators.h_gpu_bitset",
}


class _Alias(importlib.abc.Loader):
    def __init__(self, new: str):
        self.new = new

    def create_module(self, spec):
        return importlib.import_module(self.new)

    def exec_module(self, module):
        pass


class MovedFinder(importlib.abc.MetaPathFinder):
    """Finds the old names of :data:`MOVED` and loads them as the new modules."""

    def find_spec(self, fullname, path=None, target=None):
        new = MOVED.get(fullname)
        if new is None:
            return None
        warnings.warn(f"{fullname} moved to {new}; the old name goes in the next release",
                      DeprecationWarning, stacklevel=2)
        return importlib.util.spec_from_loader(fullname, _Alias(new))


def install() -> None:
    if not any(isinstance(f, MovedFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, MovedFinder())
