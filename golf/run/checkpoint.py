"""The checkpoint format: ``checkpoint.npz`` holds everything a run needs to continue bit for
bit.

``meta``          JSON (as uint8 bytes): temperatures, start score, start time, elapsed seconds,
                  steps, number of chains, and ``polish`` once a run is in its polish phase
``trace``         the trace rows so far, ``(rows, len(TRACE_COLUMNS))`` float64
``r{R}_{key}``    chain ``R``'s state arrays (``adj``, ``best_adj``, ``rng``, ``sc``, ``fl``;
                  see :meth:`golf.anneal.Annealer.state`; a tabu search adds ``tabu``, its
                  tabu list); one chain unless the run had parallel chains under MPI (K
                  chains on one GPU are one state of stacked arrays)

The file is written atomically (temporary file, then rename): a reader sees the old one or the
new one.
"""

from __future__ import annotations

import io
import json

import numpy as np

from golf.errors import GolfError

__all__ = ["save_checkpoint", "load_checkpoint"]


def save_checkpoint(path, meta: dict, trace_rows, states: list[dict]) -> None:
    """Write the checkpoint of ``states`` (one dict of arrays a chain) atomically."""
    from golf.anneal import TRACE_COLUMNS
    from golf.io import atomic_write

    buf = io.BytesIO()
    arrays = {f"r{r}_{k}": v for r, st in enumerate(states) for k, v in st.items()}
    np.savez(buf, meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8),
             trace=np.asarray(trace_rows, dtype=np.float64).reshape(-1, len(TRACE_COLUMNS)),
             **arrays)
    atomic_write(path, buf.getvalue())


def load_checkpoint(path) -> dict:
    """``{"meta", "trace", "states"}``: ``states[r]`` is chain ``r``'s state (one entry
    unless the run had parallel chains)."""
    try:
        with np.load(path) as z:
            meta = json.loads(bytes(z["meta"]).decode())
            trace = z["trace"]
            states = {}
            for key in z.files:
                if key.startswith("r") and "_" in key:
                    r, name = key[1:].split("_", 1)
                    states.setdefault(int(r), {})[name] = z[key]
    except (OSError, ValueError, KeyError) as exc:
        raise GolfError(f"{path}: unreadable checkpoint ({exc})") from None
    return {"meta": meta, "trace": trace, "states": [states[r] for r in sorted(states)]}
