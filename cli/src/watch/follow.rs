//! Where `lineage watch` reads from: a thread per source that delivers [`Feed`]s.
//!
//! Owns: following a trace file as it grows (appends read as they land, a line still
//! being written waits for its line break; a truncated or replaced file is said and read
//! again from its start; a removed one is waited for), reading a pipe, a FIFO or
//! standard input to its end, re-reading a native folder when its files change (new
//! files included: a child's rollout or transcript created mid-run), and running a
//! program as `lineage record` does. Changes are seen through `notify` (inotify,
//! FSEvents, …), with a poll every 250 ms when no watcher can be set up, and a slower
//! poll beside the watcher in case an event is missed.
//! Never: interprets a record (the engine does) or touches the screen. The channel is
//! bounded, so a source faster than the screen waits instead of filling memory.

use std::fs::File;
use std::io::{BufRead, BufReader, Seek, SeekFrom};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::time::Duration;

use notify::{RecursiveMode, Watcher};

use super::app::Feed;
use crate::native_source::{self, Lines, Several};
use crate::record_cmd::proxy::{self, Read_, TraceText, Wiring};
use crate::{Exit, input, walk};

/// How long a poll waits when no watcher could be set up.
const POLL: Duration = Duration::from_millis(250);
/// How long a watched source waits for an event before looking anyway.
const SAFETY_POLL: Duration = Duration::from_secs(1);

/// Wakes a follower when something changed under a path (or when it is time to look).
struct Waker {
    rx: Receiver<()>,
    timeout: Duration,
    _watcher: Option<notify::RecommendedWatcher>,
}

impl Waker {
    /// A waker for changes under `target`; the notice says why it polls, when it does.
    fn new(target: &Path, mode: RecursiveMode) -> (Self, Option<String>) {
        let (tx, rx) = mpsc::channel();
        let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
            if event.is_ok() {
                let _ = tx.send(());
            }
        })
        .and_then(|mut w| w.watch(target, mode).map(|()| w));
        match watcher {
            Ok(w) => (
                Self {
                    rx,
                    timeout: SAFETY_POLL,
                    _watcher: Some(w),
                },
                None,
            ),
            Err(e) => {
                let (_, rx) = mpsc::channel();
                let why = format!(
                    "cannot watch {} for changes ({e}): looking every {} ms instead",
                    target.display(),
                    POLL.as_millis()
                );
                (
                    Self {
                        rx,
                        timeout: POLL,
                        _watcher: None,
                    },
                    Some(why),
                )
            }
        }
    }

    /// Waits for a change (then lets a burst of them settle) or the timeout.
    fn wait(&self) {
        match self.rx.recv_timeout(self.timeout) {
            Ok(()) => {
                std::thread::sleep(Duration::from_millis(15));
                while self.rx.try_recv().is_ok() {}
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => std::thread::sleep(self.timeout),
        }
    }
}

/// Sends a feed; `Break` when the screen is gone.
fn send(tx: &SyncSender<Feed>, feed: Feed) -> ControlFlow<()> {
    match tx.send(feed) {
        Ok(()) => ControlFlow::Continue(()),
        Err(_) => ControlFlow::Break(()),
    }
}

/// Follows a regular file `file`, opened at `path`, until the screen goes away.
pub(crate) fn trace_file(path: PathBuf, file: File, tx: SyncSender<Feed>) {
    std::thread::spawn(move || {
        let _ = follow_file(&path, file, &tx);
    });
}

/// The identity of a file (device and inode on Unix), to tell a replaced one.
fn identity(meta: &std::fs::Metadata) -> (u64, u64) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        (meta.dev(), meta.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        (0, 0)
    }
}

