#!/usr/bin/env bash
# Issue #48: the knobs side by side with the tools that have them, in one run.
#   net (loopback): peakbench net --window/--congestion/--mss against iperf3 -w/-C/-M,
#     TCP throughput, one stream, 128 KiB writes, 1 s omitted by both, 3 s measured;
#   latency (loopback): peakbench net tcp_latency (mean round trip) against ping's mean
#     ICMP round trip, 64 B and 64000 B (ping -c 15 -i 0.2 -s SIZE 127.0.0.1);
#   disk: peakbench disk --engine sync|libaio|mmap [--fsync 1] against fio
#     psync|libaio|mmap [fsync=1], in a directory of its own under DIR (default: the
#     current one), removed at the end; 256 MiB per file, 1 s ramp, 3 s measured. The
#     fsync=1 row runs fio twice: as the reference adapter ran it before issue #48
#     (a write job's default file: fallocated, never written) and as it runs it now
#     (--overwrite=1: over a laid-out file, as peakbench writes); each fio column also
#     gives the device's write requests and cache flushes per I/O (/sys/block/DEV/stat).
#
#   scripts/bench-knobs.sh [ROUNDS] [DIR]      default 2 rounds
#
# Each round runs both tools once, alternating; the table prints every round's pair.
# Needs iperf3, fio, ping (iputils-ping), python3.
set -euo pipefail
ROUNDS=${1:-2}
DIR=${2:-.}
cd "$(dirname "$0")/.."
BIN=target/release/peakbench
[ -x "$BIN" ] || cargo build --release --quiet
OUT=$(mktemp -d)
WORK=$(mktemp -d "$DIR/peakbench-knobs-XXXXXX")
trap 'rm -rf "$OUT" "$WORK"' EXIT
PORT=5398

pb_net() { # knobs... -> Gbit/s
    "$BIN" net --quiet --proto tcp --test throughput --time 3s --repeat 3 --omit 1s \
        --format json --output "$OUT" "$@" 2>/dev/null |
        python3 -c 'import json,sys; r=json.load(sys.stdin)["results"][0]; print("%.2f" % (r["summary"]["mean"]*8/1e9) if r["status"]=="ok" else r["status"])'
}
iperf_net() { # iperf3 knobs... -> Gbit/s
    iperf3 -s -1 -p $PORT >/dev/null 2>&1 &
    local pid=$!
    sleep 0.3
    iperf3 -c 127.0.0.1 -p $PORT -J -t 4 -O 1 -l 131072 "$@" 2>/dev/null |
        python3 -c 'import json,sys; print("%.2f" % (json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"]/1e9))'
    wait $pid 2>/dev/null || true
}
pb_lat() { # message size -> mean round trip in µs
    "$BIN" net --quiet --proto tcp --test latency --msg "$1" --time 3s --repeat 3 \
        --format json --output "$OUT" 2>/dev/null |
        python3 -c 'import json,sys; r=json.load(sys.stdin)["results"][0]; print("%.1f µs" % (r["summary"]["mean"]*1e6))'
}
ping_lat() { # payload size -> ping's mean round trip in µs
    ping -n -q -c 15 -i 0.2 -s "$1" 127.0.0.1 |
        python3 -c 'import sys; l=[x for x in sys.stdin if "min/avg/max" in x][0]; v=float(l.split("=")[1].split("/")[1]); print("%.1f µs" % (v*1e3))'
}
pb_disk() { # knobs... -> "MB/s IOPS"
    "$BIN" disk --quiet --dir "$WORK" --file-size 256MiB --runtime 1s --repeat 3 --ramp 1s \
        --format json --output "$OUT" "$@" 2>/dev/null |
        python3 -c '
import json,sys
rs=json.load(sys.stdin)["results"]
m={r["metric"]:r["summary"]["mean"] for r in rs if r["status"]=="ok"}
print("%.1f MB/s %.0f IO/s" % (m.get("throughput",0)/1e6, m.get("iops",0)))'
}
fio_disk() { # fio options... -> "MB/s IOPS"
    fio --name=knobs --directory="$WORK" --size=256M --ramp_time=1 --runtime=3 --time_based \
        --unlink=1 --group_reporting --output-format=json "$@" 2>/dev/null |
        python3 -c '
import json,sys
t=sys.stdin.read(); j=json.loads(t[t.index("{"):])["jobs"][0]
bw=j["read"]["bw_bytes"]+j["write"]["bw_bytes"]; io=j["read"]["iops"]+j["write"]["iops"]
print("%.1f MB/s %.0f IO/s" % (bw/1e6, io))'
}

