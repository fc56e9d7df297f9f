//! `peakbench check --junit FILE`: the check as JUnit XML, the format GitLab's, Jenkins'
//! and GitHub's test reporters read: one `<testsuite>` per host of the run, one
//! `<testcase>` per case (`classname` `peakbench.RESOURCE`, `name` the case's label);
//! a regressed or missing case is a `<failure>` whose message names the case and its
//! figures (measured, baseline, tolerance, bound), an inconclusive one is `<skipped>`
//! with the reason. With `--strict` an inconclusive case is a failure too.
//!
//! **Stable names** (issue #44 item 8): a CI system keys a case by suite, class and name
//! (GitLab does), so none of them holds what changes from night to night: the suite is
//! `peakbench check on HOST`, the class `peakbench.RESOURCE`, the name the case's
//! label; the results file, the baseline and the time go into `<properties>` and
//! attributes. The document is valid under the common `junit-10.xsd` (no `skipped` on
//! `<testsuites>`; tests/fixtures/junit-10.xsd states its rules, checked with
//! `xmllint --schema` in tests/it/gate_ci.rs).
//!
//! Every text goes through the sanitiser every other view uses (`util::sanitize::line`,
//! issue #43 item 8): a right-to-left override (U+202E), U+0085, DEL or an escape
//! sequence in a workload or host name is written visibly (`\u{202e}`), never raw, so a
//! CI page cannot show a spoofed name; then it is escaped for XML (`&`, `<`, `>`, `"`,
//! `'`), and characters XML 1.0 cannot hold are replaced by U+FFFD.

use super::check::{Check, Verdict};
use std::fmt::Write as _;

/// `s` escaped for XML text and attribute values.
pub(crate) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' => out.push(c),
            '\r' => out.push_str("&#13;"),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// `s` sanitised (`util::sanitize::line`) and escaped for XML.
fn text(s: &str) -> String {
    escape(&crate::util::sanitize::line(s))
}

