//! Identifiers of the canonical model.
//!
//! Owns: the cheap, shared, ordered id types every other module uses.
//! Never: allocates per comparison or depends on hash order.
//!
//! Ids are `Arc<str>` so cloning one into a snapshot, a change or an index is a
//! reference-count bump, not a copy. Turn ids are derived, never invented:
//! `<session id>#<n>` with `n` the 1-based ordinal of the turn in its session
//! (docs/contract.md, *Canonical identities*).

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

macro_rules! string_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(Arc<str>);

        impl $name {
            /// Wraps a string as this id.
            pub fn new(id: impl Into<Arc<str>>) -> Self {
                Self(id.into())
            }

            /// The id as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{:?}", &*self.0)
            }
        }

        impl From<&str> for $name {
            fn from(s: &str) -> Self {
                Self(s.into())
            }
        }

        impl From<String> for $name {
            fn from(s: String) -> Self {
                Self(s.into())
            }
        }

        #[cfg(feature = "arbitrary")]
        impl<'a> arbitrary::Arbitrary<'a> for $name {
            fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
                // A small alphabet so generated events collide on ids and reach deep states.
                let n: u8 = u.int_in_range(0..=7)?;
                Ok(Self::new(format!("{}{}", stringify!($name).chars().next().unwrap_or('x'), n)))
            }
        }
    };
}

string_id!(
    /// A session's canonical id: the provider's root or child conversation id.
    SessionId
);
string_id!(
    /// A pending interaction's request id, as the provider issued it.
    RequestId
);
string_id!(
    /// A tool call id (the delegation tool call of a child, or any other tool call).
    CallId
);
string_id!(
    /// A message id, unique within its session.
    MessageId
);

/// A turn's canonical id: its session and its 1-based ordinal, shown as `<session>#<n>`.
///
/// ```
/// use lineage_core::{SessionId, TurnId};
/// let t = TurnId::new(SessionId::from("R"), 1);
/// assert_eq!(t.to_string(), "R#1");
/// assert_eq!("R#1".parse::<TurnId>().ok(), Some(t));
/// ```
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TurnId {
    session: SessionId,
    n: u32,
}

impl TurnId {
    /// The `n`th turn (1-based) of `session`.
    pub fn new(session: SessionId, n: u32) -> Self {
        Self { session, n }
    }

    /// The session the turn belongs to.
    pub fn session(&self) -> &SessionId {
        &self.session
    }

    /// The 1-based ordinal of the turn in its session.
    pub fn ordinal(&self) -> u32 {
        self.n
    }
}

impl fmt::Display for TurnId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}#{}", self.session, self.n)
    }
}

impl fmt::Debug for TurnId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}

/// The text is not `<session>#<n>` with `n` ≥ 1.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a turn id of the form <session>#<n> (n ≥ 1)")]
pub struct TurnIdParseError(String);

impl std::str::FromStr for TurnId {
    type Err = TurnIdParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (session, n) = s
            .rsplit_once('#')
            .ok_or_else(|| TurnIdParseError(s.to_owned()))?;
        let n: u32 = n.parse().map_err(|_| TurnIdParseError(s.to_owned()))?;
        if session.is_empty() || n == 0 {
            return Err(TurnIdParseError(s.to_owned()));
        }
        Ok(Self::new(SessionId::from(session), n))
    }
}

impl Serialize for TurnId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for TurnId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(feature = "arbitrary")]
impl<'a> arbitrary::Arbitrary<'a> for TurnId {
    fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
        Ok(Self::new(SessionId::arbitrary(u)?, u.int_in_range(1..=3)?))
    }
}

/// A provider handle bound to a session: a Codex thread id, a Claude task id,
/// agent id or tool-use id, … `kind` names the namespace so equal strings from
/// different namespaces never collide.
///
/// ```
/// use lineage_core::Alias;
/// let a = Alias::new("task", "t-1");
/// assert_eq!(a.to_string(), "task:t-1");
/// ```
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Alias {
    /// Namespace of the handle (`thread`, `task`, `agent`, `tool_use`, …).
    pub kind: Arc<str>,
    /// The provider's own id.
    pub id: Arc<str>,
}

impl Alias {
    /// An alias `id` in namespace `kind`.
    pub fn new(kind: &str, id: &str) -> Self {
        Self {
            kind: kind.into(),
            id: id.into(),
        }
    }
}

#[cfg(feature = "arbitrary")]
impl<'a> arbitrary::Arbitrary<'a> for Alias {
    fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
        let kind = *u.choose(&["task", "agent", "thread"])?;
        let n: u8 = u.int_in_range(0..=5)?;
        Ok(Self::new(kind, &format!("a{n}")))
    }
}

impl fmt::Display for Alias {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.kind, self.id)
    }
}

impl fmt::Debug for Alias {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turn_id_parses_on_the_last_hash() {
        let t: TurnId = "a#b#3".parse().unwrap();
        assert_eq!(t.session().as_str(), "a#b");
        assert_eq!(t.ordinal(), 3);
    }

    #[test]
    fn turn_id_rejects_zero_missing_and_empty() {
        for bad in ["R", "R#0", "#1", "R#x", "R#-1", ""] {
            assert!(bad.parse::<TurnId>().is_err(), "{bad} parsed");
        }
    }

    #[test]
    fn turn_id_round_trips_through_json() {
        let t = TurnId::new("R".into(), 12);
        let j = serde_json::to_string(&t).unwrap();
        assert_eq!(j, "\"R#12\"");
        assert_eq!(serde_json::from_str::<TurnId>(&j).unwrap(), t);
    }
}
