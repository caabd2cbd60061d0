"""What the benchmark scripts share: the machine description, a record's header, markdown
tables, and writing a record as JSON and markdown (atomically, with the date and command) or
reading it back; the experiments a record holds (the runs that informed its page, one line
each on it).

Importing it puts the repository root on ``sys.path``, so that the scripts run from a checkout
without installing golf (``python scripts/bench_eval.py``)."""

from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


def machine() -> dict:
    """CPU model, cores, cache sizes, Python/Numba/NumPy versions and the git commit
    (``GOLF_COMMIT`` where set: a machine that runs a copied working tree)."""
    import numba
    import numpy as np

    info = {"python": platform.python_version(), "platform": platform.platform(),
            "cores": len(os.sched_getaffinity(0)), "numba": numba.__version__,
            "numpy": np.__version__}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
        from golf.evaluators.bitset import cache_bytes

        info["l2_bytes"] = cache_bytes(2)
        info["l3_bytes"] = cache_bytes(3)
    except OSError:
        pass
    try:
        info["commit"] = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                                        capture_output=True, text=True).stdout.strip()
    except OSError:
        pass
    if os.environ.get("GOLF_COMMIT"):  # a copy of a checkout whose .git is not its own
        info["commit"] = os.environ["GOLF_COMMIT"]
    return info


def gpu_machine(cp) -> dict:
    """:func:`benchlib.machine` plus GPU 0's name, the driver, CUDA runtime and CuPy versions."""
    props = cp.cuda.runtime.getDeviceProperties(0)
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    rt = cp.cuda.runtime.runtimeGetVersion()
    try:
        driver = subprocess.run(["nvidia-smi", "--query-gpu=driver_version",
                                 "--format=csv,noheader", "-i", "0"], capture_output=True,
                                text=True).stdout.strip()
    except OSError:
        driver = ""
    return {**machine(), "gpu": name, "driver": driver or None,
            "cuda": f"{rt // 1000}.{rt % 1000 // 10}", "cupy": cp.__version__}


def new_record(**parts) -> dict:
    """A record with the date, the command line and the machine, plus ``parts``."""
    return {"date": datetime.datetime.now().isoformat(timespec="seconds"),
            "command": " ".join(["python"] + sys.argv), "machine": machine(), **parts}


def describe_machine(m: dict) -> str:
    """One line from a :func:`machine` dict: the GPU where the record has one, the CPU and
    cores, the Python, NumPy and Numba versions."""
    gpu = ""
    if m.get("gpu"):
        extra = [f"{label} {m[k]}" for k, label in (("driver", "driver"), ("cuda", "CUDA"),
                                                     ("cupy", "CuPy")) if m.get(k)]
        gpu = f"{m['gpu']}" + (f" ({', '.join(extra)})" if extra else "") + "; host "
    return (f"{gpu}{m.get('cpu', '?')}, {m.get('cores', '?')} cores; Python "
            f"{m.get('python', '?')}, NumPy {m.get('numpy', '?')}, Numba {m.get('numba', '?')}")


def header(title: str, record: dict, *notes: str) -> list[str]:
    """Markdown title and the record's date and command, then ``notes`` as list items."""
    return [f"# {title}", "", f"- date: {record['date']}", f"- command: `{record['command']}`",
            *(f"- {x}" for x in notes), ""]


def table(columns, rows) -> list[str]:
    """A markdown table: ``columns`` names, ``rows`` sequences of cells (already formatted)."""
    return ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns),
            *("| " + " | ".join(str(c) for c in r) + " |" for r in rows)]


def load(out: str) -> dict | None:
    """The record in ``<out>.json``, or None where there is none."""
    try:
        with open(out + ".json") as f:
            return json.load(f)
    except FileNotFoundError:
        return None


def save(out: str, record: dict, markdown: str) -> None:
    """``<out>.json`` and ``<out>.md``, each written atomically."""
    from golf.io import atomic_write

    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    atomic_write(out + ".json", json.dumps(record, indent=1) + "\n")
    atomic_write(out + ".md", markdown)
    print(f"wrote {out}.json and {out}.md", flush=True)


def render(out: str, markdown, script: str, notes=None) -> None:
    """``--render``: the page ``<out>.md`` written again from the record ``<out>.json`` by
    ``markdown(record)``, with the record's ``notes`` replaced by ``notes`` where given; exits
    naming ``script`` where there is no record."""
    record = load(out)
    if record is None:
        sys.exit(f"{script}: no record at {out}.json")
    if notes is not None:
        record["notes"] = list(notes)
    save(out, record, markdown(record))


