"""The backend registry: one line a backend, one call shape, and ``auto``.

>>> from golf.evaluators import make_evaluator
>>> from golf.starts.random import random_graph
>>> graph = random_graph(50, 4, seed=1)
>>> ev = make_evaluator("bitset", 50, 4)
>>> ev.evaluate(graph).diameter
5

A backend is its module, holding one subclass of :class:`Evaluator` that declares its name,
options, capabilities and cost estimate (see :mod:`golf.evaluators.base`), plus one line in
:data:`REGISTRY` below. The command line's choices, the config schema, ``auto``, the search
(which calls a compiled backend's kernel through its tag) and the conformance tests all read
this registry. Modules are imported when a backend is first asked for (and this package
imports none at all until then: the command line reads the names without Numba), so that golf
without SciPy or CuPy still works for the others.
"""

from __future__ import annotations

import importlib

from golf.errors import GolfError

__all__ = ["REGISTRY", "names", "backend_class", "backends", "make_evaluator",
           "build_evaluator", "host_switch_evaluator", "choose_backend", "check_options",
           "Evaluator", "Score", "Capabilities", "Estimate", "OK", "DISCONNECTED", "EXCEEDED"]

# name -> "module:class". The order breaks ties between equal estimates.
REGISTRY = {
    "bitset": "golf.evaluators.bitset:BitsetEvaluator",
    "bfs": "golf.evaluators.bfs:BfsEvaluator",
    "gpu-bitset": "golf.evaluators.gpu_bitset:GpuBitsetEvaluator",
    "seidel": "golf.evaluators.seidel:SeidelEvaluator",
    "reference": "golf.evaluators.reference:ReferenceEvaluator",
}


def names() -> list[str]:
    """The registered backend names (no module is imported)."""
    return list(REGISTRY)


def backend_class(name: str) -> type:
    """The evaluator class of backend ``name``; a GolfError naming the choices if unknown."""
    try:
        module, cls = REGISTRY[name].split(":")
    except KeyError:
        raise GolfError(f"unknown backend '{name}'; expected one of: auto, "
                        f"{', '.join(REGISTRY)}") from None
    return getattr(importlib.import_module(module), cls)


def backends() -> dict[str, type]:
    """Every registered backend's class, by name (imports their modules)."""
    return {name: backend_class(name) for name in REGISTRY}


def option_specs() -> dict:
    """Every backend option, by name, as a :class:`golf.options.Spec` (a name several
    backends take has one spec)."""
    out: dict = {}
    for cls in backends().values():
        out.update(cls.options)
    return out


def check_options(name: str, options: dict, where=lambda key: "") -> dict:
    """``options`` checked against backend ``name``'s specs (values converted); an option it
    does not take is a GolfError naming the ones it does."""
    from golf.options import check_value

    cls = backend_class(name)
    out = {}
    for key, value in options.items():
        if key not in cls.options:
            takes = ", ".join(cls.options) or "none"
            raise GolfError(f"{where(key) + ': ' if where(key) else ''}backend '{name}' has no "
                            f"option '{key}'; its options: {takes}")
        out[key] = check_value(key, value, cls.options[key], where)
    return out


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3g} ms"


def choose_backend(n: int, d: int, g: int = 1, threads: int | None = None,
                   ranks: int = 1, centres: int = 0) -> tuple[str, str]:
    """The backend ``auto`` picks for graphs of shape ``(n, d, g)`` and why: the one whose own
    estimate of an evaluation (with ``threads`` CPU threads, split over ``ranks`` MPI ranks)
    is smallest. Returns ``(name, reason)``; the reason gives the winner's estimate and what it
    is made of, and the others' estimates or why they were not considered."""
    from golf.evaluators.base import cpu_threads

    threads = threads or cpu_threads()
    estimates, others = {}, []
    for name, cls in backends().items():
        why_not = cls.unavailable() or (
            "no centre-vertex form" if centres and not cls.takes_centres else None)
        est = None if why_not else cls.estimate(n, d, g, threads=threads, ranks=ranks)
        if est is not None:
            estimates[name] = est
        else:
            others.append(f"{name}: {why_not or 'not estimated for this shape'}")
    if not estimates:  # pragma: no cover - bitset and bfs always estimate
        raise GolfError(f"no backend can evaluate n={n}, d={d}, g={g} here")
    best = min(estimates, key=lambda k: estimates[k].seconds)
    est = estimates[best]
    rest = [f"{k} ~{_ms(e.seconds)}" for k, e in estimates.items() if k != best]
    reason = (f"{best}: ~{_ms(est.seconds)} per evaluation estimated from measured rates "
              f"({est.note}); threads={threads}" + (f", ranks={ranks}" if ranks > 1 else "")
              + (f"; vs {', '.join(rest)}" if rest else "")
              + (f"; not considered: {'; '.join(others)}" if others else ""))
    return best, reason


