#!/usr/bin/env bash
# Core-to-core latency (issue #47 item 3): `peakbench cpu --c2c` beside the
# core-to-core-latency tool (crates.io, `cargo install core-to-core-latency`; its CAS
# bench, which prints round trip / 2) on the same CPUs, in rounds.
#
#   scripts/bench-c2c.sh [ROUNDS] [CPUS] [BINARY]   (default 3, 0-1, target/release/peakbench)
#
# peakbench's figure is the round trip; the table prints it and its half beside the
# tool's one-way figure.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
CPUS=${2:-0-1}
BIN=${3:-target/release/peakbench}
TOOL=${C2C_TOOL:-$(command -v core-to-core-latency || true)}
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs), $(nproc) CPUs; load: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$ROUNDS"); do
  echo "round $r: peakbench --cpus $CPUS cpu --c2c"
  "$BIN" --quiet --format json --output "$(mktemp -d)" --cpus "$CPUS" cpu --c2c |
    python3 -c '
import json, sys
for r in json.load(sys.stdin)["results"]:
    if r["workload"] != "c2c" or r["status"] != "ok":
        continue
    p, lo, med, n = r["params"], r["summary"]["min"], r["percentiles"]["p50"], len(r["samples"])
    print("  %s -> %s (%s): round trip min %.1f ns, median %.1f ns; one-way (half) min %.1f ns, median %.1f ns; %d samples"
          % (p["from"], p["to"], p["relation"], lo * 1e9, med * 1e9, lo * 5e8, med * 5e8, n))
'
  if [ -n "$TOOL" ]; then
    echo "round $r: core-to-core-latency 1000 300 --cores ${CPUS/-/,} --bench 1 (one-way: round trip / 2, mean ± sd)"
    "$TOOL" 1000 300 --cores "${CPUS/-/,}" --bench 1 2>&1 | sed 's/^/  /'
  else
    echo "round $r: core-to-core-latency not installed (cargo install core-to-core-latency)"
  fi
done
