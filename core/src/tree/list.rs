//! [`List`]: one of a session's lists, held behind a shared pointer.
//!
//! Owns: the representation of a session's turns, children, aliases and messages.
//! Never: changes a list another snapshot still shares (`make_mut` copies the list's
//! 64-byte head first; the `imbl` vector beneath shares its nodes as before).

use std::ops::Deref;
use std::sync::Arc;

use imbl::Vector;

use super::model::{ClosedInteractions, Message, Turn};
use crate::ids::{Alias, SessionId};

/// A persistent list (an [`imbl::Vector`]) behind an `Arc`, read through `Deref`:
/// `session.turns.iter()`, `session.children.len()`, `&session.messages[0]` and
/// `for turn in &session.turns` read it as the vector itself.
///
/// Every event that changes a session copies the session record, and a list the event
/// leaves alone then costs a pointer in the copy, not the vector's 64 bytes.
///
/// ```
/// use lineage_core::tree::List;
/// let list: List<u32> = [1, 2, 3].into_iter().collect();
/// assert_eq!(list.len(), 3);
/// assert_eq!(list.iter().sum::<u32>(), 6);
/// assert_eq!((&list).into_iter().last(), Some(&3));
/// ```
#[derive(Debug, PartialEq, Eq)]
pub struct List<T: Clone>(Arc<Vector<T>>);

impl<T: Clone> List<T> {
    /// The vector to change, copied first if another snapshot shares it.
    pub(crate) fn make_mut(&mut self) -> &mut Vector<T> {
        Arc::make_mut(&mut self.0)
    }
}

impl<T: Clone> Clone for List<T> {
    fn clone(&self) -> Self {
        List(Arc::clone(&self.0))
    }
}

impl<T: Clone> Default for List<T> {
    fn default() -> Self {
        List(Arc::default())
    }
}

impl<T: Clone> Deref for List<T> {
    type Target = Vector<T>;

    fn deref(&self) -> &Vector<T> {
        &self.0
    }
}

impl<T: Clone> From<Vector<T>> for List<T> {
    fn from(vector: Vector<T>) -> Self {
        List(Arc::new(vector))
    }
}

impl<T: Clone> FromIterator<T> for List<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        List::from(iter.into_iter().collect::<Vector<T>>())
    }
}

impl<'a, T: Clone> IntoIterator for &'a List<T> {
    type Item = &'a T;
    type IntoIter = imbl::vector::Iter<'a, T, imbl::shared_ptr::DefaultSharedPtr>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

/// One empty list of each kind a session holds, and an empty map of closed interactions,
/// shared by every session that has not written to it yet: a session is created with
/// them, so creating one allocates no list, and its first write copies the empty head.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct EmptyLists {
    pub(crate) turns: List<Arc<Turn>>,
    pub(crate) children: List<SessionId>,
    pub(crate) aliases: List<Alias>,
    pub(crate) messages: List<Arc<Message>>,
    pub(crate) closed: ClosedInteractions,
}
