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


# -- hostile input (issue 15): errors with file and line, memory by the file's size --------
@pytest.mark.parametrize("text,pattern", [
    ("0 1\n1 999999999999\n", r"g\.edges:2: vertex id 999999999999 is too large in "
                              r"'1 999999999999': expected ids < 2147483647"),
    ("0 1\n1 99999999999999999999999\n", r"g\.edges:2: vertex id 99999999999999999999999 is "
                                         r"too large"),
    ("0 1\n1 " + "9" * 100000 + "\n", r"g\.edges:2: vertex id 9{27}\.\.\. is too large"),
    ("0 1\n1 -" + "9" * 100000 + "\n", r"g\.edges:2: negative vertex id -9{26}\.\.\."),
    ("0 1\n1 1_000\n", r"g\.edges:2: expected an integer vertex id, found '1_000'"),
    ("0 1\n\u0661 2\n", r"g\.edges:2: expected an integer vertex id, found '\u0661'"),
    ("0 1\n1 2\x00\n", r"g\.edges:2: expected an integer vertex id, found '2\\x00'"),
])
def test_hostile_ids_are_named(tmp_path, text, pattern):
    with pytest.raises(GolfError, match=pattern) as info:
        read_edges(write(tmp_path, text))
    assert "\n" not in str(info.value) and len(str(info.value)) < 300


@pytest.mark.parametrize("cp", [0xEFFFF, 0xF5182, 0x10FFFF])
def test_characters_numpy_misreads_go_to_the_exact_parse(tmp_path, cp):
    """NumPy 2.4's loadtxt reads U+EFFFF as the number 982991 and crashes on U+F5182: the fast
    path takes ASCII only, the rest is parsed line by line."""
    with pytest.raises(GolfError, match=r"g\.edges:1: expected an integer vertex id"):
        read_edges(write(tmp_path, chr(cp) + " 1\n0 1\n"))


def test_reading_memory_does_not_follow_the_ids(tmp_path):
    """An id of 2*10^9 costs nothing: the duplicate check sorts pairs (no key sized by the
    largest id) and nothing reads allocates by an id's value."""
    import tracemalloc

    p = write(tmp_path, "0 1\n1 2000000000\n2000000000 0\n1 0\n")
    tracemalloc.start()
    try:
        el = read_edges(p)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert el.edges.tolist() == [[0, 1], [1, 2000000000], [2000000000, 0]]
    assert el.duplicates == [(4, 1, 1, 0)]
    assert peak < 4 << 20


def test_many_malformed_lines_are_counted_after_a_hundred(tmp_path):
    problems = []
    read_edges(write(tmp_path, "x y\n" * 250 + "0 1\n"), problems=problems)
    assert len(problems) == 101 and problems[-1].endswith("g.edges: 150 more malformed lines")


@pytest.mark.parametrize("damage,pattern", [
    ("truncated", r"g\.edges\.gz: the gzip data ends early"),
    ("crc", r"g\.edges\.gz: corrupt gzip data: CRC check failed"),
    ("plain", r"g\.edges\.gz: not a gzip file \(Not a gzipped file \(b'0 '\)\); a name ending "
              r"in \.gz is read gzipped"),
    ("empty-member", r"g\.edges\.gz: (the gzip data ends early|corrupt gzip data)"),
])
def test_damaged_gzip_names_the_file(tmp_path, damage, pattern):
    data = "".join(f"{i} {i + 1}\n" for i in range(500)).encode()
    z = gzip.compress(data, mtime=0)
    blob = {"truncated": z[:len(z) // 2], "crc": z[:-8] + bytes([z[-8] ^ 1]) + z[-7:],
            "plain": data, "empty-member": z[:12]}[damage]
    p = tmp_path / "g.edges.gz"
    p.write_bytes(blob)
    for problems in (None, []):
        with pytest.raises(GolfError, match=pattern):
            read_edges(str(p), problems=problems)


def test_devices_are_refused(tmp_path):
    with pytest.raises(GolfError, match=r"/dev/zero: is a device, expected an edge-list file"):
        read_edges("/dev/zero")


def test_leading_zeros_beyond_pythons_digit_limit(tmp_path):
    """Python refuses int() of more than 4300 digits; an id with 5000 leading zeros is 1."""
    p = write(tmp_path, "0 " + "0" * 5000 + "1\n1 2\n")
    assert read_edges(p).edges.tolist() == [[0, 1], [1, 2]]
    p = write(tmp_path, "0 " + "0" * 5000 + "1\n1 x\n")
    problems = []
    assert read_edges(p, problems=problems).edges.tolist() == [[0, 1]]
    assert problems == [f"{p}:2: expected an integer vertex id, found 'x' in '1 x'"]


@pytest.mark.parametrize("section", [dict(n=256, d=8, g=128, group=[16, 3]),
                                     dict(n=300, d=7, g=150, group=[15, 14]),
                                     dict(n=60, d=5, g=1), dict(n=96, d=3, g=6),
                                     dict(n=64, d=4, g=32)])
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("suffix", ["", ".gz"])
def test_a_symmetric_graph_is_written_straight_from_its_base_rows(section, seed, suffix,
                                                                  tmp_path):
    """write_edges of a symmetric graph (the compiled writer over the base rows) gives the
    bytes of its sorted edge list, slots emptied at random, plain and gzipped."""
    import gzip

    from golf.io import format_edges, write_edges
    from golf.problems import problem_of
    from naive import empty_slots

    graph = problem_of(dict(section, start="random")).random_graph(seed)
    graph = empty_slots(graph, np.random.default_rng(seed), 0.2)
    graph.check()
    path = tmp_path / f"g.edges{suffix}"
    write_edges(path, graph)
    data = path.read_bytes()
    if suffix:
        data = gzip.decompress(data)
    assert data == format_edges(graph.edges())
    want = sorted((min(u, v), max(u, v)) for u in range(graph.n)
                  for v in graph.neighbors(u).tolist() if u < v)
    assert data.decode().split("\n")[:-1] == [f"{u} {v}" for u, v in want]


@pytest.mark.parametrize("seed", [0, 1])
def test_a_centre_form_is_written_from_its_edge_list(seed, tmp_path):
    """A centre form (no compiled writer) writes the same sorted edge list."""
    from golf.io import format_edges, write_edges
    from golf.problems import problem_of

    graph = problem_of(dict(n=101, d=6, g=5, centres=1, start="random")).random_graph(seed)
    assert graph.centres == 1
    path = tmp_path / "c.edges"
    write_edges(path, graph)
    want = sorted((u, v) for u in range(graph.n) for v in graph.neighbors(u).tolist() if u < v)
    assert path.read_bytes() == format_edges(np.array(want))
