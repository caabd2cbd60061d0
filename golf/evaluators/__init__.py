"""The backend registry: one line a backend of every problem kind, one call shape, and the one
decision of ``auto``.

>>> from golf.evaluators import make_evaluator
>>> from golf.starts.random import random_graph
>>> graph = random_graph(50, 4, seed=1)
>>> ev = make_evaluator("bitset", 50, 4)
>>> ev.evaluate(graph).diameter
5

A backend is its module, holding one subclass of :class:`Evaluator` that declares its
options, capabilities and cost estimate (see :mod:`golf.evaluators.base`), plus one line in
:data:`REGISTRY` below: the name a config or the command line gives it, the problem kinds it
scores (``general`` and ``grid`` graphs, or ``host-switch`` graphs) and where its class is.
One name may serve several kinds with a class for each (``bitset`` is the bit matrix of an
Order/Degree graph, or the one weighted by host counts of a host-switch graph). The command
line's choices, the config schema's evaluator section, ``auto``, the search (which calls a
compiled backend's kernel through its tag) and the conformance tests all read this registry.
Modules are imported when a backend is first asked for (and this package imports none at all
until then: the command line reads the names without Numba), so that golf without SciPy or
CuPy still works for the others.

:func:`decide` is the one place that decides which backend scores a problem: ``auto`` from
the backends' own estimates (or the rules of a chase), a backend asked for checked against
what it can score; it says why. ``golf chase``, the trials of ``g: auto``, the run, the
command line and the config's checks call it. Beside it are the two other choices of a
backend golf makes, for a purpose other than scoring a search: the one that re-checks a
result (:func:`recheck_backend`) and the CPU backend a GPU polish may time against its own
(:func:`cpu_alternative`).
"""

from __future__ import annotations

import importlib
from typing import NamedTuple

from golf.errors import GolfError

__all__ = ["REGISTRY", "Entry", "Shape", "Decision", "KINDS", "names", "entry",
           "backend_class", "backends", "option_specs", "check_options", "decide",
           "choose_backend", "cpu_alternative", "make_evaluator", "build", "gpu_usable",
           "host_switch_scorer", "recheck_backend",
           "HOST_SWITCH_GPU_SWITCHES", "Evaluator", "Score", "Capabilities", "Estimate", "OK",
           "DISCONNECTED", "EXCEEDED"]

# the problem kinds (golf.problems): general and grid graphs are scored alike
KINDS = ("general", "grid", "host-switch")
GRAPHS = ("general", "grid")
HOSTS = ("host-switch",)


class Entry(NamedTuple):
    """One line of the registry: the backend's ``name`` (``evaluator.backend``,
    ``--backend``), the problem ``kinds`` it scores, and its class as ``module:class``, which
    says the rest (its module is imported on first use): the symmetry ``forms`` it scores,
    its ``device`` and its ``options``."""

    name: str
    kinds: tuple
    target: str

    @property
    def cls(self) -> type:
        module, cls = self.target.split(":")
        return getattr(importlib.import_module(module), cls)

    @property
    def forms(self) -> tuple:
        """The forms of the graphs it scores: ``cyclic`` and ``group`` symmetry, ``centres``
        (centre vertices) where it takes them; a host-switch graph's ``switches``."""
        if self.kinds == HOSTS:
            return ("switches",)
        return ("cyclic", "group") + (("centres",) if self.cls.takes_centres else ())

    @property
    def device(self) -> str:
        """``gpu`` or ``cpu``."""
        return "gpu" if self.cls.supports.gpu else "cpu"

    @property
    def options(self) -> dict:
        """Its options, by name (:class:`golf.options.Spec` each)."""
        return self.cls.options


