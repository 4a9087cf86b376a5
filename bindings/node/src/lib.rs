//! lineage for Node.js: the addon under `index.js`. Every method returns JSON text
//! (the wrapper parses it with `JSON.parse`, which is faster than building the objects
//! through N-API) or throws an `Error` whose message is `<code>` U+001F `<message>`; the
//! wrapper rethrows it as an `Error` with that `code` (`lineage_cli::api::ErrorCode`),
//! since napi-rs gives a returned error its own status as `code`.
//!
//! Never: panics across the boundary. Every entry point runs inside `catch_unwind`; a
//! panic (a broken invariant, never input) is an `Error` with code `internal`, and the
//! engine that panicked is dropped (it throws `finished` after that).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

use lineage_cli::api::{
    self, CheckInput, CheckOptions, ClientCaps, ConvertOptions, ConvertTarget, ErrorCode, Input,
    ReplayOptions, ReportFormat,
};
use lineage_core::engine::{Engine, Options, Output};
use lineage_core::finding::Revision;
use lineage_core::render;
use lineage_core::trace::Format;
use napi::Result;
use napi::bindgen_prelude::{Buffer, Either};
use napi_derive::napi;
use serde_json::Value;

/// Separates the code from the message in a thrown error's text.
const CODE_END: char = '\u{1f}';

fn error(code: ErrorCode, message: impl Into<String>) -> napi::Error {
    let message = message.into();
    napi::Error::new(
        napi::Status::GenericFailure,
        format!("{code}{CODE_END}{message}"),
    )
}

fn from_api(e: api::Error) -> napi::Error {
    error(e.code, e.message)
}

/// Runs `f`, a panic becoming an `internal` error.
fn guarded<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Err(error(
            ErrorCode::Internal,
            format!("lineage: internal error (please report it): {what}"),
        ))
    })
}

fn parse_format(name: Option<String>) -> Result<Option<Format>> {
    name.map(|n| {
        n.parse::<Format>()
            .map_err(|e| error(ErrorCode::Usage, e.to_string()))
    })
    .transpose()
}

fn parse_spec(rev: Option<String>) -> Result<Option<Revision>> {
    rev.map(|r| {
        r.parse::<Revision>()
            .map_err(|e| error(ErrorCode::Usage, e.to_string()))
    })
    .transpose()
}

/// The options of `new Engine(…)`.
#[napi(object)]
#[derive(Debug, Default)]
pub struct EngineOptions {
    /// The trace format when the trace has no header.
    pub format: Option<String>,
    /// ACP: the Subagent Sessions RFD revision (`2026-09-24`, `2026-10-05`, `final`).
    pub spec: Option<String>,
    /// ACP: keep message content in the Client view (default true).
    pub transcripts: Option<bool>,
    /// Codex: the root thread id.
    pub root_thread: Option<String>,
}

/// The engine: push records, read what each changed.
#[napi]
#[derive(Debug)]
pub struct NativeEngine {
    /// `None` once finished (or after a panic).
    engine: Option<Engine>,
}

/// `{"changes":[…],"findings":[…]}` of one output, written straight from the values
/// (no `serde_json::Value` in between: this is on every push).
fn output_json(out: &Output) -> Result<String> {
    #[derive(serde::Serialize)]
    struct OutputRef<'a> {
        changes: &'a [lineage_core::Change],
        findings: &'a [lineage_core::finding::Finding],
    }
    if out.changes.is_empty() && out.findings.is_empty() {
        return Ok(EMPTY_OUTPUT.to_owned());
    }
    let value = OutputRef {
        changes: &out.changes,
        findings: &out.findings,
    };
    serde_json::to_string(&value).map_err(|e| error(ErrorCode::Internal, e.to_string()))
}

/// The JSON of an output with nothing in it.
const EMPTY_OUTPUT: &str = r#"{"changes":[],"findings":[]}"#;

