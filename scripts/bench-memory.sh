#!/usr/bin/env bash
# bench-memory.sh: peakbench memory next to the reference tools, same working set and
# thread counts, in one run, printing the ratios (peakbench / best reference).
#
#   scripts/bench-memory.sh [THREADS...]      default: 1 and the core count
#
# Environment: SIZE (total working set, decimal like likwid's -w, default 256MB), KEEP,
# ROUNDS (default 3), PB_MIN_TIME (default 300ms), PB_REPEAT (default 3), PEAKBENCH.
#
# The tools run interleaved, ROUNDS times, and each tool's best round is compared
# (best-of-N, as STREAM reports): on a shared machine a neighbour's burst then hurts
# every tool alike instead of whichever happened to run during it. The table also
# shows the spread of peakbench's rounds and the ratio of median rounds; the CV is
# peakbench's within its best round.
#
# Byte conventions are aligned before dividing: every figure is STREAM-counted bytes
# (copy = 16 B per element, triad = 24 B, read = 8 B, no write-allocate) in decimal
# GB/s. likwid-bench and peakbench already count that way; mbw reports the copied array
# size once (MiB/s), so its copy figure is multiplied by 2 (read + write) and by 2^20;
# sysbench reports MiB/s of bytes read. Reference tools that are missing are skipped.
# Thread counts > 1 for mbw run one pinned mbw process per core at the same time and
# add their averages (mbw has no threads); treat that figure as approximate.
# Latency reference: the same Sattolo chase written in C (no packaged pointer-chase
# tool is installed here), compiled with gcc -O2, 2 MiB pages via madvise; it prints the
# mean of 5 runs of 10 M hops, as peakbench prints the mean of its samples (a best-of-5
# inside each round would give it more draws than peakbench gets).
set -euo pipefail

