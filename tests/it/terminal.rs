//! What a new user sees on the terminal (issue 15): the results table fits the width
//! (`--width`, else `COLUMNS`), notes shared by several rows and the CV warnings are
//! printed once, and an interrupted run says what it kept. Nothing here checks speed.

use crate::common;

use assert_cmd::Command;

fn pb() -> Command {
    common::pb()
}

/// A quick suite recorded on the 2-vCPU AMD EPYC (Zen 3) guest: 50 results, notes,
/// skipped rows and CV warnings.
const QUICK: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/quick_zen3_a.json"
);

fn report(args: &[&str], env: Option<(&str, &str)>) -> String {
    let mut c = pb();
    c.args(["report", QUICK]).args(args);
    if let Some((k, v)) = env {
        c.env(k, v);
    }
    let out = c.output().unwrap();
    common::assert_success(&out, "out");
    String::from_utf8(out.stdout).unwrap()
}

fn widest(s: &str) -> usize {
    s.lines().map(|l| l.chars().count()).max().unwrap_or(0)
}

#[test]
fn the_quick_suite_table_fits_80_120_and_200_columns() {
    for w in [80, 120, 200] {
        let s = report(&["--width", &w.to_string()], None);
        assert!(
            widest(&s) <= w,
            "{w}: a line of {} columns:\n{s}",
            widest(&s)
        );
        // Every result has its row and its mean, whole on one line.
        assert!(s.contains("\n 50 │"), "{w}:\n{s}");
        for mean in ["49.48 GOP/s", "61.15 kIO/s", "631.4 MB/s"] {
            assert!(s.contains(mean), "{w}: {mean} missing:\n{s}");
        }
        // Issue #45 item 3: 8 of its 50 rows have an efficiency and none is marked, 9
        // have a p99: at 80 columns the p99s stay and the efficiency makes way.
        if w == 80 {
            assert!(
                s.contains("p99 / loss") && !s.contains("efficiency"),
                "{w}:\n{s}"
            );
        } else {
            assert!(s.contains("efficiency"), "{w}");
        }
    }
    // COLUMNS (what shells and tmux set) works like --width; --width wins.
    let s = report(&[], Some(("COLUMNS", "100")));
    assert!(widest(&s) <= 100 && widest(&s) > 90, "{}", widest(&s));
    let s = report(&["--width", "80"], Some(("COLUMNS", "200")));
    assert!(widest(&s) <= 80);
}

#[test]
fn notes_and_warnings_are_printed_once() {
    let s = report(&["--width", "120"], None);
    // The engine note is on all 8 disk configurations: one line (wrapped), not 8.
    assert_eq!(s.matches("registered buffers").count(), 1, "{s}");
    // 24 CV warnings: one line naming their rows.
    assert_eq!(s.matches("CV above 5 %").count(), 1, "{s}");
    assert_eq!(s.matches("consider --repeat").count(), 1, "{s}");
    // What all disk rows share is said once.
    assert_eq!(s.matches("file_size=256MiB").count(), 1, "{s}");
    // Each skip reason once, under the table.
    assert_eq!(
        s.matches("no fp16 kernel runs on this CPU").count(),
        1,
        "{s}"
    );
    // Notes that differ only in their numbers, and agree, are one line: the clock
    // readings of the 12 CPU rows. Issue #32 F: the latency percentiles of the 8 disk
    // configurations (26 µs to 19 ms) disagree: one line each, and each p99 in the
    // table.
    assert_eq!(s.matches("clock readings").count(), 1, "{s}");
    assert_eq!(s.matches("clat p50").count(), 8, "{s}");
    for p99 in ["64.95 ms", "32.70 ms", "3.895 ms", "81.60 µs", "121.0 µs"] {
        assert!(s.contains(&format!("│ {p99}")), "{p99}:\n{s}");
    }
    let notes = s.lines().filter(|l| l.starts_with("note")).count();
    assert!(notes < 40, "{notes} note lines:\n{s}");
}

