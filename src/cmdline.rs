//! From the argument vector to a parsed [`Cli`], or what a refused command line prints
//! (issue #32 C and E):
//!
//! - help wraps to the terminal (`COLUMNS`, else the terminal on stdout), and to 80
//!   columns when there is none, never wider;
//! - a typo gets clap's did-you-mean (`memroy` → `memory`, `--precisoin` →
//!   `--precision`), and the hint points at the subcommand's help (`peakbench memory
//!   --help`), not the top-level one;
//! - a flag another resource has under another name says so (`disk --threads`: disk
//!   calls it `--jobs`);
//! - every problem of the command line is reported at once, one line each: after a
//!   problem with a flag, the flag (and its value) is taken out and the line parsed and
//!   validated again, until it passes or a problem leaves nothing to take out;
//! - a typed flag's bad value (its `value_parser` refused it) is the same one line its
//!   check gives as a `UsageError`: `--flag: what is wrong; the accepted form`.

use crate::cli::Cli;
use crate::options::Options;
use crate::util::usage::UsageError;
use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{CommandFactory, FromArgMatches};
use std::ffi::{OsStr, OsString};

/// Why the command line does not run.
#[derive(Debug)]
pub enum Refusal {
    /// Help or the version was asked for: print it (exit 0).
    Shown(clap::Error),
    /// Bad usage: one line per problem, without the `error: ` prefix (exit 2).
    Usage(Vec<String>),
}

/// Width of the help when stdout is no terminal and `COLUMNS` is unset.
pub const HELP_WIDTH: usize = 80;

/// The clap command with the help's width set (module doc).
fn command() -> clap::Command {
    let w = crate::util::term::stdout_columns()
        .unwrap_or(HELP_WIDTH)
        .max(crate::util::term::MIN_WIDTH);
    Cli::command().term_width(w).max_term_width(w)
}

/// Parses `argv` (program name first) like clap, and validates it ([`Options`]); on a
/// problem, collects every problem of the line (module doc).
pub fn parse(argv: &[OsString]) -> Result<Cli, Refusal> {
    let mut args: Vec<OsString> = argv.to_vec();
    let mut problems: Vec<String> = Vec::new();
    // The value left behind when an unknown flag was taken out: clap then calls it an
    // unexpected argument, which is not a problem of its own.
    let mut orphan: Option<OsString> = None;
    for _ in 0..=argv.len() {
        let taken: Option<Vec<usize>> = match command().try_get_matches_from(&args) {
            Err(e) => match e.kind() {
                ErrorKind::DisplayHelp
                | ErrorKind::DisplayVersion
                | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                    return Err(Refusal::Shown(e))
                }
                // A typed flag's bad value: the line its check gave as a UsageError,
                // or a relation between flags clap checked (`conflicts_with`,
                // `requires`): one line naming the flag; then the flag and its value
                // are taken out.
                _ if UsageError::from_clap(&e).is_some() || relation_line(&e, &args).is_some() => {
                    orphan = None;
                    let line = UsageError::from_clap(&e)
                        .map(|u| u.0)
                        .or_else(|| relation_line(&e, &args))
                        .unwrap_or_default();
                    let flag = line.split(':').next().unwrap_or_default().to_string();
                    if !problems.contains(&line) {
                        problems.push(line);
                    }
                    flag_position(&args, &flag)
                }
                _ => {
                    let bad = invalid_arg(&e);
                    let is_orphan = e.kind() == ErrorKind::UnknownArgument
                        && orphan.is_some()
                        && bad.as_deref().map(OsStr::new) == orphan.as_deref();
                    if !is_orphan {
                        problems.push(clap_line(&e, &args));
                    }
                    orphan = None;
                    match (e.kind(), bad) {
                        (ErrorKind::UnknownArgument, Some(bad)) => {
                            let i = args.iter().skip(1).position(|a| *a == *bad).map(|i| i + 1);
                            if let Some(i) = i {
                                let next = args.get(i + 1);
                                if bad.starts_with("--")
                                    && !bad.contains('=')
                                    && next.is_some_and(|n| !n.to_string_lossy().starts_with('-'))
                                {
                                    orphan = next.cloned();
                                }
                            }
                            i.map(|i| vec![i])
                        }
                        _ => None,
                    }
                }
            },
            Ok(mut m) => {
                let cli = match Cli::from_arg_matches_mut(&mut m) {
                    Ok(c) => c,
                    Err(e) => {
                        problems.push(clap_line(&e, &args));
                        break;
                    }
                };
                match Options::from_cli(cli) {
                    Ok(_) => None,
                    Err(u) => {
                        let line = u.0;
                        let flag = line
                            .split(':')
                            .next()
                            .filter(|f| f.starts_with("--") && !f.contains(' '))
                            .map(str::to_string);
                        let repeated = problems.contains(&line);
                        if !repeated {
                            problems.push(line);
                        }
                        match flag {
                            Some(f) if !repeated => flag_position(&args, &f),
                            _ => None,
                        }
                    }
                }
            }
        };
        match taken {
            Some(idx) if !idx.is_empty() => {
                for i in idx.into_iter().rev() {
                    args.remove(i);
                }
            }
            _ => break,
        }
    }
    if problems.is_empty() {
        // Parsed and validated as given: the matches of the whole line.
        let mut m = command()
            .try_get_matches_from(argv)
            .map_err(|e| Refusal::Usage(vec![clap_line(&e, argv)]))?;
        return Cli::from_arg_matches_mut(&mut m)
            .map_err(|e| Refusal::Usage(vec![clap_line(&e, argv)]));
    }
    Err(Refusal::Usage(problems))
}

