"""What a run tells its user while it runs: lines with times on the terminal and in
``log.txt``, and a progress line (step, temperature, current and best score, gaps to the
bounds, evaluations a second, ETA), live on a terminal, every ``progress_every`` seconds in the
log."""

from __future__ import annotations

import math
import sys
import time

__all__ = ["Log", "fmt_seconds", "progress_line"]


class Log:
    """Lines to the terminal (unless quiet) and to ``path`` (log.txt); a live progress line on
    a TTY."""

    def __init__(self, path=None, quiet=False, prefix=""):
        self.quiet = quiet
        self.prefix = prefix
        self.file = open(path, "a", buffering=1) if path else None
        self.tty = sys.stdout.isatty()
        self._live = False

    def __call__(self, msg: str, live: bool = False) -> None:
        stamp = time.strftime("%H:%M:%S")
        if self.file and not live:
            self.file.write(f"{stamp} {self.prefix}{msg}\n")
        if self.quiet:
            return
        if live and self.tty:
            sys.stdout.write("\r" + msg[:160].ljust(160))
            sys.stdout.flush()
            self._live = True
            return
        if self._live:
            sys.stdout.write("\n")
            self._live = False
        print(f"{self.prefix}{msg}", flush=True)

    def to_file(self, msg: str) -> None:
        """A line for log.txt only."""
        if self.file:
            self.file.write(f"{time.strftime('%H:%M:%S')} {self.prefix}{msg}\n")

    def progress(self, msg: str) -> None:
        """The progress line: live on a terminal (or a plain line elsewhere), and to the log."""
        self(msg, live=True)
        self.to_file(msg)

    def close(self) -> None:
        if self._live and not self.quiet:
            sys.stdout.write("\n")
        if self.file:
            self.file.close()


def fmt_seconds(s: float) -> str:
    """``H:MM:SS``, or ``?`` for an unknown time."""
    if not math.isfinite(s):
        return "?"
    s = int(s)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


def progress_line(sc, *, temperature: float, steps: int, n: int, bounds, rate: float,
                  elapsed: float, time_limit: float | None) -> str:
    """One progress line from the counters ``sc`` (see :class:`golf.engine.annealer.SC`), the
    temperature, the step budget ``steps`` (0: none), the order ``n`` and the ``bounds`` of the
    problem, the evaluations a second and the time used and allowed."""
    from golf.engine.annealer import SC

    pairs = n * (n - 1) / 2
    step = int(sc[SC.STEP])
    left = []
    if steps:
        left.append((steps - step) / max(rate, 1e-9))
    if time_limit:
        left.append(time_limit - elapsed)
    eta = min(left) if left else math.inf
    done = f"{step:,}" + (f"/{steps:,} ({100 * step / steps:.1f}%)" if steps else "")
    gap_d = int(sc[SC.BEST_D]) - (bounds.diameter or 0)
    gap_a = sc[SC.BEST_TOTAL] / pairs - float(bounds.aspl or 0)
    return (f"step {done}  T={temperature:.3g}  cur D={sc[SC.CUR_D]} "
            f"ASPL={sc[SC.CUR_TOTAL] / pairs:.6f}  best D={sc[SC.BEST_D]} "
            f"ASPL={sc[SC.BEST_TOTAL] / pairs:.6f} (gap +{gap_d}, +{gap_a:.6f})  "
            f"{rate:,.0f} ev/s  ETA {fmt_seconds(eta)}")