#[test]
fn bad_width_is_refused() {
    let out = pb()
        .args(["report", QUICK, "--width", "ten"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--width: 'ten' is not a width"), "{err}");
}

/// Item 3: Ctrl-C in the middle of a run says what finished and where the partial JSON
/// and HTML are; both are whole, and `report` shows the run as unfinished.
#[test]
fn interrupted_run_says_what_it_kept() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("r.html");
    let threads = vec!["1"; 3000].join(",");
    let child = common::pb_std()
        .args(["null", "--quiet", "--format", "json", "--min-time", "1ms"])
        .args(["--repeat", "1", "--threads", &threads, "--output"])
        .arg(dir.path())
        .arg("--html")
        .arg(&html)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until some cases are saved (the HTML is written after each case).
    let t = std::time::Instant::now();
    while !html.exists() {
        assert!(t.elapsed().as_secs() < 60, "no case finished");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    // SAFETY: signalling our own child process.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("peakbench: interrupted by SIGINT"), "{err}");
    assert!(err.contains("peakbench: finished "), "{err}");
    assert!(err.contains(" of 3000 cases ("), "{err}");
    assert!(err.contains("was cut short and is not kept"), "{err}");
    let json = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "json"))
        .unwrap();
    assert!(
        err.contains(&format!("{} and {}", json.display(), html.display())),
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert!(v["finished_at"].is_null());
    let kept = v["results"].as_array().unwrap().len();
    assert!(kept > 0 && kept < 3000, "{kept}");
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("(unfinished)") && page.trim_end().ends_with("</html>"));
    // `report` on the partial file says so on the terminal.
    let out = pb().arg("report").arg(&json).output().unwrap();
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(s.contains("UNFINISHED: the run started at"), "{s}");
    assert!(s.contains(&format!("{kept} results were kept")), "{s}");
}

/// Item 6: two quick suites of the same machine, recorded minutes apart while other
/// builds loaded it (the second more): `compare` calls a change significant only beyond
/// the run-to-run noise, says the whole memory and network moved together (the
/// machine's state, not the code), and finds no setting that differs.
#[test]
fn compare_of_two_noisy_runs_of_one_machine_does_not_cry_wolf() {
    let b = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/quick_zen3_b.json"
    );
    let out = pb()
        .args(["compare", QUICK, b, "--format", "json"])
        .output()
        .unwrap();
    let v: serde_json::Value = common::success_json(&out, "compare");
    let changes = v["changes"].as_array().unwrap();
    // 46 cases of the same kernels, and the fp32 rows on 1 and 2 threads, for which the
    // two suites chose different kernels (issue #26), matched by precision and threads.
    assert_eq!(changes.len(), 48);
    let mut welch_only = 0;
    let mut significant = 0;
    for c in changes {
        let (lo, hi) = (
            c["ci95"][0].as_f64().unwrap(),
            c["ci95"][1].as_f64().unwrap(),
        );
        if lo > 0.0 || hi < 0.0 {
            welch_only += 1;
        }
        let rel = c["rel"].as_f64().unwrap().abs();
        let noise = c["noise"].as_f64().unwrap();
        // The noise is at least the resource's floor and three CVs of either run.
        let cv = |s: &serde_json::Value| s["sd"].as_f64().unwrap() / s["mean"].as_f64().unwrap();
        assert!(
            noise >= 0.05 && noise + 1e-12 >= 3.0 * cv(&c["a"]).max(cv(&c["b"])),
            "{c}"
        );
        if c["significant"] == true {
            significant += 1;
            assert_eq!(c["separated"], true, "{c}");
            assert!(rel > noise, "{c}");
        } else if lo > 0.0 || hi < 0.0 {
            assert_eq!(c["verdict"], "within run-to-run noise", "{c}");
        }
        // Nothing inside its noise is ever called a change.
        if rel <= noise {
            assert_ne!(c["significant"], true, "{c}");
        }
    }
    assert!(significant < welch_only, "{significant} vs {welch_only}");
    let shifts = v["shifts"].to_string();
    assert!(
        shifts.contains("7 of 7 memory cases moved the same way"),
        "{shifts}"
    );
    // No setting differs but the kernels of those fp32 rows, which it names.
    let settings: Vec<&str> = v["settings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap())
        .collect();
    assert_eq!(settings.len(), 2, "{settings:?}");
    assert!(
        settings.iter().all(|x| x.contains(
            "ran kernel muladd_f32_avx (baseline fma_f32_avx2): the quick suites chose different kernels"
        )),
        "{settings:?}"
    );
    // The terminal view fits and says it.
    let out = pb()
        .args(["compare", QUICK, b, "--width", "100"])
        .output()
        .unwrap();
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(widest(&s) <= 100, "{s}");
    let out = pb()
        .args(["compare", QUICK, b, "--width", "160"])
        .output()
        .unwrap();
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(widest(&s) <= 160, "{s}");
    assert!(s.contains("│ within run-to-run noise"), "{s}");
    assert!(
        s.contains("the machine's state differed between the runs"),
        "{s}"
    );
}

