//! Equal small JSON values shared between the sessions that hold them.
//!
//! Owns: the last [`SIZE`] distinct objects it handed out (work-state snapshots and
//! capabilities: a few shapes, such as `{"state":"running"}` or `{"cancel":{}}`, repeated
//! by every session of a long stream).
//! Never: decides what a value means, or changes one (a session replaces its value whole).
//!
//! Costs: a store compares the object with at most [`SIZE`] others (map equality checks
//! the lengths first); a hit copies a pointer instead of the object's map.

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::trace::borrowed::Object;

/// How many distinct objects are remembered (replaced oldest first).
const SIZE: usize = 16;

/// The recently stored objects. Cloning copies at most [`SIZE`] pointers.
#[derive(Debug, Clone, Default)]
pub(super) struct Pool {
    recent: Vec<Arc<Value>>,
    /// The slot the next new object replaces once `recent` is full.
    next: usize,
}

impl Pool {
    /// `object` as a shared value: an equal one already handed out, or a copy.
    pub(super) fn object(&mut self, object: &Object<'_>) -> Arc<Value> {
        let entries = object.entries();
        let found = self.recent.iter().find(|v| {
            v.as_object()
                .is_some_and(|stored| Object::entries_same_as_map(&entries, stored))
        });
        match found {
            Some(shared) => shared.clone(),
            None => self.remember(Value::Object(object.to_map())),
        }
    }

    /// [`Pool::object`] for an object the caller owns (moved, not copied, when new).
    pub(super) fn owned(&mut self, object: Map<String, Value>) -> Arc<Value> {
        match self.find(&object) {
            Some(shared) => shared,
            None => self.remember(Value::Object(object)),
        }
    }

    /// An equal object with its members in the same order (the timeline prints a value
    /// as it was sent, and equal maps may differ in order).
    fn find(&self, object: &Map<String, Value>) -> Option<Arc<Value>> {
        self.recent
            .iter()
            .find(|v| {
                v.as_object()
                    .is_some_and(|m| m == object && m.keys().eq(object.keys()))
            })
            .cloned()
    }

    fn remember(&mut self, value: Value) -> Arc<Value> {
        let shared = Arc::new(value);
        if self.recent.len() < SIZE {
            self.recent.push(shared.clone());
        } else if let Some(slot) = self.recent.get_mut(self.next) {
            *slot = shared.clone();
            self.next = (self.next + 1) % SIZE;
        }
        shared
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::borrowed::Json;
    use serde_json::json;

    fn object(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }

    /// `Pool::object` of a message's object.
    fn share(pool: &mut Pool, v: Value) -> Arc<Value> {
        let json = Json::of_value(&v);
        pool.object(json.as_object().unwrap())
    }

    #[test]
    fn equal_objects_share_one_allocation_and_different_ones_do_not() {
        let mut pool = Pool::default();
        let a = share(&mut pool, json!({"state": "running"}));
        let b = pool.owned(object(json!({"state": "running"})));
        let c = share(
            &mut pool,
            json!({"state": "idle", "stopReason": "end_turn"}),
        );
        assert!(Arc::ptr_eq(&a, &b));
        assert!(!Arc::ptr_eq(&a, &c));
        assert_eq!(*c, json!({"state": "idle", "stopReason": "end_turn"}));
    }

    #[test]
    fn an_equal_object_in_another_member_order_keeps_its_own_order() {
        let mut pool = Pool::default();
        let a = pool.owned(object(json!({"state": "idle", "stopReason": "end_turn"})));
        let mut reversed = Map::new();
        reversed.insert("stopReason".into(), json!("end_turn"));
        reversed.insert("state".into(), json!("idle"));
        let b = share(&mut pool, Value::Object(reversed));
        assert!(!Arc::ptr_eq(&a, &b));
        assert_eq!(b.to_string(), r#"{"stopReason":"end_turn","state":"idle"}"#);
    }

    #[test]
    fn the_oldest_object_is_forgotten_first_and_values_stay_intact() {
        let mut pool = Pool::default();
        let first = share(&mut pool, json!({"n": 0}));
        for n in 1..=SIZE {
            share(&mut pool, json!({ "n": n }));
        }
        // `{"n":0}` was replaced by the 17th object: an equal object is a new copy.
        let again = share(&mut pool, json!({"n": 0}));
        assert!(!Arc::ptr_eq(&first, &again));
        assert_eq!(first, again);
        // The second object is still remembered.
        let second = share(&mut pool, json!({"n": 2}));
        assert!(Arc::ptr_eq(&second, &share(&mut pool, json!({"n": 2}))));
    }
}
