//! A persistent map keyed by session id that compares integers, not strings.
//!
//! Owns: each entry under its id's [`key`] (the id's last eight bytes as an integer) in
//! an ordered map of integers; an entry whose key another id already holds goes to a
//! second map, ordered by id.
//! Never: orders its entries by id (iteration follows the keys), so nothing that is
//! printed may come from its order.
//!
//! Costs: a lookup finds the key among integers and compares the id once with the entry
//! found; an ordered map of ids compared it with about 2·log₂ n others, each through a
//! pointer. Ids that end in a counter keep their order, so the sessions a stream reaches
//! one after another stay neighbours in the map (a hash scattered them: fewer
//! instructions, more cache misses, slower on a million records); random ids (UUIDs) are
//! as scattered as they are in a map of ids. A collision (ids that share their last
//! eight bytes) costs what every lookup cost in a map of ids, never more. Cloning is
//! O(1), and a clone kept from an earlier record stays as it was.

use imbl::OrdMap;

use super::Id;

/// Values by session id.
#[derive(Debug, Clone)]
pub(crate) struct IdMap<V: Clone> {
    by_key: OrdMap<u64, (Id, V)>,
    collided: OrdMap<Id, V>,
}

impl<V: Clone> Default for IdMap<V> {
    fn default() -> Self {
        Self {
            by_key: OrdMap::new(),
            collided: OrdMap::new(),
        }
    }
}

impl<V: Clone> IdMap<V> {
    pub(crate) fn get(&self, id: &str) -> Option<&V> {
        self.get_key_value(id).map(|(_, v)| v)
    }

    /// The map's own copy of the id, and its value.
    pub(crate) fn get_key_value(&self, id: &str) -> Option<(&Id, &V)> {
        match self.by_key.get(&key(id)) {
            Some((key, value)) if &**key == id => Some((key, value)),
            _ if self.collided.is_empty() => None,
            _ => self.collided.get_key_value(id),
        }
    }

    pub(crate) fn get_mut(&mut self, id: &str) -> Option<&mut V> {
        match self.by_key.get_mut(&key(id)) {
            Some((known, value)) if &**known == id => Some(value),
            _ => self.collided.get_mut(id),
        }
    }

    pub(crate) fn contains_key(&self, id: &str) -> bool {
        self.get_key_value(id).is_some()
    }

    /// Sets the value of `id`; returns the one it replaces.
    pub(crate) fn insert(&mut self, id: Id, value: V) -> Option<V> {
        let at = key(&id);
        match self.by_key.get_mut(&at) {
            Some((known, slot)) if *known == id => Some(std::mem::replace(slot, value)),
            Some(_) => self.collided.insert(id, value),
            None => self.by_key.insert(at, (id, value)).map(|(_, v)| v),
        }
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.by_key.len() + self.collided.len()
    }

    /// Every entry, in no meaningful order.
    #[cfg(test)]
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&Id, &V)> + '_ {
        let first = self.by_key.values().map(|(k, v)| (k, v));
        first.chain(self.collided.iter())
    }
}

/// The key of an id: its last eight bytes as a big-endian integer (fewer, for a shorter
/// id, after its length). Ids that differ only in a counter at their end keep their
/// order, so the entries a stream reaches one after another stay neighbours.
fn key(id: &str) -> u64 {
    let bytes = id.as_bytes();
    let tail = bytes
        .get(bytes.len().saturating_sub(8)..)
        .unwrap_or_default();
    let word = tail
        .iter()
        .fold(0, |word, &byte| (word << 8) | u64::from(byte));
    if tail.len() < 8 {
        // At most seven bytes: the length fills the top byte.
        word | ((tail.len() as u64) << 56)
    } else {
        word
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_whose_key_is_taken_is_found_replaced_and_written() {
        // "x-ab-0001" and "y-ab-0001" share their key (their last eight bytes).
        assert_eq!(key("x-ab-0001"), key("y-ab-0001"));
        let mut map = IdMap::default();
        map.insert("a".into(), 0);
        map.insert("x-ab-0001".into(), 1);
        assert_eq!(map.insert("y-ab-0001".into(), 2), None);
        assert_eq!(map.collided.get("y-ab-0001"), Some(&2));
        assert_eq!(map.get("x-ab-0001"), Some(&1));
        assert_eq!(map.get("y-ab-0001"), Some(&2));
        assert_eq!(map.get("z-ab-0001"), None);
        // The slot of c's key is given to another id by hand.
        let mut map = IdMap::default();
        map.insert("a".into(), 0);
        map.by_key.insert(key("c"), ("b".into(), 1));
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
    fn keys_keep_the_order_of_a_counter_and_tell_short_ids_apart() {
        let counted: Vec<u64> = (1000..1100).map(|i| key(&format!("child-1-{i}"))).collect();
        assert!(counted.windows(2).all(|w| w[0] < w[1]));
        let short = ["", "a", "a\0", "ab", "b", "abcdefg", "\0"];
        let keys: std::collections::BTreeSet<u64> = short.iter().map(|i| key(i)).collect();
        assert_eq!(keys.len(), short.len());
        assert_eq!(key("01234567"), key("xx01234567"));
    }
}
