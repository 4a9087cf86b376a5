//! `lineage convert` as a function: a trace of any format (or one tree of a native source)
//! through the engine, its canonical changes projected to the ACP stream an Agent would
//! send (`project::Converter`), its canonical events, or its OpenTelemetry export (every
//! push observed by an OTLP recorder, `render::otlp::export_json`); the text the command
//! writes, with the input's findings, located. [`send_otlp`] POSTs an export to a
//! collector (`convert --otlp-endpoint`, through [`otlp_http`]).
//! Never: prints (the findings are returned, for the caller to show).

use std::cell::RefCell;

use lineage_core::Severity;
use lineage_core::engine::{Engine, EngineError, Options, Output, Replay};
use lineage_core::finding::Finding;
use lineage_core::native::Source;
use lineage_core::project::{Converter, Options as ProjectOptions, PromptResponse, Version};
use lineage_core::providers::ProviderRecord;
use lineage_core::render::otlp::{self, Recorder};
use lineage_core::trace::Format;

use crate::api::{Error, ErrorCode, Input};
use crate::{native_source, otlp_http};

/// The stream `convert` writes (`--to`; the variants' texts are the command's help).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
#[non_exhaustive]
pub enum ConvertTarget {
    /// ACP v1 (`subagent_update` states on the parent).
    AcpV1,
    /// ACP v2 (`state_update` on the child's stream, mirrored on the parent).
    AcpV2,
    /// The canonical events the input normalizes to (a `canonical` trace).
    Canonical,
    /// OpenTelemetry traces (OTLP/JSON `ExportTraceServiceRequest`, GenAI agent spans).
    OtlpJson,
}

impl std::str::FromStr for ConvertTarget {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        match s {
            "acp-v1" => Ok(ConvertTarget::AcpV1),
            "acp-v2" => Ok(ConvertTarget::AcpV2),
            "canonical" => Ok(ConvertTarget::Canonical),
            "otlp-json" => Ok(ConvertTarget::OtlpJson),
            _ => Err(Error::new(
                ErrorCode::Usage,
                format!("unknown conversion target `{s}` (acp-v1, acp-v2, canonical, otlp-json)"),
            )),
        }
    }
}

/// v1: whether the Client advertises `subagents` (`--client-caps`; the variants' texts are
/// the command's help).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ClientCaps {
    /// The Client advertises `subagents: {}`.
    #[default]
    Subagents,
    /// The Client advertises nothing: children are presented through the root session.
    None,
}

/// The options of `lineage convert`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConvertOptions {
    /// The stream to write (`--to`).
    pub to: ConvertTarget,
    /// `--client-caps`.
    pub client_caps: ClientCaps,
    /// Answer the root prompt when the root provider turn ends, not at settlement
    /// (`--prompt-response provider-end`).
    pub prompt_at_provider_end: bool,
    /// `--reconnect`.
    pub reconnect: bool,
    /// The trace format when it has no header (`--input-format`).
    pub format: Option<Format>,
    /// The root session to convert (`--session`): of a native source with several trees,
    /// or of a Codex app-server trace whose connection started several root threads.
    pub session: Option<String>,
}

impl ConvertOptions {
    /// Converting to `to`, every other option at the command's default.
    pub fn to(to: ConvertTarget) -> Self {
        Self {
            to,
            client_caps: ClientCaps::Subagents,
            prompt_at_provider_end: false,
            reconnect: false,
            format: None,
            session: None,
        }
    }

    fn project(&self) -> ProjectOptions {
        ProjectOptions {
            version: match self.to {
                ConvertTarget::AcpV1 | ConvertTarget::Canonical | ConvertTarget::OtlpJson => {
                    Version::V1
                }
                ConvertTarget::AcpV2 => Version::V2,
            },
            client_subagents: self.client_caps == ClientCaps::Subagents,
            prompt_response: if self.prompt_at_provider_end {
                PromptResponse::AtProviderEnd
            } else {
                PromptResponse::AtRootSettlement
            },
            reconnect: self.reconnect,
            ..ProjectOptions::default()
        }
    }
}