/// A relation between flags that clap checked, as the one line a hand-written check
/// gave (`--flag: what is wrong; the accepted form`), naming the flag that declares it:
///
/// - `conflicts_with`: `--size: cannot be combined with --sweep; use one of them`;
/// - `requires`: `--interval: only applies with --sustain DUR; add it or drop
///   --interval`. clap names only the flag that is missing, so the flag that requires
///   it is the one whose tokens alone (with the subcommand) make clap miss it too.
///
/// `None` for every other error (a required positional argument, an unknown flag).
fn relation_line(e: &clap::Error, args: &[OsString]) -> Option<String> {
    let top = Cli::command();
    // The subcommands `args` names, outermost first (`history prune`).
    let mut path: Vec<&clap::Command> = vec![&top];
    let mut words: Vec<OsString> = args.iter().take(1).cloned().collect();
    for a in args.iter().skip(1) {
        let here = *path.last()?;
        if let Some(s) = here.find_subcommand(a) {
            path.push(s);
            words.push(a.clone());
        }
    }
    let arg = |long: &str| {
        let name = long.trim_start_matches('-');
        path.iter().rev().find_map(|c| {
            c.get_arguments()
                .find(|a| a.get_long() == Some(name))
                .map(|a| (*c, a))
        })
    };
    match e.kind() {
        ErrorKind::ArgumentConflict => {
            let a = flag_name(e.get(ContextKind::InvalidArg)?)?;
            let b = flag_name(e.get(ContextKind::PriorArg)?)?;
            // clap names the first of the two on the line; the line names the flag whose
            // definition declares the conflict (`--size` for `--sweep --size`).
            let declares = |x: &str, y: &str| {
                arg(x).is_some_and(|(c, ax)| {
                    !ax.is_global_set()
                        && c.get_arg_conflicts_with(ax)
                            .iter()
                            .any(|o| o.get_long() == Some(y.trim_start_matches('-')))
                })
            };
            let (named, other) = if !declares(&a, &b) && declares(&b, &a) {
                (b, a)
            } else {
                (a, b)
            };
            Some(format!(
                "{named}: cannot be combined with {other}; use one of them"
            ))
        }
        ErrorKind::MissingRequiredArgument => {
            let missing = |argv: &[OsString]| -> Vec<String> {
                match command().try_get_matches_from(argv) {
                    Err(e) if e.kind() == ErrorKind::MissingRequiredArgument => {
                        match e.get(ContextKind::InvalidArg) {
                            Some(ContextValue::Strings(v)) => v.clone(),
                            Some(ContextValue::String(s)) => vec![s.clone()],
                            _ => Vec::new(),
                        }
                    }
                    _ => Vec::new(),
                }
            };
            let wanted = match e.get(ContextKind::InvalidArg)? {
                ContextValue::Strings(v) => v.iter().find(|m| m.starts_with("--"))?.clone(),
                ContextValue::String(s) if s.starts_with("--") => s.clone(),
                _ => return None,
            };
            let without = missing(&words);
            let requirer = args.iter().skip(1).find_map(|a| {
                let a = a.to_string_lossy();
                let flag = a.split('=').next()?.to_string();
                if !flag.starts_with("--") || arg(&flag).is_none() {
                    return None;
                }
                let mut trial = words.clone();
                trial.extend(
                    flag_position(args, &flag)?
                        .into_iter()
                        .map(|i| args[i].clone()),
                );
                (missing(&trial).contains(&wanted) && !without.contains(&wanted)).then_some(flag)
            })?;
            let form: String = wanted.chars().filter(|c| !"<>[]".contains(*c)).collect();
            Some(format!(
                "{requirer}: only applies with {form}; add it or drop {requirer}"
            ))
        }
        _ => None,
    }
}

