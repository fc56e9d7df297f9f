#!/usr/bin/env bash
# bench-disk.sh: peakbench disk vs fio (io_uring and libaio) with identical settings —
# direct=1, same block size, iodepth, numjobs, file size, ramp and runtime — in one run,
# alternating the three tools case by case and round by round so that the noise of a
# shared machine hits all of them alike. Prints the medians and the ratios
# peakbench / fio for bandwidth, IOPS and completion latency (clat p50/p99), and
# peakbench's CV over its 1 s windows.
#
# Usage: scripts/bench-disk.sh [DIR] [ROUNDS] [RUNTIME_S]
#   DIR      where the test files go (default: target/bench-disk; must be a real disk)
#   ROUNDS   alternating rounds (default 3)
#   RUNTIME  measured seconds per run (default 4; plus 1 s ramp)
# SIZE_MIB=N sets the file size (default 512 MiB per tool). FIO_BATCH=1 lets fio batch
# submissions and completions up to the queue depth, as peakbench does (fio 3.33's
# default is one io_uring_enter/io_submit per I/O).
# Needs: fio (Debian's fio 3.33 was used), python3, a release build of peakbench.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-target/bench-disk}
ROUNDS=${2:-3}
RUNTIME=${3:-4}
SIZE_MIB=${SIZE_MIB:-512}
PB=target/release/peakbench
command -v fio >/dev/null || { echo "fio not installed" >&2; exit 1; }
[ -x "$PB" ] || cargo build --release --quiet
mkdir -p "$DIR"
OUT=$(mktemp -d "$DIR/results.XXXXXX")
FIOFILE="$DIR/fio-test.dat"
trap 'rm -f "$FIOFILE"; rm -rf "$OUT"' EXIT

# case name | peakbench pattern | fio rw | block | depth | jobs
CASES=(
  "seq-read-1M-qd32|seq-read|read|1MiB:1m|32|1"
  "seq-write-1M-qd32|seq-write|write|1MiB:1m|32|1"
  "rand-read-4K-qd32|rand-read|randread|4KiB:4k|32|1"
  "rand-write-4K-qd32|rand-write|randwrite|4KiB:4k|32|1"
  "rand-read-4K-qd1|rand-read|randread|4KiB:4k|1|1"
  "rand-write-4K-qd1|rand-write|randwrite|4KiB:4k|1|1"
)

# ONLY=name1,name2 runs only those cases (e.g. ONLY=rand-read-4K-qd32).
if [ -n "${ONLY:-}" ]; then
  keep=()
  for c in "${CASES[@]}"; do
    [[ ",$ONLY," == *",${c%%|*},"* ]] && keep+=("$c")
  done
  CASES=("${keep[@]}")
fi

echo "fio: $(fio --version); peakbench: $($PB --version); dir: $DIR; rounds: $ROUNDS; runtime: ${RUNTIME}s + 1s ramp; file ${SIZE_MIB} MiB"
# Both tools start every run from a freshly written file: peakbench creates and fills
# its own (and removes it after); fio's is rewritten in place before each fio run (not
# removed: on a filesystem mounted with `discard`, unlinking a large file blocks for
# long and disturbs the next run).
for round in $(seq 1 "$ROUNDS"); do
  for c in "${CASES[@]}"; do
    IFS='|' read -r name pat rw blk depth jobs <<<"$c"
    pbblk=${blk%%:*}; fioblk=${blk##*:}
    # Rotate the order of the three tools each round.
    tools=(pb uring libaio)
    for k in $(seq 1 $((round % 3))); do tools=("${tools[@]:1}" "${tools[0]}"); done
    for t in "${tools[@]}"; do
      f="$OUT/$name.$t.$round.json"
      case $t in
        pb)
          "$PB" disk --dir "$DIR" --quiet --format json --output "$OUT/pbres" \
            --pattern "$pat" --block "$pbblk" --depth "$depth" --jobs "$jobs" \
            --file-size ${SIZE_MIB}MiB --engine uring --ramp 1s --runtime 1s \
            --repeat "$RUNTIME" >"$f"
          ;;
        uring|libaio)
          extra=()
          # fio's io_uring with registered buffers and file, as peakbench uses them.
          [ "$t" = uring ] && extra=(--fixedbufs --registerfiles)
          [ "${FIO_BATCH:-0}" = 1 ] && extra+=(--iodepth_batch_submit="$depth" --iodepth_batch_complete_max="$depth")
          engine=$t; [ "$t" = uring ] && engine=io_uring
          fio --name=fill --filename="$FIOFILE" --size=${SIZE_MIB}m --rw=write --bs=1m \
            --direct=1 --ioengine=psync --output=/dev/null
          fio --name="$name" --filename="$FIOFILE" --size=${SIZE_MIB}m --direct=1 \
            --ioengine="$engine" "${extra[@]}" --rw="$rw" --bs="$fioblk" --iodepth="$depth" \
            --numjobs="$jobs" --group_reporting --time_based --ramp_time=1 \
            --runtime="$RUNTIME" --output-format=json >"$f"
          ;;
      esac
    done
    echo "round $round: $name done" >&2
  done
