//! `lineage convert --to otlp-json` and `convert --otlp-endpoint URL`: a trace of any
//! format (an ACP one included, as its Client view) or a native source through the
//! engine, every push observed by an OTLP recorder, then the export
//! (`render::otlp::export_json`) written and/or POSTed (`otlp_http`). The input's
//! findings go to standard error, located, and are in the export as span events.

use std::cell::RefCell;

use lineage_core::engine::{Engine, Output};
use lineage_core::render::otlp::{self, Recorder};

use crate::convert_cmd::{Input, write};
use crate::{ConvertArgs, ConvertTarget, Exit, otlp_http, terminal};

pub(crate) fn run(args: &ConvertArgs) -> Exit {
    if args.to.is_some_and(|t| t != ConvertTarget::OtlpJson) {
        terminal::warn(
            "error: --otlp-endpoint sends the OTLP export: use it with `--to otlp-json` or without `--to`",
        );
        return Exit::Usage;
    }
    let path = args.trace.display().to_string();
    let (text, errors) = match export(args) {
        Ok(exported) => exported,
        Err(e) => {
            terminal::warn(&format!("error: {path}: {e}"));
            return Exit::Usage;
        }
    };
    if args.to == Some(ConvertTarget::OtlpJson)
        && let Err(e) = write(args, &format!("{text}\n"))
    {
        terminal::warn(&format!("error: {e}"));
        return Exit::Usage;
    }
    if let Some(endpoint) = &args.otlp_endpoint
        && let Err(e) = otlp_http::post(endpoint, &text, args.otlp_protocol)
    {
        terminal::warn(&format!("error: {e}"));
        return Exit::Usage;
    }
    if errors { Exit::Findings } else { Exit::Clean }
}

/// The export's JSON text, and whether the input had an error-level finding.
fn export(args: &ConvertArgs) -> Result<(String, bool), String> {
    let input = Input::open(args)?;
    let state = RefCell::new((Engine::new(input.engine_options(args)), Recorder::default()));
    let observe = |out: Output| {
        let (engine, recorder) = &mut *state.borrow_mut();
        recorder.observe(engine, &out);
        String::new()
    };
    let mut unused = String::new();
    input.feed(
        args,
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
    let end = engine.end().map_err(|e| e.to_string())?;
    recorder.observe_end(&end);
    let replay = engine.finish().map_err(|e| e.to_string())?;
    let errors = input.report(args, &replay.findings);
    Ok((otlp::export_json(&replay, &recorder), errors))
}