/// What `convert` made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Converted {
    /// The trace written (header first).
    pub text: String,
    /// The input's findings, each with the file it is in (the input's path or name): a
    /// native source's own first, then the engine's.
    pub findings: Vec<(String, Finding)>,
    /// Whether a finding is an error, a native source's own included (the command exits
    /// 1 then, as `replay` does).
    pub errors: bool,
}

/// `lineage convert`: the text it writes for `input`, and the input's findings.
/// An error about a path names it.
pub fn convert(input: Input<'_>, options: &ConvertOptions) -> Result<Converted, Error> {
    converted(input, options).map_err(|e| input.locate(e))
}

fn converted(input: Input<'_>, options: &ConvertOptions) -> Result<Converted, Error> {
    let source = Opened::open(input, options)?;
    let (text, replay) = match options.to {
        ConvertTarget::Canonical => to_canonical(&source)?,
        ConvertTarget::OtlpJson => to_otlp(&source)?,
        ConvertTarget::AcpV1 | ConvertTarget::AcpV2 => project(&source, options.project())?,
    };
    // An ACP trace has a Client view but no session tree to project; its OTLP export is
    // of that view.
    if replay.format == Format::Acp && options.to != ConvertTarget::OtlpJson {
        return Err(Error::new(ErrorCode::Usage, ACP_INPUT));
    }
    let findings = source.locate(&replay.findings);
    // As `replay` counts them: a native source's own findings (a rollout line that is not
    // JSON) are errors of the input too.
    let errors = findings.iter().any(|(_, f)| f.severity == Severity::Error);
    Ok(Converted {
        text,
        findings,
        errors,
    })
}

/// Why an `acp` trace is not converted.
pub const ACP_INPUT: &str = "is an `acp` trace: convert projects the session tree of a provider \
    (codex-app-server, claude-sdk) or canonical trace to ACP, and an ACP trace has none; \
    check it with `lineage check`, or view it with `lineage replay`";

/// `convert --otlp-endpoint`: POSTs an OTLP export [`convert`] made (to
/// [`ConvertTarget::OtlpJson`]) to the collector at `endpoint` (a URL without a path gets
/// `/v1/traces`), encoded as `protocol` says; the error names the endpoint and its last
/// answer.
pub fn send_otlp(
    export: &Converted,
    endpoint: &str,
    protocol: otlp_http::Protocol,
) -> Result<(), Error> {
    // The text is what the command writes: the export and a newline.
    let body = export.text.strip_suffix('\n').unwrap_or(&export.text);
    otlp_http::post(endpoint, body, protocol).map_err(|e| Error::new(ErrorCode::Output, e))
}

/// The input: the lines of a trace (its format when it has no header, the Codex root
/// session to select), or the records of one tree of a native source.
enum Opened<'a> {
    Lines(Input<'a>, Option<Format>, Option<String>),
    Native(Source, usize),
}

impl<'a> Opened<'a> {
    fn open(input: Input<'a>, options: &ConvertOptions) -> Result<Self, Error> {
        match input.native_path(options.format) {
            Some(path) => {
                let (source, index) = native_source::open(path, options.session.as_deref())
                    .map_err(|e| Error::native(path, e))?;
                Ok(Opened::Native(source, index))
            }
            None => Ok(Opened::Lines(
                input,
                options.format,
                options.session.clone(),
            )),
        }
    }

    fn engine_options(&self) -> Options {
        match self {
            Opened::Native(source, index) => source
                .streams
                .get(*index)
                .map(|s| s.engine_options())
                .unwrap_or_default(),
            Opened::Lines(_, format, session) => Options {
                format: *format,
                codex_session: session.clone(),
                ..Options::default()
            },
        }
    }

