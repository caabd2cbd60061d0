"""K chains whose steps are scored together, and how they form a population.

Every step each chain proposes a move (:func:`golf.engine.annealer.begin_step`); the K graphs are
scored together (one ``evaluate_many`` launch on a GPU: the "bulk computation" of Takafuji, Nakano
and Ito, "Accelerating GPU implementation of All Pairs Shortest Path Algorithm", undated copy, see
CITATION.cff; on a compiled CPU backend one compiled loop over the chains) and each chain
decides on its own (:func:`golf.engine.annealer.end_step`). Every ``population_every`` steps the
chains interact, by ``search.population``:

* ``tempering`` (parallel tempering, replica exchange): the chains sit on a temperature ladder,
  chain at rung ``r`` (of ``K``) annealing at ``ladder ** (r / (K - 1))`` times the schedule,
  so the coldest follows the schedule and the hottest runs ``ladder`` times hotter. Neighbouring
  rungs swap their temperatures with the Metropolis probability
  ``min(1, exp((E_a - E_b) (1/T_a - 1/T_b)))`` (even pairs, then odd pairs; a state of lower
  diameter always moves to the colder rung, one of higher diameter never). Good states sink to
  the cold end while hot chains keep exploring; nothing is copied.
* ``annealing`` (population annealing): all chains follow the schedule; at each interaction the
  population is resampled by the Boltzmann weights ``exp(-(E - E_min) * (1/T_now - 1/T_last))``
  of its current states (states above the smallest current diameter get none), by systematic
  resampling: chains with more weight are copied over chains with less.
* ``none``: independent chains.

In every kind the worst ``restart_fraction`` of the chains restart from the best graph found
every ``parallel.exchange_every`` steps. Each chain keeps its own RNG stream (seed ``seed + k``);
the population's own draws come from one more stream, so a run is the same for a given seed,
backend and K, and a checkpoint holds everything (``pop_rng``, ``rung``, ``pop_fl``).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from golf.engine.annealer import (FL, P, SC, TRACE_COLUMNS, Annealer, StopReason, begin_step,
                         chain_streams, end_step, load_state_arrays, state_arrays)
from golf.kernels.dispatch import call_kernel
from golf.kernels.rng import rng_random, rng_seed
from golf.engine.moves import UNDO_SIZE

__all__ = ["BatchAnnealer", "POPULATIONS", "chains_on_device", "annealer_for"]

POPULATIONS = ("tempering", "annealing", "none")
_KIND = {name: i for i, name in enumerate(POPULATIONS)}


@njit(cache=True)
def batch_begin(adjs, n, sts, scs, fls, params, undos, ctrls, need, reach=None, grp=None):
    """``begin_step`` for every chain; ``need[k]`` = 1 when chain k has a move to score.
    Returns the number of chains still running."""
    running = 0
    for k in range(adjs.shape[0]):
        r = begin_step(adjs[k], n, sts[k], scs[k], fls[k], params, undos[k], ctrls[k], reach,
                       grp)
        need[k] = 1 if r > 0 else 0
        if r >= 0:
            running += 1
    return running


@njit(cache=True)
def batch_end(outs, adjs, bests, sts, scs, fls, params, undos, need, trace, ntrace):
    """``end_step`` for the chains that were scored; chain 0 writes the trace."""
    empty = trace[:0]
    for k in range(adjs.shape[0]):
        if need[k]:
            if k == 0:
                ntrace = end_step(outs[k], adjs[k], bests[k], sts[k], scs[k], fls[k], params,
                                  undos[k], trace, ntrace)
            else:
                end_step(outs[k], adjs[k], bests[k], sts[k], scs[k], fls[k], params, undos[k],
                         empty, 0)
    return ntrace


@njit(cache=True)
def _rank_key(scs, k, g):
    return scs[k, SC.CUR_D], scs[k, SC.CUR_TOTAL] / g


@njit(cache=True)
def temper(scs, fls, rung, pst, parity, g):
    """One round of replica exchange between the rungs ``(r, r+1)`` of one parity; ``rung[k]``
    is chain k's place on the ladder (0 coldest). Returns the number of swaps."""
    K = scs.shape[0]
    at = np.empty(K, dtype=np.int64)
    for k in range(K):
        at[rung[k]] = k
    swaps = 0
    for r in range(parity, K - 1, 2):
        a = at[r]
        b = at[r + 1]  # b hotter
        da, ea = _rank_key(scs, a, g)
        db, eb = _rank_key(scs, b, g)
        if da < db:
            continue
        if da == db:
            x = (ea - eb) * (1.0 / fls[a, FL.T] - 1.0 / fls[b, FL.T])
            if x < 0 and rng_random(pst) >= math.exp(x):
                continue
        for f in (FL.T0, FL.T1, FL.T):
            t = fls[a, f]
            fls[a, f] = fls[b, f]
            fls[b, f] = t
        rung[a] = r + 1
        rung[b] = r
        swaps += 1
    return swaps