# ------------------------------------------------------------------------------------------
# experiments: the runs that informed a page (chose a default, compared a setting) live in
# its record, ``record["experiments"][NAME]``: the record their script writes (date, command,
# machine, rows or table, notes) plus ``shows``, one line saying what they showed. The page
# gives that line; the tables stay in the JSON.
EXPERIMENTS = "Other runs (`experiments` in the JSON):"
UNSAID = "what it showed is not said yet (`--render --experiment NAME --shows TEXT`)"


def experiment_lines(record: dict) -> list[str]:
    """The page's lines on the record's experiments: a heading and one line each (its name,
    date and what it showed); nothing where there are none."""
    exps = record.get("experiments") or {}
    if not exps:
        return []
    return ["", EXPERIMENTS, *(f"- `{name}` ({exp.get('date', '?')[:10]}): "
                               f"{exp.get('shows') or UNSAID}" for name, exp in exps.items())]


def load_experiment(out: str, name: str) -> dict | None:
    """The experiment ``name`` of the record ``<out>.json``, or None."""
    return ((load(out) or {}).get("experiments") or {}).get(name)


def save_experiment(out: str, name: str, exp: dict, markdown, shows: str | None = None) -> None:
    """Store ``exp`` as the experiment ``name`` of the record ``<out>.json`` (its line on the
    page: ``shows``, else the one ``exp`` holds, else :data:`UNSAID`) and write the page again
    with ``markdown(record)``. Where there is no record at ``out`` (a run kept apart: on
    another machine, a dry run) a record of the experiment alone is written, JSON only, for
    the script's ``--merge`` to take in later."""
    from golf.io import atomic_write

    if shows is not None:
        exp["shows"] = shows
    exp.setdefault("shows", None)
    record = load(out)
    if record is None or "rows" not in record:  # none yet, or one of experiments alone
        record = record or {}
        record.setdefault("experiments", {})[name] = exp
        os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
        atomic_write(out + ".json", json.dumps(record, indent=1) + "\n")
        print(f"wrote {out}.json (experiments alone: {', '.join(record['experiments'])})",
              flush=True)
        return
    record.setdefault("experiments", {})[name] = exp
    save(out, record, markdown(record))


def render_experiment(out: str, name: str, shows: str | None, markdown, script: str) -> None:
    """``--render --experiment NAME [--shows TEXT]``: set the experiment's line (where
    ``shows`` is given) and write the page again; exits naming ``script`` where the record has
    no such experiment."""
    exp = load_experiment(out, name)
    if exp is None:
        sys.exit(f"{script}: no experiment {name!r} in {out}.json")
    save_experiment(out, name, exp, markdown, shows)


def experiment_args(p, default: str | None = None, record: tuple | None = None):
    """``--experiment NAME`` and ``--shows TEXT`` on the parser ``p``: a run goes into the
    record's experiment NAME (``default``: the script's own) instead of its rows. With
    ``record`` (its path under ``results/``, e.g. ``("bench", "eval_cpu")``), also ``--out``
    (the record that holds the experiment) and ``--render`` (only the page written again)."""
    if record is not None:
        p.add_argument("--out", default=os.path.join(ROOT, "results", *record),
                       help="the record that holds the experiment")
        p.add_argument("--render", action="store_true", help="only write the page again from "
                       "the JSON (with --shows: the experiment's line first)")
    p.add_argument("--experiment", default=default, metavar="NAME",
                   help="write the run into the record's experiment NAME (not its own rows)"
                   + (f"; default {default}" if default else ""))
    p.add_argument("--shows", default=None, metavar="TEXT",
                   help="with --experiment: one line saying what the run showed, for the page")


