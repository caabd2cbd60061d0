#!/usr/bin/env bash
# Local MPI smoke test: split evaluation and a short chains run on this machine.
#   bash scripts/mpi_smoke.sh [ranks]          (default 2; needs pip install -e ".[mpi]")
set -euo pipefail
cd "$(dirname "$0")/.."
NP=${1:-2}
MPIEXEC=(mpiexec -n "$NP")
[ "$(id -u)" = 0 ] && MPIEXEC+=(--allow-run-as-root)
MPIEXEC+=(--oversubscribe)
export NUMBA_NUM_THREADS=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
golf random 4096 8 --g 16 --seed 1 -o "$tmp/g.edges" --quiet
score='import json,sys; o=json.load(sys.stdin); print(o["diameter"], o["total"])'
serial=$(golf eval "$tmp/g.edges" --g 16 --json | python -c "$score")
split=$("${MPIEXEC[@]}" golf eval "$tmp/g.edges" --g 16 --json | python -c "$score")
echo "serial:   $serial"
echo "$NP ranks: $split"
[ "$serial" = "$split" ] || { echo "mpi_smoke: the split evaluation differs" >&2; exit 1; }
cat > "$tmp/c.yaml" <<YAML
name: smoke
problem: {n: 512, d: 6, g: 4}
search: {steps: 40000, seed: 1}
parallel: {mode: chains, exchange_every: 5000}
output: {dir: $tmp/out, checkpoint_every: 5}
YAML
"${MPIEXEC[@]}" golf run "$tmp/c.yaml" --quiet
golf validate "$tmp/out/smoke/best.edges" --n 512 --d 6
python -c "import json; s=json.load(open('$tmp/out/smoke/summary.json')); print('chains:', s['mpi']['ranks'], 'best', s['best']['diameter'], round(s['best']['aspl'], 6), 'found by rank', s['best']['found_by_rank'])"
