//! Trace files: the JSONL envelope shared by every format (docs/contract.md, *Trace files*).
//!
//! Owns: the optional header line, format names, physical line numbering
//! and the `canonical` record shape (`{"event": <Event>, "at": <ms>?}`).
//! Never: reads files (callers hand in text) or interprets provider messages.
//!
//! Line numbers are physical and 1-based: the header, blank lines and malformed lines
//! all count, so `--at N` and findings point at what an editor shows.

use std::fmt;
use std::str::FromStr;

use serde::Deserialize;
use serde_json::Value;

use crate::tree::{Event, Millis};

pub(crate) mod borrowed;
pub(crate) mod json;

pub(crate) use json::strip_bom;

/// A trace format name, as in a header's `"format"` or `--input-format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Format {
    /// An ACP JSON-RPC stream (`{"from":"client"|"agent",…}`).
    Acp,
    /// A Codex app-server stdio log (`{"from":"server"|"client",…}`).
    CodexAppServer,
    /// A Claude Code stream-json log (`{"from":"cli"|"host",…}`).
    ClaudeSdk,
    /// lineage's own event vocabulary (`{"event":…}`).
    Canonical,
}

impl Format {
    /// Every format, in contract order.
    pub const ALL: [Format; 4] = [
        Format::Acp,
        Format::CodexAppServer,
        Format::ClaudeSdk,
        Format::Canonical,
    ];

    /// The contract name.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Acp => "acp",
            Format::CodexAppServer => "codex-app-server",
            Format::ClaudeSdk => "claude-sdk",
            Format::Canonical => "canonical",
        }
    }

    /// The `from` of each side of a provider format: `[the program's, its peer's]`
    /// (`cli`/`host`, `server`/`client`, `agent`/`client`); canonical records have none.
    pub fn sides(self) -> Option<[&'static str; 2]> {
        match self {
            Format::ClaudeSdk => Some(["cli", "host"]),
            Format::CodexAppServer => Some(["server", "client"]),
            Format::Acp => Some(["agent", "client"]),
            Format::Canonical => None,
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for Format {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Format {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

/// The name is not one of `acp`, `codex-app-server`, `claude-sdk`, `canonical`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown trace format `{0}` (expected one of: acp, codex-app-server, claude-sdk, canonical)"
)]
pub struct UnknownFormat(pub String);

impl FromStr for Format {
    type Err = UnknownFormat;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Format::ALL
            .into_iter()
            .find(|f| f.as_str() == s)
            .ok_or_else(|| UnknownFormat(s.to_owned()))
    }
}

/// A trace header: `{"lineage":"trace","format":F,"version":1, …}`.
#[derive(Debug, Clone, PartialEq)]
pub struct Header {
    /// The declared format.
    pub format: Format,
    /// The declared version.
    pub version: u64,
    /// The whole header object (format-specific fields such as `rootThreadId`).
    pub fields: serde_json::Map<String, Value>,
}

/// Why a line is not a valid record (reported as `malformed-record`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    /// Not JSON at all.
    #[error("not JSON: {0}")]
    NotJson(String),
    /// A header (`"lineage":"trace"`) that is not a valid one.
    #[error("not a valid trace header: {0}")]
    Header(String),
    /// JSON, but not a record of this format.
    #[error("not a valid {format} record: {reason}")]
    Invalid {
        /// The trace's format.
        format: Format,
        /// What is wrong.
        reason: String,
    },
}

/// Is this line a header? Returns `None` when it is not one, `Some(Err)` when it claims to
/// be one (`"lineage":"trace"`) but is malformed.
pub fn parse_header(line: &str) -> Option<Result<Header, RecordError>> {
    let value: Value = serde_json::from_str(line).ok()?;
    let obj = value.as_object()?;
    if obj.get("lineage").and_then(Value::as_str) != Some("trace") {
        return None;
    }
    let format = match obj.get("format").and_then(Value::as_str) {
        Some(name) => name.parse::<Format>(),
        None => Err(UnknownFormat("<missing>".into())),
    };
    Some(match format {
        Err(e) => Err(RecordError::Header(e.to_string())),
        Ok(format) => Ok(Header {
            format,
            version: obj.get("version").and_then(Value::as_u64).unwrap_or(1),
            fields: obj.clone(),
        }),
    })
}

