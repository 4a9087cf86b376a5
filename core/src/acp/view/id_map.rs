//! A persistent map keyed by session id that compares integers, not strings.
//!
//! Owns: each entry under a 64-bit hash of its id in an ordered map of integers; an entry
//! whose hash another id already holds goes to a second map, ordered by id.
//! Never: orders its entries by id (iteration follows the hashes), so nothing that is
//! printed may come from its order.
//!
//! Costs: a lookup hashes the id once, finds the hash among integers and compares the id
//! once with the entry found; an ordered map of ids compared it with about 2·log₂ n
//! others, each through a pointer. A collision (rare, or a trace made to collide) costs
//! what every lookup cost in a map of ids, never more. Cloning is O(1), and a clone kept
//! from an earlier record stays as it was. The hash is a fixed function: the core holds
//! no randomness.

use imbl::OrdMap;

use super::Id;

/// Values by session id.
#[derive(Debug, Clone)]
pub(super) struct IdMap<V: Clone> {
    by_hash: OrdMap<u64, (Id, V)>,
    collided: OrdMap<Id, V>,
}

impl<V: Clone> Default for IdMap<V> {
    fn default() -> Self {
        Self {
            by_hash: OrdMap::new(),
            collided: OrdMap::new(),
        }
    }
}

impl<V: Clone> IdMap<V> {
    pub(super) fn get(&self, id: &str) -> Option<&V> {
        self.get_key_value(id).map(|(_, v)| v)
    }

    /// The map's own copy of the id, and its value.
    pub(super) fn get_key_value(&self, id: &str) -> Option<(&Id, &V)> {
        match self.by_hash.get(&hash(id)) {
            Some((key, value)) if &**key == id => Some((key, value)),
            _ if self.collided.is_empty() => None,
            _ => self.collided.get_key_value(id),
        }
    }

    pub(super) fn get_mut(&mut self, id: &str) -> Option<&mut V> {
        let hash = hash(id);
        if self.by_hash.get(&hash).is_some_and(|(key, _)| &**key == id) {
            return self.by_hash.get_mut(&hash).map(|(_, v)| v);
        }
        self.collided.get_mut(id)
    }

    pub(super) fn contains_key(&self, id: &str) -> bool {
        self.get_key_value(id).is_some()
    }

    /// Sets the value of `id`; returns the one it replaces.
    pub(super) fn insert(&mut self, id: Id, value: V) -> Option<V> {
        if let Some(slot) = self.get_mut(&id) {
            return Some(std::mem::replace(slot, value));
        }
        let hash = hash(&id);
        if self.by_hash.contains_key(&hash) {
            self.collided.insert(id, value)
        } else {
            self.by_hash.insert(hash, (id, value)).map(|(_, v)| v)
        }
    }

    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.by_hash.len() + self.collided.len()
    }

    /// Every entry, in no meaningful order.
    #[cfg(test)]
    pub(super) fn iter(&self) -> impl Iterator<Item = (&Id, &V)> + '_ {
        let first = self.by_hash.values().map(|(k, v)| (k, v));
        first.chain(self.collided.iter())
    }
}

/// A 64-bit hash of an id: its bytes eight at a time, each word mixed in by a multiply
/// and rotate (the step of rustc's FxHasher), then the length, then a final avalanche
/// (MurmurHash3's `fmix64`) so ids that differ in one byte differ in every bit.
pub(super) fn hash(id: &str) -> u64 {
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

    #[test]
    fn an_id_whose_hash_is_taken_is_found_replaced_and_written() {
        // The slot of c's hash is given to another id by hand, as a collision would.
        let mut map = IdMap::default();
        map.insert("a".into(), 0);
        map.by_hash.insert(hash("c"), ("b".into(), 1));
        assert_eq!(map.get("c"), None);
        assert_eq!(map.insert("c".into(), 2), None);
        assert_eq!(map.collided.get("c"), Some(&2));
        assert_eq!((map.get("a"), map.get("c")), (Some(&0), Some(&2)));
        assert_eq!(map.get_key_value("c").map(|(k, _)| &**k), Some("c"));
        assert_eq!(map.insert("c".into(), 3), Some(2));
        if let Some(v) = map.get_mut("c") {
            *v += 10;
        }
        if let Some(v) = map.get_mut("a") {
            *v += 1;
        }
        assert_eq!(
            (map.get("a"), map.get("c"), map.len()),
            (Some(&1), Some(&13), 3)
        );
        assert!(map.get("d").is_none() && !map.contains_key("") && map.contains_key("c"));
        let mut all: Vec<(&str, i32)> = map.iter().map(|(k, v)| (&**k, *v)).collect();
        all.sort();
        assert_eq!(all, [("a", 1), ("b", 1), ("c", 13)]);
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
