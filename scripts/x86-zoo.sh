#!/usr/bin/env bash
# The x86 zoo (#42 item 2): the already-built release binary and library unit tests run
# under `qemu-x86_64 -cpu MODEL` (user-mode emulation: the process sees the model's CPUID,
# /proc/cpuinfo stays the host's) for CPU models older or other than the machine's. Per
# model it checks, and prints:
#   - `peakbench sysinfo`: the CPU is said to be emulated and named from CPUID (the row
#     the model's family/model number selects, not the host's);
#   - a short `peakbench cpu`: the kernels the model must run ran, the ones it must not
#     were left out (no kernel the model lacks is planned), and `--precision fp16` on a
#     model without F16C is one skipped row with its reason;
#   - the unit tests that check every kernel against its scalar reference (`bench::cpu::`):
#     they pass, and the kernels they skip are printed with the reason.
# Nothing is built: PEAKBENCH_BIN (default target/release/peakbench) and PEAKBENCH_LIBTEST
# (default: the library's unit-test binary of `cargo test --release`, asked of cargo,
# which builds nothing when it is up to date) are run as they are. QEMU 7.2's TCG has no
# AVX-512, so no model here runs an AVX-512 kernel. About 19 s of CPU time for the four
# models (82 s of wall time on a 2-vCPU guest at load 19, Intel Cascade Lake host).
# Usage: scripts/x86-zoo.sh [MODEL...]   (default: Nehalem SandyBridge Haswell EPYC-Rome)
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(uname -m)" != x86_64 ]; then
  echo "x86 zoo: skipped (this machine is $(uname -m); the zoo runs x86-64 binaries)"
  exit 0
fi
if ! command -v qemu-x86_64 >/dev/null 2>&1; then
  echo "x86 zoo: skipped (qemu-x86_64 not installed: apt-get install qemu-user)"
  exit 0
fi
pb="${PEAKBENCH_BIN:-target/release/peakbench}"
libtest="${PEAKBENCH_LIBTEST:-}"
if [ -z "$libtest" ]; then
  libtest="$(cargo test --release --lib --no-run --message-format=json 2>/dev/null |
    grep -o '"executable":"[^"]*"' | tail -n 1 | cut -d'"' -f4)"
fi
[ -x "$pb" ] || { echo "x86 zoo: no binary at $pb (cargo build --release first)" >&2; exit 1; }
[ -x "$libtest" ] || { echo "x86 zoo: no unit-test binary (cargo test --release --lib --no-run first)" >&2; exit 1; }

# What each model must show: the row CPUID selects (empty: none is required), the kernels
# it must run and the ones it must not (each lacks one of the model's missing features).
declare -A ROW RUN NOT
ROW[Nehalem]=""
RUN[Nehalem]="muladd_f64_sse2 muladd_f32_sse2 add_i32_sse2 add_i64_sse2 muladd_f64_generic"
NOT[Nehalem]="muladd_f64_avx fma_f64_avx2 add_i32_avx2 fma_f16_f16c fma_f64_avx512"
ROW[SandyBridge]="Sandy Bridge/Ivy Bridge"
RUN[SandyBridge]="muladd_f64_avx muladd_f32_avx muladd_f64_sse2"
NOT[SandyBridge]="fma_f64_avx2 fma_f32_avx2 add_i32_avx2 fma_f16_f16c fma_f64_avx512"
ROW[Haswell]="Haswell/Broadwell"
RUN[Haswell]="fma_f64_avx2 fma_f32_avx2 add_i32_avx2 mul_i32_avx2 fma_f16_f16c"
NOT[Haswell]="fma_f64_avx512 add_i32_avx512 dp_i8_avxvnni dp_i8_avx512vnni dp_bf16_avx512bf16"
ROW[EPYC-Rome]="Zen 2"
RUN[EPYC-Rome]="fma_f64_avx2 fma_f32_avx2 add_i64_avx2 fma_f16_f16c"
NOT[EPYC-Rome]="fma_f64_avx512 mul_i64_avx512 dp_i8_avxvnni dp_bf16_avx512bf16"

models=("$@")
[ "${#models[@]}" -gt 0 ] || models=(Nehalem SandyBridge Haswell EPYC-Rome)
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() {
  echo "x86 zoo: $model: $*" >&2
  fail=1
}

