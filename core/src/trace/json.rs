//! One JSON record parser: serde_json for ordinary records, and a non-recursive fallback
//! for records nested deeper than serde_json's recursion limit (127 levels).
//!
//! Owns: turning the text of one record into a `T`; the depth limits [`KEEP_DEPTH`] and
//! [`MAX_DEPTH`]; replacing every container that starts deeper than `KEEP_DEPTH` by `null`
//! and saying so in [`Parsed::pruned`]; locating errors; stripping a byte-order mark.
//! Never: recurses on input data (the fallback keeps an explicit bracket stack, so no
//! record can overflow the stack), keeps a value nested deeper than `KEEP_DEPTH`, drops
//! anything without reporting it, or decides what a record means.
//!
//! Positions are serde_json's: a 1-based line and a 1-based column counted in **bytes**
//! from the start of that line (a record of a JSONL trace is on line 1).
//!
//! The fallback validates the whole text exactly as `serde_json::from_str::<Value>` would
//! (same grammar, same messages and positions; numbers are kept as text, so none is out
//! of range), so a
//! subtree that is pruned is still checked; only then does it hand the rewritten text,
//! whose depth is at most `KEEP_DEPTH`, to the ordinary `serde_json::from_str::<T>`.
//! (So on that path a syntax error anywhere is reported before a shape error of `T`
//! earlier in the text; serde_json alone would report the earlier one.)

// Not yet called outside its tests: the trace readers switch to it in a separate change.

use std::fmt;

use serde::de::DeserializeOwned;
use serde_json::error::Category;

/// Containers that start at this depth or shallower are kept; deeper ones become `null`.
///
/// Below serde_json's limit (a container at depth 128 fails) with room to spare, so the
/// kept value can be wrapped, re-serialized and re-parsed by serde_json; and shallow
/// enough that `Value`'s recursive `Drop`, `Clone` and `Serialize` stay cheap on any
/// stack. No part of lineage reads anything below a few levels of a record.
pub(crate) const KEEP_DEPTH: usize = 100;

/// A record nested deeper than this is an error ("nested deeper than 65536 levels").
///
/// Far above any real trace (the requirement is 10,000) while bounding the fallback's
/// bracket stack to 64 KiB; a deeper record is reported, never silently truncated.
pub(crate) const MAX_DEPTH: usize = 65_536;

/// The depth at which serde_json reports "recursion limit exceeded".
const SERDE_LIMIT: usize = 128;

const _: () = assert!(KEEP_DEPTH < SERDE_LIMIT && MAX_DEPTH >= 10_000);

/// What replaces a pruned container.
const NULL: &str = "null";

/// serde_json's messages for the syntax errors the fallback finds itself.
mod code {
    pub(super) const EOF_LIST: &str = "EOF while parsing a list";
    pub(super) const EOF_OBJECT: &str = "EOF while parsing an object";
    pub(super) const EOF_STRING: &str = "EOF while parsing a string";
    pub(super) const EOF_VALUE: &str = "EOF while parsing a value";
    pub(super) const EXPECTED_COLON: &str = "expected `:`";
    pub(super) const EXPECTED_LIST_COMMA_OR_END: &str = "expected `,` or `]`";
    pub(super) const EXPECTED_OBJECT_COMMA_OR_END: &str = "expected `,` or `}`";
    pub(super) const EXPECTED_IDENT: &str = "expected ident";
    pub(super) const EXPECTED_VALUE: &str = "expected value";
    pub(super) const INVALID_NUMBER: &str = "invalid number";
    pub(super) const KEY_MUST_BE_A_STRING: &str = "key must be a string";
    pub(super) const TRAILING_COMMA: &str = "trailing comma";
    pub(super) const TRAILING_CHARACTERS: &str = "trailing characters";
    pub(super) const RECURSION_LIMIT: &str = "recursion limit exceeded";
}

/// A parsed record, and what of it was not kept.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Parsed<T> {
    /// The record, with every container deeper than [`KEEP_DEPTH`] replaced by `null`.
    pub(crate) value: T,
    /// `Some` when anything was replaced: the caller reports it as a located note.
    pub(crate) pruned: Option<Pruned>,
}

/// How much of a record nested deeper than [`KEEP_DEPTH`] was not kept.
///
/// Displays as "values nested deeper than 100 levels were not kept (record depth 10000)".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pruned {
    /// The record's nesting depth (a top-level array or object is depth 1).
    pub(crate) depth: usize,
    /// Containers at this depth or shallower were kept.
    pub(crate) kept: usize,
    /// How many subtrees were replaced by `null`.
    pub(crate) values: usize,
    /// The line of the first replaced subtree's opening bracket (1-based).
    pub(crate) line: usize,
    /// Its column (1-based, in bytes).
    pub(crate) column: usize,
}

impl fmt::Display for Pruned {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "values nested deeper than {} levels were not kept (record depth {})",
            self.kept, self.depth
        )
    }
}

/// What kind of problem a [`JsonError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ErrorKind {
    /// Not JSON (serde_json's syntax and EOF errors).
    Syntax,
    /// JSON, but not of the requested shape (serde_json's data errors).
    Shape,
    /// Nested deeper than [`MAX_DEPTH`].
    TooDeep,
}