DEV=$(lsblk -no pkname "$(df --output=source "$WORK" | tail -1)" 2>/dev/null | head -1)
[ -n "$DEV" ] || DEV=$(basename "$(df --output=source "$WORK" | tail -1)")
devstat() { awk '{print $5, $16}' "/sys/block/$DEV/stat" 2>/dev/null || echo "0 0"; }
per_io() { # "MB/s IO/s" and the device counters before/after -> adds writes and flushes per I/O
    local fig=$1 b=($2) a=($3) secs=4  # ramp + measured: the device counts both
    python3 -c 'import sys
f,bw,bf,aw,af,s=sys.argv[1],*map(float,sys.argv[2:])
ios=float(f.split()[2])*s
print("%s; dev %.1f wr, %.1f flush per I/O" % (f,(aw-bw)/ios,(af-bf)/ios) if ios>0 else f)' "$fig" "${b[0]}" "${b[1]}" "${a[0]}" "${a[1]}" "$secs"
}
counted() { # tool... -> its figure with the device's requests per I/O
    local before fig
    before=$(devstat)
    fig=$("$@")
    per_io "$fig" "$before" "$(devstat)"
}

echo "| case | round | peakbench | reference |"
echo "| --- | --- | --- | --- |"
for r in $(seq "$ROUNDS"); do
    echo "| net --window 64KiB / iperf3 -w 64K (Gbit/s) | $r | $(pb_net --window 64KiB) | $(iperf_net -w 64K) |"
    echo "| net --congestion reno / iperf3 -C reno (Gbit/s) | $r | $(pb_net --congestion reno) | $(iperf_net -C reno) |"
    echo "| net --mss 1000 / iperf3 -M 1000 (Gbit/s) | $r | $(pb_net --mss 1000) | $(iperf_net -M 1000) |"
    echo "| net tcp_latency 64B / ping -s 64 | $r | $(pb_lat 64B) | $(ping_lat 64) |"
    echo "| net tcp_latency 64000B / ping -s 64000 | $r | $(pb_lat 64000B) | $(ping_lat 64000) |"
    echo "| disk seq-write 4KiB sync --fsync 1 / fio psync fsync=1 (before: fresh fallocated file) | $r | $(counted pb_disk --engine sync --pattern seq-write --block 4KiB --depth 1 --fsync 1) | $(counted fio_disk --direct=1 --rw=write --bs=4k --ioengine=psync --iodepth=1 --fsync=1) |"
    echo "| disk seq-write 4KiB sync --fsync 1 / fio psync fsync=1 --overwrite=1 (now) | $r | $(counted pb_disk --engine sync --pattern seq-write --block 4KiB --depth 1 --fsync 1) | $(counted fio_disk --direct=1 --rw=write --bs=4k --ioengine=psync --iodepth=1 --fsync=1 --overwrite=1) |"
    echo "| disk rand-read 4KiB libaio depth 32 / fio libaio | $r | $(pb_disk --engine libaio --pattern rand-read --block 4KiB --depth 32) | $(fio_disk --direct=1 --rw=randread --bs=4k --ioengine=libaio --iodepth=32) |"
    echo "| disk rand-read 4KiB sync / fio psync | $r | $(pb_disk --engine sync --pattern rand-read --block 4KiB --depth 1) | $(fio_disk --direct=1 --rw=randread --bs=4k --ioengine=psync --iodepth=1) |"
    echo "| disk rand-read 4KiB mmap --buffered / fio mmap direct=0 | $r | $(pb_disk --engine mmap --buffered --pattern rand-read --block 4KiB --depth 1) | $(fio_disk --direct=0 --rw=randread --bs=4k --ioengine=mmap --iodepth=1) |"
done
