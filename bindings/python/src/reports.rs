//! `lineage.check_paths` (files checked on every core, the interpreter released),
//! `lineage.FileReport` (one file's report, picklable so a Dask worker can send it back)
//! and `lineage.report` (the `lineage check` report of any list of file reports).

use std::collections::BTreeMap;
use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use lineage_cli::check::{self, FileReport as Report, Settings, formats};
use lineage_core::finding::{Finding, Revision, Shapes};
use pyo3::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::errors::Error;
use crate::ops::parse;
use crate::pyser;

/// One checked file, or one that could not be checked (`error`).
#[pyclass(module = "lineage", frozen)]
#[derive(Debug)]
pub struct FileReport {
    report: Report,
}

/// Everything a report holds, as pickled.
#[derive(Serialize, Deserialize)]
struct State {
    path: String,
    format: Option<String>,
    findings: Vec<Finding>,
    error: Option<String>,
    lines: BTreeMap<usize, String>,
    revision: Option<(String, String)>,
}

const SHAPES: [Shapes; 5] = [
    Shapes::Draft0831,
    Shapes::Draft0915,
    Shapes::Seed,
    Shapes::Oct01,
    Shapes::Final,
];

impl FileReport {
    fn state(&self) -> State {
        let r = &self.report;
        State {
            path: r.path.clone(),
            format: r.format.map(|f| f.to_string()),
            findings: r.findings.clone(),
            error: r.error.clone(),
            lines: r.lines.clone(),
            revision: r
                .revision
                .map(|(spec, shapes)| (spec.to_string(), shapes.to_string())),
        }
    }

    fn from_state(state: State) -> Result<Self, Error> {
        let bad = |what: &str| Error::usage("usage", format!("not a FileReport state: {what}"));
        let revision = match state.revision {
            None => None,
            Some((spec, shapes)) => Some((
                spec.parse::<Revision>().map_err(|_| bad("revision"))?,
                SHAPES
                    .into_iter()
                    .find(|s| s.as_str() == shapes)
                    .ok_or_else(|| bad("shapes"))?,
            )),
        };
        let format = parse("format", state.format.as_deref())?;
        Ok(Self {
            report: Report {
                path: state.path,
                format,
                findings: state.findings,
                error: state.error,
                lines: state.lines,
                revision,
            },
        })
    }
}

#[pymethods]
impl FileReport {
    /// Rebuilds a report from its pickled state (what `__reduce__` gives).
    #[new]
    fn new(state: &str) -> PyResult<Self> {
        let state: State = serde_json::from_str(state)
            .map_err(|e| Error::usage("usage", format!("not a FileReport state: {e}")))?;
        Ok(Self::from_state(state)?)
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let state = serde_json::to_string(&slf.get().state())
            .map_err(|e| Error::usage("internal", e.to_string()))?;
        Ok((slf.get_type().into_any(), (state,)))
    }

    /// The file's path, as given or as the walk found it.
    #[getter]
    fn path(&self) -> &str {
        &self.report.path
    }

    /// The trace's format (`None` when it could not be read or told).
    #[getter]
    fn format(&self) -> Option<String> {
        self.report.format.map(|f| f.to_string())
    }

    /// Its findings, as in `check --format json`.
    #[getter]
    fn findings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let findings = serde_json::to_value(&self.report.findings).unwrap_or(Value::Null);
        pyser::to_py(py, &findings)
    }

    /// Why the file could not be checked.
    #[getter]
    fn error(&self) -> Option<&str> {
        self.report.error.as_deref()
    }

    /// The file's entry of `check --format json`.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let text = formats::json(std::slice::from_ref(&self.report));
        let doc: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        let entry = doc.pointer("/files/0").cloned().unwrap_or(json!({}));
        pyser::to_py(py, &entry)
    }

    fn __repr__(&self) -> String {
        format!(
            "FileReport(path={:?}, format={:?}, findings={}, error={:?})",
            self.report.path,
            self.format(),
            self.report.findings.len(),
            self.report.error
        )
    }
}

/// Checks `paths` on `workers` threads (each takes the next path when it is free); the
/// reports in the order of `paths`, each path's in the command's walk order.
#[pyfunction]
#[pyo3(signature = (paths, workers=None, spec=None))]
pub(crate) fn _check_paths(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    workers: Option<usize>,
    spec: Option<&str>,
) -> PyResult<Vec<FileReport>> {
    let settings = Settings {
        spec: parse("spec", spec)?,
        keep_lines: false,
    };
    let cores = std::thread::available_parallelism().map_or(1, NonZeroUsize::get);
    let workers = match workers {
        Some(0) => return Err(Error::usage("usage", "workers: at least 1").into()),
        Some(n) => n,
        None => cores,
    }
    .min(paths.len().max(1));
    let per_path = py.detach(|| check_all(&paths, settings, workers))?;
    Ok(per_path
        .into_iter()
        .flatten()
        .map(|report| FileReport { report })
        .collect())
}

/// Each path's reports, by index; `workers` scoped threads take paths in turn.
fn check_all(
    paths: &[PathBuf],
    settings: Settings,
    workers: usize,
) -> Result<Vec<Vec<Report>>, Error> {
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let k = next.fetch_add(1, Ordering::Relaxed);
            let Some(path) = paths.get(k) else { break };
            done.push((k, check::check_path(path, settings)));
        }
        done
    };
    let mut results: Vec<Vec<Report>> = vec![Vec::new(); paths.len()];
    let all =
        std::thread::scope(|scope| {
            let handles: Vec<_> = (1..workers).map(|_| scope.spawn(work)).collect();
            let mut all = work();
            for handle in handles {
                // A panic is a broken invariant: its paths' reports are lost, so the call fails.
                all.extend(handle.join().map_err(|_| {
                    Error::usage("internal", "a check thread failed inside lineage")
                })?);
            }
            Ok::<_, Error>(all)
        })?;
    for (k, reports) in all {
        if let Some(slot) = results.get_mut(k) {
            *slot = reports;
        }
    }
    Ok(results)
}

/// The `lineage check --format FORMAT` report of these file reports.
#[pyfunction]
pub(crate) fn _report(
    py: Python<'_>,
    reports: Vec<Bound<'_, FileReport>>,
    format: &str,
    deny_warnings: bool,
) -> PyResult<String> {
    let files: Vec<Report> = reports.iter().map(|r| r.get().report.clone()).collect();
    let format = format
        .parse::<lineage_cli::api::ReportFormat>()
        .map_err(Error::from)?;
    Ok(py.detach(|| {
        use lineage_cli::api::ReportFormat as F;
        match format {
            F::Human => formats::human(&files, false),
            F::Json => formats::json(&files),
            F::Junit => formats::junit(&files, deny_warnings),
            F::Sarif => formats::sarif(&files),
            _ => formats::github(&files),
        }
    }))
}
