//! `lineage record`: a transparent stdio proxy. It runs a program that speaks JSON lines
//! on stdio (an ACP agent, `codex app-server`, `claude -p --input-format stream-json`),
//! forwards the bytes unchanged both ways, and writes each line as a trace record with
//! its `at` (Unix ms), flushed at once, so a crash or a kill loses nothing already
//! forwarded. Signals sent to lineage go to the program; its exit code is lineage's.
//! With `--check`, findings are printed on standard error as the records arrive: the
//! first [`SHOWN_PER_RULE`] of each rule, then one line per rule counting the rest.
//!
//! Bounded: however long the program runs, memory stays the same. The lines read wait
//! in a queue of at most [`QUEUED_LINES`] to be recorded (a program that writes faster
//! than its trace is written waits for it), and nothing is kept per line or per finding.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{SystemTime, UNIX_EPOCH};

use lineage_core::engine::{Engine, Options};
use lineage_core::finding::Finding;
use lineage_core::trace::Format;
use serde::de::IgnoredAny;
use serde_json::Value;

use crate::{Exit, RecordArgs, terminal};

/// Which side wrote a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dir {
    /// Our standard input, to the program (the client or host).
    ToProgram,
    /// The program's standard output.
    FromProgram,
}

/// The `from` of each direction in `format`.
fn side(format: Format, dir: Dir) -> &'static str {
    let [program, peer] = format.sides().unwrap_or(["agent", "client"]);
    match dir {
        Dir::ToProgram => peer,
        Dir::FromProgram => program,
    }
}

/// The format a first line tells, as the engine's detection reads it (an object with
/// any other `type` is taken for Claude stream-json: a program's first line may be its
/// own kind of event).
fn detect(line: &[u8]) -> Option<Format> {
    let value: Value = serde_json::from_slice(line).ok()?;
    Engine::message_format(&value).or_else(|| value.get("type").map(|_| Format::ClaudeSdk))
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

pub(crate) fn run(args: &RecordArgs) -> Exit {
    let Some((program, rest)) = args.command.split_first() else {
        terminal::warn("error: no program to run after `--`");
        return Exit::Usage;
    };
    let Some(mut trace) = Trace::open(args) else {
        return Exit::Usage;
    };
    let mut child = match Command::new(program)
        .args(rest)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => {
            trace.discard();
            terminal::warn(&format!(
                "error: cannot run `{program}`: {e}; no trace was written"
            ));
            return cannot_run(&e);
        }
    };
    trace.start();
    forward_signals(&child);
    let (tx, rx) = mpsc::sync_channel::<Read_>(QUEUED_LINES);
    start_pumps(&mut child, tx.clone());
    // The program is waited for on a thread of its own, so the queue is read meanwhile:
    // a pump waiting for room in it is never left waiting on a program that waits on it.
    std::thread::spawn(move || {
        let _ = tx.send(Read_::Exited(child.wait()));
    });
    let mut writer = Writer::new(args);
    let mut write = |dir, line: &[u8], at| trace.write(&mut writer, dir, line, at);
    // Until the program closed its output and ended; then whatever our input still had
    // queued. (Our input may stay open after the program ended: its pump is not waited
    // for.)
    let (mut closed, mut status) = (false, None);
    while !closed || status.is_none() {
        match rx.recv() {
            Ok(Read_::Line(dir, line, at)) => write(dir, &line, at),
            Ok(Read_::ProgramClosed) => closed = true,
            Ok(Read_::Exited(exited)) => status = Some(exited),
            Err(_) => break,
        }
    }
    while let Ok(read) = rx.try_recv() {
        if let Read_::Line(dir, line, at) = read {
            write(dir, &line, at);
        }
    }
    writer.finish();
    let status = status.unwrap_or_else(|| Err(std::io::Error::other("the program was lost")));
    let exit = exit_of(status);
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

/// The exit code of a program that could not be started, as a shell's: 127 when it does
/// not exist, 126 when it cannot be executed, 2 otherwise.
fn cannot_run(e: &std::io::Error) -> Exit {
    match e.kind() {
        std::io::ErrorKind::NotFound => Exit::Code(127),
        std::io::ErrorKind::PermissionDenied => Exit::Code(126),
        _ => Exit::Usage,
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

/// Lines read and not yet recorded, at most: a full queue holds the pumps back (so the
/// program waits for its trace), and memory does not grow with the traffic.
const QUEUED_LINES: usize = 1024;

/// What a pump (or the program's waiter) tells the recorder.
#[derive(Debug)]
enum Read_ {
    /// A line (with its newline, if it had one) and when it was read.
    Line(Dir, Vec<u8>, u64),
    /// The program closed its standard output.
    ProgramClosed,
    /// The program ended.
    Exited(std::io::Result<ExitStatus>),
}

/// The program's exit code as lineage's (128 + the signal's number when it was killed).
fn exit_of(status: std::io::Result<ExitStatus>) -> Exit {
    let Ok(status) = status else {
        return Exit::Usage;
    };
    if let Some(code) = status.code() {
        return Exit::Code(u8::try_from(code).unwrap_or(1));
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return Exit::Code(u8::try_from(128 + signal).unwrap_or(1));
        }
    }
    Exit::Code(1)
}

/// Threads copying our stdin to the program and the program's stdout to ours, byte for
/// byte, and sending every complete line (and a last unterminated one) to be recorded.
fn start_pumps(child: &mut Child, tx: mpsc::SyncSender<Read_>) {
    if let Some(stdin) = child.stdin.take() {
        let tx = tx.clone();
        std::thread::spawn(move || pump_to_program(stdin, &tx));
    }
    match child.stdout.take() {
        Some(stdout) => {
            std::thread::spawn(move || {
                let mut out = std::io::stdout().lock();
                pump(BufReader::new(stdout), &mut out, Dir::FromProgram, &tx);
                let _ = tx.send(Read_::ProgramClosed);
            });
        }
        None => {
            let _ = tx.send(Read_::ProgramClosed);
        }
    }
}

fn pump_to_program(mut stdin: ChildStdin, tx: &mpsc::SyncSender<Read_>) {
    let input = std::io::stdin().lock();
    pump(BufReader::new(input), &mut stdin, Dir::ToProgram, tx);
    // Our input ended: so does the program's.
    drop(stdin);
}

/// Copies `from` to `to` line by line, unchanged, flushing each line, and reports each.
fn pump(mut from: impl BufRead, to: &mut impl Write, dir: Dir, tx: &mpsc::SyncSender<Read_>) {
    let mut line = Vec::new();
    loop {
        line.clear();
        match from.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let at = now_ms();
        let forwarded = to.write_all(&line).and_then(|()| to.flush());
        let _ = tx.send(Read_::Line(dir, line.clone(), at));
        if forwarded.is_err() {
            // The other end is gone: keep recording what we read, forward nothing more.
            let mut rest = Vec::new();
            let _ = from.read_to_end(&mut rest);
            if !rest.is_empty() {
                let _ = tx.send(Read_::Line(dir, rest, now_ms()));
            }
            return;
        }
    }
}

/// Sends SIGINT, SIGTERM, SIGHUP and SIGQUIT received by lineage on to the program.
#[cfg(unix)]
fn forward_signals(child: &Child) {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM};
    let Ok(pid) = i32::try_from(child.id()) else {
        return;
    };
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP, SIGQUIT])
    else {
        return;
    };
    std::thread::spawn(move || {
        for number in signals.forever() {
            if let Ok(signal) = Signal::try_from(number) {
                let _ = kill(Pid::from_raw(pid), signal);
            }
        }
    });
}

