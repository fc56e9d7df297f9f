//! clpeak (Debian `clpeak`): OpenCL peak compute and global memory bandwidth, put beside
//! `peakbench gpu` cases on the same device.
//!
//! clpeak measures every test in one run of tens of seconds, so it runs once per
//! process ([`Tool::shared`]) and its parsed output is kept in the run's memo:
//!
//! 1. `clpeak --help` says which test flags this clpeak has (1.1.2, Debian 12's, has no
//!    `--compute-hp`: its half-precision test runs with `--compute-dp`);
//! 2. `clpeak --kernel-latency` (its quickest test) lists the OpenCL platforms and
//!    devices, in the order `-p`/`-d` count them;
//! 3. the device whose name is the peakbench adapter's ([`same_model`]) is measured
//!    with `clpeak -p P -d D --global-bandwidth --compute-sp [--compute-hp]
//!    --compute-dp --compute-integer`, within [`RUN_TIMEOUT`]. No matching device: the
//!    case gets a note naming the devices clpeak saw, and no figure — different devices
//!    are never compared.
//!
//! Mapping and counting (clpeak 1.x sources: `clpeak.cpp`, `options.cpp`,
//! `global_bandwidth.cpp`, `compute_{sp,hp,dp,integer}.cpp` and their `.cl` kernels).
//! Every figure is clpeak's best vector width (`float` … `float16`), in decimal units
//! (GBPS, GFLOPS, GIOPS × 10⁹):
//!
//! | peakbench case | clpeak test | convention |
//! | --- | --- | --- |
//! | `fma` fp32 / fp16 / fp64 | single / half / double-precision compute | each `mad()` is 2 FLOP, like peakbench's fma (some clpeak versions accumulate `z += mad(…)` and do not count that add) |
//! | `muladd` int32 | integer compute | `x = y * x + y` on 32-bit ints counted as **1** op; peakbench counts 2 per multiply-add, so at equal speed clpeak shows half (kept as printed, with a note) |
//! | `read` | global memory bandwidth | bytes loaded (16 loads per work-item, best of two offset patterns); the one store per work-item is not counted, like peakbench's read |
//!
//! clpeak's `--compute-intfast` (mad24) is not used: peakbench has no 24-bit case.

use super::{capture, strip_ansi, Context, Found, Row, SharedFound, Tool, VersionFrom};
use crate::hw::gpu::GpuInfo;
use crate::report::model::{BenchResult, Metric, Reference, ResourceName, Unit};
use std::time::Duration;

/// The clpeak adapter.
pub(crate) struct Clpeak;

/// Longest the `--help` probe may take.
const HELP_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest the device listing may take (clpeak builds its kernels for every device).
const LIST_TIMEOUT: Duration = Duration::from_secs(120);
/// Longest the measuring run may take.
pub(crate) const RUN_TIMEOUT: Duration = Duration::from_secs(300);
/// The test flags of the measuring run, when clpeak's `--help` lists them.
const TEST_FLAGS: [&str; 5] = [
    "--global-bandwidth",
    "--compute-sp",
    "--compute-hp",
    "--compute-dp",
    "--compute-integer",
];
/// Leading vendor words that one API prints and another may not
/// (`GeForce GTX 1080` in old NVIDIA OpenCL, `NVIDIA GeForce GTX 1080` in Vulkan).
const VENDOR_WORDS: [&str; 5] = ["nvidia", "amd", "ati", "intel", "apple"];

/// A clpeak test that has a peakbench counterpart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Test {
    /// Global memory bandwidth (a read test).
    GlobalBandwidth,
    /// Single-precision compute.
    Single,
    /// Half-precision compute.
    Half,
    /// Double-precision compute.
    Double,
    /// Integer compute (32-bit multiply and add).
    Integer,
}

impl Test {
    const ALL: [Test; 5] = [
        Test::GlobalBandwidth,
        Test::Single,
        Test::Half,
        Test::Double,
        Test::Integer,
    ];

