//! lineage's JSON parser: one JSON text read, without recursion and without serde, into
//! a [`Json`] borrowed from it, straight into a `serde_json::Value`, or into nothing
//! ([`Skipped`], a value only checked) ([`Build`]), whole
//! ([`parse_as`]) or member by member ([`Cursor`], for a record's envelope).
//!
//! Owns: the JSON grammar (RFC 8259) as serde_json applies it: the same whitespace, the
//! same escapes (a `\u` surrogate pair joined, a lone surrogate refused), no control
//! character inside a string, no leading zero, nothing after the value, and containers
//! nested at most [`MAX_NESTING`] deep (serde_json's recursion limit).
//! Never: accepts a text serde_json refuses or reads one differently. Anything it does
//! not accept is `None`, and the caller reads the text through serde_json, which reports
//! it. The one difference is the point of it: a number is kept as written, where
//! serde_json respells an exponent (`1E5` as `1e+5`).

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::Json;

/// The deepest nesting of arrays and objects read here: serde_json refuses the 128th.
pub(crate) const MAX_NESTING: usize = 127;

/// What the parser builds: a [`Json`] borrowed from the text, or a `serde_json::Value`
/// straight away (no borrowed tree built and then converted).
pub(crate) trait Build<'a>: Sized {
    /// An array's items as they are read.
    type Items;
    /// An object's members as they are read.
    type Members;
    fn null() -> Self;
    fn bool(b: bool) -> Self;
    /// A number, its text as written (its grammar checked).
    fn number(text: &'a str) -> Self;
    fn string(text: Cow<'a, str>) -> Self;
    fn items() -> Self::Items;
    fn push_item(items: &mut Self::Items, item: Self);
    fn array(items: Self::Items) -> Self;
    fn members() -> Self::Members;
    /// Adds a member; a repeated key is read as a `Value` map reads it.
    fn push_member(members: &mut Self::Members, key: Cow<'a, str>, value: Self);
    fn object(members: Self::Members) -> Self;
}

impl<'a> Build<'a> for Json<'a> {
    type Items = Vec<Json<'a>>;
    type Members = Vec<(Cow<'a, str>, Json<'a>)>;
    fn null() -> Self {
        Json::Null
    }
    fn bool(b: bool) -> Self {
        Json::Bool(b)
    }
    fn number(text: &'a str) -> Self {
        Json::Number(text)
    }
    fn string(text: Cow<'a, str>) -> Self {
        Json::Str(text)
    }
    fn items() -> Self::Items {
        Vec::with_capacity(4)
    }
    fn push_item(items: &mut Self::Items, item: Self) {
        items.push(item);
    }
    fn array(items: Self::Items) -> Self {
        Json::Array(items)
    }
    fn members() -> Self::Members {
        // The objects of the providers' messages have up to about a dozen members: one
        // allocation each (the tree lives only while its record is read).
        Vec::with_capacity(16)
    }
    fn push_member(members: &mut Self::Members, key: Cow<'a, str>, value: Self) {
        members.push((key, value));
    }
    fn object(members: Self::Members) -> Self {
        Json::Object(super::Object(members))
    }
}

impl<'a> Build<'a> for Value {
    type Items = Vec<Value>;
    type Members = Map<String, Value>;
    fn null() -> Self {
        Value::Null
    }
    fn bool(b: bool) -> Self {
        Value::Bool(b)
    }
    fn number(text: &'a str) -> Self {
        Value::Number(super::number(text))
    }
    fn string(text: Cow<'a, str>) -> Self {
        Value::String(text.into_owned())
    }
    fn items() -> Self::Items {
        Vec::new()
    }
    fn push_item(items: &mut Self::Items, item: Self) {
        items.push(item);
    }
    fn array(items: Self::Items) -> Self {
        Value::Array(items)
    }
    fn members() -> Self::Members {
        Map::new()
    }
    fn push_member(members: &mut Self::Members, key: Cow<'a, str>, value: Self) {
        members.insert(key.into_owned(), value);
    }
    fn object(members: Self::Members) -> Self {
        Value::Object(members)
    }
}

/// A value read and checked, not built: a member no reader wants.
pub(crate) struct Skipped;

impl<'a> Build<'a> for Skipped {
    type Items = ();
    type Members = ();
    fn null() -> Self {
        Skipped
    }
    fn bool(_: bool) -> Self {
        Skipped
    }
    fn number(_: &'a str) -> Self {
        Skipped
    }
    fn string(_: Cow<'a, str>) -> Self {
        Skipped
    }
    fn items() -> Self::Items {}
    fn push_item((): &mut Self::Items, _: Self) {}
    fn array((): Self::Items) -> Self {
        Skipped
    }
    fn members() -> Self::Members {}
    fn push_member((): &mut Self::Members, _: Cow<'a, str>, _: Self) {}
    fn object((): Self::Members) -> Self {
        Skipped
    }
}

/// Parses `text` as one JSON value (whitespace around it allowed) built as `T`, or
/// `None`.
pub(crate) fn parse_as<'a, T: Build<'a>>(text: &'a str) -> Option<T> {
    let mut c = Cursor::new(text);
    let value = c.value()?;
    c.end()?;
    Some(value)
}

/// A reader of one JSON text, value by value: an object's members one at a time (so a
/// record's envelope is taken apart without building it), each value built as the
/// caller asks. Nesting counts from the text's top, as serde_json counts it.
pub(crate) struct Cursor<'a> {
    p: Parser<'a>,
    /// The containers open around the next value.
    depth: usize,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Cursor {
            p: Parser { text, at: 0 },
            depth: 0,
        }
    }

    /// Only whitespace is left.
    pub(crate) fn end(mut self) -> Option<()> {
        self.p.skip_ws();
        (self.p.at == self.p.text.len()).then_some(())
    }

    /// Skips whitespace: does the next value start with byte `b`?
    pub(crate) fn next_is(&mut self, b: u8) -> bool {
        self.p.skip_ws();
        self.p.peek() == Some(b)
    }

    /// Reads an object, handing each member's key to `member`, which must read the
    /// member's value from the cursor (or return `None`, which ends the read).
    pub(crate) fn object(
        &mut self,
        mut member: impl FnMut(Cow<'a, str>, &mut Self) -> Option<()>,
    ) -> Option<()> {
        self.p.skip_ws();
        if self.p.bump()? != b'{' || self.depth >= MAX_NESTING {
            return None;
        }
        self.depth += 1;
        if !self.p.eat_ws_then(b'}') {
            loop {
                let key = self.p.key()?;
                member(key, self)?;
                self.p.skip_ws();
                match self.p.bump()? {
                    b',' => continue,
                    b'}' => break,
                    _ => return None,
                }
            }
        }
        self.depth -= 1;
        Some(())
    }

    /// Reads one whole value, built as `T`.
    pub(crate) fn value<T: Build<'a>>(&mut self) -> Option<T> {
        let (p, depth) = (&mut self.p, self.depth);
        let mut stack: Vec<Open<'a, T>> = Vec::new();
        loop {
            let mut done = match p.value_start::<T>()? {
                Start::Value(value) => value,
                // A container, empty or not, is one level deeper.
                _ if depth + stack.len() >= MAX_NESTING => return None,
                Start::Array if p.eat_ws_then(b']') => T::array(T::items()),
                Start::Object if p.eat_ws_then(b'}') => T::object(T::members()),
                start => {
                    stack.push(match start {
                        Start::Array => Open::Array(T::items()),
                        _ => Open::Object(T::members(), p.key()?),
                    });
                    continue;
                }
            };
            // A value is complete: it joins its container, which may complete in turn.
            loop {
                let Some(open) = stack.last_mut() else {
                    return Some(done);
                };
                let close = match open {
                    Open::Array(items) => {
                        T::push_item(items, done);
                        b']'
                    }
                    Open::Object(members, key) => {
                        T::push_member(members, std::mem::take(key), done);
                        b'}'
                    }
                };
                p.skip_ws();
                match p.bump()? {
                    b',' => {
                        if let Open::Object(_, key) = open {
                            *key = p.key()?;
                        }
                        break;
                    }
                    b if b == close => {
                        done = match stack.pop()? {
                            Open::Array(items) => T::array(items),
                            Open::Object(members, _) => T::object(members),
                        };
                    }
                    _ => return None,
                }
            }
        }
    }
}

