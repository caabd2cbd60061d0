"""How the ranks of an MPI run act as one: set-up errors agreed by all, one decision a chunk
of steps (stop? checkpoint? how many steps next?), the best graph over all chains, every
chain's state for the checkpoint. Without MPI (``comm`` None) every call is the serial
answer, so the driver has one code path.
"""

from __future__ import annotations

import numpy as np

from golf.errors import AgreedError, GolfError

__all__ = ["collective", "Coordinator", "next_chunk", "Exchange"]


def collective(comm, fn):
    """``fn()`` on every rank; a GolfError on any rank becomes the same AgreedError on all
    (printed once, no rank left waiting)."""
    from golf.parallel import agree

    out, err = None, None
    try:
        out = fn()
    except GolfError as exc:
        err = str(exc)
    err = agree(comm, err)
    if err is not None:
        raise (AgreedError if comm is not None else GolfError)(err)
    return out


class Coordinator:
    """The collective steps of one run. ``chains``: every rank anneals its own chain (else
    the ranks walk one chain together, or there is one process)."""

    def __init__(self, comm, chains: bool):
        self.comm = comm
        self.chains = bool(chains and comm is not None)
        self.rank0 = comm is None or comm.rank == 0

    def first(self, fn) -> None:
        """Run ``fn`` on rank 0 only; a GolfError there is raised on every rank."""
        collective(self.comm, lambda: fn() if self.rank0 else None)

    def decide(self, interrupted: bool, stop: int, chunk: int, frac: float,
               checkpoint: bool, progress: bool = False
               ) -> tuple[int, int, float, bool, bool]:
        """One decision for all ranks: rank 0's ``(stop, chunk, frac, checkpoint,
        progress)``, with the stop raised to INTERRUPTED if a signal reached any rank.

        Whatever leads to a collective call must come from here (or from counters that every
        rank steps alike), never from a rank's own clock: ranks that read their clocks a
        moment apart disagree now and then, one enters a collective the others skip, and
        the job hangs. The progress line (its rate is a sum over the chains) once did that:
        two runs in four of 1.2 M steps on two chains hung."""
        from golf.engine.annealer import StopReason

        local = int(StopReason.INTERRUPTED) if interrupted else 0
        if self.comm is not None:
            from mpi4py import MPI

            local = self.comm.allreduce(local, op=MPI.MAX)
            stop, chunk, frac, checkpoint, progress = self.comm.bcast(
                (stop, chunk, frac, checkpoint, progress), 0)
        return (local or stop), chunk, frac, checkpoint, progress

    def stop_reason(self, mine: int) -> int:
        """The largest stop reason over the ranks (any rank done stops all)."""
        if self.comm is None:
            return mine
        from mpi4py import MPI

        return self.comm.allreduce(mine, op=MPI.MAX)

    def rate(self, mine: float) -> float:
        """Evaluations a second of the whole run (the chains add up)."""
        return self.comm.allreduce(mine) if self.chains else mine

    def best(self, ann):
        """``(rows, (diameter, total, peripheral), rank)`` of the best graph over all chains;
        rank 0 gets the rows, the others None."""
        from golf.engine.annealer import SC

        mine = (int(ann.sc[SC.BEST_D]), int(ann.sc[SC.BEST_TOTAL]), int(ann.sc[SC.BEST_PER]))
        if not self.chains:
            return ann.best_adj, mine, 0
        comm = self.comm
        allbest = comm.allgather(mine)
        root = min(range(comm.size), key=lambda r: allbest[r][:2])
        rows = None
        if root == 0 and comm.rank == 0:
            rows = ann.best_adj.copy()
        elif comm.rank == root:
            comm.Send(ann.best_adj.copy(), dest=0, tag=77)
        elif comm.rank == 0:
            rows = np.empty_like(ann.best_adj)
            comm.Recv(rows, source=root, tag=77)
        return rows, allbest[root], root

    def states(self, ann) -> list[dict] | None:
        """Every chain's state, on rank 0 (None elsewhere)."""
        mine = ann.state()
        if not self.chains:
            return [mine]
        return self.comm.gather(mine, root=0)

    def my_state(self, states: list, path) -> dict:
        """This rank's state from a checkpoint's ``states`` (chains: one a rank)."""
        if self.chains:
            if len(states) != self.comm.size:
                raise GolfError(f"{path} holds {len(states)} chains; resume it with "
                                f"{len(states)} MPI ranks (got {self.comm.size})")
            return states[self.comm.rank]
        if len(states) != 1:
            raise GolfError(f"{path} holds {len(states)} chains; resume it under mpiexec -n "
                            f"{len(states)} with parallel.mode=chains")
        return states[0]

    def chain_reports(self, ann, seed: int, evaluations: int):
        """Each chain's seed, best and evaluations (rank 0, chains only), and the evaluations
        of the whole run."""
        from golf.engine.annealer import SC

        if not self.chains:
            return None, evaluations
        comm = self.comm
        per_chain = comm.gather({"rank": comm.rank, "seed": seed,
                                 "best": [int(ann.sc[SC.BEST_D]), int(ann.sc[SC.BEST_TOTAL])],
                                 "evaluations": evaluations}, root=0)
        return per_chain, comm.allreduce(evaluations)


def next_chunk(chunk: int, seconds: float, left: float | None = None) -> int:
    """The next chunk of steps after ``chunk`` steps took ``seconds``: aimed at ~0.2 s
    (responsive to signals, cheap to leave compiled code), doubling while under 0.1 s, and
    no longer, at that rate, than the ``left`` seconds of the clock (at least one step)."""
    grown = chunk * 2 if seconds < 0.1 else chunk * 0.2 / max(seconds, 1e-9)
    if left is not None:
        grown = min(grown, left * chunk / max(seconds, 1e-9))
    return int(min(max(1, grown), 1_000_000))


