//! `lineage convert`: a trace of any format through the engine, its canonical changes
//! projected to the ACP stream an Agent would send (`acp::project::Converter`), written
//! as an `acp` trace with its header. The input's findings go to standard error, located.

use std::io::Write;
use std::ops::ControlFlow;

use lineage_core::Severity;
use lineage_core::acp::project::{Converter, Options as ProjectOptions, PromptResponse, Version};
use lineage_core::engine::Options;

use crate::{ClientCaps, ConvertArgs, ConvertTarget, Exit, PromptAt, input, terminal};

pub(crate) fn run(args: &ConvertArgs) -> Exit {
    let options = ProjectOptions {
        version: match args.to {
            ConvertTarget::AcpV1 | ConvertTarget::Canonical => Version::V1,
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
    let converted = if args.to == ConvertTarget::Canonical {
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

/// The canonical trace of the input (the events its records normalized to, with their
/// time), and whether the input had an error-level finding.
fn to_canonical(args: &ConvertArgs) -> Result<(String, bool), String> {
    let mut engine = lineage_core::engine::Engine::new(Options {
        format: args.input_format,
        record_events: true,
        ..Options::default()
    });
    let mut text = String::from("{\"lineage\":\"trace\",\"format\":\"canonical\",\"version\":1}\n");
    let failed = input::each_line(&args.trace, |line| match engine.push_bytes(line) {
        Ok(out) => {
            for (event, at) in out.events {
                let event = serde_json::to_string(&event).unwrap_or_default();
                match at {
                    Some(at) => text.push_str(&format!("{{\"event\":{event},\"at\":{at}}}\n")),
                    None => text.push_str(&format!("{{\"event\":{event}}}\n")),
                }
            }
            ControlFlow::Continue(())
        }
        Err(e) => ControlFlow::Break(e),
    })?;
    if let Some(e) = failed {
        return Err(e.to_string());
    }
    let replay = engine.finish().map_err(|e| e.to_string())?;
    report(args, &replay.findings);
    let errors = replay
        .findings
        .iter()
        .any(|f| f.severity == Severity::Error);
    Ok((text, errors))
}

/// The input's findings, located, on standard error.
fn report(args: &ConvertArgs, findings: &[lineage_core::finding::Finding]) {
    let path = args.trace.display().to_string();
    for f in findings {
        terminal::warn_finding(&path, f);
    }
}

/// The projected trace, and whether the input had an error-level finding.
fn convert(args: &ConvertArgs, options: ProjectOptions) -> Result<(String, bool), String> {
    let engine = Options {
        format: args.input_format,
        ..Options::default()
    };
    let mut converter = Converter::new(engine, options);
    let mut text = converter.header();
    let failed = input::each_line(&args.trace, |line| match converter.push_bytes(line) {
        Ok(records) => {
            text.push_str(&records);
            ControlFlow::Continue(())
        }
        Err(e) => ControlFlow::Break(e),
    })?;
    if let Some(e) = failed {
        return Err(e.to_string());
    }
    let (tail, replay) = converter.finish().map_err(|e| e.to_string())?;
    text.push_str(&tail);
    report(args, &replay.findings);
    let errors = replay
        .findings
        .iter()
        .any(|f| f.severity == Severity::Error);
    Ok((text, errors))
}

fn write(args: &ConvertArgs, text: &str) -> Result<(), String> {
    match &args.output {
        Some(path) => std::fs::File::create(path)
            .and_then(|mut f| f.write_all(text.as_bytes()))
            .map_err(|e| format!("{}: {e}", path.display())),
        None => terminal::print(text).map_err(|e| format!("standard output: {e}")),
    }
}
