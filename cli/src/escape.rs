//! Text from a trace or a path made safe for a terminal.
//!
//! Owns: which characters a trace may not send to people (Unicode `Cc`: C0, DEL, C1),
//! and their escapes. Never: prints.

use std::borrow::Cow;

/// `text` with every control character (Unicode `Cc`: C0, DEL, C1) but those in `keep`
/// written as its Rust escape (`\u{1b}`, `\t`, `\r`, …).
pub fn escape_controls<'a>(text: &'a str, keep: &[char]) -> Cow<'a, str> {
    let hostile = |c: char| c.is_control() && !keep.contains(&c);
    if !text.chars().any(hostile) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if hostile(c) {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}
