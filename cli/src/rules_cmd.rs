//! `lineage rules [<RULE>]`: the ACP conformance rule catalogue.

use std::fmt::Write as _;

use lineage_core::acp::rules::{MODEL, Rule, RuleId, catalogue};

use crate::{Exit, RulesArgs};

pub(crate) fn run(args: &RulesArgs) -> Exit {
    let text = match &args.rule {
        None => list(),
        Some(id) => match id.parse::<RuleId>() {
            Ok(rule) => explain(&rule.rule()),
            Err(message) => {
                eprintln!("error: {message}");
                return Exit::Usage;
            }
        },
    };
    print!("{text}");
    Exit::Clean
}

fn list() -> String {
    let rules = catalogue();
    let width = rules.iter().map(|r| r.id.len()).max().unwrap_or(0);
    let mut out = String::from(
        "ACP conformance rules (Subagent Sessions RFD). `lineage rules <id>` explains one.\n\n",
    );
    for r in &rules {
        let _ = writeln!(
            out,
            "{:<width$}  {:<7}  {:<6}  {}",
            r.id,
            r.level.to_string(),
            r.party.as_str(),
            r.summary
        );
    }
    out
}

fn explain(r: &Rule) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} ({}, {} side)\n", r.id, r.level, r.party.as_str());
    let _ = writeln!(out, "{}\n", r.summary);
    let _ = writeln!(out, "Definition:\n{}\n", indent(r.definition));
    let _ = writeln!(
        out,
        "RFD (Subagent Sessions):\n{}\n",
        indent(&format!("> {}", r.quote))
    );
    let _ = writeln!(out, "Example:\n{}\n", indent(r.example));
    let _ = writeln!(out, "The checker's model of a trace:\n{}", indent(MODEL));
    out
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("    {l}\n"))
        .collect::<String>()
        .trim_end()
        .to_owned()
}
