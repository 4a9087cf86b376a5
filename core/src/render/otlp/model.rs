//! The OTLP/JSON shapes lineage writes: an `ExportTraceServiceRequest` with one resource,
//! one scope and its spans, as the OTLP specification's JSON encoding spells them (field
//! names in lowerCamelCase, trace and span ids as hex strings, 64-bit integers and
//! nanosecond times as decimal strings, enums as integers).
//!
//! Owns: the data and its serialization. Never: decides what a span says (`mapping.rs`
//! does) or when it happened (`recorder.rs`).

use serde::Serialize;

/// `ExportTraceServiceRequest`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportRequest {
    /// One entry: lineage is the one resource.
    pub resource_spans: Vec<ResourceSpans>,
}

/// `ResourceSpans`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceSpans {
    /// The resource: what produced the spans.
    pub resource: Resource,
    /// One scope: lineage's export.
    pub scope_spans: Vec<ScopeSpans>,
    /// The semantic-conventions schema the attributes follow.
    pub schema_url: String,
}

/// `Resource`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Resource {
    /// Resource attributes.
    pub attributes: Vec<KeyValue>,
}

/// `ScopeSpans`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScopeSpans {
    /// The instrumentation scope.
    pub scope: Scope,
    /// The spans, parents before children.
    pub spans: Vec<Span>,
    /// The semantic-conventions schema the attributes follow.
    pub schema_url: String,
}

/// `InstrumentationScope`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Scope {
    /// `lineage`.
    pub name: String,
    /// lineage's version.
    pub version: String,
}

/// `Span`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Span {
    /// 32 lowercase hex digits.
    pub trace_id: String,
    /// 16 lowercase hex digits.
    pub span_id: String,
    /// The parent's span id; absent for a trace's top spans.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_span_id: Option<String>,
    /// `invoke_agent …` or `execute_tool …`.
    pub name: String,
    /// `SpanKind` as an integer (1: internal).
    pub kind: u8,
    /// Nanoseconds since the Unix epoch, as a decimal string.
    pub start_time_unix_nano: String,
    /// Nanoseconds since the Unix epoch, as a decimal string.
    pub end_time_unix_nano: String,
    /// Span attributes.
    pub attributes: Vec<KeyValue>,
    /// Span events, in time order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<Event>,
    /// Events left out (beyond the bound on events per span).
    #[serde(skip_serializing_if = "is_zero")]
    pub dropped_events_count: u32,
    /// Unset (`{}`) or error.
    pub status: Status,
}

/// `Span.Event`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    /// Nanoseconds since the Unix epoch, as a decimal string.
    pub time_unix_nano: String,
    /// Event name.
    pub name: String,
    /// Event attributes.
    pub attributes: Vec<KeyValue>,
}

/// `Status`: `code` 0 (unset, written as `{}`) or 2 (error).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Status {
    /// 2 for an error; absent when unset.
    #[serde(skip_serializing_if = "is_zero_u8")]
    pub code: u8,
    /// The error text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// `KeyValue`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KeyValue {
    /// Attribute name.
    pub key: String,
    /// Attribute value.
    pub value: AnyValue,
}

/// `AnyValue`: the three kinds lineage writes. An integer is a decimal string, as the
/// OTLP/JSON encoding writes every 64-bit integer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum AnyValue {
    /// `{"stringValue": …}`.
    #[serde(rename = "stringValue")]
    String(String),
    /// `{"intValue": "…"}`.
    #[serde(rename = "intValue")]
    Int(String),
    /// `{"boolValue": …}`.
    #[serde(rename = "boolValue")]
    Bool(bool),
}

/// Span kind `SPAN_KIND_INTERNAL`.
pub const KIND_INTERNAL: u8 = 1;
/// Status code `STATUS_CODE_ERROR`.
pub const STATUS_ERROR: u8 = 2;

impl KeyValue {
    /// A string attribute.
    pub fn string(key: &str, value: impl Into<String>) -> Self {
        Self {
            key: key.to_owned(),
            value: AnyValue::String(value.into()),
        }
    }

    /// An integer attribute.
    pub fn int(key: &str, value: u64) -> Self {
        Self {
            key: key.to_owned(),
            value: AnyValue::Int(value.to_string()),
        }
    }

    /// A boolean attribute.
    pub fn bool(key: &str, value: bool) -> Self {
        Self {
            key: key.to_owned(),
            value: AnyValue::Bool(value),
        }
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn is_zero_u8(n: &u8) -> bool {
    *n == 0
}
