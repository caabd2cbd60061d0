"""The run configs of the Python API: the keywords of :func:`golf.search` and
:func:`golf.chase` as a raw run config (:class:`Keywords`), which the schema then validates
like a file's."""

from __future__ import annotations

from dataclasses import dataclass, field

from golf.config.schema import SCHEMA, evaluator_schema
from golf.errors import GolfError

__all__ = ["Keywords"]

# keywords that are arguments of search() or its output, not settings
TAKEN = {"n", "d", "g", "dir", "time_limit"}


@dataclass
class Keywords:
    """The arguments of :func:`golf.search` (and of :func:`golf.chase`): the problem ``n``,
    ``d``, ``g`` (``n`` None for a grid, whose settings give ``grid`` and ``r``), the budget
    (``seconds``, ``steps``), the ``seed``, the ``backend``, whether to ``plot`` the
    convergence, and ``settings``: every other keyword, which goes to the section of the
    schema that has it (search, evaluator, output, parallel, problem)."""

    n: int | None
    d: int
    g: int | str = 1
    seconds: float | None = None
    steps: int = 0
    seed: int = 0
    backend: str = "auto"
    plot: bool = False
    settings: dict = field(default_factory=dict)

    def config(self, name: str = "search") -> dict:
        """The raw run config (to validate with :func:`golf.config.validate`); a GolfError
        naming a keyword that no section has."""
        cfg = {"name": name, "problem": {"n": self.n, "d": self.d, "g": self.g},
               "search": {"seed": self.seed, "steps": self.steps,
                          "time_limit": self.seconds},
               "evaluator": {"backend": self.backend}, "parallel": {},
               "output": {"plot": self.plot}}
        sections = {sec: (evaluator_schema() if sec == "evaluator" else spec)
                    for sec, spec in SCHEMA.items() if isinstance(spec, dict)}
        for key, value in self.settings.items():
            home = [sec for sec, spec in sections.items() if key in spec]
            if not home or key in TAKEN:
                known = sorted({k for spec in sections.values() for k in spec} - TAKEN)
                raise GolfError(f"search: unknown setting '{key}'; known: {', '.join(known)}")
            cfg[home[0]][key] = value
        return cfg
