//! `lineage.Engine`: the core's engine behind a lock, for a Python host that feeds it
//! records as they come.
//!
//! Owns: turning Python inputs into lines, the engine's life (live, then finished), and
//! the JSON each call returns. The lock is taken only with the interpreter released
//! (`Python::detach`), so no thread ever waits for the lock while holding the interpreter
//! and two Python threads using one engine take turns instead of failing or deadlocking.

use std::sync::Mutex;

use lineage_core::engine::{self, Options, Output, Replay};
use lineage_core::finding::Finding;
use lineage_core::trace::Format;
use lineage_core::{Change, render};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyString};
use serde::Serialize;

use crate::errors::Error;
use crate::{json, pyser};

/// What `push` and `handle_timeout` return: the changes, then the findings.
#[derive(Serialize)]
struct Pushed<'a> {
    changes: &'a [Change],
    findings: &'a [Finding],
}

/// The Python value of an output, `{"changes": […], "findings": […]}`.
pub(crate) fn output_py<'py>(py: Python<'py>, out: &Output) -> PyResult<Bound<'py, PyAny>> {
    let pushed = Pushed {
        changes: &out.changes,
        findings: &out.findings,
    };
    pyser::to_py(py, &pushed)
}

/// An engine's life.
#[derive(Debug)]
enum Life {
    Live(Box<engine::Engine>),
    /// After `finish()`: the trace's final state, for `snapshot()`.
    Finished(Box<Replay>),
    /// An error ended it.
    Broken,
}

/// One line as the host handed it.
enum Line {
    Text(String),
    Bytes(Vec<u8>),
}

/// The engine options of the Python keyword arguments.
pub(crate) fn options(
    format: Option<&str>,
    spec: Option<&str>,
    transcripts: Option<bool>,
    root_thread: Option<String>,
) -> Result<Options, Error> {
    let format = format
        .map(|f| f.parse::<Format>())
        .transpose()
        .map_err(|e| Error::usage("usage", format!("format: {e}")))?;
    let spec = spec
        .map(|s| s.parse())
        .transpose()
        .map_err(|e| Error::usage("usage", format!("spec: {e}")))?;
    Ok(Options {
        format,
        acp_spec: spec,
        transcripts: transcripts.unwrap_or(true),
        codex_root_thread: root_thread,
        ..Options::default()
    })
}

/// Reads a trace pushed record by record; see the package documentation.
#[pyclass(module = "lineage", frozen)]
#[derive(Debug)]
pub struct Engine {
    life: Mutex<Life>,
}

impl Engine {
    /// Runs `f` on the live engine, with the interpreter released.
    fn with_live<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut engine::Engine) -> Result<T, Error> + Send,
    ) -> Result<T, Error> {
        py.detach(|| {
            let mut life = self.life.lock().map_err(|_| poisoned())?;
            match &mut *life {
                Life::Live(engine) => f(engine),
                Life::Finished(_) | Life::Broken => Err(Error::finished()),
            }
        })
    }
}

fn poisoned() -> Error {
    Error::usage(
        "internal",
        "an earlier call on this engine failed inside lineage; make a new Engine",
    )
}

#[pymethods]
impl Engine {
    #[new]
    #[pyo3(signature = (format=None, spec=None, transcripts=None, root_thread=None))]
    fn new(
        format: Option<&str>,
        spec: Option<&str>,
        transcripts: Option<bool>,
        root_thread: Option<String>,
    ) -> PyResult<Self> {
        let options = options(format, spec, transcripts, root_thread)?;
        Ok(Self {
            life: Mutex::new(Life::Live(Box::new(engine::Engine::new(options)))),
        })
    }

