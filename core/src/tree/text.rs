//! Message text: the chunks of a streamed message as they arrived.
//!
//! Owns: [`MessageText`], a persistent list of `Arc<str>` chunks, so appending a delta
//! costs the delta (plus an O(log n) path copy) and a snapshot taken before the append
//! keeps its own, shorter text while sharing every chunk with the new one.
//! Never: joins chunks except when asked for the whole text ([`MessageText::to_text`],
//! `Display`, `Serialize`), which is what a renderer does once per message.

use std::fmt;
use std::sync::Arc;

use imbl::Vector;
use serde::{Serialize, Serializer};

/// Chunks up to this many bytes are joined with the next delta instead of followed by it.
pub(crate) const SMALL_CHUNK: usize = 256;

/// A message's text, as the chunks (deltas) it arrived in.
///
/// ```
/// use lineage_core::tree::MessageText;
/// let mut text = MessageText::new("Hello");
/// let before = text.clone();
/// text.push(", world");
/// assert_eq!(text.to_text(), "Hello, world");
/// assert_eq!(before.to_text(), "Hello"); // the earlier value is unchanged
/// assert_eq!(text, MessageText::new("Hello, world")); // equal by content
/// ```
#[derive(Clone, Default)]
pub struct MessageText {
    chunks: Vector<Arc<str>>,
    len: usize,
}

impl MessageText {
    /// A text of one chunk.
    pub fn new(text: &str) -> Self {
        let mut t = Self::default();
        t.push(text);
        t
    }

    /// Appends a chunk (an empty one adds nothing). A small last chunk is replaced by
    /// itself and the new one joined (at most `SMALL_CHUNK` bytes copied), so a stream
    /// of tiny deltas does not cost a list entry each; earlier values keep the old chunk.
    pub fn push(&mut self, chunk: &str) {
        if chunk.is_empty() {
            return;
        }
        self.len += chunk.len();
        if let Some(last) = self.chunks.back_mut()
            && last.len() + chunk.len() <= SMALL_CHUNK
        {
            let mut joined = String::with_capacity(last.len() + chunk.len());
            joined.push_str(last);
            joined.push_str(chunk);
            *last = Arc::from(joined);
            return;
        }
        self.chunks.push_back(Arc::from(chunk));
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// No text at all.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The chunks, in order.
    pub fn chunks(&self) -> impl Iterator<Item = &str> + '_ {
        self.chunks.iter().map(|c| &**c)
    }

    /// The whole text, joined (for rendering).
    pub fn to_text(&self) -> String {
        let mut s = String::with_capacity(self.len);
        for chunk in self.chunks() {
            s.push_str(chunk);
        }
        s
    }

    /// The bytes in order, across chunk boundaries.
    fn bytes(&self) -> impl Iterator<Item = u8> + '_ {
        self.chunks().flat_map(str::bytes)
    }
}

impl PartialEq for MessageText {
    /// Equal texts, however they were chunked.
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.bytes().eq(other.bytes())
    }
}

impl Eq for MessageText {}

impl PartialEq<str> for MessageText {
    fn eq(&self, other: &str) -> bool {
        self.len == other.len() && self.bytes().eq(other.bytes())
    }
}

impl PartialEq<&str> for MessageText {
    fn eq(&self, other: &&str) -> bool {
        *self == **other
    }
}

impl fmt::Display for MessageText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.chunks().try_for_each(|c| f.write_str(c))
    }
}

impl fmt::Debug for MessageText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.to_text(), f)
    }
}

impl Serialize for MessageText {
    /// One JSON string, the whole text.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_append_keeps_the_chunks_already_there_and_the_earlier_value() {
        let long = "x".repeat(SMALL_CHUNK);
        let mut text = MessageText::new(&long);
        let first = text.chunks.front().cloned();
        let before = text.clone();
        text.push("two");
        // The earlier chunk is the same allocation: nothing already there was copied.
        assert!(matches!(
            (first, text.chunks.front()),
            (Some(a), Some(b)) if Arc::ptr_eq(&a, b)
        ));
        assert_eq!(text.chunks().collect::<Vec<_>>(), [long.as_str(), "two"]);
        assert_eq!(before, long.as_str());
        assert_eq!(text.len(), SMALL_CHUNK + 3);
        assert_eq!(text.to_text(), format!("{long}two"));
    }

    #[test]
    fn tiny_deltas_are_joined_into_small_chunks_and_earlier_values_keep_theirs() {
        let mut text = MessageText::new("one ");
        let before = text.clone();
        text.push("two");
        assert_eq!(text.chunks().collect::<Vec<_>>(), ["one two"]);
        assert_eq!(before.chunks().collect::<Vec<_>>(), ["one "]);
        assert_eq!(serde_json::to_string(&text).unwrap(), r#""one two""#);
    }

    #[test]
    fn equality_is_by_content_not_by_chunking() {
        let mut a = MessageText::new("ab");
        a.push("c");
        let mut b = MessageText::new("a");
        b.push("bc");
        assert_eq!(a, b);
        assert_ne!(a, MessageText::new("abd"));
        assert!(MessageText::new("").is_empty());
    }
}
