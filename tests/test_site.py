"""The documentation site holds every page of docs/: ``sphinx-build -W -b html docs OUT``
builds without a warning, and for each ``docs/*.md`` some built page has the markdown's title
as its heading and the first sentence of its text in its body. A page whose name Sphinx takes
for a page of its own (``search.md`` became Sphinx's search page) fails here."""

import html
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

DOCS = Path(ROOT) / "docs"
PAGES = sorted(p.name for p in DOCS.glob("*.md"))
FENCE = re.compile(r"^(```|:::).*?^\1", re.S | re.M)
WORD = re.compile(r"[A-Za-z0-9]+")
SENTENCE_WORDS = 10  # the words of a page's first sentence that must be found, at most


def words(text: str) -> str:
    """The letters-and-digits words of ``text``, lower case, one space apart: markup,
    punctuation and Sphinx's typography (curly quotes, dashes) fall away."""
    return " ".join(WORD.findall(text.lower()))


def plain(markdown: str) -> str:
    """Inline markdown as the reader sees it: link and role text kept, targets dropped."""
    text = re.sub(r"\{[\w:-]+\}`([^`]*)`", r"\1", markdown)  # {py:func}`x`
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # [text](target)
    return text.replace("`", "").replace("*", "")


def title_and_sentence(page: str) -> tuple[str, str]:
    """The title (the ``# `` heading) of ``docs/page`` and the first sentence of the first
    paragraph of prose after it (not a code block, table, list, directive, image or heading), as
    words (:func:`words`)."""
    text = FENCE.sub("", (DOCS / page).read_text())
    title = re.search(r"^# (.+)$", text, re.M)
    assert title, f"docs/{page} has no '# ' title"
    body = text[title.end():]
    for para in re.split(r"\n\s*\n", body):
        para = para.strip()
        if not para or para[0] in "#|-*>:<{[!" or re.match(r"\d+\. ", para):
            continue
        first = re.split(r"(?<=[.:;!?])\s", " ".join(para.split()), maxsplit=1)[0]
        sentence = words(plain(first)).split()
        if len(sentence) >= 4:
            return words(plain(title[1])), " ".join(sentence[:SENTENCE_WORDS])
    pytest.fail(f"docs/{page}: no paragraph of prose after its title")


def test_title_and_sentence_come_from_the_markdown(tmp_path, monkeypatch):
    page = tmp_path / "x.md"
    page.write_text("# The `golf` search\n\n```text\ncode\n```\n\n- a list\n\nIt anneals "
                    "[graphs](other.md) with {py:func}`golf.search`, **fast**. More.\n")
    monkeypatch.setattr(sys.modules[__name__], "DOCS", tmp_path)
    assert title_and_sentence("x.md") == ("the golf search",
                                          "it anneals graphs with golf search fast")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The built site: ``{path: (headings, body words)}`` of every HTML page."""
    for module in ("sphinx", "myst_parser", "numpydoc", "furo"):
        pytest.importorskip(module, reason=f'the site needs {module}: pip install -e ".[docs]"')
    out = tmp_path_factory.mktemp("html")
    build = subprocess.run([sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html",
                            str(DOCS), str(out)], capture_output=True, text=True, cwd=ROOT)
    assert build.returncode == 0, f"sphinx-build -W failed:\n{build.stdout}\n{build.stderr}"
    pages = {}
    for path in out.rglob("*.html"):
        text = path.read_text()
        text = re.sub(r"<(script|style)\b.*?</\1>", " ", text, flags=re.S)
        heads = [words(html.unescape(re.sub(r"<[^>]+>", " ", h)))
                 for h in re.findall(r"<h1\b[^>]*>(.*?)</h1>", text, re.S)]
        body = words(html.unescape(re.sub(r"<[^>]+>", " ", text)))
        pages[path.relative_to(out).as_posix()] = (heads, f" {body} ")
    return pages


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES)
def test_every_page_of_docs_is_in_the_site(site, page):
    title, sentence = title_and_sentence(page)
    titled = [p for p, (heads, _) in site.items() if title in heads]
    assert titled, (f"docs/{page}: no built page has the heading {title!r} (the site's "
                    f"page of that name is another page: rename the markdown file)")
    assert any(f" {sentence} " in site[p][1] for p in titled), (
        f"docs/{page}: the page titled {title!r} ({', '.join(titled)}) lacks its text "
        f"{sentence!r}")
