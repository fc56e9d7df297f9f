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
/// Most JSON values one file may hold, an object counting as [`OBJECT_WEIGHT`] and an
/// array as [`ARRAY_WEIGHT`]: what bounds the memory of the model it becomes (a value
/// costs up to about 35 bytes parsed, against 2 bytes of text; an object with members
/// about 20 times that, for its map; an array its slot and a buffer of at least 4
/// slots, about 176 bytes). Real files hold far fewer: a result of the quick suite
/// counts about 150 (67 values, 9 of them objects, 4 arrays), so the cap is some
/// 25 000 results.
pub(crate) const MAX_VALUES: usize = 4_000_000;
/// What one object counts for against [`MAX_VALUES`].
pub(crate) const OBJECT_WEIGHT: usize = 8;
/// What one array counts for against [`MAX_VALUES`]. At 1, 121 000 towers of 32 nested
/// one-element arrays (an 8 MB file, 3.9 M values) took 562 MiB to read (#33 item 5).
pub(crate) const ARRAY_WEIGHT: usize = 4;
/// Most JSON values (counted as for [`MAX_VALUES`]) the files of one `compare` or
/// `fleet` may hold together: two files at the cap (the models of all the files are
/// held at once).
pub(crate) const MAX_TOTAL_VALUES: usize = 2 * MAX_VALUES;

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
///
/// In three passes, the first two allocating nothing that grows with the file: the
/// JSON is checked and its `schema` found while every other value is skipped
/// ([`schema_of`]); the values are counted against [`MAX_VALUES`]; only then is the
/// file deserialised, straight into the typed model (`peakbench/1` files through a
/// generic tree, for [`upgrade`]).
pub fn parse(path: &str, bytes: &[u8]) -> Result<Report, LoadError> {
    parse_counted(path, bytes, MAX_VALUES).map(|(r, _)| r)
}

/// [`parse`], also returning the file's count of values; a file of more than `left`
/// values (what the files before it left of [`MAX_TOTAL_VALUES`], when less than
/// [`MAX_VALUES`]) is refused before anything is built from it.
fn parse_counted(path: &str, bytes: &[u8], left: usize) -> Result<(Report, usize), LoadError> {
    let malformed = |msg: String| LoadError::Malformed {
        path: path.to_string(),
        msg: one_line(&msg),
    };
    // A UTF-8 byte order mark, as some Windows editors write, is not JSON but says
    // nothing either: skipped (issue #33 item 15).
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let schema = schema_of(bytes).map_err(malformed)?;
    let v1 = match schema.as_deref() {
        Some(SCHEMA) => false,
        Some(SCHEMA_V1) => true,
        Some(s) => {
            return Err(LoadError::Schema {
                path: path.to_string(),
                found: one_line(s),
            })
        }
        None => return Err(malformed("no \"schema\" field".into())),
    };
    let count = count_values(bytes);
    if count > MAX_VALUES {
        return Err(malformed(format!(
            "holds more than {MAX_VALUES} JSON values (an object counting {OBJECT_WEIGHT}, an array {ARRAY_WEIGHT}), the reader's cap; a results file holds about 150 per result"
        )));
    }
    if count > left {
        return Err(malformed(format!(
            "holds {count} JSON values (an object counting {OBJECT_WEIGHT}, an array {ARRAY_WEIGHT}) and the files before it {}: more than {MAX_TOTAL_VALUES} together, the cap on the files of one compare or fleet; give fewer or smaller files",
            MAX_TOTAL_VALUES - left
        )));
    }
    let report = if v1 {
        let mut v: serde_json::Value =
            serde_json::from_slice(bytes).map_err(|e| malformed(e.to_string()))?;
        upgrade(&mut v);
        serde_json::from_value(v).map_err(|e| malformed(e.to_string()))
    } else {
        serde_json::from_slice(bytes).map_err(|e| malformed(e.to_string()))
    }?;
    Ok((report, count))
}

/// The top-level `schema` of a JSON document, checking the whole document's syntax on
/// the way but keeping nothing else: `Ok(None)` when there is no `schema` string.
fn schema_of(bytes: &[u8]) -> Result<Option<String>, String> {
    use serde::de::IgnoredAny;
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    if first != Some(&b'{') {
        serde_json::from_slice::<IgnoredAny>(bytes).map_err(|e| format!("invalid JSON ({e})"))?;
        return Err("the top level is not an object".into());
    }
    serde_json::from_slice::<Head>(bytes)
        .map(|h| h.0)
        .map_err(|e| format!("invalid JSON ({e})"))
}

