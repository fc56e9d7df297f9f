#!/usr/bin/env bash
# Every BLAS on the machine (`peakbench linalg --blas auto`: faer and each library found)
# beside the FMA peak, hpcc (HPL, StarDGEMM; Debian's hpcc links the alternatives'
# libblas.so.3) and each library called directly outside peakbench
# (scripts/blas-direct.py), in alternating rounds: the check of issue #23.
#
#   scripts/bench-blas.sh [THREADS] [GEMM_N] [LU_N] [ROUNDS]   (default 2, 2048, 4096, 3)
#
# Each round runs four jobs, one after the other: GEMM shared by the threads (strong; no
# hpcc figure: hpcc has no threaded DGEMM), GEMM under --weak beside hpcc's StarDGEMM ×
# ranks, LU beside HPL at the same N, then every library's own DGEMM/DGETRF+DGETRS called
# directly. RUN, when set, prefixes every timed command (e.g. a wrapper that pauses other
# work on a shared machine); NO_BUILD=1 uses the binary as built; OUT=DIR keeps the JSON.
# Prints one Markdown row per round, job and library, then the medians and the goals: the
# best library's strong GEMM ≥ 90 % of the FMA peak, each library's weak GEMM and LU
# ≥ 1.0× hpcc where hpcc links the same library.
# Needs: hpcc, openmpi-bin, the libraries (apt-get install), python3.
set -euo pipefail
cd "$(dirname "$0")/.."
THREADS=${1:-2}
GEMM_N=${2:-2048}
LU_N=${3:-4096}
ROUNDS=${4:-3}
RUN=${RUN:-}
[ -n "${NO_BUILD:-}" ] || cargo build --release -q
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
PB=target/release/peakbench
COMMON=(--blas auto --threads "$THREADS" --repeat 3 --min-time 500ms --format json --quiet --output "$OUT/res")
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs), $(nproc) CPUs; load average $(cut -d' ' -f1-3 /proc/loadavg)"
hpcc_blas=$(ldd "$(command -v hpcc)" 2>/dev/null | awk '/blas|lapack/ {print $1"="$3}' |
  while IFS== read -r so f; do printf '%s -> %s; ' "$so" "$(readlink -f "$f")"; done || true)
echo "hpcc $(dpkg-query -W -f='${Version}' hpcc 2>/dev/null || echo '?') linked to: ${hpcc_blas:-?}"
LIBS=$($PB linalg --blas auto --routine gemm --n 64 --threads 1 --repeat 1 --min-time 1ms --format json --quiet --output "$OUT/probe" |
  python3 -c 'import json,sys,re
for r in json.load(sys.stdin)["results"]:
    for n in r.get("notes", []):
        m = re.match(r"library: .* from (/\S+)$", n["text"])
        if m: print(m.group(1))')
echo "libraries: faer (built in) $LIBS"
for i in $(seq 1 "$ROUNDS"); do
  $RUN "$PB" linalg --routine gemm --n "$GEMM_N" "${COMMON[@]}" > "$OUT/gemm-$i.json"
  $RUN "$PB" linalg --routine gemm --n "$GEMM_N" --weak --reference "${COMMON[@]}" > "$OUT/weak-$i.json"
  $RUN "$PB" linalg --routine lu --n "$LU_N" --reference "${COMMON[@]}" > "$OUT/lu-$i.json"
  for lib in $LIBS; do
    $RUN python3 scripts/blas-direct.py "$lib" "$THREADS" "$GEMM_N" "$LU_N" 2 | sed "s/^/direct $i: /"
  done
done
python3 - "$OUT" "$ROUNDS" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
rows = {}
print("| round | job | library | n | threads | peakbench | % of FMA peak | hpcc | ratio | hpcc's BLAS |")
print("| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
for i in range(1, rounds + 1):
    for job in ("gemm", "weak", "lu"):
        for x in json.load(open(f"{out}/{job}-{i}.json"))["results"]:
            blas = x["params"].get("blas", "faer")
            if x["status"] != "ok":
                why = next(iter(x["status"].values()))
                why = why.get("reason") or why.get("error") or ""
                print(f"| {i} | {job} | {blas} | | | {next(iter(x['status']))}: {why[:70]} | | | | |")
                continue
            mean, eff = x["summary"]["mean"], x.get("efficiency")
            ref = [r for r in (x.get("reference") or []) if r["tool"] == "hpcc"]
            h = ref[0]["value"] if ref else None
            same = any("this row's library" in n["text"] and "is not" not in n["text"] for n in x.get("notes", []))
            rows.setdefault((job, blas), []).append((mean, eff, h, mean / h if h else None, same))
            p = x["params"]
            print(f"| {i} | {job} | {blas} | {p['n']} | {p['threads']} | {mean/1e9:.1f} GFLOP/s | "
                  f"{eff*100:.1f} % | {f'{h/1e9:.1f} GFLOP/s' if h else ''} | {f'{mean/h:.2f}x' if h else ''} | "
                  f"{'same library' if same else ('other' if h else '')} |")
print()
bad = []
best = None
for (job, blas), rs in sorted(rows.items()):
    med = statistics.median(r[0] for r in rs)
    effs = [r[1] for r in rs if r[1] is not None]
    e = statistics.median(effs) if effs else float("nan")
    ratios = [r[3] for r in rs if r[3] is not None]
    q = statistics.median(ratios) if ratios else None
    same = all(r[4] for r in rs)
    print(f"{job} {blas}: median {med/1e9:.1f} GFLOP/s, {e*100:.1f} % of the FMA peak"
          + (f", {q:.2f}x hpcc ({'same library' if same else 'another library'})" if q else "")
          + f" ({len(rs)} rounds)")
    if job == "gemm" and (best is None or med > best[1]):
        best = (blas, med, e)
    if q is not None and same and q < 1.0:
        bad.append(f"{job} {blas} below 1.0x hpcc with the same library")
if best:
    print(f"best strong GEMM: {best[0]}, {best[2]*100:.1f} % of the FMA peak")
    if best[2] < 0.90:
        bad.append(f"best GEMM ({best[0]}) below 90 % of the FMA peak")
print()
print("goals met" if not bad else "goals not met:\n- " + "\n- ".join(bad))
PY
