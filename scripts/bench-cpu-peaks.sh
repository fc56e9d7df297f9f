#!/usr/bin/env bash
# Every CPU kernel against its theoretical peak: the check of issue #11.
#
#   scripts/bench-cpu-peaks.sh [THREADS] [REPEAT]   (default 1,2 and 5; needs python3)
#
# Runs `peakbench cpu --threads THREADS` and prints one Markdown row per kernel and thread
# count: mean, efficiency, CV, the clock used and where the rate per cycle came from
# (table / probe / both), then the verdict of the issue's goals: every non-generic row has
# a peak, none reads above 102 %, the FMA and VNNI rows read at least 95 % and AMX 90 %.
set -euo pipefail
cd "$(dirname "$0")/.."
THREADS=${1:-1,2}
REPEAT=${2:-5}
cargo build --release -q
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs), $(nproc) CPUs; load average $(cut -d' ' -f1-3 /proc/loadavg)"
target/release/peakbench cpu --threads "$THREADS" --repeat "$REPEAT" --format json --quiet \
  --output "$OUT/res" > "$OUT/pb.json"
python3 - "$OUT/pb.json" <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1]))
cpu = r["host"]["cpu"]
ident = cpu.get("identification") or {}
print(f"identified: row '{ident.get('row') or cpu.get('microarch')}', {ident.get('evidence', '')}")
print()
print("| kernel | threads | mean | efficiency | CV | clock GHz | rate per cycle from |")
print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
bad = []
def prov(src):
    m = re.search(r"instr/cycle \([^:]+: (table, confirmed by probe|probe overrules table|probe|table)", src or "")
    return m.group(1) if m else ""
for x in r["results"]:
    p = x["params"]
    name, t = x["workload"], p.get("threads")
    if x["status"] != "ok":
        continue
    mean = x["summary"]["mean"]
    unit = x["unit"]
    eff = x.get("efficiency")
    peak = (x.get("peak") or {})
    clock = x.get("clock_hz") or 0
    generic = p.get("isa") == "generic"
    e = f"{eff*100:.1f} %" if eff is not None else "n/a"
    print(f"| {name} | {t} | {mean/1e9:.1f} G{unit} | {e} | {x['summary']['cv']*100:.1f} % | {clock/1e9:.2f} | {prov(peak.get('source'))} |")
    if generic:
        continue
    if eff is None:
        bad.append(f"{name} t={t}: no peak")
    elif eff > 1.02:
        bad.append(f"{name} t={t}: {eff*100:.1f} % > 102 %")
    elif (name.startswith("fma_") or "vnni" in name) and eff < 0.95:
        bad.append(f"{name} t={t}: {eff*100:.1f} % < 95 %")
    elif "amx" in name and eff < 0.90:
        bad.append(f"{name} t={t}: {eff*100:.1f} % < 90 %")
print()
print("goals met" if not bad else "goals not met:\n- " + "\n- ".join(bad))
PY
