"""Typed settings: the spec of one setting and the check of a value against it.

The config schema (:mod:`golf.config`) and the backends' options (each backend's ``options``)
use the same specs, so that ``evaluator: {chunk_words: 8}`` in YAML, ``--opt chunk_words=8`` on
the command line and ``make_evaluator("bitset", ..., chunk_words=8)`` from Python are checked by
one function with one message.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

from golf.errors import GolfError

__all__ = ["Spec", "INF", "POSITIVE", "check_value"]

INF = float("inf")
# a number range that excludes its lower end
POSITIVE = (0, INF, False)


class Spec(NamedTuple):
    """One setting.

    kind : ``int``, ``float``, ``bool``, ``str``, ``path``, ``name``, ``choice``, ``temp``
        (a temperature: a number > 0 or ``"auto"``) or ``int|auto`` (an integer in the range,
        or ``"auto"``); a trailing ``?`` also allows ``None``
    default : the value when the setting is absent (``None`` with a kind without ``?``: the
        setting is required)
    check : ``(lo, hi)`` or ``(lo, hi, False)`` (``lo`` excluded) for numbers, the allowed
        values for ``choice``, else None
    expected : what a valid value is, in words (the error message says it)
    """

    kind: str
    default: Any
    check: Any
    expected: str

    @property
    def required(self) -> bool:
        return self.default is None and not self.kind.endswith("?")


def check_value(key: str, value, spec: Spec, where: Callable[[str], str] = lambda k: "") -> Any:
    """``value`` converted to the spec's type (ints stay ints, numbers become floats for
    ``float``), or a GolfError ``"<where>: <key>: expected <...>, got <value>"``."""
    kind, _default, check, expected = spec

    def bad():
        place = where(key)
        shown = repr(value)
        if len(shown) > 80:  # a hostile value is quoted, not copied whole
            shown = shown[:77] + "..."
        raise GolfError(f"{place + ': ' if place else ''}{key}: expected {expected}, "
                        f"got {shown}")

    if kind.endswith("?") and value is None:
        return None
    base = kind.rstrip("?")
    if base == "int|auto" and value == "auto":
        return value
    if base in ("int", "int|auto"):
        if isinstance(value, bool) or not isinstance(value, int):
            bad()
    elif base == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
            bad()  # value != value: NaN, which no range check would catch
        try:
            value = float(value)
        except OverflowError:  # an integer beyond any float
            bad()
    elif base == "bool":
        if not isinstance(value, bool):
            bad()
        return value
    elif base == "temp":
        if value == "auto":
            return value
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            bad()  # not value > 0: also NaN
        try:
            return float(value)
        except OverflowError:
            bad()
    elif base == "choice":
        if isinstance(value, bool) or not isinstance(value, (str, int, float)) or \
                value not in check:
            bad()
        return value
    elif base in ("str", "path"):
        if not isinstance(value, str) or not value:
            bad()
        return value
    elif base == "size":  # a lattice size: [w, h] or "WxH", kept as [w, h]
        from golf.grid import parse_size

        if isinstance(value, bool):
            bad()
        try:
            return list(parse_size(value, key))
        except GolfError:
            bad()
    elif base == "group":  # a symmetry group: "cyclic" or [a, r] (golf.group)
        if value == "cyclic":
            return value
        if (not isinstance(value, (list, tuple)) or len(value) != 2 or any(
                isinstance(x, bool) or not isinstance(x, int) or x < 1 for x in value)):
            bad()
        return [int(x) for x in value]
    elif base == "name":
        if not isinstance(value, str) or not value or any(
                not (c.isalnum() or c in "-_.") for c in value) or value.startswith("."):
            bad()
        return value
    else:  # pragma: no cover - a spec written wrongly in golf itself
        raise ValueError(f"unknown setting kind {kind!r}")
    if check is not None:
        lo, hi, lo_allowed = (*check, True)[:3]
        if value < lo or value > hi or (not lo_allowed and value == lo):
            bad()
    return value