class Exchange:
    """What the chains share every ``exchange_every`` steps.

    * the best graph: the rank with the best ``(diameter, total)`` broadcasts it, and the
      ``restart_fraction`` of ranks whose current state is worst restart from it (with a batch
      of chains on every rank: the ``restart_fraction`` of every rank's chains);
    * replica exchange (optional): chain ``r`` anneals at ``ladder**r`` times the base
      temperatures, and neighbouring chains swap their current states with the Metropolis
      probability ``min(1, exp((E_r - E_s) (1/T_r - 1/T_s)))`` (even pairs, then odd pairs).

    Messages per exchange: two ``allgather`` of a few numbers, one ``Bcast`` of the ``m x d``
    base rows, and for replica exchange one ``Sendrecv`` of the rows between neighbours.
    """

    def __init__(self, comm, restart_fraction=0.5, replica=False, ladder=1.5, seed=0):
        self.comm = comm
        self.restart_fraction = float(restart_fraction)
        self.replica = bool(replica)
        self.ladder = float(ladder)
        self.round = 0
        self.rng = np.random.default_rng(seed + 7919)  # same on every rank

    def temperature_factor(self) -> float:
        return self.ladder ** self.comm.rank if self.replica else 1.0

    def __call__(self, ann) -> dict:
        """Share and restart; returns what happened (for the log)."""
        from golf.engine.annealer import SC

        comm = self.comm
        sc = ann.sc
        best = comm.allgather((int(sc[SC.BEST_D]), int(sc[SC.BEST_TOTAL])))
        cur = comm.allgather((int(sc[SC.CUR_D]), int(sc[SC.CUR_TOTAL])))
        root = min(range(comm.size), key=lambda r: best[r])
        rows = ann.best_adj.copy() if comm.rank == root else np.empty_like(ann.best_adj)
        comm.Bcast(rows, root=root)
        per = np.zeros(3, dtype=np.int64)
        if comm.rank == root:
            per[:] = (sc[SC.BEST_D], sc[SC.BEST_TOTAL], sc[SC.BEST_PER])
        comm.Bcast(per, root=root)
        if hasattr(ann, "restart_worst"):  # a batch of chains on every rank
            ann.offer_best(rows, per)
            mine = ann.restart_worst(rows, per)
            restarted = [r for r, c in enumerate(comm.allgather(len(mine))) if c]
            self.round += 1
            return {"best_rank": root, "restarted": restarted, "swapped": 0}
        # the worst current states restart from the global best
        k = int(self.restart_fraction * comm.size)
        worst = sorted(range(comm.size), key=lambda r: cur[r], reverse=True)[:k]
        worst = [r for r in worst if r != root and cur[r] > best[root]]
        if comm.rank in worst:
            ann.graph.adj[:] = rows
            sc[SC.CUR_D], sc[SC.CUR_TOTAL], sc[SC.CUR_PER] = per
        if tuple(per[:2]) < (int(sc[SC.BEST_D]), int(sc[SC.BEST_TOTAL])):
            ann.best_adj[:] = rows
            sc[SC.BEST_D], sc[SC.BEST_TOTAL], sc[SC.BEST_PER] = per
        swapped = self._replica(ann) if self.replica and comm.size > 1 else 0
        self.round += 1
        return {"best_rank": root, "restarted": worst, "swapped": swapped}

    def _replica(self, ann) -> int:
        """Swap current states between neighbours (r, r+1), alternating even and odd pairs."""
        from golf.engine.annealer import FL, SC

        comm, r = self.comm, self.comm.rank
        g = int(ann.graph.g)
        energies = comm.allgather((ann.sc[SC.CUR_TOTAL] / g, float(ann.fl[FL.T]),
                                   int(ann.sc[SC.CUR_D])))
        start = self.round % 2
        draws = self.rng.random(comm.size)  # identical on every rank
        partner = None
        for a in range(start, comm.size - 1, 2):
            b = a + 1
            (ea, ta, da), (eb, tb, db) = energies[a], energies[b]
            if da != db:
                continue  # only states of equal diameter trade places
            x = (ea - eb) * (1.0 / ta - 1.0 / tb)
            if x >= 0 or draws[a] < np.exp(x):
                if r == a:
                    partner = b
                if r == b:
                    partner = a
        swapped = 0
        if partner is not None:
            adj = ann.graph.adj
            other = np.empty_like(adj)
            comm.Sendrecv(adj.copy(), dest=partner, recvbuf=other, source=partner)
            mine = ann.sc[[SC.CUR_D, SC.CUR_TOTAL, SC.CUR_PER]].copy()
            theirs = np.empty_like(mine)
            comm.Sendrecv(mine, dest=partner, recvbuf=theirs, source=partner)
            adj[:] = other
            ann.sc[SC.CUR_D], ann.sc[SC.CUR_TOTAL], ann.sc[SC.CUR_PER] = theirs
            if (theirs[0], theirs[1]) < (ann.sc[SC.BEST_D], ann.sc[SC.BEST_TOTAL]):
                ann.best_adj[:] = other
                ann.sc[SC.BEST_D], ann.sc[SC.BEST_TOTAL], ann.sc[SC.BEST_PER] = theirs
            swapped = 1
        return comm.allreduce(swapped) // 2
