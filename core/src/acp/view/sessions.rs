//! Every session the view knows, found by id in one hash lookup.
//!
//! Owns: the sessions in order of first appearance, and an index from each id to its
//! place in that order.
//! Never: removes or reorders a session (the view keeps every session it learned of),
//! or decides what one holds.
//!
//! Costs: finding a session hashes its id once, finds the hash in an ordered map of
//! integers and compares the id once with the session found there; an ordered map of
//! ids compared it with about 2·log₂ n others, each through a pointer. An id whose hash
//! another id already has (rare; or a trace made to collide) is kept in a second,
//! ordered map of ids, so a collision costs what every lookup cost before, never more.
//! Every part is persistent: cloning is O(1) and a clone kept from an earlier record
//! stays as it was. The hash is a fixed function: the core holds no randomness.

use std::sync::Arc;

use imbl::{OrdMap, Vector};

use super::{Id, Session};

/// The sessions by id, and in order of first appearance.
#[derive(Debug, Clone, Default)]
pub(super) struct Sessions {
    /// The place of the first id seen with each hash.
    by_hash: OrdMap<u64, u32>,
    /// The place of every other id (its hash was taken).
    collided: OrdMap<Id, u32>,
    all: Vector<Arc<Session>>,
}

impl Sessions {
    /// The session `id`.
    pub(super) fn get(&self, id: &str) -> Option<&Arc<Session>> {
        self.all.get(self.place(id)?)
    }

    /// The session `id`, to write (copy on write of its `Arc` is the caller's).
    pub(super) fn get_mut(&mut self, id: &str) -> Option<&mut Arc<Session>> {
        let place = self.place(id)?;
        self.all.get_mut(place)
    }

    /// The view's own copy of the id `id` and its session.
    pub(super) fn get_key_value(&self, id: &str) -> Option<(&Id, &Arc<Session>)> {
        self.get(id).map(|s| (&s.id, s))
    }

    pub(super) fn contains_key(&self, id: &str) -> bool {
        self.place(id).is_some()
    }

    /// Adds a session not known yet (a known id keeps its session).
    pub(super) fn insert(&mut self, id: Id, session: Arc<Session>) {
        if self.contains_key(&id) {
            return;
        }
        let Ok(place) = u32::try_from(self.all.len()) else {
            return; // 2^32 sessions: more than any trace can hold in memory
        };
        let hash = hash(&id);
        if self.by_hash.contains_key(&hash) {
            self.collided.insert(id, place);
        } else {
            self.by_hash.insert(hash, place);
        }
        self.all.push_back(session);
    }

    pub(super) fn len(&self) -> usize {
        self.all.len()
    }

    /// Every session, in order of first appearance.
    pub(super) fn values(&self) -> impl DoubleEndedIterator<Item = &Arc<Session>> + '_ {
        self.all.iter()
    }

    fn place(&self, id: &str) -> Option<usize> {
        let first = self.by_hash.get(&hash(id)).and_then(|&p| index(p));
        if let Some(place) = first
            && self.all.get(place).is_some_and(|s| &*s.id == id)
        {
            return Some(place);
        }
        if self.collided.is_empty() {
            return None;
        }
        self.collided.get(id).and_then(|&p| index(p))
    }
}

fn index(place: u32) -> Option<usize> {
    usize::try_from(place).ok()
}

/// A 64-bit hash of an id: its bytes eight at a time, each word mixed in by a multiply
/// and rotate (the step of rustc's FxHasher), then the length, then a final avalanche
/// (MurmurHash3's `fmix64`) so ids that differ in one byte differ in every bit.
fn hash(id: &str) -> u64 {
    const K: u64 = 0xf135_7aea_2e62_a9c5;
    let mix = |h: u64, word: u64| (h ^ word).wrapping_mul(K).rotate_left(26);
    let mut words = id.as_bytes().chunks_exact(8);
    let mut h = (&mut words).fold(0, |h, word| mix(h, little_endian(word)));
    h = mix(h, little_endian(words.remainder()));
    h = (h ^ id.len() as u64).wrapping_mul(K);
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// Up to eight bytes as one little-endian word.
fn little_endian(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .rev()
        .fold(0, |word, &byte| (word << 8) | u64::from(byte))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(id: &str, seq: u64) -> Arc<Session> {
        Arc::new(Session::new(id.into(), seq, Arc::default()))
    }

    #[test]
    fn ids_whose_hashes_collide_are_each_found() {
        // Two ids with one hash: the second goes to the ordered map of ids.
        let mut all = Sessions::default();
        all.insert("a".into(), session("a", 0));
        all.insert("b".into(), session("b", 1));
        let b_place = all.by_hash.remove(&hash("b"));
        assert_eq!(b_place, Some(1));
        all.by_hash.insert(hash("c"), 1); // "c" now hashes onto b's place
        all.collided.insert("b".into(), 1);
        all.insert("c".into(), session("c", 2));
        assert_eq!(all.collided.get("c"), Some(&2));
        for (id, seq) in [("a", 0), ("b", 1), ("c", 2)] {
            assert_eq!(all.get(id).map(|s| s.seq), Some(seq), "{id}");
            assert!(all.contains_key(id));
        }
        assert!(all.get("d").is_none() && !all.contains_key(""));
        let ids: Vec<&str> = all.values().map(|s| &*s.id).collect();
        assert_eq!(ids, ["a", "b", "c"]);
    }

    #[test]
    fn a_known_id_keeps_its_session() {
        let mut all = Sessions::default();
        all.insert("a".into(), session("a", 0));
        all.insert("a".into(), session("a", 9));
        assert_eq!((all.len(), all.get("a").map(|s| s.seq)), (1, Some(0)));
        let (key, s) = all.get_key_value("a").unwrap();
        assert!(Arc::ptr_eq(key, &s.id));
    }

    #[test]
    fn the_hash_tells_apart_ids_that_differ_anywhere() {
        let ids: Vec<String> = (0..20_000)
            .map(|i| format!("child-1-{i}"))
            .chain((0..2_000).map(|i| format!("0199e5c4-3f2a-7000-8000-{i:012}")))
            .chain(["", "a", "a\0", "abcdefgh", "abcdefgh\0"].map(String::from))
            .collect();
        let hashes: std::collections::BTreeSet<u64> = ids.iter().map(|i| hash(i)).collect();
        assert_eq!(hashes.len(), ids.len());
    }
}
