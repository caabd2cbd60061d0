import gzip
import os

import numpy as np
import pytest

from golf.errors import GolfError
from golf.io import atomic_write, read_edges, write_edges


def write(tmp_path, text, name="g.edges"):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def test_reads_blank_lines_and_whitespace(tmp_path):
    p = write(tmp_path, "0 1\n\n  1 2  \n\t2\t3\n\n")
    el = read_edges(p)
    assert el.edges.tolist() == [[0, 1], [1, 2], [2, 3]]
    assert el.lines.tolist() == [1, 3, 4]
    assert el.duplicates == []


def test_line_numbers_without_blank_lines(tmp_path):
    p = write(tmp_path, "".join(f"{i} {i + 1}\n" for i in range(100)))
    el = read_edges(p)
    assert el.lines.tolist() == list(range(1, 101))


@pytest.mark.parametrize("text,line,pattern", [
    ("0 1\n1 x\n", 2, r"expected an integer vertex id, found 'x' in '1 x'"),
    ("0 1\n1 2.5\n", 2, r"expected an integer vertex id, found '2.5'"),
    ("0 1\n\n1 2 3\n", 3, r"expected 2 columns 'u v', found 3: '1 2 3'"),
    ("7\n", 1, r"expected 2 columns 'u v', found 1: '7'"),
    ("0 1\n-1 2\n", 2, r"negative vertex id -1 in '-1 2' \(ids start at 0\)"),
    ("0 1\n4 4\n", 2, r"self-loop '4 4'"),
    ("0 1\n1,2\n", 2, r"expected 2 columns"),
])
def test_malformed_lines_are_named(tmp_path, text, line, pattern):
    p = write(tmp_path, text)
    with pytest.raises(GolfError, match=rf"^{p}:{line}: {pattern}"):
        read_edges(p)


def test_all_problems_collected_when_asked(tmp_path):
    p = write(tmp_path, "0 1\nx 1\n2 2\n1 2\n-3 1\n")
    problems = []
    el = read_edges(p, problems=problems)
    assert len(problems) == 3
    assert [q.split(":")[1] for q in problems] == ["2", "3", "5"]
    assert el.edges.tolist() == [[0, 1], [1, 2]]


def test_duplicates_reported_not_fatal(tmp_path):
    p = write(tmp_path, "0 1\n1 2\n1 0\n0 1\n2 3\n")
    el = read_edges(p)
    assert el.edges.tolist() == [[0, 1], [1, 2], [2, 3]]
    assert el.duplicates == [(3, 1, 1, 0), (4, 1, 0, 1)]


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(GolfError, match="no such file"):
        read_edges(tmp_path / "nope.edges")
    with pytest.raises(GolfError, match="is a directory"):
        read_edges(tmp_path)


def test_empty_file(tmp_path):
    el = read_edges(write(tmp_path, "\n\n"))
    assert el.edges.shape == (0, 2)


def test_write_sorted_and_round_trip(tmp_path):
    e = np.array([[5, 2], [0, 9], [2, 3], [0, 1]])
    p = tmp_path / "out.edges"
    write_edges(p, e)
    assert p.read_text() == "0 1\n0 9\n2 3\n2 5\n"
    assert read_edges(p).edges.tolist() == [[0, 1], [0, 9], [2, 3], [2, 5]]


def test_gzip_round_trip(tmp_path):
    e = np.array([[0, 1], [1, 2]])
    p = tmp_path / "out.edges.gz"
    write_edges(p, e)
    assert gzip.decompress(p.read_bytes()) == b"0 1\n1 2\n"
    assert read_edges(p).edges.tolist() == [[0, 1], [1, 2]]
    bad = tmp_path / "bad.edges.gz"
    bad.write_bytes(gzip.compress(b"0 1\n1 q\n"))
    with pytest.raises(GolfError, match=r"bad\.edges\.gz:2: expected an integer"):
        read_edges(bad)


def test_atomic_write_leaves_old_file_on_failure(tmp_path, monkeypatch):
    p = tmp_path / "keep.edges"
    p.write_text("0 1\n")

    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError, match="disk full"):
        atomic_write(p, "2 3\n")
    assert p.read_text() == "0 1\n"
    assert os.listdir(tmp_path) == ["keep.edges"]  # no temporary file left behind


def test_atomic_write_creates_folders(tmp_path):
    p = tmp_path / "a" / "b" / "x.txt"
    atomic_write(p, "hi")
    assert p.read_text() == "hi"


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_written_files_get_the_umask_modes(tmp_path, umask):
    """Atomic writes create files as any other program would (0666 less the umask), not 0600."""
    import stat

    old = os.umask(umask)
    try:
        atomic_write(tmp_path / "a.txt", "x")
        atomic_write(tmp_path / "a.txt", "y")  # replaced: still the same mode
        with open(tmp_path / "plain.txt", "w") as f:
            f.write("z")
    finally:
        os.umask(old)
    mode = stat.S_IMODE(os.stat(tmp_path / "a.txt").st_mode)
    assert mode == 0o666 & ~umask == stat.S_IMODE(os.stat(tmp_path / "plain.txt").st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "plain.txt"]