/// Issue #32 C: a table piped to a file was 323 columns wide; without `COLUMNS` it
/// is now laid out for 120, and `COLUMNS` still sets the width.
#[test]
fn a_piped_table_has_a_readable_width() {
    let s = report(&[], None);
    assert!(
        widest(&s) <= 120 && widest(&s) > 100,
        "{}:\n{s}",
        widest(&s)
    );
    let s = report(&[], Some(("COLUMNS", "90")));
    assert!(widest(&s) <= 90, "{}", widest(&s));
}

/// Issue #32 G: every table of the tool has the results table's frame (a rule under
/// the header, `│` between columns, no box around): `sysinfo`, `gpu --list`,
/// `reference` and `fleet` were boxed.
#[test]
fn every_table_has_the_results_tables_frame() {
    let b = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/quick_zen3_b.json"
    );
    let cases: [&[&str]; 6] = [
        &["sysinfo"],
        &["reference"],
        &["gpu", "--list"],
        &["fleet", QUICK, b],
        &["report", QUICK],
        &["compare", QUICK, b],
    ];
    for args in cases {
        let out = pb().args(args).args(["--width", "120"]).output().unwrap();
        common::assert_success(&out, &format!("{args:?}"));
        let s = String::from_utf8(out.stdout).unwrap();
        for boxed in ['┌', '┐', '└', '┘', '├', '┤', '┬', '┴', '╞', '═', '╭'] {
            assert!(
                !s.contains(boxed),
                "{args:?}: a boxed table ({boxed}):\n{s}"
            );
        }
        if s.contains('│') {
            assert!(s.contains("─┼─"), "{args:?}: no header rule:\n{s}");
            assert!(
                s.lines().all(|l| !l.starts_with('│') && !l.ends_with(' ')),
                "{args:?}: an outer border or trailing spaces:\n{s}"
            );
        }
    }
}

// ---- Regressions of the hardening rounds and the loose ends (#16, #26, #27, #33). ----

/// #26 item 3: `sysinfo` printed a table 476 columns wide at a 120-column terminal. Every
/// subcommand that prints a table fits 120 columns, whether the width comes from
/// `--width` or from `COLUMNS`.
#[test]
fn every_table_printing_subcommand_fits_120_columns() {
    let b = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/quick_zen3_b.json"
    );
    let cases: [&[&str]; 5] = [
        &["sysinfo"],
        &["reference"],
        &["gpu", "--list"],
        &["report", QUICK],
        &["compare", QUICK, b],
    ];
    for args in cases {
        for how in ["--width", "COLUMNS"] {
            let mut c = common::pb_bounded();
            c.env_remove("COLUMNS").args(args);
            if how == "--width" {
                c.args(["--width", "120"]);
            } else {
                c.env("COLUMNS", "120");
            }
            let out = c.output().unwrap();
            common::assert_success(&out, &format!("{args:?}"));
            let s = String::from_utf8(out.stdout).unwrap();
            assert!(
                widest(&s) <= 120,
                "{args:?} ({how}): a line of {} columns:\n{s}",
                widest(&s)
            );
        }
    }
}

/// Issue #45 item 4: a disturbed row without a peak (memory, disk) carried no `~` and
/// looked clean. Its efficiency cell is `~` now.
#[test]
fn a_disturbed_memory_row_is_marked() {
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(QUICK).unwrap()).unwrap();
    let results = v["results"].as_array_mut().unwrap();
    let i = results
        .iter()
        .position(|r| r["resource"] == "memory" && r["status"] == "ok" && r["efficiency"].is_null())
        .expect("a memory row without a peak");
    results[i]["disturbed"] = serde_json::Value::Bool(true);
    let dir = common::scratch_dir();
    let f = common::write_json(dir.path(), "q.json", &v);
    for w in ["80", "120"] {
        let out = pb()
            .args(["report"])
            .arg(&f)
            .args(["--width", w])
            .output()
            .unwrap();
        common::assert_success(&out, "report");
        let s = String::from_utf8(out.stdout).unwrap();
        let row = format!(" {} ", i + 1);
        let line = s
            .lines()
            .find(|l| l.starts_with(&row) && l.contains("│ memory"))
            .unwrap_or_else(|| panic!("row {} at {w}:\n{s}", i + 1));
        assert!(line.split('│').any(|c| c.trim() == "~"), "{w}: {line}");
    }
}

