//! `lineage replay` of a native source (a Codex sessions folder or rollout, a Claude Code
//! project folder or transcript): one session tree of it through the engine, every
//! finding at its own `file:line`.

use lineage_core::Severity;
use lineage_core::native::{self, Located, NativeReplay, Source};
use lineage_core::render;
use lineage_core::timeline::Timeline;

use crate::{Exit, OutputFormat, ReplayArgs, native_source, terminal};

pub(super) fn run(args: &ReplayArgs) -> Exit {
    let path = args.trace.display().to_string();
    let opened = native_source::open(&args.trace, args.session.as_deref());
    let replayed = opened.and_then(|(source, index)| {
        let mut timeline = (args.format == OutputFormat::Html).then(Timeline::default);
        let options = native::Options {
            until: args.at.and_then(|n| usize::try_from(n).ok()),
            acp_spec: args.spec,
            ..native::Options::default()
        };
        let replayed = native::replay_observed(&source, index, options, |engine, out, _| {
            if let Some(t) = timeline.as_mut() {
                t.observe(engine, out);
            }
        })
        .map_err(|e| e.to_string())?;
        Ok((source, index, replayed, timeline))
    });
    match replayed {
        Ok((source, index, mut replayed, timeline)) => {
            // Findings about files of the source that are in no tree belong here too.
            replayed.findings.extend(source.findings.iter().cloned());
            show(args, &source, index, &mut replayed, timeline.as_ref())
        }
        Err(message) => {
            terminal::warn(&format!("error: {path}: {message}"));
            Exit::Usage
        }
    }
}

fn show(
    args: &ReplayArgs,
    source: &Source,
    index: usize,
    replayed: &mut NativeReplay,
    timeline: Option<&Timeline>,
) -> Exit {
    let file = |l: &Located| source.files.get(l.file).cloned().unwrap_or_default();
    let located = replayed.findings.clone();
    let replay = &mut replayed.replay;
    replay.findings = located.iter().map(|l| l.finding.clone()).collect();
    let text = match args.format {
        OutputFormat::Json => lineage_cli::api::native_json(source, index, replayed),
        OutputFormat::Html => {
            let summary = timeline.map(|t| t.summary(replay)).unwrap_or_default();
            render::html(replay, &summary, &args.trace.display().to_string())
        }
        OutputFormat::Tree | OutputFormat::Mermaid => {
            for l in &located {
                terminal::warn_finding(&file(l), &l.finding);
            }
            replay.findings.clear();
            if args.format == OutputFormat::Tree {
                terminal::for_people(&render::tree(replay)).into_owned()
            } else {
                render::mermaid(replay)
            }
        }
        // Streamed as the source is read (`super::changes`); never a finished view.
        OutputFormat::Changes => String::new(),
    };
    if let Err(e) = terminal::print(&text) {
        terminal::warn(&format!("error: standard output: {e}"));
        return Exit::Usage;
    }
    if located
        .iter()
        .any(|l| l.finding.severity == Severity::Error)
    {
        Exit::Findings
    } else {
        Exit::Clean
    }
}
