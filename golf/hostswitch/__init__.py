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
:func:`host_switch_bounds`           the lower bounds over every number of switches
                                     (:mod:`golf.hostswitch.radix_bounds`)
===================================  ==========================================================

The names are loaded on first use, so that ``golf bounds --host-switch`` needs no Numba.
The scorers are backends (:mod:`golf.evaluators`: :func:`golf.evaluators.h_scoring.h_score`,
or :func:`golf.evaluate` of a :class:`HostSwitchGraph`); the start graphs are in
:mod:`golf.starts.switch_wiring`. ``golf.hostswitch.h_score`` still gives
:func:`golf.evaluators.h_scoring.h_score`, with a DeprecationWarning, until the next release.
"""

__all__ = ["HostSwitchGraph", "read_host_switch", "write_host_switch", "check_host_switch",
           "is_orp_file", "host_switch_bounds", "HostSwitchBounds",
           "fewest_switches"]

_LAZY = {
    "HostSwitchGraph": "golf.hostswitch.network",
    "read_host_switch": "golf.hostswitch.orp_format",
    "write_host_switch": "golf.hostswitch.orp_format",
    "check_host_switch": "golf.hostswitch.orp_format",
    "is_orp_file": "golf.hostswitch.orp_format",
    "host_switch_bounds": "golf.hostswitch.radix_bounds",
    "HostSwitchBounds": "golf.hostswitch.radix_bounds",
    "fewest_switches": "golf.hostswitch.radix_bounds",
}


# names that moved out of this package (golf/moved.py moves modules): old name -> module
_MOVED = {"h_score": "golf.evaluators.h_scoring"}


def __getattr__(name):
    if name in _MOVED:
        import importlib
        import warnings

        warnings.warn(f"golf.hostswitch.{name} moved to {_MOVED[name]}.{name}; the old name "
                      f"goes in the next release", DeprecationWarning, stacklevel=2)
        return getattr(importlib.import_module(_MOVED[name]), name)
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'golf.hostswitch' has no attribute '{name}'")


def __dir__():
    return sorted(set(globals()) | set(__all__))
