#!/usr/bin/env bash
# The F16C fp16 loop (issue #49): llvm-mca's cycles per iteration of the kernel's exact
# inner loop on every core LLVM models, then peakbench's fp16 row against its peak.
#
#   scripts/bench-f16c.sh [ROUNDS] [BINARY]   (default 5 and target/release/peakbench)
#
# The loop (bench::cpu::x86::fma_f16_f16c, hw::asm::f16c_loop_body): step s of 12 is
# vcvtph2ps ymm s; vfmadd132ps ymm (s+8)%12; vcvtps2ph xmm (s+4)%12 (software-pipelined),
# then dec/jnz: 12 steps per iteration. The CPU-time check also times the same
# instructions with each accumulator's three together, and as three blocks of 12 (the
# kernel's order before 2026-11-29): both run slower on Intel cores. The table's rate
# (hw::uarch_f16c) is 0.5 step per cycle, i.e. 24 cycles per iteration. Each round runs
# `peakbench cpu --precision fp16 --threads 1,2` and prints each row's efficiency, and
# whether the run saw its cores shared (a disturbed row says nothing about the peak).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
BIN=${2:-target/release/peakbench}
MCA=${LLVM_MCA:-$(command -v llvm-mca-19 || echo /usr/lib/llvm-19/bin/llvm-mca)}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
{
  echo ".intel_syntax noprefix"
  echo ".Lloop:"
  for r in $(seq 0 11); do
    echo "vcvtph2ps ymm$r, xmm$r"
    echo "vfmadd132ps ymm$(( (r + 8) % 12 )), ymm15, ymm14"
    echo "vcvtps2ph xmm$(( (r + 4) % 12 )), ymm$(( (r + 4) % 12 )), 0"
  done
  echo "dec rdi"
  echo "jnz .Lloop"
} > "$OUT/loop.s"
if [ -x "$MCA" ]; then
  echo "| -mcpu | cycles per iteration (12 steps) | steps per cycle |"
  echo "| --- | ---: | ---: |"
  for c in haswell broadwell skylake skylake-avx512 cascadelake icelake-client icelake-server \
    tigerlake rocketlake alderlake raptorlake meteorlake sapphirerapids emeraldrapids \
    graniterapids arrowlake lunarlake znver1 znver2 znver3 znver4 znver5; do
    cyc=$("$MCA" -mcpu="$c" -iterations=1000 "$OUT/loop.s" 2>/dev/null |
      awk '/Total Cycles/ {printf "%.2f", $3 / 1000}')
    echo "| $c | $cyc | $(awk -v c="$cyc" 'BEGIN {printf "%.3f", 12 / c}') |"
  done
  echo
fi
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs), $(nproc) CPUs"
# The loop in cycles per iteration by the thread's own CPU time (clock from a dependent
# add chain timed the same way), next to 12 lone FMAs (6 cycles at 2 per cycle) and the
# conversions alone: time the thread lost to other tasks does not count, so this reads
# the loop on a shared machine too (cache and switch costs remain: compare with the FMAs).
if command -v cc >/dev/null 2>&1; then
  cat > "$OUT/m.c" <<'C'
