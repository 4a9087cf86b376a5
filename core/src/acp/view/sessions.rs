//! Every session the view knows, by id and in order of first appearance.
//!
//! Owns: the sessions in order of first appearance, and an [`IdMap`] from each id to its
//! place in that order.
//! Never: removes or reorders a session (the view keeps every session it learned of),
//! or decides what one holds.
//!
//! Costs: finding a session is one [`IdMap`] lookup (integers compared, the id once) and
//! one index into the list. Both parts are persistent: cloning is O(1) and a clone kept
//! from an earlier record stays as it was.

use std::sync::Arc;

use imbl::Vector;

use super::id_map::IdMap;
use super::{Id, Session};

/// The sessions by id, and in order of first appearance.
#[derive(Debug, Clone, Default)]
pub(super) struct Sessions {
    places: IdMap<u32>,
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
        self.places.contains_key(id)
    }

    /// Adds a session not known yet (a known id keeps its session).
    pub(super) fn insert(&mut self, id: Id, session: Arc<Session>) {
        if self.places.contains_key(&id) {
            return;
        }
        let Ok(place) = u32::try_from(self.all.len()) else {
            return; // 2^32 sessions: more than any trace can hold in memory
        };
        self.places.insert(id, place);
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
        usize::try_from(*self.places.get(id)?).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(id: &str, seq: u64) -> Arc<Session> {
        Arc::new(Session::new(id.into(), seq, Arc::default()))
    }

    #[test]
    fn a_known_id_keeps_its_session_and_the_order_is_first_appearance() {
        let mut all = Sessions::default();
        for (seq, id) in ["b", "a", "c"].into_iter().enumerate() {
            all.insert(id.into(), session(id, seq as u64));
        }
        all.insert("a".into(), session("a", 9));
        assert_eq!((all.len(), all.get("a").map(|s| s.seq)), (3, Some(1)));
        let (key, s) = all.get_key_value("a").unwrap();
        assert!(Arc::ptr_eq(key, &s.id));
        let ids: Vec<&str> = all.values().map(|s| &*s.id).collect();
        assert_eq!(ids, ["b", "a", "c"]);
        assert!(all.get("d").is_none() && !all.contains_key("d"));
    }
}