/// The flag of clap's name for an argument (`--size <SIZE>` → `--size`), or of the
/// first of several.
fn flag_name(v: &ContextValue) -> Option<String> {
    let s = match v {
        ContextValue::String(s) => s,
        ContextValue::Strings(v) => v.first()?,
        _ => return None,
    };
    let f = s.split([' ', '=']).next()?;
    f.starts_with('-').then(|| f.to_string())
}

/// Where `--flag` (and its value) stands in `args`: `--flag=V` is one index, `--flag V`
/// two when the flag takes a value. `None` when it is not there.
fn flag_position(args: &[OsString], flag: &str) -> Option<Vec<usize>> {
    let with_eq = format!("{flag}=");
    let i = args.iter().enumerate().skip(1).find_map(|(i, a)| {
        let a = a.to_string_lossy();
        (a == flag || a.starts_with(&with_eq)).then_some(i)
    })?;
    let joined = args[i].to_string_lossy().contains('=');
    if !joined && takes_value(flag) && i + 1 < args.len() {
        Some(vec![i, i + 1])
    } else {
        Some(vec![i])
    }
}

/// Every command under `c` (itself, its subcommands, theirs: `history prune`).
fn commands(c: &clap::Command) -> Vec<&clap::Command> {
    std::iter::once(c)
        .chain(c.get_subcommands().flat_map(commands))
        .collect()
}

/// Whether `--flag` (or the short `-f`) takes a value in any subcommand, at any depth
/// (or globally).
fn takes_value(flag: &str) -> bool {
    let name = flag.trim_start_matches('-');
    let short = flag.strip_prefix('-').filter(|s| s.len() == 1);
    let top = Cli::command();
    let found = commands(&top)
        .into_iter()
        .flat_map(|c| c.get_arguments())
        .filter(|a| match short {
            Some(s) => a.get_short().map(String::from).as_deref() == Some(s),
            None => a.get_long() == Some(name),
        })
        .any(|a| a.get_action().takes_values());
    found
}

/// The argument clap's error is about (`--threads`, `memroy`), if it names one.
fn invalid_arg(e: &clap::Error) -> Option<String> {
    match e
        .get(ContextKind::InvalidArg)
        .or_else(|| e.get(ContextKind::InvalidSubcommand))?
    {
        ContextValue::String(s) => Some(s.split('=').next().unwrap_or(s).to_string()),
        _ => None,
    }
}

