//! Reading a results file back: `peakbench report` and `peakbench compare` take JSON
//! that may come from anywhere, so every failure is one line naming the file, and
//! nothing in a malformed file can panic.
//!
//! Files of the previous schema, `peakbench/1`, are converted on load (see [`upgrade`]),
//! so every view and `compare` see one model whatever wrote the file.

use super::model::{is_size_param, Report, SCHEMA, SCHEMA_V1};
use std::path::Path;

/// Largest results file accepted (a sustained hour of samples is a few MiB).
pub(crate) const MAX_BYTES: u64 = 256 << 20;

/// Why a results file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file cannot be read.
    #[error("{path}: cannot read: {err}")]
    Io {
        /// The file.
        path: String,
        /// The OS error.
        err: std::io::Error,
    },
    /// Not JSON, or not the shape of a report.
    #[error("{path}: not a peakbench results file: {msg}")]
    Malformed {
        /// The file.
        path: String,
        /// What is wrong, one line.
        msg: String,
    },
    /// A report of another schema.
    #[error("{path}: schema '{found}' is not supported; expected '{SCHEMA}' or '{SCHEMA_V1}'")]
    Schema {
        /// The file.
        path: String,
        /// The schema the file declares.
        found: String,
    },
}

fn one_line(s: &str) -> String {
    crate::util::sanitize::line_max(s, 300)
}

/// Parses a report from bytes; `path` only names it in errors.
pub fn parse(path: &str, bytes: &[u8]) -> Result<Report, LoadError> {
    let malformed = |msg: String| LoadError::Malformed {
        path: path.to_string(),
        msg: one_line(&msg),
    };
    let mut v: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|e| malformed(format!("invalid JSON ({e})")))?;
    let Some(obj) = v.as_object() else {
        return Err(malformed("the top level is not an object".into()));
    };
    match obj.get("schema") {
        Some(serde_json::Value::String(s)) if s == SCHEMA => {}
        Some(serde_json::Value::String(s)) if s == SCHEMA_V1 => upgrade(&mut v),
        Some(serde_json::Value::String(s)) => {
            return Err(LoadError::Schema {
                path: path.to_string(),
                found: one_line(s),
            })
        }
        _ => return Err(malformed("no \"schema\" field".into())),
    }
    serde_json::from_value(v).map_err(|e| malformed(e.to_string()))
}

/// Turns a `peakbench/1` report into `peakbench/2` in place: sizes that were text
/// (`"size": "16MiB"`, `"block": "7.81KiB"`, as `format_size` printed them) become
/// numbers of bytes, rounded where the text had rounded them; text that is no size
/// (`"bytes": "stream"`) stays. Notes written as bare text are read as
/// [`super::model::Note`]s with a kind inferred from their prefix
/// ([`super::model::Note::infer`]). Anything of the wrong shape is left for the
/// deserialiser to report.
pub(crate) fn upgrade(v: &mut serde_json::Value) {
    use serde_json::Value;
    let Some(obj) = v.as_object_mut() else {
        return;
    };
    obj.insert("schema".into(), Value::String(SCHEMA.into()));
    let Some(results) = obj.get_mut("results").and_then(Value::as_array_mut) else {
        return;
    };
    for r in results {
        let Some(params) = r.get_mut("params").and_then(Value::as_object_mut) else {
            continue;
        };
        for (k, p) in params.iter_mut() {
            if !is_size_param(k) {
                continue;
            }
            if let Some(b) = p
                .as_str()
                .and_then(|s| crate::util::units::parse_printed_size(s).ok())
            {
                *p = Value::from(b);
            }
        }
    }
}

/// Reads and parses a results file.
pub(crate) fn load(path: &Path) -> Result<Report, LoadError> {
    let name = path.display().to_string();
    let io = |err| LoadError::Io {
        path: name.clone(),
        err,
    };
    // The type is checked before opening: opening a FIFO for reading blocks until a
    // writer comes, so `report FIFO` would hang instead of answering.
    let meta = std::fs::metadata(path).map_err(io)?;
    if let Some(msg) = not_regular(meta.file_type()) {
        return Err(LoadError::Malformed { path: name, msg });
    }
    // The size the file reports is not trusted (pipes, /proc files and growing files
    // report anything): at most MAX_BYTES + 1 bytes are ever read.
    // Opened non-blocking and checked again on the open file: a path swapped for a FIFO
    // between the check and the open is refused, not waited on.
    let f = {
        use std::os::unix::fs::OpenOptionsExt;
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)
            .map_err(io)?
    };
    if let Some(msg) = not_regular(f.metadata().map_err(io)?.file_type()) {
        return Err(LoadError::Malformed { path: name, msg });
    }
    let bytes = read_capped(f, MAX_BYTES).map_err(io)?;
    if bytes.len() as u64 > MAX_BYTES {
        return Err(LoadError::Malformed {
            path: name,
            msg: format!("larger than {} MiB", MAX_BYTES >> 20),
        });
    }
    parse(&name, &bytes)
}

