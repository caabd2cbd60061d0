"""xoshiro256** (Blackman and Vigna, "Scrambled linear pseudorandom number generators", 2021):
a small, fast generator whose whole state is four uint64 in an array, so that a run can save
it in a checkpoint and resume bit for bit."""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["rng_seed", "rng_next", "rng_random", "rng_below"]


@njit(cache=True, inline="always")
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@njit(cache=True)
def rng_seed(seed):
    """A fresh xoshiro256** state (uint64[4]) from an integer seed, via splitmix64."""
    s = np.empty(4, dtype=np.uint64)
    z = np.uint64(seed & 0x7FFFFFFFFFFFFFFF) ^ np.uint64(0x5DEECE66D)
    for i in range(4):
        z += np.uint64(0x9E3779B97F4A7C15)
        x = z
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        s[i] = x ^ (x >> np.uint64(31))
    return s


@njit(cache=True)
def rng_next(s):
    """Next 64 random bits; advances the state ``s`` in place."""
    result = _rotl(s[1] * np.uint64(5), 7) * np.uint64(9)
    t = s[1] << np.uint64(17)
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = _rotl(s[3], 45)
    return result


@njit(cache=True)
def rng_random(s):
    """Uniform float in [0, 1) with 53 random bits."""
    return np.float64(rng_next(s) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def rng_below(s, k):
    """Uniform integer in [0, k) for 1 <= k < 2**53."""
    return np.int64(rng_random(s) * k)