    /// The section title clpeak prints, lower case, without the unit.
    fn title(self) -> &'static str {
        match self {
            Test::GlobalBandwidth => "global memory bandwidth",
            Test::Single => "single-precision compute",
            Test::Half => "half-precision compute",
            Test::Double => "double-precision compute",
            Test::Integer => "integer compute",
        }
    }

    /// peakbench's unit for the figure.
    pub(crate) fn unit(self) -> Unit {
        match self {
            Test::GlobalBandwidth => Unit::BytePerSec,
            Test::Integer => Unit::OpPerSec,
            _ => Unit::FlopPerSec,
        }
    }

    /// Whether a unit clpeak printed, less its SI prefix (`bps`, `flops`, `iops`), fits.
    fn unit_fits(self, rest: &str) -> bool {
        match self {
            Test::GlobalBandwidth => rest == "bps" || rest == "b/s",
            Test::Integer => rest == "iops" || rest == "ops",
            _ => rest == "flops",
        }
    }

    /// The clpeak test for a peakbench GPU case, if it has one.
    pub(crate) fn of(r: &BenchResult) -> Option<Test> {
        if r.resource != ResourceName::Gpu {
            return None;
        }
        let t = match (r.workload.as_str(), r.param_str("precision")) {
            ("fma", Some("fp32")) => Test::Single,
            ("fma", Some("fp16")) => Test::Half,
            ("fma", Some("fp64")) => Test::Double,
            ("muladd", Some("int32")) => Test::Integer,
            ("read", _) if r.metric == Metric::Throughput => Test::GlobalBandwidth,
            _ => return None,
        };
        (r.unit == t.unit()).then_some(t)
    }

    /// What the case's reader should know about clpeak's counting, if it differs.
    fn convention(self) -> Option<&'static str> {
        match self {
            Test::Integer => Some(
                "clpeak's integer test counts x = y*x + y (32-bit) as 1 op, peakbench's muladd \
                 counts a multiply-add as 2 OP: at equal speed clpeak shows half (kept as printed)",
            ),
            Test::GlobalBandwidth => Some(
                "clpeak's global memory bandwidth is a read test (16 loads per work-item, best \
                 vector width; its one store per work-item is not counted), like peakbench's read",
            ),
            _ => None,
        }
    }
}

/// One device's best figure per test, in B/s, FLOP/s or OP/s as clpeak counts them.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Figures {
    /// Global memory bandwidth, B/s.
    pub(crate) global_bandwidth: Option<f64>,
    /// Single-precision compute, FLOP/s.
    pub(crate) single: Option<f64>,
    /// Half-precision compute, FLOP/s.
    pub(crate) half: Option<f64>,
    /// Double-precision compute, FLOP/s.
    pub(crate) double: Option<f64>,
    /// Integer compute, OP/s (one per multiply-add).
    pub(crate) integer: Option<f64>,
}

impl Figures {
    fn slot(&mut self, t: Test) -> &mut Option<f64> {
        match t {
            Test::GlobalBandwidth => &mut self.global_bandwidth,
            Test::Single => &mut self.single,
            Test::Half => &mut self.half,
            Test::Double => &mut self.double,
            Test::Integer => &mut self.integer,
        }
    }

    /// The figure of test `t`.
    pub(crate) fn get(&self, t: Test) -> Option<f64> {
        match t {
            Test::GlobalBandwidth => self.global_bandwidth,
            Test::Single => self.single,
            Test::Half => self.half,
            Test::Double => self.double,
            Test::Integer => self.integer,
        }
    }

    /// Keeps `v` for `t` when it beats what is there (the best vector width).
    fn keep_best(&mut self, t: Test, v: f64) {
        let s = self.slot(t);
        if s.is_none_or(|old| v > old) {
            *s = Some(v);
        }
    }
}

/// One OpenCL device as clpeak printed it.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ClDevice {
    /// Platform position (`-p`).
    pub(crate) platform_index: usize,
    /// Platform name.
    pub(crate) platform: String,
    /// Device position within its platform (`-d`).
    pub(crate) index: usize,
    /// Device name (`CL_DEVICE_NAME`).
    pub(crate) name: String,
    /// Its figures (none for a listing run).
    pub(crate) figures: Figures,
}

