#!/usr/bin/env python3
"""Checks every per-cycle figure of peakbench's microarchitecture tables against LLVM's
scheduling models (issue #42 item 3) and writes docs/peaks-vs-llvm.md.

For each table row that LLVM models (scripts/peaks-vs-llvm.toml, [[core]]: the row and
the -mcpu names of its cores), each kernel's inner loop (scripts/mca-loops/<arch>/
<kernel>.s, the kernel's own instructions: a unit test checks them against the source)
goes through `llvm-mca`, which simulates the loop on the core's model; the loop's counted
instructions per cycle are compared with the table's rate for the kernel's pipe and
width, and both are converted to operations per cycle per core. A disagreement must be
explained in the data file ([[explain]]: the resolution and its source); with --check
an unexplained one fails (CI).

The table figures come from peakbench itself: the unit test
bench::cpu::mca::tests::the_tables_dump_as_json writes both tables and the kernels as
JSON when PEAKBENCH_TABLE_JSON names a file. Without --table this script runs that test
(`cargo test --release --lib`, which reuses the test binary `cargo test --release`
built).

Usage: scripts/peaks-vs-llvm.py [--table FILE] [--out FILE] [--check] [--llvm-mca PATH]
Needs Python 3.11 (tomllib) and LLVM 19's llvm-mca (Debian: apt-get install llvm-19).
"""

import argparse
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOOPS = ROOT / "scripts" / "mca-loops"
DATA = ROOT / "scripts" / "peaks-vs-llvm.toml"
ITERATIONS = 100
# Relative distance within which the table and LLVM agree: the loop's control
# instructions and the start-up of 100 iterations cost LLVM's figure about 1 %.
TOLERANCE = 0.05
WIDTH_INDEX = {"Scalar": 0, "V128": 0, "V256": 1, "V512": 2, "Tile": 2}
SVE_WIDTH = {128: "V128", 256: "V256", 512: "V512"}
ARM_ATTRS = "+sve,+sve2,+i8mm,+bf16,+dotprod,+fullfp16"
CONTROL = {"dec", "jnz", "subs", "b.ne"}


def find_mca(given):
    for c in [given, "llvm-mca-19", "/usr/lib/llvm-19/bin/llvm-mca", "llvm-mca"]:
        if c and (shutil.which(c) or Path(c).is_file()):
            return shutil.which(c) or c
    sys.exit("peaks-vs-llvm: llvm-mca not found; install LLVM 19 (apt-get install llvm-19) or give --llvm-mca PATH")


def dump_table():
    """Runs the unit test that writes peakbench's tables as JSON and reads them."""
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "tables.json"
        env = dict(os.environ, PEAKBENCH_TABLE_JSON=str(out))
        cmd = ["cargo", "test", "--release", "--quiet", "--lib",
               "bench::cpu::mca::tests::the_tables_dump_as_json", "--", "--exact"]
        r = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
        if r.returncode != 0 or not out.exists():
            sys.stderr.write(r.stdout + r.stderr)
            sys.exit("peaks-vs-llvm: the table dump failed: " + " ".join(cmd))
        return json.loads(out.read_text())


class Loop:
    """One loop file: headers, the text llvm-mca reads, counted and total instructions."""

    def __init__(self, path):
        self.path = path
        self.name = path.stem
        self.headers = {}
        self.body = []
        self.counted = 0
        self.total = 0
        repeat = 1
        for raw in path.read_text().splitlines():
            line = raw.strip()
            if not line:
                continue
            if line.startswith("#"):
                if ": " in line:
                    k, v = line[1:].strip().split(": ", 1)
                    self.headers[k] = v.strip()
                continue
            self.body.append(line)
            if line.startswith(".irp r,"):
                repeat = len(line[len(".irp r,"):].split(","))
            elif line == ".endr":
                repeat = 1
            elif not line.startswith(".") and not line.endswith(":"):
                m = [w for w in line.split() if not w.startswith("{")][0]
                self.total += repeat
                if m in self.headers.get("counts", "").split():
                    self.counted += repeat


