"""Host-switch graphs: the Order/Radix problem (the Graph Golf 2021 host-switch category).

``n`` hosts each hang off one switch; ``s`` switches of radix ``r`` connect hosts and each
other. The problem: for ``(n, r)``, choose the number of switches and the wiring with the
smallest h-diameter and then the smallest h-ASPL (distances between hosts).

===================================  ==========================================================
:class:`HostSwitchGraph`             the model (:mod:`golf.hostswitch.network`)
:func:`read_host_switch`,            mnakao's ORP file format
:func:`write_host_switch`,           (:mod:`golf.hostswitch.orp_format`)
:func:`check_host_switch`,
:func:`is_orp_file`
:func:`h_score`                      exact h-diameter, h-total and h-ASPL on the CPU
                                     (:mod:`golf.hostswitch.h_scoring`)
:func:`host_switch_bounds`           the lower bounds over every number of switches
                                     (:mod:`golf.hostswitch.radix_bounds`)
===================================  ==========================================================

The names are loaded on first use, so that ``golf bounds --host-switch`` needs no Numba.
"""

__all__ = ["HostSwitchGraph", "read_host_switch", "write_host_switch", "check_host_switch",
           "is_orp_file", "h_score", "host_switch_bounds", "HostSwitchBounds",
           "fewest_switches"]

_LAZY = {
    "HostSwitchGraph": "golf.hostswitch.network",
    "read_host_switch": "golf.hostswitch.orp_format",
    "write_host_switch": "golf.hostswitch.orp_format",
    "check_host_switch": "golf.hostswitch.orp_format",
    "is_orp_file": "golf.hostswitch.orp_format",
    "h_score": "golf.hostswitch.h_scoring",
    "host_switch_bounds": "golf.hostswitch.radix_bounds",
    "HostSwitchBounds": "golf.hostswitch.radix_bounds",
    "fewest_switches": "golf.hostswitch.radix_bounds",
}


def __getattr__(name):
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'golf.hostswitch' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | set(__all__))
