//! The second hidden test resource (issue #46): `tally` counts in a dependent loop and
//! reports counts per second, a metric (`counts`) and a unit (`count/s`) of its own,
//! with its own facts (a 15 % noise floor, the `--peak tally` key). It is this folder
//! and one `#[cfg(test)]` line in `bench::RESOURCES`, nothing else: that it compiles,
//! plans, runs, and that every reader of results (JSON, the views, `compare`,
//! OpenMetrics, the cluster's receipt check) takes its rows, is what its tests hold.

use super::peaks::{PeakKey, PeakKind};
use super::rate_case::{rate_row, ThreadsOptions};
use super::resource::{self, Case, Context, Plan, Run, UsageError};
use crate::measure::runner::Workload;
use crate::report::kinds::{ChartHint, MetricDef, PeakHint, ResourceDef, UnitDef};
use crate::report::model::{BenchResult, Metric, ResourceName, Unit};

/// The resource.
pub(crate) struct TallyBench;

/// Its metric: counts per second.
static COUNTS: MetricDef = MetricDef {
    rank: 1000,
    name: "counts",
    lower_is_better: false,
};

/// Its unit, a row of the unit table written here.
static COUNT_PER_SEC: UnitDef = UnitDef {
    rank: 1000,
    symbol: "count/s",
    metric: Metric::new(&COUNTS),
    openmetrics: "counts_per_second",
    openmetrics_unit: None,
    what: "counts per second",
    lower_is_better: false,
};

/// Its facts, as its results carry them.
static TALLY: ResourceDef = ResourceDef {
    rank: 1000,
    name: "tally",
    noise_floor_pct: 15,
    peak: &[PeakHint {
        metric: None,
        with: "tally",
        without: "tally",
    }],
    chart: ChartHint {
        cache_marks: false,
        compute_ceiling: false,
        bandwidth_ceiling: false,
    },
};

/// Counts, one dependent step at a time.
struct Count;

impl Workload for Count {
    fn run(&mut self, iters: u64) -> f64 {
        let mut n = 0u64;
        for _ in 0..iters {
            n = std::hint::black_box(n + 1);
        }
        n as f64
    }
}

struct TallyCase {
    threads: usize,
}

impl Case for TallyCase {
    fn label(&self) -> String {
        format!("tally threads={}", self.threads)
    }

    fn run(&self, ctx: &Context) -> Vec<BenchResult> {
        let row = BenchResult::new(
            ResourceName::new(&TALLY),
            "count",
            Metric::new(&COUNTS),
            Unit::new(&COUNT_PER_SEC),
        );
        vec![rate_row(
            ctx,
            self.threads,
            row,
            PeakKey::new("tally"),
            |_| Ok(Count),
        )]
    }
}

impl Plan for TallyBench {
    type Options = ThreadsOptions;

    fn plan(&self, o: &ThreadsOptions, _ctx: &Context) -> Result<Vec<Box<dyn Case>>, UsageError> {
        Ok(o.cases(|t| Box::new(TallyCase { threads: t })))
    }
}

impl resource::Resource for TallyBench {
    fn name(&self) -> &'static str {
        TALLY.name
    }

    fn about(&self) -> &'static str {
        "Counts; a test resource with a metric and a unit of its own"
    }

    fn hidden(&self) -> bool {
        true
    }

    fn command(&self) -> clap::Command {
        resource::subcommand::<ThreadsOptions>(self)
    }

    fn parse(&self, m: &clap::ArgMatches) -> Result<Box<dyn Run>, UsageError> {
        resource::parse_with(&TallyBench, m, ThreadsOptions::parse)
    }

    fn peak_keys(&self) -> &'static str {
        "tally"
    }

    fn peak_key(&self, _key: &str, rest: &[&str]) -> Result<Option<(PeakKey, PeakKind)>, String> {
        Ok(rest
            .is_empty()
            .then(|| (PeakKey::new("tally"), PeakKind::Ops)))
    }

    fn quick(&self, _ctx: &Context) -> Vec<Box<dyn Case>> {
        vec![Box::new(TallyCase { threads: 1 })]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::common::{self, args_from, CommonArgs};
    use crate::report::model::Report;

    /// The resource plans and runs; its one row carries
    /// its own name, metric, unit and facts, and every reader takes it.
    #[test]
    fn a_resource_of_its_own_runs_through_every_reader() {
        // Its registration is the registry's tests' (`bench::tests`, `app::tests`):
        // naming the registry here would be an import circle.
        let r: &dyn resource::Resource = &TallyBench;
        let m = r
            .command()
            .try_get_matches_from(["tally", "--threads", "1"])
            .unwrap();
        let run = r.parse(&m).unwrap();
        let host = crate::report::samples::host();
        // `--peak tally=1` as the assembled command line gives it (CommonArgs parsed
        // alone refuses every `--peak`: its keys are the registry's).
        let mut args: CommonArgs = args_from(&["--repeat", "2", "--min-time", "1ms"]);
        args.peak.push(crate::bench::peaks::PeakSetting {
            key: PeakKey::new("tally"),
            value: 1.0,
        });
        let opts = common::parse(&args, false).unwrap();
        let ctx = Context {
            host: &host,
            opts: &opts,
        };
        let cases = run.plan(&ctx).unwrap();
        assert_eq!(cases.len(), 1);
        let rows = cases[0].run(&ctx);
        let row = &rows[0];
        assert!(row.is_ok(), "{:?}", row.status);
        assert_eq!(row.resource.as_str(), "tally");
        assert_eq!(row.resource.noise_floor(), 0.15);
        // Its unit measures its metric (a cluster rank's rows pass the receipt check).
        let back = crate::report::physics::on_receipt(row.clone()).unwrap();
        assert_eq!(back.unit.as_str(), "count/s");
        let v = serde_json::to_value(row).unwrap();
        assert_eq!(v["resource"], "tally");
        assert_eq!(v["metric"], "counts");
        assert_eq!(v["unit"], "count/s");
        assert_eq!(
            crate::report::view::openmetrics::figure(row.unit).0,
            "counts_per_second"
        );
        // Its --peak key, for a row whose peak is unknown.
        let mut unknown = row.clone();
        unknown.peak = Some(crate::hw::peak::Peak {
            value: None,
            source: "no table row".into(),
        });
        let hint = crate::report::view::cells::peak_unknown(&unknown).unwrap();
        assert!(hint.ends_with("--peak tally=…"), "{hint}");
        // compare takes its direction and its noise floor.
        let report = |rows: Vec<BenchResult>| Report {
            schema: crate::report::model::SCHEMA.into(),
            tool_version: "test".into(),
            started_at: "2026-01-01T00:00:00Z".into(),
            finished_at: None,
            host: host.clone(),
            config: serde_json::Value::Null,
            results: rows,
            hosts: Vec::new(),
            run_quality: None,
        };
        let a = report(rows.clone());
        let mut b = a.clone();
        b.results[0].summary = b.results[0].summary.clone().map(|mut s| {
            s.mean *= 0.5;
            s
        });
        let c = crate::report::compare::compare(&["a".into(), "b".into()], &[a.clone(), b]);
        assert_eq!(c.changes.len(), 1);
        assert!(c.changes[0].noise >= 0.15, "{:?}", c.changes[0]);
        // Every view renders it.
        for f in ["table", "json", "csv", "markdown", "openmetrics"] {
            let mut out = Vec::new();
            let format = crate::report::view::Format::parse(f).unwrap();
            crate::report::export(&a, format, &mut out).unwrap();
            let text = String::from_utf8(out).unwrap();
            assert!(text.contains("count"), "{f}: {text}");
        }
    }
}