# The order breaks ties between equal estimates.
REGISTRY = (
    Entry("bitset", GRAPHS, "golf.evaluators.bitset:BitsetEvaluator"),
    Entry("bfs", GRAPHS, "golf.evaluators.bfs:BfsEvaluator"),
    Entry("gpu-bitset", GRAPHS, "golf.evaluators.gpu_bitset:GpuBitsetEvaluator"),
    Entry("seidel", GRAPHS, "golf.evaluators.seidel:SeidelEvaluator"),
    Entry("reference", GRAPHS, "golf.evaluators.reference:ReferenceEvaluator"),
    Entry("bitset", HOSTS, "golf.evaluators.h_bitset:HostSwitchEvaluator"),
    Entry("bfs", HOSTS, "golf.evaluators.h_bfs:HostSwitchBfsEvaluator"),
    Entry("gpu-bitset", HOSTS, "golf.evaluators.h_gpu_bitset:HostSwitchGpuEvaluator"),
)

# a host-switch chase: the fewest switches for which auto scores on a GPU. The CPU's bit
# matrix costs about s^2/64 words a level, a GPU launch is flat until its blocks fill the
# GPU: on an H100 one graph took 187 us against 638 on one core on ORP's sample of 1024
# switches, 327 against 8020 on 5000, but 116 against 89 on 400 and 161 against 48 on 200
# (results/bench/hostswitch_eval.md, experiment gpu). The chase walks one chain on the GPU as
# on the CPU: a population of 16 chains scored in one launch made 2.6 times the evaluations
# a second of one chain, and ended worse on both pairs in 8 minutes on one H100 each: (10000, 10)
# 6.395937 against 6.388185, (65536, 64) 4.511431 against 4.494380
# (results/hostswitch/bench_hostswitch.md, experiment gpu16)
HOST_SWITCH_GPU_SWITCHES = 1000


class Shape(NamedTuple):
    """What a backend is asked to score: the problem's ``kind`` and the shape of its graphs.

    ``n`` is the problem's order (the hosts of a host-switch problem) and ``d`` its degree
    bound (the radix); ``g``, ``group`` (a :class:`golf.group.Group`, None for the cyclic one)
    and ``centres`` the symmetry form of an Order/Degree graph (``g`` None: not chosen yet,
    ``g: auto``); ``switches`` a host-switch graph's (None: not chosen yet).
    :attr:`golf.problems.Problem.shape` gives a problem's."""

    kind: str
    n: int
    d: int
    g: int | None = 1
    centres: int = 0
    group: object = None
    switches: int | None = None


class Decision(NamedTuple):
    """What :func:`decide` chose: the backend's ``name`` (``auto`` only while the form that
    its estimates need is not chosen yet), why, whether it runs on a GPU, and its estimate of
    one evaluation in seconds (None where it has none: the reference, a host-switch scorer,
    a form not chosen yet)."""

    name: str
    reason: str
    gpu: bool = False
    seconds: float | None = None


def names(kind: str | None = None) -> list[str]:
    """The registered backend names (of problems of ``kind``; None: of any), in the
    registry's order, without importing a module."""
    out: list = []
    for e in REGISTRY:
        if (kind is None or kind in e.kinds) and e.name not in out:
            out.append(e.name)
    return out


def entry(name: str, kind: str = "general") -> Entry:
    """The registry line of backend ``name`` for problems of ``kind``; a GolfError naming the
    choices if there is none."""
    for e in REGISTRY:
        if e.name == name and kind in e.kinds:
            return e
    if kind not in KINDS:
        raise GolfError(f"unknown problem kind '{kind}'; expected one of: {', '.join(KINDS)}")
    what = "" if kind == "general" else f" for a {kind} problem"
    raise GolfError(f"unknown backend '{name}'{what}; expected one of: auto, "
                    f"{', '.join(names(kind))}")


def backend_class(name: str, kind: str = "general") -> type:
    """The evaluator class of backend ``name`` for problems of ``kind``; a GolfError naming
    the choices if unknown."""
    return entry(name, kind).cls


def backends(kind: str = "general") -> dict[str, type]:
    """Every backend class of problems of ``kind``, by name (imports their modules)."""
    return {name: backend_class(name, kind) for name in names(kind)}


def option_specs() -> dict:
    """Every backend option of every kind, by name, as a :class:`golf.options.Spec` (a name
    several backends take has one spec)."""
    out: dict = {}
    for kind in ("general", "host-switch"):
        for cls in backends(kind).values():
            out.update(cls.options)
    return out


