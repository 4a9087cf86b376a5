//! `lineage rules [<CODE>]`: the one finding catalogue (ACP conformance rules, reducer
//! and adapter findings, trace-reader findings).

use std::fmt::Write as _;

use lineage_core::acp::rules::MODEL;
use lineage_core::finding::{Code, Layer, Revision, Rule, catalogue};

use crate::{Exit, RulesArgs, terminal};

pub(crate) fn run(args: &RulesArgs) -> Exit {
    let text = match &args.rule {
        None => list(),
        Some(id) => match id.parse::<Code>() {
            Ok(code) => explain(&code.rule()),
            Err(message) => {
                terminal::warn(&format!("error: {message}"));
                return Exit::Usage;
            }
        },
    };
    match terminal::print(&text) {
        Ok(()) => Exit::Clean,
        Err(e) => {
            terminal::warn(&format!("error: standard output: {e}"));
            Exit::Usage
        }
    }
}

fn list() -> String {
    let rules = catalogue();
    let width = rules.iter().map(|r| r.id.len()).max().unwrap_or(0);
    let mut out =
        String::from("Every finding code lineage reports. `lineage rules <code>` explains one.\n");
    let mut layer = None;
    for r in &rules {
        let heading = heading(r.layer);
        if layer != Some(heading) {
            let _ = writeln!(out, "\n{heading}:");
            layer = Some(heading);
        }
        let revisions = if r.code.is_acp_rule() && r.code.revisions().len() < Revision::ALL.len() {
            format!(" [{}]", revisions(r))
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "  {:<width$}  {:<7}  {:<10}  {}{revisions}",
            r.id,
            r.level.to_string(),
            r.layer.as_str(),
            r.summary
        );
    }
    out
}

fn heading(layer: Layer) -> &'static str {
    match layer {
        Layer::Acp(_) => "ACP conformance rules (Subagent Sessions RFD; `lineage check`)",
        Layer::Trace => "Trace reader (every format)",
        Layer::Reducer => "Canonical reducer (Provider-Native Subagents)",
        Layer::Codex | Layer::Claude | Layer::Providers => "Provider adapters",
        Layer::Native => "Native sources (Codex rollouts, Claude Code transcripts)",
    }
}

fn explain(r: &Rule) -> String {
    let mut out = String::new();
    match r.code.party() {
        Some(party) => writeln!(out, "{} ({}, {} side)\n", r.id, r.level, party.as_str()),
        None => writeln!(out, "{} ({}, {})\n", r.id, r.level, r.layer.as_str()),
    }
    .unwrap_or_default();
    let _ = writeln!(out, "{}\n", r.summary);
    if r.code.is_acp_rule() {
        let _ = writeln!(
            out,
            "Applies to RFD revisions: {} (`lineage check --spec`)\n",
            revisions(r)
        );
    }
    let _ = writeln!(out, "Definition:\n{}\n", indent(r.definition));
    if r.quote.is_empty() {
        let _ = writeln!(out, "Source: {}\n", r.source);
    } else {
        let quote = format!("> {}", r.quote);
        let _ = writeln!(out, "{}:\n{}\n", r.source, indent(&quote));
    }
    let _ = writeln!(out, "Example:\n{}\n", indent(r.example));
    if let Some((summary, definition, example)) = r.in_provider_traces() {
        let _ = writeln!(out, "In provider and canonical traces: {summary}\n");
        let _ = writeln!(out, "Definition:\n{}\n", indent(definition));
        let _ = writeln!(out, "Example:\n{}\n", indent(example));
    }
    if r.code.is_acp_rule() {
        let _ = writeln!(out, "The checker's model of a trace:\n{}", indent(MODEL));
    }
    out
}

/// The revisions an ACP rule applies to, e.g. `2026-09-24, 2026-10-05, final`.
fn revisions(r: &Rule) -> String {
    r.code
        .revisions()
        .iter()
        .map(|v| v.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("    {l}\n"))
        .collect::<String>()
        .trim_end()
        .to_owned()
}