@njit(cache=True)
def resample(adjs, scs, pst, beta_last, g):
    """Population annealing's resampling (systematic) by the Boltzmann weights of the current
    states between ``beta_last[0]`` and the current temperature; survivors stay in place and
    the extra copies fill the slots of the chains that died. Returns how many were replaced."""
    K = adjs.shape[0]
    beta = beta_last[1]
    dmin = scs[0, SC.CUR_D]
    for k in range(K):
        dmin = min(dmin, scs[k, SC.CUR_D])
    emin = np.inf
    for k in range(K):
        if scs[k, SC.CUR_D] == dmin:
            emin = min(emin, scs[k, SC.CUR_TOTAL] / g)
    w = np.zeros(K)
    for k in range(K):
        if scs[k, SC.CUR_D] == dmin:
            w[k] = math.exp(-(beta - beta_last[0]) * (scs[k, SC.CUR_TOTAL] / g - emin))
    beta_last[0] = beta
    total = w.sum()
    copies = np.zeros(K, dtype=np.int64)
    u = rng_random(pst) / K
    acc = 0.0
    k = 0
    for j in range(K):
        target = u + j / K
        while k < K - 1 and acc + w[k] / total <= target:
            acc += w[k] / total
            k += 1
        copies[k] += 1
    replaced = 0
    src = 0
    for k in range(K):
        if copies[k] > 0:
            continue
        while copies[src] <= 1:
            src += 1
        copies[src] -= 1
        adjs[k, :, :] = adjs[src]
        scs[k, SC.CUR_D] = scs[src, SC.CUR_D]
        scs[k, SC.CUR_TOTAL] = scs[src, SC.CUR_TOTAL]
        scs[k, SC.CUR_PER] = scs[src, SC.CUR_PER]
        replaced += 1
    return replaced


