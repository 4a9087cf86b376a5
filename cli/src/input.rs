//! The only reader of trace input: a file, or standard input for `-`.
//!
//! Owns: opening a path once and handing its physical lines, in order, to a consumer
//! (the engine), so a pipe or FIFO is read exactly once and never needs a second open to
//! tell its format.
//! Any path that is not a directory works: a regular file, a FIFO, `/dev/stdin`; none is
//! opened twice, none needs seeking.
//! Never: interprets records (the engine does, detection and UTF-8 included) or drops a
//! line: each line's bytes reach the consumer as read.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::ops::ControlFlow;
use std::path::Path;

/// The first bytes of standard input (what one read of its buffer holds), without
/// consuming them: a later read still gets them.
pub fn stdin_head() -> String {
    let mut stdin = std::io::stdin().lock();
    match stdin.fill_buf() {
        Ok(buf) => String::from_utf8_lossy(buf).into_owned(),
        Err(_) => String::new(),
    }
}

/// Is this path standard input?
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Feeds the bytes of every physical line of `path` (without its `\n` or `\r\n`) to
/// `each` until it breaks. An I/O error, an input that is empty (no byte but white space)
/// or UTF-16 text is returned as text for a usage error.
pub fn each_line<E>(
    path: &Path,
    each: impl FnMut(&[u8]) -> ControlFlow<E>,
) -> Result<Option<E>, String> {
    if is_stdin(path) {
        each_line_in(std::io::stdin().lock(), each)
    } else {
        let file = File::open(path).map_err(|e| e.to_string())?;
        each_line_in(BufReader::new(file), each)
    }
}

/// [`each_line`] over any reader (a text in memory is `text.as_bytes()`).
pub fn each_line_in<E>(
    mut reader: impl BufRead,
    mut each: impl FnMut(&[u8]) -> ControlFlow<E>,
) -> Result<Option<E>, String> {
    let start = reader.fill_buf().map_err(|e| e.to_string())?;
    if is_utf16(start) {
        return Err(UTF16.to_owned());
    }
    let mut buf = Vec::new();
    let mut blank = true;
    loop {
        buf.clear();
        if reader
            .read_until(b'\n', &mut buf)
            .map_err(|e| e.to_string())?
            == 0
        {
            return if blank {
                Err(EMPTY.to_owned())
            } else {
                Ok(None)
            };
        }
        blank = blank && buf.iter().all(u8::is_ascii_whitespace);
        let line = buf.strip_suffix(b"\n").unwrap_or(&buf);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if let ControlFlow::Break(e) = each(line) {
            return Ok(Some(e));
        }
    }
}

/// An input without a record: nothing, or blank lines only (an empty file, `/dev/null`,
/// a closed standard input).
pub const EMPTY: &str = "empty input: no record was read (a trace is one JSON record per line)";

/// An input in UTF-16.
pub const UTF16: &str =
    "the input is UTF-16 text: lineage reads UTF-8 (convert it: `iconv -f UTF-16 -t UTF-8`)";

/// Does a text start like UTF-16: a byte-order mark (`FF FE`, `FE FF`), or an ASCII
/// character next to a NUL byte (`{\0`, `\0{`), which UTF-8 JSON never starts with?
fn is_utf16(start: &[u8]) -> bool {
    match start {
        [0xFF, 0xFE, ..] | [0xFE, 0xFF, ..] => true,
        [a, 0, ..] | [0, a, ..] => a.is_ascii() && *a != 0,
        _ => false,
    }
}
