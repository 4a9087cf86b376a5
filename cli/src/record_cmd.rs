//! `lineage record`: a transparent stdio proxy. It runs a program that speaks JSON lines
//! on stdio (an ACP agent, `codex app-server`, `claude -p --input-format stream-json`),
//! forwards the bytes unchanged both ways, and writes each line as a trace record with
//! its `at` (Unix ms), flushed at once, so a crash or a kill loses nothing already
//! forwarded. Signals sent to lineage go to the program; its exit code is lineage's.
//! With `--check`, findings are printed on standard error as the records arrive.

pub(crate) mod proxy;

use std::fs::File;
use std::io::Write;

use lineage_core::engine::{Engine, Options};

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
    let status = child.wait();
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
    /// Findings already printed: (line, rule, message).
    printed: std::collections::BTreeSet<(usize, String, String)>,
}

impl Writer {
    fn new(args: &RecordArgs) -> Self {
        Self {
            text: TraceText::new(args.format),
            line: 0,
            check: (args.check || args.otlp_endpoint.is_some())
                .then(|| Engine::new(Options::default())),
            print: args.check,
            live: args
                .otlp_endpoint
                .clone()
                .map(|e| Live::new(e, args.otlp_protocol)),
            path: args.output.display().to_string(),
            printed: std::collections::BTreeSet::new(),
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
        for f in replay.findings {
            let key = (f.line, f.rule.to_string(), f.message.clone());
            if !self.printed.contains(&key) {
                self.warn(&f);
            }
        }
    }

    fn warn(&self, f: &lineage_core::finding::Finding) {
        terminal::warn_finding(&self.path, f);
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
        if !self.print {
            return;
        }
        for f in out.findings {
            self.warn(&f);
            self.printed
                .insert((f.line, f.rule.to_string(), f.message.clone()));
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
