"""A 30-second search from Python: find a (256, 8) graph, save it and plot its convergence.

    python examples/search_30s.py [OUT_DIR] [--seconds S]

Writes ``OUT_DIR/n256d8k{D}l{floor(100*ASPL)}.edges`` (the competition's file name; submit it
as is) and ``OUT_DIR/convergence.png`` (needs matplotlib: ``pip install 'golf[plot]'``).
"""

import argparse
import math
from pathlib import Path

import golf


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out", nargs="?", default="search_30s")
    p.add_argument("--seconds", type=float, default=30.0)
    args = p.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    n, d = 256, 8
    result = golf.search(n, d, g=4, seconds=args.seconds, seed=1, progress=True)
    score, bound = result.score, golf.bounds(n, d)
    name = f"n{n}d{d}k{score.diameter}l{math.floor(100 * score.aspl)}.edges"
    golf.write_edges(out / name, result.graph)
    plot = result.plot(out / "convergence.png")
    print(f"best: diameter {score.diameter} (bound {bound.diameter}), ASPL {score.aspl:.6f} "
          f"(bound {float(bound.aspl):.6f}); {result.summary['evaluations']:,} evaluations")
    print(f"saved {out / name}; convergence plot: {plot}")


if __name__ == "__main__":
    main()
