#!/usr/bin/env bash
# scripts/bench-neighbours.sh PEAKBENCH [OUTDIR]: issue #31's experiments.
# 1. What the canary costs: `cpu --precision fp64 --threads 1,2` twice with the canary
#    off and twice on, alternating; prints each row's mean and the run's verdict.
# 2. A neighbour on the other vCPU as a stand-in for an SMT sibling: `cpu --threads 1`
#    on the first CPU while, from 6 s in, a busy FMA run (another peakbench, pinned to
#    the second CPU by taskset) competes; prints each row's canary and notes. Where the
#    two vCPUs are not siblings on the host, the canary rightly stays quiet.
# Run it under scripts/quietrun.sh on a shared machine. Needs jq.
set -eu
pb=$1
out=${2:-$(mktemp -d)}
mkdir -p "$out"
common=(cpu --precision fp64 --min-time 100ms --repeat 3 --quiet --format json)
for i in 1 2; do
  for c in off on; do
    PEAKBENCH_CANARY=$c "$pb" "${common[@]}" --threads 1,2 --output "$out/$c$i" > "$out/$c$i.json"
  done
done
echo "== canary cost: mean per row (GFLOP/s), off1 on1 off2 on2"
paste <(jq -r '.results[]|select(.status=="ok")|"\(.workload) t=\(.params.threads)"' "$out/off1.json") \
  <(for f in off1 on1 off2 on2; do jq -r '[.results[]|select(.status=="ok")|.summary.mean/1e9|.*100|round/100]|@tsv' "$out/$f.json" | tr '\t' '\n' > "$out/$f.col"; done; paste "$out"/off1.col "$out"/on1.col "$out"/off2.col "$out"/on2.col)
for f in off1 on1 off2 on2; do echo "$f: $(jq -r .run_quality.text "$out/$f.json")"; done
echo "== neighbour on cpu 1 from 6 s in"
( sleep 6; exec taskset -c 1 "$pb" cpu --precision fp64 --isa avx512 --threads 1 --sustain 40s --interval 1s --quiet --format json --output "$out/nb" > /dev/null ) &
nb=$!
"$pb" "${common[@]}" --threads 1 --output "$out/sib" > "$out/sib.json" || true
kill "$nb" 2>/dev/null || true
wait "$nb" 2>/dev/null || true
jq -r '.results[]|select(.status=="ok")|"\(.workload): canary \([.share[].canary[]?|(.per_cycle/.best*100|round)]|map(tostring)|join(",")) %; \([.notes[]|select(.kind=="shared")|.text]|join(" | "))"' "$out/sib.json"
echo "verdict: $(jq -r .run_quality.text "$out/sib.json")"
echo "files in $out"
