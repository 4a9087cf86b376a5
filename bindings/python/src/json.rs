//! JSON between Rust and Python. Every document and change crosses as JSON text read by
//! Python's own `json` module, so a value in Python is exactly what `json.loads` gives
//! for the CLI's output (big integers stay integers, `1e400` is `inf`), and a dict a host
//! pushes is the line `json.dumps` writes.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyAny;

use crate::errors::Error;

static LOADS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static DUMPS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// Python's value of a JSON text.
pub(crate) fn loads<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    LOADS.import(py, "json", "loads")?.call1((text,))
}

/// The JSON text of a Python value (`json.dumps`, compact, UTF-8 kept); a value JSON
/// cannot hold is a usage error with `code`.
pub(crate) fn dumps(value: &Bound<'_, PyAny>, code: &'static str) -> Result<String, Error> {
    let py = value.py();
    let text = DUMPS
        .import(py, "json", "dumps")
        .and_then(|dumps| {
            let kwargs = pyo3::types::PyDict::new(py);
            kwargs.set_item("ensure_ascii", false)?;
            kwargs.set_item("separators", (",", ":"))?;
            dumps.call((value,), Some(&kwargs))
        })
        .and_then(|text| text.extract::<String>());
    text.map_err(|e| Error::usage(code, format!("cannot write this value as JSON: {e}")))
}