@njit(cache=True)
def interact(kind, adjs, scs, fls, rung, pst, pop_fl, g, step, every):
    """The population's move after ``step`` steps (every ``every`` steps); returns the number
    of swaps (tempering) or replaced chains (annealing)."""
    if every <= 0 or step % every != 0:
        return 0
    if kind == 0:
        parity = (step // every) % 2
        return temper(scs, fls, rung, pst, parity, g)
    if kind == 1:
        pop_fl[1] = 1.0 / fls[0, FL.T]
        return resample(adjs, scs, pst, pop_fl, g)
    return 0


@njit(cache=True)
def batch_chunk(tag, kargs, kind, adjs, bests, sts, scs, fls, params, undos, rung, pst, pop_fl,
                every, trace, nsteps, reach=None, grp=None):
    """Up to ``nsteps`` steps of all chains without leaving compiled code (CPU kernels): chain
    by chain, each move scored by the kernel ``tag`` names on that chain's rows (``kargs`` as
    for :func:`golf.engine.annealer.run_chunk`, its rows unused), then the population's move. The
    same draws and decisions as the batched path. Returns the number of trace rows written."""
    ctrl = kargs[1]
    out = kargs[2]
    n = kargs[3]
    tail = kargs[1:]
    empty = trace[:0]
    ntrace = 0
    g = params[P.G]
    for _ in range(nsteps):
        running = 0
        for k in range(adjs.shape[0]):
            r = begin_step(adjs[k], n, sts[k], scs[k], fls[k], params, undos[k], ctrl, reach,
                           grp)
            if r >= 0:
                running += 1
            if r <= 0:
                continue
            call_kernel(tag, (adjs[k],) + tail)
            if k == 0:
                ntrace = end_step(out, adjs[k], bests[k], sts[k], scs[k], fls[k], params,
                                  undos[k], trace, ntrace)
            else:
                end_step(out, adjs[k], bests[k], sts[k], scs[k], fls[k], params, undos[k],
                         empty, 0)
        if running == 0:
            break
        interact(kind, adjs, scs, fls, rung, pst, pop_fl, g, scs[0, SC.STEP], every)
    return ntrace


def chains_on_device(evaluator) -> bool:
    """True for an evaluator that runs whole chains itself, many steps a launch (gpu-bitset
    whose ``chains`` option, ``device`` or ``auto``, put them on the device), under any
    symmetry group, instead of scoring one move a chain per call."""
    return getattr(evaluator, "chains", "host") == "device"


def annealer_for(cfg: dict, graph, evaluator, *, steps: int, seed: int, trace_every: int,
                 bounds=None, reach=None, host_moves: bool = False):
    """The annealer a run config asks for (``method`` sa or hill; a tabu run's trials anneal
    with sa): a :class:`BatchAnnealer` of ``search.batch`` chains where the batch is above 1
    or the evaluator runs the chains itself, else one :class:`golf.engine.annealer.Annealer`.
    ``host_moves``: the moves move hosts too (a host-switch graph's, at the rate
    :data:`golf.engine.moves.HOST_MOVES`)."""
    from golf.engine.annealer import Annealer, search_options

    s, par = cfg["search"], cfg["parallel"]
    kw = dict(steps=steps, seed=seed, trace_every=trace_every, bounds=bounds, reach=reach,
              **search_options(s))
    if host_moves:
        from golf.engine.moves import HOST_MOVES

        kw["host_moves"] = HOST_MOVES
    if s["batch"] > 1 or chains_on_device(evaluator):
        return BatchAnnealer(graph, evaluator, s["batch"], population=s["population"],
                             population_every=s["population_every"], ladder=s["ladder"],
                             exchange_every=par["exchange_every"],
                             restart_fraction=par["restart_fraction"], **kw)
    return Annealer(graph, evaluator, **kw)


class BatchAnnealer:
    """``K`` chains (seeds ``seed .. seed+K-1``) scored together and forming a population
    (module docstring). It offers the same interface as :class:`golf.engine.annealer.Annealer` to
    the run driver; ``sc`` shows the chain that holds the best graph, with the evaluations of all
    chains.

    Parameters beyond :class:`golf.engine.annealer.Annealer`'s: ``K``; ``population`` (one of
    :data:`POPULATIONS`), ``population_every`` (steps between interactions), ``ladder`` (the
    hottest rung's temperature over the coldest's, tempering), ``exchange_every`` and
    ``restart_fraction`` (restarts from the best graph)."""

    def __init__(self, graph, evaluator, K, *, population="tempering", population_every=100,
                 ladder=4.0, exchange_every=20000, restart_fraction=0.5, **kw):
        self.K = K = int(K)
        # chain 0 as a one-graph annealer: the start score, the temperature samples and the
        # parameters every chain shares
        base = self.first = Annealer(graph, evaluator, **kw)
        self.evaluator = evaluator
        self.start_score = base.start_score
        self.params = base.params
        self.bounds = base.bounds
        self.reach = base.reach
        self.grp = base.grp
        self.seed = seed = base.seed
        self.adjs = np.repeat(graph.adj[None], K, axis=0)
        self.graph = graph.with_rows(self.adjs[0])  # chain 0, a view
        self.bests = self.adjs.copy()
        self.sts = np.stack([chain_streams(seed + k, base.params[P.SPEC]) for k in range(K)])
        self.scs = np.repeat(base.sc[None], K, axis=0)
        self.fls = np.repeat(base.fl[None], K, axis=0)
        self.undos = np.zeros((K, UNDO_SIZE), dtype=np.int64)
        self.ctrls = np.zeros((K, 3), dtype=np.int64)
        self.need = np.zeros(K, dtype=np.int64)
        self.outs = np.zeros((K, 4), dtype=np.int64)
        self.trace = np.zeros((1024, len(TRACE_COLUMNS) - 1), dtype=np.float64)
        self.kind = _KIND[population]
        self.population = population
        self.population_every = int(population_every)
        self.ladder = float(ladder)
        self.rung = np.arange(K, dtype=np.int64)
        self.pop_rng = rng_seed(seed ^ 0x5EED_C4A1)
        self.pop_fl = np.zeros(2)  # annealing: 1/T at the last resampling, 1/T now
        self.exchange_every = int(exchange_every)
        self.restart_fraction = float(restart_fraction)

    def auto_temperatures(self, count=200):
        return self.first.auto_temperatures(count)

    def set_temperatures(self, t0, t1):
        """The schedule; tempering spreads the chains over the ladder above it."""
        factor = (self.ladder ** (self.rung / max(self.K - 1, 1)) if self.kind == 0
                  else np.ones(self.K))
        self.fls[:, FL.T0] = t0 * factor
        self.fls[:, FL.T1] = t1 * factor
        self.fls[:, FL.T] = t0 * factor
        self.pop_fl[:] = 1.0 / t0
        self.first.set_temperatures(t0, t1)

    @property
    def _lead(self) -> int:
        keys = list(zip(self.scs[:, SC.BEST_D], self.scs[:, SC.BEST_TOTAL]))
        return min(range(self.K), key=lambda k: keys[k])

    @property
    def sc(self):
        out = self.scs[self._lead].copy()
        out[SC.EVALS] = self.scs[:, SC.EVALS].sum()
        out[SC.ACCEPTED] = self.scs[:, SC.ACCEPTED].sum()
        out[SC.STEP] = self.scs[:, SC.STEP].max()
        out[SC.STOP] = self.scs[:, SC.STOP].min() if (self.scs[:, SC.STOP] > 0).all() else 0
        return out

    @property
    def fl(self):
        return self.fls[self._lead]

    @property
    def best_adj(self):
        return self.bests[self._lead]

    @property
    def stop_reason(self) -> StopReason:
        return StopReason(int(self.sc[SC.STOP]))

    def best_graph(self):
        from golf.graph import sort_rows

        return self.graph.with_rows(sort_rows(self.best_adj))

    def best_graphs(self, k: int) -> list:
        """Up to ``k`` graphs of the chains, each graph once: their best graphs, best first
        (the first is :meth:`best_graph`), then, where fewer than ``k`` differ, their current
        graphs, best first. Chains that all start from one graph (the winner of the trials
        of ``g: auto``) and find nothing better share their best graph, while their current
        graphs, near it, are as many other starts for a polish."""
        from golf.graph import sort_rows

        g, seen, out = self.graph, set(), []
        kinds = ((self.bests, SC.BEST_D, SC.BEST_TOTAL), (self.adjs, SC.CUR_D, SC.CUR_TOTAL))
        for rows_of, dk, tk in kinds:
            for c in sorted(range(self.K), key=lambda c: (self.scs[c, dk], self.scs[c, tk], c)):
                rows = sort_rows(rows_of[c])
                if rows.tobytes() not in seen:
                    seen.add(rows.tobytes())
                    out.append(g.with_rows(rows))
                    if len(out) == k:
                        return out
        return out

    @property
    def compiled(self) -> bool:
        """All chains' steps run in one compiled loop (a CPU kernel, no MPI split)."""
        return self.first.compiled

    def run(self, nsteps: int, time_frac: float = 0.0) -> np.ndarray:
        self.fls[:, FL.TIME_FRAC] = time_frac
        need_rows = nsteps // int(self.params[P.TRACE_EVERY]) + 2
        if self.trace.shape[0] < need_rows:
            self.trace = np.zeros((need_rows, self.trace.shape[1]), dtype=np.float64)
        ntrace = 0
        done = 0
        while done < nsteps:
            # pieces that end on a restart point
            step = int(self.scs[0, SC.STEP])
            piece = nsteps - done
            if self.exchange_every:
                piece = min(piece, self.exchange_every - step % self.exchange_every)
            k = self._steps(piece, ntrace)
            ntrace += k
            done += piece
            if self.exchange_every and int(self.scs[0, SC.STEP]) % self.exchange_every == 0:
                self.restart_worst()
            if all(self.scs[:, SC.STOP] > 0):
                break
        return self.trace[:ntrace].copy()

    @property
    def on_device(self) -> bool:
        """The chains run on the GPU, many steps a launch (:func:`chains_on_device`)."""
        return chains_on_device(self.evaluator)

    def _device_steps(self, nsteps: int, trace) -> int:
        """``nsteps`` steps on the device, launched in pieces that end where the population
        interacts (every ``population_every`` steps of chain 0), the interaction on the host
        in between: the steps, draws and decisions of :func:`batch_chunk`."""
        every = self.population_every
        g = int(self.params[P.G])
        k = done = 0
        while done < nsteps:
            piece = min(nsteps - done, every - int(self.scs[0, SC.STEP]) % every)
            k += self.evaluator.anneal_chains(self.adjs, self.bests, self.sts, self.scs,
                                              self.fls, self.params, self.reach, piece,
                                              trace[k:])
            done += piece
            if (self.scs[:, SC.STOP] > 0).all():  # every chain stopped before this piece ended
                break
            interact(self.kind, self.adjs, self.scs, self.fls, self.rung, self.pop_rng,
                     self.pop_fl, g, self.scs[0, SC.STEP], every)
        return k

    def _steps(self, nsteps: int, ntrace: int) -> int:
        trace = self.trace[ntrace:]
        if self.on_device:
            return self._device_steps(nsteps, trace)
        if self.compiled:
            ev = self.first
            return batch_chunk(ev.evaluator.tag, ev.kargs, self.kind, self.adjs, self.bests,
                               self.sts, self.scs, self.fls, self.params, self.undos, self.rung,
                               self.pop_rng, self.pop_fl, self.population_every, trace,
                               int(nsteps), self.reach, self.grp)
        n, g = self.graph.n, int(self.params[P.G])
        k = 0
        for _ in range(int(nsteps)):
            if batch_begin(self.adjs, n, self.sts, self.scs, self.fls, self.params,
                           self.undos, self.ctrls, self.need, self.reach, self.grp) == 0:
                break
            if self.need.any():
                self.outs[:] = self.evaluator.evaluate_many(self.adjs, self.ctrls[:, 0])
            k = batch_end(self.outs, self.adjs, self.bests, self.sts, self.scs, self.fls,
                          self.params, self.undos, self.need, trace, k)
            interact(self.kind, self.adjs, self.scs, self.fls, self.rung, self.pop_rng,
                     self.pop_fl, g, self.scs[0, SC.STEP], self.population_every)
        return k

    def restart_worst(self, rows=None, per=None) -> list[int]:
        """The worst ``restart_fraction`` of the chains (by current state) restart from
        ``rows`` with score ``per = (diameter, total, peripheral)``, by default the best graph
        found here. Returns the chains restarted."""
        lead = self._lead
        if rows is None:
            rows = self.bests[lead]
            per = self.scs[lead, [SC.BEST_D, SC.BEST_TOTAL, SC.BEST_PER]]
        order = sorted(range(self.K), key=lambda k: (self.scs[k, SC.CUR_D],
                                                     self.scs[k, SC.CUR_TOTAL]), reverse=True)
        out = []
        for k in order[: int(self.K * self.restart_fraction)]:
            if (self.scs[k, SC.CUR_D], self.scs[k, SC.CUR_TOTAL]) <= (per[0], per[1]):
                continue
            self.adjs[k] = rows
            self.scs[k, SC.CUR_D], self.scs[k, SC.CUR_TOTAL], self.scs[k, SC.CUR_PER] = per
            out.append(k)
        return out

    def offer_best(self, rows, per) -> None:
        """Take a better graph found elsewhere (another rank) as chain 0's best."""
        if (per[0], per[1]) < (self.scs[self._lead, SC.BEST_D],
                               self.scs[self._lead, SC.BEST_TOTAL]):
            self.bests[0] = rows
            self.scs[0, SC.BEST_D], self.scs[0, SC.BEST_TOTAL], self.scs[0, SC.BEST_PER] = per

    def state(self) -> dict:
        out = state_arrays(self.adjs, self.bests, self.sts, self.scs, self.fls)
        out.update(pop_rng=self.pop_rng.copy(), rung=self.rung.copy(),
                   pop_fl=self.pop_fl.copy())
        return out

    def load_state(self, state: dict) -> None:
        load_state_arrays(state, self.adjs, self.bests, self.sts, self.scs, self.fls)
        for key in ("pop_rng", "rung", "pop_fl"):
            if key in state:
                getattr(self, key)[...] = state[key]