/// The check as a JUnit XML document.
pub(crate) fn render(c: &Check, timestamp: &str) -> String {
    let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let fails = |v: Verdict| {
        v == Verdict::Regressed || v == Verdict::Missing || (c.strict && v == Verdict::Inconclusive)
    };
    let total = c.cases.len();
    let failures = c.cases.iter().filter(|x| fails(x.verdict)).count();
    // No `skipped` here: junit-10.xsd allows it on a suite only.
    let _ = writeln!(
        s,
        "<testsuites name=\"peakbench check\" tests=\"{total}\" failures=\"{failures}\" errors=\"0\">"
    );
    for host in &c.hosts {
        let rows: Vec<_> = c.cases.iter().filter(|x| &x.host == host).collect();
        let f = rows.iter().filter(|x| fails(x.verdict)).count();
        let sk = rows
            .iter()
            .filter(|x| x.verdict == Verdict::Inconclusive && !fails(x.verdict))
            .count();
        let _ = writeln!(
            s,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{f}\" errors=\"0\" skipped=\"{sk}\" timestamp=\"{}\" hostname=\"{}\">",
            text(&format!("peakbench check on {host}")),
            rows.len(),
            text(timestamp),
            text(host)
        );
        let _ = writeln!(
            s,
            "    <properties>\n      <property name=\"baseline\" value=\"{}\"/>\n      <property name=\"results\" value=\"{}\"/>\n      <property name=\"outcome\" value=\"{}\"/>\n    </properties>",
            text(&c.baseline),
            text(&c.results),
            c.outcome.word()
        );
        for x in rows {
            let label = x.case.label();
            let _ = write!(
                s,
                "    <testcase classname=\"peakbench.{}\" name=\"{}\" time=\"0\"",
                text(x.case.resource.as_str()),
                text(&label)
            );
            let detail = format!("{}: {}; {}", x.verdict.as_str(), x.why, x.figures());
            if fails(x.verdict) {
                let _ = writeln!(
                    s,
                    ">\n      <failure type=\"{}\" message=\"{}\">{}</failure>\n    </testcase>",
                    x.verdict.as_str(),
                    text(&format!("{label} on {}: {detail}", x.host)),
                    text(&detail)
                );
            } else if x.verdict == Verdict::Inconclusive {
                let _ = writeln!(
                    s,
                    ">\n      <skipped message=\"{}\"/>\n    </testcase>",
                    text(&detail)
                );
            } else {
                let _ = writeln!(
                    s,
                    ">\n      <system-out>{}</system-out>\n    </testcase>",
                    text(&detail)
                );
            }
        }
        s.push_str("  </testsuite>\n");
    }
    s.push_str("</testsuites>\n");
    s
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A small well-formedness checker: one root element, every tag closed in order,
    /// attribute values quoted, every `&` an entity, no `<` in text or values, only
    /// characters XML 1.0 allows. Returns the element names in document order.
    pub(crate) fn well_formed(doc: &str) -> Result<Vec<String>, String> {
        let body = doc
            .strip_prefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
            .ok_or("no XML declaration")?;
        for c in body.chars() {
            let ok =
                matches!(c, '\t' | '\n' | '\r') || (c >= ' ' && c != '\u{FFFE}' && c != '\u{FFFF}');
            if !ok {
                return Err(format!("character {:?} not allowed", c));
            }
        }
        let entity_ok = |t: &str| -> Result<(), String> {
            let mut rest = t;
            while let Some(i) = rest.find('&') {
                let e = &rest[i..];
                let ok = ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;", "&#13;"]
                    .iter()
                    .any(|x| e.starts_with(x));
                if !ok {
                    return Err(format!("bare & at {:?}", &e[..e.len().min(10)]));
                }
                rest = &e[1..];
            }
            Ok(())
        };
        let mut stack: Vec<String> = Vec::new();
        let mut names = Vec::new();
        let mut rest = body;
        let mut roots = 0;
        while !rest.is_empty() {
            match rest.find('<') {
                None => {
                    if !rest.trim().is_empty() {
                        return Err("text after the root".into());
                    }
                    break;
                }
                Some(i) => {
                    let text = &rest[..i];
                    if stack.is_empty() && !text.trim().is_empty() {
                        return Err("text outside the root".into());
                    }
                    entity_ok(text)?;
                    if text.contains('>') && stack.is_empty() {
                        return Err("stray >".into());
                    }
                    rest = &rest[i + 1..];
                }
            }
            // Inside a tag: find its end outside quoted values.
            let mut in_q = false;
            let mut end = None;
            for (j, ch) in rest.char_indices() {
                match ch {
                    '"' => in_q = !in_q,
                    '<' if in_q => return Err("< in an attribute value".into()),
                    '<' => return Err("< inside a tag".into()),
                    '>' if !in_q => {
                        end = Some(j);
                        break;
                    }
                    _ => {}
                }
            }
            let end = end.ok_or("unclosed tag")?;
            let tag = &rest[..end];
            rest = &rest[end + 1..];
            if let Some(name) = tag.strip_prefix('/') {
                let open = stack.pop().ok_or("close without open")?;
                if open != name.trim() {
                    return Err(format!("</{name}> closes <{open}>"));
                }
                continue;
            }
            let selfclose = tag.ends_with('/');
            let tag = tag.trim_end_matches('/');
            let name: String = tag.chars().take_while(|c| !c.is_whitespace()).collect();
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '-' || c == '_')
            {
                return Err(format!("bad element name {name:?}"));
            }
            // Attributes: name="value" pairs.
            let mut attrs = tag[name.len()..].trim();
            while !attrs.is_empty() {
                let eq = attrs
                    .find("=\"")
                    .ok_or(format!("attribute without =\" in <{name}>"))?;
                let aname = attrs[..eq].trim();
                if aname.is_empty() || aname.contains(char::is_whitespace) {
                    return Err(format!("bad attribute in <{name}>"));
                }
                let v = &attrs[eq + 2..];
                let close = v.find('"').ok_or("unterminated value")?;
                entity_ok(&v[..close])?;
                attrs = v[close + 1..].trim_start();
            }
            if stack.is_empty() {
                roots += 1;
            }
            names.push(name.clone());
            if !selfclose {
                stack.push(name);
            }
        }
        if !stack.is_empty() {
            return Err(format!("unclosed {stack:?}"));
        }
        if roots != 1 {
            return Err(format!("{roots} root elements"));
        }
        Ok(names)
    }

    #[test]
    fn the_checker_refuses_what_is_not_well_formed() {
        let d = |b: &str| format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{b}");
        assert!(well_formed(&d("<a x=\"1\"><b/>t &amp; u</a>\n")).is_ok());
        for bad in [
            "<a><b></a></b>",
            "<a x=\"<\"/>",
            "<a>t & u</a>",
            "<a/><b/>",
            "<a>",
            "<a>\u{1}</a>",
            "<a x=1/>",
        ] {
            assert!(well_formed(&d(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn escaping() {
        assert_eq!(
            escape("a<b>&\"c'\u{1}\r"),
            "a&lt;b&gt;&amp;&quot;c&apos;\u{FFFD}&#13;"
        );
    }

    #[test]
    fn a_check_is_well_formed_junit_with_a_failure_naming_the_case() {
        let run = crate::report::samples::compare_a();
        let (mut b, _) = crate::gate::take::take(
            &["a.json".into()],
            std::slice::from_ref(&run),
            &Default::default(),
        )
        .unwrap();
        b.cases[0].median *= match b.cases[0].direction {
            crate::gate::baseline::Direction::Higher => 2.0,
            crate::gate::baseline::Direction::Lower => 0.5,
        };
        let mut run = run;
        // Hostile text everywhere a case's name reaches the XML.
        run.host.hostname = "h<&\"'>\u{7}".into();
        let c = crate::gate::check::check(
            &b,
            "b<1>.toml",
            &run,
            "r&.json",
            crate::gate::check::Policy::Distinct,
        );
        let x = render(&c, "2026-11-26T00:00:00Z");
        let names = well_formed(&x).unwrap_or_else(|e| panic!("{e}\n{x}"));
        assert_eq!(names[0], "testsuites");
        assert_eq!(
            names.iter().filter(|n| *n == "testcase").count(),
            c.cases.len()
        );
        assert!(names.iter().any(|n| n == "failure"), "{x}");
        let label = escape(&c.cases[0].case.label());
        let fail = x
            .lines()
            .find(|l| l.contains("<failure"))
            .expect("a failure");
        assert!(fail.contains(&label), "{fail}");
        for w in ["measured", "baseline", "tolerance", "bound"] {
            assert!(fail.contains(w), "{w}: {fail}");
        }
        assert!(
            x.contains("hostname=\"h&lt;&amp;&quot;&apos;&gt;\\x07\""),
            "{x}"
        );
    }

    /// Issue #44 item 8: the suite, class and case names hold nothing that changes
    /// from night to night (file names, run ids, times); issue #43 item 8: spoofing
    /// characters are never raw in them.
    #[test]
    fn names_are_stable_and_sanitised() {
        let mut run = crate::report::samples::compare_a();
        let (b, _) = crate::gate::take::take(
            &["a.json".into()],
            std::slice::from_ref(&run),
            &Default::default(),
        )
        .unwrap();
        let render_with = |run: &crate::report::model::Report, base: &str, results: &str| {
            let c = crate::gate::check::check(
                &b,
                base,
                run,
                results,
                super::super::check::Policy::Distinct,
            );
            render(&c, "2026-11-26T00:00:00Z")
        };
        let names = |x: &str| -> Vec<String> {
            x.lines()
                .filter(|l| l.contains("<testsuite ") || l.contains("<testcase "))
                .map(|l| {
                    l.split(" tests=")
                        .next()
                        .unwrap()
                        .split(" time=")
                        .next()
                        .unwrap()
                        .to_string()
                })
                .collect()
        };
        let a = render_with(
            &run,
            "history h.db: the last 5 quick runs (runs 1, 2)",
            "h.db run 7 (x 2026-11-25)",
        );
        let b2 = render_with(
            &run,
            "history h.db: the last 5 quick runs (runs 2, 3)",
            "h.db run 8 (x 2026-11-26)",
        );
        assert_eq!(names(&a), names(&b2));
        assert!(
            names(&a)[0].contains("name=\"peakbench check on fixture-host\""),
            "{a}"
        );
        assert!(!a.contains("<testsuites name=\"peakbench check\" tests=\"5\" failures=\"0\" errors=\"0\" skipped"), "{a}");
        // Spoofing characters in a workload and a host name.
        run.host.hostname = "node\u{202e}1\u{85}\u{7f}".into();
        run.results[0].workload = "fma\u{202e}lmth.exe".into();
        let mut b3 = b.clone();
        b3.cases[0].workload = run.results[0].workload.clone();
        let c =
            crate::gate::check::check(&b3, "b", &run, "r", super::super::check::Policy::Distinct);
        let x = render(&c, "t");
        for raw in ['\u{202e}', '\u{85}', '\u{7f}'] {
            assert!(!x.contains(raw), "{raw:?} raw in {x}");
        }
        assert!(x.contains("fma\\u{202e}lmth.exe"), "{x}");
        assert!(
            x.contains("node\\u{202e}1\\x85\\x7f") || x.contains("node\\u{202e}1\\u{85}\\x7f"),
            "{x}"
        );
    }
}