#[napi]
impl NativeEngine {
    /// An engine with these options.
    #[napi(constructor)]
    pub fn new(options: Option<EngineOptions>) -> Result<Self> {
        guarded(|| {
            let options = options.unwrap_or_default();
            let engine = Engine::new(Options {
                format: parse_format(options.format)?,
                acp_spec: parse_spec(options.spec)?,
                transcripts: options.transcripts.unwrap_or(true),
                codex_root_thread: options.root_thread,
                ..Options::default()
            });
            Ok(Self {
                engine: Some(engine),
            })
        })
    }

    /// Runs `f` on the live engine; a panic drops it.
    fn with<T>(&mut self, f: impl FnOnce(&mut Engine) -> Result<T>) -> Result<T> {
        let Some(engine) = self.engine.as_mut() else {
            return Err(finished());
        };
        let result = guarded(|| f(engine));
        if result
            .as_ref()
            .is_err_and(|e| e.reason.starts_with(ErrorCode::Internal.as_str()))
        {
            self.engine = None;
        }
        result
    }

    /// Pushes the next line (a string or the bytes of one); with `at`, the record's time
    /// when it carries none. Returns the output's JSON.
    #[napi]
    pub fn push(&mut self, line: Either<String, Buffer>, at: Option<f64>) -> Result<String> {
        self.with(|engine| {
            let out = match (line, at) {
                (Either::A(text), None) => engine.push_line(&text),
                (Either::B(bytes), None) => engine.push_bytes(&bytes),
                (line, Some(at)) => {
                    let text = match &line {
                        Either::A(text) => text.clone(),
                        Either::B(bytes) => String::from_utf8_lossy(bytes).into_owned(),
                    };
                    match with_time(&text, at)? {
                        Some(timed) => engine.push_line(&timed),
                        None => match line {
                            Either::A(text) => engine.push_line(&text),
                            Either::B(bytes) => engine.push_bytes(&bytes),
                        },
                    }
                }
            };
            output_json(&out.map_err(|e| from_api(e.into()))?)
        })
    }

    /// The next deadline of a time rule (ms), if any.
    #[napi]
    pub fn poll_timeout(&mut self) -> Result<Option<f64>> {
        #[allow(clippy::cast_precision_loss)]
        self.with(|engine| Ok(engine.poll_timeout().map(|t| t as f64)))
    }

    /// Time reached `now` (ms): the rules due fire. Returns the output's JSON.
    #[napi]
    pub fn handle_timeout(&mut self, now: f64) -> Result<String> {
        let now = millis(now)?;
        self.with(|engine| output_json(&engine.handle_timeout(now)))
    }

    /// The `replay --format json` document of the trace so far (cut here).
    #[napi]
    pub fn snapshot(&mut self) -> Result<String> {
        self.with(|engine| Ok(render::engine_json(engine).to_string()))
    }

    /// The trace ended: `{"changes","findings","snapshot"}` (the end-of-trace output
    /// and the final `replay --format json` document). The engine is spent after it.
    #[napi]
    pub fn finish(&mut self) -> Result<String> {
        let result = self.with(|engine| {
            let end = engine.end().map_err(|e| from_api(e.into()))?;
            let replay = engine.clone().finish().map_err(|e| from_api(e.into()))?;
            let snapshot = render::json_string(&replay, false);
            let mut text = output_json(&end)?;
            text.pop();
            Ok(format!("{text},\"snapshot\":{snapshot}}}"))
        });
        self.engine = None;
        result
    }
}

fn finished() -> napi::Error {
    error(
        ErrorCode::Finished,
        "this engine has finished (finish() was called, or it failed): create a new Engine",
    )
}

/// A time in ms as the engine's clock takes it.
fn millis(ms: f64) -> Result<u64> {
    if ms.is_finite() && ms >= 0.0 && ms.fract() == 0.0 && ms <= 9_007_199_254_740_991.0 {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Ok(ms as u64)
    } else {
        Err(error(
            ErrorCode::Usage,
            format!("a time is a whole number of milliseconds, 0 or more, got {ms}"),
        ))
    }
}

