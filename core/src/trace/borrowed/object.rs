//! Reading a [`Json`] as a `serde_json::Value` is read, with no `Value` built: an
//! object's members ([`Object`]), the typed accessors, equality with a `Value`, and a
//! `Json` borrowed from a `Value` (so a record handed over as a `Value` is read by the
//! same code as a parsed line).
//!
//! Owns: the reading rules of a repeated key. A `Value` map keeps a repeated key once,
//! at its first place, with its last value; [`Object::get`] reads the last value and
//! [`Object::entries`] lists the members as the map would.
//! Never: recurses on the input's depth (equality and the conversion from a `Value` keep
//! explicit stacks).

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::{Map, Value};

use super::{Json, JsonRead};

/// An object's members in the order read (a repeated key is kept as often as written).
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Object<'a>(pub(crate) Vec<(Cow<'a, str>, Json<'a>)>);

/// Above this many members, [`Object::entries`] finds repeated keys with a hash map.
const SCAN: usize = 16;

impl<'a> Object<'a> {
    /// The member `key` (its last value, when repeated).
    pub(crate) fn get(&self, key: &str) -> Option<&Json<'a>> {
        self.0.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Is there a member `key`?
    pub(crate) fn contains_key(&self, key: &str) -> bool {
        self.0.iter().any(|(k, _)| k == key)
    }

    /// The members as a `Value` map holds them: a repeated key once, at its first place,
    /// with its last value.
    pub(crate) fn entries(&self) -> Vec<(&str, &Json<'a>)> {
        let mut out: Vec<(&str, &Json<'a>)> = Vec::with_capacity(self.0.len());
        if self.0.len() <= SCAN {
            for (key, value) in &self.0 {
                match out.iter_mut().find(|(k, _)| *k == key.as_ref()) {
                    Some(slot) => slot.1 = value,
                    None => out.push((key, value)),
                }
            }
            return out;
        }
        let mut at: HashMap<&str, usize> = HashMap::with_capacity(self.0.len());
        for (key, value) in &self.0 {
            match at.get(key.as_ref()).and_then(|&i| out.get_mut(i)) {
                Some(slot) => slot.1 = value,
                None => {
                    at.insert(key, out.len());
                    out.push((key, value));
                }
            }
        }
        out
    }

    /// The `Value` map the same text parses to (numbers keep their spelling).
    pub(crate) fn to_map(&self) -> Map<String, Value> {
        let mut map = Map::new();
        for (key, value) in &self.0 {
            map.insert(key.clone().into_owned(), value.to_value());
        }
        map
    }

    /// Are an object's [`Object::entries`] the map `map`, with its members in the same
    /// order? (The entries are listed once by a caller that compares them with several
    /// maps.)
    pub(crate) fn entries_same_as_map(
        entries: &[(&str, &Json<'_>)],
        map: &Map<String, Value>,
    ) -> bool {
        entries.len() == map.len()
            && entries.iter().zip(map).all(|((key, _), (k, _))| key == k)
            && all_same(
                entries
                    .iter()
                    .zip(map)
                    .map(|(&(_, json), (_, value))| (json, value))
                    .collect(),
            )
    }
}

impl<'a> Json<'a> {
    /// The member `key` of an object (its last value, when repeated).
    pub(crate) fn get(&self, key: &str) -> Option<&Json<'a>> {
        self.as_object()?.get(key)
    }

    /// An object's members.
    pub(crate) fn as_object(&self) -> Option<&Object<'a>> {
        match self {
            Json::Object(object) => Some(object),
            _ => None,
        }
    }

    /// An array's items.
    pub(crate) fn as_array(&self) -> Option<&[Json<'a>]> {
        match self {
            Json::Array(items) => Some(items),
            _ => None,
        }
    }

    /// A string's text.
    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }

    /// A number that is a non-negative integer below 2^64, as `Value::as_u64` reads it.
    pub(crate) fn as_u64(&self) -> Option<u64> {
        match self {
            Json::Number(n) => n.parse().ok(),
            _ => None,
        }
    }

