//! `lineage replay`: one trace, any format, through the engine; one view printed. A
//! native source (a folder, a rollout, a transcript) goes through `native`.

use std::io::Write;
use std::ops::ControlFlow;

use lineage_core::Severity;
use lineage_core::engine::{Engine, EngineError, Options, Replay};
use lineage_core::render;
use lineage_core::timeline::Timeline;

use lineage_cli::api::{Input, ReplayOptions};

use crate::{Exit, OutputFormat, ReplayArgs, input, native_source, terminal};

mod native;

pub(crate) fn run(args: &ReplayArgs) -> Exit {
    let native = args.input_format.is_none() && native_source::is_native(&args.trace);
    if args.session.is_some() && !native {
        terminal::warn(&format!(
            "warning: {}: --session picks one session tree of a native source (a Codex sessions folder, a Claude Code project folder); this is one trace, so it is ignored",
            args.trace.display()
        ));
    }
    if args.format == OutputFormat::Changes {
        return changes(args);
    }
    if native {
        return native::run(args);
    }
    let path = args.trace.display().to_string();
    match read(args) {
        Ok((replay, timeline)) => {
            ignored_input_format(args, &replay, &path);
            let exit = show(args, &replay, timeline.as_ref());
            // The process ends next: freeing a long trace's tree node by node would cost
            // about 5% of the run for nothing (the system takes the memory back at exit).
            std::mem::forget(replay);
            exit
        }
        Err(message) => {
            terminal::warn(&format!("error: {path}: {message}"));
            Exit::Usage
        }
    }
}

/// The options of `lineage_cli::api` the arguments say.
fn options(args: &ReplayArgs) -> ReplayOptions {
    ReplayOptions {
        format: args.input_format,
        spec: args.spec,
        session: args.session.clone(),
        root_thread: None,
        at: args.at.and_then(|n| usize::try_from(n).ok()),
    }
}

/// `--format changes`: the change stream on standard output, flushed after every record
/// (`lineage_cli::changes`).
fn changes(args: &ReplayArgs) -> Exit {
    let out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    match lineage_cli::changes::stream(Input::Path(&args.trace), &options(args), out) {
        Ok(true) => Exit::Findings,
        Ok(false) => Exit::Clean,
        Err(e) => {
            terminal::warn(&format!("error: {}: {e}", args.trace.display()));
            Exit::Usage
        }
    }
}

/// Says when `--input-format` named another format than the trace's own header: the
/// header wins.
fn ignored_input_format(args: &ReplayArgs, replay: &Replay, path: &str) {
    if let (Some(given), Some(header)) = (args.input_format, &replay.header)
        && given != header.format
    {
        terminal::warn(&format!(
            "warning: {path}: its header says `{}`, which wins over --input-format {given}",
            header.format
        ));
    }
}

/// Streams the input through the engine up to `--at` (a cut: no end-of-trace findings),
/// or to its end; records the timeline too for `--format html`.
fn read(args: &ReplayArgs) -> Result<(Replay, Option<Timeline>), String> {
    let until = args.at.and_then(|n| usize::try_from(n).ok());
    let html = args.format == OutputFormat::Html;
    let mut engine = Engine::new(Options {
        format: args.input_format,
        acp_spec: args.spec,
        // The timeline of the HTML page reads each push's changes; the other views read
        // only the final state.
        view_changes: html,
        ..Options::default()
    });
    let mut timeline = html.then(Timeline::default);
    let failed = input::each_line(&args.trace, |line| {
        if until.is_some_and(|stop| engine.line() >= stop) {
            return ControlFlow::Break(None);
        }
        match engine.push_bytes(line) {
            Ok(out) => {
                if let Some(t) = timeline.as_mut() {
                    t.observe(&engine, &out);
                }
                ControlFlow::Continue(())
            }
            Err(e) => ControlFlow::Break(Some(e)),
        }
    })?;
    let replay = match failed {
        Some(Some(e)) => Err(e),
        _ if until.is_some() => engine.stop(),
        _ => engine.finish(),
    };
    if let (Some(at), Ok(r)) = (until, &replay)
        && at > r.last_line
    {
        terminal::warn(&past_the_end(at, r.last_line));
    }
    replay
        .map(|r| (r, timeline))
        .map_err(|e: EngineError| e.to_string())
}

/// The word said when `--at` names a line after the last one: the whole trace is shown,
/// still as a cut (no end-of-trace findings).
pub(crate) fn past_the_end(at: usize, last: usize) -> String {
    format!(
        "note: --at {at} is past the end of the trace (its last line is {last}): the whole \
         trace is shown, as a cut, without the end-of-trace findings"
    )
}

/// Prints one view of a replay (findings go to stderr with a Mermaid chart) and returns
/// the exit code its findings call for.
fn show(args: &ReplayArgs, replay: &Replay, timeline: Option<&Timeline>) -> Exit {
    let printed = if args.format == OutputFormat::Json {
        // Streamed: the JSON of a long trace never exists whole in memory.
        terminal::print_with(|out| {
            render::write_json(replay, true, &mut *out)?;
            out.write_all(b"\n")
        })
    } else {
        terminal::print(&view(args, replay, timeline))
    };
    if let Err(e) = printed {
        terminal::warn(&format!("error: standard output: {e}"));
        return Exit::Usage;
    }
    if replay
        .findings
        .iter()
        .any(|f| f.severity == Severity::Error)
    {
        Exit::Findings
    } else {
        Exit::Clean
    }
}

/// The tree of a trace that holds no session and no finding.
const EMPTY_TREE: &str = "no sessions: the trace holds no record that creates one";

/// The text of one view of a replay (findings go to stderr with a Mermaid chart).
fn view(args: &ReplayArgs, replay: &Replay, timeline: Option<&Timeline>) -> String {
    match args.format {
        OutputFormat::Html => {
            let summary = timeline.map(|t| t.summary(replay)).unwrap_or_default();
            render::html(replay, &summary, &args.trace.display().to_string())
        }
        OutputFormat::Tree => match render::tree(replay) {
            // A trace with no record (a header alone) shows an empty tree, said in words.
            tree if tree.trim().is_empty() => format!("{EMPTY_TREE}\n"),
            tree => terminal::for_people(&tree).into_owned(),
        },
        // Streamed as the trace is read (`changes::run`); never reaches a finished view.
        OutputFormat::Changes => String::new(),
        OutputFormat::Json => render::json_string(replay, true) + "\n",
        OutputFormat::Mermaid => {
            let path = args.trace.display().to_string();
            for f in &replay.findings {
                terminal::warn_finding(&path, f);
            }
            render::mermaid(replay)
        }
    }
}

/// `--at`'s value: a physical line number, 1 or more (a negative one is read as a value,
/// so it is told what is wrong, not to write `-- -1`).
pub(crate) fn parse_at(s: &str) -> Result<u64, String> {
    match s.parse::<u64>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!(
            "`--at` takes a line number of the trace, 1 or more (1 is its first line), got `{s}`"
        )),
    }
}
