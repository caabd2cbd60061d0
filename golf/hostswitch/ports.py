"""A host-switch graph as the search holds it: one row of ``r`` ports a switch.

The search (:mod:`golf.engine`) walks rows of slots, so a host-switch graph (:mod:`golf.
hostswitch.network`) is held as the ``s x r`` int32 array of its switches' ports:

``>= 0``                  a link to that switch (local ids ``0 .. s-1``), in both rows
``HOST_PORT`` (-2)        a port that holds a host
``-1``                    a free port

The hosts are interchangeable for every score, so the rows keep how many each switch holds,
not which: :func:`to_graph` numbers them switch by switch (hosts ``0 .. h_0-1`` on the first
switch, and so on). The swaps of :mod:`golf.engine.moves` read host ports as no link and
never pick them, so they rewire links alone and keep every switch's used ports;
:func:`golf.engine.moves.propose_host` moves hosts.

Start graphs in this form: :mod:`golf.starts.switch_wiring`.
"""

from __future__ import annotations

import numpy as np

from golf.errors import GolfError
from golf.graph import Graph
from golf.hostswitch.network import HostSwitchGraph

__all__ = ["HOST_PORT", "PortGraph", "to_ports", "to_graph", "host_counts", "check_ports"]

# a slot of a port row that holds a host (the moves of golf.engine.moves never pick it as a
# link; the kernels count it)
HOST_PORT = -2


def host_counts(ports) -> np.ndarray:
    """Hosts on each switch of the rows ``ports``, int64 ``(s,)``."""
    return (np.asarray(ports) == HOST_PORT).sum(axis=1).astype(np.int64)


def to_ports(net: HostSwitchGraph) -> np.ndarray:
    """The ``s x r`` port rows of ``net`` (links first, then hosts, then free ports)."""
    rows = net.switches.adj.copy()
    links = (rows >= 0).sum(axis=1)
    cols = np.arange(net.r)[None, :]
    hosts = net.host_counts[:, None]
    rows[(cols >= links[:, None]) & (cols < links[:, None] + hosts)] = HOST_PORT
    return np.ascontiguousarray(rows, dtype=np.int32)


def to_graph(n: int, r: int, ports) -> HostSwitchGraph:
    """The host-switch graph of the port rows (hosts numbered switch by switch)."""
    ports = np.asarray(ports, dtype=np.int32)
    s = ports.shape[0]
    counts = host_counts(ports)
    if counts.sum() != n:
        raise GolfError(f"the port rows hold {counts.sum()} hosts, expected n={n}")
    links = np.where(ports >= 0, ports, -1).astype(np.int32)
    links = -np.sort(-links, axis=1)  # links first, descending, then -1
    links = np.where(links >= 0, links, -1)
    host_switch = np.repeat(np.arange(s, dtype=np.int32), counts)
    return HostSwitchGraph(n, s, r, Graph(s, r, 1, links), host_switch)


def check_ports(ports, n: int, r: int) -> None:
    """Every rule of a host-switch graph on the rows: through :func:`to_graph` and
    :meth:`HostSwitchGraph.check` (links in both rows, no loop or repeat, ``n`` hosts, at most
    ``r`` ports a switch by construction)."""
    ports = np.asarray(ports)
    if ports.ndim != 2 or ports.shape[1] != r or (ports < HOST_PORT).any():
        raise GolfError(f"port rows must be (s, r={r}) of ids, -1 or {HOST_PORT}")
    to_graph(n, r, ports).check()


class PortGraph(Graph):
    """The port rows of a host-switch graph as the search's graph: a
    :class:`golf.graph.Graph` on the ``s`` switches (``g = 1``, rows of width ``r``) whose rows
    also hold host ports, with the number of ``hosts``. :meth:`net` is the host-switch graph
    (:func:`to_graph`), :meth:`check` checks every rule."""

    __slots__ = ("hosts",)

    def __init__(self, hosts: int, ports):
        ports = np.asarray(ports, dtype=np.int32)
        super().__init__(ports.shape[0], ports.shape[1], 1, ports)
        self.hosts = int(hosts)

    def net(self) -> HostSwitchGraph:
        return to_graph(self.hosts, self.d, self.adj)

    def with_rows(self, adj) -> "PortGraph":
        return PortGraph(self.hosts, adj)

    def copy(self) -> "PortGraph":
        return PortGraph(self.hosts, self.adj.copy())

    def check(self) -> None:
        check_ports(self.adj, self.hosts, self.d)

    def edges(self) -> np.ndarray:
        """Every edge with the ORP file's ids (hosts, then switches)."""
        return self.net().edges()

    def __eq__(self, other) -> bool:
        if not isinstance(other, PortGraph):
            return NotImplemented
        return self.net() == other.net()

    def __repr__(self) -> str:
        return (f"PortGraph(hosts={self.hosts}, switches={self.n}, radix={self.d}, "
                f"links={int((self.adj >= 0).sum()) // 2})")
