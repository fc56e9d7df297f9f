//! The peakbench binary: parse, run, map the outcome to an exit code
//! (0 ok, 1 runtime failure, 2 bad usage). A closed stdout (`| head`) is not an error.
//! Every refusal and error is printed through `sanitize::message`, here in one place,
//! since they quote values from the command line and from files.

use clap::error::ErrorKind;
use clap::Parser;
use peakbench::util::sanitize::message;
use std::process::ExitCode;

fn main() -> ExitCode {
    // Mesa's Vulkan device-select layer prints "XDG_RUNTIME_DIR is invalid" on headless
    // machines and only reorders devices, which peakbench does itself. Set before any
    // thread exists, so the environment is not modified concurrently.
    if std::env::var_os("NODEVICE_SELECT").is_none() {
        std::env::set_var("NODEVICE_SELECT", "1");
    }
    let cli = match peakbench::cli::Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            return match e.kind() {
                ErrorKind::DisplayHelp
                | ErrorKind::DisplayVersion
                | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                    let _ = e.print();
                    ExitCode::SUCCESS
                }
                _ => {
                    // One line: clap's first line, without its usage block.
                    let text = e.to_string();
                    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
                    let first = lines.next().unwrap_or("invalid arguments");
                    let first = first.trim_start_matches("error: ");
                    // "required arguments were not provided:" names them on the next line.
                    let what = match lines.next() {
                        Some(next) if first.ends_with(':') => format!(" {}", next.trim()),
                        _ => String::new(),
                    };
                    eprintln!(
                        "error: {} (see peakbench --help)",
                        message(&format!("{first}{what}"))
                    );
                    ExitCode::from(2)
                }
            };
        }
    };
    match peakbench::app::run(cli) {
        Ok(code) => code,
        Err(e) => {
            let broken_pipe = e.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            });
            if broken_pipe {
                return ExitCode::SUCCESS;
            }
            if peakbench::app::is_usage(&e) {
                eprintln!("error: {}", message(&e.to_string()));
                ExitCode::from(2)
            } else {
                eprintln!("error: {}", message(&format!("{e:#}")));
                ExitCode::FAILURE
            }
        }
    }
}
