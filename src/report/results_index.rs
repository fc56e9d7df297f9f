//! The index of a results folder (issue #32 G): `results/` collected one
//! `HOST-TIME.json` per run with no way to tell them apart or find the last one. After
//! a run writes its file into the default folder, `index.md` lists every run there
//! (newest first: when, host, command, how many results ran, the file) and
//! `HOST-latest.json` links to that host's newest file (a copy where the filesystem
//! has no symbolic links). Only reports are read; files that are not (and FIFOs,
//! devices, files over the results reader's caps: issue #43 item 5) are left out.

use std::path::{Path, PathBuf};

/// The index file's name in the folder.
pub(crate) const INDEX: &str = "index.md";

/// `host` as it stands in results file names: letters, digits, `-` and `.`, others
/// `_` (as `app` names the files it writes, `HOST-TIME.json`).
pub(crate) fn file_host(host: &str) -> String {
    host.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The link to a host's newest run: `HOST-latest.json`.
pub(crate) fn latest_name(file_host: &str) -> String {
    format!("{file_host}-latest.json")
}

/// One run of the folder, read from its report.
#[derive(Debug, Clone, PartialEq)]
struct Run {
    file: String,
    started: String,
    host: String,
    command: String,
    ok: usize,
    other: usize,
    finished: bool,
}

/// Reads the run of report `path`, `None` when it is not a report. Bounded as
/// `peakbench report` reads (issue #43 item 5: a FIFO named `*.json` hung the run after
/// measuring, a huge file was read whole): a regular file of at most
/// [`crate::report::load::MAX_BYTES`] through the one capped reader, and at most
/// [`crate::report::load::MAX_VALUES`] JSON values before the tree is built.
fn read_run(path: &Path) -> Option<Run> {
    use crate::report::load::{count_values, MAX_BYTES, MAX_VALUES};
    let bytes = crate::util::regular::read_capped(path, MAX_BYTES).ok()?;
    if count_values(&bytes) > MAX_VALUES {
        return None;
    }
    let v: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    let schema = v.get("schema")?.as_str()?;
    if !schema.starts_with("peakbench/") {
        return None;
    }
    let results = v.get("results")?.as_array()?;
    let ok = results.iter().filter(|r| r["status"] == "ok").count();
    Some(Run {
        file: path.file_name()?.to_string_lossy().into_owned(),
        started: v["started_at"].as_str().unwrap_or("").to_string(),
        host: v["host"]["hostname"].as_str().unwrap_or("?").to_string(),
        // `config.command` is `{"command": "cpu", …}` (the parsed options); a bare
        // string in older files (issue #45: the index showed `?` for every run).
        command: {
            let c = &v["config"]["command"];
            c["command"]
                .as_str()
                .or(c.as_str())
                .unwrap_or("?")
                .to_string()
        },
        ok,
        other: results.len() - ok,
        finished: v["finished_at"].is_string(),
    })
}

/// The runs of `dir`, newest first (links to the latest excluded).
fn runs(dir: &Path) -> Vec<Run> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut v: Vec<Run> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.extension().is_some_and(|x| x == "json")
                && !p.to_string_lossy().ends_with("-latest.json")
                && !p.is_symlink()
        })
        .filter_map(|p| read_run(&p))
        .collect();
    v.sort_by(|a, b| b.started.cmp(&a.started).then(b.file.cmp(&a.file)));
    v
}

/// The text of `index.md` for `runs`.
fn render(runs: &[Run], latest: &[(String, String)]) -> String {
    let mut s = String::from(
        "# peakbench results\n\nRuns kept in this folder, newest first (rewritten after every run; \
         `peakbench report FILE` shows one, `peakbench compare A B` compares two).\n\n",
    );
    if !latest.is_empty() {
        s.push_str("Latest per host:");
        for (link, file) in latest {
            s.push_str(&format!(" [{link}]({link}) → {file};"));
        }
        s.pop();
        s.push_str("\n\n");
    }
    s.push_str(
        "| started (UTC) | host | command | results | file |\n| --- | --- | --- | --- | --- |\n",
    );
    for r in runs {
        let mut res = format!("{} ok", r.ok);
        if r.other > 0 {
            res.push_str(&format!(", {} skipped or failed", r.other));
        }
        if !r.finished {
            res.push_str(", unfinished");
        }
        let cell = |t: &str| t.replace('|', "\\|");
        s.push_str(&format!(
            "| {} | {} | {} | {res} | [{f}]({f}) |\n",
            cell(&r.started),
            cell(&r.host),
            cell(&r.command),
            f = cell(&r.file)
        ));
    }
    s
}