/// The words of a text view: split at white space and the table frame, without the
/// `:` and `;` a table shown as records puts after its headers and values.
fn tokens(s: &str) -> std::collections::BTreeSet<String> {
    s.split(|c: char| c.is_whitespace() || matches!(c, '│' | '─' | '┼'))
        .map(|w| w.trim_end_matches([':', ';']))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// Issue #45 item 3: `text` at `w` columns fits and splits no word of `wide` (the same
/// view at 400 columns, where nothing wraps).
fn no_word_split(what: &str, w: usize, wide: &str, text: &str) {
    assert!(
        widest(text) <= w,
        "{what} at {w}: a line of {}:\n{text}",
        widest(text)
    );
    let have = tokens(text);
    // A table shown as records leaves out a column empty in its rows: its header.
    let headers = tokens(wide.lines().find(|l| l.contains('│')).unwrap_or(""));
    let split: Vec<String> = tokens(wide)
        .into_iter()
        .filter(|t| !have.contains(t) && !headers.contains(t))
        .collect();
    assert!(split.is_empty(), "{what} at {w}: split {split:?}:\n{text}");
}

/// `peakbench ARGS --width W` (or with `COLUMNS=W` when `columns`), its stdout.
fn at_width(args: &[&std::ffi::OsStr], w: usize, columns: bool) -> String {
    let mut c = pb();
    c.args(args);
    if columns {
        c.env("COLUMNS", w.to_string());
    } else {
        c.arg("--width").arg(w.to_string());
    }
    let out = c.output().unwrap();
    // 3: `check` with an inconclusive case (#44 item 5), which still prints its table.
    assert!(
        matches!(out.status.code(), Some(0 | 1 | 3)),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `args` at 400, then at 80 and 120 columns (by --width and by COLUMNS): no word split.
fn words_whole(what: &str, args: &[&std::ffi::OsStr]) {
    let wide = at_width(args, 400, false);
    for w in [80, 120] {
        no_word_split(what, w, &wide, &at_width(args, w, false));
        no_word_split(what, w, &wide, &at_width(args, w, true));
    }
}

/// Issue #45 item 3: `check`, `history show`, `gpu --list` and the plan split words at
/// 80 columns (`baselin`/`e`, `toleran`/`ce`, `precisio`/`n=fp64`, `llvmpip`/`e`), and
/// `history show` parted values from their units.
#[test]
fn check_history_gpu_list_and_the_plan_keep_words_whole() {
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/report_compare_a.json");
    let dir = common::scratch_dir();
    let b = dir.path().join("b.toml");
    let o = pb()
        .args(["baseline", "--from"])
        .arg(&fixture)
        .arg("-o")
        .arg(&b)
        .output()
        .unwrap();
    common::assert_success(&o, "baseline");
    words_whole(
        "check",
        &[
            "check".as_ref(),
            "--baseline".as_ref(),
            b.as_os_str(),
            fixture.as_os_str(),
        ],
    );
    // history show: a history of two imported runs.
    let db = dir.path().join("h.db");
    let o = pb()
        .args(["history", "import"])
        .arg(&fixture)
        .arg(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/report_compare_b.json"),
        )
        .arg("--history")
        .arg(&db)
        .output()
        .unwrap();
    common::assert_success(&o, "import");
    let args: [&std::ffi::OsStr; 4] = [
        "history".as_ref(),
        "show".as_ref(),
        "--history".as_ref(),
        db.as_os_str(),
    ];
    words_whole("history show", &args);
    let t = at_width(&args, 80, false);
    assert!(t.contains(" GFLOP/s"), "values carry their unit:\n{t}");
    assert!(!t.contains("│ FLOP/s"), "no unit column:\n{t}");
    // The plan (--dry-run) of a CPU run.
    words_whole("plan", &["cpu".as_ref(), "--dry-run".as_ref()]);
    words_whole("quick plan", &["--dry-run".as_ref()]);
    // gpu --list, where a Vulkan device exists.
    let list: [&std::ffi::OsStr; 2] = ["gpu".as_ref(), "--list".as_ref()];
    let wide = at_width(&list, 400, false);
    if wide.contains("no GPU") || wide.contains("no adapter") || wide.trim().is_empty() {
        eprintln!("gpu --list: no device here, skipped");
    } else {
        words_whole("gpu --list", &list);
    }
}

/// Issue #45 item 6: output stays UTF-8 under `LC_ALL=C`, on purpose (docs/output.md):
/// the same bytes in every locale.
#[test]
fn the_output_is_the_same_bytes_in_every_locale() {
    let run = |env: &[(&str, &str)]| {
        let mut c = pb();
        c.args(["report", QUICK, "--width", "100"]);
        c.env_remove("LC_ALL");
        for (k, v) in env {
            c.env(k, v);
        }
        let out = c.output().unwrap();
        common::assert_success(&out, "report");
        out.stdout
    };
    let c = run(&[("LC_ALL", "C")]);
    assert!(String::from_utf8(c.clone()).unwrap().contains('│'));
    assert_eq!(c, run(&[("LANG", "C.UTF-8")]));
    assert_eq!(c, run(&[("LC_ALL", "POSIX")]));
}

/// The rows of a results table: for each row number, its lines (from its first line,
/// ` N │ …`, to the next row's or the table's end).
fn table_rows(s: &str) -> Vec<Vec<&str>> {
    let table: Vec<&str> = s
        .lines()
        .skip_while(|l| !l.starts_with(" # "))
        .take_while(|l| l.contains('│') || l.contains('┼'))
        .collect();
    let starts_row = |l: &str| {
        l.trim_start()
            .split(' ')
            .next()
            .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
    };
    let mut rows: Vec<Vec<&str>> = Vec::new();
    for l in table {
        if starts_row(l) {
            rows.push(vec![l]);
        } else if let Some(r) = rows.last_mut() {
            r.push(l);
        }
    }
    rows
}

/// Issue #45 item 3: at 80 and 120 columns a row of the quick suite takes at most two
/// lines (its params on a line of their own under it when the grid would wrap it to
/// more), no workload or param is split, the p99s stay, and the clock notes of the 12
/// CPU rows are one line with their range. Wide, each row is one line as before.
#[test]
fn quick_suite_rows_take_at_most_two_lines() {
    let wide = report(&["--width", "400"], None);
    let header: Vec<&str> = wide
        .lines()
        .find(|l| l.starts_with(" # "))
        .unwrap()
        .split('│')
        .map(str::trim)
        .collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (workload, params) = (col("workload"), col("params"));
    let rows = table_rows(&wide);
    assert_eq!(rows.len(), 50, "{wide}");
    assert!(rows.iter().all(|r| r.len() == 1), "{wide}");
    // The words of the workload and params cells, whole, as the wide table has them.
    let words: std::collections::BTreeSet<&str> = rows
        .iter()
        .flat_map(|r| {
            let cells: Vec<&str> = r[0].split('│').collect();
            [cells[workload], cells[params]]
        })
        .flat_map(str::split_whitespace)
        .filter(|w| *w != "-")
        .collect();
    assert!(words.contains("muladd_i16_generic") && words.contains("block=128MiB"));
    for w in [80, 120] {
        let s = report(&["--width", &w.to_string()], None);
        assert!(widest(&s) <= w, "{w}:\n{s}");
        let rows = table_rows(&s);
        assert_eq!(rows.len(), 50, "{w}:\n{s}");
        for (i, r) in rows.iter().enumerate() {
            assert!(
                r.len() <= 2,
                "{w}: row {} takes {} lines:\n{}",
                i + 1,
                r.len(),
                r.join("\n")
            );
        }
        let have: std::collections::BTreeSet<&str> =
            s.split(|c: char| c.is_whitespace() || c == '│').collect();
        let split: Vec<&&str> = words.iter().filter(|x| !have.contains(**x)).collect();
        assert!(split.is_empty(), "{w}: split {split:?}:\n{s}");
        assert!(
            s.contains("│   params"),
            "{w}: the params line is named:\n{s}"
        );
        for p99 in ["64.95 ms", "81.60 µs", "0.00 % lost"] {
            assert!(s.contains(p99), "{w}: {p99}:\n{s}");
        }
        assert_eq!(s.matches("clock readings").count(), 1, "{w}:\n{s}");
        assert!(s.contains("3.14–3.22"), "{w}:\n{s}");
    }
}