/// The line with `"at": at` added, when it is a JSON object without one.
fn with_time(line: &str, at: f64) -> Result<Option<String>> {
    let at = millis(at)?;
    let Ok(Value::Object(mut record)) = serde_json::from_str::<Value>(line) else {
        return Ok(None);
    };
    if record.contains_key("at") {
        return Ok(None);
    }
    record.insert("at".into(), Value::from(at));
    Ok(Some(Value::Object(record).to_string()))
}

/// A trace given to `replay`, `check` or `convert`.
fn input(text: &Either<String, Buffer>, is_path: bool) -> Input<'_> {
    match text {
        Either::A(s) if is_path => Input::Path(Path::new(s)),
        Either::A(s) => Input::Text(s),
        Either::B(bytes) => Input::Bytes(bytes),
    }
}

/// The options of `replay(…)`.
#[napi(object)]
#[derive(Debug, Default)]
pub struct ReplayOpts {
    /// The trace format when it has no header.
    pub format: Option<String>,
    /// ACP: the RFD revision.
    pub spec: Option<String>,
    /// A native source with several trees: the root to show.
    pub session: Option<String>,
    /// Codex: the root thread id.
    pub root_thread: Option<String>,
    /// Cut after this physical line.
    pub at: Option<u32>,
}

fn replay_options(o: Option<ReplayOpts>) -> Result<ReplayOptions> {
    let o = o.unwrap_or_default();
    Ok(ReplayOptions {
        format: parse_format(o.format)?,
        spec: parse_spec(o.spec)?,
        session: o.session,
        root_thread: o.root_thread,
        at: o.at.map(|n| n as usize),
    })
}

/// `lineage replay --format json` of a path or a trace's text.
#[napi]
pub fn replay_json(
    trace: Either<String, Buffer>,
    is_path: bool,
    options: Option<ReplayOpts>,
) -> Result<String> {
    guarded(|| {
        let options = replay_options(options)?;
        let doc = api::replay_json(input(&trace, is_path), &options).map_err(from_api)?;
        Ok(doc.text)
    })
}

/// `lineage replay --format changes`: the stream's lines.
#[napi]
pub fn changes_lines(
    trace: Either<String, Buffer>,
    is_path: bool,
    options: Option<ReplayOpts>,
) -> Result<Vec<String>> {
    guarded(|| {
        let options = replay_options(options)?;
        let lines = api::changes_lines(input(&trace, is_path), &options).map_err(from_api)?;
        Ok(lines.lines)
    })
}

/// The options of `check(…)`.
#[napi(object)]
#[derive(Debug, Default)]
pub struct CheckOpts {
    /// `json` (default), `sarif`, `junit`, `github` or `human`.
    pub format: Option<String>,
    /// Warnings fail too.
    pub deny_warnings: Option<bool>,
    /// ACP: the RFD revision.
    pub spec: Option<String>,
    /// The name a text is reported under (default `-`).
    pub name: Option<String>,
}

/// `lineage check` of paths or a trace's text: `[report text, fails]`.
#[napi]
pub fn check(
    traces: Vec<String>,
    is_path: bool,
    options: Option<CheckOpts>,
) -> Result<(String, bool)> {
    guarded(|| {
        let o = options.unwrap_or_default();
        let format = match o.format.as_deref() {
            None => ReportFormat::Json,
            Some(name) => name.parse::<ReportFormat>().map_err(from_api)?,
        };
        let options = CheckOptions {
            format,
            deny_warnings: o.deny_warnings.unwrap_or(false),
            spec: parse_spec(o.spec)?,
        };
        let name = o.name.unwrap_or_else(|| "-".to_owned());
        let inputs: Vec<CheckInput> = traces
            .into_iter()
            .map(|t| match is_path {
                true => CheckInput::Path(t.into()),
                false => CheckInput::Text {
                    name: name.clone(),
                    text: t,
                },
            })
            .collect();
        let report = api::check_report(&inputs, options);
        if let Some((_, e)) = report.failures.into_iter().next() {
            return Err(from_api(e));
        }
        Ok((report.text, report.fails))
    })
}