#[cfg(not(unix))]
fn forward_signals(_child: &Child) {}

/// Findings of one rule `record --check` prints as they come; the rest are counted and
/// said in one line at the end (`lineage check` of the trace lists every one).
pub(crate) const SHOWN_PER_RULE: usize = 5;

/// Writes the trace: the header at the first record (once the format is known), then
/// one flushed record per line; with `--check`, the engine reads each record too.
struct Writer {
    format: Option<Format>,
    line: usize,
    check: Option<Engine>,
    path: String,
    /// Per rule (in order of first finding): findings printed, and findings not printed.
    counted: Vec<(&'static str, usize, usize)>,
}

impl Writer {
    fn new(args: &RecordArgs) -> Self {
        Self {
            format: args.format,
            line: 0,
            // What `lineage check` reads with, and no finding kept: each is printed (or
            // counted) from the output that reports it.
            check: args.check.then(|| {
                Engine::new(Options {
                    transcripts: false,
                    view_changes: false,
                    keep_findings: false,
                    ..Options::default()
                })
            }),
            path: args.output.display().to_string(),
            counted: Vec::new(),
        }
    }

    fn record(&mut self, file: &mut File, dir: Dir, bytes: &[u8], at: u64) -> std::io::Result<()> {
        let text = bytes.strip_suffix(b"\n").unwrap_or(bytes);
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        if text.iter().all(u8::is_ascii_whitespace) {
            return Ok(());
        }
        let format = match self.format {
            Some(f) => f,
            None => {
                let f = detect(text).unwrap_or(Format::Acp);
                self.format = Some(f);
                f
            }
        };
        let mut out = String::new();
        if self.line == 0 {
            out.push_str(&format!(
                "{{\"lineage\":\"trace\",\"format\":\"{format}\",\"version\":1}}\n"
            ));
        }
        // A JSON line is kept as it was written (byte for byte); one that is not JSON is
        // kept as a string, so replay reports it at its line. The line is only checked
        // to be JSON, never built into a value.
        let json = std::str::from_utf8(text)
            .ok()
            .filter(|json| serde_json::from_str::<IgnoredAny>(json).is_ok());
        out.push_str("{\"from\":\"");
        out.push_str(side(format, dir));
        out.push_str("\",\"message\":");
        match json {
            Some(json) => out.push_str(json),
            None => {
                out.push_str(&Value::String(String::from_utf8_lossy(text).into_owned()).to_string())
            }
        }
        out.push_str(&format!(",\"at\":{at}}}\n"));
        file.write_all(out.as_bytes())?;
        file.flush()?;
        for line in out.lines() {
            self.line += 1;
            self.check_line(line);
        }
        Ok(())
    }

    /// The end of the recording: with `--check`, the end-of-trace findings, then a line
    /// for each rule with findings not printed.
    fn finish(mut self) {
        let Some(mut engine) = self.check.take() else {
            return;
        };
        if let Ok(end) = engine.end() {
            self.report(&end.findings);
        }
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
        self.report(&out.findings);
    }
}