/// Why a file of this type is refused, or `None` for a regular file: only regular files
/// are read (a FIFO, socket or device would block or never end).
fn not_regular(kind: std::fs::FileType) -> Option<String> {
    use std::os::unix::fs::FileTypeExt;
    let what = if kind.is_file() {
        return None;
    } else if kind.is_dir() {
        "is a directory"
    } else if kind.is_fifo() {
        "is a named pipe (FIFO), not a regular file"
    } else if kind.is_socket() {
        "is a socket, not a regular file"
    } else if kind.is_char_device() || kind.is_block_device() {
        "is a device, not a file"
    } else {
        "is not a regular file"
    };
    Some(format!("{what}; give a .json file"))
}

/// Reads at most `cap` + 1 bytes: one more than allowed tells "too big" apart.
pub(crate) fn read_capped(r: impl std::io::Read, cap: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    r.take(cap.saturating_add(1)).read_to_end(&mut bytes)?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_are_one_line() {
        for (bytes, want) in [
            (&b"not json"[..], "invalid JSON"),
            (b"[1,2]", "not an object"),
            (b"{}", "no \"schema\""),
            (b"{\"schema\":\"other/2\"}", "schema 'other/2'"),
            (b"{\"schema\":\"peakbench/1\"}", "missing field"),
            (
                b"{\"schema\":\"peakbench/1\",\"results\":\"x\"}",
                "not a peakbench",
            ),
        ] {
            let e = parse("f.json", bytes).unwrap_err().to_string();
            assert!(e.starts_with("f.json: "), "{e}");
            assert!(e.contains(want), "{e}");
            assert_eq!(e.lines().count(), 1, "{e}");
        }
    }

    #[test]
    fn reads_are_capped_whatever_the_size_says() {
        let endless = std::io::repeat(b' ');
        assert_eq!(read_capped(endless, 1000).unwrap().len(), 1001);
        assert_eq!(read_capped(&b"abc"[..], 1000).unwrap(), b"abc");
    }

    #[test]
    fn peakbench1_sizes_and_notes_are_converted() {
        let mut v = serde_json::to_value(crate::report::fixtures::report()).unwrap();
        v["schema"] = "peakbench/1".into();
        let r = &mut v["results"][0];
        r["params"]["block"] = "7.81KiB".into();
        r["params"]["size"] = "16MiB".into();
        r["params"]["bytes"] = "stream".into();
        r["params"]["kernel"] = "read".into();
        r["notes"] = serde_json::json!(["CV 7.0 % > 5 %: noisy", "pages: 2 MiB"]);
        let rep = parse("v1.json", &serde_json::to_vec(&v).unwrap()).unwrap();
        assert_eq!(rep.schema, SCHEMA);
        let r = &rep.results[0];
        assert_eq!(r.param_u64("block"), Some(7997));
        assert_eq!(r.param_u64("size"), Some(16 << 20));
        assert_eq!(r.param_str("bytes"), Some("stream"));
        assert_eq!(r.param_str("kernel"), Some("read"));
        use crate::report::model::NoteKind;
        let kinds: Vec<NoteKind> = r.notes.iter().map(|n| n.kind).collect();
        assert_eq!(kinds, [NoteKind::HighCv, NoteKind::Info]);
        // The same text sizes in a peakbench/2 file are not converted: they stay text.
        v["schema"] = SCHEMA.into();
        let rep = parse("v2.json", &serde_json::to_vec(&v).unwrap()).unwrap();
        assert_eq!(rep.results[0].param_str("block"), Some("7.81KiB"));
    }

    #[test]
    fn round_trip() {
        let r = crate::report::fixtures::report();
        let bytes = serde_json::to_vec(&r).unwrap();
        assert_eq!(parse("x", &bytes).unwrap(), r);
    }
}
