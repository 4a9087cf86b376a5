//! Python values to JSON text: a dict a host pushes is the line Python's own
//! `json.dumps` writes (so it reads exactly as that line in a file would). The other way
//! is `value`.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyAny;

use crate::errors::Error;

static DUMPS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

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
