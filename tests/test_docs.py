"""Every code block of README.md, CONTRIBUTING.md and docs/*.md runs or is checked as written:
Python blocks run (each file's blocks in turn, in a fresh folder), YAML blocks are valid
configs, the file formats' examples read, and every shell command is one that works here:
``golf`` commands parse with golf's own parser, ``pip install -e ".[X]"`` names extras that
pyproject.toml defines, paths name files that exist, and the test command is README's, which
``.ci/run`` runs. Also: the config reference has an entry for every key of the schema."""

import re
import shlex
from pathlib import Path

import pytest
import yaml

from golf.cli import build_parser
from golf.config import DOCS, SCHEMA, validate

from conftest import ROOT

tomllib = pytest.importorskip("tomllib", reason="reading pyproject.toml needs Python 3.11+")

ROOT_PATH = Path(ROOT)
PAGES = ["README.md", "CONTRIBUTING.md", *sorted(
    p.relative_to(ROOT_PATH).as_posix() for p in (ROOT_PATH / "docs").glob("*.md"))]
FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```", re.S | re.M)
TEST_COMMAND = 'python -m pytest -q -n 2 -m "not slow"'


def blocks(page: str, kinds=None) -> list:
    """The fenced blocks of ``page`` as ``(language, text)``."""
    text = (ROOT_PATH / page).read_text()
    out = [(m.group(1).strip(), m.group(2)) for m in FENCE.finditer(text)]
    return [b for b in out if kinds is None or b[0] in kinds]


def commands(text: str) -> list:
    """The commands of a shell block: comments dropped, ``&&`` chains split."""
    out = []
    for line in text.splitlines():
        line = line.split(" #")[0].strip()
        if line and not line.startswith("#"):
            out += [part.strip() for part in line.split("&&")]
    return out


def extras() -> set:
    with open(ROOT_PATH / "pyproject.toml", "rb") as f:
        return set(tomllib.load(f)["project"]["optional-dependencies"])


def check_command(command: str) -> None:
    argv = shlex.split(command)
    if argv[0] in ("mpiexec", "mpirun", "srun"):  # the launcher's options, then the command
        argv = argv[argv.index("golf"):]
    head = argv[0]
    if head == "golf":
        try:
            build_parser().parse_args(argv[1:])
        except SystemExit as exc:  # argparse's way of refusing
            pytest.fail(f"{command!r}: golf's parser refuses it (exit {exc.code})")
        for arg in argv[1:]:
            if arg.startswith(("configs/", "scripts/")):
                assert (ROOT_PATH / arg).exists(), f"{command!r}: no file {arg}"
    elif argv[:3] == ["python3", "-m", "venv"] or argv[:2] == [".", ".venv/bin/activate"]:
        pass
    elif argv[:3] == ["pip", "install", "-e"]:
        wanted = set(re.fullmatch(r"\.\[(.*)\]", argv[3]).group(1).split(","))
        assert wanted <= extras(), f"{command!r}: pyproject.toml has no extra {wanted - extras()}"
    elif argv[:3] == ["python", "-m", "pytest"]:
        assert command == TEST_COMMAND or "-m" in argv[3:], command
    elif head == "sphinx-build":
        assert "-W" in argv and "docs" in argv, command
    elif head == "bash":
        assert (ROOT_PATH / argv[1]).exists(), f"{command!r}: no script {argv[1]}"
    else:
        pytest.fail(f"{command!r}: a command the docs test does not know; teach it")


@pytest.mark.parametrize("page", PAGES)
def test_shell_commands_work_here(page):
    for lang, text in blocks(page, {"", "bash", "console", "sh"}):
        for command in commands(text):
            check_command(command)


@pytest.mark.parametrize("page", [p for p in PAGES if blocks(p, {"python"})])
def test_python_blocks_run(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    scope: dict = {}
    for _, text in blocks(page, {"python"}):
        exec(compile(text, page, "exec"), scope)


@pytest.mark.parametrize("page", [p for p in PAGES if blocks(p, {"yaml"})])
def test_yaml_blocks_are_valid_configs(page):
    for _, text in blocks(page, {"yaml"}):
        validate(yaml.safe_load(text), lambda key: f"{page}: {key}")


def test_edge_list_blocks_read(tmp_path):
    """docs/formats.md's examples of the file formats (other pages' text blocks are output)."""
    from golf.grid import read_grid_edges
    from golf.io import read_edges

    examples = blocks("docs/formats.md", {"text"})
    assert len(examples) == 2
    for i, (_, text) in enumerate(examples):
        path = tmp_path / f"block{i}.edges"
        path.write_text(text)
        found = read_grid_edges(path).coords if "," in text else read_edges(path).edges
        assert len(found) == len(text.split("\n")) - 1


def test_readme_test_command_is_what_ci_runs():
    readme = [c for _, t in blocks("README.md", {""}) for c in commands(t)]
    assert TEST_COMMAND in readme
    assert f"&& {TEST_COMMAND}\n" in (ROOT_PATH / ".ci" / "run").read_text()


def test_the_docs_test_refuses_what_does_not_work():
    for bad in ["golf chase 1024 8 --minutes ten", "golf run", "golf frobnicate", 'pip install -e ".[nope]"',
                "bash scripts/no_such.sh", "rm -rf /"]:
        with pytest.raises(BaseException):
            check_command(bad)


def test_every_config_key_is_documented():
    keys = {f"{section}.{key}" if isinstance(spec, dict) else section
            for section, spec in SCHEMA.items() if section != "evaluator"
            for key in (spec if isinstance(spec, dict) else [None])}
    assert keys == set(DOCS)
    assert all(len(DOCS[k]) > 20 for k in keys)


def test_docs_extra_installs_what_the_site_needs():
    conf = (ROOT_PATH / "docs" / "conf.py").read_text()
    with open(ROOT_PATH / "pyproject.toml", "rb") as f:
        docs = " ".join(tomllib.load(f)["project"]["optional-dependencies"]["docs"]).lower()
    for package in ("sphinx", "myst-parser", "numpydoc", "furo"):
        assert package in docs
    assert "myst_parser" in conf and "numpydoc" in conf and '"furo"' in conf