/// The only header version there is so far.
pub const HEADER_VERSION: u64 = 1;

impl Header {
    /// Why the header's `version` is not one this lineage knows (absent means 1).
    pub fn version_problem(&self) -> Option<String> {
        let version = self.fields.get("version")?;
        (version.as_u64() != Some(HEADER_VERSION)).then(|| {
            format!(
                "trace header version {version} is unknown (this lineage reads version {HEADER_VERSION}); \
                 the records are read as version {HEADER_VERSION}"
            )
        })
    }
}

/// Does this line look like a header (before parsing it as one)?
pub(crate) fn may_be_header(line: &str) -> bool {
    line.contains("\"lineage\"")
}

/// One record of a `canonical` trace.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(from = "CanonicalWire")]
pub struct CanonicalRecord {
    /// The event.
    pub event: Event,
    /// Milliseconds, when the record carries a valid `at`.
    pub at: Option<Millis>,
    /// Why the record's `at` is not a time (the record still applies, without one).
    pub at_problem: Option<String>,
}

#[derive(Deserialize)]
struct CanonicalWire {
    event: Event,
    #[serde(default)]
    at: At,
}

impl From<CanonicalWire> for CanonicalRecord {
    fn from(w: CanonicalWire) -> Self {
        let (at, at_problem) = w.at.split();
        Self {
            event: w.event,
            at,
            at_problem,
        }
    }
}

/// A record's `at` as read: absent (or null), a time, or a value that is not one.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) enum At {
    /// No `at`.
    #[default]
    Absent,
    /// Milliseconds.
    Time(Millis),
    /// Not a non-negative number of milliseconds below 2^64: why.
    Invalid(String),
}

impl At {
    /// Reads an `at` value: a non-negative number below 2^64 (fractions truncated).
    pub(crate) fn read(value: &Value) -> At {
        const LIMIT: f64 = 18_446_744_073_709_551_616.0; // 2^64
        if value.is_null() {
            return At::Absent;
        }
        if let Some(ms) = value.as_u64() {
            return At::Time(ms);
        }
        match value.as_f64() {
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            Some(f) if (0.0..LIMIT).contains(&f) => At::Time(f as u64),
            _ => At::Invalid(format!(
                "`at` must be a non-negative number of milliseconds below 2^64, got {value}; \
                 the record is applied without a time"
            )),
        }
    }

    /// The time, and why there is none when the value was not one.
    pub(crate) fn split(self) -> (Option<Millis>, Option<String>) {
        match self {
            At::Absent => (None, None),
            At::Time(ms) => (Some(ms), None),
            At::Invalid(why) => (None, Some(why)),
        }
    }
}

impl<'de> Deserialize<'de> for At {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Value::deserialize(d).map(|v| At::read(&v))
    }
}

/// Parses one line of a `canonical` trace.
///
/// ```
/// use lineage_core::trace::parse_canonical;
/// let r = parse_canonical(r#"{"event":{"type":"child_turn_started","session":"A"},"at":12}"#).unwrap();
/// assert_eq!(r.at, Some(12));
/// assert!(parse_canonical(r#"{"event":{"type":"no_such_event"}}"#).is_err());
/// ```
pub fn parse_canonical(line: &str) -> Result<CanonicalRecord, RecordError> {
    let value: Value =
        serde_json::from_str(line).map_err(|e| RecordError::NotJson(in_record(&e)))?;
    CanonicalRecord::deserialize(&value).map_err(|e| RecordError::Invalid {
        format: Format::Canonical,
        reason: not_an_object(line).unwrap_or_else(|| e.to_string()),
    })
}

