"""The pages of golf's documentation that are generated from the code and the records, so
that they cannot drift from them. At ``builder-inited`` it writes ``docs/generated/``:

* ``config.md``: every key of a run config, from :data:`golf.config.SCHEMA` (type, default,
  accepted values) and :data:`golf.config.DOCS` (what the key does, when to change it); the
  evaluator section from the backends' options and their classes' docstrings;
* ``benchmarks.md``: every results page, ``results/**/*.md``, each rendered from its JSON
  record by its benchmark script, a section a question (:data:`RESULT_GROUPS`).
"""

from __future__ import annotations

import os
import re

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # docs/
ROOT = os.path.dirname(HERE)
OUT = os.path.join(HERE, "generated")

# the benchmarks page: a section a question a user asks, and the results page that answers
# it (under results/); every results/**/*.md is in one section
RESULT_GROUPS = [
    ("How close does `golf chase` come to the records on a CPU?", "quality/quality_cpu.md"),
    ("How close with a GPU?", "quality/quality_gpu.md"),
    ("Grid graphs: how close to the best-known graphs?", "grid/chase.md"),
    ("Grid graphs with a GPU?", "grid/chase_gpu.md"),
    ("Host-switch graphs: how does golf compare with ORP?", "hostswitch/bench_hostswitch.md"),
    ("How fast is scoring on a CPU?", "bench/eval_cpu.md"),
    ("How fast is scoring on a GPU?", "gpu/bench_gpu.md"),
    ("How fast is host-switch scoring?", "bench/hostswitch_eval.md"),
    ("How fast is the search?", "search/bench_search.md"),
    ("How does golf scale over MPI ranks and GPUs?", "bench/mpi.md"),
    ("How does a chase's cost grow with n, up to millions of vertices?", "scale/scale.md"),
    ("Does the GPU test suite pass?", "gpu/tests.md"),
]


def result_pages() -> list[str]:
    """Every results page, ``results/**/*.md``, relative to ``results/``."""
    top = os.path.join(ROOT, "results")
    return sorted(os.path.relpath(os.path.join(d, f), top).replace(os.sep, "/")
                  for d, _, files in os.walk(top) for f in files if f.endswith(".md"))


def _md(text: str) -> str:
    """A docstring fragment as MyST: ``:role:`x``` becomes ``{role}`x```, and cell breaks go."""
    text = re.sub(r":(mod|func|class|meth|data|attr):`", r"{py:\1}`", text)
    return " ".join(text.split()).replace("|", "\\|")


def _value(v) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    return f"`{v}`"


def config_page() -> str:
    from golf.config import DOCS, SCHEMA, evaluator_schema

    lines = ["# Config reference", "",
             "Every key of a run config (`golf run CONFIG`), with its default, the values it "
             "takes, what it does and when to change it. A file of problems sets any of them "
             "at its top, as every problem's default, and per problem; `--set KEY=VALUE` "
             "overrides them last. This page is generated from the schema in "
             "`golf/config/schema.py`.", ""]
    for section, spec in SCHEMA.items():
        if section == "evaluator":
            continue
        if not isinstance(spec, dict):
            lines += [f"## `{section}`", "", _md(DOCS[section]), "",
                      f"Values: {_md(spec.expected)}; default: the file's name.", ""]
            continue
        lines += [f"## `{section}`", "", "| key | default | values | what it does |",
                  "|---|---|---|---|"]
        for key, s in spec.items():
            default = "required" if s.required else _value(s.default)
            lines.append(f"| `{section}.{key}` | {default} | {_md(s.expected)} | "
                         f"{_md(DOCS[f'{section}.{key}'])} |")
        lines.append("")
    lines += _evaluator_section(evaluator_schema())
    return "\n".join(lines) + "\n"


def _evaluator_section(specs: dict) -> list:
    from numpydoc.docscrape import NumpyDocString

    from golf.evaluators import backend_class, names

    takes, said = {}, {}
    for b in names():
        cls = backend_class(b)
        params = {p.name: " ".join([p.type, *p.desc])
                  for p in NumpyDocString(cls.__doc__ or "")["Parameters"]}
        for key in cls.options:
            takes.setdefault(key, []).append(b)
            said.setdefault(key, []).append((b, params.get(key, "")))
    lines = ["## `evaluator`", "",
             "`backend` picks the evaluator ([Scoring graphs](../backends.md)); the other keys "
             "are the options of the backends, each left to the backend's own default unless "
             "set. An option that the chosen backend does not take is an error naming the "
             "ones it does (with `backend: auto`, it is left out and logged).", "",
             "| key | default | values | backends | what it does |", "|---|---|---|---|---|"]
    for key, s in specs.items():
        if key == "backend":
            lines.append(f"| `evaluator.backend` | `{s.default}` | {_md(s.expected)} | | "
                         "the backend that scores every graph: `auto` takes the one whose "
                         "estimate of an evaluation is smallest here (`golf eval --explain` "
                         "prints the estimates) |")
            continue
        what = "; ".join(f"{b}: {_md(t)}" if len(said[key]) > 1 else _md(t)
                         for b, t in said[key])
        lines.append(f"| `evaluator.{key}` | the backend's | {_md(s.expected)} | "
                     f"{', '.join(takes[key])} | {what} |")
    return lines + [""]


def benchmarks_page() -> str:
    """A section a question (:data:`RESULT_GROUPS`), its results page included.

    Raises
    ------
    ValueError
        Where a results page is in no section, or a section names no page.
    """
    pages = result_pages()
    named = [page for _, page in RESULT_GROUPS]
    if sorted(named) != pages:
        raise ValueError(f"golfdocs.RESULT_GROUPS: results pages in no section: "
                         f"{sorted(set(pages) - set(named))}; sections without a page: "
                         f"{sorted(set(named) - set(pages))}")
    lines = ["# Benchmarks", "",
             "The records of golf's benchmarks (`scripts/bench_*.py`), a page a question. Each "
             "says what was measured, the command, the machine and the date; each is rendered "
             "from its JSON record beside it in `results/`, which holds every run's details and "
             "the runs that chose a default (`experiments`), one line each on the page.", ""]
    for title, page in RESULT_GROUPS:
        lines += [f"## {title}", "", f"```{{include}} ../../results/{page}",
                  ":heading-offset: 2", "```", ""]
    return "\n".join(lines) + "\n"


def _write(name: str, text: str) -> None:
    """Write ``generated/name`` only when it changes (Sphinx rebuilds what changed)."""
    os.makedirs(OUT, exist_ok=True)
    path = os.path.join(OUT, name)
    if os.path.exists(path):
        with open(path) as f:
            if f.read() == text:
                return
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def generate(app=None) -> None:
    _write("config.md", config_page())
    _write("benchmarks.md", benchmarks_page())


def setup(app):
    app.connect("builder-inited", generate)
    return {"version": "1", "parallel_read_safe": True}
