//! A record read in place: a JSON value borrowed from the line's text, and one way of
//! reading it whether it was parsed from a line or handed over as a `serde_json::Value`.
//!
//! Owns: [`Json`], a JSON value whose strings and object keys borrow the line's text
//! (owned only where the text has an escape) and whose numbers are their text as written,
//! its objects kept as member lists in the order read; its parser ([`parse_as`]); [`JsonRead`],
//! the reading methods an adapter uses (`get`, `as_str`, `pointer` …), implemented alike
//! by [`Json`] and `Value`, so an adapter is written once and a parsed line never builds
//! a `Value` map (no key allocated, no key hashed).
//! Never: reads a record differently from its `Value`: a repeated key reads as its last
//! value (as a `Value` map keeps it), and [`JsonRead::to_value`] builds the `Value`
//! serde_json would have parsed from the same text, except that a number keeps its
//! spelling (`1E5` stays `1E5`; serde_json writes `1e+5`). The parser never recurses; a
//! text it does not accept is read by the ordinary path, which reports it.

mod object;
mod parse;

pub(crate) use object::Object;

pub(crate) use parse::{Cursor, Skipped, parse_as};

use std::borrow::Cow;

use serde_json::Value;

/// A JSON value borrowed from the text it was parsed from.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Json<'a> {
    Null,
    Bool(bool),
    /// A number's JSON text as written (its grammar checked by the parser).
    Number(&'a str),
    Str(Cow<'a, str>),
    Array(Vec<Json<'a>>),
    /// Members in the order read (a repeated key is kept twice; the last one is read).
    Object(Object<'a>),
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
    fn json_text(&self) -> String {
        self.to_string()
    }
}

impl JsonRead for Json<'_> {
    fn get(&self, key: &str) -> Option<&Self> {
        Json::get(self, key)
    }
    fn as_str(&self) -> Option<&str> {
        Json::as_str(self)
    }
    fn as_u64(&self) -> Option<u64> {
        Json::as_u64(self)
    }
    fn as_bool(&self) -> Option<bool> {
        Json::as_bool(self)
    }
    fn items(&self) -> Option<&[Self]> {
        self.as_array()
    }
    fn members(&self) -> Option<Vec<(&str, &Self)>> {
        Some(self.as_object()?.entries())
    }
    fn is_string(&self) -> bool {
        Json::is_string(self)
    }
    fn is_number(&self) -> bool {
        matches!(self, Json::Number(_))
    }
    fn is_object(&self) -> bool {
        Json::is_object(self)
    }
    fn to_value(&self) -> Value {
        match self {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Number(n) => Value::Number(number(n)),
            Json::Str(s) => Value::String(s.clone().into_owned()),
            Json::Array(items) => Value::Array(items.iter().map(JsonRead::to_value).collect()),
            Json::Object(object) => Value::Object(object.to_map()),
        }
    }
    fn null() -> Self {
        Json::Null
    }
    fn same_as(&self, value: &Value) -> bool {
        Json::same_as(self, value)
    }
    fn pointer(&self, pointer: &str) -> Option<&Self> {
        Json::pointer(self, pointer)
    }
    fn json_text(&self) -> String {
        match self {
            Json::Number(n) => (*n).to_owned(),
            Json::Str(s) => Value::from(s.as_ref()).to_string(),
            _ => self.to_value().to_string(),
        }
    }
}

/// `serde_json::to_value`, keeping every number's spelling (serde_json's own conversion
/// respells an exponent, as its parser does): the value is written as JSON text and read
/// back by [`parse_as`]. A value nested deeper than the parser reads takes serde_json's
/// conversion.
pub(crate) fn to_value<T: serde::Serialize + ?Sized>(x: &T) -> serde_json::Result<Value> {
    let text = serde_json::to_string(x)?;
    match parse_as::<Value>(&text) {
        Some(value) => Ok(value),
        None => serde_json::to_value(x),
    }
}

/// A number with its text as written.
///
/// serde_json's `arbitrary_precision` keeps a number as its text, but its parser respells
/// an exponent (`1E5` becomes `1e+5`), and so does `Number`'s `FromStr`; only
/// `from_string_unchecked` keeps the text as given. It is hidden from serde_json's
/// documentation, so the test `a_number_keeps_its_spelling` pins what it does; `text` is
/// a JSON number, checked by the parser, so the `Number` is one serde_json could hold.
pub(crate) fn number(text: &str) -> serde_json::Number {
    serde_json::Number::from_string_unchecked(text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::parse::MAX_NESTING;
    use super::*;

    fn parse(text: &str) -> Option<Json<'_>> {
        parse_as(text)
    }

    fn both(text: &str) -> (Json<'_>, Value) {
        let json = parse(text).unwrap();
        let value: Value = serde_json::from_str(text).unwrap();
        (json, value)
    }

    /// A value as serde_json reads its text: every exponent respelled `e` with a sign.
    fn respelled(value: &Value) -> Value {
        serde_json::from_str(&value.to_string()).unwrap()
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
            assert_eq!(respelled(&json.to_value()), value, "{text}");
        }
    }

    #[test]
    fn a_number_keeps_its_spelling() {
        let text = "[1E5,2e7,-3.25E-2,1e+400,-0,1.50,123456789012345678901234567890]";
        let value = parse(text).unwrap().to_value();
        assert_eq!(value.to_string(), text);
        let n = &value[0];
        assert_eq!(
            (n.as_f64(), n.is_f64(), n.as_u64()),
            (Some(1e5), true, None)
        );
        assert_eq!(value[4].as_i64(), Some(0));
        // The spelling is kept as data: serde_json's own reading of the text differs.
        assert_ne!(value, serde_json::from_str::<Value>(text).unwrap());
        assert_eq!(
            respelled(&value),
            serde_json::from_str::<Value>(text).unwrap()
        );
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
            proptest::prop_assert_eq!(respelled(&json.to_value()), value.clone());
            proptest::prop_assert_eq!(parse_as::<Value>(&text), Some(json.to_value()));
            let text_of_json: Value = serde_json::from_str(&json.json_text()).unwrap();
            proptest::prop_assert_eq!(text_of_json, value.clone());
            if let Some(members) = value.as_object() {
                for (key, member) in members {
                    let read = json.get(key).map(|j| respelled(&j.to_value()));
                    proptest::prop_assert_eq!(read.as_ref(), Some(member));
                }
            }
        }

        /// A `Json` borrowed from a `Value` reads as that `Value`, and a parsed `Json`
        /// equals a `Value` exactly when their `Value`s are equal (`==`: numbers by their
        /// text, objects in any order).
        #[test]
        fn a_json_and_a_value_compare_as_values_compare(a in json_text(), b in json_text()) {
            let (json_a, value_a) = (parse(&a).unwrap(), parse_as::<Value>(&a).unwrap());
            let value_b = parse_as::<Value>(&b).unwrap();
            proptest::prop_assert!(json_a.same_as(&value_a));
            proptest::prop_assert_eq!(json_a.same_as(&value_b), value_a == value_b);
            let borrowed = Json::of_value(&value_a);
            proptest::prop_assert_eq!(borrowed.to_value(), value_a.clone());
            proptest::prop_assert!(borrowed.same_as(&value_a));
            if let (Some(object), Some(map)) = (json_a.as_object(), value_a.as_object()) {
                let keys: Vec<&str> = object.entries().iter().map(|(k, _)| *k).collect();
                proptest::prop_assert!(keys.iter().copied().eq(map.keys().map(String::as_str)));
                proptest::prop_assert!(Object::entries_same_as_map(&object.entries(), map));
            }
        }

        /// Whatever the parser accepts, serde_json accepts and reads alike; whatever
        /// serde_json accepts, the parser accepts (it refuses only what the ordinary path
        /// must report).
        #[test]
        fn the_parser_accepts_what_serde_json_accepts(
            text in "[\\[\\]{}\",:0-9eE+.a-z\\\\ \t\u{1}é-]{0,24}"
        ) {
            let built = parse_as::<Value>(&text);
            proptest::prop_assert_eq!(&built, &parse(&text).map(|j| j.to_value()));
            proptest::prop_assert_eq!(parse_as::<Skipped>(&text).is_some(), built.is_some());
            let ours = built.as_ref().map(respelled);
            let theirs = serde_json::from_str::<Value>(&text).ok();
            proptest::prop_assert_eq!(ours, theirs, "{:?}", text);
        }
    }

    #[test]
    fn a_large_object_lists_a_repeated_key_once_at_its_first_place_with_its_last_value() {
        let members: Vec<String> = (0..40).map(|i| format!("\"k{}\":{i}", i % 25)).collect();
        let text = format!("{{{}}}", members.join(","));
        let (json, value) = both(&text);
        let object = json.as_object().unwrap();
        let listed: Vec<String> = object
            .entries()
            .iter()
            .map(|(k, v)| format!("{k}={}", v.json_text()))
            .collect();
        let expected: Vec<String> = value
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        assert_eq!(listed.len(), 25);
        assert_eq!(listed, expected);
        assert_eq!(
            object.get("k3").map(JsonRead::json_text).as_deref(),
            Some("28")
        );
        assert!(Object::entries_same_as_map(
            &object.entries(),
            value.as_object().unwrap()
        ));
    }

    #[test]
    fn a_deep_value_is_borrowed_without_recursion() {
        let mut value = Value::from("leaf");
        for i in 0..1000 {
            value = if i % 2 == 0 {
                Value::Array(vec![Value::Null, value])
            } else {
                serde_json::json!({ "k": value, "n": 1.50 })
            };
        }
        let json = Json::of_value(&value);
        assert!(json.same_as(&value));
        assert_eq!(json.to_value(), value);
    }

    /// The plain text of a string is skipped eight bytes at a time: whatever byte ends it
    /// (a quote, an escape, a control character), at whatever place among the eight, and
    /// whatever comes before it (bytes just above the control range, UTF-8), the string
    /// reads as serde_json reads it.
    #[test]
    fn a_string_ends_where_it_ends_at_every_place_of_a_word() {
        let fillers = ["a", " ", "!", "\u{7f}", "é", "😀"];
        let ends = ["\"", "\\n\"", "\\\"x\"", "\u{1f}\"", "\u{0}\""];
        for filler in fillers {
            for len in 0..20 {
                for end in ends {
                    let text = format!("[\"{}{end},\"{}\"]", filler.repeat(len), "z".repeat(len));
                    let ours = parse_as::<Value>(&text);
                    let theirs = serde_json::from_str::<Value>(&text).ok();
                    assert_eq!(ours, theirs, "{text:?}");
                }
            }
        }
    }

    #[test]
    fn strings_and_keys_borrow_the_text_unless_escaped() {
        let json = parse(r#"{"plain":"text","esc\"aped":"a\tb"}"#).unwrap();
        let Json::Object(Object(members)) = &json else {
            panic!("an object");
        };
        assert!(matches!(
            members[0],
            (Cow::Borrowed("plain"), Json::Str(Cow::Borrowed("text")))
        ));
        assert!(matches!(&members[1].0, Cow::Owned(k) if k == "esc\"aped"));
    }

    #[test]
    fn the_parser_refuses_what_serde_json_refuses() {
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        let refused = [
            "",
            " ",
            "01",
            "-",
            "-a",
            "1.",
            "1.e5",
            "1e",
            "1e+",
            ".5",
            "+1",
            "tru",
            "nul",
            "[1,]",
            "[,1]",
            r#"{"a":1,}"#,
            r#"{"a" 1}"#,
            r#"{a:1}"#,
            "[1]x",
            "1 2",
            "\"a",
            "\"\\x\"",
            "\"\\u12\"",
            r#""\ud800""#,
            r#""\udc00""#,
            r#""\ud800\u0041""#,
            "\"a\u{1}b\"",
            "\"tab\there\"",
            "\u{feff}1",
            "NaN",
            "Infinity",
        ];
        for text in refused
            .iter()
            .map(|t| (*t).to_owned())
            .chain([deep(MAX_NESTING + 1)])
        {
            assert!(parse(&text).is_none(), "{text:?}");
            assert!(serde_json::from_str::<Value>(&text).is_err(), "{text:?}");
        }
        let deepest = deep(MAX_NESTING);
        assert!(parse(&deepest).is_some());
        assert!(serde_json::from_str::<Value>(&deepest).is_ok());
        let (json, _) = both(r#" { "s" : "\ud83d\ude00\u0000\/" , "e" : [ ] , "o" : { } } "#);
        assert_eq!(json.get("s").and_then(JsonRead::as_str), Some("😀\0/"));
    }

    #[test]
    fn a_cursor_counts_nesting_from_the_top_as_serde_json_does() {
        let line = |n: usize| format!(r#"{{"m":{{"p":{}{}}}}}"#, "[".repeat(n), "]".repeat(n));
        for (arrays, accepted) in [(MAX_NESTING - 2, true), (MAX_NESTING - 1, false)] {
            let text = line(arrays);
            assert_eq!(serde_json::from_str::<Value>(&text).is_ok(), accepted);
            let mut c = Cursor::new(&text);
            let mut values = Vec::new();
            let read = c.object(|outer, c| {
                assert_eq!(outer, "m");
                c.object(|_, c| c.value::<Value>().map(|v| values.push(v)))
            });
            assert_eq!(read.and_then(|()| c.end()).is_some(), accepted, "{arrays}");
            assert_eq!(values.len(), usize::from(accepted));
        }
    }
}
