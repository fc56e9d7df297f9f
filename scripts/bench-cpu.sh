#!/usr/bin/env bash
# peakbench vs likwid-bench peakflops, side by side, alternating, in one run.
#
#   scripts/bench-cpu.sh [ROUNDS]      (default 3 rounds; needs likwid-bench, python3)
#
# Each round runs, for 1 and 2 threads: likwid-bench peakflops_avx512_fma (fp64) and
# peakflops_sp_avx512_fma (fp32) on an L1-resident 32 kB working set, then peakbench's
# fma_f64_avx512 / fma_f32_avx512; on a CPU without AVX-512 the AVX2 pair
# (peakflops_avx_fma / peakflops_sp_avx_fma against fma_f64_avx2 / fma_f32_avx2). Prints medians, the ratio peakbench / likwid, and
# peakbench's efficiency against its theoretical peak at the measured clock.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
command -v likwid-bench >/dev/null || { echo "likwid-bench not installed (apt-get install likwid)" >&2; exit 1; }
cargo build --release -q
PB=target/release/peakbench
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
NCORES=$(nproc)
if grep -qw avx512f /proc/cpuinfo; then W=avx512; L=avx512_fma; else W=avx2; L=avx_fma; fi
echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs): comparing the $W FMA kernels"

for round in $(seq "$ROUNDS"); do
  for t in 1 "$NCORES"; do
    for k in peakflops_$L peakflops_sp_$L; do
      v=$(likwid-bench -t "$k" -W "N:32kB:$t" 2>/dev/null | awk '/MFlops\/s/ {print $2 * 1e6}')
      echo "likwid $k $t $v" >> "$OUT/raw"
    done
    "$PB" cpu --precision fp64,fp32 --isa "$W" --threads "$t" --repeat 3 --min-time 1s \
      --format json --quiet --output "$OUT/res" > "$OUT/pb.json"
    python3 - "$OUT/pb.json" "$t" >> "$OUT/raw" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for x in r["results"]:
    if x["status"] == "ok":
        print("peakbench", x["workload"], sys.argv[2], x["summary"]["mean"], x.get("efficiency", 0), x["summary"]["cv"], x.get("clock_hz", 0))
PY
  done
done

python3 - "$OUT/raw" "$W" "$L" <<'PY'
import sys, statistics as st
W, L = sys.argv[2], sys.argv[3]
rows = [l.split() for l in open(sys.argv[1])]
def med(tool, kernel, t, col=3):
    v = [float(r[col]) for r in rows if r[0] == tool and r[1] == kernel and r[2] == t]
    return st.median(v) if v else float("nan")
print(f"{'case':<24}{'threads':>8}{'likwid GFLOP/s':>16}{'peakbench GFLOP/s':>19}{'ratio':>8}{'efficiency':>12}{'CV':>7}{'clock GHz':>11}")
for ours, theirs, name in [(f"fma_f64_{W}", f"peakflops_{L}", f"fp64 {W} FMA"),
                           (f"fma_f32_{W}", f"peakflops_sp_{L}", f"fp32 {W} FMA")]:
    for t in sorted({r[2] for r in rows}, key=int):
        l, p = med("likwid", theirs, t), med("peakbench", ours, t)
        e, cv, clk = med("peakbench", ours, t, 4), med("peakbench", ours, t, 5), med("peakbench", ours, t, 6)
        print(f"{name:<24}{t:>8}{l/1e9:>16.1f}{p/1e9:>19.1f}{p/l:>8.3f}{e*100:>11.1f}%{cv*100:>6.1f}%{clk/1e9:>11.3f}")
PY