impl ClDevice {
    /// `-p 0 -d 1 "name" (platform)`, for notes.
    fn label(&self) -> String {
        format!(
            "-p {} -d {} \"{}\" ({})",
            self.platform_index, self.index, self.name, self.platform
        )
    }
}

/// `Platform: X` / `Device: X` (clpeak 1.x) or `Platform 0: X` / `Device 0: X`: the
/// index, if printed, and the name.
fn labelled<'a>(t: &'a str, word: &str) -> Option<(Option<usize>, &'a str)> {
    let (idx, name) = t.strip_prefix(word)?.split_once(':')?;
    let idx = idx.trim();
    let idx = if idx.is_empty() {
        None
    } else {
        Some(idx.parse().ok()?)
    };
    Some((idx, name.trim()))
}

/// A section header of a test peakbench uses (`Single-precision compute (GFLOPS)`):
/// the test and the factor to base units. Other headers, skip lines and errors: `None`.
fn section(t: &str) -> Option<(Test, f64)> {
    let open = t.rfind('(')?;
    let unit = t[open + 1..].strip_suffix(')')?.trim().to_lowercase();
    let mut title = t[..open].trim().to_lowercase();
    // Newer clpeak puts a variant in brackets before the unit.
    if let Some(i) = title.find('[') {
        title.truncate(i);
    }
    let title = title.trim();
    let test = Test::ALL.into_iter().find(|x| x.title() == title)?;
    let scale = match unit.chars().next()? {
        'k' => 1e3,
        'm' => 1e6,
        'g' => 1e9,
        't' => 1e12,
        _ => return None,
    };
    // The first character is ASCII here, so slicing after it is safe.
    test.unit_fits(&unit[1..]).then_some((test, scale))
}

/// Whether a row label is a vector type clpeak measures (`float`, `half8`, `int16`).
fn is_width(label: &str) -> bool {
    let digits = label.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let word = &label[..label.len() - digits.len()];
    ["float", "half", "double", "int"].contains(&word) && digits.chars().all(|c| c.is_ascii_digit())
}

/// The number a value field starts with (`2.65`, `1.2e+03`); `None` for an error text.
fn leading_number(s: &str) -> Option<f64> {
    let s = s.trim();
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E')))
        .unwrap_or(s.len());
    s[..end]
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v >= 0.0)
}

/// Parses clpeak's text output into its devices, in the order printed, with the best
/// vector width of each test peakbench uses. Platforms and devices without a printed
/// index are counted in order (what `-p`/`-d` select). Lines of other tests, skip
/// messages ("No double precision support! Skipped"), build logs and error lines add
/// nothing; odd input gives fewer devices or figures, never a panic. Output of other
/// backends of newer clpeak (`Backend: CUDA`) is left out: only OpenCL devices count.
pub(crate) fn parse(text: &str) -> Vec<ClDevice> {
    let mut devices: Vec<ClDevice> = Vec::new();
    let mut platform: Option<(usize, String)> = None;
    let mut platforms_seen = 0usize;
    let mut devices_in_platform = 0usize;
    let mut opencl = true;
    let mut current: Option<(Test, f64)> = None;
    for raw in text.lines() {
        let line = strip_ansi(raw);
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        if let Some(backend) = t.strip_prefix("Backend:") {
            opencl = backend.to_lowercase().contains("opencl");
            platforms_seen = 0;
            platform = None;
            current = None;
            continue;
        }
        if !opencl {
            continue;
        }
        if let Some((idx, name)) = labelled(t, "Platform") {
            platform = Some((idx.unwrap_or(platforms_seen), name.to_string()));
            platforms_seen += 1;
            devices_in_platform = 0;
            current = None;
            continue;
        }
        if let Some((idx, name)) = labelled(t, "Device") {
            let (platform_index, platform_name) = platform.clone().unwrap_or_default();
            devices.push(ClDevice {
                platform_index,
                platform: platform_name,
                index: idx.unwrap_or(devices_in_platform),
                name: name.to_string(),
                figures: Figures::default(),
            });
            devices_in_platform += 1;
            current = None;
            continue;
        }
        let Some(dev) = devices.last_mut() else {
            continue;
        };
        match t.split_once(':') {
            // A header, a skip message or an error line: a new section or none.
            None => current = section(t),
            Some((label, value)) => {
                if let Some((test, scale)) = current {
                    if is_width(label.trim()) {
                        if let Some(v) = leading_number(value) {
                            dev.figures.keep_best(test, v * scale);
                        }
                    }
                }
            }
        }
    }
    devices
}