def check_options(name: str, options: dict, where=lambda key: "", kind: str = "general") -> dict:
    """``options`` checked against backend ``name``'s specs (values converted); an option it
    does not take is a GolfError naming the ones it does."""
    from golf.options import check_value

    cls = backend_class(name, kind)
    out = {}
    for key, value in options.items():
        if key not in cls.options:
            takes = ", ".join(cls.options) or "none"
            label = f"'{name}'" + ("" if kind in GRAPHS else f" ({kind})")
            raise GolfError(f"{where(key) + ': ' if where(key) else ''}backend {label} has no "
                            f"option '{key}'; its options: {takes}")
        out[key] = check_value(key, value, cls.options[key], where)
    return out


def gpu_usable() -> bool:
    """True where some GPU backend can run here (CuPy sees a GPU)."""
    return any(cls.supports.gpu and cls.unavailable() is None
               for cls in backends("general").values())


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3g} ms"


def choose_backend(n: int, d: int, g: int = 1, threads: int | None = None,
                   ranks: int = 1, centres: int = 0) -> tuple[str, str]:
    """The backend ``auto`` picks for Order/Degree graphs of shape ``(n, d, g)`` and why: the
    one whose own estimate of an evaluation (with ``threads`` CPU threads, split over
    ``ranks`` MPI ranks) is smallest. Returns ``(name, reason)``; the reason gives the
    winner's estimate and what it is made of, and the others' estimates or why they were not
    considered. (:func:`decide` calls it for ``auto``.)"""
    return _estimated(n, d, g, threads, ranks, centres)[:2]


def _estimated(n, d, g, threads, ranks, centres) -> tuple[str, str, float]:
    """:func:`choose_backend`'s ``(name, reason)`` and the winner's seconds."""
    from golf.evaluators.base import cpu_threads

    threads = threads or cpu_threads()
    estimates, others = {}, []
    for name, cls in backends("general").items():
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
    return best, reason, est.seconds


def _seconds(cls, shape: Shape, threads, ranks) -> float | None:
    """``cls``'s estimate of one evaluation of ``shape`` (None: none)."""
    if shape.kind in HOSTS or shape.g is None:
        return None
    from golf.evaluators.base import cpu_threads

    est = cls.estimate(shape.n, shape.d, shape.g, threads=threads or cpu_threads(),
                       ranks=ranks)
    return None if est is None else est.seconds