/// The `schema` of a top-level object, other members skipped unparsed into values.
struct Head(Option<String>);

impl<'de> serde::Deserialize<'de> for Head {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Head, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Head;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> Result<Head, A::Error> {
                let mut schema = None;
                while let Some(k) = m.next_key::<std::borrow::Cow<'de, str>>()? {
                    if k == "schema" {
                        schema = m.next_value::<Text>()?.0;
                    } else {
                        m.next_value::<serde::de::IgnoredAny>()?;
                    }
                }
                Ok(Head(schema))
            }
        }
        d.deserialize_map(V)
    }
}

/// A string value, or `None` for any other value (skipped).
struct Text(Option<String>);

impl<'de> serde::Deserialize<'de> for Text {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Text, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Text;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any value")
            }
            fn visit_str<E>(self, s: &str) -> Result<Text, E> {
                Ok(Text(Some(s.to_string())))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Text, E> {
                Ok(Text(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Text, E> {
                Ok(Text(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<Text, E> {
                Ok(Text(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Text, E> {
                Ok(Text(None))
            }
            fn visit_unit<E>(self) -> Result<Text, E> {
                Ok(Text(None))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut s: A) -> Result<Text, A::Error> {
                while s.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(Text(None))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> Result<Text, A::Error> {
                while m
                    .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
                    .is_some()
                {}
                Ok(Text(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// Counts the values of (well-formed) JSON text without parsing it: [`ARRAY_WEIGHT`]
/// per array, [`OBJECT_WEIGHT`] per object, one per comma and one for the first value;
/// strings are skipped. An upper bound (an empty `[]` counts as an array and a value),
/// which is all the cap needs.
pub(crate) fn count_values(bytes: &[u8]) -> usize {
    let (mut n, mut in_str, mut escaped) = (1usize, false, false);
    for &b in bytes {
        if in_str {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_str = false;
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b',' => n += 1,
            b'[' => n += ARRAY_WEIGHT,
            b'{' => n += OBJECT_WEIGHT,
            _ => {}
        }
    }
    n
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
    load_counted(path, MAX_VALUES).map(|(r, _)| r)
}

/// Reads and parses the results files of one `compare` or `fleet`, one at a time,
/// refusing (counted before its model is built) the file that brings their values
/// together over [`MAX_TOTAL_VALUES`]: the models of all of them are held at once.
pub(crate) fn load_all(paths: &[std::path::PathBuf]) -> Result<Vec<Report>, LoadError> {
    let mut left = MAX_TOTAL_VALUES;
    let mut out = Vec::with_capacity(paths.len());
    for p in paths {
        let (r, n) = load_counted(p, left.min(MAX_VALUES))?;
        left -= n;
        out.push(r);
    }
    Ok(out)
}

/// [`load`], also returning the file's count of values (at most `left`, see
/// [`parse_counted`]).
fn load_counted(path: &Path, left: usize) -> Result<(Report, usize), LoadError> {
    use crate::util::regular::ReadError;
    let name = path.display().to_string();
    // The one capped reader (issue #43 item 5): opened non-blocking and checked on the
    // open file (a FIFO would block, a device never end), refused by its size before
    // anything is read, and at most MAX_BYTES + 1 bytes read whatever size it claims.
    let bytes = crate::util::regular::read_capped(path, MAX_BYTES).map_err(|e| match e {
        ReadError::Io(err) => LoadError::Io {
            path: name.clone(),
            err,
        },
        ReadError::NotRegular(what) => LoadError::Malformed {
            path: name.clone(),
            msg: format!("{what}; give a .json file"),
        },
        too_big @ ReadError::TooBig(_) => LoadError::Malformed {
            path: name.clone(),
            msg: too_big.to_string(),
        },
    })?;
    parse_counted(&name, &bytes, left)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue #33 item 15: a results file saved with a UTF-8 BOM loads.
    #[test]
    fn issue_33_a_byte_order_mark_is_skipped() {
        let json = serde_json::to_vec(&crate::report::fixtures::report()).unwrap();
        let mut with_bom = b"\xef\xbb\xbf".to_vec();
        with_bom.extend_from_slice(&json);
        let a = parse("f.json", &json).unwrap();
        let b = parse("bom.json", &with_bom).unwrap();
        assert_eq!(
            serde_json::to_value(&a).unwrap(),
            serde_json::to_value(&b).unwrap()
        );
        // Only one mark, only at the start.
        let mut two = b"\xef\xbb\xbf".to_vec();
        two.extend_from_slice(&with_bom);
        assert!(parse("two.json", &two).is_err());
    }

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

    /// Issue #27 item 3: the schema is found without building the document, values
    /// are counted against the cap, and a valid file still reads.
    #[test]
    fn schema_and_size_are_checked_before_the_model_is_built() {
        assert_eq!(
            schema_of(br#"{"a":[1,{"schema":"x"}],"schema":"s","b":{}}"#).unwrap(),
            Some("s".into())
        );
        assert_eq!(schema_of(br#"{"schema":[1,2]}"#).unwrap(), None);
        assert_eq!(count_values(b"[0,0,0]"), 3 + ARRAY_WEIGHT);
        assert_eq!(
            count_values(br#"{"a":"x,[{","b":[1,2]}"#),
            3 + ARRAY_WEIGHT + OBJECT_WEIGHT
        );
        assert_eq!(count_values(br#"["\",",1]"#), 2 + ARRAY_WEIGHT);
        let mut big = br#"{"schema":"peakbench/2","config":["#.to_vec();
        for _ in 0..MAX_VALUES {
            big.extend_from_slice(b"0,");
        }
        big.extend_from_slice(b"0]}");
        let e = parse("big.json", &big).unwrap_err().to_string();
        assert!(e.contains("more than 4000000 JSON values"), "{e}");
        let objects = format!(
            r#"{{"schema":"peakbench/2","config":[{}{{}}]}}"#,
            "{},".repeat(MAX_VALUES / OBJECT_WEIGHT)
        );
        let e = parse("o.json", objects.as_bytes()).unwrap_err().to_string();
        assert!(e.contains("JSON values"), "{e}");
        let none = format!("[{}{{}}]", "{},".repeat(1000));
        let e = parse("n.json", none.as_bytes()).unwrap_err().to_string();
        assert!(e.contains("not an object"), "{e}");
        let e = parse("n.json", format!("{{\"x\":{none}}}").as_bytes())
            .unwrap_err()
            .to_string();
        assert!(e.contains("no \"schema\""), "{e}");
    }

    /// Issue #43 item 5: a results file over the cap is refused by its size (a sparse
    /// file, nothing read) and a FIFO at once, each in one line naming the file.
    #[test]
    fn oversized_files_and_fifos_are_refused_unread() {
        let d = tempfile::tempdir().unwrap();
        let huge = d.path().join("huge.json");
        std::fs::File::create(&huge)
            .unwrap()
            .set_len(MAX_BYTES + 1)
            .unwrap();
        let e = load(&huge).unwrap_err().to_string();
        assert!(
            e.ends_with("huge.json: not a peakbench results file: larger than 256 MiB"),
            "{e}"
        );
        let fifo = d.path().join("fifo.json");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid C string.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = load(&fifo).unwrap_err().to_string();
        assert!(
            e.ends_with("is a named pipe (FIFO), not a regular file; give a .json file"),
            "{e}"
        );
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

    /// The fixture files `report::samples` writes (`tests/fixtures/report_*.json`) load
    /// back as the reports it builds.
    #[test]
    fn fixtures_on_disk_match_the_model() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let bless = std::env::var_os("PEAKBENCH_BLESS").is_some();
        for (name, rep) in crate::report::samples::files() {
            let path = dir.join(name);
            let mut text = serde_json::to_string_pretty(&rep).unwrap();
            text.push('\n');
            if bless {
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::write(&path, &text).unwrap();
                continue;
            }
            let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
            // Written in the current schema (a peakbench/1 file would parse equal too).
            assert!(
                on_disk.contains(&format!("\"schema\": \"{SCHEMA}\"")),
                "{name} is not {SCHEMA}; rewrite with PEAKBENCH_BLESS=1 cargo test --release fixtures_on"
            );
            let parsed = parse(name, on_disk.as_bytes());
            assert!(
                parsed.as_ref().is_ok_and(|p| *p == rep),
                "{name} is out of date ({:?}); rewrite with PEAKBENCH_BLESS=1 cargo test --release fixtures_on",
                parsed.err()
            );
        }
    }
}
