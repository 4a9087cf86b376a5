//! `lineage._lineage`, the extension module of the `lineage` Python package (PyO3).
//!
//! Owns: the Python face of lineage: [`engine::Engine`] (push records, read changes,
//! findings and the `replay --format json` document), the whole-trace operations
//! (`ops`: replay, changes, check, convert), many files checked on every core and their
//! reports (`reports`), and the errors Python sees. The
//! package's Python side (`python/lineage/`) re-exports it with its stubs.
//! Never: decides anything about a trace. Every document is the one the `lineage`
//! command prints for the same input, so the bindings and the command cannot drift.

mod bench;
mod engine;
mod errors;
mod json;
mod ops;
mod pyser;
mod reports;

use pyo3::prelude::*;

/// The extension module.
#[pymodule]
fn _lineage(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<engine::Engine>()?;
    m.add_class::<reports::FileReport>()?;
    m.add_function(wrap_pyfunction!(ops::_replay, m)?)?;
    m.add_function(wrap_pyfunction!(ops::_changes, m)?)?;
    m.add_function(wrap_pyfunction!(ops::_check, m)?)?;
    m.add_function(wrap_pyfunction!(ops::_convert, m)?)?;
    m.add_function(wrap_pyfunction!(reports::_check_paths, m)?)?;
    m.add_function(wrap_pyfunction!(reports::_report, m)?)?;
    m.add_function(wrap_pyfunction!(bench::_rust_push_seconds, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