    /// Pushes the next physical line (a `str`, `bytes`, or a `dict` record).
    #[pyo3(signature = (line_or_dict, at=None))]
    fn push<'py>(
        &self,
        py: Python<'py>,
        line_or_dict: &Bound<'py, PyAny>,
        at: Option<u64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let line = with_at(read_line(line_or_dict)?, at);
        let out = self.with_live(py, |engine| {
            Ok(match &line {
                Line::Text(text) => engine.push_line(text),
                Line::Bytes(bytes) => engine.push_bytes(bytes),
            }?)
        })?;
        output_py(py, &out)
    }

    /// When the engine next needs time to pass (ms), if ever.
    fn poll_timeout(&self, py: Python<'_>) -> PyResult<Option<u64>> {
        Ok(self.with_live(py, |engine| Ok(engine.poll_timeout()))?)
    }

    /// Time has reached `now` (ms): fires what was waiting for it.
    fn handle_timeout<'py>(&self, py: Python<'py>, now: u64) -> PyResult<Bound<'py, PyAny>> {
        let out = self.with_live(py, |engine| Ok(engine.handle_timeout(now)))?;
        output_py(py, &out)
    }

    /// The `replay --format json` document of the trace so far.
    fn snapshot<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let text = py.detach(|| {
            let life = self.life.lock().map_err(|_| poisoned())?;
            match &*life {
                Life::Live(engine) => Ok(render::engine_json(engine)),
                Life::Finished(replay) => Ok(render::json(replay)),
                Life::Broken => Err(Error::finished()),
            }
        })?;
        pyser::to_py(py, &text)
    }

    /// The trace ended: its end-of-trace changes and findings.
    fn finish<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let end = py.detach(|| {
            let mut life = self.life.lock().map_err(|_| poisoned())?;
            let Life::Live(mut engine) = std::mem::replace(&mut *life, Life::Broken) else {
                return Err(Error::finished());
            };
            let end = engine.end()?;
            *life = Life::Finished(Box::new(engine.finish()?));
            Ok(end)
        })?;
        output_py(py, &end)
    }

    /// The trace's format, once known.
    #[getter]
    fn format(&self, py: Python<'_>) -> PyResult<Option<String>> {
        let format = py.detach(|| {
            let life = self.life.lock().map_err(|_| poisoned())?;
            Ok::<_, Error>(match &*life {
                Life::Live(engine) => engine.format(),
                Life::Finished(replay) => Some(replay.format),
                Life::Broken => None,
            })
        })?;
        Ok(format.map(|f| f.to_string()))
    }

    /// The physical number of the last line pushed.
    #[getter]
    fn line(&self, py: Python<'_>) -> PyResult<usize> {
        Ok(py.detach(|| {
            let life = self.life.lock().map_err(|_| poisoned())?;
            Ok::<_, Error>(match &*life {
                Life::Live(engine) => engine.line(),
                Life::Finished(replay) => replay.last_line,
                Life::Broken => 0,
            })
        })?)
    }

    /// Whether `finish()` was called.
    #[getter]
    fn finished(&self, py: Python<'_>) -> PyResult<bool> {
        Ok(py.detach(|| {
            let life = self.life.lock().map_err(|_| poisoned())?;
            Ok::<_, Error>(!matches!(&*life, Life::Live(_)))
        })?)
    }
}

/// A pushed value as a line: `str` as text (a lone surrogate, as
/// `errors="surrogateescape"` leaves for an undecodable byte, goes in as that byte, so it
/// is reported as `invalid-utf8` like in a file), `bytes` as read, a `dict` as the JSON
/// line `json.dumps` writes.
fn read_line(value: &Bound<'_, PyAny>) -> Result<Line, Error> {
    if let Ok(text) = value.cast::<PyString>() {
        if let Ok(text) = text.to_cow() {
            return Ok(Line::Text(text.into_owned()));
        }
        for errors in ["surrogateescape", "surrogatepass"] {
            if let Ok(bytes) = text.call_method1("encode", ("utf-8", errors))
                && let Ok(bytes) = bytes.extract::<Vec<u8>>()
            {
                return Ok(Line::Bytes(bytes));
            }
        }
        return Err(Error::usage("usage", "a str that cannot be encoded"));
    }
    if let Ok(bytes) = value.cast::<PyBytes>() {
        return Ok(Line::Bytes(bytes.as_bytes().to_vec()));
    }
    if let Ok(bytes) = value.cast::<PyByteArray>() {
        return Ok(Line::Bytes(bytes.to_vec()));
    }
    if value.is_instance_of::<PyDict>() {
        return json::dumps(value, "usage").map(Line::Text);
    }
    let type_name = value
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| String::from("?"));
    Err(Error::usage(
        "usage",
        format!("push takes a str or bytes line or a dict record, not {type_name}"),
    ))
}

/// A line with `at` set as its record's time (`"at"`), when it is a JSON object;
/// anything else goes in unchanged and is reported as the line it is.
fn with_at(line: Line, at: Option<u64>) -> Line {
    let Some(at) = at else { return line };
    let bytes = match &line {
        Line::Text(text) => text.as_bytes(),
        Line::Bytes(bytes) => bytes.as_slice(),
    };
    match serde_json::from_slice::<serde_json::Value>(bytes) {
        Ok(serde_json::Value::Object(mut record)) => {
            record.insert("at".into(), at.into());
            Line::Text(serde_json::Value::Object(record).to_string())
        }
        _ => line,
    }
}