/// Why a text is not a record.
///
/// Displays like [`super::in_record`]: "expected value at column 1" on line 1, with the
/// line as well otherwise.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct JsonError {
    /// What kind of problem.
    pub(crate) kind: ErrorKind,
    /// serde_json's message without its position ("trailing comma").
    pub(crate) message: String,
    /// 1-based line; 0 when serde_json gave no position.
    pub(crate) line: usize,
    /// 1-based column in bytes from the start of the line (0 at the very start of a line
    /// or of an empty text, as serde_json reports it).
    pub(crate) column: usize,
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            0 => f.write_str(&self.message),
            1 => write!(f, "{} at column {}", self.message, self.column),
            line => write!(f, "{} at line {line} column {}", self.message, self.column),
        }
    }
}

impl std::error::Error for JsonError {}

impl JsonError {
    /// serde_json's error, at its own position.
    fn from_serde(e: &serde_json::Error) -> Self {
        Self::from_serde_at(e, e.line(), e.column())
    }

    /// serde_json's error, moved to `line`/`column`.
    fn from_serde_at(e: &serde_json::Error, line: usize, column: usize) -> Self {
        JsonError {
            kind: match e.classify() {
                Category::Data => ErrorKind::Shape,
                Category::Syntax | Category::Eof | Category::Io => ErrorKind::Syntax,
            },
            message: message_of(e),
            line,
            column,
        }
    }
}

/// Parses one record.
///
/// Ordinary records take exactly `serde_json::from_str::<T>(text)`. A record that serde_json
/// rejects only for being nested 128 levels or deeper is validated and rewritten without
/// recursion (see the module comment), then parsed with its deep subtrees as `null`.
pub(crate) fn parse<T: DeserializeOwned>(text: &str) -> Result<Parsed<T>, JsonError> {
    match serde_json::from_str::<T>(text) {
        Ok(value) => Ok(Parsed {
            value,
            pruned: None,
        }),
        Err(e) if is_recursion_limit(&e) => parse_pruned(text, KEEP_DEPTH, MAX_DEPTH),
        Err(e) => Err(JsonError::from_serde(&e)),
    }
}

/// Parses one record as a `Value`: by the borrowed parser when it accepts the text, so a
/// number keeps its spelling (`1E5` stays `1E5`), else exactly as [`parse`] does (which
/// reads and reports everything that parser leaves to it).
pub(crate) fn parse_value(text: &str) -> Result<Parsed<serde_json::Value>, JsonError> {
    match super::borrowed::parse_as(text) {
        Some(value) => Ok(Parsed {
            value,
            pruned: None,
        }),
        None => parse(text),
    }
}

/// The text without a leading U+FEFF (a UTF-8 byte-order mark); only the first line of a
/// file can carry one. Columns of that line then count from after the mark.
pub(crate) fn strip_bom(line: &str) -> &str {
    line.strip_prefix('\u{feff}').unwrap_or(line)
}

/// Is this serde_json's "recursion limit exceeded"? A syntax error (a custom message from
/// a `Deserialize` impl is a data error) whose text starts with serde_json's message.
fn is_recursion_limit(e: &serde_json::Error) -> bool {
    e.classify() == Category::Syntax && e.to_string().starts_with(code::RECURSION_LIMIT)
}

/// serde_json's message without the " at line L column C" it appends.
fn message_of(e: &serde_json::Error) -> String {
    let text = e.to_string();
    if e.line() == 0 {
        return text;
    }
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    match text.strip_suffix(&suffix) {
        Some(message) => message.to_owned(),
        None => text,
    }
}

/// The slow path: validate and prune with `keep`/`limit`, then parse the rewritten text.
fn parse_pruned<T: DeserializeOwned>(
    text: &str,
    keep: usize,
    limit: usize,
) -> Result<Parsed<T>, JsonError> {
    let scan = Scanner::new(text, keep, limit)
        .run()
        .map_err(|fault| fault.locate(text))?;
    let Some(&(first, _)) = scan.regions.first() else {
        let value = serde_json::from_str(text).map_err(|e| JsonError::from_serde(&e))?;
        return Ok(Parsed {
            value,
            pruned: None,
        });
    };
    let (rewritten, splices) = rewrite(text, &scan.regions);
    let value = serde_json::from_str(&rewritten).map_err(|e| {
        if e.line() == 0 {
            return JsonError::from_serde(&e);
        }
        let index = original_index(index_of(&rewritten, e.line(), e.column()), &splices);
        let (line, column) = position_of(text, index);
        JsonError::from_serde_at(&e, line, column)
    })?;
    let (line, column) = position_of(text, first + 1);
    Ok(Parsed {
        value,
        pruned: Some(Pruned {
            depth: scan.depth,
            kept: keep,
            values: scan.regions.len(),
            line,
            column,
        }),
    })
}

/// One pruned region of the original text and where its `null` is in the rewritten one.
#[derive(Debug, Clone, Copy)]
struct Splice {
    /// Byte index of `null` in the rewritten text.
    at: usize,
    /// Byte range of the replaced container in the original text.
    start: usize,
    end: usize,
}

/// The text with each region (outermost containers deeper than the kept depth) replaced
/// by `null`.
fn rewrite(text: &str, regions: &[(usize, usize)]) -> (String, Vec<Splice>) {
    let mut out = String::with_capacity(text.len());
    let mut splices = Vec::with_capacity(regions.len());
    let mut copied = 0;
    for &(start, end) in regions {
        out.push_str(text.get(copied..start).unwrap_or_default());
        splices.push(Splice {
            at: out.len(),
            start,
            end,
        });
        out.push_str(NULL);
        copied = end;
    }
    out.push_str(text.get(copied..).unwrap_or_default());
    (out, splices)
}