/// The words of a device name that identify the model: lower case, without `(R)`/`(TM)`
/// and without the driver's suffix in parentheses or brackets (`(RADV NAVI21)`,
/// `[0x3e92]`, `(CFL GT2)`).
pub(crate) fn name_words(name: &str) -> Vec<String> {
    let mut s = name.to_lowercase();
    for mark in ["(r)", "(tm)", "®", "™"] {
        s = s.replace(mark, " ");
    }
    let cut = s.find(['(', '[']).unwrap_or(s.len());
    s[..cut]
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// Whether two device names (one from wgpu, one from OpenCL) are the same model: equal
/// [`name_words`], or equal once a leading vendor word is dropped from both. Never a
/// prefix match (`RTX 3080` is not `RTX 3080 Ti`).
pub(crate) fn same_model(a: &str, b: &str) -> bool {
    let (a, b) = (name_words(a), name_words(b));
    if a.is_empty() || b.is_empty() {
        return false;
    }
    let bare = |w: &[String]| -> Vec<String> {
        match w.split_first() {
            Some((first, rest)) if !rest.is_empty() && VENDOR_WORDS.contains(&first.as_str()) => {
                rest.to_vec()
            }
            _ => w.to_vec(),
        }
    };
    a == b || bare(&a) == bare(&b)
}

/// The devices clpeak saw that are the adapter's model, in clpeak's order.
pub(crate) fn matching<'a>(devices: &'a [ClDevice], adapter: &str) -> Vec<&'a ClDevice> {
    devices
        .iter()
        .filter(|d| same_model(&d.name, adapter))
        .collect()
}

/// The test flags of `TEST_FLAGS` that clpeak's `--help` lists. Empty help (it could
/// not be read): clpeak 1.1.2's set, without `--compute-hp`. Help that lists none of
/// them is a clpeak whose options this adapter does not know.
pub(crate) fn test_flags(help: &str) -> Result<Vec<&'static str>, String> {
    if help.trim().is_empty() {
        return Ok(TEST_FLAGS
            .into_iter()
            .filter(|f| *f != "--compute-hp")
            .collect());
    }
    let offered: Vec<&'static str> = TEST_FLAGS
        .into_iter()
        .filter(|f| help.contains(f))
        .collect();
    if offered.is_empty() {
        return Err(
            "this clpeak's --help lists none of --global-bandwidth, --compute-sp, --compute-dp \
             (the adapter knows clpeak 1.x options)"
                .into(),
        );
    }
    Ok(offered)
}

/// The measuring command for device `d`.
pub(crate) fn run_argv(flags: &[&str], d: &ClDevice) -> Vec<String> {
    let mut argv = vec![
        "clpeak".to_string(),
        "-p".into(),
        d.platform_index.to_string(),
        "-d".into(),
        d.index.to_string(),
    ];
    argv.extend(flags.iter().map(|f| f.to_string()));
    argv
}

/// What clpeak offers here: its test flags and its devices.
#[derive(Debug, Clone)]
struct Listing {
    flags: Vec<&'static str>,
    devices: Vec<ClDevice>,
}