fn follow_file(path: &Path, file: File, tx: &SyncSender<Feed>) -> ControlFlow<()> {
    let (waker, notice) = Waker::new(&parent_of(path), RecursiveMode::NonRecursive);
    if let Some(notice) = notice {
        send(tx, Feed::Notice(notice))?;
    }
    let shown = path.display().to_string();
    let mut id = file.metadata().map(|m| identity(&m)).unwrap_or_default();
    let mut reader = BufReader::new(file);
    let mut offset = 0u64;
    let mut partial = Vec::new();
    let mut gone = false;
    loop {
        read_lines(&mut reader, &mut offset, &mut partial, tx)?;
        match std::fs::metadata(path) {
            Ok(meta) if identity(&meta) != id => {
                if let Ok(file) = File::open(path) {
                    id = identity(&meta);
                    reader = BufReader::new(file);
                    (offset, gone) = (0, false);
                    partial.clear();
                    let why = format!("{shown} was replaced: reading the new file from its start");
                    send(tx, Feed::Restart(why))?;
                    continue;
                }
            }
            Ok(meta) if meta.len() < offset => {
                if reader.seek(SeekFrom::Start(0)).is_ok() {
                    (offset, gone) = (0, false);
                    partial.clear();
                    let why = format!("{shown} was truncated: reading it again from its start");
                    send(tx, Feed::Restart(why))?;
                    continue;
                }
            }
            Ok(_) => gone = false,
            Err(_) if !gone => {
                gone = true;
                let why = format!("{shown} was removed: waiting for it to come back");
                send(tx, Feed::Notice(why))?;
            }
            Err(_) => {}
        }
        waker.wait();
    }
}

/// Sends every complete line `reader` has now; a last line without its line break is
/// kept in `partial` until the rest of it is written.
fn read_lines(
    reader: &mut BufReader<File>,
    offset: &mut u64,
    partial: &mut Vec<u8>,
    tx: &SyncSender<Feed>,
) -> ControlFlow<()> {
    loop {
        let mut buf = Vec::new();
        let n = match reader.read_until(b'\n', &mut buf) {
            Ok(n) => n,
            Err(e) => return send(tx, Feed::Notice(format!("cannot read: {e}"))),
        };
        if n == 0 {
            return ControlFlow::Continue(());
        }
        *offset += u64::try_from(n).unwrap_or(0);
        partial.extend_from_slice(&buf);
        if partial.last() == Some(&b'\n') {
            let mut line = std::mem::take(partial);
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            send(tx, Feed::Line(line))?;
        }
    }
}

/// Reads a pipe, a FIFO or standard input (`-`) to its end, then says it ended.
pub(crate) fn stream(path: PathBuf, tx: SyncSender<Feed>) {
    std::thread::spawn(move || {
        let read = input::each_line(&path, |line| send(&tx, Feed::Line(line.to_vec())));
        if let Err(why) = read {
            let _ = send(&tx, Feed::Notice(format!("error: {why}")));
        }
        let _ = send(&tx, Feed::Ended);
    });
}

/// Follows a native source: re-reads its files whenever they change, and hands over the
/// tree of `session` (the newest when `None`, then kept).
pub(crate) fn native(path: PathBuf, session: Option<String>, tx: SyncSender<Feed>) {
    std::thread::spawn(move || {
        let _ = follow_native(&path, session, &tx);
    });
}

fn follow_native(
    path: &Path,
    mut session: Option<String>,
    tx: &SyncSender<Feed>,
) -> ControlFlow<()> {
    let target = if path.is_dir() {
        path.to_path_buf()
    } else {
        parent_of(path)
    };
    let (waker, notice) = Waker::new(&target, RecursiveMode::Recursive);
    if let Some(notice) = notice {
        send(tx, Feed::Notice(notice))?;
    }
    let mut seen = None;
    let mut said: Option<String> = None;
    loop {
        let print = fingerprint(&target);
        if seen.as_ref() != Some(&print) {
            seen = Some(print);
            match native_source::open_as(path, session.as_deref(), Several::Newest, Lines::Complete)
            {
                Ok((source, index)) => {
                    if session.is_none() {
                        session = source.streams.get(index).map(|s| s.root.clone());
                    }
                    said = None;
                    send(tx, Feed::Native(Box::new(source), index))?;
                }
                Err(why) if said.as_ref() != Some(&why) => {
                    said = Some(why.clone());
                    send(tx, Feed::Notice(format!("waiting: {why}")))?;
                }
                Err(_) => {}
            }
        }
        waker.wait();
    }
}

/// The folder a file is in (`.` for a bare name).
fn parent_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// What tells that a folder's files changed: each file's path, size and time.
fn fingerprint(dir: &Path) -> Vec<(PathBuf, u64, Option<std::time::SystemTime>)> {
    walk::inputs(&[dir.to_path_buf()])
        .into_iter()
        .flatten()
        .map(|p| {
            let meta = std::fs::metadata(&p).ok();
            let len = meta.as_ref().map_or(0, std::fs::Metadata::len);
            let modified = meta.and_then(|m| m.modified().ok());
            (p, len, modified)
        })
        .collect()
}

