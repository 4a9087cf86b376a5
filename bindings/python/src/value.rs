//! JSON values to Python objects, built directly (no JSON text in between): what every
//! change, finding and document the module returns goes through. A number becomes what
//! `json.loads` makes of its text (`1` an `int`, big integers too; `1.0`, `1e400` a
//! `float`), so a value equals the command's output read by Python's `json`.
//!
//! Never recurses on the value's depth: containers are filled from an explicit stack.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use serde_json::{Map, Number, Value};

/// A container being filled, with what is left to put in it.
enum Open<'v, 'py> {
    Object(Bound<'py, PyDict>, serde_json::map::Iter<'v>),
    Array(Bound<'py, PyList>, std::slice::Iter<'v, Value>),
}

/// The Python object of a JSON value.
pub(crate) fn to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    let mut stack = Vec::new();
    let root = open(py, value, &mut stack)?;
    while let Some(top) = stack.last_mut() {
        match top {
            Open::Object(dict, members) => match members.next() {
                Some((key, value)) => {
                    let dict = dict.clone();
                    let child = open(py, value, &mut stack)?;
                    dict.set_item(PyString::new(py, key), child)?;
                }
                None => {
                    stack.pop();
                }
            },
            Open::Array(list, items) => match items.next() {
                Some(value) => {
                    let list = list.clone();
                    let child = open(py, value, &mut stack)?;
                    list.append(child)?;
                }
                None => {
                    stack.pop();
                }
            },
        }
    }
    Ok(root)
}

/// The object of a value: a scalar whole, a container empty and left on the stack to
/// be filled.
fn open<'v, 'py>(
    py: Python<'py>,
    value: &'v Value,
    stack: &mut Vec<Open<'v, 'py>>,
) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        Value::Number(n) => number(py, n)?,
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            stack.push(Open::Array(list.clone(), items.iter()));
            list.into_any()
        }
        Value::Object(members) => object(py, members, stack),
    })
}

fn object<'v, 'py>(
    py: Python<'py>,
    members: &'v Map<String, Value>,
    stack: &mut Vec<Open<'v, 'py>>,
) -> Bound<'py, PyAny> {
    let dict = PyDict::new(py);
    stack.push(Open::Object(dict.clone(), members.iter()));
    dict.into_any()
}

/// A number as `json.loads` reads its text.
fn number<'py>(py: Python<'py>, n: &Number) -> PyResult<Bound<'py, PyAny>> {
    if let Some(i) = n.as_i64() {
        return Ok(i.into_pyobject(py)?.into_any());
    }
    if let Some(u) = n.as_u64() {
        return Ok(u.into_pyobject(py)?.into_any());
    }
    let text = n.to_string();
    if text.contains(['.', 'e', 'E']) {
        // Rust reads an out-of-range float as ±inf, as Python's `float` does.
        let f: f64 = text.parse().unwrap_or(f64::NAN);
        return Ok(f.into_pyobject(py)?.into_any());
    }
    py.get_type::<pyo3::types::PyInt>().call1((text,))
}
