//! Reading one case's figures over time out of the history, as the document
//! `report::series::Series` (its change points found by `report::series`' method).
//! A series is one case on one host with one set of the settings that change its
//! figure (`report::settings::config_settings`): a `--repeat 5` run never joins a series of
//! `--repeat 3` runs.

use super::{why, Filter, History, HistoryError};
use crate::report::model::{Metric, ResourceName, Unit};
use crate::report::series::{
    change_points_with, min_effect, CaseSeries, Point, Search, Series, METHOD,
};
use crate::report::settings::{config_settings as figure_settings, show};
use std::collections::BTreeMap;

/// The settings that change a figure (`report::settings::config_settings`).
type Settings = BTreeMap<String, String>;

/// What sets a series apart: the host and the settings that change the figure.
type SeriesId = (String, Settings);

impl History {
    /// The case keys recorded under `f` whose key contains `case` (every key when
    /// `None`), sorted.
    pub fn case_keys(&self, f: &Filter, case: Option<&str>) -> Result<Vec<String>, HistoryError> {
        let err = |e: rusqlite::Error| HistoryError::Sqlite(self.shown.clone(), why(&e));
        let mut st = self
            .conn
            .prepare(
                "SELECT DISTINCT k.text FROM case_rows c JOIN runs r ON r.id = c.run_id
                 JOIN texts k ON k.id = c.key_t
                 WHERE (?1 IS NULL OR c.host_t = (SELECT id FROM texts WHERE text = ?1))
                   AND (?2 IS NULL OR r.command = ?2)
                   AND (?3 IS NULL OR r.started_unix >= ?3)
                   AND (?4 IS NULL OR r.started_unix < ?4)
                   AND (?5 IS NULL OR instr(k.text, ?5) > 0)
                 ORDER BY k.text",
            )
            .map_err(err)?;
        let keys = st
            .query_map(
                rusqlite::params![f.host, f.command, f.since, f.until, case],
                |r| r.get::<_, String>(0),
            )
            .map_err(err)?;
        keys.collect::<Result<Vec<_>, _>>().map_err(err)
    }

    /// The series of the case `key` (exact) under `f`, oldest first: one per host and
    /// set of figure settings (each host's runs are their own series, and so are runs
    /// whose settings change the figure).
    pub fn case_series(&self, f: &Filter, key: &str) -> Result<Vec<CaseSeries>, HistoryError> {
        Ok(self
            .keyed_series(f, key)?
            .into_iter()
            .map(|(_, s)| s)
            .collect())
    }

    /// [`History::case_series`], each with the figure settings that set it apart
    /// (`report::settings::config_settings` of its runs).
    fn keyed_series(
        &self,
        f: &Filter,
        key: &str,
    ) -> Result<Vec<(Settings, CaseSeries)>, HistoryError> {
        let err = |e: rusqlite::Error| HistoryError::Sqlite(self.shown.clone(), why(&e));
        let mut st = self
            .conn
            .prepare(
                "SELECT r.id, r.started_at, h.text, c.value, st.text, c.peak, c.efficiency,
                        c.disturbed, c.samples, m.text, u.text, r.settings, re.text
                 FROM case_rows c JOIN runs r ON r.id = c.run_id
                 JOIN texts h ON h.id = c.host_t JOIN texts st ON st.id = c.status_t
                 JOIN texts m ON m.id = c.metric_t JOIN texts u ON u.id = c.unit_t
                 JOIN texts re ON re.id = c.resource_t
                 WHERE c.key_t = (SELECT id FROM texts WHERE text = ?6)
                   AND (?1 IS NULL OR c.host_t = (SELECT id FROM texts WHERE text = ?1))
                   AND (?2 IS NULL OR r.command = ?2)
                   AND (?3 IS NULL OR r.started_unix >= ?3)
                   AND (?4 IS NULL OR r.started_unix < ?4)
                   AND (?5 IS NULL OR 1)
                 ORDER BY h.text, r.started_unix, r.id, c.idx",
            )
            .map_err(err)?;
        let rows = st
            .query_map(
                rusqlite::params![f.host, f.command, f.since, f.until, f.case, key],
                |r| {
                    let samples: String = r.get(8)?;
                    Ok((
                        Point {
                            run: r.get(0)?,
                            started_at: r.get(1)?,
                            host: r.get(2)?,
                            value: r.get(3)?,
                            status: r.get(4)?,
                            peak: r.get(5)?,
                            efficiency: r.get(6)?,
                            disturbed: r.get(7)?,
                            samples: serde_json::from_str(&samples).unwrap_or_default(),
                        },
                        r.get::<_, String>(9)?,
                        r.get::<_, String>(10)?,
                        r.get::<_, String>(11)?,
                        r.get::<_, String>(12)?,
                    ))
                },
            )
            .map_err(err)?;
        // (host, figure settings) → the series, in the order first seen.
        let mut by: Vec<(SeriesId, CaseSeries, f64)> = Vec::new();
        for row in rows {
            let (p, metric, unit, settings, resource) = row.map_err(err)?;
            let (Some(metric), Some(unit)) = (Metric::parse(&metric), Unit::parse(&unit)) else {
                continue;
            };
            let set = figure_settings(&serde_json::from_str(&settings).unwrap_or_default());
            let id = (p.host.clone(), set);
            match by.iter_mut().find(|(k, _, _)| *k == id) {
                Some((_, s, _)) => s.points.push(p),
                None => {
                    let effect = ResourceName::parse(&resource)
                        .map_or(crate::report::series::MIN_EFFECT, min_effect);
                    by.push((
                        id,
                        CaseSeries {
                            case: key.to_string(),
                            metric,
                            unit,
                            settings: String::new(),
                            points: vec![p],
                            change_points: Vec::new(),
                        },
                        effect,
                    ));
                }
            }
        }
        // Name the settings that set a host's series apart, when it has several.
        let sets: Vec<(String, BTreeMap<String, String>)> =
            by.iter().map(|(k, _, _)| k.clone()).collect();
        let mut out = Vec::new();
        for ((host, set), mut s, effect) in by {
            let others: Vec<&BTreeMap<String, String>> = sets
                .iter()
                .filter(|(h, o)| *h == host && *o != set)
                .map(|(_, o)| o)
                .collect();
            if !others.is_empty() {
                let keys = set.keys().chain(others.iter().flat_map(|o| o.keys()));
                let differ: BTreeMap<String, String> = keys
                    .filter(|k| others.iter().any(|o| o.get(*k) != set.get(*k)))
                    .map(|k| {
                        let v = set.get(k).map_or("(unset)", String::as_str);
                        (k.clone(), v.to_string())
                    })
                    .collect();
                s.settings = show(&differ);
            }
            s.change_points = change_points_with(
                &s.points,
                Search {
                    min_effect: effect,
                    ..Search::default()
                },
            );
            out.push((set, s));
        }
        Ok(out)
    }