/// A container being read: its items, or its members and the key of the next value.
enum Open<'a, T: Build<'a>> {
    Array(T::Items),
    Object(T::Members, Cow<'a, str>),
}

/// What a value starts with: a whole scalar, or the opening of a container.
enum Start<T> {
    Value(T),
    Array,
    Object,
}

struct Parser<'a> {
    text: &'a str,
    /// Byte index of the next byte to read (always on a character boundary between
    /// tokens, since every token boundary is an ASCII byte).
    at: usize,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn bump(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.at += 1;
        Some(b)
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\n' | b'\t' | b'\r')) {
            self.at += 1;
        }
    }

    /// Skips whitespace, then eats `b` if it comes next.
    fn eat_ws_then(&mut self, b: u8) -> bool {
        self.skip_ws();
        let next = self.peek() == Some(b);
        self.at += usize::from(next);
        next
    }

    fn value_start<T: Build<'a>>(&mut self) -> Option<Start<T>> {
        self.skip_ws();
        Some(Start::Value(match self.bump()? {
            b'[' => return Some(Start::Array),
            b'{' => return Some(Start::Object),
            b'"' => T::string(self.string()?),
            b't' => self.literal("rue", T::bool(true))?,
            b'f' => self.literal("alse", T::bool(false))?,
            b'n' => self.literal("ull", T::null())?,
            b'-' | b'0'..=b'9' => T::number(self.number()?),
            _ => return None,
        }))
    }

    /// An object key and the colon after it (whitespace before each).
    fn key(&mut self) -> Option<Cow<'a, str>> {
        self.skip_ws();
        if self.bump()? != b'"' {
            return None;
        }
        let key = self.string()?;
        self.skip_ws();
        (self.bump()? == b':').then_some(key)
    }

    fn literal<T>(&mut self, rest: &str, value: T) -> Option<T> {
        let end = self.at + rest.len();
        (self.text.get(self.at..end)? == rest).then(|| {
            self.at = end;
            value
        })
    }

    /// A number's text as written, its grammar checked; the first byte is already read.
    fn number(&mut self) -> Option<&'a str> {
        let start = self.at - 1;
        let first = match self.text.as_bytes().get(start)? {
            b'-' => self.bump()?,
            &b => b,
        };
        match first {
            b'0' if self.peek().is_some_and(|b| b.is_ascii_digit()) => return None,
            b'0'..=b'9' => self.digits(),
            _ => return None,
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            self.one_or_more_digits()?;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.at += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.at += 1;
            }
            self.one_or_more_digits()?;
        }
        self.text.get(start..self.at)
    }

    fn digits(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.at += 1;
        }
    }

    fn one_or_more_digits(&mut self) -> Option<()> {
        let from = self.at;
        self.digits();
        (self.at > from).then_some(())
    }

    /// A string's text, after its opening quote: borrowed unless it has an escape.
    fn string(&mut self) -> Option<Cow<'a, str>> {
        let start = self.at;
        self.skip_plain(self.text.as_bytes());
        if self.peek() == Some(b'"') {
            // Most strings have no escape: no owned text to prepare.
            let plain = self.text.get(start..self.at)?;
            self.at += 1;
            return Some(Cow::Borrowed(plain));
        }
        self.escaped_string(start)
    }

    /// The rest of a string that began at `start` and whose plain text stopped at
    /// something other than its closing quote: an escape (or a byte that refuses it).
    #[cold]
    fn escaped_string(&mut self, start: usize) -> Option<Cow<'a, str>> {
        let bytes = self.text.as_bytes();
        let mut owned: Option<String> = None;
        let mut run = start;
        loop {
            self.skip_plain(bytes);
            let plain = self.text.get(run..self.at)?;
            match self.bump()? {
                b'"' => {
                    return Some(match owned {
                        None => Cow::Borrowed(plain),
                        Some(mut s) => {
                            s.push_str(plain);
                            Cow::Owned(s)
                        }
                    });
                }
                b'\\' => {
                    let s = owned.get_or_insert_with(String::new);
                    s.push_str(plain);
                    s.push(self.escape()?);
                    run = self.at;
                }
                _ => return None,
            }
        }
    }

    /// Moves past the plain text of a string: to its next quote, backslash or control
    /// character. Eight bytes at a time: each test below flags the first such byte among
    /// the eight exactly (a borrow can only flag a byte after it), so the lowest flag is
    /// where the plain text ends. The last few bytes of the text go byte by byte.
    fn skip_plain(&mut self, bytes: &[u8]) {
        const ONES: u64 = u64::from_le_bytes([1; 8]);
        const HIGH: u64 = ONES << 7;
        let has_zero = |x: u64| x.wrapping_sub(ONES) & !x;
        while let Some(chunk) = bytes
            .get(self.at..self.at + 8)
            .and_then(|c| <[u8; 8]>::try_from(c).ok())
        {
            let v = u64::from_le_bytes(chunk);
            let quote = has_zero(v ^ (ONES * u64::from(b'"')));
            let backslash = has_zero(v ^ (ONES * u64::from(b'\\')));
            let control = v.wrapping_sub(ONES * 0x20) & !v;
            let flags = (quote | backslash | control) & HIGH;
            if flags != 0 {
                // Little-endian: the lowest flag is the first byte in the text.
                self.at += (flags.trailing_zeros() / 8) as usize;
                return;
            }
            self.at += 8;
        }
        while let Some(&b) = bytes.get(self.at) {
            if b == b'"' || b == b'\\' || b < 0x20 {
                break;
            }
            self.at += 1;
        }
    }

    /// The character an escape stands for, after its backslash.
    fn escape(&mut self) -> Option<char> {
        Some(match self.bump()? {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => return self.unicode_escape(),
            _ => return None,
        })
    }

    /// `\uXXXX`, joined with a following `\uXXXX` when it is a surrogate pair; a lone
    /// surrogate is refused, as serde_json refuses it.
    fn unicode_escape(&mut self) -> Option<char> {
        let first = self.hex4()?;
        if !(0xD800..0xE000).contains(&first) {
            return char::from_u32(first);
        }
        if first >= 0xDC00 || self.bump()? != b'\\' || self.bump()? != b'u' {
            return None;
        }
        let second = self.hex4()?;
        if !(0xDC00..0xE000).contains(&second) {
            return None;
        }
        char::from_u32(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
    }

    fn hex4(&mut self) -> Option<u32> {
        let digits = self.text.get(self.at..self.at + 4)?;
        if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        self.at += 4;
        u32::from_str_radix(digits, 16).ok()
    }
}