    /// A boolean.
    pub(crate) fn as_bool(&self) -> Option<bool> {
        match self {
            Json::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub(crate) fn is_null(&self) -> bool {
        matches!(self, Json::Null)
    }

    pub(crate) fn is_string(&self) -> bool {
        matches!(self, Json::Str(_))
    }

    pub(crate) fn is_object(&self) -> bool {
        matches!(self, Json::Object(_))
    }

    pub(crate) fn is_array(&self) -> bool {
        matches!(self, Json::Array(_))
    }

    /// The value at a JSON pointer made of object keys (`/toolCall/toolCallId`).
    pub(crate) fn pointer(&self, pointer: &str) -> Option<&Json<'a>> {
        let mut at = self;
        for key in pointer.strip_prefix('/')?.split('/') {
            at = at.get(key)?;
        }
        Some(at)
    }

    /// Is this the JSON `value` (as `Value`'s `==` compares: numbers by their text,
    /// objects by their members in any order)?
    pub(crate) fn same_as(&self, value: &Value) -> bool {
        all_same(vec![(self, value)])
    }

    /// A `Json` that borrows the strings and numbers of `value` (a record handed over as
    /// a `Value` is read by the code that reads a parsed line). Built with an explicit
    /// stack, whatever the depth.
    pub(crate) fn of_value(value: &'a Value) -> Json<'a> {
        let mut stack: Vec<Open<'a>> = Vec::new();
        let mut next = value;
        loop {
            let mut done = match next {
                Value::Null => Some(Json::Null),
                Value::Bool(b) => Some(Json::Bool(*b)),
                Value::Number(n) => Some(Json::Number(n.as_str())),
                Value::String(s) => Some(Json::Str(Cow::Borrowed(s))),
                Value::Array(items) => {
                    let open = Vec::with_capacity(items.len());
                    stack.push(Open::Array(items.iter(), open));
                    None
                }
                Value::Object(map) => {
                    let open = Vec::with_capacity(map.len());
                    stack.push(Open::Object(map.iter(), open, ""));
                    None
                }
            };
            // Hand the finished value to its container, close every container whose
            // items are all read, and go on with the next item.
            loop {
                let Some(top) = stack.last_mut() else {
                    return done.unwrap_or(Json::Null);
                };
                if let Some(value) = done.take() {
                    top.push(value);
                }
                if let Some(item) = top.next_item() {
                    next = item;
                    break;
                }
                done = stack.pop().map(Open::close);
            }
        }
    }
}

/// A container of [`Json::of_value`] whose items are being read.
enum Open<'a> {
    Array(std::slice::Iter<'a, Value>, Vec<Json<'a>>),
    /// The members so far, and the key of the member being read.
    Object(
        serde_json::map::Iter<'a>,
        Vec<(Cow<'a, str>, Json<'a>)>,
        &'a str,
    ),
}

impl<'a> Open<'a> {
    fn push(&mut self, value: Json<'a>) {
        match self {
            Open::Array(_, items) => items.push(value),
            Open::Object(_, members, key) => members.push((Cow::Borrowed(*key), value)),
        }
    }

    fn next_item(&mut self) -> Option<&'a Value> {
        match self {
            Open::Array(iter, _) => iter.next(),
            Open::Object(iter, _, key) => iter.next().map(|(k, v)| {
                *key = k;
                v
            }),
        }
    }

    fn close(self) -> Json<'a> {
        match self {
            Open::Array(_, items) => Json::Array(items),
            Open::Object(_, members, _) => Json::Object(Object(members)),
        }
    }
}

/// Are all the pairs equal, as `Value`'s `==` compares them? An explicit stack.
fn all_same<'s, 'a: 's>(mut stack: Vec<(&'s Json<'a>, &'s Value)>) -> bool {
    while let Some((json, value)) = stack.pop() {
        let same = match (json, value) {
            (Json::Null, Value::Null) => true,
            (Json::Bool(a), Value::Bool(b)) => a == b,
            (Json::Number(a), Value::Number(b)) => *a == b.as_str(),
            (Json::Str(a), Value::String(b)) => a == b,
            (Json::Array(a), Value::Array(b)) if a.len() == b.len() => {
                stack.extend(a.iter().zip(b));
                true
            }
            (Json::Object(a), Value::Object(b)) => {
                let entries = a.entries();
                entries.len() == b.len()
                    && entries.into_iter().all(|(k, json)| match b.get(k) {
                        Some(value) => {
                            stack.push((json, value));
                            true
                        }
                        None => false,
                    })
            }
            _ => false,
        };
        if !same {
            return false;
        }
    }
    true
}