def make_evaluator(name: str, n: int, d: int, g: int = 1, *, comm=None, batch: int = 1,
                   symmetry=None, centres: int = 0, **options):
    """Build the evaluator ``name`` (or ``auto``) for graphs of shape ``(n, d, g)``.

    ``comm`` splits the work over the ranks of an MPI communicator; ``batch`` is the number
    of graphs one ``evaluate_many`` call may hold. ``options`` are the backend's own (see its
    ``options``): one it does not take is an error naming it, except under ``auto``, where
    the options of other backends are left out (the evaluator's ``auto_reason`` says what was
    chosen and why, and ``dropped_options`` what was left out). ``symmetry``: a non-cyclic
    symmetry group of order ``g`` (:class:`golf.group.Group`), None for the cyclic one;
    ``centres``: the centre vertices of the form (:mod:`golf.graph`).
    """
    reason, dropped = None, []
    if name == "auto":
        name, reason = choose_backend(n, d, g, options.get("threads"),
                                      comm.size if comm is not None else 1, centres)
        takes = backend_class(name).options
        dropped = sorted(k for k in options if k not in takes)
        options = {k: v for k, v in options.items() if k in takes}
    options = check_options(name, {k: v for k, v in options.items() if v is not None})
    cls = backend_class(name)
    ev = (cls(n, d, g, comm=comm, batch=batch, symmetry=symmetry, centres=centres, **options)
          if centres else cls(n, d, g, comm=comm, batch=batch, symmetry=symmetry, **options))
    if reason is not None:
        ev.auto_reason, ev.dropped_options = reason, dropped
    return ev


def host_switch_evaluator(backend: str, hosts: int, switches: int, radix: int, *,
                          threads=None, chunk_words=None, device=None, batch: int = 1,
                          comm=None):
    """The host-switch evaluator ``backend`` (one of
    :data:`golf.hostswitch.h_evaluator.BACKENDS`) of ``hosts`` hosts on ``switches`` switches
    of radix ``radix``; the options a backend does not take are ignored."""
    from golf.hostswitch.h_evaluator import HostSwitchBfsEvaluator, HostSwitchEvaluator

    if backend == "gpu-bitset":
        from golf.hostswitch.h_gpu import HostSwitchGpuEvaluator

        return HostSwitchGpuEvaluator(hosts, switches, radix, device=device, batch=batch,
                                      comm=comm)
    if backend == "bfs":
        return HostSwitchBfsEvaluator(hosts, switches, radix, threads=threads, batch=batch,
                                      comm=comm)
    return HostSwitchEvaluator(hosts, switches, radix, threads=threads,
                               chunk_words=chunk_words, batch=batch, comm=comm)


def build_evaluator(cfg, comm=None):
    """The evaluator of a validated run config (``problem``, ``evaluator``, ``search.batch``
    -- or, where a tabu search runs, ``search.neighbourhood`` as far as its candidates' rows
    fit in ~256 MiB -- and ``parallel.mode``): the work is split over ``comm``'s ranks only
    with ``parallel.mode: evaluator``."""
    p, e, s = cfg["problem"], dict(cfg["evaluator"]), cfg["search"]
    split = comm if cfg["parallel"]["mode"] == "evaluator" else None
    if p.get("hosts") is not None:  # a host-switch problem: golf.hostswitch's evaluators
        return host_switch_evaluator(e.get("backend", "auto"), p["hosts"], p["n"], p["d"],
                                     threads=e.get("threads"),
                                     chunk_words=e.get("chunk_words"), device=e.get("device"),
                                     batch=s["batch"], comm=split)
    backend = e.pop("backend")
    batch = s["batch"]
    if s["method"] == "tabu" or s["polish"] > 0:
        # a tabu step scores its candidates together, in batches of rows up to ~256 MiB
        rows = 4 * p["n"] // p["g"] * p["d"]
        batch = max(batch, min(s["neighbourhood"], (256 << 20) // rows))
    from golf.group import parse_group

    symmetry = parse_group(p.get("group"), p["g"], "problem.group")
    return make_evaluator(backend, p["n"], p["d"], p["g"], comm=split, batch=batch,
                          symmetry=symmetry, centres=p.get("centres", 0), **e)


_BASE = ("Evaluator", "Score", "Capabilities", "Estimate", "OK", "DISCONNECTED", "EXCEEDED")


def __getattr__(name):  # the base classes on first use, without importing Numba before
    if name in _BASE:
        from golf.evaluators import base

        return getattr(base, name)
    raise AttributeError(f"module 'golf.evaluators' has no attribute '{name}'")