def run_mca(mca, triple, mcpu, loops, attrs):
    """One llvm-mca run over every loop (a region each): {loop: (instr/cycle, resources)
    or None when LLVM's model lacks one of the loop's instructions}."""
    text = []
    for lp in loops:
        text.append(f"# LLVM-MCA-BEGIN {lp.name}")
        text.extend(lp.body)
        text.append("# LLVM-MCA-END")
    cmd = [mca, f"-mtriple={triple}", f"-mcpu={mcpu}", f"-iterations={ITERATIONS}",
           "-skip-unsupported-instructions=lack-sched", "-instruction-info=0",
           ]
    if attrs:
        cmd.append(f"-mattr={attrs}")
    r = subprocess.run(cmd, input="\n".join(text) + "\n", capture_output=True, text=True)
    if r.returncode != 0:
        if "scheduling information" in r.stderr or "no scheduling model" in r.stderr:
            return None
        sys.exit(f"peaks-vs-llvm: {' '.join(cmd)} failed:\n{r.stderr}")
    out = {}
    by_name = {lp.name: lp for lp in loops}
    for block in re.split(r"\n\[\d+\] Code Region - ", "\n" + r.stdout)[1:]:
        name = block.split("\n", 1)[0].strip()
        lp = by_name[name]
        instrs = int(re.search(r"^Instructions:\s+(\d+)", block, re.M).group(1))
        cycles = int(re.search(r"^Total Cycles:\s+(\d+)", block, re.M).group(1))
        rthroughput = float(re.search(r"^Block RThroughput:\s+([\d.]+)", block, re.M).group(1))
        res = re.findall(r"^\[[\d.]+\]\s+-\s+(\S+)", block, re.M)
        if instrs != lp.total * ITERATIONS:
            out[name] = None  # LLVM skipped an instruction its model lacks
        else:
            # Simulated, and the bound of the model's resources alone (its throughput
            # figures, before the simulation's front end and in-order issue).
            out[name] = (lp.counted * ITERATIONS / cycles, lp.counted / rthroughput,
                         model_name(res))
    return out


def model_name(resources):
    """The common prefix of the model's resource names (N2Unit, SKXPort, ...)."""
    if not resources:
        return "?"
    p = os.path.commonprefix(resources)
    return (p or resources[0]).rstrip("_") + "*"


def kernels_of(core, row, kernels, loops, sve):
    """The loops a row's cores run, each with the table's rate and its operations."""
    todo = []
    for lp in loops:
        k = kernels.get(lp.name)
        pipe = k["pipe"] if k else lp.headers.get("pipe")
        pipe = None if pipe in (None, "none") else pipe
        width = k["width"] if k else lp.headers["width"]
        ops = int(k["ops_per_instr"] if k else lp.headers["ops_per_instr"])
        vla = (k["vla"] if k else lp.headers.get("vla") == "true")
        if any(fnmatch.fnmatchcase(lp.name, g) for g in core.get("skip", [])):
            continue  # the row's cores lack the kernel's instructions
        if vla:
            if not sve:
                continue
            width, ops = SVE_WIDTH[sve], ops * sve // 128
        if pipe is not None and pipe not in row["rates"]:
            # A pipe the dump does not carry (the F16C loop's rate is per row in
            # src/hw/uarch_f16c.rs, checked against llvm-mca by
            # scripts/bench-f16c.sh): no table figure here.
            pipe = None
        if pipe is None:
            # No table figure (the F16C stand-in): shown where the row has
            # the fp32 FMA it runs on.
            if row["rates"]["Fma"][1] <= 0:
                continue
            rate = None
        else:
            rate = row["rates"][pipe][WIDTH_INDEX[width]]
            if rate <= 0:
                continue  # the row's cores do not run this kernel
        todo.append((lp, rate, ops))
    return todo