/// Maps a byte index of the rewritten text back to the original text (an index inside a
/// `null` maps into the container it replaced).
fn original_index(index: usize, splices: &[Splice]) -> usize {
    let before = splices.partition_point(|s| s.at < index);
    match before.checked_sub(1).and_then(|i| splices.get(i)) {
        None => index,
        Some(s) => match (index - s.at).checked_sub(NULL.len()) {
            Some(past) => s.end + past,
            None => (s.start + (index - s.at)).min(s.end),
        },
    }
}

/// serde_json's position of a byte index: the 1-based line, and the column counted from
/// the byte after the line's start (so index `i` on line 1 is column `i`).
fn position_of(text: &str, index: usize) -> (usize, usize) {
    let bytes = text.as_bytes();
    let before = bytes.get(..index).unwrap_or(bytes);
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |newline| newline + 1);
    let line = 1 + before
        .iter()
        .take(line_start)
        .filter(|&&b| b == b'\n')
        .count();
    (line, before.len() - line_start)
}

/// The byte index serde_json's `line`/`column` stand for in `text` (the inverse of
/// [`position_of`]; line 0, serde_json's "no position", is the start).
fn index_of(text: &str, line: usize, column: usize) -> usize {
    let line_start = match line.checked_sub(2) {
        None => 0,
        Some(newlines) => text
            .bytes()
            .enumerate()
            .filter(|&(_, b)| b == b'\n')
            .nth(newlines)
            .map_or(text.len(), |(i, _)| i + 1),
    };
    line_start + column
}

/// A syntax error found by the scanner, at a byte index of the text.
#[derive(Debug)]
struct Fault {
    kind: ErrorKind,
    message: String,
    /// The index serde_json computes its position from.
    index: usize,
}

impl Fault {
    /// serde_json's error on `token`, a slice of the text starting at byte `start`.
    fn delegated(e: &serde_json::Error, token: &str, start: usize) -> Self {
        Fault {
            kind: ErrorKind::Syntax,
            message: message_of(e),
            index: start + index_of(token, e.line(), e.column()),
        }
    }

    fn locate(self, text: &str) -> JsonError {
        let (line, column) = position_of(text, self.index);
        JsonError {
            kind: self.kind,
            message: self.message,
            line,
            column,
        }
    }
}

/// What the scanner found in a valid text.
#[derive(Debug)]
struct Scan {
    /// The deepest container's depth.
    depth: usize,
    /// Byte ranges of the outermost containers deeper than the kept depth, in order.
    regions: Vec<(usize, usize)>,
}

/// After a value or an opening bracket: what comes next.
#[derive(Debug, PartialEq, Eq)]
enum Next {
    /// A value (a container's first element or member, or one after a comma).
    Value,
    /// The end of the top-level value.
    End,
}

/// An iterative JSON validator mirroring serde_json's parser (messages and positions
/// included) that records where the containers deeper than `keep` are.
#[derive(Debug)]
struct Scanner<'a> {
    text: &'a str,
    bytes: &'a [u8],
    /// The next byte.
    at: usize,
    /// The opening bracket of every open container, outermost first.
    open: Vec<u8>,
    keep: usize,
    limit: usize,
    depth: usize,
    regions: Vec<(usize, usize)>,
    region_start: usize,
}

impl<'a> Scanner<'a> {
    fn new(text: &'a str, keep: usize, limit: usize) -> Self {
        Scanner {
            text,
            bytes: text.as_bytes(),
            at: 0,
            open: Vec::new(),
            keep,
            limit,
            depth: 0,
            regions: Vec::new(),
            region_start: 0,
        }
    }

    /// Scans the whole text: one value, then only whitespace.
    fn run(mut self) -> Result<Scan, Fault> {
        loop {
            let next = match self.value()? {
                Next::Value => Next::Value,
                Next::End => self.after_value()?,
            };
            if next == Next::End {
                break;
            }
        }
        self.skip_whitespace();
        if self.peek().is_some() {
            return Err(self.peek_fault(code::TRAILING_CHARACTERS));
        }
        Ok(Scan {
            depth: self.depth,
            regions: self.regions,
        })
    }

    /// One value: a scalar or an empty container (`End`: the value is complete), or the
    /// opening of a non-empty container up to its first element or member's value (`Value`).
    fn value(&mut self) -> Result<Next, Fault> {
        self.skip_whitespace();
        match self.peek() {
            None => Err(self.peek_fault(code::EOF_VALUE)),
            Some(b'[') => {
                self.open_container(b'[')?;
                self.skip_whitespace();
                match self.peek() {
                    None => Err(self.peek_fault(code::EOF_LIST)),
                    Some(b']') => Ok(self.close_container()),
                    Some(_) => Ok(Next::Value),
                }
            }
            Some(b'{') => {
                self.open_container(b'{')?;
                self.skip_whitespace();
                match self.peek() {
                    None => Err(self.peek_fault(code::EOF_OBJECT)),
                    Some(b'}') => Ok(self.close_container()),
                    Some(b'"') => self.key_and_colon().map(|()| Next::Value),
                    Some(_) => Err(self.peek_fault(code::KEY_MUST_BE_A_STRING)),
                }
            }
            Some(b'"') => self.string().map(|()| Next::End),
            Some(b'n') => self.literal(b"ull").map(|()| Next::End),
            Some(b't') => self.literal(b"rue").map(|()| Next::End),
            Some(b'f') => self.literal(b"alse").map(|()| Next::End),
            Some(b'-' | b'0'..=b'9') => self.number().map(|()| Next::End),
            Some(_) => Err(self.peek_fault(code::EXPECTED_VALUE)),
        }
    }

