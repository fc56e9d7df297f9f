//! Condensing the terminal's notes: notes that differ only in their numbers (the
//! clock readings of twelve CPU rows, the latency percentiles of eight disk rows) are
//! printed as one line naming all their rows, each number that differs shown as the
//! range it spans (`3.14–3.22 GHz`). Only the terminal is condensed: the JSON keeps
//! every row's own note.
//!
//! A note is split into literal text and numbers. A number is a run of digits (with
//! at most one decimal point) that is not part of a word (`p99.9`, `x86_64`, `128MiB`
//! stay literal). A number followed by a time unit (`ns`, `µs`, `us`, `ms`, `s`) is one
//! time value, so `935 µs` and `1.2 ms` compare as times and the unit may differ
//! between the notes merged. Numbers listed with `, ` between them are one list, so
//! notes with lists of different lengths still merge. Two notes merge when their
//! literal text, with the numbers taken out, is the same.

/// What stands where a number was: one kind of value, so that `3 GHz` never merges
/// with `3 ms`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    /// A plain number; its unit, if any, is in the literal text after it.
    Plain,
    /// A number and its time unit, held in seconds.
    Time,
}

/// A piece of a note's skeleton.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Part {
    Lit(String),
    Slot(Slot),
}

/// One number as written (`26.56 µs`) and its value (in seconds for a time).
#[derive(Clone, Debug)]
struct Value {
    text: String,
    value: f64,
}

/// A note taken apart: its skeleton and, per slot, the values (several for a list).
#[derive(Debug)]
struct Parsed {
    parts: Vec<Part>,
    slots: Vec<Vec<Value>>,
}

const TIME_UNITS: [(&str, f64); 5] = [
    ("ns", 1e-9),
    ("µs", 1e-6),
    ("us", 1e-6),
    ("ms", 1e-3),
    ("s", 1.0),
];

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The number at the start of `rest`, if it is one: its length in bytes, its value and
/// whether a time unit follows (then the length covers ` unit` and the value is in
/// seconds).
fn number_at(rest: &str) -> Option<(usize, f64, Slot)> {
    let len = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    let digits = rest[..len].trim_end_matches('.');
    let len = digits.len();
    if digits.is_empty() || digits.matches('.').count() > 1 {
        return None;
    }
    let value: f64 = digits.parse().ok()?;
    let after = &rest[len..];
    let version = after
        .strip_prefix('.')
        .is_some_and(|t| t.starts_with(|c: char| c.is_ascii_digit()));
    if after.starts_with(is_word) || version {
        // `128MiB`, `15.0.6`: part of a word or a version, not a figure.
        return None;
    }
    if let Some(unit_rest) = after.strip_prefix(' ') {
        for (unit, scale) in TIME_UNITS {
            if let Some(tail) = unit_rest.strip_prefix(unit) {
                if !tail.starts_with(is_word) {
                    return Some((len + 1 + unit.len(), value * scale, Slot::Time));
                }
            }
        }
    }
    Some((len, value, Slot::Plain))
}

/// Splits a note into its skeleton and its numbers.
fn parse(text: &str) -> Parsed {
    let mut parts: Vec<Part> = Vec::new();
    let mut slots: Vec<Vec<Value>> = Vec::new();
    let mut lit = String::new();
    let mut prev: Option<char> = None;
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        let c = rest.chars().next().unwrap_or(' ');
        let starts_number = c.is_ascii_digit() && !prev.is_some_and(is_word) && prev != Some('.');
        if let Some((len, value, kind)) = starts_number.then(|| number_at(rest)).flatten() {
            let v = Value {
                text: rest[..len].to_string(),
                value,
            };
            // `a, b, c`: the previous slot of the same kind and only `, ` since.
            let list = lit == ", " && parts.last() == Some(&Part::Slot(kind));
            if list {
                lit.clear();
                if let Some(s) = slots.last_mut() {
                    s.push(v);
                }
            } else {
                if !lit.is_empty() {
                    parts.push(Part::Lit(std::mem::take(&mut lit)));
                }
                parts.push(Part::Slot(kind));
                slots.push(vec![v]);
            }
            prev = rest[..len].chars().last();
            i += len;
            continue;
        }
        lit.push(c);
        prev = Some(c);
        i += c.len_utf8();
    }
    if !lit.is_empty() {
        parts.push(Part::Lit(lit));
    }
    Parsed { parts, slots }
}

/// `a–b` over every value of one slot in every note, or the one value when they agree.
fn range(values: &[&Value]) -> String {
    let lo = values.iter().min_by(|a, b| a.value.total_cmp(&b.value));
    let hi = values.iter().max_by(|a, b| a.value.total_cmp(&b.value));
    match (lo, hi) {
        (Some(lo), Some(hi)) if lo.text == hi.text => lo.text.clone(),
        (Some(lo), Some(hi)) => format!("{}–{}", lo.text, hi.text),
        _ => String::new(),
    }
}

