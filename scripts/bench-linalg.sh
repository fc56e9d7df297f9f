#!/usr/bin/env bash
# peakbench linalg (faer) beside hpcc (HPL, DGEMM; Debian's hpcc with OpenBLAS) at the same
# order and thread count, in alternating rounds: the check of issue #13.
#
#   scripts/bench-linalg.sh [THREADS] [GEMM_N] [LU_N] [ROUNDS]   (default 2, 2048, 4096, 3)
#
# Each round runs `peakbench linalg --reference` three times: GEMM shared by the threads
# (strong; hpcc has no threaded DGEMM to match it), GEMM under --weak (every thread its own
# product at once, matched with hpcc's StarDGEMM × ranks at hpcc's own order ≈ N) and LU
# (matched with HPL at N); see src/reference/hpcc.rs. Prints one Markdown row per round and
# job, then the medians and the goals: GEMM fp64 ≥ 85 % of the FMA peak, weak GEMM ≥ 1.0×
# hpcc StarDGEMM, LU ≥ 1.0× hpcc HPL.
# Needs: hpcc, openmpi-bin, libopenblas0-pthread (apt-get install), python3.
set -euo pipefail
cd "$(dirname "$0")/.."
THREADS=${1:-2}
GEMM_N=${2:-2048}
LU_N=${3:-4096}
ROUNDS=${4:-3}
[ -n "${NO_BUILD:-}" ] || cargo build --release -q   # NO_BUILD=1: use the binary as built
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs), $(nproc) CPUs; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "BLAS: $(readlink -f /usr/lib/x86_64-linux-gnu/libblas.so.3 || echo unknown); hpcc $(dpkg-query -W -f='${Version}' hpcc 2>/dev/null || echo '?')"
for i in $(seq 1 "$ROUNDS"); do
  for job in "gemm gemm $GEMM_N" "weak gemm $GEMM_N --weak" "lu lu $LU_N"; do
    set -- $job
    target/release/peakbench linalg --routine "$2" --n "$3" --threads "$THREADS" ${4:-} \
      --reference --format json --quiet --output "$OUT/res" > "$OUT/$1-$i.json"
  done
done
python3 - "$OUT" "$ROUNDS" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
rows = {"gemm": [], "weak": [], "lu": []}
print("| round | job | n | threads | peakbench | % of FMA peak | hpcc | hpcc figure | ratio |")
print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: |")
for i in range(1, rounds + 1):
    for routine in ("gemm", "weak", "lu"):
        rep = json.load(open(f"{out}/{routine}-{i}.json"))
        for x in rep["results"]:
            if x["status"] != "ok":
                print(f"| {i} | {routine} | | | {x['status']} | | | | |")
                continue
            mean = x["summary"]["mean"]
            eff = x.get("efficiency")
            ref = [r for r in (x.get("reference") or []) if r["tool"] == "hpcc"]
            note = next((n["text"] for n in x.get("notes", []) if n["text"].startswith("reference hpcc")), "")
            h = ref[0]["value"] if ref else None
            ratio = mean / h if h else None
            rows[routine].append((mean, eff, h, ratio))
            p = x["params"]
            print(f"| {i} | {routine} | {p['n']} | {p['threads']} | {mean/1e9:.1f} GFLOP/s | "
                  f"{eff*100:.1f} % | {h/1e9 if h else float('nan'):.1f} GFLOP/s | {note.split(': ', 1)[-1][:60]} | "
                  f"{ratio if ratio else float('nan'):.2f}x |")
print()
bad = []
for routine, rs in rows.items():
    if not rs:
        bad.append(f"{routine}: no result")
        continue
    med = statistics.median(r[0] for r in rs)
    effs = [r[1] for r in rs if r[1] is not None]
    ratios = [r[3] for r in rs if r[3] is not None]
    e = statistics.median(effs) if effs else None
    q = statistics.median(ratios) if ratios else None
    print(f"{routine}: median {med/1e9:.1f} GFLOP/s, {e*100 if e else float('nan'):.1f} % of the FMA peak, "
          f"{q if q else float('nan'):.2f}x hpcc (median of {len(ratios)} rounds)")
    if routine == "gemm" and (e is None or e < 0.85):
        bad.append(f"gemm below 85 % of the FMA peak")
    if routine != "gemm" and (q is None or q < 1.0):
        bad.append(f"{routine} below 1.0x hpcc")
print()
print("goals met" if not bad else "goals not met:\n- " + "\n- ".join(bad))
PY