/// The subcommand `args` names (the first word that is one), if any.
fn subcommand_of(args: &[OsString]) -> Option<String> {
    let cmd = Cli::command();
    args.iter().skip(1).find_map(|a| {
        let a = a.to_string_lossy();
        cmd.get_subcommands()
            .find(|s| s.get_name() == a && !s.is_hide_set())
            .map(|s| s.get_name().to_string())
    })
}

/// One line for clap's error: its first line, the did-you-mean or the other resource's
/// name for the flag, and where the help is.
fn clap_line(e: &clap::Error, args: &[OsString]) -> String {
    let text = e.to_string();
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let first = lines.next().unwrap_or("invalid arguments");
    let first = first.trim_start_matches("error: ").to_string();
    // "required arguments were not provided:" names them on the next line.
    let what = match lines.next() {
        Some(next) if first.ends_with(':') => format!(" {}", next.trim()),
        _ => String::new(),
    };
    let sub = subcommand_of(args);
    let help = match &sub {
        Some(s) => format!("see peakbench {s} --help"),
        None => "see peakbench --help".to_string(),
    };
    let bad = invalid_arg(e);
    if let (Some(s), Some(b)) = (&sub, &bad) {
        // Another resource's name for one of this resource's flags (its `aliases`).
        let aliases = crate::bench::find(s).map_or(&[][..], |r| r.aliases());
        if let Some(a) = aliases.iter().find(|a| a.given == b) {
            return format!(
                "{s} has no {b}; {s} calls it {} ({}) ({help})",
                a.ours, a.what
            );
        }
    }
    let suggestion = [ContextKind::SuggestedSubcommand, ContextKind::SuggestedArg]
        .into_iter()
        .find_map(|k| match e.get(k) {
            Some(ContextValue::String(s)) => Some(s.clone()),
            Some(ContextValue::Strings(v)) if !v.is_empty() => Some(v.join("' or '")),
            _ => None,
        });
    let mean = match suggestion {
        Some(s) => format!("; did you mean '{s}'?"),
        None => String::new(),
    };
    format!("{first}{what}{mean} ({help})")
}