/// One note built from several of the same skeleton.
fn merge(notes: &[Parsed]) -> String {
    let mut out = String::new();
    let mut slot = 0;
    for part in &notes[0].parts {
        match part {
            Part::Lit(s) => out.push_str(s),
            Part::Slot(_) => {
                let values: Vec<&Value> = notes.iter().flat_map(|n| &n.slots[slot]).collect();
                out.push_str(&range(&values));
                slot += 1;
            }
        }
    }
    out
}

/// A condensed note: the rows it is about (ascending) and its text.
#[derive(Debug, PartialEq)]
pub(crate) struct Condensed {
    /// 1-based row numbers, ascending, each once.
    pub(crate) rows: Vec<usize>,
    /// The note, with a range where the merged notes' numbers differ.
    pub(crate) text: String,
    /// Whether it stands for more than one distinct note.
    pub(crate) merged: bool,
}

/// Merges the notes (each distinct text with its rows, in order of first appearance)
/// that differ only in their numbers; the result keeps the order of first appearance.
pub(crate) fn condense(notes: &[(String, Vec<usize>)]) -> Vec<Condensed> {
    condense_within(notes, f64::INFINITY)
}

/// [`condense`], but notes of one skeleton merge only when, slot by slot, their numbers
/// agree: the largest at most `(1 + tol)` times the smallest. Notes whose numbers
/// differ more stay one line each (with their rows), so a range never hides what one
/// row measured (`p99 121 µs–64.95 ms` tells no row's tail).
pub(crate) fn condense_within(notes: &[(String, Vec<usize>)], tol: f64) -> Vec<Condensed> {
    /// Notes of one skeleton: each text with its rows, all of them parsed.
    struct Group {
        members: Vec<(String, Vec<usize>)>,
        parsed: Vec<Parsed>,
    }
    let mut groups: Vec<Group> = Vec::new();
    for (text, rows) in notes {
        let p = parse(text);
        match groups.iter_mut().find(|g| g.parsed[0].parts == p.parts) {
            Some(g) => {
                g.parsed.push(p);
                g.members.push((text.clone(), rows.clone()));
            }
            None => groups.push(Group {
                members: vec![(text.clone(), rows.clone())],
                parsed: vec![p],
            }),
        }
    }
    let mut out = Vec::new();
    for g in groups {
        let merged = g.parsed.len() > 1;
        if merged && !agree(&g.parsed, tol) {
            out.extend(g.members.into_iter().map(|(text, rows)| Condensed {
                rows,
                text,
                merged: false,
            }));
            continue;
        }
        let mut rows: Vec<usize> = g.members.iter().flat_map(|(_, r)| r.clone()).collect();
        rows.sort_unstable();
        rows.dedup();
        out.push(Condensed {
            rows,
            text: if merged {
                merge(&g.parsed)
            } else {
                g.members[0].0.clone()
            },
            merged,
        });
    }
    out
}