/// Points `HOST-latest.json` in `dir` at `file` (a relative symbolic link, replaced
/// atomically; a copy where links fail), then rewrites `index.md`. Returns the link.
pub(crate) fn update(dir: &Path, file_host: &str, file: &Path) -> std::io::Result<PathBuf> {
    let link = dir.join(latest_name(file_host));
    let name = file.file_name().unwrap_or_default();
    let tmp = dir.join(format!(".{}.tmp", latest_name(file_host)));
    let _ = std::fs::remove_file(&tmp);
    match std::os::unix::fs::symlink(name, &tmp) {
        Ok(()) => std::fs::rename(&tmp, &link)?,
        Err(_) => {
            let _ = std::fs::remove_file(&tmp);
            std::fs::copy(file, &tmp)?;
            std::fs::rename(&tmp, &link)?;
        }
    }
    let all = runs(dir);
    let mut latest: Vec<(String, String)> = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let n = e.file_name().to_string_lossy().into_owned();
            if n.ends_with("-latest.json") {
                let target = std::fs::read_link(e.path())
                    .map(|t| t.to_string_lossy().into_owned())
                    .unwrap_or_else(|_| "a copy".into());
                latest.push((n, target));
            }
        }
    }
    latest.sort();
    let text = render(&all, &latest);
    crate::util::atomic::write_atomic(&dir.join(INDEX), |w| w.write_all(text.as_bytes()))?;
    Ok(link)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(host: &str, started: &str, statuses: &[&str], finished: bool) -> String {
        // What runs write: the parsed options, the command's name inside; the older
        // of the two runs has the bare name.
        let command = if finished {
            "\"cpu\""
        } else {
            "{\"command\": \"memory\", \"kernel\": [\"read\"]}"
        };
        let results: Vec<String> = statuses
            .iter()
            .map(|s| format!("{{\"status\": \"{s}\"}}"))
            .collect();
        format!(
            "{{\"schema\": \"peakbench/2\", \"started_at\": \"{started}\", {}\"host\": {{\"hostname\": \"{host}\"}}, \"config\": {{\"command\": {command}}}, \"results\": [{}]}}",
            if finished { "\"finished_at\": \"x\", " } else { "" },
            results.join(",")
        )
    }

    /// Issue #32 G: results/ had no index and no "latest"; after a run both are there.
    #[test]
    fn the_index_lists_every_run_and_latest_links_the_newest() {
        let d = tempfile::tempdir().unwrap();
        let a = d.path().join("h1-2026-11-26T07-00-00Z.json");
        let b = d.path().join("h1-2026-11-26T08-00-00Z.json");
        std::fs::write(
            &a,
            report("h1", "2026-11-26T07:00:00Z", &["ok", "ok"], true),
        )
        .unwrap();
        std::fs::write(
            &b,
            report("h1", "2026-11-26T08:00:00Z", &["ok", "failed"], false),
        )
        .unwrap();
        std::fs::write(d.path().join("notes.json"), "{}").unwrap();
        let link = update(d.path(), "h1", &b).unwrap();
        assert_eq!(link, d.path().join("h1-latest.json"));
        assert_eq!(std::fs::read(&link).unwrap(), std::fs::read(&b).unwrap());
        let index = std::fs::read_to_string(d.path().join(INDEX)).unwrap();
        let rows: Vec<&str> = index.lines().filter(|l| l.starts_with("| 2026")).collect();
        assert_eq!(rows.len(), 2, "{index}");
        assert!(
            rows[0].contains("08:00:00Z")
                && rows[0].contains("| memory |")
                && rows[0].contains("1 ok, 1 skipped or failed, unfinished"),
            "{index}"
        );
        assert!(
            rows[1].contains("07:00:00Z")
                && rows[1].contains("| cpu |")
                && rows[1].contains("| 2 ok |"),
            "{index}"
        );
        assert!(
            index.contains("[h1-latest.json](h1-latest.json) → h1-2026-11-26T08-00-00Z.json"),
            "{index}"
        );
        // The next run moves the link.
        update(d.path(), "h1", &a).unwrap();
        assert_eq!(std::fs::read(&link).unwrap(), std::fs::read(&a).unwrap());
    }
}