done

python3 - "$OUT" "$ROUNDS" <<'EOF'
import json, sys, statistics as st, glob, os
out, rounds = sys.argv[1], int(sys.argv[2])
names = []
for f in sorted(glob.glob(os.path.join(out, "*.pb.1.json"))):
    names.append(os.path.basename(f).split(".pb.")[0])
order = ["seq-read-1M-qd32","seq-write-1M-qd32","rand-read-4K-qd32","rand-write-4K-qd32","rand-read-4K-qd1","rand-write-4K-qd1"]
names = [n for n in order if n in names]
def pb(f):
    r = json.load(open(f))["results"]
    m = {x["metric"]: x for x in r}
    return dict(bw=m["throughput"]["summary"]["mean"], iops=m["iops"]["summary"]["mean"],
                p50=m["latency"]["percentiles"]["p50"], p99=m["latency"]["percentiles"]["p99"],
                cv=m["throughput"]["summary"]["cv"])
def fio(f):
    j = json.load(open(f))["jobs"][0]
    d = j["read"] if j["read"]["io_bytes"] > 0 else j["write"]
    pc = d["clat_ns"]["percentile"]
    return dict(bw=d["bw_bytes"], iops=d["iops"], p50=pc["50.000000"]*1e-9, p99=pc["99.000000"]*1e-9, cv=None)
med = lambda xs: st.median(xs)
print()
print("| case | metric | peakbench | fio io_uring | ratio | fio libaio | ratio | ratio per round vs io_uring (median) |")
print("|---|---|---|---|---|---|---|---|")
summary = []
for n in names:
    P = [pb(f"{out}/{n}.pb.{i}.json") for i in range(1, rounds+1)]
    U = [fio(f"{out}/{n}.uring.{i}.json") for i in range(1, rounds+1)]
    L = [fio(f"{out}/{n}.libaio.{i}.json") for i in range(1, rounds+1)]
    for k, unit, scale in [("bw","MB/s",1e-6),("iops","IO/s",1),("p50","µs",1e6),("p99","µs",1e6)]:
        p, u, l = med([x[k] for x in P]), med([x[k] for x in U]), med([x[k] for x in L])
        # Each round ran the tools back to back: the ratio within a round cancels the
        # load that round saw; its median over rounds is the figure to quote.
        rr = [a[k] / b[k] for a, b in zip(P, U)]
        per = " ".join(f"{x:.2f}" for x in rr)
        print(f"| {n} | {k} ({unit}) | {p*scale:,.1f} | {u*scale:,.1f} | {p/u:.3f} | {l*scale:,.1f} | {p/l:.3f} | {med(rr):.3f} ({per}) |")
    cvs = [x["cv"] for x in P]
    print(f"| {n} | peakbench CV (1 s windows), median of rounds | {med(cvs)*100:.1f} % | | | | | |")
EOF
