"""Fuzz: hostile and careless input ends in a GolfError or a valid result, fast, in bounded
memory; never another exception, a hang or a crash.

Hypothesis throws random bytes, random text lines, random numbers (negative, huge, floats, ids
beyond 64 bits, ``1e30``), damaged gzip files and random YAML mappings (anchors and aliases
among them) at :func:`golf.io.read_edges`, :meth:`golf.graph.Graph.from_edges`,
:func:`golf.grid.read_grid_edges`, ``golf validate`` and ``golf eval`` (in process, through
:func:`golf.cli.main`) and :func:`golf.config.load_config`.

Every case runs in one worker process (this file run as a script), started once for the
module, that holds two limits:

* memory: ``RLIMIT_AS`` at what the warmed-up worker maps plus :data:`HEADROOM`, so a
  regression that allocates by the value of an id (``1 2000000000`` -> 15 GiB) fails with a
  MemoryError in the worker, not on the machine; and the peak of the memory NumPy and Python
  allocate in the case (``tracemalloc``) at most :data:`TRACED_FLOOR` plus
  :data:`TRACED_PER_BYTE` per byte of input, so that an allocation by value fails the test
  well below the hard limit (an id of 10^6 already would);
* time: :data:`CASE_SECONDS` a case; a worker that does not answer in time is killed, and
  the case fails as a hang (a dead worker fails it as a crash).

The worker captures stdout and stderr of ``golf.cli.main`` by swapping ``sys.stdout`` and
``sys.stderr`` (what pytest's capsys does), since capsys cannot reach into another process.
"""

from __future__ import annotations

import gzip
import io
import os
import pickle
import select
import struct
import subprocess
import sys
import tempfile
import time

CASE_SECONDS = 10  # a case; the worker's start (imports, Numba's cache) gets STARTUP_SECONDS
STARTUP_SECONDS = 300
HEADROOM = 1 << 30  # RLIMIT_AS above the warmed-up worker's mappings
TRACED_FLOOR = 24 << 20  # tracemalloc peak of a case: this, plus...
TRACED_PER_BYTE = 400  # ...this per byte of the case's input


# ------------------------------------------------------------------------------------------
# the worker (this file run as a script)
class Invalid(Exception):
    """A result that is neither a GolfError nor valid."""


def _expect(cond, what):
    if not cond:
        raise Invalid(what)


def _check_graph(graph):
    from golf.graph import Graph

    _expect(isinstance(graph, Graph), f"not a Graph: {graph!r}")
    graph.check()
    _expect(graph.adj.dtype.name == "int32" and graph.adj.shape == (graph.m, graph.d),
            f"base rows of shape {graph.adj.shape}")


def _check_edge_list(el):
    import numpy as np

    from golf.graph import MAX_ORDER

    e = el.edges
    _expect(e.dtype == np.int64 and e.ndim == 2 and e.shape[1] == 2, f"edges {e.shape}")
    _expect(len(el.lines) == len(e), "a line number per edge")
    if len(e):
        _expect(e.min() >= 0 and e.max() < MAX_ORDER, "ids in range")
        _expect((e[:, 0] != e[:, 1]).all(), "no self-loop")
        _expect((np.diff(el.lines) > 0).all(), "lines in file order")


def _do_read_edges(case, folder):
    from golf.io import _parse_slow, read_edges

    problems = [] if case.get("problems") else None
    el = read_edges(case["path"], problems=problems)
    _check_edge_list(el)
    # the fast reader (NumPy's loadtxt) and the line-by-line one read the same edges
    rows = sorted([(line, u, v) for (u, v), line in zip(el.edges.tolist(), el.lines.tolist())]
                  + [(line, u, v) for line, _, u, v in el.duplicates])
    e, lines = _parse_slow(case["path"], None if problems is None else [])
    _expect(rows == sorted(zip(lines.tolist(), e[:, 0].tolist(), e[:, 1].tolist())),
            "read_edges and the line-by-line parse disagree")
    _check_graph(el.graph(n=case.get("n"), g=case.get("g", 1), d=case.get("d")))
    return len(el.edges)


def _do_from_edges(case, folder):
    from golf.graph import Graph

    graph = Graph.from_edges(case["edges"], n=case.get("n"), g=case.get("g", 1),
                             d=case.get("d"))
    _check_graph(graph)
    return graph.num_edges


