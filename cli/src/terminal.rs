//! Writing to standard output and standard error.
//!
//! Owns: the one way the CLI prints. A closed standard output (the reader went away, as
//! with `| head`) ends the output quietly: the run keeps its usual exit code and prints
//! no panic. A message for standard error never fails the run.
//! Never: decides an exit code or formats a report.

use std::io::{self, Write};

/// Writes `text` to standard output and flushes it. A broken pipe is not an error (the
/// reader has all it wanted); any other failure is returned.
pub(crate) fn print(text: &str) -> io::Result<()> {
    let mut stdout = io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// Writes one line to standard error, ignoring failure (there is nowhere left to say it).
pub(crate) fn warn(line: &str) {
    let mut stderr = io::stderr().lock();
    let _ = writeln!(stderr, "{line}");
}