    /// Every case matching `case` (a part of its key; every case when `None`) under
    /// `f`, each as its series: the document of `history show`.
    pub fn series(
        &self,
        f: &Filter,
        case: Option<&str>,
        title: String,
    ) -> Result<Series, HistoryError> {
        let mut cases = Vec::new();
        for k in self.case_keys(f, case)? {
            cases.extend(self.case_series(f, &k)?);
        }
        Ok(Series {
            title,
            method: METHOD,
            cases,
        })
    }

    /// The change points of `host`'s `command` runs that start after `since` (Unix):
    /// one line each (`CASE: −12.0 % at run ID (STARTED)`), at most `max` and a count of
    /// the rest. What `baseline --from-history` says when the runs it takes span a
    /// change (issue #44 item 7): a reference mixing before and after is no reference.
    pub fn changes_after(
        &self,
        host: &str,
        command: &str,
        since: i64,
        max: usize,
    ) -> Result<Vec<String>, HistoryError> {
        let mut lines: Vec<String> = self
            .change_points_after(host, command, None, since)?
            .into_iter()
            .map(|c| c.line)
            .collect();
        if lines.len() > max {
            let more = lines.len() - max;
            lines.truncate(max);
            lines.push(format!("and {more} more change points"));
        }
        Ok(lines)
    }

    /// The change points of `host`'s `command` runs that start after `since` (Unix), in
    /// the series of the figure settings `settings` (`config_settings` of a run's
    /// config; `None`: every series), in no particular order: what `baseline
    /// --from-history` takes its runs after (issue #44 item 7).
    pub(crate) fn change_points_after(
        &self,
        host: &str,
        command: &str,
        settings: Option<&BTreeMap<String, String>>,
        since: i64,
    ) -> Result<Vec<Change>, HistoryError> {
        let f = Filter {
            host: Some(host.to_string()),
            command: Some(command.to_string()),
            ..Filter::default()
        };
        let mut out = Vec::new();
        for k in self.case_keys(&f, None)? {
            for (set, s) in self.keyed_series(&f, &k)? {
                if settings.is_some_and(|want| *want != set) {
                    continue;
                }
                for c in &s.change_points {
                    let started = super::record::unix(&c.started_at);
                    if started > since {
                        out.push(Change {
                            started_unix: started,
                            run: s.points[c.index].run,
                            line: format!(
                                "{k}{}: {} at run {} ({})",
                                if s.settings.is_empty() {
                                    String::new()
                                } else {
                                    format!(" ({})", s.settings)
                                },
                                c.rel
                                    .map_or("a change".into(), |r| format!("{:+.1} %", r * 100.0)),
                                s.points[c.index].run,
                                c.started_at
                            ),
                        });
                    }
                }
            }
        }
        Ok(out)
    }
}

/// A change point of one case's series ([`History::change_points_after`]).
#[derive(Debug, Clone)]
pub(crate) struct Change {
    /// The start of the first run at the new level (Unix seconds).
    pub(crate) started_unix: i64,
    /// That run's id.
    pub(crate) run: i64,
    /// `CASE: −12.0 % at run ID (STARTED)`.
    pub(crate) line: String,
}
