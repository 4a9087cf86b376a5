//! The module's functions over a whole trace: `replay`, `changes`, `check`, `convert`,
//! each the document the `lineage` command prints for the same input and options
//! (`lineage_cli::api` computes it; this file only moves values across).
//!
//! Every call releases the interpreter while lineage works.

use std::path::{Path, PathBuf};

use lineage_cli::api::{
    self, CheckInput, CheckOptions, ClientCaps, ConvertOptions, ConvertTarget, Input,
    ReplayOptions, ReportFormat,
};
use pyo3::prelude::*;
use pyo3::types::PyList;
use serde_json::Value;

use crate::errors::{Error, Kind};
use crate::pyser;

/// A trace as Python hands it: a path or a text (the Python side decides which).
fn input<'a>(path: &'a Option<String>, text: &'a Option<String>) -> Result<Input<'a>, Error> {
    match (path, text) {
        (Some(path), _) => Ok(Input::Path(Path::new(path))),
        (None, Some(text)) => Ok(Input::Text(text)),
        (None, None) => Err(Error::usage("usage", "no trace given")),
    }
}

pub(crate) fn parse<T: std::str::FromStr>(
    what: &str,
    value: Option<&str>,
) -> Result<Option<T>, Error>
where
    T::Err: std::fmt::Display,
{
    value
        .map(|v| v.parse::<T>())
        .transpose()
        .map_err(|e| Error::usage("usage", format!("{what}: {e}")))
}

fn replay_options(
    format: Option<&str>,
    spec: Option<&str>,
    session: Option<String>,
    root_thread: Option<String>,
    at: Option<usize>,
) -> Result<ReplayOptions, Error> {
    Ok(ReplayOptions {
        format: parse("format", format)?,
        spec: parse("spec", spec)?,
        session,
        root_thread,
        at,
    })
}

/// JSON text the library wrote, as a Python value.
fn document<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    let value: Value = serde_json::from_str(text).map_err(|e| {
        Error::usage(
            "internal",
            format!("lineage wrote JSON it cannot read: {e}"),
        )
    })?;
    pyser::to_py(py, &value)
}

/// `lineage replay --format json`.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub(crate) fn _replay<'py>(
    py: Python<'py>,
    path: Option<String>,
    text: Option<String>,
    format: Option<&str>,
    spec: Option<&str>,
    session: Option<String>,
    root_thread: Option<String>,
    at: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    let options = replay_options(format, spec, session, root_thread, at)?;
    let doc =
        py.detach(|| api::replay_json(input(&path, &text)?, &options).map_err(Error::from))?;
    document(py, &doc.text)
}

/// `lineage replay --format changes`: every line, as a list.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub(crate) fn _changes<'py>(
    py: Python<'py>,
    path: Option<String>,
    text: Option<String>,
    format: Option<&str>,
    spec: Option<&str>,
    session: Option<String>,
    root_thread: Option<String>,
    at: Option<usize>,
) -> PyResult<Bound<'py, PyList>> {
    let options = replay_options(format, spec, session, root_thread, at)?;
    let lines =
        py.detach(|| api::changes_lines(input(&path, &text)?, &options).map_err(Error::from))?;
    let list = PyList::empty(py);
    for line in &lines.lines {
        list.append(document(py, line)?)?;
    }
    Ok(list)
}

/// `lineage check --format json` over inputs given as (path, text) pairs.
#[pyfunction]
pub(crate) fn _check<'py>(
    py: Python<'py>,
    inputs: Vec<(Option<String>, Option<String>)>,
    spec: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    let inputs: Vec<CheckInput> = inputs
        .into_iter()
        .map(|pair| match pair {
            (Some(path), _) => CheckInput::Path(PathBuf::from(path)),
            (None, text) => CheckInput::Text {
                name: String::from("<text>"),
                text: text.unwrap_or_default(),
            },
        })
        .collect();
    let options = CheckOptions {
        format: ReportFormat::Json,
        deny_warnings: false,
        spec: parse("spec", spec)?,
    };
    let report = py.detach(|| api::check_report(&inputs, options));
    document(py, &report.text)
}

/// `lineage convert`: the trace it writes.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub(crate) fn _convert(
    py: Python<'_>,
    path: Option<String>,
    text: Option<String>,
    to: &str,
    format: Option<&str>,
    session: Option<String>,
    client_caps: &str,
    prompt_response: &str,
    reconnect: bool,
) -> PyResult<String> {
    let mut options = ConvertOptions::to(to.parse::<ConvertTarget>().map_err(Error::from)?);
    options.client_caps = match client_caps {
        "subagents" => ClientCaps::Subagents,
        "none" => ClientCaps::None,
        other => return Err(usage(format!("client_caps: `{other}` (subagents, none)")).into()),
    };
    options.prompt_at_provider_end = match prompt_response {
        "settlement" => false,
        "provider-end" => true,
        other => {
            let message = format!("prompt_response: `{other}` (settlement, provider-end)");
            return Err(usage(message).into());
        }
    };
    options.reconnect = reconnect;
    options.format = parse("format", format)?;
    options.session = session;
    let converted =
        py.detach(|| api::convert(input(&path, &text)?, &options).map_err(Error::from))?;
    Ok(converted.text)
}

fn usage(message: String) -> Error {
    Error::usage("usage", message)
}

impl From<lineage_cli::api::Error> for Error {
    fn from(e: lineage_cli::api::Error) -> Self {
        use lineage_cli::api::ErrorCode;
        let code = e.code.as_str();
        let kind = match e.code {
            ErrorCode::UnknownFormat | ErrorCode::EmptyInput | ErrorCode::Encoding => Kind::Format,
            _ => Kind::Usage,
        };
        Error {
            kind,
            code,
            message: e.message,
        }
    }
}
