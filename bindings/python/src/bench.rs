//! The baseline of the Python benchmark (`benchmarks/bench.py`): the Rust engine's own
//! cost of pushing the same lines, timed here so both sides run the same build.

use std::time::Instant;

use lineage_core::engine::Engine;
use pyo3::prelude::*;

use crate::engine::options;

/// Seconds the core's engine takes to push `lines` (each a `bytes` line) into a new
/// engine with default options, best of `repeat` runs; the interpreter is released.
#[pyfunction]
#[pyo3(signature = (lines, repeat=3))]
pub(crate) fn _rust_push_seconds(
    py: Python<'_>,
    lines: Vec<Vec<u8>>,
    repeat: usize,
) -> PyResult<f64> {
    let options = options(None, None, None, None)?;
    let best = py.detach(|| {
        let mut best = f64::INFINITY;
        for _ in 0..repeat.max(1) {
            let mut engine = Engine::new(options.clone());
            let start = Instant::now();
            for line in &lines {
                // The benchmark's traces are well formed; an error only ends the run early.
                if engine.push_bytes(line).is_err() {
                    break;
                }
            }
            best = best.min(start.elapsed().as_secs_f64());
            drop(engine);
        }
        best
    });
    Ok(best)
}
