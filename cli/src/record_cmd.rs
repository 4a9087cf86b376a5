//! `lineage record`: a transparent stdio proxy. It runs a program that speaks JSON lines
//! on stdio (an ACP agent, `codex app-server`, `claude -p --input-format stream-json`),
//! forwards the bytes unchanged both ways, and writes each line as a trace record with
//! its `at` (Unix ms), flushed at once, so a crash or a kill loses nothing already
//! forwarded. Signals sent to lineage go to the program; its exit code is lineage's.
//! With `--check`, findings are printed on standard error as the records arrive: the
//! first [`SHOWN_PER_RULE`] of each rule, then one line per rule counting the rest.
//!
//! Bounded: however long the program runs, memory stays the same. The lines read wait
//! in a queue of at most [`proxy::QUEUED_LINES`] to be recorded (a program that writes
//! faster than its trace is written waits for it), and nothing is kept per line or per
//! finding.

pub(crate) mod proxy;

use std::fs::File;
use std::io::Write;

use lineage_core::engine::{Engine, Options};
use lineage_core::finding::Finding;

use lineage_core::render::otlp::{self, Recorder};

use crate::{Exit, RecordArgs, otlp_http, terminal};
use proxy::{Dir, Read_, TraceText};

pub(crate) fn run(args: &RecordArgs) -> Exit {
    let Some((program, rest)) = args.command.split_first() else {
        terminal::warn("error: no program to run after `--`");
        return Exit::Usage;
    };
    let Some(mut trace) = Trace::open(args) else {
        return Exit::Usage;
    };
    let (mut child, rx) = match proxy::spawn(program, rest, proxy::FORWARD) {
        Ok(c) => c,
        Err(e) => {
            trace.discard();
            terminal::warn(&format!(
                "error: cannot run `{program}`: {e}; no trace was written"
            ));
            return proxy::cannot_run(&e);
        }
    };
    trace.start();
    proxy::forward_signals(&child);
    let mut writer = Writer::new(args);
    let mut write = |read: Read_| {
        if let Read_::Line(dir, line, at) = read {
            trace.write(&mut writer, dir, &line, at);
        }
    };
    // Until the program closes its output; then whatever our input still had queued.
    // (Our input may stay open after the program ended: its pump is not waited for.)
    for read in rx.iter() {
        if read == Read_::ProgramClosed {
            break;
        }
        write(read);
    }
    let status = proxy::wait_draining(&mut child, &rx, |read| {
        write(read);
        std::ops::ControlFlow::Continue(())
    })
    .unwrap_or_else(|| Err(std::io::Error::other("the program was lost")));
    while let Ok(read) = rx.try_recv() {
        write(read);
    }
    writer.finish();
    let exit = proxy::exit_of(status);
    match trace.failed {
        None => exit,
        Some((why, lost)) => {
            terminal::warn(&format!(
                "error: {}: cannot write the trace ({why}): {lost} line(s) of the program's \
                 traffic were forwarded but not recorded (the program exited with {})",
                args.output.display(),
                code_of(&exit)
            ));
            Exit::Usage
        }
    }
}

fn code_of(exit: &Exit) -> u8 {
    match exit {
        Exit::Clean => 0,
        Exit::Findings => 1,
        Exit::Usage => 2,
        Exit::Code(code) => *code,
    }
}

/// The trace file: opened before the program starts (so an unwritable path runs nothing)
/// without truncating what it holds, emptied once the program runs, removed again when
/// lineage created it and the program could not start. After the first write error
/// nothing more is written; the lines forwarded meanwhile are counted, and said once.
struct Trace {
    file: File,
    path: std::path::PathBuf,
    created: bool,
    /// The first write error, and the lines not recorded since (said once, at the end).
    failed: Option<(String, usize)>,
}

impl Trace {
    fn open(args: &RecordArgs) -> Option<Self> {
        let created = !args.output.exists();
        let opened = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(&args.output);
        match opened {
            Ok(file) => Some(Trace {
                file,
                path: args.output.clone(),
                created,
                failed: None,
            }),
            Err(e) => {
                terminal::warn(&format!("error: {}: {e}", args.output.display()));
                None
            }
        }
    }

    /// The program runs: a regular file starts empty.
    fn start(&mut self) {
        if !self.file.metadata().is_ok_and(|m| m.is_file()) {
            return;
        }
        if let Err(e) = self.file.set_len(0) {
            self.failed = Some((e.to_string(), 0));
        }
    }

    /// The program never ran: a file lineage created is removed.
    fn discard(self) {
        if self.created {
            drop(self.file);
            let _ = std::fs::remove_file(&self.path);
        }
    }

    fn write(&mut self, writer: &mut Writer, dir: Dir, line: &[u8], at: u64) {
        if let Some((_, lost)) = self.failed.as_mut() {
            *lost += 1;
            return;
        }
        if let Err(e) = writer.record(&mut self.file, dir, line, at) {
            self.failed = Some((e.to_string(), 1));
        }
    }
}

