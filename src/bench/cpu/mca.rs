//! What `scripts/peaks-vs-llvm.py` reads of peakbench (issue #42 item 3), checked here:
//! the microarchitecture tables and the kernels as JSON (`tables_json`, written to the
//! file `$PEAKBENCH_TABLE_JSON` names when the test runs with it set), and the loops under
//! `scripts/mca-loops/` that the script feeds to `llvm-mca`, each of which must be its
//! kernel's own loop: the same instruction lines as the kernel's source, over the same
//! accumulators, counting the kernel's instructions per iteration (and, for the Arm
//! loops, whose kernels an x86-64 build has not, the pipe, width and operations the
//! script reads from the loop's header). Test-only: nothing here is in the binary.

use super::kernels::{self, Isa, Kernel};
use crate::hw::uarch::{Pipe, Uarch, Width, UARCHES};
use crate::hw::uarch_arm::ARM_CORES;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// One row: its name, vendor, model or part ranges, and every pipe's rate at 128, 256
/// and 512 bits (instructions per cycle per core; AMX and FP16 have one rate).
fn row_json(u: &Uarch, implementer: Option<u32>, source: Option<&str>) -> Value {
    let rates: serde_json::Map<String, Value> = Pipe::TABLED
        .iter()
        .map(|&p| {
            let r: Vec<f64> = [Width::V128, Width::V256, Width::V512]
                .iter()
                .map(|&w| u.rate(p, w))
                .collect();
            (format!("{p:?}"), json!(r))
        })
        .collect();
    json!({
        "name": u.name,
        "vendor": u.vendor,
        "family": u.family,
        "models": u.models,
        "implementer": implementer,
        "note": u.note,
        "source": source,
        "rates": rates,
    })
}

/// A kernel's pipe, width and counts as the peak takes them.
fn kernel_json(k: &Kernel) -> Value {
    json!({
        "name": k.name,
        "isa": k.isa.name(),
        "pipe": k.pipe.map(|p| format!("{p:?}")),
        "width": format!("{:?}", k.width),
        "instrs_per_iter": k.instrs_per_iter,
        "ops_per_instr": k.ops_per_instr,
        "vla": k.vla,
    })
}

/// Every row of both tables and every kernel of this build, as the script reads them.
pub(crate) fn tables_json() -> Value {
    let mut rows: Vec<Value> = UARCHES.iter().map(|u| row_json(u, None, None)).collect();
    rows.extend(
        ARM_CORES
            .iter()
            .map(|c| row_json(&c.uarch, Some(c.implementer), Some(c.source))),
    );
    json!({
        "arch": std::env::consts::ARCH,
        "rows": rows,
        "kernels": kernels::all().into_iter().map(kernel_json).collect::<Vec<_>>(),
    })
}

/// The loop files of this build's architecture.
fn loop_dir() -> PathBuf {
    let arch = if cfg!(target_arch = "aarch64") {
        "arm"
    } else {
        "x86"
    };
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scripts/mca-loops")
        .join(arch)
}

/// A loop file read: its `# key: value` headers and its instruction lines, each with
/// the number of times it runs per iteration (the `.irp` list's length, or 1).
struct LoopFile {
    headers: Vec<(String, String)>,
    lines: Vec<(String, usize)>,
    irp_lengths: Vec<usize>,
}