/// The options of `convert(…)`.
#[napi(object)]
#[derive(Debug, Default)]
pub struct ConvertOpts {
    /// `acp-v1`, `acp-v2`, `canonical` or `otlp-json`.
    pub to: String,
    /// v1: `subagents` (default) or `none`.
    pub client_caps: Option<String>,
    /// `settlement` (default) or `provider-end`.
    pub prompt_response: Option<String>,
    /// After the log, reconnect and load every root.
    pub reconnect: Option<bool>,
    /// The trace format when it has no header.
    pub format: Option<String>,
    /// The root to convert: of a native source with several trees, or of a Codex
    /// app-server trace whose connection started several root threads.
    pub session: Option<String>,
}

/// `lineage convert`: `{"text","findings":[{file,…finding}],"errors"}` as JSON.
#[napi]
pub fn convert(
    trace: Either<String, Buffer>,
    is_path: bool,
    options: ConvertOpts,
) -> Result<String> {
    guarded(|| {
        let mut o = ConvertOptions::to(options.to.parse::<ConvertTarget>().map_err(from_api)?);
        o.client_caps = match options.client_caps.as_deref() {
            None | Some("subagents") => ClientCaps::Subagents,
            Some("none") => ClientCaps::None,
            Some(other) => {
                return Err(error(
                    ErrorCode::Usage,
                    format!("unknown clientCaps `{other}` (subagents, none)"),
                ));
            }
        };
        o.prompt_at_provider_end = match options.prompt_response.as_deref() {
            None | Some("settlement") => false,
            Some("provider-end") => true,
            Some(other) => {
                return Err(error(
                    ErrorCode::Usage,
                    format!("unknown promptResponse `{other}` (settlement, provider-end)"),
                ));
            }
        };
        o.reconnect = options.reconnect.unwrap_or(false);
        o.format = parse_format(options.format)?;
        o.session = options.session;
        let converted = api::convert(input(&trace, is_path), &o).map_err(from_api)?;
        let findings: Vec<Value> = converted
            .findings
            .iter()
            .map(|(file, f)| {
                let mut v = serde_json::to_value(f).unwrap_or(Value::Null);
                if let Some(obj) = v.as_object_mut() {
                    obj.insert("file".into(), Value::String(file.clone()));
                }
                v
            })
            .collect();
        Ok(serde_json::json!({
            "text": converted.text,
            "findings": findings,
            "errors": converted.errors,
        })
        .to_string())
    })
}

/// For `bench/push.js`: the Rust engine alone (no N-API, no JSON of the output) over the
/// same lines, `rounds` times, each round on a new engine; the nanoseconds of each round.
/// `with_json`: each output also written as the JSON `push` returns.
/// The ratio of the Node push loop to this is the binding's cost.
#[napi(js_name = "rustPushRounds")]
pub fn rust_push_rounds(
    lines: Vec<String>,
    format: Option<String>,
    rounds: u32,
    with_json: Option<bool>,
) -> Result<Vec<f64>> {
    guarded(|| {
        let format = parse_format(format)?;
        let mut times = Vec::new();
        for _ in 0..rounds {
            let mut engine = Engine::new(Options {
                format,
                ..Options::default()
            });
            let start = std::time::Instant::now();
            for line in &lines {
                let out = engine.push_line(line).map_err(|e| from_api(e.into()))?;
                if with_json == Some(true) {
                    std::hint::black_box(output_json(&out)?);
                }
                std::hint::black_box(out);
            }
            #[allow(clippy::cast_precision_loss)]
            times.push(start.elapsed().as_nanos() as f64);
            std::hint::black_box(engine);
        }
        Ok(times)
    })
}