    /// After a complete value: closes the containers it completes, then either consumes a
    /// comma (and a member's key and colon) before the next value, or ends the top level.
    fn after_value(&mut self) -> Result<Next, Fault> {
        loop {
            self.skip_whitespace();
            let (close, eof, expected) = match self.open.last() {
                None => return Ok(Next::End),
                Some(b'[') => (b']', code::EOF_LIST, code::EXPECTED_LIST_COMMA_OR_END),
                Some(_) => (b'}', code::EOF_OBJECT, code::EXPECTED_OBJECT_COMMA_OR_END),
            };
            match self.peek() {
                None => return Err(self.peek_fault(eof)),
                Some(b',') => {
                    self.at += 1;
                    return self.after_comma(close);
                }
                Some(b) if b == close => {
                    self.close_container();
                }
                Some(_) => return Err(self.peek_fault(expected)),
            }
        }
    }

    /// After a comma in the container `close` ends: the next element, or member key.
    fn after_comma(&mut self, close: u8) -> Result<Next, Fault> {
        self.skip_whitespace();
        match self.peek() {
            None => Err(self.peek_fault(code::EOF_VALUE)),
            Some(b) if b == close => Err(self.peek_fault(code::TRAILING_COMMA)),
            Some(b'"') if close == b'}' => self.key_and_colon().map(|()| Next::Value),
            Some(_) if close == b'}' => Err(self.peek_fault(code::KEY_MUST_BE_A_STRING)),
            Some(_) => Ok(Next::Value),
        }
    }

    /// A member's key (at its opening quote) and the colon after it.
    fn key_and_colon(&mut self) -> Result<(), Fault> {
        self.string()?;
        self.skip_whitespace();
        match self.peek() {
            Some(b':') => {
                self.at += 1;
                Ok(())
            }
            Some(_) => Err(self.peek_fault(code::EXPECTED_COLON)),
            None => Err(self.peek_fault(code::EOF_OBJECT)),
        }
    }

    /// Consumes an opening bracket, one level deeper.
    fn open_container(&mut self, bracket: u8) -> Result<(), Fault> {
        let depth = self.open.len() + 1;
        if depth > self.limit {
            return Err(Fault {
                kind: ErrorKind::TooDeep,
                message: format!("nested deeper than {} levels", self.limit),
                index: self.at + 1,
            });
        }
        if depth == self.keep + 1 {
            self.region_start = self.at;
        }
        self.depth = self.depth.max(depth);
        self.open.push(bracket);
        self.at += 1;
        Ok(())
    }

    /// Consumes the closing bracket of the innermost open container; a complete value.
    fn close_container(&mut self) -> Next {
        self.at += 1;
        if self.open.len() == self.keep + 1 {
            self.regions.push((self.region_start, self.at));
        }
        self.open.pop();
        Next::End
    }

