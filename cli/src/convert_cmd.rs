//! `lineage convert`: the command over [`lineage_cli::convert`], which makes the text (an
//! ACP or canonical trace, or the OTLP export); here the arguments are read, the input's
//! findings go to standard error, located, the text is written (`-o` or standard output)
//! and, with `--otlp-endpoint`, the export is POSTed.

use std::io::Write;

use lineage_cli::api::Input;
use lineage_cli::convert::{self, ConvertOptions, ConvertTarget};

use crate::{ConvertArgs, Exit, PromptAt, terminal};

pub(crate) fn run(args: &ConvertArgs) -> Exit {
    if args.otlp_endpoint.is_some() && args.to.is_some_and(|t| t != ConvertTarget::OtlpJson) {
        terminal::warn(
            "error: --otlp-endpoint sends the OTLP export: use it with `--to otlp-json` or without `--to`",
        );
        return Exit::Usage;
    }
    let converted = match convert::convert(Input::Path(&args.trace), &options(args)) {
        Ok(converted) => converted,
        Err(e) => {
            terminal::warn(&format!("error: {e}"));
            return Exit::Usage;
        }
    };
    for (path, finding) in &converted.findings {
        terminal::warn_finding(path, finding);
    }
    // Without `--to`, `--otlp-endpoint` only sends the export.
    if args.to.is_some()
        && let Err(e) = write(args, &converted.text)
    {
        terminal::warn(&format!("error: {e}"));
        return Exit::Usage;
    }
    if let Some(endpoint) = &args.otlp_endpoint
        && let Err(e) = convert::send_otlp(&converted, endpoint, args.otlp_protocol)
    {
        terminal::warn(&format!("error: {e}"));
        return Exit::Usage;
    }
    if converted.errors {
        Exit::Findings
    } else {
        Exit::Clean
    }
}

/// The library's options for these arguments (the OTLP export when only
/// `--otlp-endpoint` is given).
fn options(args: &ConvertArgs) -> ConvertOptions {
    ConvertOptions {
        to: args.to.unwrap_or(ConvertTarget::OtlpJson),
        client_caps: args.client_caps,
        prompt_at_provider_end: args.prompt_response == PromptAt::ProviderEnd,
        reconnect: args.reconnect,
        format: args.input_format,
        session: args.session.clone(),
    }
}

fn write(args: &ConvertArgs, text: &str) -> Result<(), String> {
    match &args.output {
        Some(path) => std::fs::File::create(path)
            .and_then(|mut f| f.write_all(text.as_bytes()))
            .map_err(|e| format!("{}: {e}", path.display())),
        None => terminal::print(text).map_err(|e| format!("standard output: {e}")),
    }
}