def _do_read_grid(case, folder):
    from golf.grid import GridEdges, read_grid_edges

    ge = read_grid_edges(case["path"], size=case.get("size"),
                         problems=[] if case.get("problems") else None)
    _expect(isinstance(ge, GridEdges) and ge.coords.shape[1:] == (4,), "grid edges")
    graph, grid = ge.graph(g=case.get("g", 1), d=case.get("d"), r=case.get("r", 0))
    _check_graph(graph)
    _expect(graph.n == grid.n, "n = w*h")
    return graph.num_edges


def _do_cli(case, folder):
    import contextlib

    from golf.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(case["argv"])
        except SystemExit as exc:  # argparse: the harness passes well-formed arguments
            raise Invalid(f"SystemExit({exc.code}): {err.getvalue()[-500:]}") from None
    return {"code": code, "out": out.getvalue(), "err": err.getvalue()}


def _do_config(case, folder):
    from golf.config import RunConfig, load_config

    runs = load_config(case["path"], overrides=case.get("overrides", ()))
    _expect(runs and all(isinstance(r, RunConfig) for r in runs), "a list of RunConfig")
    return len(runs)


def _do_alloc(case, folder):
    """The harness's own test: allocate by a value, as a regression would."""
    import numpy as np

    return int(np.zeros(case["count"], dtype=np.int64).sum())


_KINDS = {"read_edges": _do_read_edges, "from_edges": _do_from_edges,
          "read_grid": _do_read_grid, "cli": _do_cli, "config": _do_config, "alloc": _do_alloc}


def _vm_size() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def _warm_up(folder):
    """Import and compile what the cases use (Numba loads its cache or compiles), before
    the limits: the cases then measure themselves, not the first compilation."""
    from golf.cli import main

    path = os.path.join(folder, "warm.edges")
    with open(path, "w") as f:
        f.write("0 1\n1 2\n2 3\n3 0\n")
    grid = os.path.join(folder, "warm-grid.edges")
    with open(grid, "w") as f:
        f.write("0,0 1,0\n1,0 1,1\n1,1 0,1\n0,1 0,0\n")
    quiet = io.StringIO()
    import contextlib

    with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
        for argv in (["eval", path, "--backend", "bfs"], ["eval", path, "--g", "auto"],
                     ["validate", path, "--n", "4", "--d", "2"],
                     ["eval", grid, "--backend", "bfs"],
                     ["validate", grid, "--grid", "2x2", "--r", "1", "--d", "2"]):
            main(argv)
    from golf.config import load_config

    cfg = os.path.join(folder, "warm.yaml")
    with open(cfg, "w") as f:
        f.write("name: w\nproblem: {n: 10, d: 3}\nsearch: {steps: 10}\n")
    load_config(cfg)


def _worker() -> None:
    import faulthandler
    import resource
    import traceback
    import tracemalloc

    from golf.errors import GolfError

    faulthandler.enable()  # a crash leaves the Python stack in the log the parent shows

    reply = os.fdopen(os.dup(1), "wb")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # stray writes to fd 1 cannot corrupt the replies
    requests = os.fdopen(os.dup(0), "rb")
    folder = tempfile.mkdtemp(prefix="golf-fuzz-")
    os.chdir(folder)
    # what the config cases' paths point at
    os.mkdir("adir")
    with open("afile", "w") as f:
        f.write("0 1\n1 2\n2 0\n")
    _warm_up(folder)
    limit = _vm_size() + HEADROOM
    resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))
    tracemalloc.start()

    def send(obj):
        data = pickle.dumps(obj)
        reply.write(struct.pack("<Q", len(data)) + data)
        reply.flush()

    send({"ready": True, "limit": limit})
    count = 0
    while True:
        head = requests.read(8)
        if len(head) < 8:
            return
        case = pickle.loads(requests.read(struct.unpack("<Q", head)[0]))
        count += 1
        sub = os.path.join(folder, f"case{count}")
        os.mkdir(sub)
        for name, data in case.get("files", {}).items():
            with open(os.path.join(sub, name), "wb") as f:
                f.write(data)
        for key in ("path",):
            if key in case:
                case[key] = os.path.join(sub, case[key])
        if "argv" in case:
            case["argv"] = [os.path.join(sub, a[5:]) if a.startswith("FILE:") else a
                            for a in case["argv"]]
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        t0 = time.perf_counter()
        result = {"outcome": "ok"}
        try:
            result["value"] = _KINDS[case["kind"]](case, sub)
        except GolfError as exc:
            result = {"outcome": "golf_error", "message": str(exc)}
        except Invalid as exc:
            result = {"outcome": "invalid", "message": str(exc)}
        except BaseException as exc:  # noqa: BLE001 - every other ending is the finding
            result = {"outcome": "exception", "message": f"{type(exc).__name__}: {exc}"[:2000],
                      "traceback": traceback.format_exc()[-4000:]}
        result["seconds"] = time.perf_counter() - t0
        result["peak"] = tracemalloc.get_traced_memory()[1] - base
        for name in os.listdir(sub):
            p = os.path.join(sub, name)
            if os.path.isfile(p):
                os.unlink(p)
        send(result)
        if count % 200 == 0:
            print(f"case {count}: VmSize {_vm_size() >> 20} MiB, limit {limit >> 20} MiB",
                  file=sys.stderr, flush=True)


