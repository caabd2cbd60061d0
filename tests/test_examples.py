"""The scripts in examples/ run as a user runs them, and do what they say."""

import subprocess
import sys

import pytest

from golf.io import read_edges

from conftest import ROOT
from naive import apsp_score


def run_example(name, *args, cwd=ROOT, timeout=300):
    proc = subprocess.run([sys.executable, f"{ROOT}/examples/{name}", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd, timeout=timeout)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.slow
def test_score_topology():
    out = run_example("score_topology.py")
    # columns from the right: n, d, diameter, its bound, ASPL, its bound, gap, random D / ASPL
    rows = {line.split()[0]: line.split()[-10:] for line in out.splitlines()[1:]}
    # the 8x8x8 torus: diameter 3 * 4 = 12, every vertex at mean distance 3 * 2 * 512/511
    n, d, diameter, bound, aspl = rows["3-D"][:5]
    assert (n, d, diameter, bound) == ("512", "6", "12", "4")
    assert float(aspl) == pytest.approx(3 * 2 * 512 / 511, abs=1e-4)
    n, d, diameter, bound, aspl = rows["hypercube"][:5]  # Q9: diameter 9, ASPL 4.5 * 512/511
    assert (n, d, diameter, bound) == ("512", "9", "9", "3")
    assert float(aspl) == pytest.approx(4.5 * 512 / 511, abs=1e-4)


@pytest.mark.slow
def test_search_30s(tmp_path):
    out = run_example("search_30s.py", tmp_path / "out", "--seconds", 6, cwd=tmp_path)
    assert "best: diameter" in out
    (edges,) = (tmp_path / "out").glob("n256d8k*.edges")
    e = read_edges(edges).edges
    diameter, total, _ = apsp_score(256, e)
    assert edges.name.startswith(f"n256d8k{diameter}l{int(100 * total / (256 * 255 / 2))}")
    assert (tmp_path / "out" / "convergence.png").read_bytes()[:4] == b"\x89PNG"
