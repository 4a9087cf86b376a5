//! A record read in place: a JSON value borrowed from the line's text, and one way of
//! reading it whether it was parsed from a line or handed over as a `serde_json::Value`.
//!
//! Owns: [`Json`], a JSON value whose strings and object keys borrow the line's text
//! (owned only where the text has an escape), its objects kept as member lists in the
//! order read; [`JsonRead`], the reading methods an adapter uses (`get`, `as_str`,
//! `pointer` …), implemented alike by [`Json`] and `Value`, so an adapter is written once
//! and a parsed line never builds a `Value` map (no key allocated, no key hashed).
//! Never: reads a record differently from its `Value`: a repeated key reads as its last
//! value (as a `Value` map keeps it), a number is its JSON text as serde_json keeps it
//! (`arbitrary_precision`), and [`JsonRead::to_value`] builds the `Value` the same text
//! would have parsed to. Parsing goes through serde_json, so it recurses no deeper than
//! serde_json's recursion limit; a line it refuses is read by the ordinary path, which
//! reports it.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// The key serde_json's `arbitrary_precision` hands a number's text under.
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

/// A JSON value borrowed from the text it was parsed from.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Json<'a> {
    Null,
    Bool(bool),
    /// A number's JSON text, as serde_json keeps it.
    Number(Cow<'a, str>),
    Str(Cow<'a, str>),
    Array(Vec<Json<'a>>),
    /// Members in the order read (a repeated key is kept twice; the last one is read).
    Object(Vec<(Cow<'a, str>, Json<'a>)>),
}

/// How an adapter reads a record's JSON, whatever holds it.
pub(crate) trait JsonRead: Sized {
    /// The member `key` of an object (the last, when repeated).
    fn get(&self, key: &str) -> Option<&Self>;
    /// A string's text.
    fn as_str(&self) -> Option<&str>;
    /// A number that is a non-negative integer below 2^64.
    fn as_u64(&self) -> Option<u64>;
    /// A boolean.
    fn as_bool(&self) -> Option<bool>;
    /// An array's items.
    fn items(&self) -> Option<&[Self]>;
    /// An object's members, in order (a repeated key once, with its last value).
    fn members(&self) -> Option<Vec<(&str, &Self)>>;
    fn is_string(&self) -> bool;
    fn is_number(&self) -> bool;
    fn is_object(&self) -> bool;
    /// The `Value` the same text parses to.
    fn to_value(&self) -> Value;
    /// A JSON `null`.
    fn null() -> Self;
    /// Is this the JSON `value`?
    fn same_as(&self, value: &Value) -> bool;

    /// The value at a JSON pointer made of object keys (`/result/thread/id`).
    fn pointer(&self, pointer: &str) -> Option<&Self> {
        let mut at = self;
        for key in pointer.strip_prefix('/')?.split('/') {
            at = at.get(key)?;
        }
        Some(at)
    }

    /// The JSON text of the value, as `Value`'s `Display` writes it.
    fn json_text(&self) -> String {
        self.to_value().to_string()
    }
}

impl JsonRead for Value {
    fn get(&self, key: &str) -> Option<&Self> {
        self.as_object()?.get(key)
    }
    fn as_str(&self) -> Option<&str> {
        Value::as_str(self)
    }
    fn as_u64(&self) -> Option<u64> {
        Value::as_u64(self)
    }
    fn as_bool(&self) -> Option<bool> {
        Value::as_bool(self)
    }
    fn items(&self) -> Option<&[Self]> {
        self.as_array().map(Vec::as_slice)
    }
    fn members(&self) -> Option<Vec<(&str, &Self)>> {
        Some(
            self.as_object()?
                .iter()
                .map(|(k, v)| (k.as_str(), v))
                .collect(),
        )
    }
    fn is_string(&self) -> bool {
        Value::is_string(self)
    }
    fn is_number(&self) -> bool {
        Value::is_number(self)
    }
    fn is_object(&self) -> bool {
        Value::is_object(self)
    }
    fn to_value(&self) -> Value {
        self.clone()
    }
    fn null() -> Self {
        Value::Null
    }
    fn same_as(&self, value: &Value) -> bool {
        self == value
    }
    fn pointer(&self, pointer: &str) -> Option<&Self> {
        Value::pointer(self, pointer)
    }
    fn json_text(&self) -> String {
        self.to_string()
    }
}

impl JsonRead for Json<'_> {
    fn get(&self, key: &str) -> Option<&Self> {
        match self {
            Json::Object(members) => members.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
    fn as_str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }
    fn as_u64(&self) -> Option<u64> {
        match self {
            Json::Number(n) => n.parse().ok(),
            _ => None,
        }
    }
    fn as_bool(&self) -> Option<bool> {
        match self {
            Json::Bool(b) => Some(*b),
            _ => None,
        }
    }
    fn items(&self) -> Option<&[Self]> {
        match self {
            Json::Array(items) => Some(items),
            _ => None,
        }
    }
    fn members(&self) -> Option<Vec<(&str, &Self)>> {
        let Json::Object(members) = self else {
            return None;
        };
        let mut out: Vec<(&str, &Self)> = Vec::with_capacity(members.len());
        for (key, value) in members {
            // A repeated key keeps its first place and its last value, as a `Value` map.
            match out.iter_mut().find(|(k, _)| *k == key.as_ref()) {
                Some(slot) => slot.1 = value,
                None => out.push((key, value)),
            }
        }
        Some(out)
    }
    fn is_string(&self) -> bool {
        matches!(self, Json::Str(_))
    }
    fn is_number(&self) -> bool {
        matches!(self, Json::Number(_))
    }
    fn is_object(&self) -> bool {
        matches!(self, Json::Object(_))
    }
    fn to_value(&self) -> Value {
        match self {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            // The text came from serde_json's own number scanner, so it parses back.
            Json::Number(n) => n
                .parse::<serde_json::Number>()
                .map_or(Value::Null, Value::Number),
            Json::Str(s) => Value::String(s.clone().into_owned()),
            Json::Array(items) => Value::Array(items.iter().map(JsonRead::to_value).collect()),
            Json::Object(members) => {
                let mut map = serde_json::Map::new();
                for (key, value) in members {
                    map.insert(key.clone().into_owned(), value.to_value());
                }
                Value::Object(map)
            }
        }
    }
    fn null() -> Self {
        Json::Null
    }
    fn same_as(&self, value: &Value) -> bool {
        self.to_value() == *value
    }
    fn json_text(&self) -> String {
        match self {
            Json::Number(n) => n.clone().into_owned(),
            Json::Str(s) => Value::from(s.as_ref()).to_string(),
            _ => self.to_value().to_string(),
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Json<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(JsonVisitor(PhantomData))
    }
}

struct JsonVisitor<'a>(PhantomData<Json<'a>>);

impl<'de: 'a, 'a> Visitor<'de> for JsonVisitor<'a> {
    type Value = Json<'a>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, b: bool) -> Result<Json<'a>, E> {
        Ok(Json::Bool(b))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Json<'a>, E> {
        Ok(Json::Number(Cow::Owned(n.to_string())))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Json<'a>, E> {
        Ok(Json::Number(Cow::Owned(n.to_string())))
    }
    fn visit_f64<E: de::Error>(self, n: f64) -> Result<Json<'a>, E> {
        serde_json::Number::from_f64(n)
            .map(|n| Json::Number(Cow::Owned(n.to_string())))
            .ok_or_else(|| E::custom("a number that is not finite"))
    }
    fn visit_unit<E>(self) -> Result<Json<'a>, E> {
        Ok(Json::Null)
    }
    fn visit_none<E>(self) -> Result<Json<'a>, E> {
        Ok(Json::Null)
    }
    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Json<'a>, E> {
        Ok(Json::Str(Cow::Borrowed(s)))
    }
    fn visit_str<E>(self, s: &str) -> Result<Json<'a>, E> {
        Ok(Json::Str(Cow::Owned(s.to_owned())))
    }
    fn visit_string<E>(self, s: String) -> Result<Json<'a>, E> {
        Ok(Json::Str(Cow::Owned(s)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json<'a>, A::Error> {
        // serde_json gives no size hint: start with room for a record's usual arrays.
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(4).min(16));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json<'a>, A::Error> {
        let Some(Key(first)) = map.next_key()? else {
            return Ok(Json::Object(Vec::new()));
        };
        if first == NUMBER_TOKEN {
            // `arbitrary_precision`: a number arrives as a one-member map of its text.
            let text: String = map.next_value()?;
            return Ok(Json::Number(Cow::Owned(text)));
        }
        // Room for a record's usual objects, so members are not copied as they grow.
        let mut members = Vec::with_capacity(8);
        members.push((first, map.next_value()?));
        while let Some(Key(key)) = map.next_key()? {
            members.push((key, map.next_value()?));
        }
        Ok(Json::Object(members))
    }
}

