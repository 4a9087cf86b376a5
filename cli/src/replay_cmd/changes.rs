//! `lineage replay --format changes`: the change stream, written and flushed as each
//! record is read, so a pipe or a FIFO is followed live (`… | lineage replay - --format
//! changes`). The protocol is `lineage_core::render::changes` (docs/changes.md).

use std::io::{self, Write};
use std::ops::ControlFlow;

use lineage_core::Severity;
use lineage_core::engine::{Engine, Options, Output};
use lineage_core::finding::Finding;
use lineage_core::native;
use lineage_core::render::changes::ChangeWriter;
use lineage_core::trace::Format;

use crate::{Exit, ReplayArgs, input, native_source, terminal};

/// Standard output, flushed after every record that wrote something. A reader that went
/// away (`| head`) ends the run quietly.
struct Live<'a> {
    out: io::BufWriter<io::StdoutLock<'a>>,
    writer: ChangeWriter,
    closed: bool,
}

impl Live<'_> {
    fn new() -> Self {
        Self {
            out: io::BufWriter::with_capacity(1 << 16, io::stdout().lock()),
            writer: ChangeWriter::default(),
            closed: false,
        }
    }

    /// Writes one output read at `line`; `Err` is a write failure other than a closed
    /// pipe.
    fn write(&mut self, format: Option<Format>, line: usize, output: &Output) -> io::Result<()> {
        if self.closed {
            return Ok(());
        }
        let written = self
            .writer
            .write(format, line, output, &mut self.out)
            .and_then(|n| if n == 0 { Ok(()) } else { self.out.flush() });
        self.settle(written)
    }

    /// Writes a native source's output: its changes, then each finding in its file.
    fn write_located(
        &mut self,
        format: Format,
        line: usize,
        output: &Output,
        located: &[(String, Finding)],
    ) -> io::Result<()> {
        let changes = Output {
            changes: output.changes.clone(),
            ..Output::default()
        };
        self.write(Some(format), line, &changes)?;
        for (file, finding) in located {
            if self.closed {
                break;
            }
            let written = self
                .writer
                .write_finding_in(line, finding, file, &mut self.out);
            self.settle(written)?;
        }
        if located.is_empty() || self.closed {
            return Ok(());
        }
        let flushed = self.out.flush();
        self.settle(flushed)
    }

    fn settle(&mut self, written: io::Result<()>) -> io::Result<()> {
        match written {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            other => other,
        }
    }

    fn finish(&mut self, replay: &lineage_core::engine::Replay) -> io::Result<()> {
        if self.closed {
            return Ok(());
        }
        let written = self
            .writer
            .finish(replay, &mut self.out)
            .and_then(|()| self.out.flush());
        self.settle(written)
    }
}

pub(super) fn run(args: &super::ReplayArgs) -> Exit {
    let path = args.trace.display().to_string();
    let result = if args.input_format.is_none() && native_source::is_native(&args.trace) {
        run_native(args)
    } else {
        run_trace(args)
    };
    match result {
        Ok(exit) => exit,
        Err(message) => {
            terminal::warn(&format!("error: {path}: {message}"));
            Exit::Usage
        }
    }
}

fn exit_for(errors: bool) -> Exit {
    if errors { Exit::Findings } else { Exit::Clean }
}

fn run_trace(args: &ReplayArgs) -> Result<Exit, String> {
    let until = args.at.and_then(|n| usize::try_from(n).ok());
    let mut engine = Engine::new(Options {
        format: args.input_format,
        acp_spec: args.spec,
        ..Options::default()
    });
    let mut live = Live::new();
    let mut errors = false;
    let failed = input::each_line(&args.trace, |line| {
        if until.is_some_and(|stop| engine.line() >= stop) {
            return ControlFlow::Break(None);
        }
        match engine.push_bytes(line) {
            Ok(out) => {
                errors |= has_error(&out);
                match live.write(engine.format(), engine.line(), &out) {
                    Ok(()) => ControlFlow::Continue(()),
                    Err(e) => ControlFlow::Break(Some(e.to_string())),
                }
            }
            Err(e) => ControlFlow::Break(Some(e.to_string())),
        }
    })?;
    if let Some(Some(message)) = failed {
        return Err(message);
    }
    if until.is_none() {
        let end = engine.end().map_err(|e| e.to_string())?;
        errors |= has_error(&end);
        live.write(engine.format(), engine.line(), &end)
            .map_err(|e| e.to_string())?;
    }
    let replay = engine.stop().map_err(|e| e.to_string())?;
    live.finish(&replay).map_err(|e| e.to_string())?;
    Ok(exit_for(errors))
}

fn has_error(out: &Output) -> bool {
    out.findings.iter().any(|f| f.severity == Severity::Error)
}

/// A native source: its records are read whole first (they are files), then streamed.
/// A finding's line carries `"file"`, and its `line` is that file's line.
fn run_native(args: &ReplayArgs) -> Result<Exit, String> {
    let (source, index) = native_source::open(&args.trace, args.session.as_deref())?;
    let options = native::Options {
        until: args.at.and_then(|n| usize::try_from(n).ok()),
        acp_spec: args.spec,
        ..native::Options::default()
    };
    let stream = source.streams.get(index).ok_or("no session tree")?;
    let file = |i: usize| source.files.get(i).cloned().unwrap_or_default();
    let locate = |findings: &[Finding]| -> Vec<(String, Finding)> {
        let place = |f: &Finding| {
            let at = stream.place(f.line);
            let mut f = f.clone();
            f.line = at.line;
            (file(at.file), f)
        };
        findings.iter().map(place).collect()
    };
    let mut live = Live::new();
    let mut failed: Option<io::Error> = None;
    let mut errors = false;
    let replayed = native::replay_observed(&source, index, options, |engine, out, _| {
        errors |= has_error(out);
        let located = locate(&out.findings);
        if failed.is_none()
            && let Err(e) = live.write_located(stream.format, engine.line(), out, &located)
        {
            failed = Some(e);
        }
    })
    .map_err(|e| e.to_string())?;
    if let Some(e) = failed {
        return Err(e.to_string());
    }
    let last = replayed.replay.last_line;
    let mut located = locate(&replayed.end.findings);
    // What the reader found about the files themselves (not records the engine read).
    for l in stream.findings.iter().chain(&source.findings) {
        located.push((file(l.file), l.finding.clone()));
    }
    errors |= located.iter().any(|(_, f)| f.severity == Severity::Error);
    live.write_located(stream.format, last, &replayed.end, &located)
        .map_err(|e| e.to_string())?;
    live.finish(&replayed.replay).map_err(|e| e.to_string())?;
    Ok(exit_for(errors))
}
