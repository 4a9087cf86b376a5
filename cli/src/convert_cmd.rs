//! `lineage convert`: a trace of any format through the engine, its canonical changes
//! projected to the ACP stream an Agent would send (`project::Converter`), written
//! as an `acp` trace with its header. The input's findings go to standard error, located.

use std::io::Write;
use std::ops::ControlFlow;

use lineage_core::Severity;
use lineage_core::engine::{Engine, EngineError, Options};
use lineage_core::finding::Finding;
use lineage_core::native::Source;
use lineage_core::project::{Converter, Options as ProjectOptions, PromptResponse, Version};
use lineage_core::providers::ProviderRecord;

use crate::{
    ClientCaps, ConvertArgs, ConvertTarget, Exit, PromptAt, input, native_source, terminal,
};

pub(crate) fn run(args: &ConvertArgs) -> Exit {
    let Some(to) = args
        .to
        .filter(|t| *t != ConvertTarget::OtlpJson && args.otlp_endpoint.is_none())
    else {
        return crate::otlp_cmd::run(args);
    };
    let options = ProjectOptions {
        version: match to {
            ConvertTarget::AcpV1 | ConvertTarget::Canonical | ConvertTarget::OtlpJson => {
                Version::V1
            }
            ConvertTarget::AcpV2 => Version::V2,
        },
        client_subagents: args.client_caps == ClientCaps::Subagents,
        prompt_response: match args.prompt_response {
            PromptAt::Settlement => PromptResponse::AtRootSettlement,
            PromptAt::ProviderEnd => PromptResponse::AtProviderEnd,
        },
        reconnect: args.reconnect,
        ..ProjectOptions::default()
    };
    let path = args.trace.display().to_string();
    let converted = if to == ConvertTarget::Canonical {
        to_canonical(args)
    } else {
        convert(args, options)
    };
    match converted {
        Ok((text, errors)) => match write(args, &text) {
            Ok(()) if errors => Exit::Findings,
            Ok(()) => Exit::Clean,
            Err(e) => {
                terminal::warn(&format!("error: {e}"));
                Exit::Usage
            }
        },
        Err(e) => {
            terminal::warn(&format!("error: {path}: {e}"));
            Exit::Usage
        }
    }
}

/// The input: the lines of a trace, or the records of one tree of a native source.
pub(crate) enum Input {
    Lines,
    Native(Source, usize),
}

impl Input {
    pub(crate) fn open(args: &ConvertArgs) -> Result<Self, String> {
        if args.input_format.is_none() && native_source::is_native(&args.trace) {
            let (source, index) = native_source::open(&args.trace, args.session.as_deref())?;
            return Ok(Input::Native(source, index));
        }
        Ok(Input::Lines)
    }

    pub(crate) fn engine_options(&self, args: &ConvertArgs) -> Options {
        match self {
            Input::Native(source, index) => source
                .streams
                .get(*index)
                .map(|s| s.engine_options())
                .unwrap_or_default(),
            Input::Lines => Options {
                format: args.input_format,
                codex_session: args.session.clone(),
                ..Options::default()
            },
        }
    }

    /// Hands every line (or record) to `push`, which returns the output text it caused.
    pub(crate) fn feed(
        &self,
        args: &ConvertArgs,
        text: &mut String,
        mut line: impl FnMut(&[u8]) -> Result<String, EngineError>,
        mut record: impl FnMut(ProviderRecord) -> Result<String, EngineError>,
    ) -> Result<(), String> {
        match self {
            Input::Native(source, index) => {
                let records = source.streams.get(*index).map(|s| s.records.as_slice());
                for (_, r) in records.unwrap_or_default() {
                    text.push_str(&record(r.clone()).map_err(|e| e.to_string())?);
                }
                Ok(())
            }
            Input::Lines => {
                let failed = input::each_line(&args.trace, |bytes| match line(bytes) {
                    Ok(out) => {
                        text.push_str(&out);
                        ControlFlow::Continue(())
                    }
                    Err(e) => ControlFlow::Break(e),
                })?;
                failed.map_or(Ok(()), |e| Err(e.to_string()))
            }
        }
    }

