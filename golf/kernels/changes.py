"""Which slots of two same-shaped row arrays differ. The GPU backends keep a host copy of the
rows they hold on the device and look for a swap's few changed slots in it before every
evaluation; on big graphs that scan is a visible part of a step, so it is compiled, reads
blocks without branches (vectorised) and uses all threads from 2**20 slots on."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

__all__ = ["changed_slots"]


_SLOT_BLOCK = 4096


@njit(cache=True, inline="always")
def _differs(a, b, k):
    aa = a[k * _SLOT_BLOCK:(k + 1) * _SLOT_BLOCK]
    bb = b[k * _SLOT_BLOCK:(k + 1) * _SLOT_BLOCK]
    x = aa[0] ^ bb[0]
    for i in range(aa.size):  # no branch, indices from 0: the compiler vectorises this loop
        x |= aa[i] ^ bb[i]
    return x != 0


@njit(cache=True)
def _gather_changed(a, b, dirty, out):
    count = 0
    for k in range(dirty.size):
        if dirty[k]:
            for i in range(k * _SLOT_BLOCK, min(a.size, (k + 1) * _SLOT_BLOCK)):
                if a[i] != b[i]:
                    if count < out.size:
                        out[count] = i
                    count += 1
    return count


@njit(cache=True)
def _changed_serial(a, b, out):
    dirty = np.zeros((a.size + _SLOT_BLOCK - 1) // _SLOT_BLOCK, dtype=np.uint8)
    for k in range(dirty.size):
        dirty[k] = _differs(a, b, k)
    return _gather_changed(a, b, dirty, out)


@njit(cache=True, parallel=True)
def _changed_parallel(a, b, out):
    dirty = np.zeros((a.size + _SLOT_BLOCK - 1) // _SLOT_BLOCK, dtype=np.uint8)
    for k in prange(dirty.size):
        dirty[k] = _differs(a, b, k)
    return _gather_changed(a, b, dirty, out)


def changed_slots(new, old, out) -> int:
    """Flat indices where the arrays ``new`` and ``old`` (same shape, C order) differ, in
    increasing order, into ``out`` (as many as fit); returns how many differ. Big arrays are
    scanned by all threads (the GPU backends keep a host copy of the rows on the device and
    look for a swap's few changed slots in it every step)."""
    a, b = new.reshape(-1), old.reshape(-1)
    if a.size >= 1 << 20:
        return int(_changed_parallel(a, b, out))
    return int(_changed_serial(a, b, out))