# ------------------------------------------------------------------------------------------
# the parent side
class Worker:
    """The worker process and its pipes; :meth:`run` sends one case and waits for it."""

    def __init__(self):
        self.proc = None
        self.log = tempfile.TemporaryFile()
        self.limit = None

    def start(self):
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        env = dict(os.environ)
        env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
        # the threads of a small machine, whatever this one has (fewer mappings to limit)
        env["NUMBA_NUM_THREADS"] = str(min(2, os.cpu_count() or 1))
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.log, env=env, cwd=root)
        hello = self._receive(STARTUP_SECONDS, "starting the worker")
        self.limit = hello["limit"]

    def _receive(self, seconds, what):
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + seconds
        buf = b""
        need = 8
        size = None
        while len(buf) < need:
            left = deadline - time.monotonic()
            ready = select.select([fd], [], [], max(left, 0))[0] if left > 0 else []
            if not ready:
                self.stop()
                raise AssertionError(f"hang: no answer in {seconds} s ({what})")
            chunk = os.read(fd, need - len(buf))
            if not chunk:
                code = self.proc.wait()
                self.log.seek(0)
                tail = self.log.read()[-3000:].decode(errors="replace")
                self.proc = None
                raise AssertionError(f"crash: the worker died (exit {code}) on {what}\n{tail}")
            buf += chunk
            if size is None and len(buf) == 8:
                size = struct.unpack("<Q", buf)[0]
                need = 8 + size
        return pickle.loads(buf[8:])

    def run(self, case: dict) -> dict:
        if self.proc is None:
            self.start()
        data = pickle.dumps(case)
        self.proc.stdin.write(struct.pack("<Q", len(data)) + data)
        self.proc.stdin.flush()
        return self._receive(CASE_SECONDS, f"case {case!r:.300}")

    def stop(self):
        if os.environ.get("GOLF_FUZZ_LOG"):
            self.log.seek(0)
            with open(os.environ["GOLF_FUZZ_LOG"], "ab") as f:
                f.write(self.log.read())
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None


def _input_size(case) -> int:
    size = sum(len(v) for v in case.get("files", {}).values())
    return size + len(repr(case.get("edges", ""))) + 100


def check(worker, case, allowed=("ok", "golf_error")) -> dict:
    """Run a case; it must end in a GolfError or a valid result, in bounded memory."""
    result = worker.run(case)
    assert result["outcome"] in allowed, (
        f"{result['outcome']}: {result.get('message')}\n{result.get('traceback', '')}\n"
        f"case: {case!r:.1500}")
    bound = TRACED_FLOOR + TRACED_PER_BYTE * _input_size(case)
    assert result["peak"] <= bound, (f"allocated {result['peak']} bytes > {bound} (the file "
                                     f"is {_input_size(case)} bytes): case {case!r:.1500}")
    if result["outcome"] == "golf_error":
        assert "\n" not in result["message"].strip() or case["kind"] == "config", \
            result["message"]
    return result


