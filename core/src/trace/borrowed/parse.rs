//! The parser of [`Json`]: one JSON text read into a value borrowed from it, without
//! recursion and without serde.
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

use super::Json;

/// The deepest nesting of arrays and objects read here: serde_json refuses the 128th.
pub(crate) const MAX_NESTING: usize = 127;

/// Parses `text` as one JSON value (whitespace around it allowed), or `None`.
pub(crate) fn parse(text: &str) -> Option<Json<'_>> {
    let mut p = Parser { text, at: 0 };
    let mut stack: Vec<Open<'_>> = Vec::new();
    loop {
        let mut done = match p.value_start()? {
            Start::Value(value) => value,
            // A container, empty or not, is one level deeper.
            _ if stack.len() >= MAX_NESTING => return None,
            Start::Array if p.eat_ws_then(b']') => Json::Array(Vec::new()),
            Start::Object if p.eat_ws_then(b'}') => Json::Object(Vec::new()),
            start => {
                stack.push(match start {
                    Start::Array => Open::Array(Vec::with_capacity(4)),
                    _ => Open::Object(Vec::with_capacity(8), p.key()?),
                });
                continue;
            }
        };
        // A value is complete: it joins its container, which may complete in turn.
        loop {
            let Some(open) = stack.last_mut() else {
                p.skip_ws();
                return (p.at == text.len()).then_some(done);
            };
            let close = match open {
                Open::Array(items) => {
                    items.push(done);
                    b']'
                }
                Open::Object(members, key) => {
                    members.push((std::mem::take(key), done));
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
                        Open::Array(items) => Json::Array(items),
                        Open::Object(members, _) => Json::Object(members),
                    };
                }
                _ => return None,
            }
        }
    }
}

/// A container being read: its items, or its members and the key of the next value.
enum Open<'a> {
    Array(Vec<Json<'a>>),
    Object(Vec<(Cow<'a, str>, Json<'a>)>, Cow<'a, str>),
}

/// What a value starts with: a whole scalar, or the opening of a container.
enum Start<'a> {
    Value(Json<'a>),
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

    fn value_start(&mut self) -> Option<Start<'a>> {
        self.skip_ws();
        Some(Start::Value(match self.bump()? {
            b'[' => return Some(Start::Array),
            b'{' => return Some(Start::Object),
            b'"' => Json::Str(self.string()?),
            b't' => self.literal("rue", Json::Bool(true))?,
            b'f' => self.literal("alse", Json::Bool(false))?,
            b'n' => self.literal("ull", Json::Null)?,
            b'-' | b'0'..=b'9' => Json::Number(self.number()?),
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

    fn literal(&mut self, rest: &str, value: Json<'a>) -> Option<Json<'a>> {
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
        let bytes = self.text.as_bytes();
        let mut owned: Option<String> = None;
        let mut run = self.at;
        loop {
            while let Some(&b) = bytes.get(self.at) {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.at += 1;
            }
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
