//! The errors the module raises: `lineage.UsageError` and `lineage.FormatError`, both
//! `lineage.LineageError`s with a stable `.code`. The classes are Python's
//! (`lineage/_errors.py`); Rust builds an [`Error`] anywhere, without the interpreter,
//! and it becomes the Python exception when it crosses back.

use lineage_core::engine::EngineError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyType;

/// Which Python class an [`Error`] becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `lineage.UsageError`: the call itself is wrong (an argument, an engine used after
    /// `finish()`, a path that cannot be read).
    Usage,
    /// `lineage.FormatError`: the input cannot be read as a trace at all (its format
    /// cannot be told, UTF-16 text, no record).
    Format,
}

/// An error on its way to Python.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Error {
    pub kind: Kind,
    /// The stable code (`.code` in Python).
    pub code: &'static str,
    pub message: String,
}

impl Error {
    pub(crate) fn usage(code: &'static str, message: impl Into<String>) -> Self {
        Self {
            kind: Kind::Usage,
            code,
            message: message.into(),
        }
    }

    pub(crate) fn format(code: &'static str, message: impl Into<String>) -> Self {
        Self {
            kind: Kind::Format,
            code,
            message: message.into(),
        }
    }

    /// An engine used after `finish()` (or after an error ended it).
    pub(crate) fn finished() -> Self {
        Self::usage(
            "finished",
            "this engine was finished: make a new Engine to read another trace",
        )
    }
}

impl From<EngineError> for Error {
    fn from(e: EngineError) -> Self {
        match e {
            EngineError::UnknownFormat(_) => Self::format("unknown-format", e.to_string()),
            EngineError::WrongInput { .. } => Self::usage("usage", e.to_string()),
            other => Self::usage("usage", other.to_string()),
        }
    }
}

impl From<Error> for PyErr {
    fn from(e: Error) -> PyErr {
        Python::attach(|py| match class(py, e.kind) {
            Ok(cls) => match cls.call1((e.message, e.code)) {
                Ok(value) => PyErr::from_value(value),
                Err(err) => err,
            },
            Err(err) => err,
        })
    }
}

static USAGE: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static FORMAT: PyOnceLock<Py<PyType>> = PyOnceLock::new();

fn class(py: Python<'_>, kind: Kind) -> PyResult<&Bound<'_, PyType>> {
    match kind {
        Kind::Usage => USAGE.import(py, "lineage._errors", "UsageError"),
        Kind::Format => FORMAT.import(py, "lineage._errors", "FormatError"),
    }
}
