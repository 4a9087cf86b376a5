//! Running a program that speaks JSON lines on stdio and seeing its traffic: the part
//! of `lineage record` that `lineage watch --record` shares.
//!
//! Owns: starting the program with its standard streams wired as asked, the threads
//! that copy each direction byte for byte and report every line with the time it was
//! read, the program's exit code as lineage's, and turning a line of traffic into the
//! trace text `record` writes ([`TraceText`]: the header, then one record per line).
//! Never: writes a file or decides what happens to a line (the caller does).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{SystemTime, UNIX_EPOCH};

use lineage_core::engine::Engine;
use lineage_core::trace::Format;
use serde::de::IgnoredAny;
use serde_json::Value;

use crate::Exit;

/// Which side wrote a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dir {
    /// Our standard input, to the program (the client or host).
    ToProgram,
    /// The program's standard output.
    FromProgram,
}

/// What a pump read.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Read_ {
    /// A line (with its newline, if it had one) and when it was read.
    Line(Dir, Vec<u8>, u64),
    /// A line the program wrote on its standard error (when asked for, [`Wiring`]).
    Stderr(Vec<u8>),
    /// The program closed its standard output.
    ProgramClosed,
}

/// How the program's standard streams are wired.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Wiring {
    /// Copy our standard input to the program's (else it gets none).
    pub stdin: bool,
    /// Copy the program's standard output to ours (else it is only reported).
    pub stdout: bool,
    /// Report the program's standard error line by line (else it shares ours).
    pub stderr_lines: bool,
}

/// `record`'s wiring: both directions forwarded, standard error shared.
pub(crate) const FORWARD: Wiring = Wiring {
    stdin: true,
    stdout: true,
    stderr_lines: false,
};

/// Lines read and not yet taken from the channel, at most: a full queue holds the pumps
/// back (so the program waits for its trace to be written), and memory does not grow
/// with the traffic.
pub(crate) const QUEUED_LINES: usize = 1024;

/// Starts `program` with `args`, wired as asked; every line read comes on the channel,
/// and [`Read_::ProgramClosed`] when its standard output closes.
pub(crate) fn spawn(
    program: &str,
    args: &[String],
    wiring: Wiring,
) -> std::io::Result<(Child, mpsc::Receiver<Read_>)> {
    let mut child = Command::new(program)
        .args(args)
        .stdin(if wiring.stdin {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(if wiring.stderr_lines {
            Stdio::piped()
        } else {
            Stdio::inherit()
        })
        .spawn()?;
    let (tx, rx) = mpsc::sync_channel::<Read_>(QUEUED_LINES);
    start_pumps(&mut child, wiring, tx);
    Ok((child, rx))
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

/// The wall clock, in Unix milliseconds (a record's `at`).
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// The trace text of the traffic: the header at the first record (once the format is
/// known: given, or told by the first line), then one record per line.
#[derive(Debug, Clone, Default)]
pub(crate) struct TraceText {
    format: Option<Format>,
    started: bool,
}

impl TraceText {
    /// Trace text in `format` (told by the first line when `None`).
    pub(crate) fn new(format: Option<Format>) -> Self {
        Self {
            format,
            started: false,
        }
    }

    /// The trace lines (each ending in `\n`) of one line of traffic read at `at`: the
    /// header first, the first time; nothing for a blank line.
    pub(crate) fn lines(&mut self, dir: Dir, bytes: &[u8], at: u64) -> Option<String> {
        let text = bytes.strip_suffix(b"\n").unwrap_or(bytes);
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        if text.iter().all(u8::is_ascii_whitespace) {
            return None;
        }
        let format = *self
            .format
            .get_or_insert_with(|| detect(text).unwrap_or(Format::Acp));
        let mut out = String::new();
        if !std::mem::replace(&mut self.started, true) {
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
        Some(out)
    }
}

/// Waits for the program once its output has closed, still taking what the pumps read
/// meanwhile (handed to `take`): with a bounded queue, a pump waiting for room must not
/// be left waiting on a program that waits for its input. `None` when `take` stops.
pub(crate) fn wait_draining(
    child: &mut Child,
    rx: &mpsc::Receiver<Read_>,
    mut take: impl FnMut(Read_) -> std::ops::ControlFlow<()>,
) -> Option<std::io::Result<std::process::ExitStatus>> {
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(Ok(status)),
            Ok(None) => {}
            Err(e) => return Some(Err(e)),
        }
        match rx.recv_timeout(std::time::Duration::from_millis(10)) {
            Ok(read) => {
                if take(read).is_break() {
                    return None;
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => return Some(child.wait()),
        }
    }
}

/// The exit code of a program that could not be started, as a shell's: 127 when it does
/// not exist, 126 when it cannot be executed, 2 otherwise.
pub(crate) fn cannot_run(e: &std::io::Error) -> Exit {
    match e.kind() {
        std::io::ErrorKind::NotFound => Exit::Code(127),
        std::io::ErrorKind::PermissionDenied => Exit::Code(126),
        _ => Exit::Usage,
    }
}

/// The program's exit code as lineage's (128 + the signal's number when it was killed).
pub(crate) fn exit_of(status: std::io::Result<std::process::ExitStatus>) -> Exit {
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

/// Threads copying our stdin to the program and the program's stdout to ours (as
/// `wiring` says), byte for byte, and sending every complete line (and a last
/// unterminated one) to be recorded.
fn start_pumps(child: &mut Child, wiring: Wiring, tx: mpsc::SyncSender<Read_>) {
    if let Some(stdin) = child.stdin.take() {
        let tx = tx.clone();
        std::thread::spawn(move || pump_to_program(stdin, &tx));
    }
    if let Some(stderr) = child.stderr.take() {
        let tx = tx.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).split(b'\n').map_while(Result::ok) {
                if tx.send(Read_::Stderr(line)).is_err() {
                    return;
                }
            }
        });
    }
    match child.stdout.take() {
        Some(stdout) => {
            std::thread::spawn(move || {
                if wiring.stdout {
                    let mut out = std::io::stdout().lock();
                    pump(BufReader::new(stdout), &mut out, Dir::FromProgram, &tx);
                } else {
                    pump(
                        BufReader::new(stdout),
                        &mut std::io::sink(),
                        Dir::FromProgram,
                        &tx,
                    );
                }
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
pub(crate) fn forward_signals(child: &Child) {
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
pub(crate) fn forward_signals(_child: &Child) {}