impl LoopFile {
    fn parse(text: &str) -> LoopFile {
        let mut lf = LoopFile {
            headers: Vec::new(),
            lines: Vec::new(),
            irp_lengths: Vec::new(),
        };
        let mut repeat = 1;
        for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
            if let Some(h) = line.strip_prefix('#') {
                if let Some((k, v)) = h.trim().split_once(": ") {
                    lf.headers.push((k.to_string(), v.trim().to_string()));
                }
            } else if let Some(list) = line.strip_prefix(".irp r,") {
                repeat = list.split(',').count();
                lf.irp_lengths.push(repeat);
            } else if line == ".endr" {
                repeat = 1;
            } else if !line.starts_with('.') && !line.ends_with(':') {
                lf.lines.push((line.to_string(), repeat));
            }
        }
        lf
    }

    fn header(&self, key: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// The mnemonic of an instruction line (after an encoding prefix such as `{vex}`).
fn mnemonic(line: &str) -> &str {
    line.split_whitespace()
        .find(|w| !w.starts_with('{'))
        .unwrap_or("")
}

/// The string literals of the macro invocation or function that defines `ident` in
/// `source` (from the identifier to the first `);`), unescaped as Rust and `asm!` do.
fn literals_of(source: &str, ident: &str) -> Vec<String> {
    let bytes = source.as_bytes();
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let start = source
        .match_indices(ident)
        .map(|(i, _)| i)
        .find(|&i| {
            let after = bytes.get(i + ident.len()).copied().unwrap_or(b' ');
            (i == 0 || !is_ident(bytes[i - 1])) && (after == b',' || after == b'(')
        })
        .unwrap_or_else(|| panic!("{ident} is not defined in its source file"));
    let end = start + source[start..].find(");").expect("the invocation's end");
    let mut out = Vec::new();
    let mut chars = source[start..end].chars();
    while let Some(c) = chars.next() {
        if c != '"' {
            continue;
        }
        let mut lit = String::new();
        while let Some(c) = chars.next() {
            match c {
                '"' => break,
                '\\' => match chars.next() {
                    Some('n') => lit.push('\n'),
                    Some(e) => lit.push(e),
                    None => {}
                },
                c => lit.push(c),
            }
        }
        out.push(lit.replace("{{", "{").replace("}}", "}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The dump holds every row of both tables with its rates, and every kernel; with
    /// `PEAKBENCH_TABLE_JSON=FILE` set the test writes it there for the script
    /// (`scripts/peaks-vs-llvm.py` runs this test so).
    #[test]
    fn the_tables_dump_as_json() {
        let v = tables_json();
        let rows = v["rows"].as_array().unwrap();
        assert_eq!(rows.len(), UARCHES.len() + ARM_CORES.len());
        let row = |name: &str| rows.iter().find(|r| r["name"] == name).unwrap();
        assert_eq!(
            row("Neoverse V1")["rates"]["Fma"],
            json!([4.0, 2.0, 0.0]),
            "{v}"
        );
        assert_eq!(row("AmpereOne")["rates"]["Mmla"], json!([1.0, 0.0, 0.0]));
        assert_eq!(row("AmpereOne")["implementer"], json!(0xc0));
        assert_eq!(
            row("Sapphire Rapids/Emerald Rapids")["rates"]["Amx"][2],
            json!(1.0 / 16.0)
        );
        let ks = v["kernels"].as_array().unwrap();
        assert_eq!(ks.len(), kernels::all().len());
        assert!(ks
            .iter()
            .all(|k| k["instrs_per_iter"].as_u64().unwrap() > 0));
        if let Some(path) = std::env::var_os("PEAKBENCH_TABLE_JSON") {
            std::fs::write(&path, serde_json::to_string_pretty(&v).unwrap())
                .unwrap_or_else(|e| panic!("{}: {e}", Path::new(&path).display()));
        }
    }

    /// Every kernel of this architecture (but the generic ones, whose instructions the
    /// compiler picks) has its loop under scripts/mca-loops, and that loop is the
    /// kernel's: its instruction lines are the source's, over as many accumulators as
    /// the kernel has, and the counted instructions make `instrs_per_iter`; every loop
    /// file belongs to a kernel.
    #[test]
    fn every_mca_loop_is_its_kernels_loop() {
        let dir = loop_dir();
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut failures = Vec::new();
        let ours: Vec<&Kernel> = kernels::all()
            .into_iter()
            .filter(|k| k.isa != Isa::Generic)
            .collect();
        assert!(!ours.is_empty());
        for k in &ours {
            let path = dir.join(format!("{}.s", k.name));
            let Ok(text) = std::fs::read_to_string(&path) else {
                failures.push(format!("{}: missing", path.display()));
                continue;
            };
            let lf = LoopFile::parse(&text);
            let mut fail = |what: String| failures.push(format!("{}: {what}", path.display()));
            if lf.header("kernel") != Some(k.name) {
                fail(format!("header kernel is {:?}", lf.header("kernel")));
            }
            let counts: Vec<&str> = lf
                .header("counts")
                .unwrap_or("")
                .split_whitespace()
                .collect();
            let counted: usize = lf
                .lines
                .iter()
                .filter(|(l, _)| counts.contains(&mnemonic(l)))
                .map(|(_, n)| n)
                .sum();
            if counted as u64 != k.instrs_per_iter {
                fail(format!(
                    "counts {counted} instructions ({counts:?}), the kernel {}",
                    k.instrs_per_iter
                ));
            }
            if lf.irp_lengths.iter().any(|&n| n != k.layout.regs) {
                fail(format!(
                    ".irp over {:?} accumulators, the kernel has {}",
                    lf.irp_lengths, k.layout.regs
                ));
            }
            // The source the loop is taken from: `# from: FILE IDENT`.
            let Some((file, ident)) = lf.header("from").and_then(|f| f.split_once(' ')) else {
                fail("no `# from: FILE IDENT` header".into());
                continue;
            };
            let source = std::fs::read_to_string(root.join(file)).unwrap();
            let lits = literals_of(&source, ident);
            let control = ["dec", "jnz", "subs", "b.ne"];
            for (line, _) in &lf.lines {
                let m = mnemonic(line);
                if control.contains(&m) {
                    continue;
                }
                // A whole line of the source, or (the AMX loop, assembled by
                // `hw::asm::amx_loop_body` around the kernel's mnemonic) its mnemonic.
                if !lits.iter().any(|l| l == line || l == m) {
                    fail(format!("`{line}` is not in {file} {ident}: {lits:?}"));
                }
            }
            // Arm loops carry what the x86-64 dump cannot: the kernel's pipe and width.
            let expect = [
                ("pipe", k.pipe.map_or("none".into(), |p| format!("{p:?}"))),
                ("width", format!("{:?}", k.width)),
                ("ops_per_instr", k.ops_per_instr.to_string()),
                ("vla", k.vla.to_string()),
            ];
            for (key, want) in expect {
                match lf.header(key) {
                    Some(v) if v != want => fail(format!("header {key} is {v}, the kernel {want}")),
                    None if cfg!(target_arch = "aarch64") => fail(format!("no header {key}")),
                    _ => {}
                }
            }
        }
        for e in std::fs::read_dir(&dir).unwrap() {
            let name = e.unwrap().file_name().to_string_lossy().to_string();
            let kernel = name.trim_end_matches(".s");
            if !ours.iter().any(|k| k.name == kernel) {
                failures.push(format!("{name}: no kernel of that name"));
            }
        }
        assert!(failures.is_empty(), "\n{}", failures.join("\n"));
    }

    #[test]
    fn loop_files_and_sources_parse() {
        let lf = LoopFile::parse(
            "# kernel: k\n# counts: vfmadd132pd\n.intel_syntax noprefix\n2:\n.irp r,0,1,2\nvfmadd132pd zmm\\r, zmm31, zmm30\n.endr\ndec rcx\njnz 2b\n",
        );
        assert_eq!(lf.header("counts"), Some("vfmadd132pd"));
        assert_eq!(lf.irp_lengths, [3]);
        assert_eq!(lf.lines[0], ("vfmadd132pd zmm\\r, zmm31, zmm30".into(), 3));
        assert_eq!(lf.lines.len(), 3);
        assert_eq!(mnemonic("{vex} vpdpbusd ymm0, ymm1, ymm2"), "vpdpbusd");
        let src =
            "x!(\n    k_clock,\n    \"no\"\n);\nx!(\n    fma k,\n    \"{{vex}} a \\\\r\"\n);\n";
        assert_eq!(literals_of(src, "k"), ["{vex} a \\r"]);
    }
}
