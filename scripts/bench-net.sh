#!/usr/bin/env bash
# peakbench net vs iperf3 (throughput) and sockperf (ping-pong latency) on loopback,
# same message size, streams and duration, in one run; prints the ratios.
#
#   scripts/bench-net.sh [SECONDS] [ROUNDS]      default 5 s per test, 3 rounds
#
# Throughput: receiver-side payload rate. peakbench: the mean of its samples (after a
# 0.5 s warm-up); iperf3: the receiver's sum_received over the run (TCP with -O 1: 1 s
# omitted). Latency: peakbench measures the round trip; sockperf prints RTT/2, so the
# comparison uses peakbench p50 / 2 against sockperf's 50th percentile.
# Each round runs every tool once, alternating, so machine noise hits both alike;
# the ratio is the median of the per-round ratios. Needs iperf3, sockperf, python3.
set -euo pipefail
T=${1:-5}
ROUNDS=${2:-3}
cd "$(dirname "$0")/.."
BIN=target/release/peakbench
[ -x "$BIN" ] || cargo build --release --quiet
OUT=$(mktemp -d)
PIDS=()
cleanup() {
    for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
    rm -rf "$OUT"
}
trap cleanup EXIT
IPORT=5399
SPORT=11399

pb() { # args... -> prints one JSON result
    "$BIN" net --quiet --repeat "$T" --time "${T}s" --format json --output "$OUT" "$@" 2>/dev/null |
        python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["results"][0]))'
}
pb_rate() { pb "$@" | python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["summary"]["mean"]*8/1e9)'; }
pb_loss() {
    pb "$@" | python3 -c '
import json,sys,re; r=json.load(sys.stdin)
n=[x["text"] for x in r["notes"] if "datagrams lost" in x["text"]][0]
print(r["summary"]["mean"]*8/1e9, re.search(r"\(([0-9.]+) %\)", n).group(1))'
}
pb_p50() { pb "$@" | python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["percentiles"]["p50"]/2*1e6)'; }

iperf_run() { # args... -> Gbit/s at the receiver [loss %]
    iperf3 -s -1 -p $IPORT >/dev/null 2>&1 &
    local pid=$!
    sleep 0.3
    # -O 1 (omit the first second) for TCP only: iperf3 3.12 miscounts UDP loss with
    # it (more than 100 %), and UDP has no slow start to omit.
    local omit=(-t $((T + 1)) -O 1)
    [ "$1" = -u ] && omit=(-t "$T")
    iperf3 -c 127.0.0.1 -p $IPORT -J "${omit[@]}" "$@" 2>/dev/null | python3 -c '
import json,sys; j=json.load(sys.stdin)["end"]; s=j.get("sum", {})
print(j["sum_received"]["bits_per_second"]/1e9, s.get("lost_percent", ""))'
    wait $pid 2>/dev/null || true
}

sock_p50() { # [--tcp] -> one-way p50 in µs
    sockperf server -i 127.0.0.1 -p $SPORT "$@" >/dev/null 2>&1 &
    local pid=$!
    PIDS+=("$pid")
    sleep 0.5
    sockperf ping-pong -i 127.0.0.1 -p $SPORT "$@" -t "$T" -m 64 2>&1 |
        awk '/percentile 50.000/ {print $NF}'
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}

median() { python3 -c 'import sys,statistics; print(statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }
ratio() { python3 -c "import sys; print(f'{float(sys.argv[1])/float(sys.argv[2]):.2f}')" "$1" "$2"; }

declare -A A B
echo "peakbench $("$BIN" --version | awk '{print $2}') vs $(iperf3 --version | head -1 | awk '{print $1, $2}') and $(sockperf --version 2>&1 | head -1); ${T} s per test, ${ROUNDS} rounds, loopback"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$ROUNDS"); do
    for n in 1 2; do
        A[tcp$n]+="$(pb_rate --proto tcp --test throughput --msg 128KiB --streams $n) "
        read -r g _ <<<"$(iperf_run -l 128K -P $n)"
        B[tcp$n]+="$g "
    done
    for m in 1460 65000; do
        read -r g l <<<"$(pb_loss --proto udp --test throughput --msg ${m}B)"
        A[udp$m]+="$g "; A[udploss$m]+="$l "
        read -r g l <<<"$(iperf_run -u -b 0 -l $m)"
        B[udp$m]+="$g "; B[udploss$m]+="$l "
    done
    A[lat_tcp]+="$(pb_p50 --proto tcp --test latency --msg 64B) "
    B[lat_tcp]+="$(sock_p50 --tcp) "
    A[lat_udp]+="$(pb_p50 --proto udp --test latency --msg 64B) "
    B[lat_udp]+="$(sock_p50) "
done

printf '\n| case | peakbench | reference | ratio (median of rounds) | goal |\n|---|---|---|---|---|\n'
row() { # key label unit goal higher-is-better
    local k=$1 a b rs=""
    read -ra av <<<"${A[$k]}"; read -ra bv <<<"${B[$k]}"
    for i in "${!av[@]}"; do rs+="$(ratio "${av[$i]}" "${bv[$i]}") "; done
    a=$(median "${av[@]}"); b=$(median "${bv[@]}")
    # shellcheck disable=SC2086
    printf '| %s | %.2f %s | %.2f %s | %s (rounds: %s) | %s |\n' "$2" "$a" "$3" "$b" "$3" "$(median $rs)" "${rs% }" "$4"
}
row tcp1 "TCP 1 stream, 128 KiB (vs iperf3)" Gbit/s "≥ 1.0"
row tcp2 "TCP 2 streams, 128 KiB (vs iperf3)" Gbit/s "≥ 1.0"
row udp1460 "UDP 1460 B unpaced (vs iperf3)" Gbit/s "≥ 1.0"
row udp65000 "UDP 65000 B unpaced (vs iperf3)" Gbit/s "≥ 1.0"
row lat_tcp "TCP ping-pong 64 B, p50 one-way (vs sockperf)" µs "≤ 1.05"
row lat_udp "UDP ping-pong 64 B, p50 one-way (vs sockperf)" µs "≤ 1.05"
# shellcheck disable=SC2086
printf '\nUDP loss, median %%: peakbench 1460 B %s, 65000 B %s; iperf3 1460 B %s, 65000 B %s\n' \
    "$(median ${A[udploss1460]})" "$(median ${A[udploss65000]})" "$(median ${B[udploss1460]})" "$(median ${B[udploss65000]})"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
