//! The only reader of trace input: a file, or standard input for `-`.
//!
//! Owns: opening a path once and handing its physical lines, in order, to a consumer
//! (the engine), so a pipe or FIFO is read exactly once and never needs a second open to
//! tell its format.
//! Never: interprets records (the engine does, detection included) or drops a line:
//! bytes that are not UTF-8 are replaced, so such a line still reaches the engine and
//! becomes a located finding.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::ops::ControlFlow;
use std::path::Path;

/// Is this path standard input?
pub(crate) fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Feeds every physical line of `path` (without its line break) to `each` until it
/// breaks. An I/O error is returned as text for a usage error.
pub(crate) fn each_line<E>(
    path: &Path,
    mut each: impl FnMut(&str) -> ControlFlow<E>,
) -> Result<Option<E>, String> {
    let mut reader: Box<dyn BufRead> = if is_stdin(path) {
        Box::new(std::io::stdin().lock())
    } else {
        Box::new(BufReader::new(File::open(path).map_err(|e| e.to_string())?))
    };
    let mut buf = Vec::new();
    loop {
        buf.clear();
        if reader
            .read_until(b'\n', &mut buf)
            .map_err(|e| e.to_string())?
            == 0
        {
            return Ok(None);
        }
        let line = String::from_utf8_lossy(&buf);
        let line = line.strip_suffix('\n').unwrap_or(&line);
        let line = line.strip_suffix('\r').unwrap_or(line);
        if let ControlFlow::Break(e) = each(line) {
            return Ok(Some(e));
        }
    }
}
