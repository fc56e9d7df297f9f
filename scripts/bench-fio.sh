#!/usr/bin/env bash
# Issue #48: peakbench disk beside fio doing the same work, in one run, side by side.
#   fsync=1: seq-write 4 KiB, O_DIRECT, sync engine, fsync after every write, against
#     fio psync fsync=1 --overwrite=1 (fio writes over a laid-out file, as peakbench
#     does); each column also gives what the device saw per flush in the steady part
#     of the run (write requests and 512 B sectors written, from /sys/block/DEV/stat
#     sampled every 0.2 s): one flush per write in both, so that is the work per write.
#     On a disk other programs use too, those counters include their requests: run it
#     on a file system of its own (BENCHMARKS.md shows one on a loop device).
#   psync / libaio: rand-read 4 KiB O_DIRECT, depth 1 (sync) and 32 (libaio).
#   mmap: seq-read, rand-read, seq-write, rand-write 4 KiB through a shared mapping,
#     buffered (fio ioengine=mmap direct=0; both advise the mapping by pattern).
# 256 MiB per file, 1 s ramp, 3 s measured; in a directory of its own under DIR
# (default: the current one), removed at the end. Each round runs every row once; the
# tool that goes first alternates between rounds (the disk drifts between minutes).
#
#   scripts/bench-fio.sh [ROUNDS] [DIR] [ROWS]   default 2 rounds, every row
#
# ROWS picks rows by a word of their name (fsync, psync, libaio, mmap), e.g.
# `scripts/bench-fio.sh 6 /mnt/x fsync` for six rounds of the fsync row only.
#
# Needs fio and python3.
set -euo pipefail
ROUNDS=${1:-2}
DIR=${2:-.}
ROWS=${3:-}
cd "$(dirname "$0")/.."
BIN=target/release/peakbench
[ -x "$BIN" ] || cargo build --release --quiet
OUT=$(mktemp -d)
WORK=$(mktemp -d "$DIR/peakbench-fio-XXXXXX")
trap 'rm -rf "$OUT" "$WORK"' EXIT

DEV=$(lsblk -no pkname "$(df --output=source "$WORK" | tail -1)" 2>/dev/null | head -1)
[ -n "$DEV" ] || DEV=$(basename "$(df --output=source "$WORK" | tail -1)")

# Runs a command; prints its figure (its last line of output) and, with COUNT=1, the
# device's write requests and sectors per flush over its last 2 s of flushing.
SAMPLER='
import os, subprocess, sys, time
dev, count = sys.argv[1], sys.argv[2] == "1"
def st():
    try:
        f = open("/sys/block/%s/stat" % dev).read().split()
        return time.time(), int(f[4]), int(f[6]), int(f[15]) if len(f) > 15 else 0
    except OSError:
        return time.time(), 0, 0, 0
p = subprocess.Popen(sys.argv[3:], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
samples = []
while p.poll() is None:
    samples.append(st())
    time.sleep(0.2)
fig = (p.stdout.read().strip().splitlines() or ["failed"])[-1]
grew = [i for i in range(1, len(samples)) if samples[i][3] > samples[i - 1][3]]
if count and len(grew) > 2:
    end = samples[grew[-1] - 1]
    beg = next(s for s in samples if s[0] >= end[0] - 2)
    fl = end[3] - beg[3]
    if fl > 0:
        fig += "; dev %.2f wr, %.1f sectors per flush" % ((end[1] - beg[1]) / fl, (end[2] - beg[2]) / fl)
print(fig)
'
run() { # COUNT command... -> figure
    local count=$1
    shift
    python3 -c "$SAMPLER" "$DEV" "$count" "$@"
}
PB_PARSE='
import json,sys
rs=json.load(sys.stdin)["results"]
m={r["metric"]:r["summary"]["mean"] for r in rs if r["status"]=="ok"}
print("%.1f MB/s %.0f IO/s" % (m.get("throughput",0)/1e6, m.get("iops",0)))'
FIO_PARSE='
import json,sys
t=sys.stdin.read(); j=json.loads(t[t.index("{"):])["jobs"][0]
bw=j["read"]["bw_bytes"]+j["write"]["bw_bytes"]; io=j["read"]["iops"]+j["write"]["iops"]
print("%.1f MB/s %.0f IO/s" % (bw/1e6, io))'
pb_disk() { # knobs... -> "MB/s IO/s"
    "$BIN" disk --quiet --dir "$WORK" --file-size 256MiB --runtime 1s --repeat 3 --ramp 1s \
        --format json --output "$OUT" "$@" 2>/dev/null | python3 -c "$PB_PARSE"
}
fio_disk() { # fio options... -> "MB/s IO/s"
    fio --name=pb --directory="$WORK" --size=256M --ramp_time=1 --runtime=3 --time_based \
        --unlink=1 --group_reporting --output-format=json "$@" 2>/dev/null | python3 -c "$FIO_PARSE"
}
export -f pb_disk fio_disk
export BIN WORK OUT PB_PARSE FIO_PARSE

ratio() { # "a MB/s b IO/s" "c MB/s d IO/s" -> b/d
    python3 -c 'import sys; a,b=(float(x.split()[2]) for x in sys.argv[1:3]); print("%.2f" % (a/b) if b else "-")' "$1" "$2"
}
row() { # round, name, count, "peakbench knobs", "fio options"
    local r=$1 name=$2 count=$3 pb fi
    [[ -z $ROWS || $name == *$ROWS* ]] || return 0
    if [ $((r % 2)) = 1 ]; then
        pb=$(run "$count" bash -c "pb_disk $4")
        fi=$(run "$count" bash -c "fio_disk $5")
    else
        fi=$(run "$count" bash -c "fio_disk $5")
        pb=$(run "$count" bash -c "pb_disk $4")
    fi
    echo "| $name | $r | $pb | $fi | $(ratio "$pb" "$fi") |"
}

echo "| case (peakbench / fio) | round | peakbench | fio | IO/s ratio |"
echo "| --- | --- | --- | --- | ---: |"
M="--engine mmap --buffered --block 4KiB --depth 1 --pattern"
F="--direct=0 --ioengine=mmap --bs=4k --iodepth=1"
for r in $(seq "$ROUNDS"); do
    row "$r" "seq-write 4KiB sync --fsync 1 / psync fsync=1 --overwrite=1" 1 \
        "--engine sync --pattern seq-write --block 4KiB --depth 1 --fsync 1" \
        "--direct=1 --rw=write --bs=4k --ioengine=psync --iodepth=1 --fsync=1 --overwrite=1"
    row "$r" "rand-read 4KiB sync / psync" 0 \
        "--engine sync --pattern rand-read --block 4KiB --depth 1" \
        "--direct=1 --rw=randread --bs=4k --ioengine=psync --iodepth=1"
    row "$r" "rand-read 4KiB libaio depth 32 / libaio iodepth=32" 0 \
        "--engine libaio --pattern rand-read --block 4KiB --depth 32" \
        "--direct=1 --rw=randread --bs=4k --ioengine=libaio --iodepth=32"
    row "$r" "seq-read 4KiB mmap / mmap" 0 "$M seq-read" "$F --rw=read"
    row "$r" "rand-read 4KiB mmap / mmap" 0 "$M rand-read" "$F --rw=randread"
    row "$r" "seq-write 4KiB mmap / mmap --overwrite=1" 0 "$M seq-write" "$F --rw=write --overwrite=1"
    row "$r" "rand-write 4KiB mmap / mmap --overwrite=1" 0 "$M rand-write" "$F --rw=randwrite --overwrite=1"
done