#include <stdio.h>
#include <stdint.h>
#include <time.h>
static double cpu(void) { struct timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
#define R12(x) x(0) x(1) x(2) x(3) x(4) x(5) x(6) x(7) x(8) x(9) x(10) x(11)
#define IN(r) "vcvtph2ps %%xmm" #r ", %%ymm" #r "\n"
#define FMA(r) "vfmadd132ps %%ymm14, %%ymm15, %%ymm" #r "\n"
#define OUT(r) "vcvtps2ph $0, %%ymm" #r ", %%xmm" #r "\n"
#define CL "xmm0","xmm1","xmm2","xmm3","xmm4","xmm5","xmm6","xmm7","xmm8","xmm9","xmm10","xmm11","xmm14","xmm15"
#define ZERO "vxorps %%ymm14,%%ymm14,%%ymm14\n vxorps %%ymm15,%%ymm15,%%ymm15\n" R12(IN)
#define STEP(r) IN(r) FMA(r) OUT(r)
#define SK(a, b, c) IN(a) FMA(b) OUT(c)
#define SKEWED SK(0,8,4) SK(1,9,5) SK(2,10,6) SK(3,11,7) SK(4,0,8) SK(5,1,9) SK(6,2,10) SK(7,3,11) SK(8,4,0) SK(9,5,1) SK(10,6,2) SK(11,7,3)
static void full(uint64_t n) { __asm__ volatile(ZERO ".p2align 5\n1:\n" SKEWED "dec %0\n jnz 1b\n vzeroupper" : "+r"(n) :: CL); }
static void together(uint64_t n) { __asm__ volatile(ZERO ".p2align 5\n1:\n" R12(STEP) "dec %0\n jnz 1b\n vzeroupper" : "+r"(n) :: CL); }
static void blocked(uint64_t n) { __asm__ volatile(ZERO ".p2align 5\n1:\n" R12(IN) R12(FMA) R12(OUT) "dec %0\n jnz 1b\n vzeroupper" : "+r"(n) :: CL); }
static void conv(uint64_t n) { __asm__ volatile(ZERO "1:\n" R12(IN) R12(OUT) "dec %0\n jnz 1b\n vzeroupper" : "+r"(n) :: CL); }
static void fma(uint64_t n) { __asm__ volatile(ZERO "1:\n" R12(FMA) "dec %0\n jnz 1b\n vzeroupper" : "+r"(n) :: CL); }
static void chain(uint64_t n) { uint64_t a = 1, b = 3; __asm__ volatile("1:\n .rept 192\n add %2, %1\n .endr\n dec %0\n jnz 1b" : "+r"(n), "+r"(a) : "r"(b)); }
static double cyc(void (*f)(uint64_t), uint64_t n, double hz) { double c = cpu(); f(n); return (cpu() - c) * hz / n; }
int main(void) {
  for (int k = 0; k < 4; k++) {
    uint64_t n = 5000000;
    double c = cpu(); chain(n / 5); double hz = (n / 5) * 192.0 / (cpu() - c);
    printf("%.2f GHz; cycles per iteration: F16C loop %.1f (table: 24), each step together %.1f, as three blocks %.1f, conversions alone %.1f (24), 12 FMAs %.1f (6)\n",
           hz / 1e9, cyc(full, n, hz), cyc(together, n, hz), cyc(blocked, n, hz), cyc(conv, n, hz), cyc(fma, n, hz));
  }
  return 0;
}
C
  if cc -O2 -o "$OUT/m" "$OUT/m.c" 2>/dev/null; then
    taskset -c "$(( $(nproc) - 1 ))" "$OUT/m"
  fi
fi
for i in $(seq 1 "$ROUNDS"); do
  "$BIN" cpu --precision fp16,fp32 --isa f16c,avx2 --threads 1,2 --format json --quiet --no-history \
    --output "$OUT/res" > "$OUT/r$i.json"
  python3 - "$OUT/r$i.json" "$i" "$(cut -d' ' -f1 /proc/loadavg)" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
eff = {}
for x in r["results"]:
    if x["status"] != "ok":
        continue
    e = x.get("efficiency")
    t = x["params"]["threads"]
    shared = any("shared machine" in n["text"] for n in x.get("notes", []))
    if e is None:
        print(f"{x['workload']}: no peak: {x['peak']['source']}")
        continue
    eff[(x["workload"], t)] = e
    print(f"round {sys.argv[2]} (load {sys.argv[3]}): {x['workload']} threads={t}: "
          f"{x['summary']['mean'] / 1e9:.2f} GFLOP/s, clock {(x.get('clock_hz') or 0) / 1e9:.2f} GHz, "
          f"efficiency {e * 100:.1f} %{' (disturbed: cores shared)' if shared else ''}")
for t in (1, 2):
    a, b = eff.get(("fma_f16_f16c", t)), eff.get(("fma_f32_avx2", t))
    if a and b:
        print(f"round {sys.argv[2]}: threads={t}: F16C efficiency / fp32 FMA efficiency = {a / b * 100:.1f} %")
PY
done