def unpack_git(path: str, dest: str) -> str | None:
    """Unpack the HEAD of the git directory ``path`` (a bare mirror) into the new folder
    ``dest`` and return its commit; None (nothing done) where ``path`` is no git directory."""
    if not (os.path.isdir(os.path.join(path, "objects"))
            and os.path.isfile(os.path.join(path, "HEAD"))):
        return None
    os.makedirs(dest)
    archive = subprocess.run(["git", f"--git-dir={path}", "archive", "HEAD"], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", dest], input=archive, check=True)
    return subprocess.run(["git", f"--git-dir={path}", "rev-parse", "HEAD"], check=True,
                          capture_output=True, text=True).stdout.strip()


def orp_build(path, build_dir: str, build, script: str) -> dict:
    """The record of an mnakao/ORP build: ``build(path)`` where ``path`` (ORP's source tree
    or a git directory of it) is given, else the one ``build_dir/orp.json`` keeps from the last
    build; exits naming ``script`` where there is neither."""
    if path:
        return build(path)
    try:
        with open(os.path.join(build_dir, "orp.json")) as f:
            return json.load(f)
    except FileNotFoundError:
        sys.exit(f"{script}: no ORP build in {os.path.relpath(build_dir, ROOT)}: pass --orp "
                 f"PATH (ORP's source tree or a git directory of it)")


def repo_env(**extra) -> dict:
    """The environment for a golf subprocess: the repository first on PYTHONPATH, whatever
    PYTHONPATH already held after it (e.g. a folder of carried packages), plus ``extra``."""
    path = os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH", "")) if p)
    return dict(os.environ, PYTHONPATH=path, **extra)


def run_problem(config: str, name: str, seconds: float, ranks: int, tmp: str,
                cpu_only: bool = True, sets=(), gpu=None) -> tuple[dict, str]:
    """Run one problem of a config (``golf run CONFIG --only NAME``, plus ``--set`` of each
    ``KEY=VALUE`` in ``sets``) for ``seconds`` in the folder ``tmp``, under ``mpiexec -n
    RANKS`` when ``ranks > 1`` (one chain a rank, one thread each with ``cpu_only``, which
    also hides the GPUs; ``gpu``: the one GPU it sees); returns its summary.json and its run
    folder."""
    from golf.parallel import mpiexec_prefix

    cmd = [sys.executable, "-m", "golf", "run", config, "--only", name, "--quiet", "--force",
           "--set", f"search.time_limit={seconds}", "--set", f"output.dir={tmp}"]
    for item in sets:
        cmd += ["--set", item]
    if ranks > 1:
        prefix = mpiexec_prefix(ranks)
        if prefix is None:
            sys.exit(f"{ranks} ranks need mpiexec and mpi4py (pip install 'golf[mpi]')")
        cmd = [*prefix, *cmd]
    env = repo_env(NUMBA_NUM_THREADS="1", CUDA_VISIBLE_DEVICES="") if cpu_only else repo_env()
    if gpu is not None:
        env["CUDA_VISIBLE_DEVICES"] = str(gpu)
    subprocess.run(cmd, check=True, cwd=ROOT, env=env)
    import yaml

    with open(config) as f:
        top = yaml.safe_load(f)["name"]
    rd = os.path.join(tmp, top, name)
    with open(os.path.join(rd, "summary.json")) as f:
        return json.load(f), rd


def run_killable(cmd, timeout: float | None = None, **kw) -> int:
    """``subprocess.run(cmd, **kw).returncode`` in a process group of its own, the whole
    group killed where it runs past ``timeout`` seconds (then ``TimeoutExpired``): a run
    under mpiexec leaves no rank behind."""
    import signal

    proc = subprocess.Popen(cmd, start_new_session=True, **kw)
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise


def chase_command(pair: list, minutes: float, ranks: int, tmp: str, sets=()) -> list:
    """``golf chase PAIR --minutes M --out TMP --ranks R --quiet`` (plus ``--set`` of each
    ``KEY=VALUE`` in ``sets``): ``pair`` is ``[N, D]`` or ``["--grid", "WxH", D, R]``."""
    cmd = [sys.executable, "-m", "golf", "chase", *map(str, pair), "--minutes", str(minutes),
           "--out", tmp, "--ranks", str(ranks), "--quiet"]
    for item in sets:
        cmd += ["--set", item]
    return cmd


# options naming where a call wrote (not how it ran): left out of a page's commands
FOLDER_OPTIONS = ("--out", "--graphs", "--logs")


def plain(command: str) -> str:
    """``command`` without the folders it wrote to (:data:`FOLDER_OPTIONS` and their
    values)."""
    words = command.split()
    return " ".join(w for i, w in enumerate(words) if w not in FOLDER_OPTIONS
                    and (i == 0 or words[i - 1] not in FOLDER_OPTIONS))


def keep_log(rd: str, folder: str | None, name: str) -> None:
    """Copy run folder ``rd``'s log.txt to ``folder/name.log`` (nothing when ``folder`` is
    None)."""
    if folder:
        import shutil

        os.makedirs(folder, exist_ok=True)
        shutil.copyfile(os.path.join(rd, "log.txt"), os.path.join(folder, name + ".log"))


def export_best(rd: str, folder: str, summary: dict) -> str:
    """``golf export RUN --gzip`` into ``folder`` (the competition's file name); returns the
    file's path relative to the repository."""
    from golf.problems import problem_of

    os.makedirs(folder, exist_ok=True)
    subprocess.run([sys.executable, "-m", "golf", "export", rd, "-o", folder + os.sep, "--gzip"],
                   check=True, capture_output=True, cwd=ROOT, env=repo_env())
    best = summary["best"]
    problem = problem_of(summary["config"]["problem"])
    name = problem.submission_name(best["diameter"], best["total"])
    return os.path.relpath(os.path.join(folder, name + ".gz"), ROOT)
