#!/usr/bin/env bash
# The machine shared while peakbench measures (issue #22): the same 2-thread CPU case
# and one 2-thread memory case, quiet and with a busy loop pinned to the second CPU of
# the run, then the first and the second again with --until-stable.
#
#   scripts/bench-shared.sh [PEAKBENCH] [QUIET]   (default target/release/peakbench; needs python3)
#
# QUIET is a command prefix that keeps the rest of the machine still while a run
# measures (e.g. a wrapper that pauses other jobs); empty by default. The busy loop is
# started inside it, so the prefix does not pause it. It stops after 90 s at most.
# KEEP=DIR keeps the five JSON reports (cpu-quiet.json, cpu-busy.json, …) in DIR.
# Prints, per run: each row's mean, efficiency (with ~ when peakbench marked it
# disturbed), the clock measured and the sustained clock, and what peakbench said.
set -euo pipefail
cd "$(dirname "$0")/.."
PB=${1:-target/release/peakbench}
QUIET=${2:-}
# KEEP=DIR keeps the JSON reports there (they are removed otherwise).
if [ -n "${KEEP:-}" ]; then OUT=$KEEP; mkdir -p "$OUT"; else OUT=$(mktemp -d); trap 'rm -rf "$OUT"' EXIT; fi
[ "$(nproc)" -ge 2 ] || { echo "needs 2 logical CPUs"; exit 1; }
SECOND=$("$PB" sysinfo --format json --quiet | python3 -c 'import json,sys; print(json.load(sys.stdin)["host"]["cpu"]["pin_order"][1])')
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs), $(nproc) CPUs; busy loop on cpu $SECOND"
CPU_ARGS=(cpu --precision fp64 --threads 2 --repeat 5 --min-time 200ms)
MEM_ARGS=(memory --kernel triad --size 256MiB --threads 2 --repeat 5)
run() { # NAME BUSY(0/1) ARGS...
  local name=$1 busy=$2; shift 2
  local cmd="\"$PB\" $* --format json --quiet --output \"$OUT/res\" > \"$OUT/$name.json\""
  if [ "$busy" = 1 ]; then
    cmd="timeout 90 taskset -c $SECOND sh -c 'while :; do :; done' & B=\$!; $cmd; kill \$B"
  fi
  $QUIET sh -c "$cmd"
}
run cpu-quiet 0 "${CPU_ARGS[@]}"
run cpu-busy 1 "${CPU_ARGS[@]}"
run cpu-busy-stable 1 "${CPU_ARGS[@]}" --until-stable 1% --stable-budget 10s
run mem-quiet 0 "${MEM_ARGS[@]}"
run mem-busy 1 "${MEM_ARGS[@]}"
python3 - "$OUT" <<'PY'
import json, os, sys
out = sys.argv[1]
print()
print("| run | row | mean | efficiency | clock / sustained GHz | thread shares (mean) | what peakbench said |")
print("| --- | --- | ---: | ---: | ---: | --- | --- |")
for name in ["cpu-quiet", "cpu-busy", "cpu-busy-stable", "mem-quiet", "mem-busy"]:
    rep = json.load(open(os.path.join(out, name + ".json")))
    for r in rep["results"]:
        if r["status"] != "ok":
            continue
        unit = r["unit"]
        mean = r["summary"]["mean"]
        fig = f"{mean/1e9:.1f} G{unit}"
        eff = r.get("efficiency")
        mark = "~" if r.get("disturbed") else ""
        eff = f"{mark}{eff*100:.1f} %" if eff is not None else "-"
        clk = ""
        if r.get("clock_hz"):
            clk = f"{r['clock_hz']/1e9:.2f} / {(r.get('sustained_hz') or 0)/1e9:.2f}"
        per = {}
        for s in r.get("share", []):
            for t in s.get("threads", []):
                per.setdefault((t["thread"], t.get("cpu")), []).append(t["share"])
        shares = ", ".join(f"t{k[0]}@cpu{k[1]} {sum(v)/len(v)*100:.0f} %" for k, v in sorted(per.items()))
        said = [n["text"] for n in r["notes"] if n["kind"] in ("shared", "warning")
                or n["text"].startswith("--until-stable")]
        if r.get("dropped"):
            said.append(f"{len(r['dropped'])} dropped")
        print(f"| {name} | {r['workload']} | {fig} | {eff} | {clk} | {shares} | {'<br>'.join(said) or '(nothing)'} |")
PY