def explanation(data, row, mcpu, kernel):
    for e in data.get("explain", []):
        if (fnmatch.fnmatchcase(row, e.get("row", "*"))
                and fnmatch.fnmatchcase(mcpu, e.get("mcpu", "*"))
                and fnmatch.fnmatchcase(kernel, e.get("kernel", "*"))):
            return e
    return None


def fmt(x):
    if x is None:
        return "–"
    return f"{x:.3g}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--table", help="the JSON the table-dump test wrote (default: run it)")
    ap.add_argument("--out", default=str(ROOT / "docs" / "peaks-vs-llvm.md"))
    ap.add_argument("--check", action="store_true",
                    help="exit 1 on a disagreement the data file does not explain")
    ap.add_argument("--llvm-mca", dest="mca")
    a = ap.parse_args()
    mca = find_mca(a.mca)
    version = subprocess.run([mca, "--version"], capture_output=True, text=True).stdout
    version = re.search(r"LLVM version (\S+)", version)
    version = version.group(1) if version else "?"
    table = json.loads(Path(a.table).read_text()) if a.table else dump_table()
    data = tomllib.loads(DATA.read_text())
    rows = {r["name"]: r for r in table["rows"]}
    kernels = {k["name"]: k for k in table["kernels"]}
    loops = {
        "x86": [Loop(p) for p in sorted((LOOPS / "x86").glob("*.s"))],
        "arm": [Loop(p) for p in sorted((LOOPS / "arm").glob("*.s"))],
    }

    # Every llvm-mca run first, side by side (one per -mcpu and row).
    jobs = {}
    for core in data["core"]:
        row = rows.get(core["row"])
        if row is None:
            sys.exit(f"peaks-vs-llvm: {DATA.name}: row '{core['row']}' is not in peakbench's tables")
        arm = row["vendor"] == "aarch64"
        todo = kernels_of(core, row, kernels, loops["arm" if arm else "x86"], core.get("sve_bits", 0))
        for mcpu in core["mcpu"]:
            jobs[(core["row"], mcpu)] = (mca, "aarch64" if arm else "x86_64", mcpu,
                                         [t[0] for t in todo], ARM_ATTRS if arm else "")
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        results = dict(zip(jobs, pool.map(lambda j: run_mca(*j), jobs.values())))

    lines = []
    unexplained = []
    used = set()
    counts = {"agree": 0, "explained": 0, "unexplained": 0, "no table figure": 0,
              "not modelled": 0}
    covered = set()
    for core in data["core"]:
        rname = core["row"]
        if rname not in rows:
            sys.exit(f"peaks-vs-llvm: {DATA.name}: row '{rname}' is not in peakbench's tables")
        covered.add(rname)
        row = rows[rname]
        arm = row["vendor"] == "aarch64"
        arch = "arm" if arm else "x86"
        sve = core.get("sve_bits", 0)
        if core.get("in_order"):
            note = " (in-order core: compared with the model's throughputs where its in-order simulation of the loop is lower)"
        else:
            note = ""
        lines.append(f"\n### {rname}{note}\n")
        src = row.get("source") or "see src/hw/uarch.rs (module docs) and the row's note"
        lines.append(f"Source: {src}. {row['note']}".rstrip() + "\n")
        lines.append("| LLVM -mcpu (model) | kernel | table instr/cycle | LLVM instr/cycle "
                     "| table ops/cycle | LLVM ops/cycle | verdict |")
        lines.append("|---|---|---|---|---|---|---|")
        for mcpu in core["mcpu"]:
            todo = kernels_of(core, row, kernels, loops[arch], sve)
            res = results[(rname, mcpu)]
            if res is None:
                lines.append(f"| {mcpu} | (all) | | | | | LLVM {version} has no scheduling model for -mcpu={mcpu} |")
                counts["not modelled"] += 1
                continue
            known = [g[2] for g in res.values() if g]
            for lp, rate, ops in todo:
                got = res.get(lp.name)
                llvm, bound, model = (got if got else (None, None, known[0] if known else "?"))
                close = lambda x: abs(x - rate) <= TOLERANCE * rate
                if got is None:
                    verdict = "LLVM's model lacks an instruction of the loop"
                    counts["not modelled"] += 1
                elif rate is None:
                    verdict = "no table figure"
                    counts["no table figure"] += 1
                elif close(llvm):
                    verdict = "agree"
                    counts["agree"] += 1
                elif core.get("in_order") and close(bound):
                    # llvm-mca's in-order simulation stalls this loop on its control
                    # instructions; the model's throughputs are the figure to compare.
                    verdict = (f"agree on the model's throughputs ({fmt(bound)}/cycle; the "
                               "in-order simulation of the loop gives less)")
                    counts["agree"] += 1
                else:
                    e = explanation(data, rname, mcpu, lp.name)
                    if e:
                        used.add(id(e))
                        verdict = f"disagree: {e['resolution']} (source: {e['source']})"
                        counts["explained"] += 1
                    else:
                        verdict = "**disagree, unexplained**"
                        counts["unexplained"] += 1
                        unexplained.append(f"{rname} / {mcpu} / {lp.name}: table {fmt(rate)}, LLVM {fmt(llvm)}")
                ops_t = None if rate is None else rate * ops
                ops_l = None if llvm is None else llvm * ops
                lines.append(f"| {mcpu} ({model}) | {lp.name} | {fmt(rate)} | {fmt(llvm)} | "
                             f"{fmt(ops_t)} | {fmt(ops_l)} | {verdict} |")

    not_covered = [n for n in rows if n not in covered]
    head = [
        "# Peaks against LLVM's scheduling models",
        "",
        "Generated by `scripts/peaks-vs-llvm.py` (do not edit: change the tables, the loops",
        "under `scripts/mca-loops/` or the explanations in `scripts/peaks-vs-llvm.toml`, and",
        "run it again: it needs Python 3.11 and LLVM 19's `llvm-mca`, Debian's `llvm-19`, and",
        "runs one unit test, `bench::cpu::mca`, for the tables; CI runs it with `--check`,",
        "which fails on a disagreement the data file does not explain). For every row of peakbench's",
        "microarchitecture tables that LLVM models and every kernel the row's cores run,",
        f"`llvm-mca` (LLVM {version}, {ITERATIONS} iterations) simulates the kernel's own inner loop on",
        "the core's scheduling model. *instr/cycle* counts the kernel's instructions (a",
        "mul+add kernel counts both), as the table does; *ops/cycle* is that times the",
        "operations per instruction (SVE kernels at the row's vector length), on one core.",
        f"Figures within {TOLERANCE:.0%} agree. A disagreement says how it is resolved and on",
        "what source: the vendor's optimization guide, a measured run, or a known",
        "simplification of LLVM's model (the *model* column shows the resource names of the",
        "model LLVM uses for the -mcpu, which for many cores is another core's).",
        "",
        f"Summary: {counts['agree']} agree, {counts['explained']} disagree with an explanation, "
        f"{counts['unexplained']} unexplained, {counts['no table figure']} without a table figure, "
        f"{counts['not modelled']} not modelled by LLVM.",
        "",
        "Rows not compared (LLVM has no model of their cores, or they are no one core): "
        + ", ".join(f"'{n}'" for n in not_covered) + ".",
    ]
    Path(a.out).write_text("\n".join(head + lines) + "\n")
    stale = [e for e in data.get("explain", []) if id(e) not in used]
    for e in stale:
        print(f"peaks-vs-llvm: note: explanation matched nothing: {e.get('row')} / {e.get('mcpu', '*')} / {e.get('kernel', '*')}", file=sys.stderr)
    print(f"peaks-vs-llvm: wrote {a.out}: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    if unexplained:
        print("peaks-vs-llvm: disagreements the data file does not explain:", file=sys.stderr)
        for u in unexplained:
            print("  " + u, file=sys.stderr)
        if a.check:
            sys.exit(1)


if __name__ == "__main__":
    main()
