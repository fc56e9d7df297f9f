#!/usr/bin/env bash
# Issue #48: peakbench beside pmbw (memory) and IOZone (disk), the course's tools, each
# run by peakbench's own reference adapter right after the row it stands beside, so
# both measure the same case on the same machine state:
#   memory: read and write, 1 thread, sequential whole arrays at 32 KiB, 1 MiB and
#     64 MiB (pmbw's array sizes); pmbw runs the scan of the row's vector width;
#   disk: seq-write and seq-read, one job, 1 MiB records, 256 MiB file, O_DIRECT,
#     sync engine, in a directory of its own under DIR (default: the current one),
#     removed at the end.
#
#   PEAKBENCH_PMBW=/path/pmbw PEAKBENCH_IOZONE=/path/iozone scripts/bench-pmbw-iozone.sh [ROUNDS] [DIR]
#
# (or pmbw and iozone on PATH). Default 2 rounds; every round's pair is printed, with
# the ratio peakbench / tool. Needs python3.
set -euo pipefail
ROUNDS=${1:-2}
DIR=${2:-.}
cd "$(dirname "$0")/.."
BIN=target/release/peakbench
[ -x "$BIN" ] || cargo build --release --quiet
OUT=$(mktemp -d)
WORK=$(mktemp -d "$DIR/peakbench-pmbw-iozone-XXXXXX")
trap 'rm -rf "$OUT" "$WORK"' EXIT

table() { # tool name -> one line per row that has the tool's figure
    python3 -c '
import json, sys
tool = sys.argv[1]
for r in json.load(sys.stdin)["results"]:
    x = [x for x in (r.get("reference") or []) if x["tool"] == tool]
    if r["status"] != "ok" or not x:
        continue
    p, pb, ref = r["params"], r["summary"]["mean"], x[0]["value"]
    what = "%s %s" % (r["workload"], p.get("size") or p.get("block"))
    print("| %s | %.2f GB/s | %s %s %.2f GB/s | %.3f | `%s` |" % (what, pb / 1e9, tool, x[0]["version"], ref / 1e9, pb / ref, x[0]["command"]))
' "$1"
}

echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) CPUs"
echo
echo "| row | peakbench | tool | ratio | tool command |"
echo "| --- | ---: | ---: | ---: | --- |"
for round in $(seq "$ROUNDS"); do
    for size in 32KiB 1MiB 64MiB; do
        "$BIN" memory --quiet --no-history --kernel read,write --size $size \
            --threads 1 --repeat 3 --reference --format json --output "$OUT" 2>/dev/null | table pmbw
    done
    "$BIN" disk --quiet --no-history --dir "$WORK" --engine sync --file-size 256MiB \
        --block 1MiB --depth 1 --jobs 1 --pattern seq-write,seq-read --runtime 3s \
        --ramp 1s --repeat 1 --reference --format json --output "$OUT" 2>/dev/null | table iozone
done
