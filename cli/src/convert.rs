//! `lineage convert` as a function: a trace of any format (or one tree of a native source)
//! through the engine, its canonical changes projected to the ACP stream an Agent would
//! send (`project::Converter`), or its canonical events; the text the command writes, with
//! the input's findings, located.
//! Never: prints (the findings are returned, for the caller to show).

use std::cell::RefCell;

use lineage_core::Severity;
use lineage_core::engine::{Engine, EngineError, Options, Output, Replay};
use lineage_core::finding::Finding;
use lineage_core::native::Source;
use lineage_core::project::{Converter, Options as ProjectOptions, PromptResponse, Version};
use lineage_core::providers::ProviderRecord;
use lineage_core::trace::Format;

use crate::api::{Error, ErrorCode, Input};
use crate::native_source;

/// The stream `convert` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConvertTarget {
    /// ACP v1 (`subagent_update` states on the parent).
    AcpV1,
    /// ACP v2 (`state_update` on the child's stream, mirrored on the parent).
    AcpV2,
    /// The canonical events the input normalizes to.
    Canonical,
}

impl std::str::FromStr for ConvertTarget {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        match s {
            "acp-v1" => Ok(ConvertTarget::AcpV1),
            "acp-v2" => Ok(ConvertTarget::AcpV2),
            "canonical" => Ok(ConvertTarget::Canonical),
            _ => Err(Error::new(
                ErrorCode::Usage,
                format!("unknown conversion target `{s}` (acp-v1, acp-v2, canonical)"),
            )),
        }
    }
}

/// v1: whether the Client advertises `subagents`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ClientCaps {
    /// `subagents: {}`.
    #[default]
    Subagents,
    /// Nothing: children are presented through the root session.
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
    /// A native source with several trees: the root to convert (`--session`).
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
                ConvertTarget::AcpV1 | ConvertTarget::Canonical => Version::V1,
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
    /// The input's findings, each with the file it is in (the input's path or name).
    pub findings: Vec<(String, Finding)>,
    /// Whether a finding is an error (the command exits 1 then).
    pub errors: bool,
}

/// `lineage convert`: the text it writes for `input`, and the input's findings.
pub fn convert(input: Input<'_>, options: &ConvertOptions) -> Result<Converted, Error> {
    let source = Opened::open(input, options)?;
    let (text, replay) = if options.to == ConvertTarget::Canonical {
        to_canonical(&source)?
    } else {
        project(&source, options.project())?
    };
    if replay.format == Format::Acp {
        return Err(Error::new(ErrorCode::Usage, ACP_INPUT));
    }
    let findings = source.locate(&replay.findings);
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

/// The input: the lines of a trace, or the records of one tree of a native source.
enum Opened<'a> {
    Lines(Input<'a>, Option<Format>),
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
            None => Ok(Opened::Lines(input, options.format)),
        }
    }

    fn engine_options(&self) -> Options {
        match self {
            Opened::Native(source, index) => source
                .streams
                .get(*index)
                .map(|s| s.engine_options())
                .unwrap_or_default(),
            Opened::Lines(_, format) => Options {
                format: *format,
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
            Opened::Lines(input, _) => {
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
            Opened::Lines(input, _) => {
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