def check_cli(worker, case) -> dict:
    """A ``golf`` command: exit 0, or exit 2 with exactly one ``golf: error:`` line, or (golf
    validate) the report: problem lines and a last ``golf: FILE: INVALID (k problems)``."""
    result = check(worker, case, allowed=("ok",))
    r = result["value"]
    code, err = r["code"], r["err"]
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.strip()]
    if code == 0:
        assert not [line for line in lines if line.startswith("golf: error:")], err
        return result
    assert code == 2, f"exit code {code}: {err}"
    errors = [line for line in lines if line.startswith("golf: error:")]
    if errors:
        assert len(errors) == 1, err
        assert all(line.startswith(("golf: error:", "golf: warning:")) for line in lines), err
        return result
    assert case["argv"][0] == "validate", err
    last = lines[-1]
    assert last.startswith("golf: ") and " INVALID (" in last, err
    count = int(last.rsplit("(", 1)[1].split()[0])
    assert count == len(lines) - 1, err
    return result


# ------------------------------------------------------------------------------------------
# strategies
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import yaml  # noqa: E402
from hypothesis import HealthCheck, assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

# the fuzz runs: hundreds of hostile inputs a test, in a worker process
pytestmark = pytest.mark.slow

# GOLF_FUZZ_EXAMPLES=2000 for a longer hunt than CI's
FUZZ = settings(max_examples=int(os.environ.get("GOLF_FUZZ_EXAMPLES", "300")), deadline=None,
                database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])

EDGE_CASES = [2**31 - 2, 2**31 - 1, 2**31, 2**32, 2**53 + 1, 2**63 - 1, 2**63, 2**64,
              -2**63, -2**63 - 1, 10**23, 99999999999999999999999, 999999999999, 2000000000,
              10**6, 1027, 1028, 1029, 0, -1, -0]
NUMBERS = st.one_of(st.integers(-3, 40), st.integers(-2**70, 2**70), st.sampled_from(EDGE_CASES))
ODD_TOKENS = ["1e30", "1e3", "1.0", "-0.0", "nan", "inf", "-inf", "0x10", "1_000", "+5", "٣",
              "５", "5,", ",", "0,0", ",1", "1,-1", "1,1,1", "\x00", "#", "", "'1'", "1e400",
              "99999999999999999999999,0", "0,99999999999999999999999", "1,2000000000",
              "9" * 5000, "-" + "9" * 5000, "0" * 5000 + "1", "9" * 5000 + ",0",
              chr(0xEFFFF), chr(0xF5182), chr(0x10FFFF) + "1", "2020-13-45", "a: 2020-13-45",
              "a: &x 1", "b: *x", "x: [[[[[[", "{", "- -"]
TOKENS = st.one_of(NUMBERS.map(str), st.floats().map(repr), st.sampled_from(ODD_TOKENS),
                   st.text(max_size=6),
                   st.tuples(NUMBERS, NUMBERS).map(lambda c: f"{c[0]},{c[1]}"))
SEPARATORS = st.sampled_from([" ", "\t", "  ", ",", " , ", "\x0c", "\xa0"])


@st.composite
def hostile_lines(draw):
    """Random lines: tokens of any kind joined by any separator."""
    lines = draw(st.lists(st.lists(TOKENS, max_size=4), max_size=12))
    sep = draw(SEPARATORS)
    return [sep.join(tokens) for tokens in lines]


@st.composite
def edge_text(draw, grid=False):
    """A mostly well-formed edge file with hostile lines mixed in: the reader's later stages
    (ids against the edge count, symmetry, degrees) see them too."""
    k = draw(st.integers(0, 30))
    top = draw(st.sampled_from([3, 8, 40, 2000]))
    pairs = draw(st.lists(st.tuples(st.integers(0, top), st.integers(0, top)), min_size=k,
                          max_size=k))
    if grid:
        w = draw(st.integers(1, 12))
        lines = [f"{a % w},{a // w} {b % w},{b // w}" for a, b in pairs]
    else:
        lines = [f"{a} {b}" for a, b in pairs]
    for line in draw(st.lists(st.one_of(hostile_lines().map("\n".join),
                                        st.tuples(NUMBERS, NUMBERS).map(
                                            lambda t: f"{t[0]} {t[1]}"),
                                        st.tuples(NUMBERS, NUMBERS, NUMBERS, NUMBERS).map(
                                            lambda t: f"{t[0]},{t[1]} {t[2]},{t[3]}")),
                              max_size=3)):
        lines.insert(draw(st.integers(0, len(lines))), line)
    ending = draw(st.sampled_from(["\n", "\r\n", "\r", ""]))
    return ending.join(lines) + draw(st.sampled_from(["", "\n"]))