/// Whether every slot's numbers, over all `notes`, lie within a factor `1 + tol`.
fn agree(notes: &[Parsed], tol: f64) -> bool {
    if tol.is_infinite() {
        return true;
    }
    let slots = notes[0].slots.len();
    (0..slots).all(|i| {
        let vs = notes
            .iter()
            .flat_map(|n| n.slots[i].iter().map(|v| v.value));
        let (lo, hi) = vs.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
        lo == hi || (lo > 0.0 && hi <= lo * (1.0 + tol))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str, rows: &[usize]) -> (String, Vec<usize>) {
        (text.to_string(), rows.to_vec())
    }

    #[test]
    fn numbers_inside_words_stay_literal() {
        let p = parse(
            "clat p50 18.87 ms p99.9 71.17 ms (1823 I/Os) on x86_64, LLVM 15.0.6, 128MiB, 8-byte",
        );
        let plain = p
            .parts
            .iter()
            .filter(|x| **x == Part::Slot(Slot::Plain))
            .count();
        let time = p
            .parts
            .iter()
            .filter(|x| **x == Part::Slot(Slot::Time))
            .count();
        // 1823 and the 8 of 8-byte; two times.
        assert_eq!((plain, time), (2, 2), "{p:?}");
        assert!((p.slots[0][0].value - 18.87e-3).abs() < 1e-12);
        assert_eq!(p.slots[0][0].text, "18.87 ms");
        // A full stop after a number ends the sentence.
        let p = parse("ran 5.");
        assert_eq!(p.slots.len(), 1, "{p:?}");
        assert_eq!(p.parts.last(), Some(&Part::Lit(".".into())));
    }

    #[test]
    fn clock_notes_merge_into_ranges() {
        let notes = vec![
            one(
                "clock readings before the samples and after each: 3.21, 3.22, 3.15, 3.14 GHz; 3.196 GHz used (mean)",
                &[3],
            ),
            one(
                "clock readings before the samples and after each: 3.21, 3.22, 3.22 GHz; 3.217 GHz used (mean)",
                &[4, 5],
            ),
            one("bytes: 8 B per 8-byte element", &[15]),
            one(
                "clock readings before the samples and after each: 3.20, 3.21, 3.19, 3.20 GHz; 3.204 GHz used (mean)",
                &[14],
            ),
        ];
        let c = condense(&notes);
        assert_eq!(c.len(), 2, "{c:?}");
        assert_eq!(c[0].rows, vec![3, 4, 5, 14]);
        assert!(c[0].merged);
        assert_eq!(
            c[0].text,
            "clock readings before the samples and after each: 3.14–3.22 GHz; 3.196–3.217 GHz used (mean)"
        );
        assert_eq!(
            c[1],
            Condensed {
                rows: vec![15],
                text: "bytes: 8 B per 8-byte element".into(),
                merged: false
            }
        );
    }

    #[test]
    fn times_compare_across_units_and_equal_numbers_stay_single() {
        let notes = vec![
            one(
                "clat p50 18.87 ms p99 64.95 ms max 71.24 ms (1823 I/Os)",
                &[24],
            ),
            one(
                "clat p50 934.4 µs p99 32.70 ms max 36.60 ms (990 I/Os)",
                &[27],
            ),
            one(
                "clat p50 26.56 µs p99 121.0 µs max 17.50 ms (21032 I/Os)",
                &[45],
            ),
        ];
        let c = condense(&notes);
        assert_eq!(c.len(), 1, "{c:?}");
        assert_eq!(
            c[0].text,
            "clat p50 26.56 µs–18.87 ms p99 121.0 µs–64.95 ms max 17.50 ms–71.24 ms (990–21032 I/Os)"
        );
        assert_eq!(c[0].rows, vec![24, 27, 45]);
        // The same number everywhere is printed once, not as a range.
        let c = condense(&[
            one("2 MiB pages granted for 130 MiB of 130 MiB", &[1]),
            one("2 MiB pages granted for 66 MiB of 66 MiB", &[2]),
        ]);
        assert_eq!(
            c[0].text,
            "2 MiB pages granted for 66–130 MiB of 66–130 MiB"
        );
    }

    #[test]
    fn different_words_or_kinds_do_not_merge() {
        let c = condense(&[
            one("dispatch 287 ms", &[1]),
            one("dispatch 287 GHz", &[2]),
            one("dispatch 287", &[3]),
            one("16 B per element, non-temporal stores", &[4]),
            one("8 B per element, write-allocate not counted", &[5]),
        ]);
        assert_eq!(c.len(), 5, "{c:?}");
        assert!(c.iter().all(|x| !x.merged));
        // Text without numbers, and the empty text, come back unchanged.
        let c = condense(&[one("no numbers here", &[2]), one("", &[1])]);
        assert_eq!(c[0].text, "no numbers here");
        assert_eq!(c[1].text, "");
    }

    /// Issue #32 F: a range over rows that disagree hides each row's figure; only rows
    /// that agree (within the tolerance) are merged.
    #[test]
    fn only_agreeing_rows_merge_into_ranges() {
        let notes = vec![
            one("clat p50 18.87 ms p99 64.95 ms (1823 I/Os)", &[24]),
            one("clat p50 26.56 µs p99 121.0 µs (21032 I/Os)", &[45]),
            one("clock 3.21 GHz", &[3]),
            one("clock 3.15 GHz", &[4]),
        ];
        let c = condense_within(&notes, 0.10);
        assert_eq!(c.len(), 3, "{c:?}");
        assert_eq!(c[0].text, "clat p50 18.87 ms p99 64.95 ms (1823 I/Os)");
        assert_eq!(c[0].rows, vec![24]);
        assert_eq!(c[1].text, "clat p50 26.56 µs p99 121.0 µs (21032 I/Os)");
        assert!(!c[0].merged && !c[1].merged);
        assert_eq!(c[2].text, "clock 3.15–3.21 GHz");
        assert_eq!(c[2].rows, vec![3, 4]);
        assert!(c[2].merged);
        // Zeros agree with zeros only.
        let c = condense_within(&[one("lost 0 of 5", &[1]), one("lost 0 of 5", &[2])], 0.1);
        assert_eq!(c.len(), 1);
        let c = condense_within(&[one("lost 0 of 5", &[1]), one("lost 2 of 5", &[2])], 0.1);
        assert_eq!(c.len(), 2);
    }
}
