"""What a validated run config builds, for the run and for each trial of ``g: auto``: its
config at another symmetry (a polish phase's), its evaluator and its annealer."""

from __future__ import annotations

from golf.problems import problem_of

__all__ = ["cfg_at", "form_config", "build_evaluator", "tabu_helpers", "build_annealer",
           "build_memetic"]


def cfg_at(cfg: dict, g=None) -> dict:
    """The config with ``problem.g`` = ``g`` (None or the config's own: the config itself);
    at another ``g`` (the polish phase's, 1 with a group or centres) the form is cyclic,
    without centres."""
    if g is None or g == cfg["problem"]["g"]:
        return cfg
    return dict(cfg, problem=dict(cfg["problem"], g=g, group=None, centres=0))


def form_config(cfg: dict, form) -> dict:
    """``cfg`` with the settings of ``form`` (a :class:`golf.problems.Form`:
    :meth:`~golf.problems.Form.changes`); a centre form on a backend that scores no centres
    (the GPU ones) is scored by the one ``auto`` picks among the others
    (:func:`golf.evaluators.decide` with its fallback: a CPU backend, host chains)."""
    import copy

    from golf.evaluators import decide

    out = copy.deepcopy(cfg)
    for section, key, value in form.changes():
        out[section][key] = value
    name = out["evaluator"]["backend"]
    if (name != "auto" and form.centres
            and decide(problem_of(out["problem"]).shape, name, fallback=True).name != name):
        out["evaluator"]["backend"] = "auto"
    return out


def build_evaluator(cfg: dict, comm=None):
    """The evaluator of a validated run config (its problem's shape, ``evaluator``,
    ``search.batch`` -- or, where a tabu search runs, ``search.neighbourhood`` as far as its
    candidates' rows fit in ~256 MiB -- and ``parallel.mode``): the work is split over
    ``comm``'s ranks only with ``parallel.mode: evaluator``; ``auto`` is
    :func:`golf.evaluators.decide`'s."""
    from golf.evaluators import build

    p, e, s = cfg["problem"], dict(cfg["evaluator"]), cfg["search"]
    split = comm if cfg["parallel"]["mode"] == "evaluator" else None
    problem = problem_of(p)
    backend = e.pop("backend")
    batch = s["batch"]
    if s["method"] == "tabu" or s["polish"] > 0:
        # a tabu step scores its candidates together, in batches of rows up to ~256 MiB
        rows = 4 * p["n"] // p["g"] * p["d"]
        batch = max(batch, min(s["neighbourhood"], (256 << 20) // rows))
    return build(problem.shape, backend, comm=split, batch=batch, **e)


def tabu_helpers(cfg: dict, ev) -> list:
    """One-thread evaluators of ``ev``'s backend and shape (``cfg`` at ``ev``'s ``g``) that
    share a tabu step's candidates with it on as many more threads
    (:class:`golf.engine.tabu.TabuSearch`'s ``helpers``): ``evaluator.threads`` (default:
    the usable cores, :func:`golf.evaluators.base.cpu_threads`) less one, where ``ev`` is a
    compiled CPU backend on one thread and not split over MPI ranks (a graph small enough
    that one evaluation does not pay for threads); else none."""
    from golf.evaluators.base import cpu_threads

    e = cfg["evaluator"]
    T = int(e.get("threads") or cpu_threads())
    if (T <= 1 or not ev.supports.compiled or ev.comm is not None
            or getattr(ev, "threads", 1) != 1):
        return []
    one = dict(cfg_at(cfg, ev.g), evaluator={"backend": ev.name, "threads": 1})
    return [build_evaluator(one) for _ in range(T - 1)]


def build_annealer(cfg: dict, problem, graph, evaluator, *, steps: int, seed: int,
                   trace_every: int):
    """The annealer of a run config for ``problem`` (its bounds and its moves' length limit)
    from ``graph``: :func:`golf.engine.population.annealer_for` (the trials of a memetic run
    anneal too)."""
    from golf.engine.population import annealer_for

    return annealer_for(cfg, graph, evaluator, steps=steps, seed=seed, trace_every=trace_every,
                        bounds=problem.bounds(), reach=problem.reach(),
                        host_moves=problem.host_moves)


def build_memetic(cfg: dict, problem, graphs, evaluator, *, steps: int, seed: int):
    """The memetic search of a run config (``search.method: memetic``,
    :class:`golf.engine.memetic.Memetic`): the first ``search.members`` of ``graphs`` (the
    first is the start graph), then random graphs of ``problem``'s form (seeds ``seed + k``
    for member ``k``), ``search.batch`` children a generation, the climbs' moves those of the
    config."""
    from golf.engine.annealer import search_options
    from golf.engine.memetic import Memetic

    s = cfg["search"]
    members = list(graphs)[:s["members"]]
    members += [problem.random_graph(seed + k) for k in range(len(members), s["members"])]
    return Memetic(members, evaluator, steps=steps, seed=seed, local_steps=s["local_steps"],
                   brood=s["batch"], bounds=problem.bounds(), reach=problem.reach(),
                   options=search_options(s), local_search=s["local_search"])
