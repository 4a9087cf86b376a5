//! Trace and span ids derived from lineage's own ids: the same session and turn always
//! give the same ids, in every run and on every machine, so an export is reproducible
//! byte for byte and a span sent live (`record`) is the span a later `convert` writes.
//! A span id hashes the root session id too: backends key spans by span id alone, and
//! two trees may well hold a child with the same id (a provider's tool-call ids are
//! unique within a conversation, not across them).
//! A span id hashes the root session id too: backends key spans by span id alone, and
//! two trees may well hold a child with the same id (a provider's tool-call ids are
//! unique within a conversation, not across them).
//!
//! Owns: one stable hash (FNV-1a, 128 bits, over a domain tag and the id's bytes) and
//! the hex spelling OTLP/JSON uses. Never: randomness, a process-seeded hasher, a clock.

use crate::ids::{CallId, SessionId, TurnId};

const FNV_OFFSET: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
const FNV_PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013b;

/// FNV-1a over `parts`, each followed by a zero byte (so `("ab","c")` and `("a","bc")`
/// differ).
fn fnv1a(parts: &[&str]) -> u128 {
    let mut hash = FNV_OFFSET;
    for part in parts {
        for byte in part.bytes().chain(std::iter::once(0)) {
            hash ^= u128::from(byte);
            hash = hash.wrapping_mul(FNV_PRIME);
        }
    }
    hash
}

/// 32 hex digits; never all zeros (an invalid trace id in OTLP).
fn trace_hex(hash: u128) -> String {
    format!("{:032x}", hash.max(1))
}

/// 16 hex digits of the hash's two halves folded; never all zeros.
fn span_hex(hash: u128) -> String {
    let folded = (hash as u64) ^ ((hash >> 64) as u64);
    format!("{:016x}", folded.max(1))
}

/// The trace of a root session (a session tree) or of an ACP root session.
pub fn trace_id(root: &str) -> String {
    trace_hex(fnv1a(&["lineage.trace", root]))
}

/// The span of a turn of the tree of `root`.
pub fn turn_span(root: &str, turn: &TurnId) -> String {
    let n = turn.ordinal().to_string();
    span_hex(fnv1a(&["lineage.turn", root, turn.session().as_str(), &n]))
}

/// The span of a tool call of a session of the tree of `root`.
pub fn tool_span(root: &str, session: &SessionId, call: &CallId) -> String {
    span_hex(fnv1a(&[
        "lineage.tool",
        root,
        session.as_str(),
        call.as_str(),
    ]))
}

/// The span of an ACP session under `root` (the Client view has sessions, not turns).
pub fn acp_session_span(root: &str, session: &str) -> String {
    span_hex(fnv1a(&["lineage.acp.session", root, session]))
}

/// The span of an ACP tool call of a session under `root`.
pub fn acp_tool_span(root: &str, session: &str, call: &str) -> String {
    span_hex(fnv1a(&["lineage.acp.tool", root, session, call]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_is_fnv1a_128() {
        // The constants give the published FNV-1a 128 vectors: the empty input hashes
        // to the offset basis, "a" to d228cb696f1a8caf78912b704e4a8964 (`fnv1a` adds a
        // separator byte after each part, so the one-byte step is spelled out here).
        assert_eq!(fnv1a(&[]), FNV_OFFSET);
        let mut h = FNV_OFFSET;
        h ^= u128::from(b'a');
        h = h.wrapping_mul(FNV_PRIME);
        assert_eq!(h, 0xd228_cb69_6f1a_8caf_7891_2b70_4e4a_8964);
    }

    #[test]
    fn ids_are_stable_distinct_and_well_formed() {
        let r1 = TurnId::new("R".into(), 1);
        let r2 = TurnId::new("R".into(), 2);
        assert_eq!(
            turn_span("R", &r1),
            turn_span("R", &TurnId::new("R".into(), 1))
        );
        assert_ne!(turn_span("R", &r1), turn_span("R", &r2));
        // The same child id in two trees gives two spans.
        let a = TurnId::new("A".into(), 1);
        assert_ne!(turn_span("R", &a), turn_span("S", &a));
        assert_ne!(trace_id("R"), trace_id("S"));
        let call = tool_span("R", &"R".into(), &"c".into());
        assert_ne!(call, acp_tool_span("R", "R", "c"));
        assert_eq!(trace_id("R").len(), 32);
        assert_eq!(turn_span("R", &r1).len(), 16);
        assert!(
            trace_id("R")
                .bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        );
    }
}
