#!/bin/bash
# Usage: scripts/bench-matrix-cost.sh PATH/TO/peakbench (issue #14; see BENCHMARKS.md)
# Wall time of net --matrix for N ranks on this machine (each rank its own loopback address).
BIN=$1; shift
for N in 2 3 4; do
  d=$(mktemp -d); P=$((20000 + RANDOM % 20000))
  t0=$(date +%s.%N)
  for r in $(seq 0 $((N-1))); do
    PEAKBENCH_RANK=$r PEAKBENCH_SIZE=$N PEAKBENCH_COORD=127.0.0.1:$P PEAKBENCH_HOST_ID=h$r PEAKBENCH_BIND=127.0.0.$((r+1)) \
      timeout 300 $BIN net --matrix --time 1s --quiet --format json --output $d > $d/out$r 2>$d/err$r &
  done
  wait
  t1=$(date +%s.%N)
  n=$(python3 -c "import json;v=json.load(open('$d/out0'));print(sum(1 for r in v['results'] if r['status']=='ok'))")
  echo "N=$N wall=$(python3 -c "print(round($t1-$t0,1))") s ok_results=$n"
done
