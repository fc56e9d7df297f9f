//! Changing what the history holds (issue #44 item 9, #43 item 3): notes on runs
//! (`history tag`), removing runs (`history delete`, `history prune`) and reading a
//! run back as its results file (`history export`). Every change is one transaction:
//! a refused request (a run that is not there) changes nothing.

use super::{why, Filter, History, HistoryError};
use rusqlite::OptionalExtension;
use std::collections::{BTreeMap, HashMap};

/// Which runs `history prune` removes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub(crate) struct Prune {
    /// Keep the newest N runs of each host and command.
    pub(crate) keep: Option<usize>,
    /// Remove runs started before this Unix time.
    pub(crate) before: Option<i64>,
}

impl Prune {
    /// The runs of `rows` (oldest first, as [`History::runs`] gives them) to remove:
    /// with `keep`, all but the newest N of each host and command; with `before`, those
    /// started earlier; with both, those started earlier that are not among the newest N.
    pub(crate) fn pick(&self, rows: &[super::RunRow]) -> Vec<i64> {
        let mut seen: HashMap<(&str, &str), usize> = HashMap::new();
        let mut out = Vec::new();
        for r in rows.iter().rev() {
            let n = seen.entry((&r.host, &r.command)).or_default();
            *n += 1;
            let beyond = self.keep.is_none_or(|k| *n > k);
            let old = self
                .before
                .is_none_or(|b| super::record::unix(&r.started_at) < b);
            if beyond && old {
                out.push(r.id);
            }
        }
        out.sort_unstable();
        out
    }
}

impl History {
    fn err(&self) -> impl Fn(rusqlite::Error) -> HistoryError + '_ {
        move |e| HistoryError::Sqlite(self.shown.clone(), why(&e))
    }

    /// The stored JSON of run `id` (exactly as recorded).
    pub(crate) fn report_json(&self, id: i64) -> Result<String, HistoryError> {
        self.conn
            .query_row("SELECT report FROM runs WHERE id = ?1", [id], |r| r.get(0))
            .optional()
            .map_err(self.err())?
            .ok_or_else(|| HistoryError::NoRun(self.shown.clone(), id))
    }

    /// Every run's tags, by run id.
    pub(crate) fn tags(&self) -> Result<HashMap<i64, BTreeMap<String, String>>, HistoryError> {
        let mut st = self
            .conn
            .prepare("SELECT run_id, key, value FROM tags")
            .map_err(self.err())?;
        let rows = st
            .query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                ))
            })
            .map_err(self.err())?;
        let mut out: HashMap<i64, BTreeMap<String, String>> = HashMap::new();
        for row in rows {
            let (id, k, v) = row.map_err(self.err())?;
            out.entry(id).or_default().insert(k, v);
        }
        Ok(out)
    }

    /// Refuses ids that are not runs of this database (the first one missing).
    fn all_there(&self, ids: &[i64]) -> Result<(), HistoryError> {
        for &id in ids {
            let n: i64 = self
                .conn
                .query_row("SELECT count(*) FROM runs WHERE id = ?1", [id], |r| {
                    r.get(0)
                })
                .map_err(self.err())?;
            if n == 0 {
                return Err(HistoryError::NoRun(self.shown.clone(), id));
            }
        }
        Ok(())
    }

    /// Sets the tags `kv` on run `id`; an empty value removes that tag.
    pub(crate) fn tag(&mut self, id: i64, kv: &[(String, String)]) -> Result<(), HistoryError> {
        let shown = self.shown.clone();
        let err = |e: rusqlite::Error| HistoryError::Sqlite(shown.clone(), why(&e));
        let tx = super::error::write_tx(&mut self.conn, &shown)?;
        let n: i64 = tx
            .query_row("SELECT count(*) FROM runs WHERE id = ?1", [id], |r| {
                r.get(0)
            })
            .map_err(err)?;
        if n == 0 {
            return Err(HistoryError::NoRun(shown.clone(), id));
        }
        for (k, v) in kv {
            if v.is_empty() {
                tx.execute(
                    "DELETE FROM tags WHERE run_id = ?1 AND key = ?2",
                    rusqlite::params![id, k],
                )
            } else {
                tx.execute(
                    "INSERT OR REPLACE INTO tags (run_id, key, value) VALUES (?1, ?2, ?3)",
                    rusqlite::params![id, k, v],
                )
            }
            .map_err(err)?;
        }
        tx.commit().map_err(err)
    }

    /// Removes the runs `ids` (all of them, or none when one is not there), their
    /// cases and tags, and the texts and hosts no run refers to any more. Returns how
    /// many were removed.
    pub(crate) fn delete(&mut self, ids: &[i64]) -> Result<usize, HistoryError> {
        self.all_there(ids)?;
        let shown = self.shown.clone();
        let err = |e: rusqlite::Error| HistoryError::Sqlite(shown.clone(), why(&e));
        let tx = super::error::write_tx(&mut self.conn, &shown)?;
        let mut n = 0;
        for &id in ids {
            tx.execute("DELETE FROM tags WHERE run_id = ?1", [id])
                .map_err(err)?;
            tx.execute("DELETE FROM case_rows WHERE run_id = ?1", [id])
                .map_err(err)?;
            n += tx
                .execute("DELETE FROM runs WHERE id = ?1", [id])
                .map_err(err)?;
        }
        tx.execute_batch(
            "DELETE FROM texts WHERE id NOT IN (
                 SELECT host_t FROM case_rows UNION SELECT key_t FROM case_rows
                 UNION SELECT resource_t FROM case_rows UNION SELECT workload_t FROM case_rows
                 UNION SELECT metric_t FROM case_rows UNION SELECT unit_t FROM case_rows
                 UNION SELECT params_t FROM case_rows UNION SELECT status_t FROM case_rows);
             DELETE FROM hosts WHERE id NOT IN (SELECT host_id FROM runs);",
        )
        .map_err(err)?;
        tx.commit().map_err(err)?;
        Ok(n)
    }

    /// The runs under `f` that `p` removes, oldest first.
    pub(crate) fn prune_pick(&self, f: &Filter, p: Prune) -> Result<Vec<i64>, HistoryError> {
        Ok(p.pick(&self.runs(f)?))
    }
}