/// The JSON type's name, for messages: "a number", "an array", …
pub(crate) fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Why a line of valid JSON is not a record when its value is not an object ("a record
/// must be a JSON object, got a number"), told by its first character.
fn not_an_object(line: &str) -> Option<String> {
    let kind = match crate::trace::strip_bom(line).trim_start().bytes().next()? {
        b'{' => return None,
        b'[' => "an array",
        b'"' => "a string",
        b't' | b'f' => "a boolean",
        b'n' => "null",
        _ => "a number",
    };
    Some(format!("a record must be a JSON object, got {kind}"))
}

/// One record line parsed as `T` (any nesting depth up to `json::MAX_DEPTH`), with the
/// note to report when values nested deeper than `json::KEEP_DEPTH` were not kept.
pub(crate) fn parse_line<T: serde::de::DeserializeOwned>(
    line: &str,
    format: Format,
) -> Result<(T, Option<String>), RecordError> {
    match json::parse::<T>(line) {
        Ok(parsed) => Ok((parsed.value, parsed.pruned.map(|p| p.to_string()))),
        // A line that is not JSON at all says so, even when serde met a wrong type first
        // (error path only; ignoring a value never recurses).
        Err(e) if e.kind == json::ErrorKind::Shape => {
            match serde_json::from_str::<serde::de::IgnoredAny>(line) {
                Err(syntax) => Err(RecordError::NotJson(in_record(&syntax))),
                Ok(_) => Err(RecordError::Invalid {
                    format,
                    reason: not_an_object(line).unwrap_or(e.message),
                }),
            }
        }
        Err(e) => Err(RecordError::NotJson(e.to_string())),
    }
}

/// One record line parsed as a `Value`, its numbers as written: [`json::parse_value`],
/// with errors reported as [`parse_line`] reports them.
pub(crate) fn parse_value_line(
    line: &str,
    format: Format,
) -> Result<(Value, Option<String>), RecordError> {
    match borrowed::parse_as(line) {
        Some(value) => Ok((value, None)),
        None => parse_line::<Value>(line, format),
    }
}

/// serde_json locates errors as "line 1 column N" of the record; the trace line number is
/// reported separately, so keep only the column.
pub fn in_record(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rsplit_once(" at line ") {
        Some((head, _)) if e.line() == 1 => format!("{head} at column {}", e.column()),
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_is_recognised_and_format_parsed() {
        let h = parse_header(
            r#"{"lineage":"trace","format":"codex-app-server","version":1,"rootThreadId":"T"}"#,
        )
        .unwrap()
        .unwrap();
        assert_eq!(h.format, Format::CodexAppServer);
        assert_eq!(h.fields["rootThreadId"], "T");
        assert!(parse_header(r#"{"event":{}}"#).is_none());
        assert!(
            parse_header(r#"{"lineage":"trace","format":"nope"}"#)
                .unwrap()
                .is_err()
        );
    }

    #[test]
    fn at_accepts_integers_and_fractions_and_keeps_the_record_without_a_bad_one() {
        let at = |s: &str| parse_canonical(s).map(|r| (r.at, r.at_problem.is_some()));
        let e = r#""event":{"type":"child_turn_started","session":"A"}"#;
        assert_eq!(at(&format!("{{{e},\"at\":5}}")), Ok((Some(5), false)));
        assert_eq!(at(&format!("{{{e},\"at\":5.9}}")), Ok((Some(5), false)));
        assert_eq!(at(&format!("{{{e}}}")), Ok((None, false)));
        assert_eq!(at(&format!("{{{e},\"at\":null}}")), Ok((None, false)));
        for bad in [
            "-1",
            "\"5\"",
            "1e40",
            "1e400",
            "-1e400",
            "18446744073709551616",
            "{}",
        ] {
            assert_eq!(
                at(&format!("{{{e},\"at\":{bad}}}")),
                Ok((None, true)),
                "{bad}"
            );
        }
        assert_eq!(
            at(&format!("{{{e},\"at\":18446744073709551615}}")),
            Ok((Some(u64::MAX), false))
        );
    }
}