def decide(shape: Shape, asked: str = "auto", *, chase: bool = False, fallback: bool = False,
           threads: int | None = None, ranks: int = 1) -> Decision:
    """The backend that scores problems of ``shape`` on this machine, and why: the one place
    golf decides it.

    ``asked``: ``auto`` or a backend name. A name is checked against the registry (it must
    score the problem's kind) and against the form (a backend without a centre-vertex form
    cannot score centres: a GolfError, or with ``fallback`` the choice of ``auto`` among the
    others, which the trials of ``g: auto`` use for their centre forms).

    ``auto``, for an Order/Degree problem (general or grid): in a chase (``chase``) on a
    machine with a usable GPU, ``gpu-bitset`` (its chains run on the device where a graph
    fits, many steps a launch, which the one-evaluation estimates do not see); else the
    smallest estimate of one evaluation (:func:`choose_backend`, with ``threads`` threads and
    ``ranks`` MPI ranks splitting it), or, while the form is not chosen (``shape.g`` None),
    ``auto`` again, for the estimates of each form. For a host-switch problem: the weighted
    bit matrix on the CPU (``bitset``), or in a chase the GPU's where one is usable and the
    even spread of the hosts (:func:`golf.hostswitch.radix_bounds.even_switches`) needs at
    least :data:`HOST_SWITCH_GPU_SWITCHES` switches.
    """
    kind = shape.kind
    if asked != "auto":
        cls = backend_class(asked, kind)
        if not (shape.centres and not cls.takes_centres):
            return Decision(asked, f"{asked}: asked for", bool(cls.supports.gpu),
                            _seconds(cls, shape, threads, ranks))
        if not fallback:
            raise GolfError(f"backend '{asked}' has no centre-vertex form (centres="
                            f"{shape.centres}); use {', '.join(_takes_centres())} or auto")
        found = decide(shape, chase=chase, threads=threads, ranks=ranks)
        return found._replace(reason=f"{asked} has no centre-vertex form; {found.reason}")
    if kind in HOSTS:
        from golf.hostswitch.radix_bounds import even_switches

        s = even_switches(shape.n, shape.d) or 0
        if chase and s >= HOST_SWITCH_GPU_SWITCHES and gpu_usable():
            return Decision("gpu-bitset", f"gpu-bitset: a chase of {s} or so switches (the "
                            f"even spread; >= {HOST_SWITCH_GPU_SWITCHES}) with a usable GPU",
                            True)
        return Decision("bitset", "bitset: the weighted bit matrix on the CPU"
                        + (f" (a chase of about {s} switches, < {HOST_SWITCH_GPU_SWITCHES} or "
                           f"no GPU)" if chase else ""), False)
    if chase and gpu_usable() and not (shape.centres and not _gpu_takes_centres()):
        return Decision("gpu-bitset", "gpu-bitset: a chase on a machine with a usable GPU (its "
                        "chains run on the device)", True,
                        _seconds(backend_class("gpu-bitset"), shape, threads, ranks))
    if shape.g is None:
        return Decision("auto", "auto: each form's own estimates decide (g: auto)", False)
    name, reason, seconds = _estimated(shape.n, shape.d, shape.g, threads, ranks,
                                       shape.centres)
    return Decision(name, reason, bool(backend_class(name, kind).supports.gpu), seconds)


def _takes_centres() -> list[str]:
    return [n for n, cls in backends("general").items() if cls.takes_centres]


def _gpu_takes_centres() -> bool:
    return backend_class("gpu-bitset").takes_centres


def cpu_alternative(shape: Shape, neighbourhood: int) -> str | None:
    """The CPU backend worth timing against a GPU backend for a tabu polish of ``shape``
    (``neighbourhood`` candidates a step, thousands of small graphs): ``bitset`` (one
    evaluation on one thread, a step's candidates shared by the usable cores:
    :func:`golf.run.setup.tabu_helpers`), where it runs here and its estimate of a step on
    one core is at most a second; else None. The run keeps whichever scores the first steps
    faster (both take the same steps)."""
    cls = backend_class("bitset", shape.kind)
    if cls.unavailable():
        return None
    est = cls.estimate(shape.n, shape.d, shape.g, threads=1, ranks=1)
    if est is None or est.seconds * neighbourhood > 1.0:
        return None
    return "bitset"


# The SciPy reference's rate in edge visits a second, its matrix counted as 4 more sources:
# (10^7, 16, m = 2) in 22-28 s, (10^6, 32, m = 40) in 40 s, (10^5, 16, m = 100) in 3.4 s on a
# 2-core AMD EPYC (predicted 38, 56 and 6.7 s: on the safe side).
REFERENCE_VISITS_PER_S = 25_000_000


def recheck_backend(n: int, d: int, m: int, found_by: str, seconds: float | None = None) -> str:
    """The backend that re-checks a result that ``found_by`` scored, on a graph of ``n``
    vertices, degree ``d`` and ``m`` base sources: the SciPy reference where it is installed
    and the graph is small enough for it (~2e9 edge visits) and, given ``seconds`` (the most
    the re-check may take: a run's share of its clock), its predicted time fits them; else a
    compiled CPU backend other than ``found_by``."""
    fits = m * n * max(d, 1) <= 2_000_000_000
    if seconds is not None:
        fits = fits and (m + 4) * n * max(d, 1) <= REFERENCE_VISITS_PER_S * seconds
    if fits and backend_class("reference").unavailable() is None:
        return "reference"
    return next(name for name, cls in backends("general").items()
                if cls.supports.compiled and name != found_by)


