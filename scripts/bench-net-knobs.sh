#!/usr/bin/env bash
# Issue #48, net side: peakbench net's knobs beside the iperf3 and ping flags they
# match, on loopback, in one run, with the ratio peakbench/reference of each pair.
#   throughput (TCP, one stream): --window 64KiB / -w 64K, --congestion reno / -C reno,
#     --mss 1000 / -M 1000 (128 KiB writes, 1 s omitted by both, 3 s measured), and the
#     course's fixed transfer of 64 KiB x 65536 (4 GiB): --bytes 4GiB / -n 4G and
#     --blocks 65536 / -k 65536, both with 64 KiB writes (-l 64K), timed from the first
#     byte to the last by both (no omitted part: iperf3 ends by bytes or blocks);
#   latency: tcp_latency's mean round trip beside ping's mean ICMP round trip, 64 B and
#     64000 B (ping -c 15 -i 0.2 -s SIZE 127.0.0.1).
#
#   scripts/bench-net-knobs.sh [ROUNDS]      default 2 rounds
#
# Each round runs every pair once, peakbench then the tool, so machine noise hits both
# alike; the table prints every round's pair and its ratio. It prints the date, the CPU
# (/proc/cpuinfo model name, family, model, stepping) and the load average before and
# after: on a shared machine, read the ratios, not the digits.
# Needs iperf3, ping (iputils-ping), python3.
set -euo pipefail
ROUNDS=${1:-2}
cd "$(dirname "$0")/.."
BIN=target/release/peakbench
[ -x "$BIN" ] || cargo build --release --quiet
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
PORT=5397

pb_net() { # net flags... -> Gbit/s at the receiver
    "$BIN" net --quiet --proto tcp --test throughput --format json --output "$OUT" "$@" 2>/dev/null |
        python3 -c 'import json,sys; r=json.load(sys.stdin)["results"][0]; print("%.2f" % (r["summary"]["mean"]*8/1e9) if r["status"]=="ok" else r["status"])'
}
iperf_net() { # iperf3 flags... -> Gbit/s at the receiver
    iperf3 -s -1 -p $PORT >/dev/null 2>&1 &
    local pid=$!
    sleep 0.3
    iperf3 -c 127.0.0.1 -p $PORT -J "$@" 2>/dev/null |
        python3 -c 'import json,sys; print("%.2f" % (json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"]/1e9))'
    wait $pid 2>/dev/null || true
}
pb_lat() { # message size -> mean round trip in µs
    "$BIN" net --quiet --proto tcp --test latency --msg "$1" --time 3s --repeat 3 \
        --format json --output "$OUT" 2>/dev/null |
        python3 -c 'import json,sys; r=json.load(sys.stdin)["results"][0]; print("%.1f" % (r["summary"]["mean"]*1e6))'
}
ping_lat() { # payload size -> ping's mean round trip in µs
    ping -n -q -c 15 -i 0.2 -s "$1" 127.0.0.1 |
        python3 -c 'import sys; l=[x for x in sys.stdin if "min/avg/max" in x][0]; v=float(l.split("=")[1].split("/")[1]); print("%.1f" % (v*1e3))'
}
ratio() { python3 -c 'import sys
try: print("%.2f" % (float(sys.argv[1])/float(sys.argv[2])))
except (ValueError, ZeroDivisionError): print("-")' "$1" "$2"; }
pair() { # label round unit peakbench reference
    echo "| $1 | $2 | $4 $3 | $5 $3 | $(ratio "$4" "$5") |"
}

TIMED=(--time 3s --repeat 3 --omit 1s)
ITIMED=(-t 4 -O 1 -l 131072)
cpu() { grep -m1 "^$1" /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'; }
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); CPU: $(cpu 'model name'), family $(cpu 'cpu family') model $(cpu 'model') stepping $(cpu 'stepping'), $(nproc) CPUs"
echo "peakbench $("$BIN" --version | awk '{print $2}'), $(iperf3 --version | head -1 | awk '{print $1, $2}'), $(ping -V | head -1)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| case | round | peakbench | reference | ratio |"
echo "| --- | --- | --- | --- | --- |"
for r in $(seq "$ROUNDS"); do
    pair "net --window 64KiB / iperf3 -w 64K" "$r" Gbit/s "$(pb_net "${TIMED[@]}" --window 64KiB)" "$(iperf_net "${ITIMED[@]}" -w 64K)"
    pair "net --congestion reno / iperf3 -C reno" "$r" Gbit/s "$(pb_net "${TIMED[@]}" --congestion reno)" "$(iperf_net "${ITIMED[@]}" -C reno)"
    pair "net --mss 1000 / iperf3 -M 1000" "$r" Gbit/s "$(pb_net "${TIMED[@]}" --mss 1000)" "$(iperf_net "${ITIMED[@]}" -M 1000)"
    pair "net --bytes 4GiB --msg 64KiB / iperf3 -n 4G -l 64K" "$r" Gbit/s "$(pb_net --bytes 4GiB --msg 64KiB)" "$(iperf_net -n 4G -l 64K)"
    pair "net --blocks 65536 --msg 64KiB / iperf3 -k 65536 -l 64K" "$r" Gbit/s "$(pb_net --blocks 65536 --msg 64KiB)" "$(iperf_net -k 65536 -l 64K)"
    pair "net tcp_latency 64B (mean RTT) / ping -s 64 (avg)" "$r" µs "$(pb_lat 64B)" "$(ping_lat 64)"
    pair "net tcp_latency 64000B (mean RTT) / ping -s 64000 (avg)" "$r" µs "$(pb_lat 64000B)" "$(ping_lat 64000)"
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