/// Asks clpeak for its flags (`--help`) and its devices (`--kernel-latency`, the quickest
/// test, which prints every platform and device).
fn list() -> Result<Listing, String> {
    let help = capture(&["clpeak".into(), "--help".into()], HELP_TIMEOUT)
        .map(|(out, err)| out + &err)
        .unwrap_or_default();
    let flags = test_flags(&help)?;
    let (out, _) = capture(&["clpeak".into(), "--kernel-latency".into()], LIST_TIMEOUT)?;
    Ok(Listing {
        flags,
        devices: parse(&out),
    })
}

/// The note for an adapter no OpenCL device matches.
pub(crate) fn no_match_note(adapter: &GpuInfo, seen: &[ClDevice]) -> String {
    let seen = if seen.is_empty() {
        "no OpenCL device (is an OpenCL ICD for this GPU installed?)".to_string()
    } else {
        seen.iter()
            .map(ClDevice::label)
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "no OpenCL device is adapter {} ({}); clpeak saw {seen}; nothing compared",
        adapter.index, adapter.name
    )
}

/// The figure (or the reason there is none) for test `test` on `adapter`, running clpeak
/// at most once per device for the whole run.
fn compare(test: Test, adapter: &GpuInfo, ctx: &Context, version: &str) -> Result<Found, String> {
    let listing: Result<Listing, String> = ctx.memo.get_or_insert_with("clpeak list", list);
    let listing = listing?;
    let found = matching(&listing.devices, &adapter.name);
    let Some(dev) = found.first() else {
        return Ok(Found {
            reference: None,
            notes: vec![no_match_note(adapter, &listing.devices)],
        });
    };
    let mut notes = Vec::new();
    if found.len() > 1 {
        notes.push(format!(
            "{} OpenCL devices are this model ({}); measured the first",
            found.len(),
            found
                .iter()
                .map(|d| d.label())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let argv = run_argv(&listing.flags, dev);
    let command = argv.join(" ");
    let key = format!("clpeak run {} {}", dev.platform_index, dev.index);
    let measured: Result<Vec<ClDevice>, String> = ctx.memo.get_or_insert_with(&key, || {
        capture(&argv, RUN_TIMEOUT).map(|(out, _)| parse(&out))
    });
    let measured = measured?;
    let figures = measured
        .iter()
        .find(|d| d.name == dev.name)
        .map(|d| d.figures)
        .ok_or_else(|| format!("`{command}` printed no results for \"{}\"", dev.name))?;
    let Some(value) = figures.get(test) else {
        notes.push(format!(
            "`{command}` printed no {} figure for \"{}\" (not supported there?)",
            test.title(),
            dev.name
        ));
        return Ok(Found {
            reference: None,
            notes,
        });
    };
    notes.extend(test.convention().map(str::to_string));
    Ok(Found {
        reference: Some(Reference {
            tool: "clpeak".into(),
            version: version.into(),
            command,
            value,
            unit: test.unit(),
        }),
        notes,
    })
}

/// clpeak: who it is, what it checks, how its version is read (its line in [`super::TOOLS`]).
pub(crate) static ROW: Row = Row {
    name: "clpeak",
    binary: "clpeak",
    package: "clpeak",
    covers: "gpu fma fp32/fp16/fp64, muladd int32, read bandwidth (OpenCL, same device by name)",
    version: VersionFrom::Command {
        argv: &["clpeak", "--version"],
        pick: |l| {
            l.to_lowercase()
                .contains("version")
                .then(|| l.rsplit(' ').next().unwrap_or(l).trim().to_string())
        },
    },
    tool: &Clpeak,
};

impl Tool for Clpeak {
    fn shared(&self, r: &BenchResult, ctx: &Context, version: &str) -> SharedFound {
        let test = Test::of(r)?;
        let index = r.param_u64("device")?;
        let adapter = ctx
            .host
            .gpus
            .adapters
            .iter()
            .find(|a| a.index as u64 == index)?;
        Some(compare(test, adapter, ctx, version))
    }
}

#[cfg(test)]
#[path = "clpeak_tests.rs"]
mod tests;
