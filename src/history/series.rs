//! Reading one case's figures over time out of the history, as the document
//! `report::series::Series` (its change points found by `report::series`' method).

use super::{why, Filter, History, HistoryError};
use crate::report::model::{Metric, Unit};
use crate::report::series::{change_points, CaseSeries, Point, Series, METHOD};

impl History {
    /// The case keys recorded under `f` whose key contains `case` (every key when
    /// `None`), sorted.
    pub fn case_keys(&self, f: &Filter, case: Option<&str>) -> Result<Vec<String>, HistoryError> {
        let err = |e: rusqlite::Error| HistoryError::Sqlite(self.shown.clone(), why(&e));
        let mut st = self
            .conn
            .prepare(
                "SELECT DISTINCT c.key FROM cases c JOIN runs r ON r.id = c.run_id
                 WHERE (?1 IS NULL OR c.host = ?1)
                   AND (?2 IS NULL OR r.command = ?2)
                   AND (?3 IS NULL OR r.started_unix >= ?3)
                   AND (?4 IS NULL OR r.started_unix < ?4)
                   AND (?5 IS NULL OR instr(c.key, ?5) > 0)
                 ORDER BY c.key",
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

    /// The series of the case `key` (exact) under `f`, oldest first, per host when
    /// several hosts measured it (each host's runs are their own series).
    pub fn case_series(&self, f: &Filter, key: &str) -> Result<Vec<CaseSeries>, HistoryError> {
        let err = |e: rusqlite::Error| HistoryError::Sqlite(self.shown.clone(), why(&e));
        let mut st = self
            .conn
            .prepare(
                "SELECT r.id, r.started_at, c.host, c.value, c.status, c.peak, c.efficiency,
                        c.disturbed, c.samples, c.metric, c.unit
                 FROM cases c JOIN runs r ON r.id = c.run_id
                 WHERE c.key = ?6
                   AND (?1 IS NULL OR c.host = ?1)
                   AND (?2 IS NULL OR r.command = ?2)
                   AND (?3 IS NULL OR r.started_unix >= ?3)
                   AND (?4 IS NULL OR r.started_unix < ?4)
                   AND (?5 IS NULL OR 1)
                 ORDER BY c.host, r.started_unix, r.id, c.idx",
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
                    ))
                },
            )
            .map_err(err)?;
        let mut out: Vec<CaseSeries> = Vec::new();
        for row in rows {
            let (p, metric, unit) = row.map_err(err)?;
            let (Some(metric), Some(unit)) = (Metric::parse(&metric), Unit::parse(&unit)) else {
                continue;
            };
            match out.last_mut() {
                Some(s) if s.points.last().is_some_and(|q| q.host == p.host) => s.points.push(p),
                _ => out.push(CaseSeries {
                    case: key.to_string(),
                    metric,
                    unit,
                    points: vec![p],
                    change_points: Vec::new(),
                }),
            }
        }
        for s in &mut out {
            s.change_points = change_points(&s.points);
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
}
