//! The peakbench binary: parse, run, map the outcome to an exit code
//! (0 ok, 1 runtime failure, 2 bad usage). A closed stdout (`| head`) is not an error.
//! Every refusal and error is printed through `sanitize::message`, here in one place,
//! since they quote values from the command line and from files.

use peakbench::cmdline::Refusal;
use peakbench::util::sanitize::message;
use std::process::ExitCode;

fn main() -> ExitCode {
    // Mesa's Vulkan device-select layer prints "XDG_RUNTIME_DIR is invalid" on headless
    // machines and only reorders devices, which peakbench does itself. Set before any
    // thread exists, so the environment is not modified concurrently.
    if std::env::var_os("NODEVICE_SELECT").is_none() {
        std::env::set_var("NODEVICE_SELECT", "1");
    }
    // Every problem of the command line at once, one line each (cmdline).
    let cli = match peakbench::cmdline::parse_env() {
        Ok(c) => c,
        Err(Refusal::Shown(e)) => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(Refusal::Usage(lines)) => {
            for l in lines {
                eprintln!("error: {}", message(&l));
            }
            return ExitCode::from(2);
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