def gz_variants(draw, data: bytes):
    """``data`` as an ``.edges`` file, a gzip, a truncated gzip, a gzip with a flipped byte,
    or plain bytes named ``.gz``."""
    how = draw(st.sampled_from(["plain", "gz", "truncated", "flipped", "mislabelled"]))
    if how == "plain":
        return "in.edges", data
    if how == "mislabelled":
        return "in.edges.gz", data
    z = gzip.compress(data, mtime=0)
    if how == "truncated":
        z = z[:draw(st.integers(0, max(len(z) - 1, 0)))]
    elif how == "flipped":
        at = draw(st.integers(0, len(z) - 1))
        z = z[:at] + bytes([z[at] ^ draw(st.integers(1, 255))]) + z[at + 1:]
    return "in.edges.gz", z


FILE_BYTES = st.one_of(st.binary(max_size=300),
                       edge_text().map(lambda t: t.encode("utf-8", "surrogatepass")),
                       edge_text(grid=True).map(lambda t: t.encode("utf-8", "surrogatepass")),
                       hostile_lines().map(lambda ls: "\n".join(ls).encode("utf-8",
                                                                           "surrogatepass")))
G_VALUES = st.one_of(st.just(1), st.just("auto"), st.integers(-2, 8), st.sampled_from(
    [2**31, 10**30, 0, "x", 1.5, None, True]))


# ------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def worker():
    w = Worker()
    w.start()
    yield w
    w.stop()


def test_harness_catches_allocation_by_value(worker):
    """A case that allocates by a value fails: past the tracemalloc bound at 10^7 ids (80 MB),
    and with a MemoryError, not the machine's memory, at 2*10^9 (16 GB)."""
    r = worker.run({"kind": "alloc", "count": 10**7})
    assert r["outcome"] == "ok" and r["peak"] > TRACED_FLOOR + TRACED_PER_BYTE * 200
    r = worker.run({"kind": "alloc", "count": 2 * 10**9})
    assert r["outcome"] == "exception" and "MemoryError" in r["message"], r


def test_known_hostile_files(worker):
    """The files of issue 15 end in one clear error naming the file and line."""
    for text, needle in (("0 1\n1 999999999999\n", "in.edges:2: vertex id 999999999999"),
                         ("0 1\n1 2000000000\n", "in.edges:2: vertex id 2000000000"),
                         ("0 1\n1 99999999999999999999999\n", "in.edges:2: vertex id 9999"),
                         ("0,0 1,0\n1,0 999999999999,0\n", "in.edges:2: coordinate "),
                         ("0,0 1,0\n1,0 1000000,0\n", "in.edges:2: cell in '1,0 1000000,0' "
                                                      "makes the bounding box 1000001x1")):
        r = check_cli(worker, {"kind": "cli", "files": {"in.edges": text.encode()},
                               "argv": ["eval", "FILE:in.edges", "--backend", "bfs"]})
        assert r["value"]["code"] == 2 and needle in r["value"]["err"], r
    r = check_cli(worker, {"kind": "cli", "files": {"in.edges.gz": b"no\n"},
                           "argv": ["eval", "FILE:in.edges.gz"]})
    assert "in.edges.gz: not a gzip file" in r["value"]["err"], r


@FUZZ
@given(data=st.data(), content=FILE_BYTES, problems=st.booleans(),
       n=st.one_of(st.none(), st.integers(1, 3000), st.sampled_from([2**31 - 1, 2**31, 10**9,
                                                                    10**23])),
       g=G_VALUES, d=st.one_of(st.none(), st.integers(0, 6), st.just(10**9)))
def test_read_edges(worker, data, content, problems, n, g, d):
    name, blob = gz_variants(data.draw, content)
    check(worker, {"kind": "read_edges", "files": {name: blob}, "path": name,
                   "problems": problems, "n": n, "g": g, "d": d})


@FUZZ
@given(data=st.data(), content=FILE_BYTES, problems=st.booleans(),
       size=st.one_of(st.none(), st.tuples(st.integers(1, 40), st.integers(1, 40)),
                      st.just((10**6, 10**6)), st.just((2**40, 1))),
       g=st.sampled_from([1, 2, 4, "auto"]), d=st.one_of(st.none(), st.integers(0, 6)),
       r=st.integers(0, 5))