    /// The input's findings, located, on standard error; whether one is an error.
    pub(crate) fn report(&self, args: &ConvertArgs, findings: &[Finding]) -> bool {
        match self {
            Input::Lines => {
                let path = args.trace.display().to_string();
                for f in findings {
                    terminal::warn_finding(&path, f);
                }
            }
            Input::Native(source, index) => {
                let Some(stream) = source.streams.get(*index) else {
                    return false;
                };
                let path = |file: usize| source.files.get(file).cloned().unwrap_or_default();
                for l in stream.findings.iter().chain(&source.findings) {
                    terminal::warn_finding(&path(l.file), &l.finding);
                }
                for f in findings {
                    let at = stream.place(f.line);
                    let located = Finding {
                        line: at.line,
                        ..f.clone()
                    };
                    terminal::warn_finding(&path(at.file), &located);
                }
            }
        }
        findings.iter().any(|f| f.severity == Severity::Error)
    }
}

/// The canonical trace of the input (the events its records normalized to, with their
/// time), and whether the input had an error-level finding.
fn to_canonical(args: &ConvertArgs) -> Result<(String, bool), String> {
    let input = Input::open(args)?;
    let engine = std::cell::RefCell::new(Engine::new(Options {
        record_events: true,
        ..input.engine_options(args)
    }));
    let mut text = String::from("{\"lineage\":\"trace\",\"format\":\"canonical\",\"version\":1}\n");
    let events = |out: lineage_core::engine::Output| -> String {
        let mut text = String::new();
        for (event, at) in out.events {
            let event = serde_json::to_string(&event).unwrap_or_default();
            match at {
                Some(at) => text.push_str(&format!("{{\"event\":{event},\"at\":{at}}}\n")),
                None => text.push_str(&format!("{{\"event\":{event}}}\n")),
            }
        }
        text
    };
    input.feed(
        args,
        &mut text,
        |line| engine.borrow_mut().push_bytes(line).map(events),
        |record| engine.borrow_mut().push_record(record).map(events),
    )?;
    let replay = engine.into_inner().finish().map_err(|e| e.to_string())?;
    not_acp(&replay)?;
    let errors = input.report(args, &replay.findings);
    Ok((text, errors))
}

/// The projected trace, and whether the input had an error-level finding.
fn convert(args: &ConvertArgs, options: ProjectOptions) -> Result<(String, bool), String> {
    let input = Input::open(args)?;
    let converter = std::cell::RefCell::new(Converter::new(input.engine_options(args), options));
    let mut text = converter.borrow().header();
    input.feed(
        args,
        &mut text,
        |line| converter.borrow_mut().push_bytes(line),
        |record| converter.borrow_mut().push_record(record),
    )?;
    let (tail, replay) = converter.into_inner().finish().map_err(|e| e.to_string())?;
    not_acp(&replay)?;
    text.push_str(&tail);
    let errors = input.report(args, &replay.findings);
    Ok((text, errors))
}

/// An `acp` input has no session tree to project (the ACP view is the Client's, not a
/// canonical tree): a usage error, never a trace holding only a header.
fn not_acp(replay: &lineage_core::engine::Replay) -> Result<(), String> {
    if replay.format != lineage_core::trace::Format::Acp {
        return Ok(());
    }
    Err(ACP_INPUT.to_owned())
}

/// Why an `acp` trace is not converted.
const ACP_INPUT: &str = "is an `acp` trace: convert projects the session tree of a provider \
    (codex-app-server, claude-sdk) or canonical trace to ACP, and an ACP trace has none; \
    check it with `lineage check`, or view it with `lineage replay`";

pub(crate) fn write(args: &ConvertArgs, text: &str) -> Result<(), String> {
    match &args.output {
        Some(path) => std::fs::File::create(path)
            .and_then(|mut f| f.write_all(text.as_bytes()))
            .map_err(|e| format!("{}: {e}", path.display())),
        None => terminal::print(text).map_err(|e| format!("standard output: {e}")),
    }
}