def build(shape: Shape, name: str = "auto", *, comm=None, batch: int = 1, **options):
    """The evaluator ``name`` (or ``auto``: :func:`decide`) of problems of ``shape``.

    ``comm`` splits the work over the ranks of an MPI communicator; ``batch`` is the number
    of graphs one ``evaluate_many`` call may hold. ``options`` are the backend's own: one it
    does not take is an error naming it, except under ``auto``, where the options of other
    backends are left out (the evaluator's ``auto_reason`` says what was chosen and why, and
    ``dropped_options`` what was left out; ``estimate_seconds`` its estimate of one
    evaluation, or None)."""
    reason, dropped = None, []
    ranks = comm.size if comm is not None else 1
    if name == "auto":
        found = decide(shape, threads=options.get("threads"), ranks=ranks)
        name, reason = found.name, found.reason
        takes = backend_class(name, shape.kind).options
        dropped = sorted(k for k in options if k not in takes)
        options = {k: v for k, v in options.items() if k in takes}
    else:  # the kind and the form it can score
        found = decide(shape, name, threads=options.get("threads"), ranks=ranks)
    options = check_options(name, {k: v for k, v in options.items() if v is not None},
                            kind=shape.kind)
    cls = backend_class(name, shape.kind)
    if shape.kind in HOSTS:
        ev = cls(shape.n, shape.switches, shape.d, comm=comm, batch=batch, **options)
    elif shape.centres:
        ev = cls(shape.n, shape.d, shape.g, comm=comm, batch=batch, symmetry=shape.group,
                 centres=shape.centres, **options)
    else:
        ev = cls(shape.n, shape.d, shape.g, comm=comm, batch=batch, symmetry=shape.group,
                 **options)
    if reason is not None:
        ev.auto_reason, ev.dropped_options = reason, dropped
    ev.estimate_seconds = found.seconds
    return ev


def host_switch_scorer(net, name: str = "auto", **options):
    """``(score, its name, why)`` for a host-switch graph ``net``
    (:class:`golf.hostswitch.HostSwitchGraph`): ``score()`` gives the hosts'
    :class:`Score` (h-diameter, h-total). The backend is :func:`decide`'s; ``bitset`` scores
    the graph as it is (:func:`golf.evaluators.h_scoring.h_score`), the others its port rows
    (their search evaluators). ``options``: the backend's (``threads``, ``chunk_words``)."""
    shape = Shape("host-switch", net.n, net.r, 1, switches=net.s)
    found = decide(shape, name)
    options = check_options(found.name, {k: v for k, v in options.items() if v is not None},
                            kind="host-switch")
    if found.name == "bitset":
        from golf.evaluators.h_scoring import h_score

        return (lambda: h_score(net, **options)), "h-bitset", found.reason
    from golf.hostswitch.ports import PortGraph, to_ports

    ev = build(shape, found.name, **options)
    graph = PortGraph(net.n, to_ports(net))
    return (lambda: ev.evaluate(graph)), ev.name, found.reason


def make_evaluator(name: str, n: int, d: int, g: int = 1, *, comm=None, batch: int = 1,
                   symmetry=None, centres: int = 0, **options):
    """Build the evaluator ``name`` (or ``auto``) for Order/Degree graphs of shape
    ``(n, d, g)``: :func:`build` of that :class:`Shape`.

    ``comm`` splits the work over the ranks of an MPI communicator; ``batch`` is the number
    of graphs one ``evaluate_many`` call may hold. ``options`` are the backend's own (see its
    ``options``). ``symmetry``: a non-cyclic symmetry group of order ``g``
    (:class:`golf.group.Group`), None for the cyclic one; ``centres``: the centre vertices of
    the form (:mod:`golf.graph`).
    """
    return build(Shape("general", n, d, g, centres, symmetry), name, comm=comm, batch=batch,
                 **options)


_BASE = ("Evaluator", "Score", "Capabilities", "Estimate", "OK", "DISCONNECTED", "EXCEEDED")


def __getattr__(name):  # the base classes on first use, without importing Numba before
    if name in _BASE:
        from golf.evaluators import base

        return getattr(base, name)
    raise AttributeError(f"module 'golf.evaluators' has no attribute '{name}'")