/// Writes the trace: the header at the first record (once the format is known), then
/// one flushed record per line; with `--check`, the engine reads each record too.
struct Writer {
    text: TraceText,
    line: usize,
    /// The engine reading the records, with `--check` or `--otlp-endpoint`.
    check: Option<Engine>,
    /// `--check`: print findings as they come.
    print: bool,
    /// `--otlp-endpoint`: the live export.
    live: Option<Live>,
    path: String,
    /// Per rule (in order of first finding): findings printed, and findings not printed.
    counted: Vec<(&'static str, usize, usize)>,
}

/// Findings of one rule `record --check` prints as they come; the rest are counted and
/// said in one line at the end (`lineage check` of the trace lists every one).
pub(crate) const SHOWN_PER_RULE: usize = 5;

impl Writer {
    fn new(args: &RecordArgs) -> Self {
        Self {
            text: TraceText::new(args.format),
            line: 0,
            // With `--check` alone: what `lineage check` reads with, and no finding kept
            // (each is printed or counted from the output that reports it). The live
            // export reads as `convert` does and keeps its findings for the last spans.
            check: match (args.check, args.otlp_endpoint.is_some()) {
                (_, true) => Some(Engine::new(Options::default())),
                (true, false) => Some(Engine::new(Options {
                    transcripts: false,
                    view_changes: false,
                    keep_findings: false,
                    ..Options::default()
                })),
                (false, false) => None,
            },
            print: args.check,
            live: args
                .otlp_endpoint
                .clone()
                .map(|e| Live::new(e, args.otlp_protocol)),
            path: args.output.display().to_string(),
            counted: Vec::new(),
        }
    }

    fn record(&mut self, file: &mut File, dir: Dir, bytes: &[u8], at: u64) -> std::io::Result<()> {
        let Some(out) = self.text.lines(dir, bytes, at) else {
            return Ok(());
        };
        file.write_all(out.as_bytes())?;
        file.flush()?;
        for line in out.lines() {
            self.line += 1;
            self.check_line(line);
        }
        Ok(())
    }

    /// The end of the recording: with `--check`, the end-of-trace findings (those not
    /// printed as their records arrived).
    fn finish(mut self) {
        let Some(mut engine) = self.check.take() else {
            return;
        };
        let Ok(end) = engine.end() else {
            return;
        };
        let Ok(replay) = engine.finish() else {
            return;
        };
        if let Some(live) = &mut self.live {
            live.finish(&replay, &end);
        }
        if !self.print {
            return;
        }
        self.report(&end.findings);
        for (rule, _, more) in &self.counted {
            if *more > 0 {
                terminal::warn(&format!(
                    "{}: {rule}: {more} more finding(s) not printed (the first \
                     {SHOWN_PER_RULE} of each rule are); `lineage check {}` lists every one",
                    self.path, self.path
                ));
            }
        }
    }

    /// Prints each finding, unless its rule already had [`SHOWN_PER_RULE`] printed:
    /// that one is only counted.
    fn report(&mut self, findings: &[Finding]) {
        for f in findings {
            let rule = f.rule.as_str();
            let at = match self.counted.iter().position(|(r, _, _)| *r == rule) {
                Some(at) => at,
                None => {
                    self.counted.push((rule, 0, 0));
                    self.counted.len() - 1
                }
            };
            let Some((_, shown, more)) = self.counted.get_mut(at) else {
                continue;
            };
            if *shown < SHOWN_PER_RULE {
                *shown += 1;
                terminal::warn_finding(&self.path, f);
            } else {
                *more += 1;
            }
        }
    }

    fn check_line(&mut self, line: &str) {
        let Some(engine) = self.check.as_mut() else {
            return;
        };
        let Ok(out) = engine.push_line(line) else {
            return;
        };
        if let Some(live) = &mut self.live {
            live.observe(engine, &out);
        }
        if self.print {
            self.report(&out.findings);
        }
    }
}

/// `--otlp-endpoint`: each turn's spans sent as it settles, the rest at the end. The
/// first failed post is reported and ends the live export (the trace is still written;
/// `lineage convert` sends it later).
struct Live {
    endpoint: String,
    protocol: otlp_http::Protocol,
    recorder: Recorder,
    sent: std::collections::BTreeSet<String>,
    failed: bool,
}

impl Live {
    fn new(endpoint: String, protocol: otlp_http::Protocol) -> Self {
        Self {
            endpoint,
            protocol,
            recorder: Recorder::default(),
            sent: std::collections::BTreeSet::new(),
            failed: false,
        }
    }

    fn observe(&mut self, engine: &Engine, out: &lineage_core::engine::Output) {
        self.recorder.observe(engine, out);
        if let Some(request) = otlp::settled(engine, &self.recorder, out) {
            self.send(request);
        }
    }

    /// The spans not sent yet (open turns, an ACP view's sessions), with the findings.
    fn finish(
        &mut self,
        replay: &lineage_core::engine::Replay,
        end: &lineage_core::engine::Output,
    ) {
        self.recorder.observe_end(end);
        let mut request = otlp::export(replay, &self.recorder);
        for resource in &mut request.resource_spans {
            for scope in &mut resource.scope_spans {
                scope.spans.retain(|s| !self.sent.contains(&s.span_id));
            }
        }
        self.send(request);
    }

    fn send(&mut self, request: otlp::model::ExportRequest) {
        let spans: Vec<String> = request
            .resource_spans
            .iter()
            .flat_map(|r| &r.scope_spans)
            .flat_map(|s| &s.spans)
            .map(|s| s.span_id.clone())
            .collect();
        if self.failed || spans.is_empty() {
            return;
        }
        let body = serde_json::to_string(&request).unwrap_or_default();
        match otlp_http::post(&self.endpoint, &body, self.protocol) {
            Ok(()) => self.sent.extend(spans),
            Err(e) => {
                terminal::warn(&format!("error: {e}; the live export stops here"));
                self.failed = true;
            }
        }
    }
}