    /// A string (at its opening quote). Text and the one-letter escapes are checked here;
    /// a string with a `\u` or another escape, a control character or no end is handed
    /// to serde_json, which reports its first error exactly as it would in the whole text.
    fn string(&mut self) -> Result<(), Fault> {
        let start = self.at;
        self.at += 1;
        let mut plain = true;
        let closed = loop {
            let rest = self.bytes.get(self.at..).unwrap_or_default();
            match rest
                .iter()
                .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
            {
                None => {
                    self.at = self.bytes.len();
                    break false;
                }
                Some(skip) => self.at += skip,
            }
            let len = match (self.peek(), self.bytes.get(self.at + 1)) {
                (Some(b'"'), _) => {
                    self.at += 1;
                    break true;
                }
                (Some(b'\\'), Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't')) => {
                    self.at += 2;
                    continue;
                }
                // serde_json reads the byte after `\` and, after `\u`, four more,
                // whatever they are (quotes included).
                (Some(b'\\'), Some(b'u')) => 6,
                (Some(b'\\'), _) => 2,
                _ => 1,
            };
            self.at = (self.at + len).min(self.bytes.len());
            plain = false;
        };
        if plain && closed {
            return Ok(());
        }
        let token = self.text.get(start..self.at).unwrap_or_default();
        match serde_json::from_str::<String>(token) {
            Err(e) => Err(Fault::delegated(&e, token, start)),
            Ok(_) if closed => Ok(()),
            Ok(_) => Err(self.fault(code::EOF_STRING)),
        }
    }

    /// `null`, `true` or `false` (at its first letter; `rest` is the others).
    fn literal(&mut self, rest: &[u8]) -> Result<(), Fault> {
        self.at += 1;
        for &expected in rest {
            let Some(b) = self.peek() else {
                return Err(self.fault(code::EOF_VALUE));
            };
            self.at += 1;
            if b != expected {
                return Err(self.fault(code::EXPECTED_IDENT));
            }
        }
        Ok(())
    }

    /// A number: serde_json's grammar checked here, its range (a finite `f64`) by
    /// serde_json itself when the number could exceed it.
    /// A number, by JSON's grammar only: with serde_json's `arbitrary_precision` a number
    /// keeps its text, so none is out of range (`1e400` is read, and kept with its digits).
    fn number(&mut self) -> Result<(), Fault> {
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        match self.bump() {
            None => return Err(self.fault(code::EOF_VALUE)),
            Some(b'0') if self.peek_digit() => return Err(self.peek_fault(code::INVALID_NUMBER)),
            Some(b'0') => {}
            Some(b'1'..=b'9') => self.digits(),
            Some(_) => return Err(self.fault(code::INVALID_NUMBER)),
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            match self.peek() {
                None => return Err(self.peek_fault(code::EOF_VALUE)),
                Some(_) if !self.peek_digit() => return Err(self.peek_fault(code::INVALID_NUMBER)),
                Some(_) => self.digits(),
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.at += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.at += 1;
            }
            match self.bump() {
                None => return Err(self.fault(code::EOF_VALUE)),
                Some(b'0'..=b'9') => self.digits(),
                Some(_) => return Err(self.fault(code::INVALID_NUMBER)),
            }
        }
        Ok(())
    }

    fn digits(&mut self) {
        while self.peek_digit() {
            self.at += 1;
        }
    }

    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.peek() {
            self.at += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn peek_digit(&self) -> bool {
        self.peek().is_some_and(|b| b.is_ascii_digit())
    }

    /// Consumes the next byte.
    fn bump(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.at += 1;
        Some(b)
    }

    /// An error at the last consumed byte (serde_json's `error`).
    fn fault(&self, message: &str) -> Fault {
        Fault {
            kind: ErrorKind::Syntax,
            message: message.to_owned(),
            index: self.at,
        }
    }

    /// An error at the next byte (serde_json's `peek_error`).
    fn peek_fault(&self, message: &str) -> Fault {
        Fault {
            kind: ErrorKind::Syntax,
            message: message.to_owned(),
            index: (self.at + 1).min(self.bytes.len()),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::{Value, json};

    use super::*;
    use crate::trace::in_record;

    /// Runs `f` on a thread with a 2 MiB stack, so a recursion on input data shows up as a
    /// crash instead of hiding behind a large main-thread stack.
    fn on_small_stack(f: impl FnOnce() + Send + 'static) {
        let thread = std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(f)
            .unwrap();
        if let Err(panic) = thread.join() {
            std::panic::resume_unwind(panic);
        }
    }

    /// `depth` nested arrays around `inner` (which adds its own depth).
    fn arrays_around(depth: usize, inner: &str) -> String {
        format!("{}{inner}{}", "[".repeat(depth), "]".repeat(depth))
    }

    /// Arrays `depth` deep: `[[…[]…]]`.
    fn arrays(depth: usize) -> String {
        arrays_around(depth, "")
    }

    /// Objects `depth` deep: `{"a":{"a":…{}…}}`.
    fn objects(depth: usize) -> String {
        objects_around(depth - 1, "{}")
    }

    fn objects_around(depth: usize, inner: &str) -> String {
        format!("{}{inner}{}", r#"{"a":"#.repeat(depth), "}".repeat(depth))
    }

    /// Alternating arrays and objects `depth` deep: `[{"a":[{"a":…}]}]`.
    fn mixed(depth: usize) -> String {
        let (mut open, mut close) = (String::new(), Vec::new());
        for level in 0..depth {
            let (o, c) = if level.is_multiple_of(2) {
                ("[", "]")
            } else {
                (r#"{"a":"#, "}")
            };
            open.push_str(o);
            close.push(c);
        }
        close.reverse();
        let close = close.concat();
        // The innermost container is empty: `[]` or `{}`.
        let innermost = open.rfind(['[', '{']).unwrap();
        open.truncate(innermost + 1);
        format!("{open}{close}")
    }

    /// The depth of a (shallow) value: a top-level container is 1.
    fn depth_of(v: &Value) -> usize {
        match v {
            Value::Array(a) => 1 + a.iter().map(depth_of).max().unwrap_or(0),
            Value::Object(o) => 1 + o.values().map(depth_of).max().unwrap_or(0),
            _ => 0,
        }
    }

    /// `v` with every container deeper than `keep` replaced by `null`.
    fn pruned(v: &Value, keep: usize) -> Value {
        match v {
            Value::Array(_) | Value::Object(_) if keep == 0 => Value::Null,
            Value::Array(a) => a.iter().map(|x| pruned(x, keep - 1)).collect(),
            Value::Object(o) => Value::Object(
                o.iter()
                    .map(|(k, x)| (k.clone(), pruned(x, keep - 1)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    fn value(text: &str) -> Result<Parsed<Value>, JsonError> {
        parse::<Value>(text)
    }

    /// Shallow documents, valid and not, that between them reach every branch of the
    /// grammar (each is also mutated below).
    const SEEDS: &[&str] = &[
        r#"{"from":"agent","message":{"a":[1,2.5,-3e2,true,false,null],"b":"x\"y\\z\u00e9\ud83d\ude00"},"at":5}"#,
        r#"[[], {}, [[{}]], {"k": {"k2": [0, -0, 1E+2, 0.5e-3, -12.0E-1]}}]"#,
        "  [ 1 , [ 2 , [ 3 ] ] ]  ",
        r#"{"\u0041":"\/\b\f\n\r\t", "emoji":"😀", "é":[-12345678901234567890123, 1e308, 0.1]}"#,
        "[\n1,\n[2,\n{\"a\"\n:\n\"x\ty\"}],\r\n\"\\\"]]]\"]",
        r#"["\"]]]", "[\\", "{\"}"]"#,
        "\"just a string\"",
        "-0.5",
        "true",
    ];

    /// Documents each exercising one error (or one edge that is not an error).
    const EDGES: &[&str] = &[
        "",
        "   ",
        "1e400",
        "[1e400]",
        "[-1e99999999999]",
        "[1E309, 1]",
        "[1e-400]",
        "[0e99999999999]",
        "[123456789012345678901234567890]",
        r#"["\ud800"]"#,
        r#"["\udc00"]"#,
        r#"["\ud800\u0041"]"#,
        r#"["\ud800\"]"#,
        r#"["\ud800\ud800"]"#,
        r#"["\ud83d\ude00"]"#,
        r#"{"\ud800":1}"#,
        r#"{"\x":1}"#,
        r#"["\x"]"#,
        r#"["\u12G4"]"#,
        r#"["\u12"#,
        r#"["abc\"#,
        "[\"\u{1}\"]",
        "[\"a\nb\"]",
        "[01]",
        "[1.]",
        "[1.e3]",
        "[.5]",
        "[1e]",
        "[1e+]",
        "[-]",
        "[-x]",
        "[--1]",
        "[+1]",
        "[tru]",
        "[nul",
        "[nulll]",
        "[1,]",
        "[1,,2]",
        "[,1]",
        r#"{"a":1,}"#,
        r#"{"a" 1}"#,
        r#"{"a":}"#,
        "{1:2}",
        r#"{"a":1 "b":2}"#,
        r#"{"a":1,2}"#,
        "[1 2]",
        "]",
        "[1]]",
        "[1] x",
        "{\"a\":[}",
        "[}",
        "[\n  [1,\n 2,]\n]",
        "\u{feff}[1]",
    ];

    /// Every document of the differential tests: the seeds and edges, and each seed
    /// truncated, with one character deleted, replaced or inserted.
    fn corpus() -> Vec<String> {
        const BYTES: &[char] = &[
            '"', '\\', ',', ':', '[', ']', '{', '}', '0', '1', '-', '+', '.', 'e', 'u', 'x', 'n',
            ' ', '\n', '\u{1}',
        ];
        let mut docs: Vec<String> = SEEDS.iter().chain(EDGES).map(|s| s.to_string()).collect();
        for seed in SEEDS {
            let cuts = seed.char_indices().map(|(i, _)| i).chain([seed.len()]);
            for i in cuts {
                let (head, tail) = seed.split_at(i);
                docs.push(head.to_owned());
                let rest = tail.chars().skip(1).collect::<String>();
                docs.push(format!("{head}{rest}"));
                for c in BYTES {
                    docs.push(format!("{head}{c}{rest}"));
                    docs.push(format!("{head}{c}{tail}"));
                }
            }
        }
        docs
    }

    #[test]
    fn fast_path_is_serde_json_on_shallow_documents() {
        for doc in corpus() {
            match (value(&doc), serde_json::from_str::<Value>(&doc)) {
                (Ok(ours), Ok(theirs)) => {
                    assert_eq!(
                        ours,
                        Parsed {
                            value: theirs,
                            pruned: None
                        },
                        "{doc:?}"
                    );
                }
                (Err(ours), Err(theirs)) => {
                    assert_eq!(ours, JsonError::from_serde(&theirs), "{doc:?}");
                    assert_eq!(ours.to_string(), in_record(&theirs), "{doc:?}");
                    assert_eq!(ours.kind, ErrorKind::Syntax, "{doc:?}");
                }
                (ours, theirs) => panic!("{doc:?}: {ours:?} vs {theirs:?}"),
            }
        }
    }

    #[test]
    fn slow_path_matches_serde_json_at_every_kept_depth() {
        let docs = corpus();
        for keep in 0..=3 {
            for doc in &docs {
                let ours = parse_pruned::<Value>(doc, keep, MAX_DEPTH);
                match (ours, serde_json::from_str::<Value>(doc)) {
                    (Ok(ours), Ok(theirs)) => {
                        assert_eq!(ours.value, pruned(&theirs, keep), "{keep} {doc:?}");
                        let depth = depth_of(&theirs);
                        let expected = (depth > keep).then_some(depth);
                        assert_eq!(ours.pruned.map(|p| p.depth), expected, "{keep} {doc:?}");
                    }
                    (Err(ours), Err(theirs)) => {
                        assert_eq!(ours.to_string(), in_record(&theirs), "{keep} {doc:?}");
                        assert_eq!(ours, JsonError::from_serde(&theirs), "{keep} {doc:?}");
                    }
                    (ours, theirs) => panic!("{keep} {doc:?}: {ours:?} vs {theirs:?}"),
                }
            }
        }
    }

    #[test]
    fn depth_127_is_parsed_by_serde_json_unchanged() {
        on_small_stack(|| {
            for doc in [arrays(127), objects(127), mixed(127)] {
                let parsed = value(&doc).unwrap();
                assert_eq!(parsed.pruned, None);
                assert_eq!(depth_of(&parsed.value), 127);
                assert_eq!(parsed.value, serde_json::from_str::<Value>(&doc).unwrap());
            }
        });
    }

    #[test]
    fn depth_128_to_max_depth_is_kept_to_keep_depth() {
        on_small_stack(|| {
            let kept_arrays: Value = serde_json::from_str(&arrays_around(100, "null")).unwrap();
            let kept_objects: Value = serde_json::from_str(&objects_around(100, "null")).unwrap();
            for depth in [128, 129, 1_000, 10_000, MAX_DEPTH] {
                let parsed = value(&arrays(depth)).unwrap();
                assert_eq!(parsed.value, kept_arrays, "{depth}");
                let note = Pruned {
                    depth,
                    kept: KEEP_DEPTH,
                    values: 1,
                    line: 1,
                    column: 101,
                };
                assert_eq!(parsed.pruned, Some(note), "{depth}");

                let parsed = value(&objects(depth)).unwrap();
                assert_eq!(parsed.value, kept_objects, "{depth}");
                let note = Pruned {
                    column: 5 * 100 + 1,
                    ..note
                };
                assert_eq!(parsed.pruned, Some(note), "{depth}");
            }
        });
    }

    #[test]
    fn mixed_arrays_and_objects_are_kept_to_keep_depth() {
        on_small_stack(|| {
            for depth in [128, 10_000] {
                let parsed = value(&mixed(depth)).unwrap();
                assert_eq!(depth_of(&parsed.value), KEEP_DEPTH, "{depth}");
                assert_eq!(parsed.pruned.map(|p| (p.depth, p.values)), Some((depth, 1)));
                // 50 `[` and 50 `{"a":` before the 101st container.
                assert_eq!(parsed.pruned.map(|p| p.column), Some(50 + 50 * 5 + 1));
                let mut inner = &parsed.value;
                for _ in 0..KEEP_DEPTH {
                    inner = inner.get(0).or_else(|| inner.get("a")).unwrap();
                }
                assert_eq!(inner, &Value::Null);
            }
        });
    }

    #[test]
    fn deeper_than_max_depth_is_an_error_where_the_limit_is_crossed() {
        on_small_stack(|| {
            let too_deep = |column| JsonError {
                kind: ErrorKind::TooDeep,
                message: "nested deeper than 65536 levels".into(),
                line: 1,
                column,
            };
            for depth in [MAX_DEPTH + 1, 100_000] {
                assert_eq!(value(&arrays(depth)), Err(too_deep(MAX_DEPTH + 1)));
                assert_eq!(value(&objects(depth)), Err(too_deep(5 * MAX_DEPTH + 1)));
                assert_eq!(value(&mixed(depth)), Err(too_deep(3 * MAX_DEPTH + 1)));
            }
            // Crossing the limit is reported before a later syntax error.
            let doc = format!("{},]", arrays(100_000));
            assert_eq!(value(&doc), Err(too_deep(MAX_DEPTH + 1)));
            assert_eq!(
                too_deep(7).to_string(),
                "nested deeper than 65536 levels at column 7"
            );
        });
    }

    #[test]
    fn strings_with_brackets_and_escaped_quotes_at_every_depth() {
        // `"\"]]]"` is `"]]]`, `"[\\"` is `[\`, `"\"}}}"` is `"}}}`: each looks like
        // closing or opening brackets to a scanner that is not string-aware.
        let level = |i: usize, depth: usize| {
            if i.is_multiple_of(2) {
                (r#"["\"]]]", "#.to_owned(), r#", "[\\"]"#.to_owned())
            } else {
                let key = if i + 1 == depth {
                    r#""\"}}}""#
                } else {
                    r#""k""#
                };
                (
                    format!(r#"{{"\"}}}}}}": "{{\\", {key}: "#),
                    r#", "x": "\\\\"}"#.to_owned(),
                )
            }
        };
        on_small_stack(move || {
            for depth in [127, 128, 1_000, 10_000] {
                let (mut open, mut close) = (String::new(), Vec::new());
                for i in 0..depth {
                    let (o, c) = level(i, depth);
                    open.push_str(&o);
                    close.push(c);
                }
                close.reverse();
                let doc = format!("{open}0{}", close.concat());
                let parsed = value(&doc).unwrap();
                let expected = (depth >= SERDE_LIMIT).then_some(depth);
                assert_eq!(parsed.pruned.map(|p| p.depth), expected, "{depth}");
                assert_eq!(parsed.value[0], "\"]]]", "{depth}");
                assert_eq!(parsed.value[1]["\"}}}"], "{\\", "{depth}");
                assert_eq!(parsed.value[1]["x"], "\\\\", "{depth}");
                assert_eq!(parsed.value[2], "[\\", "{depth}");
            }
        });
    }

    #[test]
    fn a_syntax_error_in_a_pruned_subtree_rejects_the_record() {
        // Each fragment's error, 9,999 levels down, is serde_json's error for the fragment
        // alone, 9,999 columns further right.
        let fragments = [
            "[1,]",
            "[tru]",
            "[1 2]",
            "[1}",
            "[}",
            r#"["\"]]]\x"]"#,
            r#"["\ud800"]"#,
            "[\"\u{1}\"]",
            "[01]",
            "[-]",
            r#"{"a" 1}"#,
            r#"{"a":1,}"#,
            "{1:2}",
        ];
        on_small_stack(move || {
            let n = 9_999;
            for fragment in fragments {
                let theirs = serde_json::from_str::<Value>(fragment).unwrap_err();
                let ours = value(&arrays_around(n, fragment)).unwrap_err();
                assert_eq!(ours.kind, ErrorKind::Syntax, "{fragment}");
                assert_eq!(ours.message, message_of(&theirs), "{fragment}");
                assert_eq!(
                    (ours.line, ours.column),
                    (1, theirs.column() + n),
                    "{fragment}"
                );
            }
            let unterminated = arrays_around(n, r#"["abc"#);
            let ours = value(&unterminated).unwrap_err();
            assert_eq!(ours.message, "EOF while parsing a string");
            assert_eq!(ours.column, unterminated.len());
            let unclosed = "[".repeat(n);
            assert_eq!(
                value(&unclosed).unwrap_err().to_string(),
                format!("EOF while parsing a list at column {n}")
            );
        });
    }

    #[derive(Debug, PartialEq, Deserialize)]
    struct Record {
        from: String,
        message: Value,
        at: Option<u64>,
    }

    #[test]
    fn shallow_fields_of_a_deep_record_are_kept_exactly() {
        on_small_stack(|| {
            let head = r#"{"from":"agent","message":{"deep":"#;
            let text = format!(r#"{head}{},"keep":1}},"at":5}}"#, arrays(10_000));
            let parsed = parse::<Record>(&text).unwrap();
            assert_eq!(parsed.value.from, "agent");
            assert_eq!(parsed.value.message["keep"], 1);
            assert_eq!(parsed.value.at, Some(5));
            let deep: Value = serde_json::from_str(&arrays_around(98, "null")).unwrap();
            assert_eq!(parsed.value.message["deep"], deep);
            let note = Pruned {
                depth: 10_002,
                kept: 100,
                values: 1,
                line: 1,
                column: head.len() + 98 + 1,
            };
            assert_eq!(parsed.pruned, Some(note));
            assert_eq!(
                note.to_string(),
                "values nested deeper than 100 levels were not kept (record depth 10002)"
            );
            // The same as `Value`.
            let parsed = value(&text).unwrap();
            assert_eq!(parsed.value["message"]["keep"], 1);
            assert_eq!(parsed.value["at"], 5);
            assert_eq!(parsed.pruned, Some(note));
        });
    }

    #[test]
    fn several_pruned_subtrees_are_counted_and_shape_errors_located_after_them() {
        on_small_stack(|| {
            let deep = arrays(200);
            let text = format!(r#"{{"from":"a","message":[{deep},{deep}],"at":{deep}}}"#);
            let parsed = value(&text).unwrap();
            assert_eq!(parsed.pruned.map(|p| (p.depth, p.values)), Some((202, 3)));
            // A shape error after pruned subtrees is located in the original text: the
            // same column as in a shallow text of the same length.
            let text = format!(r#"{{"from":"a","message":{deep},"at":"x"}}"#);
            let shallow = format!(r#"{{"from":"a","message":"{}","at":"x"}}"#, "-".repeat(398));
            let theirs = serde_json::from_str::<Record>(&shallow).unwrap_err();
            let ours = parse::<Record>(&text).unwrap_err();
            assert_eq!(
                ours,
                JsonError {
                    kind: ErrorKind::Shape,
                    ..JsonError::from_serde(&theirs)
                }
            );
            assert!(
                ours.message.starts_with("invalid type: string \"x\""),
                "{ours}"
            );
            // A shape error at a `null` that replaced a subtree points into that subtree
            // (here at its last byte, where serde_json puts the end of the `null`).
            let ours = parse_pruned::<Record>(r#"{"from":["x"],"message":1}"#, 1, MAX_DEPTH);
            let expected = JsonError {
                kind: ErrorKind::Shape,
                message: "invalid type: null, expected a string".into(),
                line: 1,
                column: 13,
            };
            assert_eq!(ours, Err(expected));
            // serde_json points at the first byte of a `null` an enum cannot start with:
            // the opening bracket it replaced, as on the unpruned text.
            #[derive(Debug, Deserialize)]
            #[allow(dead_code)]
            struct Tagged {
                e: Unit,
            }
            #[derive(Debug, Deserialize)]
            enum Unit {
                A,
            }
            let text = r#"{"e": ["A"]}"#;
            let theirs = serde_json::from_str::<Tagged>(text).unwrap_err();
            let ours = parse_pruned::<Tagged>(text, 1, MAX_DEPTH).unwrap_err();
            assert_eq!((ours.line, ours.column), (1, 7));
            assert_eq!(ours, JsonError::from_serde(&theirs));
        });
    }

    #[test]
    fn recursion_limit_is_recognised_and_nothing_else_is() {
        let deep = serde_json::from_str::<Value>(&arrays(SERDE_LIMIT)).unwrap_err();
        assert!(is_recursion_limit(&deep), "{deep}");
        let deep = serde_json::from_str::<Record>(&format!(
            r#"{{"from":"a","message":{}}}"#,
            objects(200)
        ))
        .unwrap_err();
        assert!(is_recursion_limit(&deep), "{deep}");
        assert!(serde_json::from_str::<Value>(&arrays(SERDE_LIMIT - 1)).is_ok());
        let custom = <serde_json::Error as serde::de::Error>::custom(code::RECURSION_LIMIT);
        assert!(!is_recursion_limit(&custom));
        let syntax = serde_json::from_str::<Value>("[1,]").unwrap_err();
        assert!(!is_recursion_limit(&syntax));
        let in_a_string = serde_json::from_str::<u8>(r#""recursion limit exceeded""#).unwrap_err();
        assert!(!is_recursion_limit(&in_a_string));
    }

    #[test]
    fn byte_order_mark_is_stripped_once_and_only_at_the_start() {
        assert_eq!(strip_bom("\u{feff}{\"a\":1}"), "{\"a\":1}");
        assert_eq!(strip_bom("{\"a\":1}"), "{\"a\":1}");
        assert_eq!(strip_bom("\u{feff}\u{feff}1"), "\u{feff}1");
        assert_eq!(strip_bom("1\u{feff}"), "1\u{feff}");
        assert_eq!(strip_bom(""), "");
        let line = "\u{feff}{\"at\":5}";
        assert_eq!(
            value(line).unwrap_err().to_string(),
            "expected value at column 1"
        );
        assert_eq!(value(strip_bom(line)).unwrap().value, json!({"at": 5}));
    }

    #[test]
    fn positions_round_trip() {
        let text = "ab\ncd\n\nef";
        for index in 0..=text.len() {
            let (line, column) = position_of(text, index);
            assert_eq!(index_of(text, line, column), index, "{index}");
        }
        assert_eq!(position_of(text, 4), (2, 1));
        assert_eq!(position_of("", 0), (1, 0));
    }
}