/// An object key, borrowed when it has no escape.
struct Key<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Key<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(KeyVisitor(PhantomData))
    }
}

struct KeyVisitor<'a>(PhantomData<Key<'a>>);

impl<'de: 'a, 'a> Visitor<'de> for KeyVisitor<'a> {
    type Value = Key<'a>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }
    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Key<'a>, E> {
        Ok(Key(Cow::Borrowed(s)))
    }
    fn visit_str<E>(self, s: &str) -> Result<Key<'a>, E> {
        Ok(Key(Cow::Owned(s.to_owned())))
    }
    fn visit_string<E>(self, s: String) -> Result<Key<'a>, E> {
        Ok(Key(Cow::Owned(s)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn both(text: &str) -> (Json<'_>, Value) {
        let json: Json<'_> = serde_json::from_str(text).unwrap();
        let value: Value = serde_json::from_str(text).unwrap();
        (json, value)
    }

    #[test]
    fn a_parsed_line_builds_the_value_the_same_text_parses_to() {
        for text in [
            r#"{"a":1,"b":[true,null,"x\ny"],"c":{"d":-0,"e":1E5,"f":123456789012345678901234567890}}"#,
            r#"{"k":1,"k":2,"\u00e9":"\ud83d\ude00","z":0.12345678901234567}"#,
            r#"[{"id":5},{"id":"5"},[],{}]"#,
            r#""plain""#,
            "1e400",
        ] {
            let (json, value) = both(text);
            assert_eq!(json.to_value(), value, "{text}");
            assert_eq!(json.to_value().to_string(), value.to_string(), "{text}");
        }
    }

    #[test]
    fn reads_as_a_value_reads() {
        let text = r#"{"id":7,"s":"a\"b","n":1.5,"k":"first","k":"last","o":{"p":{"q":"deep"}},"arr":["x",2]}"#;
        let (json, value) = both(text);
        for key in ["id", "s", "n", "k", "o", "arr", "missing"] {
            let (j, v) = (json.get(key), JsonRead::get(&value, key));
            assert_eq!(j.map(JsonRead::to_value).as_ref(), v, "{key}");
            assert_eq!(j.and_then(JsonRead::as_str), v.and_then(Value::as_str));
            assert_eq!(j.and_then(JsonRead::as_u64), v.and_then(Value::as_u64));
            assert_eq!(
                j.map(JsonRead::json_text),
                v.map(ToString::to_string),
                "{key}"
            );
        }
        assert_eq!(
            json.pointer("/o/p/q").and_then(JsonRead::as_str),
            Some("deep")
        );
        assert_eq!(
            JsonRead::pointer(&value, "/o/p/q").and_then(Value::as_str),
            Some("deep")
        );
        assert!(json.pointer("/o/x").is_none() && json.pointer("o").is_none());
        let keys = |m: Option<Vec<(&str, &Json<'_>)>>| {
            m.unwrap()
                .iter()
                .map(|(k, v)| format!("{k}={}", v.json_text()))
                .collect::<Vec<_>>()
        };
        let value_keys: Vec<String> = value
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        assert_eq!(keys(json.members()), value_keys);
        assert_eq!(
            json.get("arr").and_then(JsonRead::items).map(<[_]>::len),
            Some(2)
        );
    }

    /// JSON texts as a producer may write them: any nesting, keys that repeat or need
    /// escapes, numbers of every spelling serde_json keeps.
    fn json_text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let number = prop_oneof![
            "-?(0|[1-9][0-9]{0,24})(\\.[0-9]{1,20})?([eE][+-]?[0-9]{1,3})?",
            Just("-0".to_owned()),
        ];
        let string = "[a-z\"\\\\é😀\\n]{0,6}".prop_map(|s| Value::from(s).to_string());
        let leaf = prop_oneof![
            Just("null".to_owned()),
            Just("true".to_owned()),
            Just("false".to_owned()),
            number,
            string.clone(),
        ];
        leaf.prop_recursive(4, 48, 6, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6)
                    .prop_map(|v| format!("[{}]", v.join(","))),
                prop::collection::vec(
                    (
                        "[ab\"k]{0,2}".prop_map(|k| Value::from(k).to_string()),
                        inner
                    ),
                    0..6
                )
                .prop_map(|m| {
                    let members: Vec<String> =
                        m.iter().map(|(k, v)| format!("{k} : {v}")).collect();
                    format!("{{ {} }}", members.join(" ,"))
                }),
            ]
        })
    }

    proptest::proptest! {
        #[test]
        fn any_json_text_reads_as_its_value_reads(text in json_text()) {
            let (json, value) = both(&text);
            proptest::prop_assert_eq!(json.to_value(), value.clone());
            proptest::prop_assert_eq!(json.json_text(), value.to_string());
            if let Some(members) = value.as_object() {
                for (key, member) in members {
                    let read = json.get(key).map(JsonRead::to_value);
                    proptest::prop_assert_eq!(read.as_ref(), Some(member));
                }
            }
        }
    }

    #[test]
    fn strings_and_keys_borrow_the_text_unless_escaped() {
        let json: Json<'_> =
            serde_json::from_str(r#"{"plain":"text","esc\"aped":"a\tb"}"#).unwrap();
        let Json::Object(members) = &json else {
            panic!("an object");
        };
        assert!(matches!(
            members[0],
            (Cow::Borrowed("plain"), Json::Str(Cow::Borrowed("text")))
        ));
        assert!(matches!(&members[1].0, Cow::Owned(k) if k == "esc\"aped"));
    }
}