/// Runs `command` as `lineage record` does and delivers its traffic as trace lines, its
/// standard error as notices, and its end. Our standard input goes to the program only
/// when it is not the terminal (the terminal's keys are the screen's), and its output
/// is passed on only when ours is not the terminal. Returns the program's process id.
pub(crate) fn record(command: &[String], tx: SyncSender<Feed>) -> Result<u32, (String, Exit)> {
    use std::io::IsTerminal;
    let Some((program, rest)) = command.split_first() else {
        return Err(("no program to run after `--`".to_owned(), Exit::Usage));
    };
    let wiring = Wiring {
        stdin: !std::io::stdin().is_terminal(),
        stdout: !std::io::stdout().is_terminal(),
        stderr_lines: true,
    };
    let (mut child, rx) = proxy::spawn(program, rest, wiring).map_err(|e| {
        (
            format!("cannot run `{program}`: {e}"),
            proxy::cannot_run(&e),
        )
    })?;
    let pid = child.id();
    let name = program.clone();
    std::thread::spawn(move || {
        let mut text = TraceText::new(None);
        let mut deliver = |read: Read_| -> ControlFlow<()> {
            match read {
                Read_::Line(dir, bytes, at) => {
                    for line in text.lines(dir, &bytes, at).unwrap_or_default().lines() {
                        send(&tx, Feed::Line(line.as_bytes().to_vec()))?;
                    }
                    ControlFlow::Continue(())
                }
                Read_::Stderr(bytes) => {
                    let line = String::from_utf8_lossy(&bytes).trim_end().to_owned();
                    send(&tx, Feed::Notice(format!("{name}: {line}")))
                }
                Read_::ProgramClosed => ControlFlow::Continue(()),
            }
        };
        for read in rx.iter() {
            let closed = read == Read_::ProgramClosed;
            if deliver(read).is_break() {
                return;
            }
            if closed {
                break;
            }
        }
        let Some(status) = proxy::wait_draining(&mut child, &rx, &mut deliver) else {
            return;
        };
        while let Ok(read) = rx.try_recv() {
            if deliver(read).is_break() {
                return;
            }
        }
        let code = match proxy::exit_of(status) {
            Exit::Code(code) => code.to_string(),
            other => format!("{other:?}"),
        };
        let _ = send(&tx, Feed::Notice(format!("{name} exited with {code}")));
        let _ = send(&tx, Feed::Ended);
    });
    Ok(pid)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;
    use std::io::Write;

    /// The next feed, as text (`line:…`, `restart:…`, `notice:…`), within 5 s; the
    /// notice of a machine where no watcher can be set up (it polls) is passed over.
    fn next(rx: &Receiver<Feed>) -> String {
        let feed = loop {
            match rx.recv_timeout(Duration::from_secs(5)) {
                Ok(Feed::Notice(text)) if text.starts_with("cannot watch") => {}
                other => break other,
            }
        };
        match feed {
            Ok(Feed::Line(bytes)) => format!("line:{}", String::from_utf8_lossy(&bytes)),
            Ok(Feed::Restart(why)) => format!("restart:{why}"),
            Ok(Feed::Notice(text)) => format!("notice:{text}"),
            Ok(other) => format!("{other:?}"),
            Err(e) => panic!("no feed: {e}"),
        }
    }

    #[test]
    fn a_followed_file_holds_a_partial_line_and_says_truncation_and_replacement() {
        let dir = std::env::temp_dir().join(format!("lineage-follow-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.jsonl");
        std::fs::write(&path, "one\ntwo\nthr").unwrap();
        let (tx, rx) = mpsc::sync_channel(16);
        trace_file(path.clone(), File::open(&path).unwrap(), tx);
        assert_eq!(next(&rx), "line:one");
        assert_eq!(next(&rx), "line:two");
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        file.write_all(b"ee\r\n").unwrap();
        drop(file);
        assert_eq!(
            next(&rx),
            "line:three",
            "the partial line waited for its end"
        );
        std::fs::write(&path, "x\n").unwrap();
        assert!(next(&rx).starts_with("restart:") && next(&rx) == "line:x");
        let other = dir.join("new.jsonl");
        std::fs::write(&other, "fresh\n").unwrap();
        std::fs::rename(&other, &path).unwrap();
        let replaced = next(&rx);
        assert!(replaced.contains("was replaced"), "{replaced}");
        assert_eq!(next(&rx), "line:fresh");
        drop(rx);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
