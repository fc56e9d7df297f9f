#!/usr/bin/env bash
# scripts/bench-profile.sh A B [OUTDIR]: two peakbench binaries (A: built with the old
# release profile, fat LTO and one codegen unit; B: the current release profile) run
# alternately, five rounds: CPU kernels at 1 thread, DRAM read/copy/triad and the
# pointer chase, a 2048 GEMM. Prints, per row, the best of the five rounds of each
# (a disturbance only lowers a figure) and B/A. Efficiency where a peak is known,
# else the rate (1/latency for the chase).
# Build A from a checkout whose Cargo.toml has `[profile.release] lto = true,
# codegen-units = 1`. Needs python3.
set -eu
A=$1 B=$2
out=${3:-$(mktemp -d)}
mkdir -p "$out"
for round in 1 2 3 4 5; do
  for v in A B; do
    bin=${!v}
    "$bin" cpu --threads 1 --isa avx512,avx2,scalar --precision fp64,fp32,int32 --repeat 3 \
      --min-time 150ms --quiet --format csv --output "$out/json" > "$out/cpu-$v-$round.csv"
    "$bin" memory --kernel read,copy,triad,chase --threads 1 --repeat 3 --min-time 150ms \
      --quiet --format csv --output "$out/json" > "$out/mem-$v-$round.csv"
    "$bin" linalg --routine gemm --n 2048 --threads 1 --repeat 3 --quiet --format csv \
      --output "$out/json" > "$out/la-$v-$round.csv"
  done
done
python3 - "$out" <<'PY'
import csv, statistics, sys
out = sys.argv[1]
def load(f):
    d = {}
    for r in csv.DictReader(open(f)):
        if r['status'] != 'ok':
            continue
        v = float(r['efficiency']) if r['efficiency'] else float(r['mean'])
        if r['unit'] in ('s', 'ns'):
            v = 1 / v
        d[(r['workload'], r['params'] if r['resource'] != 'linalg' else '')] = v
    return d
for kind in ('cpu', 'mem', 'la'):
    a = [load(f'{out}/{kind}-A-{i}.csv') for i in range(1, 6)]
    b = [load(f'{out}/{kind}-B-{i}.csv') for i in range(1, 6)]
    rows = []
    for k in a[0]:
        if all(k in x for x in a + b):
            ba, bb = max(x[k] for x in a), max(x[k] for x in b)
            rows.append((bb / ba, k[0], ba, bb))
    for r, w, ba, bb in sorted(rows):
        print(f'{kind:4} {w:22} A {ba:.4g}  B {bb:.4g}  B/A {r:.3f}')
    if rows:
        print(f'{kind:4} median B/A {statistics.median(r[0] for r in rows):.3f}')
PY