def test_read_grid_edges(worker, data, content, problems, size, g, d, r):
    name, blob = gz_variants(data.draw, content)
    check(worker, {"kind": "read_grid", "files": {name: blob}, "path": name,
                   "problems": problems, "size": size, "g": g, "d": d, "r": r})


PAIR_VALUES = st.one_of(st.integers(-2, 30), st.sampled_from(EDGE_CASES), st.floats(),
                        st.just(None), st.just("3"), st.just(True))


@FUZZ
@given(pairs=st.lists(st.lists(PAIR_VALUES, min_size=0, max_size=3), max_size=20),
       as_array=st.sampled_from([None, "int64", "int32", "uint64", "float64", "object"]),
       n=st.one_of(st.none(), st.integers(-2, 3000), st.sampled_from([2**31, 10**9, 10**23])),
       g=G_VALUES, d=st.one_of(st.none(), st.integers(-1, 6), st.just(10**9)))
def test_from_edges(worker, pairs, as_array, n, g, d):
    edges = pairs
    if as_array is not None:
        try:
            edges = np.array(pairs, dtype=as_array)
        except (ValueError, TypeError, OverflowError):
            assume(False)
    check(worker, {"kind": "from_edges", "edges": edges, "n": n, "g": g, "d": d})


@FUZZ
@given(data=st.data(), content=FILE_BYTES,
       command=st.sampled_from(["eval", "eval-n", "eval-g", "validate", "validate-grid",
                                "eval-grid"]),
       n=st.one_of(st.integers(1, 3000), st.sampled_from([2**31 - 1, 2**31, 10**9, 10**23])),
       d=st.integers(0, 6), w=st.integers(1, 30), h=st.integers(1, 30), r=st.integers(1, 6))
def test_cli_eval_validate(worker, data, content, command, n, d, w, h, r):
    name, blob = gz_variants(data.draw, content)
    argv = {"eval": ["eval", f"FILE:{name}", "--backend", "bfs"],
            "eval-n": ["eval", f"FILE:{name}", "--n", str(n), "--backend", "bfs"],
            "eval-g": ["eval", f"FILE:{name}", "--g", "auto", "--json", "--backend", "bfs"],
            "eval-grid": ["eval", f"FILE:{name}", "--grid", f"{w}x{h}", "--backend", "bfs"],
            "validate": ["validate", f"FILE:{name}", "--n", str(n), "--d", str(d)],
            "validate-grid": ["validate", f"FILE:{name}", "--grid", f"{w}x{h}", "--r", str(r),
                              "--d", str(d)]}[command]
    check_cli(worker, {"kind": "cli", "files": {name: blob}, "argv": argv})


# -- configs -------------------------------------------------------------------------------
PATHS = ["afile", "afile/sub", "adir", "adir/new/run", "missing/dir", "/etc/passwd",
         "/dev/zero", "/proc/1/nonexistent", "/", ".", "x" * 300, "a\x00b", "results"]
SCALARS = st.one_of(st.none(), st.booleans(), NUMBERS, st.floats(), st.text(max_size=8),
                    st.sampled_from(["auto", "random", "circulant", "sa", "tabu", "chains",
                                     "bfs", "bitset", "10x10", "nan", ".inf"] + PATHS))
KEYS = st.one_of(st.sampled_from(["name", "problem", "search", "evaluator", "parallel", "output",
                                  "problems", "n", "d", "g", "grid", "r", "start", "steps",
                                  "time_limit", "dir", "backend", "mode", "seed", "t0"]),
                 st.text(max_size=6))
VALUES = st.recursive(SCALARS | st.just([]) | st.just({}),
                      lambda c: st.lists(c, min_size=1, max_size=3)
                      | st.dictionaries(KEYS, c, min_size=1, max_size=3), max_leaves=12)


