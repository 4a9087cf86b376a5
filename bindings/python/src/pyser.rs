//! A serde `Serializer` whose output is Python objects: a change, a finding or a
//! document becomes dicts, lists, strings and numbers with no JSON text and no
//! `serde_json::Value` in between. The shapes are serde_json's (externally tagged enums,
//! `None` for a unit, a non-finite float as `None`), so a value equals what `json.loads`
//! gives for the command's output. A `serde_json::Number` (kept as its text, with
//! `arbitrary_precision`) becomes what `json.loads` makes of that text.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;

use pyo3::IntoPyObjectExt;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyList, PyString};
use serde::ser::{self, Serialize};

/// How serde_json serializes a `Number` under `arbitrary_precision`: a one-field struct
/// of this name holding the number's text.
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

thread_local! {
    /// The Python strings of the names serde hands over as `&'static str` (field and
    /// variant names), by address and length: each is made once per thread, not once per
    /// value, and a dict hashes it once (a `str` keeps its hash).
    static NAMES: RefCell<HashMap<(usize, usize), Py<PyString>>> = RefCell::new(HashMap::new());
}

/// The Python string of a name in the program's static text.
fn name<'py>(py: Python<'py>, text: &'static str) -> Bound<'py, PyString> {
    NAMES.with(|names| {
        names
            .borrow_mut()
            .entry((text.as_ptr() as usize, text.len()))
            .or_insert_with(|| PyString::intern(py, text).unbind())
            .bind(py)
            .clone()
    })
}

/// The Python object of a serializable value.
pub(crate) fn to_py<'py, T: Serialize + ?Sized>(
    py: Python<'py>,
    value: &T,
) -> PyResult<Bound<'py, PyAny>> {
    value.serialize(ToPy { py }).map_err(|e| e.0)
}

/// A Python error on its way out of serde.
#[derive(Debug)]
pub(crate) struct Error(PyErr);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error(pyo3::exceptions::PyValueError::new_err(msg.to_string()))
    }
}

impl From<PyErr> for Error {
    fn from(e: PyErr) -> Self {
        Error(e)
    }
}

type Out<'py> = Result<Bound<'py, PyAny>, Error>;

#[derive(Clone, Copy)]
struct ToPy<'py> {
    py: Python<'py>,
}

impl<'py> ToPy<'py> {
    fn any<T: IntoPyObject<'py>>(self, value: T) -> Out<'py> {
        Ok(value.into_bound_py_any(self.py)?)
    }

    /// `{variant: value}`.
    fn tagged(self, variant: &'static str, value: Bound<'py, PyAny>) -> Out<'py> {
        let dict = PyDict::new(self.py);
        dict.set_item(name(self.py, variant), value)?;
        Ok(dict.into_any())
    }
}

/// A number's text as `json.loads` reads it.
fn number<'py>(py: Python<'py>, text: &str) -> Out<'py> {
    if text.contains(['.', 'e', 'E']) {
        // Rust reads an out-of-range float as ±inf, as Python's `float` does.
        let f: f64 = text.parse().map_err(<Error as ser::Error>::custom)?;
        return Ok(f.into_bound_py_any(py)?);
    }
    if let Ok(i) = text.parse::<i64>() {
        return Ok(i.into_bound_py_any(py)?);
    }
    Ok(py.get_type::<PyInt>().call1((text,))?)
}