/// What `main` does with `argv` (program name first): the parsed command line, or
/// [`Refusal`]. Validation runs again in [`crate::app::run`]; it has no side effects.
pub fn parse_env() -> Result<Cli, Refusal> {
    let argv: Vec<OsString> = std::env::args_os().collect();
    parse(&argv)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(args: &[&str]) -> Vec<String> {
        let argv: Vec<OsString> = std::iter::once("peakbench")
            .chain(args.iter().copied())
            .map(OsString::from)
            .collect();
        match parse(&argv) {
            Err(Refusal::Usage(l)) => l,
            Err(Refusal::Shown(e)) => panic!("{args:?}: help shown: {e}"),
            Ok(_) => panic!("{args:?}: accepted"),
        }
    }

    /// Issue #32 E: clap's did-you-mean, and the subcommand's help.
    #[test]
    fn typos_get_a_did_you_mean_and_the_subcommands_help() {
        let l = refused(&["memroy"]);
        assert_eq!(l.len(), 1, "{l:?}");
        assert!(l[0].contains("did you mean 'memory'?"), "{l:?}");
        assert!(l[0].ends_with("(see peakbench --help)"), "{l:?}");
        let l = refused(&["cpu", "--precisoin", "fp64"]);
        assert_eq!(l.len(), 1, "{l:?}");
        assert!(l[0].contains("'--precisoin'"), "{l:?}");
        assert!(l[0].contains("did you mean '--precision'?"), "{l:?}");
        assert!(l[0].ends_with("(see peakbench cpu --help)"), "{l:?}");
    }

    /// Issue #32 E: `disk --threads` says disk calls it `--jobs`, `net --threads` that
    /// net calls it `--streams`.
    #[test]
    fn another_resources_flag_names_this_ones() {
        let l = refused(&["disk", "--threads", "4"]);
        assert_eq!(l.len(), 1, "{l:?}");
        assert!(
            l[0].starts_with("disk has no --threads; disk calls it --jobs"),
            "{l:?}"
        );
        assert!(l[0].ends_with("(see peakbench disk --help)"), "{l:?}");
        let l = refused(&["net", "--threads=2"]);
        assert!(
            l[0].starts_with("net has no --threads; net calls it --streams"),
            "{l:?}"
        );
        // Every alias names a flag its command has and one it has not.
        let top = Cli::command();
        for r in crate::bench::RESOURCES {
            let sub = top.find_subcommand(r.name()).unwrap();
            let has = |f: &str| {
                sub.get_arguments()
                    .chain(top.get_arguments())
                    .any(|a| a.get_long() == Some(f.trim_start_matches('-')))
            };
            for a in r.aliases() {
                assert!(has(a.ours), "{} {}", r.name(), a.ours);
                assert!(!has(a.given), "{} {}", r.name(), a.given);
            }
        }
    }

    /// Issue #32 E: the course's disk command needed three refusals in a row; every
    /// problem is reported at once, each on its own line.
    #[test]
    fn every_problem_is_reported_at_once() {
        let l = refused(&[
            "disk",
            "--threads",
            "4",
            "--block",
            "4X",
            "--min-time",
            "100",
            "--depth",
            "zero",
        ]);
        assert_eq!(l.len(), 4, "{l:?}");
        assert!(l[0].starts_with("disk has no --threads"), "{l:?}");
        assert!(l.iter().any(|x| x.starts_with("--block:")), "{l:?}");
        assert!(l.iter().any(|x| x.starts_with("--min-time:")), "{l:?}");
        assert!(l.iter().any(|x| x.starts_with("--depth:")), "{l:?}");
        // One problem stays one line.
        assert_eq!(refused(&["cpu", "--precision", "fp8"]).len(), 1);
    }

    /// A typed flag's bad value (its `value_parser` refused it) is exactly the line its
    /// check gave as a `UsageError`, one line, and every other problem of the line is
    /// still reported with it (the flag and its value taken out, `--flag=V` too).
    #[test]
    fn a_typed_flags_bad_value_is_its_usage_line() {
        let line = "--sustain: 'soon' is not a duration; use a number with ms, s, m or h, e.g. 500ms or 10s";
        assert_eq!(refused(&["cpu", "--sustain", "soon"]), [line]);
        assert_eq!(refused(&["cpu", "--sustain=soon"]), [line]);
        let l = refused(&[
            "cpu",
            "--sustain",
            "soon",
            "--precisoin",
            "fp64",
            "--isa",
            "mmx9",
        ]);
        assert_eq!(l.len(), 3, "{l:?}");
        assert!(l.iter().any(|x| x == line), "{l:?}");
        assert!(
            l.iter().any(|x| x.contains("did you mean '--precision'?")),
            "{l:?}"
        );
        assert!(
            l.iter()
                .any(|x| x.starts_with("--isa: unknown instruction set 'mmx9'")),
            "{l:?}"
        );
        // A problem found after the typed value (a check across flags) is reported too.
        let l = refused(&["cpu", "--interval", "2s", "--sustain", "1"]);
        assert_eq!(l.len(), 2, "{l:?}");
        assert!(l[0].starts_with("--sustain: '1' has no unit"), "{l:?}");
        assert_eq!(
            l[1],
            "--interval: only applies with --sustain DUR; add it or drop --interval"
        );
    }

    /// Issue #34 item 2: the common options' bad values are found where clap reads them,
    /// each its one line, all listed together; `--format`'s help lists the registry's.
    #[test]
    fn common_values_are_listed_together() {
        let l = refused(&["--repeat", "0", "--width", "3", "--format", "xml"]);
        assert_eq!(l.len(), 3, "{l:?}");
        for flag in [
            "--repeat: '0'",
            "--width: '3'",
            "--format: unknown format 'xml'",
        ] {
            assert!(l.iter().any(|x| x.starts_with(flag)), "{flag}: {l:?}");
        }
        let l = refused(&["report", "x.json", "--repeat", "0"]);
        assert_eq!(l.len(), 1, "{l:?}");
        assert!(
            l[0].starts_with("--repeat: '0' is not a run count"),
            "{l:?}"
        );
        let c = command();
        let format = c.get_arguments().find(|a| a.get_id() == "format").unwrap();
        let names: Vec<String> = format
            .get_possible_values()
            .iter()
            .map(|v| v.get_name().to_string())
            .collect();
        assert_eq!(names, ["table", "json", "csv", "markdown", "openmetrics"]);
    }

    /// Issue #46 item 3: a relation clap checks (`conflicts_with`, `requires`) is one
    /// line naming the flag that declares it, whatever the order on the line, and the
    /// line's other problems are reported with it.
    #[test]
    fn relations_are_one_line_naming_the_flag() {
        for (args, line) in [
            (&["memory", "--sweep", "--size", "1GiB"][..], "--size: cannot be combined with --sweep; use one of them"),
            (&["memory", "--size", "1GiB", "--sweep", "quick"], "--size: cannot be combined with --sweep; use one of them"),
            (&["net", "--bidir", "--reverse"], "--bidir: cannot be combined with --reverse; use one of them"),
            (&["net", "--reverse", "--bidir"], "--bidir: cannot be combined with --reverse; use one of them"),
            (&["disk", "--fsync", "1", "--fdatasync", "2"], "--fdatasync: cannot be combined with --fsync; use one of them"),
            (&["cpu", "--interval", "2s"], "--interval: only applies with --sustain DUR; add it or drop --interval"),
            (&["cpu", "--interval=2s"], "--interval: only applies with --sustain DUR; add it or drop --interval"),
            (&["baseline", "--from", "a.json", "--runs", "3"], "--runs: only applies with --from-history; add it or drop --runs"),
            (&["baseline", "--from", "a.json", "--host", "n1"], "--host: only applies with --from-history; add it or drop --host"),
            (&["baseline", "--from", "a.json", "--command", "cpu"], "--command: only applies with --from-history; add it or drop --command"),
            (&["baseline", "--from", "a.json", "--across-changes"], "--across-changes: only applies with --from-history; add it or drop --across-changes"),
        ] {
            assert_eq!(refused(args), [line], "{args:?}");
        }
        // The default `--interval` requires nothing; the given one fits `--sustain`.
        let ok: Vec<OsString> = ["peakbench", "cpu", "--sustain", "2s", "--interval", "500ms"]
            .iter()
            .map(OsString::from)
            .collect();
        assert!(parse(&ok).is_ok());
        let l = refused(&["memory", "--sweep", "--size", "1GiB", "--kernel", "nope"]);
        assert_eq!(l.len(), 2, "{l:?}");
        assert!(
            l.iter().any(|x| x.starts_with("--kernel: unknown")),
            "{l:?}"
        );
        assert!(
            l.iter()
                .any(|x| x.starts_with("--size: cannot be combined")),
            "{l:?}"
        );
    }

    #[test]
    fn a_good_line_parses_and_help_is_shown() {
        let argv: Vec<OsString> = ["peakbench", "cpu", "--threads", "1"]
            .iter()
            .map(OsString::from)
            .collect();
        assert!(parse(&argv).is_ok());
        let argv: Vec<OsString> = ["peakbench", "cpu", "--help"]
            .iter()
            .map(OsString::from)
            .collect();
        assert!(matches!(parse(&argv), Err(Refusal::Shown(_))));
    }
}