@st.composite
def config_dicts(draw):
    """A config that is valid more often than not, then bent: random values, random keys,
    hostile paths, and random problems."""
    problem = {"n": draw(st.one_of(st.integers(2, 300), NUMBERS)),
               "d": draw(st.one_of(st.integers(1, 8), NUMBERS))}
    for key, values in (("g", st.one_of(st.integers(1, 4), st.just("auto"), SCALARS)),
                        ("start", st.one_of(st.sampled_from(PATHS), SCALARS)),
                        ("grid", st.one_of(st.tuples(NUMBERS, NUMBERS).map(list), SCALARS)),
                        ("r", SCALARS)):
        if draw(st.booleans()):
            problem[key] = draw(values)
    cfg = {"name": draw(st.one_of(st.just("fz"), SCALARS)), "problem": problem,
           "search": {"steps": draw(st.one_of(st.integers(1, 100), SCALARS))}}
    if draw(st.booleans()):
        cfg["output"] = {"dir": draw(st.one_of(st.sampled_from(PATHS), SCALARS))}
    if draw(st.booleans()):
        cfg["problems"] = draw(st.lists(st.dictionaries(KEYS, VALUES, max_size=3), max_size=3))
    for key, value in draw(st.dictionaries(KEYS, VALUES, max_size=2)).items():
        cfg[key] = value
    return cfg


def _alias_bomb(levels: int, width: int) -> str:
    lines = [f"a0: &a0 [{', '.join(['x'] * width)}]"]
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * width)}]")
    return "\n".join(lines) + "\nname: bomb\nproblem: {n: 10, d: 3}\nsearch: {steps: 10}\n" \
        f"extra: *a{levels - 1}\n"


@st.composite
def config_texts(draw):
    how = draw(st.sampled_from(["dump", "dump", "anchored", "bomb", "raw", "deep", "bytes"]))
    if how == "bytes":
        return draw(st.binary(max_size=300))
    if how == "bomb":
        return _alias_bomb(draw(st.integers(1, 12)), draw(st.integers(1, 12))).encode()
    if how == "deep":
        depth = draw(st.integers(1, 3000))
        return ("name: d\nproblem: {n: 10, d: 3}\nsearch: {steps: 10}\nz: " + "[" * depth
                + "]" * draw(st.integers(0, depth))).encode()
    if how == "raw":
        return "\n".join(draw(hostile_lines())).encode("utf-8", "surrogatepass")
    try:
        text = yaml.safe_dump(draw(config_dicts()), sort_keys=False)
    except (yaml.YAMLError, ValueError, OverflowError):
        assume(False)
    if how == "anchored":  # an anchor on one value and an alias to it later
        lines = text.splitlines()
        at = draw(st.integers(0, len(lines) - 1))
        if ": " in lines[at]:
            key, _, value = lines[at].partition(": ")
            lines[at] = f"{key}: &v {value}"
            lines.append("extra: *v")
        text = "\n".join(lines) + "\n"
    return text.encode("utf-8", "surrogatepass")


@FUZZ
@given(text=config_texts(),
       overrides=st.lists(st.tuples(KEYS, st.one_of(SCALARS.map(str), st.sampled_from(
           ["&a 3", "*a", "[1, *a]", "[", "{a: 1}", "!!python/object:os.system"]))).map(
           lambda kv: f"{kv[0]}={kv[1]}"), max_size=2))
def test_load_config(worker, text, overrides):
    check(worker, {"kind": "config", "files": {"c.yaml": text}, "path": "c.yaml",
                   "overrides": overrides})


def test_config_bomb_and_paths(worker):
    """The alias bomb is refused at its first anchor, fast; paths are checked by key."""
    r = check(worker, {"kind": "config", "files": {"c.yaml": _alias_bomb(9, 9).encode()},
                       "path": "c.yaml"})
    assert r["outcome"] == "golf_error" and "c.yaml:1: YAML anchor '&a0'" in r["message"]
    assert r["seconds"] < 1
    base = "name: p\nproblem: {n: 10, d: 3}\nsearch: {steps: 10}\n"
    for extra, needle in (("output: {dir: afile}\n", "c.yaml:4: output.dir: 'afile' is a file"),
                          ("output: {dir: afile/x}\n", "'afile' is a file, expected a folder"),
                          ("problem: {n: 10, d: 3, start: adir}\n", "problem.start: 'adir' is "
                                                                     "a folder")):
        text = (base.replace("problem: {n: 10, d: 3}\n", "search: {steps: 10}\n", 1)
                if "problem" in extra else base) + extra
        r = check(worker, {"kind": "config", "files": {"c.yaml": text.encode()},
                           "path": "c.yaml"})
        assert r["outcome"] == "golf_error" and needle in r["message"], r


if __name__ == "__main__":
    _worker()
