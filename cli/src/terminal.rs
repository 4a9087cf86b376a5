//! Writing to standard output and standard error.
//!
//! Owns: the one way the CLI prints, and what a terminal may be sent. A closed standard
//! output (the reader went away, as with `| head`) ends the output quietly: the run
//! keeps its usual exit code and prints no panic. A message for standard error never
//! fails the run. Text read from a trace or a path reaches people only through
//! [`escape_controls`], so a trace cannot move the cursor, clear the screen or retitle
//! the terminal.
//! Colour goes to standard output only when [`colors`] says so (`--color`, `NO_COLOR`,
//! `TERM=dumb`, a terminal).
//! Never: decides an exit code or formats a report.

use std::borrow::Cow;
use std::io::{self, Write};

pub(crate) use lineage_cli::escape::escape_controls;

/// A whole multi-line human text: controls escaped, line breaks kept.
pub(crate) fn for_people(text: &str) -> Cow<'_, str> {
    escape_controls(text, &['\n'])
}

/// Whether standard output gets colour: `--color always|never` as said; `auto` colours
/// only a terminal, and never when `NO_COLOR` is set to anything but the empty string
/// (no-color.org) or `TERM` is `dumb`.
pub(crate) fn colors(when: crate::ColorWhen) -> bool {
    match when {
        crate::ColorWhen::Always => true,
        crate::ColorWhen::Never => false,
        crate::ColorWhen::Auto => {
            let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
            let dumb = std::env::var_os("TERM").is_some_and(|t| t == "dumb");
            !no_color && !dumb && io::IsTerminal::is_terminal(&io::stdout())
        }
    }
}

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

/// Standard output through `write` (buffered), flushed; a closed pipe is not an error.
pub(crate) fn print_with(
    write: impl FnOnce(&mut io::BufWriter<io::StdoutLock<'_>>) -> io::Result<()>,
) -> io::Result<()> {
    let mut stdout = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
    match write(&mut stdout).and_then(|()| stdout.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// Writes one line to standard error (controls escaped, line breaks too), ignoring
/// failure (there is nowhere left to say it).
pub(crate) fn warn(line: &str) {
    let mut stderr = io::stderr().lock();
    let _ = writeln!(stderr, "{}", escape_controls(line, &[]));
}

/// Writes one finding of the trace at `path` to standard error, located
/// (`path:line: severity[rule]: message`).
pub(crate) fn warn_finding(path: &str, f: &lineage_core::finding::Finding) {
    warn(&format!(
        "{path}:{}: {}[{}]: {}",
        f.line, f.severity, f.rule, f.message
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_escaped_and_the_kept_break_is_not() {
        assert_eq!(escape_controls("plain · é", &[]), "plain · é");
        assert_eq!(
            escape_controls("a\u{1b}[2J\u{1}\u{9b}\tb\nc", &[]),
            "a\\u{1b}[2J\\u{1}\\u{9b}\\tb\\nc"
        );
        assert_eq!(for_people("x\u{7}\ny\n"), "x\\u{7}\ny\n");
    }
}