    /// Hands every line (or record) to `line` (or `record`), appending what it returns.
    fn feed(
        &self,
        text: &mut String,
        mut line: impl FnMut(&[u8]) -> Result<String, EngineError>,
        mut record: impl FnMut(ProviderRecord) -> Result<String, EngineError>,
    ) -> Result<(), Error> {
        match self {
            Opened::Native(source, index) => {
                let records = source.streams.get(*index).map(|s| s.records.as_slice());
                for (_, r) in records.unwrap_or_default() {
                    text.push_str(&record(r.clone())?);
                }
                Ok(())
            }
            Opened::Lines(input, ..) => {
                let failed = input.each_line(|bytes| match line(bytes) {
                    Ok(out) => {
                        text.push_str(&out);
                        std::ops::ControlFlow::Continue(())
                    }
                    Err(e) => std::ops::ControlFlow::Break(e),
                })?;
                failed.map_or(Ok(()), |e| Err(e.into()))
            }
        }
    }

    /// The input's findings (a native source's own first), each with its file.
    fn locate(&self, findings: &[Finding]) -> Vec<(String, Finding)> {
        match self {
            Opened::Lines(input, ..) => {
                let name = match input {
                    Input::Path(path) => path.display().to_string(),
                    Input::Text(_) | Input::Bytes(_) => "-".to_owned(),
                };
                findings.iter().map(|f| (name.clone(), f.clone())).collect()
            }
            Opened::Native(source, index) => {
                let Some(stream) = source.streams.get(*index) else {
                    return Vec::new();
                };
                let path = |file: usize| source.files.get(file).cloned().unwrap_or_default();
                let own = stream.findings.iter().chain(&source.findings);
                let mut out: Vec<(String, Finding)> =
                    own.map(|l| (path(l.file), l.finding.clone())).collect();
                for f in findings {
                    let at = stream.place(f.line);
                    out.push((
                        path(at.file),
                        Finding {
                            line: at.line,
                            ..f.clone()
                        },
                    ));
                }
                out
            }
        }
    }
}

/// The canonical trace of the input (the events its records normalized to, with their
/// time).
fn to_canonical(input: &Opened<'_>) -> Result<(String, Replay), Error> {
    let engine = RefCell::new(Engine::new(Options {
        record_events: true,
        ..input.engine_options()
    }));
    let mut text = String::from("{\"lineage\":\"trace\",\"format\":\"canonical\",\"version\":1}\n");
    input.feed(
        &mut text,
        |line| engine.borrow_mut().push_bytes(line).map(events),
        |record| engine.borrow_mut().push_record(record).map(events),
    )?;
    Ok((text, engine.into_inner().finish()?))
}

/// One output's canonical events as trace lines.
fn events(out: Output) -> String {
    let mut text = String::new();
    for (event, at) in out.events {
        let event = serde_json::to_string(&event).unwrap_or_default();
        match at {
            Some(at) => text.push_str(&format!("{{\"event\":{event},\"at\":{at}}}\n")),
            None => text.push_str(&format!("{{\"event\":{event}}}\n")),
        }
    }
    text
}

/// The projected trace.
fn project(input: &Opened<'_>, options: ProjectOptions) -> Result<(String, Replay), Error> {
    let converter = RefCell::new(Converter::new(input.engine_options(), options));
    let mut text = converter.borrow().header();
    input.feed(
        &mut text,
        |line| converter.borrow_mut().push_bytes(line),
        |record| converter.borrow_mut().push_record(record),
    )?;
    let (tail, replay) = converter.into_inner().finish()?;
    text.push_str(&tail);
    Ok((text, replay))
}

/// The OTLP/JSON export of the input (an ACP trace's as its Client view) and a newline.
fn to_otlp(input: &Opened<'_>) -> Result<(String, Replay), Error> {
    let state = RefCell::new((Engine::new(input.engine_options()), Recorder::default()));
    let observe = |out: Output| {
        let (engine, recorder) = &mut *state.borrow_mut();
        recorder.observe(engine, &out);
        String::new()
    };
    let mut unused = String::new();
    input.feed(
        &mut unused,
        |line| {
            let out = state.borrow_mut().0.push_bytes(line)?;
            Ok(observe(out))
        },
        |record| {
            let out = state.borrow_mut().0.push_record(record)?;
            Ok(observe(out))
        },
    )?;
    let (mut engine, mut recorder) = state.into_inner();
    let end = engine.end()?;
    recorder.observe_end(&end);
    let replay = engine.finish()?;
    let text = otlp::export_json(&replay, &recorder) + "\n";
    Ok((text, replay))
}