impl<'py> ser::Serializer for ToPy<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    type SerializeSeq = Seq<'py>;
    type SerializeTuple = Seq<'py>;
    type SerializeTupleStruct = Seq<'py>;
    type SerializeTupleVariant = Seq<'py>;
    type SerializeMap = Map<'py>;
    type SerializeStruct = Struct<'py>;
    type SerializeStructVariant = Struct<'py>;

    fn serialize_bool(self, v: bool) -> Out<'py> {
        Ok(pyo3::types::PyBool::new(self.py, v).to_owned().into_any())
    }
    fn serialize_i8(self, v: i8) -> Out<'py> {
        self.any(v)
    }
    fn serialize_i16(self, v: i16) -> Out<'py> {
        self.any(v)
    }
    fn serialize_i32(self, v: i32) -> Out<'py> {
        self.any(v)
    }
    fn serialize_i64(self, v: i64) -> Out<'py> {
        self.any(v)
    }
    fn serialize_i128(self, v: i128) -> Out<'py> {
        self.any(v)
    }
    fn serialize_u8(self, v: u8) -> Out<'py> {
        self.any(v)
    }
    fn serialize_u16(self, v: u16) -> Out<'py> {
        self.any(v)
    }
    fn serialize_u32(self, v: u32) -> Out<'py> {
        self.any(v)
    }
    fn serialize_u64(self, v: u64) -> Out<'py> {
        self.any(v)
    }
    fn serialize_u128(self, v: u128) -> Out<'py> {
        self.any(v)
    }
    fn serialize_f32(self, v: f32) -> Out<'py> {
        self.serialize_f64(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Out<'py> {
        if v.is_finite() {
            self.any(v)
        } else {
            self.serialize_unit() // serde_json writes `null`
        }
    }
    fn serialize_char(self, v: char) -> Out<'py> {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Out<'py> {
        Ok(PyString::new(self.py, v).into_any())
    }
    fn serialize_bytes(self, v: &[u8]) -> Out<'py> {
        Ok(PyList::new(self.py, v)?.into_any()) // serde_json writes an array of numbers
    }
    fn serialize_none(self) -> Out<'py> {
        self.serialize_unit()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Out<'py> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Out<'py> {
        Ok(self.py.None().into_bound(self.py))
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Out<'py> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Out<'py> {
        Ok(name(self.py, variant).into_any())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Out<'py> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Out<'py> {
        let inner = value.serialize(self)?;
        self.tagged(variant, inner)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Seq<'py>, Error> {
        Ok(Seq {
            to: self,
            items: Vec::with_capacity(len.unwrap_or(0)),
            variant: None,
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<Seq<'py>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Seq<'py>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Seq<'py>, Error> {
        let mut seq = self.serialize_seq(Some(len))?;
        seq.variant = Some(variant);
        Ok(seq)
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Map<'py>, Error> {
        Ok(Map {
            to: self,
            dict: PyDict::new(self.py),
            key: None,
        })
    }
    fn serialize_struct(self, name: &'static str, _len: usize) -> Result<Struct<'py>, Error> {
        Ok(Struct {
            to: self,
            dict: PyDict::new(self.py),
            variant: None,
            number: name == NUMBER_TOKEN,
            value: None,
        })
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Struct<'py>, Error> {
        Ok(Struct {
            to: self,
            dict: PyDict::new(self.py),
            variant: Some(variant),
            number: false,
            value: None,
        })
    }
}

pub(crate) struct Seq<'py> {
    to: ToPy<'py>,
    items: Vec<Bound<'py, PyAny>>,
    variant: Option<&'static str>,
}

impl<'py> Seq<'py> {
    fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.items.push(value.serialize(self.to)?);
        Ok(())
    }
    fn done(self) -> Out<'py> {
        let list = PyList::new(self.to.py, self.items)?.into_any();
        match self.variant {
            Some(variant) => self.to.tagged(variant, list),
            None => Ok(list),
        }
    }
}

impl<'py> ser::SerializeSeq for Seq<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.push(value)
    }
    fn end(self) -> Out<'py> {
        self.done()
    }
}

impl<'py> ser::SerializeTuple for Seq<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.push(value)
    }
    fn end(self) -> Out<'py> {
        self.done()
    }
}

impl<'py> ser::SerializeTupleStruct for Seq<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.push(value)
    }
    fn end(self) -> Out<'py> {
        self.done()
    }
}

impl<'py> ser::SerializeTupleVariant for Seq<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.push(value)
    }
    fn end(self) -> Out<'py> {
        self.done()
    }
}

pub(crate) struct Map<'py> {
    to: ToPy<'py>,
    dict: Bound<'py, PyDict>,
    key: Option<Bound<'py, PyAny>>,
}

impl<'py> ser::SerializeMap for Map<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        let key = key.serialize(self.to)?;
        // JSON keys are strings: serde_json writes a number or bool key as its text.
        self.key = Some(if key.is_instance_of::<PyString>() {
            key
        } else {
            key.str()?.into_any()
        });
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let key = self
            .key
            .take()
            .ok_or_else(|| <Error as ser::Error>::custom("a map value without its key"))?;
        self.dict.set_item(key, value.serialize(self.to)?)?;
        Ok(())
    }
    fn end(self) -> Out<'py> {
        Ok(self.dict.into_any())
    }
}

pub(crate) struct Struct<'py> {
    to: ToPy<'py>,
    dict: Bound<'py, PyDict>,
    variant: Option<&'static str>,
    /// A `serde_json::Number`: its one field is its text.
    number: bool,
    value: Option<Bound<'py, PyAny>>,
}

impl<'py> Struct<'py> {
    fn field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        if self.number {
            let text = value.serialize(self.to)?;
            let text: String = text.extract()?;
            self.value = Some(number(self.to.py, &text)?);
            return Ok(());
        }
        self.dict
            .set_item(name(self.to.py, key), value.serialize(self.to)?)?;
        Ok(())
    }
    fn done(self) -> Out<'py> {
        if let Some(number) = self.value {
            return Ok(number);
        }
        let dict = self.dict.into_any();
        match self.variant {
            Some(variant) => self.to.tagged(variant, dict),
            None => Ok(dict),
        }
    }
}

impl<'py> ser::SerializeStruct for Struct<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.field(key, value)
    }
    fn end(self) -> Out<'py> {
        self.done()
    }
}

impl<'py> ser::SerializeStructVariant for Struct<'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.field(key, value)
    }
    fn end(self) -> Out<'py> {
        self.done()
    }
}
