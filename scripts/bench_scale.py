#!/usr/bin/env python3
"""How the cost of a chase grows with ``n``: for each order, the real ``golf chase N D
--minutes M`` with nothing set by hand, then ``golf eval --repeat`` on its best graph at the
chosen form, and optionally a one-chain ``golf run`` of the same form and backend.

Each row says: the form the trials chose and the population the run kept; the seconds to the
run's first step (the warm-up's compilation apart); the search's evaluations a second after
the trials and ``golf eval``'s rate on the best graph, and their ratio; the one-chain run's
evaluations a second and the search's rate over it; the peak host memory of the chase (its
process and children, from ``wait4``) and its peak device memory (``nvidia-smi``, polled once
a second); the diameter and ASPL at the end against the random start's; and the wall time of
the whole command against ``M`` minutes.

    python scripts/bench_scale.py --target cpu --n 10000,100000 --minutes 10
    python scripts/bench_scale.py --target gpu --n 1000000,10000000 --gpus 2 --parallel 2 \\
        --minutes 9 --one-chain 0

``--target gpu`` runs each chase on one GPU (``CUDA_VISIBLE_DEVICES``, dealt round-robin over
``--gpus``); ``--target cpu`` hides the GPUs and gives each chase ``--cores`` cores (2: two
MPI ranks, one Numba thread each). Rows of different calls are merged into
``results/scale/scale.json`` and ``.md`` (keyed by target, ``n`` and ``d``, each row with its
machine and commit); ``--render`` writes the page again from the JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

from benchlib import (ROOT, chase_command, describe_machine, header, keep_log, load, new_record,
                      plain, render, repo_env, save, table)

OUT = os.path.join(ROOT, "results", "scale", "scale")
EVAL_TIMEOUT = 150


def _device_memory(pid_of, stop, peak: list) -> None:
    """Poll ``nvidia-smi`` once a second while ``stop`` is unset: the largest memory in MiB
    used by a process of the process group ``pid_of()``, into ``peak[0]``."""
    while not stop.wait(1.0):
        try:
            out = subprocess.run(["nvidia-smi", "--query-compute-apps=pid,used_memory",
                                  "--format=csv,noheader,nounits"], capture_output=True,
                                 text=True, timeout=10).stdout
        except (OSError, subprocess.TimeoutExpired):
            return
        group = pid_of()
        for line in out.splitlines():
            try:
                pid, mib = (int(x) for x in line.split(","))
                if os.getpgid(pid) == group:
                    peak[0] = max(peak[0], mib)
            except (ValueError, ProcessLookupError, PermissionError):
                continue


def _timed(cmd, env) -> tuple[float, float, float | None, str]:
    """Run ``cmd``; returns (wall seconds, peak host MiB, peak device MiB or None, output)."""
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    stop, peak = threading.Event(), [0]
    poll = threading.Thread(target=_device_memory, args=(lambda: proc.pid, stop, peak),
                            daemon=True)
    polled = env.get("CUDA_VISIBLE_DEVICES", "") != ""
    if polled:
        poll.start()
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    stop.set()
    wall = time.perf_counter() - t
    if proc.returncode:
        sys.exit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{out[-4000:]}")
    return wall, usage.ru_maxrss / 1024, (peak[0] or None) if polled else None, out


def _eval_rate(rd: str, summary: dict, repeat: int, env, timeout: float) -> float | None:
    """``golf eval best.edges --repeat`` at the run's form and backend: seconds a graph
    (None where reading and scoring took over ``timeout`` seconds)."""
    p = summary["config"]["problem"]
    cmd = [sys.executable, "-m", "golf", "eval", os.path.join(rd, "best.edges"), "--g",
           str(p["g"]), "--backend", summary["backend"], "--repeat", str(repeat), "--json"]
    if p.get("group"):
        cmd += ["--group", ",".join(map(str, p["group"]))]
    try:
        out = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True,
                             check=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])["seconds"]


def _one_chain(summary: dict, seconds: float, tmp: str, env) -> float:
    """Evaluations a second of a one-chain ``golf run`` of the run's form and backend for
    ``seconds`` (its own random start)."""
    import yaml

    p = summary["config"]["problem"]
    cfg = {"name": "one", "problem": {k: p[k] for k in ("n", "d", "g", "group") if p.get(k)},
           "search": {"time_limit": seconds, "batch": 1, "seed": 1},
           "evaluator": {"backend": summary["backend"]}, "output": {"dir": tmp}}
    path = os.path.join(tmp, "one.yaml")
    with open(path, "w") as f:
        yaml.safe_dump(cfg, f)
    subprocess.run([sys.executable, "-m", "golf", "run", path, "--quiet", "--force"], cwd=ROOT,
                   env=env, check=True, capture_output=True)
    with open(os.path.join(tmp, "one", "summary.json")) as f:
        return _stepping_rate(json.load(f), 0)


def _stepping_rate(summary: dict, before: int) -> float | None:
    """Evaluations a second of a run from its first step on (its set-up and the trials
    apart); ``before``: the evaluations made before it (the trials')."""
    seconds = summary["seconds"] - (summary.get("first_step_seconds") or 0.0)
    return (summary["evaluations"] - before) / seconds if seconds > 0 else None


def run_one(n: int, d: int, args, slot: int) -> dict:
    """One order: the chase and its measurements (module docstring)."""
    gpu = args.target == "gpu"
    env = repo_env()
    if gpu:  # the GPUs this script sees (its CUDA_VISIBLE_DEVICES), dealt round-robin
        seen = os.environ.get("CUDA_VISIBLE_DEVICES", "")
        ids = seen.split(",") if seen else [str(i) for i in range(args.gpus)]
        env["CUDA_VISIBLE_DEVICES"] = ids[slot % min(len(ids), args.gpus)]
    else:
        env["CUDA_VISIBLE_DEVICES"] = ""
        env["NUMBA_NUM_THREADS"] = "1"
    ranks = 1 if gpu else args.cores
    with tempfile.TemporaryDirectory(prefix="scale") as tmp:
        cmd = chase_command([n, d], args.minutes, ranks, tmp)
        wall, host_mib, dev_mib, _ = _timed(cmd, env)
        rd = os.path.join(tmp, f"n{n}d{d}")
        keep_log(rd, args.logs, f"{args.target}-n{n}d{d}")
        with open(os.path.join(rd, "summary.json")) as f:
            s = json.load(f)
        auto = s.get("auto_g", {})
        search_rate = _stepping_rate(s, auto.get("evaluations", 0))
        per = _eval_rate(rd, s, args.repeat, env, args.eval_timeout)
        one = _one_chain(s, args.one_chain, tmp, env) if args.one_chain > 0 else None
    pairs = n * (n - 1) / 2
    row = {
        "target": args.target, "n": n, "d": d, "form": auto.get("form", {}).get("label"), "backend": s["backend"],
        "chains": s["config"]["search"]["batch"], "batch": auto.get("batch"),
        "compile_seconds": s.get("compile_seconds"),
        "first_step_seconds": s.get("first_step_seconds"),
        "trial_seconds": auto.get("seconds"), "seconds": s["seconds"], "wall": round(wall, 1),
        "minutes": args.minutes, "steps": s["steps"], "evaluations": s["evaluations"],
        "search_rate": search_rate, "eval_seconds": per,
        "search_over_eval": search_rate * per if search_rate and per else None,
        "one_chain_rate": one, "search_over_one_chain": (search_rate / one if one and
                                                        search_rate else None),
        "peak_host_mib": round(host_mib), "peak_device_mib": dev_mib,
        "start": [s["start"]["diameter"], s["start"]["total"] / pairs],
        "best": [s["best"]["diameter"], s["best"]["aspl"]],
        "evaluator": s["evaluator"], "date": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    print(json.dumps({k: row[k] for k in ("n", "d", "form", "chains", "best", "wall")}),
          flush=True)
    return row


def _f(x, fmt):
    return "-" if x is None else format(x, fmt)


def markdown(rec: dict) -> str:
    rows = sorted(rec["rows"].values(), key=lambda r: (r["target"], r["d"], r["n"]))
    machines = {}
    for r in rows:
        machines.setdefault(describe_machine(r["machine"]), []).append(r["target"])
    notes = [f"{'/'.join(sorted(set(t)))}: {m}" for m, t in machines.items()]
    out = header("How the cost of a chase grows with n", rec, *notes, *rec.get("notes", []))
    out += table(
        ["where", "n", "d", "form chosen", "chains", "1st step s (compile)", "search evals/s",
         "eval ms", "search/eval", "search/1-chain", "host / device MiB", "start D / ASPL",
         "end D / ASPL", "wall s / M"],
        [[r["target"], f"{r['n']:,}", r["d"], r["form"], r["chains"],
          f"{_f(r['first_step_seconds'], '.1f')} ({_f(r['compile_seconds'], '.0f')})",
          _f(r["search_rate"], ",.0f"), _f(r["eval_seconds"] and r["eval_seconds"] * 1e3,
                                           ".3g"),
          _f(r["search_over_eval"], ".2f"), _f(r["search_over_one_chain"], ".2f"),
          f"{r['peak_host_mib']} / {_f(r['peak_device_mib'], 'd')}",
          f"{r['start'][0]} / {r['start'][1]:.4f}", f"{r['best'][0]} / {r['best'][1]:.6f}",
          f"{r['wall']:.0f} / {r['minutes'] * 60:.0f}"] for r in rows])
    out += ["", "gpu: one GPU a chase; cpu: 2 cores (2 MPI ranks), no GPU. The first step is "
            "on the run's clock (trials included, compilation apart); search evals/s: the run "
            "after the trials; eval: `golf eval --repeat` on its best graph at its form; "
            "1-chain: a one-chain `golf run` of that form and backend; start: the run's start "
            "graph (the winning trial's best); wall: the whole command. Each row's commit: "
            "`machine.commit` in the JSON."]
    return "\n".join(out) + "\n"


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--target", choices=("cpu", "gpu"))
    p.add_argument("--n", default="10000,100000,1000000,10000000",
                   help="orders, comma-separated")
    p.add_argument("--d", type=int, default=16)
    p.add_argument("--minutes", type=float, default=10.0)
    p.add_argument("--gpus", type=int, default=1)
    p.add_argument("--parallel", type=int, default=1, help="chases side by side")
    p.add_argument("--cores", type=int, default=2, help="cores a chase (--target cpu)")
    p.add_argument("--repeat", type=int, default=20, help="golf eval --repeat")
    p.add_argument("--eval-timeout", type=float, default=EVAL_TIMEOUT,
                   help="seconds golf eval may take (reading the file included)")
    p.add_argument("--one-chain", type=float, default=60.0,
                   help="seconds of the one-chain run (0: none)")
    p.add_argument("--note", action="append", default=None)
    p.add_argument("--render", action="store_true", help="write the page again from the JSON")
    p.add_argument("--merge", action="append", default=[], metavar="JSON",
                   help="take the rows of another call's record (with their commands and "
                        "machines) into this one, then render")
    p.add_argument("--out", default=OUT, help="record path without extension")
    p.add_argument("--logs", default=None, help="a folder for each chase's log.txt")
    args = p.parse_args(argv)
    if args.merge:
        rec = load(args.out) or {"rows": {}}
        for path in args.merge:
            with open(path) as f:
                other = json.load(f)
            rec["rows"].update(other["rows"])
            rec.update(date=other["date"], command=other["command"])
        if args.note is not None:
            rec["notes"] = args.note
        save(args.out, rec, markdown(rec))
        args.render = False
    if args.render:
        return render(args.out, markdown, "bench_scale.py", args.note)
    if args.merge:
        return None
    if args.target is None:
        p.error("--target is needed (or --render)")
    orders = [int(x) for x in args.n.split(",")]
    rec = load(args.out) or {"rows": {}}
    fresh = new_record()
    if args.target == "gpu":
        import cupy as cp

        from benchlib import gpu_machine

        fresh["machine"] = gpu_machine(cp)
    rec.update(date=fresh["date"], command=plain(fresh["command"]))
    if args.note is not None:
        rec["notes"] = args.note
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max(1, args.parallel)) as pool:
        rows = list(pool.map(lambda a: run_one(a[1], args.d, args, a[0]),
                             enumerate(orders)))
    for row in rows:
        row.update(command=rec["command"], machine=fresh["machine"])
        rec["rows"][f"{args.target}-n{row['n']}d{row['d']}"] = row
    save(args.out, rec, markdown(rec))


if __name__ == "__main__":
    main()