cd "$(dirname "$0")/.."
SIZE=${SIZE:-256MB}
MIN_TIME=${PB_MIN_TIME:-300ms}
REPEAT=${PB_REPEAT:-3}
ROUNDS=${ROUNDS:-3}
CORES=$(nproc)
THREADS=("$@")
[ ${#THREADS[@]} -eq 0 ] && THREADS=(1 "$CORES")
PEAKBENCH=${PEAKBENCH:-target/release/peakbench}
[ -x "$PEAKBENCH" ] || cargo build --release --quiet
SIZE_BYTES=$(python3 -c "import re; m=re.fullmatch(r'(\d+)MB','$SIZE'); print(int(m.group(1))*10**6)")
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# KEEP=FILE keeps the raw per-round figures (TSV: kernel, threads, tool, value, cv).
if [ -n "${KEEP:-}" ]; then trap 'cp "$ROWS" "$KEEP"; rm -rf "$WORK"' EXIT; fi
ROWS="$WORK/rows.tsv" # kernel threads tool value cv
: >"$ROWS"

row() { printf '%s\t%s\t%s\t%s\t%s\n' "$@" >>"$ROWS"; }

echo "# bench-memory: $(date -u +%FT%TZ) host=$(hostname) commit=$(git rev-parse --short HEAD 2>/dev/null || echo ?)" >&2
echo "# working set $SIZE total (all arrays, all threads), threads ${THREADS[*]}, $ROUNDS rounds" >&2

if command -v gcc >/dev/null; then
    cat >"$WORK/chase.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
static uint64_t s = 88172645463325252ull;
static uint64_t rnd(void) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s; }
int main(int argc, char **argv) {
    size_t bytes = strtoull(argv[1], 0, 10), n = bytes / 64, i;
    char *m = mmap(0, bytes + (2 << 20), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    char *b = (char *)(((uintptr_t)m + (2 << 20) - 1) & ~(uintptr_t)((2 << 20) - 1));
    madvise(b, bytes, MADV_HUGEPAGE);
    memset(b, 0, bytes);
    uint32_t *p = malloc(n * 4);
    for (i = 0; i < n; i++) p[i] = i;
    for (i = n - 1; i > 0; i--) { size_t j = rnd() % i; uint32_t t = p[i]; p[i] = p[j]; p[j] = t; }
    for (i = 0; i < n; i++) *(char **)(b + i * 64) = b + (size_t)p[i] * 64;
    char **q = (char **)b;
    double sum = 0;
    for (int rep = 0; rep < 5; rep++) {
        size_t hops = 10000000;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (i = 0; i < hops; i++) q = (char **)*q;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double ns = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / hops;
        sum += ns;
    }
    printf("%.6e %p\n", sum / 5 * 1e-9, (void *)q);
    return 0;
}
EOF
    gcc -O2 -o "$WORK/chase" "$WORK/chase.c" 2>/dev/null || true
fi

for ROUND in $(seq "$ROUNDS"); do
    echo "# round $ROUND of $ROUNDS" >&2
    for T in "${THREADS[@]}"; do
        # peakbench: read, copy, triad at DRAM size (NT stores by --nt auto), and the
        # latency chase at 1 thread (the reference chase is single-threaded).
        kernels=read,copy,triad
        if [ "$T" = 1 ]; then kernels=$kernels,chase; fi
        "$PEAKBENCH" memory --kernel "$kernels" --threads "$T" --size "$SIZE" \
            --repeat "$REPEAT" --min-time "$MIN_TIME" --quiet --format json \
            --output "$WORK/pb" >"$WORK/pb-$T.json" 2>/dev/null
        python3 - "$WORK/pb-$T.json" "$T" >>"$ROWS" <<'EOF'
import json, sys
rep = json.load(open(sys.argv[1]))
for r in rep["results"]:
    if r["status"] != "ok":
        continue
    s = r["summary"]
    print(f'{r["params"]["kernel"]}\t{sys.argv[2]}\tpeakbench {r["workload"]}\t{s["mean"]}\t{s["cv"]}')
EOF

        if command -v likwid-bench >/dev/null; then
            for pair in read:load_avx512 copy:copy_avx512 copy:copy_mem_avx512 \
                triad:stream_avx512 triad:stream_mem_avx512; do
                k=${pair%%:*}
                t=${pair#*:}
                v=$(likwid-bench -t "$t" -w "S0:$SIZE:$T" 2>/dev/null |
                    awk -F: '/^MByte\/s/ {gsub(/[ \t]/,"",$2); print $2*1e6}')
                if [ -n "$v" ]; then row "$k" "$T" "likwid-bench $t" "$v" ""; fi
            done
        fi

        if command -v sysbench >/dev/null; then
            # sysbench wants a power-of-two block: the next one up from each thread's
            # share, one private buffer per thread (--memory-scope=local).
            per=$(python3 -c "import math; print(2**math.ceil(math.log2($SIZE_BYTES/$T/1048576)))")
            v=$(sysbench memory --threads="$T" --memory-block-size="${per}M" --memory-scope=local \
                --memory-total-size=$((T * per * 20))M --memory-oper=read run 2>/dev/null |
                sed -n 's/.*(\([0-9.]*\) MiB\/sec).*/\1/p')
            if [ -n "$v" ]; then
                row read "$T" "sysbench memory read (${per}MiB/thread)" "$(python3 -c "print($v*1048576)")" ""
            fi
        fi

        if command -v mbw >/dev/null; then
            mib=$((SIZE_BYTES / 2 / T / 1048576)) # two arrays per process
            for c in $(seq 0 $((T - 1))); do
                taskset -c "$c" mbw -q -n 5 -t0 "$mib" >"$WORK/mbw-$T-$c.txt" 2>&1 &
            done
            wait
            v=$(cat "$WORK"/mbw-"$T"-*.txt | awk '/^AVG/ {for(i=1;i<=NF;i++) if ($i=="Copy:") s+=$(i+1)} END {if (s) print s*2*1048576}')
            # Summed over unsynchronised processes: a process that runs partly alone
            # inflates the sum, so for T > 1 the figure is shown but never ranked.
            name="mbw memcpy (x2: read+write)"
            if [ "$T" -gt 1 ]; then
                name="mbw memcpy (x2: read+write; $T processes summed, not ranked)"
            fi
            if [ -n "$v" ]; then row copy "$T" "$name" "$v" ""; fi
        fi
    done
    if [ -x "$WORK/chase" ]; then
        v=$(taskset -c 0 "$WORK/chase" "$SIZE_BYTES" | awk '{print $1}')
        row chase 1 "C Sattolo chase (gcc -O2, THP)" "$v" ""
    fi
done

python3 - "$ROWS" <<'EOF'
import statistics, sys
from collections import defaultdict
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
by = defaultdict(lambda: defaultdict(list))
for k, t, tool, v, cv in rows:
    by[(k, int(t))][tool].append((float(v), float(cv) if cv else 0.0))
print("| kernel | threads | peakbench (best round) | CV | peakbench rounds | best reference (best round) | ratio (best) | ratio (medians) | all references (best round) |")
print("| --- | ---: | ---: | ---: | --- | --- | ---: | ---: | --- |")
order = {"read": 0, "copy": 1, "triad": 2, "chase": 3}
for (k, t) in sorted(by, key=lambda x: (order.get(x[0], 9), x[1])):
    lat = k == "chase"
    fmt = (lambda x: f"{x*1e9:.1f} ns") if lat else (lambda x: f"{x/1e9:.2f} GB/s")
    pick = min if lat else max
    tools = by[(k, t)]
    pb = [(tool, vals) for tool, vals in tools.items() if tool.startswith("peakbench")]
    ranked = lambda tool: not tool.startswith("peakbench") and "not ranked" not in tool
    refs = {tool: pick(vals, key=lambda e: e[0])[0] for tool, vals in tools.items()
            if ranked(tool)}
    med = lambda vals: statistics.median(e[0] for e in vals)
    ref_meds = {tool: med(vals) for tool, vals in tools.items() if ranked(tool)}
    shown = {tool: pick(vals, key=lambda e: e[0])[0] for tool, vals in tools.items()
             if not tool.startswith("peakbench")}
    if not pb:
        continue
    tool, vals = pb[0]
    v, cv = pick(vals, key=lambda e: e[0])
    lo, hi = min(e[0] for e in vals), max(e[0] for e in vals)
    if refs:
        bt = pick(refs, key=lambda x: refs[x])
        # ratio > 1: peakbench higher bandwidth / lower latency than the best reference
        ratio = refs[bt] / v if lat else v / refs[bt]
        bests, rs = f"{fmt(refs[bt])} ({bt})", f"{ratio:.3f}"
        # Same comparison on each tool's median round: less sensitive to one lucky
        # quiet window on a shared machine.
        mt = pick(ref_meds, key=lambda x: ref_meds[x])
        mr = ref_meds[mt] / med(vals) if lat else med(vals) / ref_meds[mt]
        ms = f"{mr:.3f}"
    else:
        bests, rs, ms = "n/a", "n/a", "n/a"
    allr = "; ".join(f"{x} {fmt(y)}" for x, y in shown.items())
    name = tool.split(" ", 1)[1]
    print(f"| {k} | {t} | {fmt(v)} ({name}) | {cv*100:.1f} % | {fmt(lo)} .. {fmt(hi)} | {bests} | {rs} | {ms} | {allr} |")
EOF
