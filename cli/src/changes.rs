//! `lineage replay --format changes`: the change stream, written and flushed as each
//! record is read, so a pipe or a FIFO is followed live (`… | lineage replay - --format
//! changes`). The protocol is `lineage_core::render::changes` (docs/changes.md).
//! Never: chooses the sink (standard output for the command, memory for a binding).

use std::io::{self, Write};
use std::ops::ControlFlow;

use lineage_core::Severity;
use lineage_core::engine::{Engine, Output};
use lineage_core::finding::Finding;
use lineage_core::native;
use lineage_core::render::changes::ChangeWriter;
use lineage_core::trace::Format;

use crate::api::{Error, ErrorCode, Input, ReplayOptions};
use crate::native_source;

/// The sink, flushed after every record that wrote something. A reader that went away
/// (`| head`) ends the run quietly.
struct Live<W: Write> {
    out: W,
    writer: ChangeWriter,
    closed: bool,
}

impl<W: Write> Live<W> {
    fn new(out: W) -> Self {
        Self {
            out,
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

/// Writes the change stream of `input` to `out`, flushing it after each record that
/// wrote a line; returns whether a finding is an error (the command exits 1 then).
pub fn stream(input: Input<'_>, options: &ReplayOptions, out: impl Write) -> Result<bool, Error> {
    let mut live = Live::new(out);
    match input.native_path(options.format) {
        Some(path) => run_native(path, options, &mut live),
        None => run_trace(input, options, &mut live),
    }
}

fn output_error(e: io::Error) -> Error {
    Error::new(ErrorCode::Output, e.to_string())
}

fn run_trace(
    input: Input<'_>,
    options: &ReplayOptions,
    live: &mut Live<impl Write>,
) -> Result<bool, Error> {
    let until = options.at;
    let mut engine = Engine::new(options.engine());
    let mut errors = false;
    let failed = input.each_line(|line| {
        if until.is_some_and(|stop| engine.line() >= stop) {
            return ControlFlow::Break(None);
        }
        match engine.push_bytes(line) {
            Ok(out) => {
                errors |= has_error(&out);
                match live.write(engine.format(), engine.line(), &out) {
                    Ok(()) => ControlFlow::Continue(()),
                    Err(e) => ControlFlow::Break(Some(output_error(e))),
                }
            }
            Err(e) => ControlFlow::Break(Some(e.into())),
        }
    })?;
    if let Some(Some(e)) = failed {
        return Err(e);
    }
    if until.is_none() {
        let end = engine.end()?;
        errors |= has_error(&end);
        live.write(engine.format(), engine.line(), &end)
            .map_err(output_error)?;
    }
    let replay = engine.stop()?;
    live.finish(&replay).map_err(output_error)?;
    Ok(errors)
}

fn has_error(out: &Output) -> bool {
    out.findings.iter().any(|f| f.severity == Severity::Error)
}

/// A native source: its records are read whole first (they are files), then streamed.
/// A finding's line carries `"file"`, and its `line` is that file's line.
fn run_native(
    path: &std::path::Path,
    options: &ReplayOptions,
    live: &mut Live<impl Write>,
) -> Result<bool, Error> {
    let (source, index) = native_source::open(path, options.session.as_deref())
        .map_err(|e| Error::native(path, e))?;
    let options = options.native();
    let stream = source
        .streams
        .get(index)
        .ok_or_else(|| Error::new(ErrorCode::Usage, "no session tree"))?;
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
    })?;
    if let Some(e) = failed {
        return Err(output_error(e));
    }
    let last = replayed.replay.last_line;
    let mut located = locate(&replayed.end.findings);
    // What the reader found about the files themselves (not records the engine read).
    for l in stream.findings.iter().chain(&source.findings) {
        located.push((file(l.file), l.finding.clone()));
    }
    errors |= located.iter().any(|(_, f)| f.severity == Severity::Error);
    live.write_located(stream.format, last, &replayed.end, &located)
        .map_err(output_error)?;
    live.finish(&replayed.replay).map_err(output_error)?;
    Ok(errors)
}