for model in "${models[@]}"; do
  [ -n "${RUN[$model]+x}" ] || { echo "x86 zoo: no expectations for $model" >&2; exit 2; }
  q=(qemu-x86_64 -cpu "$model")
  start=$SECONDS
  # sysinfo: emulated, and the core named from CPUID.
  "${q[@]}" "$pb" sysinfo --quiet --format json >"$tmp/sysinfo.json" 2>"$tmp/qemu.err" ||
    { cat "$tmp/qemu.err" >&2; bad "sysinfo failed"; continue; }
  grep -q '"emulated": "' "$tmp/sysinfo.json" || bad "sysinfo does not say the CPU is emulated"
  micro="$(grep -o '"microarch": "[^"]*"' "$tmp/sysinfo.json" | head -n 1 | cut -d'"' -f4)"
  name="$(grep -o '"model_name": "[^"]*"' "$tmp/sysinfo.json" | head -n 1 | cut -d'"' -f4)"
  if [ -n "${ROW[$model]}" ] && [ "$micro" != "${ROW[$model]}" ]; then
    bad "identified as '$micro', want '${ROW[$model]}'"
  fi
  "${q[@]}" "$pb" sysinfo --quiet >"$tmp/sysinfo.txt" 2>/dev/null || bad "sysinfo (text) failed"
  grep -q "emulated CPU" "$tmp/sysinfo.txt" || bad "sysinfo's text does not say 'emulated CPU'"

  # A short cpu run: every kernel the model has, one thread, one tiny sample each.
  "${q[@]}" "$pb" cpu --threads 1 --min-time 1ms --repeat 1 --quiet --no-history --format csv \
    --output "$tmp/out" >"$tmp/cpu.csv" 2>"$tmp/cpu.err" ||
    { tail -n 20 "$tmp/cpu.err" >&2; bad "peakbench cpu failed"; continue; }
  ran="$({ grep -o '^cpu,[a-z0-9_]*,' "$tmp/cpu.csv" || true; } | cut -d, -f2 | sort -u | tr '\n' ' ')"
  for k in ${RUN[$model]}; do
    case " $ran " in *" $k "*) ;; *) bad "must run $k; ran: $ran" ;; esac
  done
  for k in ${NOT[$model]}; do
    case " $ran " in *" $k "*) bad "ran $k, which the model lacks" ;; esac
  done
  # fp16 on a model without F16C: one row, skipped with what is missing.
  if case " ${NOT[$model]} " in *" fma_f16_f16c "*) true ;; *) false ;; esac; then
    "${q[@]}" "$pb" cpu --precision fp16 --threads 1 --min-time 1ms --repeat 1 --quiet --no-history \
      --format json --output "$tmp/out" >"$tmp/fp16.json" 2>/dev/null || bad "cpu --precision fp16 failed"
    grep -q 'no fp16 kernel runs on this CPU' "$tmp/fp16.json" ||
      bad "--precision fp16 was not skipped with its reason"
  fi

  # The kernels against their scalar references, under the model.
  if ! "${q[@]}" "$libtest" bench::cpu:: --test-threads 2 --nocapture >"$tmp/unit.txt" 2>&1; then
    grep -E 'panicked|FAILED|failures:' "$tmp/unit.txt" | head -n 20 >&2
    bad "unit tests bench::cpu:: failed"
  fi
  passed="$(grep -o 'test result: [a-z]*\. [0-9]* passed; [0-9]* failed' "$tmp/unit.txt" || true)"
  skipped="$({ grep -o '^skipped [a-z0-9_]*: CPU lacks [a-z0-9, -]*' "$tmp/unit.txt" || true; } |
    sed 's/^skipped //' | tr '\n' ';' | sed 's/;$//; s/;/; /g')"
  echo "x86 zoo: -cpu $model: $name -> ${micro:-no row}; emulated CPU said"
  echo "  ran ($(wc -w <<<"$ran")): $ran"
  echo "  unit tests bench::cpu:: ${passed:-no result}; kernels skipped: ${skipped:-none}"
  echo "  took $((SECONDS - start)) s"
done
if [ "$fail" != 0 ]; then
  echo "x86 zoo: FAILED" >&2
  exit 1
fi
echo "x86 zoo: ${#models[@]} models passed"
