#!/usr/bin/env python3
"""The GPU test suite's record: every test marked ``gpu`` run on a GPU machine, a row a run
(the machine, the date, the commit, how many passed and skipped, the seconds).

    PYTHONPATH=. python3 scripts/bench_gpu_tests.py --note "on 4 GPUs"   # on a GPU machine
    python scripts/bench_gpu_tests.py --render                          # the page from the JSON

A run is ``python -m pytest -q -p no:cacheprovider -m gpu -rs tests/`` (``COMMAND``) from the
repository root; its row is added to ``results/gpu/tests.json`` and the page
``results/gpu/tests.md`` is written again. ``--log FILE`` keeps pytest's output. A run that
fails still gets its row (the failed count in it), and the script exits with pytest's status.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time

from benchlib import ROOT, load, new_record, render, save, table

COMMAND = "PYTHONPATH=. python3 -m pytest -q -p no:cacheprovider -m gpu -rs tests/"
OUT = os.path.join(ROOT, "results", "gpu", "tests")
WHAT = ("every test marked `gpu` (the GPU backends against the CPU ones and SciPy's reference on "
        "random graphs, symmetric under cyclic and metacyclic groups or not, with centre "
        "vertices or not; device and host chains against the CPU population step for step, "
        "over groups and centre forms too; GPU runs end to end; on two GPUs, one MPI rank a "
        "GPU, and `golf chase` starting a rank on each)")


def summary(text: str) -> dict:
    """pytest's last line as counts: ``{"passed": 188, "skipped": 1, ...}`` (deselected
    left out); the seconds it printed as ``seconds``."""
    line = [ln for ln in text.strip().splitlines() if " in " in ln][-1]
    counts = {k: int(v) for v, k in re.findall(r"(\d+) (passed|failed|skipped|errors?)", line)}
    counts["seconds"] = float(re.search(r" in ([\d.]+)s", line)[1])
    return counts


def describe(m: dict, count: int) -> str:
    """The row's machine: the GPUs of one host, the host's cores and the software."""
    gpus = f"{count} {m.get('gpu', '?')}" + (" of one host" if count > 1 else "")
    return (f"{gpus} (driver {m.get('driver', '?')}), {m.get('cores', '?')} cores, CuPy "
            f"{m.get('cupy', '?')}, Python {m.get('python', '?')}, NumPy {m.get('numpy', '?')}, "
            f"Numba {m.get('numba', '?')}")


def markdown(record: dict) -> str:
    """The page: what the suite tests, the command, a row a run, the notes."""
    lines = ["# GPU test suite", "", f"- what: {record['what']}",
             f"- command (repository root): `{record['command']}`",
             "- machine, date, commit, result:", ""]
    lines += table(["machine", "date", "commit", "passed", "skipped", "seconds"],
                   [(r["machine"], r["date"][:10],
                     r["commit"] + (f" ({r['change']})" if r.get("change") else ""),
                     r["passed"] if not r.get("failed") else f"{r['passed']} ({r['failed']} "
                     "failed)", r.get("skipped", 0), f"{r['seconds']:.1f}")
                    for r in record["rows"]])
    notes = record.get("notes") or []
    return "\n".join(lines + ([""] if notes else []) + [f"- {x}" for x in notes]) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default=OUT, help="the record (without .json / .md)")
    p.add_argument("--change", default=None, help="what the commit changed, for its row")
    p.add_argument("--log", default=None, help="a file for pytest's output")
    p.add_argument("--note", action="append", default=None, help="a line for the page "
                   "(repeatable; replaces the record's notes)")
    p.add_argument("--render", action="store_true", help="write the page again from the "
                   "JSON; runs nothing")
    args = p.parse_args(argv)
    if args.render:
        render(args.out, markdown, "bench_gpu_tests", args.note)
        return 0
    import cupy as cp

    from benchlib import gpu_machine

    mach = gpu_machine(cp)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (ROOT, os.environ.get("PYTHONPATH", "")) if p))
    t = time.monotonic()
    run = subprocess.run([sys.executable, *COMMAND.split()[2:]], cwd=ROOT, env=env,
                         capture_output=True, text=True)
    wall = time.monotonic() - t
    if args.log:
        with open(args.log, "w") as f:
            f.write(run.stdout + run.stderr)
    got = summary(run.stdout)
    record = load(args.out) or new_record(rows=[], what=WHAT)
    fresh = new_record()
    record["rows"].append({"machine": describe(mach, cp.cuda.runtime.getDeviceCount()),
                           "date": fresh["date"], "commit": mach.get("commit", "?"),
                           "change": args.change, "passed": got.get("passed", 0),
                           "failed": got.get("failed", 0), "skipped": got.get("skipped", 0),
                           "seconds": got["seconds"], "wall_seconds": round(wall, 1),
                           "command": COMMAND, "gpu": mach})
    record["command"] = COMMAND
    if args.note is not None:
        record["notes"] = args.note
    save(args.out, record, markdown(record))
    return run.returncode


if __name__ == "__main__":
    sys.exit(main())
