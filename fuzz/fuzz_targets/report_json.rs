//! Fuzzes the results-file reader `report::load::parse` (what `peakbench report` and
//! `compare` read files with: peakbench/2, and peakbench/1 converted on load) and all
//! that a file which parses reaches: the table, Markdown, CSV, JSON and HTML views, and
//! `compare` of the file against itself (a format that has no form for a comparison
//! refuses it with `Unsupported`, as `--format` does). Nothing may panic; no view may let an ESC from
//! the file through; what the JSON view writes must read back.
//!
//! Seeded with the /1 and /2 fixtures: `cargo +nightly fuzz run report_json
//! fuzz/corpus/report_json tests/fixtures -- -dict=fuzz/report.dict`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use peakbench::report::{compare, export, load, Format};

fuzz_target!(|data: &[u8]| {
    let Ok(rep) = load::parse("fuzz.json", data) else {
        return;
    };
    let json_format = Format::parse("json").expect("json is a format");
    for &f in Format::all().iter().filter(|&&f| f != json_format) {
        let mut out = Vec::new();
        export(&rep, f, &mut out).expect("export to memory");
        assert!(!out.contains(&0x1b), "{f:?}: ESC reached the output");
    }
    let mut json = Vec::new();
    export(&rep, json_format, &mut json).expect("export to memory");
    load::parse("again.json", &json).expect("the JSON view must read back");
    let names = ["a.json".to_string(), "b.json".to_string()];
    let c = compare::compare(&names, &[rep.clone(), rep]);
    for &f in Format::all() {
        let mut out = Vec::new();
        match export(&c, f, &mut out) {
            Ok(()) => {}
            // A format with no form for a comparison (openmetrics: the figures of one
            // run only) refuses it, as `--format` does on the command line.
            Err(e) if e.kind() == std::io::ErrorKind::Unsupported => continue,
            Err(e) => panic!("compare {f:?}: export to memory: {e}"),
        }
        if f != json_format {
            assert!(
                !out.contains(&0x1b),
                "compare {f:?}: ESC reached the output"
            );
        }
    }
});
