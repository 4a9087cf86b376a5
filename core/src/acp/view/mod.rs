//! The Client's view of an ACP stream: an immutable snapshot folded record by record.
//!
//! Owns: what a conforming Client knows after each record: sessions and their owner
//! (the first association, never rewritten), the parent's labels, the last reported
//! capabilities and work-state snapshot, the *effective* cancel grant, session-directed
//! transcripts (incoming and outgoing views kept apart), per-session costs, tool-call
//! status, the pending requests of the live connection and the connection state.
//! Never: does I/O, infers an outcome from silence, sums costs across sessions,
//! synthesizes an incoming entry from an outgoing one, or walks a parent chain or a
//! subtree to answer a record (only the public `ancestors_or_self` and `descendants`
//! walk, for callers that ask for the whole list).
//!
//! Freshness: every per-connection fact is stamped with the connection number it was
//! learned on (`conn`), so starting a connection invalidates them all in O(1) without
//! visiting any session.
//!
//! Ancestry: the ownership forest is also kept as an Euler tour (`tour.rs`): each session
//! holds an open and a close label, a subtree is the range between them, so "is A a
//! descendant of B" (the association cycle check, resume coverage, cancel reach) is two
//! lookups. What a record may have to visit in a subtree is kept in sparse sets keyed
//! by open label, entered and left as facts change: sessions *working* (current state
//! `running` or `requires_action`), with *open tool calls* (`pending`/`in_progress`),
//! with pending permission or elicitation requests, *stamped* with a connection fact
//! (announcement, effective grant, current state) since the last reset covering them,
//! and with a message written in their current replay epoch. A cancel visits the
//! working, open-call and interaction members of the target's range; a load/resume
//! resets only the stamped and written members of the root's range and leaves them.
//!
//! Cost: with n sessions, a record costs O(log n) map operations amortized, plus O(log n)
//! per set member a cancel reaches (a load/resume's visits are paid for by the records
//! that stamped them); never a cost that follows the depth of the tree or the number of
//! children that ever existed.
//!
//! A view is read, never fed: the [`Engine`](crate::engine::Engine) folds an `acp` trace
//! into it ([`Engine::view`](crate::engine::Engine::view) while pushing,
//! [`Replay::view`](crate::engine::Replay::view) at the end).
//!
//! ```
//! use lineage_core::engine::{Engine, Options};
//!
//! let mut engine = Engine::new(Options::default());
//! for line in [
//!     r#"{"lineage":"trace","format":"acp","version":1}"#,
//!     r#"{"from":"client","message":{"jsonrpc":"2.0","id":1,"method":"session/new","params":{}}}"#,
//!     r#"{"from":"agent","message":{"jsonrpc":"2.0","id":1,"result":{"sessionId":"R"}}}"#,
//!     r#"{"from":"agent","message":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"R","update":{"sessionUpdate":"subagent_update","sessionId":"A","title":"worker","capabilities":{"cancel":{}}}}}}"#,
//! ] {
//!     engine.push_line(line).unwrap();
//! }
//! let view = engine.view().unwrap();
//! let a = view.session("A").unwrap();
//! assert_eq!(a.parent.as_deref(), Some("R"));
//! assert_eq!(a.title.as_deref(), Some("worker"));
//! assert!(view.effective_cancel("A"));
//! ```

mod changes;
mod id_map;
pub(crate) mod json;
mod pool;
mod reduce;
mod sessions;
#[cfg(test)]
mod tests;
mod tour;
mod transcript;

pub(crate) use changes::Head;
pub(crate) use id_map::IdMap;
pub(crate) use reduce::is_content_block;

use std::num::NonZeroU64;
use std::sync::Arc;

use imbl::{OrdMap, OrdSet, Vector};
use pool::Pool;
use serde_json::Value;
use sessions::Sessions;
use tour::{Set, Tour};

use super::wire::{RpcId, Side, StateKey};
use crate::finding::{Revision, Shapes};

/// A session or message id (shared, ordered by content; `Borrow<str>` for lookups).
pub type Id = Arc<str>;

/// Options of the fold (the engine sets them from its own [`Options`](crate::engine::Options)).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ViewOptions {
    /// Keep message content (the checker turns it off: it needs participants only).
    pub(crate) transcripts: bool,
    /// The header's `protocolVersion`, used until an `initialize` response tells.
    pub(crate) header_version: Option<u64>,
    /// The RFD revision whose Client semantics the view follows (the cancel cascade,
    /// participant patches).
    pub(crate) spec: Revision,
    /// Report what each record changed (the engine's `Output::changes`); the checker
    /// alone needs none.
    pub(crate) changes: bool,
}

impl Default for ViewOptions {
    fn default() -> Self {
        Self {
            transcripts: true,
            header_version: None,
            spec: Revision::Seed,
            changes: true,
        }
    }
}

/// What the Client advertised in this connection's `initialize` request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClientCaps {
    /// `clientCapabilities.subagents` is a JSON object.
    pub subagents: bool,
    /// `clientCapabilities.fs.readTextFile` is `true`.
    pub read_text_file: bool,
    /// `clientCapabilities.fs.writeTextFile` is `true`.
    pub write_text_file: bool,
    /// `clientCapabilities.terminal` is `true`.
    pub terminal: bool,
    /// `clientCapabilities._meta` holds a key naming subagents (a compatibility bridge
    /// such as claude-agent-acp's `nativeSubagentSessions`).
    pub meta_subagents: bool,
}

/// A request waiting for its response on the live connection.
#[derive(Debug, Clone, PartialEq)]
pub struct Pending {
    /// The line of the request.
    pub line: usize,
    /// Who sent the request.
    pub from: Side,
    /// Its id.
    pub id: RpcId,
    /// Its method.
    pub method: Arc<str>,
    /// `params.sessionId`, when present.
    pub session: Option<Id>,
    /// `params.toolCall.toolCallId` of a permission request.
    pub tool_call: Option<Arc<str>>,
    /// For `session/resume`: whether it requested history replay.
    pub replay: bool,
}

/// One entry of a session-directed transcript.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// Transcript-local id.
    pub id: Id,
    /// The sending session, once supplied.
    pub sender: Option<Id>,
    /// The receiving session, once supplied.
    pub recipient: Option<Id>,
    /// `senderMessageId` (final revision): the outgoing view's id in the sender's
    /// transcript, preserved as sent.
    pub sender_message: Option<Id>,
    /// `recipientMessageId` (final revision): the incoming view's id.
    pub recipient_message: Option<Id>,
    /// Accumulated content blocks.
    pub content: Vector<Value>,
    /// Message-scoped `_meta`.
    pub meta: Option<Value>,
    /// The (connection, replay epoch) its participants were learned in.
    period: (u64, u64),
    /// The replay epoch its content was last written in.
    content_epoch: u64,
}

/// A tool call's status as the Client shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall {
    /// The Agent's last reported status (`pending` when never reported).
    pub status: Arc<str>,
    /// Its title as last reported (kept under the transcripts option).
    pub title: Option<Arc<str>>,
    /// Its kind as last reported (kept under the transcripts option).
    pub kind: Option<Arc<str>>,
    /// The replay epoch it was last placed in the transcript in.
    shown_in: Option<u64>,
    /// Marked cancelled locally (optimistically) after a cancel, until the Agent reports.
    pub locally_cancelled: bool,
}

/// One session as the Client sees it.
///
/// What most sessions of a long stream never get (messages, tool calls, a transcript,
/// usage, the final revision's patches) is in its [`Detail`], shared by every session
/// that has none of it, so an idle child costs its hot fields alone.
#[derive(Debug, Clone)]
pub struct Session {
    /// Its id.
    pub id: Id,
    /// Order of first appearance.
    pub seq: u64,
    /// Its owner (the first association; never rewritten). `None` for roots.
    pub parent: Option<Id>,
    /// Sessions associated under it, in announcement order.
    pub children: Vector<Id>,
    /// Created by the Agent through `session/new` or `session/fork`.
    pub agent_root: bool,
    /// Ever set up as a root: a `session/new` / `session/fork` result or a
    /// `session/load` / `session/resume` request (trace-wide).
    pub set_up: bool,
    /// The parent's label for it (`subagent_update.title`).
    pub title: Option<Arc<str>>,
    /// The parent's description of it.
    pub description: Option<Arc<str>>,
    /// `capabilities` as last reported (`Some(Null)` after an explicit clear); shared
    /// with the other sessions that hold an equal value.
    pub capabilities: Option<Arc<Value>>,
    /// The last work-state snapshot, or `None` (never reported or cleared); shared with
    /// the other sessions that hold an equal snapshot.
    pub state: Option<Arc<Value>>,
    /// Transitions into `idle` (a repeated or mirrored copy does not count again).
    pub idle_transitions: u64,
    /// The rest, shared with every session that holds none of it.
    detail: Arc<Detail>,
    /// v2: what its own `state_update` stream reported on this connection since the
    /// last reset (a delayed parent copy never replaces newer state).
    child_stream: Option<Box<ChildStream>>,
    announced_on: Stamp,
    cancel_granted_on: Stamp,
    state_current_on: Stamp,
    replay_epoch: u64,
}

/// The connection a fact was learned on (numbered from 1), or none, in eight bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Stamp(Option<NonZeroU64>);

impl Stamp {
    const NONE: Stamp = Stamp(None);

    /// Learned on connection `conn` (0, which no connection has, stamps nothing).
    fn on(conn: u64) -> Self {
        Stamp(NonZeroU64::new(conn))
    }

    /// `on(conn)` when `learned`, else none.
    fn on_if(learned: bool, conn: u64) -> Self {
        if learned { Self::on(conn) } else { Self::NONE }
    }

    fn is_on(self, conn: u64) -> bool {
        self.0.is_some_and(|c| c.get() == conn)
    }

    fn is_set(self) -> bool {
        self.0.is_some()
    }
}

/// The part of a [`Session`] most sessions never fill.
#[derive(Debug, Clone, Default)]
pub struct Detail {
    /// Its working directory as the association reported it (`cwd`, defined by the final
    /// revision and sent by codex-acp): a nullable patch, kept as sent; `None` while unset.
    pub cwd: Option<Arc<str>>,
    /// Its own conversation title (`session_info_update`), never the parent's label.
    pub conversation_title: Option<Arc<str>>,
    /// The last `usage_update` (latest cumulative value; never summed). Shared (`Arc`),
    /// as `state` and `capabilities` are, so a session copy does not copy it.
    pub usage: Option<Arc<Value>>,
    /// Session-directed messages in order of first appearance (shared, so a chunk of the
    /// vector stays small however large a message is).
    pub messages: Vector<Arc<Message>>,
    /// Tool calls by id.
    pub tool_calls: OrdMap<Arc<str>, ToolCall>,
    /// Its ordinary transcript (agent and user message text, thoughts, tool calls,
    /// plans) in order, kept under the transcripts option.
    pub transcript: Vector<Arc<Entry>>,
    /// The association's `additionalDirectories` (final revision), a nullable patch.
    pub additional_directories: Option<Arc<Value>>,
    /// The association's `_meta` as last patched.
    pub meta: Option<Arc<Value>>,
    /// Its current plan (the last `plan` update's entries), under the transcripts option.
    pub plan: Option<Arc<Value>>,
    /// The replay epoch its ordinary transcript was last written in.
    transcript_epoch: u64,
    message_index: OrdMap<Id, usize>,
    setup_on: Stamp,
}

impl Session {
    /// A new session whose detail is `empty` (the view's shared empty one).
    fn new(id: Id, seq: u64, empty: Arc<Detail>) -> Self {
        Self {
            id,
            seq,
            parent: None,
            children: Vector::new(),
            agent_root: false,
            set_up: false,
            title: None,
            description: None,
            capabilities: None,
            state: None,
            idle_transitions: 0,
            detail: empty,
            child_stream: None,
            announced_on: Stamp::NONE,
            cancel_granted_on: Stamp::NONE,
            state_current_on: Stamp::NONE,
            replay_epoch: 0,
        }
    }

    /// Its messages, tool calls, transcript, usage and the final revision's patches.
    pub fn detail(&self) -> &Detail {
        &self.detail
    }

    /// [`Session::detail`] to write (its own copy from the first write on).
    fn detail_mut(&mut self) -> &mut Detail {
        Arc::make_mut(&mut self.detail)
    }

    /// The `state` discriminator of the last snapshot.
    pub fn state_name(&self) -> Option<&str> {
        self.state.as_ref()?.get("state")?.as_str()
    }

    /// Does it hold a connection-stamped fact? (Every session that does is in the tour's
    /// `Stamped` set; one that left the set by a reset holds none.)
    fn stamped(&self) -> bool {
        self.announced_on.is_set()
            || self.cancel_granted_on.is_set()
            || self.state_current_on.is_set()
    }

    /// Does it hold a fact of connection `conn`?
    fn stamped_on(&self, conn: u64) -> bool {
        self.announced_on.is_on(conn)
            || self.cancel_granted_on.is_on(conn)
            || self.state_current_on.is_on(conn)
    }

    /// A message of its transcript.
    pub fn message(&self, id: &str) -> Option<&Message> {
        let detail = self.detail();
        detail
            .messages
            .get(*detail.message_index.get(id)?)
            .map(|m| &**m)
    }
}

/// Which path a v2 work-state report came on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Path {
    /// The child's own `state_update` (authoritative).
    Child,
    /// The parent association's `subagent_update.state`.
    Parent,
}

/// v2: the snapshots a child's own stream reported on one connection since the last
/// reset, and its latest.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ChildStream {
    conn: u64,
    seen: OrdSet<StateKey>,
    last: Option<StateKey>,
}

impl ChildStream {
    fn new(conn: u64) -> Self {
        Self {
            conn,
            seen: OrdSet::new(),
            last: None,
        }
    }

    fn report(&mut self, key: StateKey) {
        self.seen.insert(key.clone());
        self.last = Some(key);
    }

    /// Is a parent copy `key` older than the child's latest report (the child reported
    /// it, then something else)?
    fn moved_past(&self, key: &StateKey) -> bool {
        self.seen.contains(key) && self.last.as_ref() != Some(key)
    }
}

/// One entry of a session's ordinary transcript.
#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
    /// Streamed text of one kind (`agent_message`, `user_message`, `agent_thought`):
    /// consecutive chunks of the same kind and `messageId` accumulate in one entry.
    Text {
        /// `agent_message`, `user_message` or `agent_thought`.
        kind: &'static str,
        /// The chunks' `messageId`, when they carry one.
        message_id: Option<Id>,
        /// The content blocks, in order.
        content: Vector<Value>,
    },
    /// A tool call, at the place it was opened (its title and status are in
    /// [`Detail::tool_calls`]).
    ToolCall(Arc<str>),
}

/// An Agent request the Client answered (kept under the transcripts option).
#[derive(Debug, Clone, PartialEq)]
pub struct Answered {
    /// The request.
    pub request: Pending,
    /// The line of the answer.
    pub line: usize,
    /// The result, or the error response.
    pub outcome: Result<Value, Value>,
}

/// A replay window (`session/load`, or `session/resume` with `replayFrom`) still open.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Window {
    root: Id,
    line: usize,
}

/// A `session/resume` without replay still waiting for its response.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Attempt {
    root: Id,
    touched: Vector<Id>,
}

/// The Client's view. Cloning is O(1), and a view kept from an earlier record stays as it
/// was while the engine folds the next ones into its own.
#[derive(Debug, Clone)]
pub struct View {
    options: ViewOptions,
    conn: u64,
    connected: bool,
    version: Option<u64>,
    init: Option<ClientCaps>,
    next_seq: u64,
    /// Every session ever seen, by id and in order of first appearance; shared, so a
    /// copy on write after an O(1) clone of the view copies pointers, never the
    /// neighbours' values.
    sessions: Sessions,
    pending: OrdMap<(Side, RpcId), Pending>,
    windows: OrdMap<RpcId, Window>,
    attempts: OrdMap<RpcId, Attempt>,
    /// The ownership forest as an Euler tour, with the sparse sets a cancel or a reset
    /// visits by subtree (working sessions among them).
    tour: Tour,
    /// The tool calls shown `pending` or `in_progress`, by session (what a cancel may
    /// mark cancelled); the sessions are the tour's `OpenCalls` set.
    open_calls: OrdMap<Id, OrdSet<Arc<str>>>,
    /// The pending permission and elicitation requests of the Agent, by session (known
    /// or not); the known sessions are the tour's `Interactions` set.
    interactions: OrdMap<Id, OrdSet<RpcId>>,
    /// Which session opened each tool call id (`tool_call`), trace-wide: an update on
    /// another session never moves or duplicates the call.
    call_owners: OrdMap<Arc<str>, Id>,
    /// The sessions the Client cancelled on this connection (2026-10-05: a descendant
    /// is cleaned up once it reports a cancelled idle).
    cancelled: OrdSet<Id>,
    /// The Agent requests the Client answered, in order (transcripts option).
    answered: Vector<Arc<Answered>>,
    /// The newest later-revision shape seen, and the oldest draft shape.
    later_shapes: Option<Shapes>,
    draft_shapes: Option<Shapes>,
    /// The work states and capabilities sessions hold, shared between equal ones.
    pool: Pool,
    /// What the records applied since the engine last asked wrote (changes option).
    touches: Vec<changes::Touch>,
    /// The detail of every session that has none of its own.
    empty_detail: Arc<Detail>,
}

impl View {
    /// An empty view: one connection, nothing known.
    pub(crate) fn new(options: ViewOptions) -> Self {
        Self {
            options,
            conn: 1,
            connected: true,
            version: options.header_version,
            init: None,
            next_seq: 0,
            sessions: Sessions::default(),
            pending: OrdMap::new(),
            windows: OrdMap::new(),
            attempts: OrdMap::new(),
            tour: Tour::default(),
            open_calls: OrdMap::new(),
            interactions: OrdMap::new(),
            call_owners: OrdMap::new(),
            cancelled: OrdSet::new(),
            answered: Vector::new(),
            later_shapes: None,
            draft_shapes: None,
            pool: Pool::default(),
            touches: Vec::new(),
            empty_detail: Arc::default(),
        }
    }

    /// The revision whose shapes the stream follows: the newest later-revision shape
    /// seen, else the oldest draft shape seen, else 2026-09-24.
    pub fn shapes(&self) -> Shapes {
        self.later_shapes.or(self.draft_shapes).unwrap_or_default()
    }

    /// The oldest earlier-draft shape seen, if any.
    pub fn draft_shapes(&self) -> Option<Shapes> {
        self.draft_shapes
    }

    /// The Agent requests the Client answered, in order (empty with transcripts off).
    pub fn answered(&self) -> impl Iterator<Item = &Answered> {
        self.answered.iter().map(|a| &**a)
    }

    /// The session that opened tool call `call` with `tool_call`, if any.
    pub fn tool_call_owner(&self, call: &str) -> Option<&Id> {
        self.call_owners.get(call)
    }

    /// Is `id` unknown to the Client: never set up as a root and never associated as
    /// a child (it may have appeared as the outer id of stray traffic)?
    pub fn is_unknown(&self, id: &str) -> bool {
        self.sessions
            .get(id)
            .is_none_or(|s| s.parent.is_none() && !s.set_up && !s.agent_root)
    }

    /// Does the Client's cancel of `id` reach its descendants' interactions and tool
    /// calls at once? Yes under 2026-09-24 ("cascades to its active descendants"); from
    /// 2026-10-05 a descendant is cleaned up only once it reports a cancelled idle.
    pub fn cancel_cascades(&self) -> bool {
        self.options.spec < Revision::Narrowed
    }

    /// 2026-10-05: was `id` or one of its ancestors cancelled by the Client on this
    /// connection (one descendant test per cancelled session)?
    pub(crate) fn under_cancel(&self, id: &str) -> bool {
        self.cancelled
            .iter()
            .any(|c| &**c == id || self.tour.is_descendant(id, c))
    }

    /// `true` unless the last transport event was a disconnect.
    pub fn connected(&self) -> bool {
        self.connected
    }

    /// The RFD revision the view follows (and the checker checks against).
    pub fn spec(&self) -> Revision {
        self.options.spec
    }

    /// This connection's protocol version (the `initialize` response's, else the header's).
    pub fn version(&self) -> Option<u64> {
        self.version
    }

    /// What this connection's `initialize` request advertised (`None` when none was seen).
    pub fn client_caps(&self) -> Option<ClientCaps> {
        self.init
    }

    /// A session by id.
    pub fn session(&self, id: &str) -> Option<&Session> {
        self.sessions.get(id).map(|s| &**s)
    }

    /// Every session, in order of first appearance (no copy, no sort: the view keeps
    /// that order as it learns of sessions).
    pub fn sessions(&self) -> impl DoubleEndedIterator<Item = &Session> + '_ {
        self.sessions.values().map(|s| &**s)
    }

    /// Is `id` a child (associated under a parent at some point of the trace)?
    pub fn is_child(&self, id: &str) -> bool {
        self.sessions.get(id).is_some_and(|s| s.parent.is_some())
    }

    /// Was `id` announced on the live connection since the last reset covering it?
    pub fn announced(&self, id: &str) -> bool {
        self.sessions
            .get(id)
            .is_some_and(|s| s.announced_on.is_on(self.conn))
    }

    /// May the Agent address `id` on this connection: announced, or (for a session that
    /// is not a child) set up by `session/new`, `session/fork`, `session/load` or
    /// `session/resume` on this connection.
    pub fn routable(&self, id: &str) -> bool {
        self.sessions.get(id).is_some_and(|s| {
            s.announced_on.is_on(self.conn)
                || (s.parent.is_none() && s.detail().setup_on.is_on(self.conn))
        })
    }

    /// Is a replay window (load, or resume with `replayFrom`) open on this connection?
    pub fn in_replay(&self) -> bool {
        !self.windows.is_empty()
    }

    /// The line of the most recent open replay window's request.
    pub fn replay_start(&self) -> Option<usize> {
        self.windows.values().map(|w| w.line).max()
    }

    /// Is the last work-state snapshot of `id` a current observation on this connection
    /// (not historical, not from before a reset or a disconnect)?
    pub(crate) fn state_is_current(&self, id: &str) -> bool {
        self.sessions
            .get(id)
            .is_some_and(|s| s.state.is_some() && s.state_current_on.is_on(self.conn))
    }

    /// The current work state of `id` (`None` when unconfirmed).
    pub fn current_state(&self, id: &str) -> Option<&str> {
        if self.state_is_current(id) {
            self.sessions.get(id)?.state_name()
        } else {
            None
        }
    }

    /// May the Client cancel `id` right now? Roots always, unknown sessions never; a child
    /// only when announced on this connection since the last reset, its effective
    /// `cancel` is a JSON object granted outside any replay window, and no resume
    /// without replay covering it is still waiting for its success response. This is
    /// exactly the computation of the `cancel-not-granted` rule.
    pub fn effective_cancel(&self, id: &str) -> bool {
        if self.is_unknown(id) {
            return false;
        }
        let Some(s) = self.sessions.get(id) else {
            return false;
        };
        if s.parent.is_none() {
            return true;
        }
        s.announced_on.is_on(self.conn)
            && s.cancel_granted_on.is_on(self.conn)
            && !self.resume_pending_over(id)
    }

    /// Is a `session/resume` without replay pending for `id` or one of its ancestors?
    /// Each pending attempt is tested with the tour (no walk up the parent chain).
    pub(crate) fn resume_pending_over(&self, id: &str) -> bool {
        self.attempts
            .values()
            .any(|a| &*a.root == id || self.tour.is_descendant(id, &a.root))
    }

    /// The pending request `id` sent by `from` on this connection.
    pub fn pending(&self, from: Side, id: &RpcId) -> Option<&Pending> {
        self.pending.get(&(from, id.clone()))
    }

    /// Every pending request of this connection, in (side, id) order.
    pub fn pending_requests(&self) -> impl Iterator<Item = &Pending> {
        self.pending.values()
    }

    /// `id` itself, then its parent, grandparent, … (a walk: its cost follows the depth).
    pub fn ancestors_or_self<'a>(&'a self, id: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        let limit = self.sessions.len() + 1;
        std::iter::successors(Some(id), move |cur| {
            self.sessions
                .get(cur)
                .and_then(|s| s.parent.as_ref())
                .map(|p| &**p)
        })
        .take(limit)
    }

    /// Is `id` a strict descendant of `ancestor`? Two lookups in the tour, O(log n).
    pub fn is_descendant(&self, id: &str, ancestor: &str) -> bool {
        self.tour.is_descendant(id, ancestor)
    }

    /// The sessions among `root` and its known descendants whose current state is
    /// `running` or `requires_action`, in id order. Its cost follows the working sessions
    /// of `root`'s subtree (a range of the tour), not the subtree's size.
    pub fn working_within<'a>(&'a self, root: &'a str) -> impl Iterator<Item = &'a Id> + 'a {
        let mut working: Vec<&Id> = self.tour.within(Set::Working, root, false).collect();
        working.sort_unstable();
        working.into_iter()
    }

    /// Every known descendant of `root` (not `root` itself), parents before children.
    /// Its cost follows the size of the subtree (every child ever associated under it).
    pub fn descendants(&self, root: &str) -> Vec<Id> {
        let mut out = Vec::new();
        let mut stack: Vec<Id> = self
            .sessions
            .get(root)
            .map(|s| s.children.iter().rev().cloned().collect())
            .unwrap_or_default();
        let limit = self.sessions.len();
        while let Some(id) = stack.pop() {
            if out.len() >= limit {
                break;
            }
            if let Some(s) = self.sessions.get(&id) {
                stack.extend(s.children.iter().rev().cloned());
            }
            out.push(id);
        }
        out
    }

    /// The strict descendants of `root` stamped with a connection fact (announcement,
    /// effective grant, current state) since the last reset covering them, parents
    /// before children: every descendant a load/resume of `root` resets. Its cost
    /// follows those sessions, not the subtree's size.
    pub(crate) fn stamped_descendants(&self, root: &str) -> Vec<Id> {
        self.tour
            .within(Set::Stamped, root, true)
            .cloned()
            .collect()
    }

    /// The pending permission and elicitation requests of the Agent that a cancel or
    /// close of `target` reaches: the target's own, and (with `cascade`) those of its
    /// descendants not confirmed idle (in no particular order). Its cost follows the sessions of the
    /// target's subtree with such requests.
    pub(crate) fn interactions_reached(&self, target: &str, cascade: bool) -> Vec<&Pending> {
        let descendants = self
            .tour
            .within(Set::Interactions, target, true)
            .map(|id| &**id)
            .filter(move |id| cascade && self.current_state(id) != Some("idle"));
        std::iter::once(target)
            .chain(descendants)
            .filter_map(|session| self.interactions.get(session))
            .flatten()
            .filter_map(|id| self.pending.get(&(Side::Agent, id.clone())))
            .collect()
    }

    /// Test support: every session stamped with a connection fact since the last reset
    /// covering it.
    #[cfg(test)]
    pub(crate) fn stamped(&self) -> Vec<Id> {
        self.tour.members(Set::Stamped)
    }

    /// Test support: the live indexes hold exactly the sessions and tool calls their
    /// definitions name, and the tour's sets agree with them.
    #[cfg(test)]
    pub(crate) fn assert_live_indexes(&self) {
        self.tour.assert_consistent();
        let mut working: Vec<Id> = self.tour.members(Set::Working);
        working.sort();
        let mut expected: Vec<Id> = self
            .sessions
            .values()
            .map(|s| s.id.clone())
            .filter(|id| matches!(self.current_state(id), Some("running" | "requires_action")))
            .collect();
        expected.sort();
        assert_eq!(working, expected);
        let mut open: Vec<(Id, Arc<str>)> = self
            .sessions
            .values()
            .flat_map(|s| {
                s.detail()
                    .tool_calls
                    .iter()
                    .filter(|(_, c)| matches!(&*c.status, "pending" | "in_progress"))
                    .map(|(k, _)| (s.id.clone(), k.clone()))
            })
            .collect();
        let indexed: Vec<(Id, Arc<str>)> = self
            .open_calls
            .iter()
            .flat_map(|(s, calls)| calls.iter().map(|c| (s.clone(), c.clone())))
            .collect();
        open.sort();
        assert_eq!(indexed, open);
        self.assert_sparse_sets();
    }

    /// Test support: each tour set holds exactly the sessions its definition names (the
    /// stamped and transcript sets: at least those whose reset would change something).
    #[cfg(test)]
    fn assert_sparse_sets(&self) {
        let members = |set| -> std::collections::BTreeSet<Id> {
            self.tour.members(set).into_iter().collect()
        };
        let with_calls: std::collections::BTreeSet<Id> = self.open_calls.keys().cloned().collect();
        assert_eq!(members(Set::OpenCalls), with_calls);
        let interactions: std::collections::BTreeSet<Id> = self
            .pending
            .values()
            .filter(|p| reduce::is_interaction(p))
            .filter_map(|p| p.session.clone())
            .collect();
        let indexed: std::collections::BTreeSet<Id> = self.interactions.keys().cloned().collect();
        assert_eq!(indexed, interactions);
        let known: std::collections::BTreeSet<Id> = interactions
            .into_iter()
            .filter(|id| self.sessions.contains_key(id))
            .collect();
        assert_eq!(members(Set::Interactions), known);
        let stamped = members(Set::Stamped);
        let written = members(Set::Transcript);
        for s in self.sessions.values() {
            if !stamped.contains(&s.id) {
                assert_eq!(
                    (s.announced_on, s.cancel_granted_on, s.state_current_on),
                    (Stamp::NONE, Stamp::NONE, Stamp::NONE),
                    "`{}` holds a fact but is not stamped",
                    s.id
                );
            }
            if !written.contains(&s.id) {
                assert!(
                    s.detail()
                        .messages
                        .iter()
                        .all(|m| m.period.1 < s.replay_epoch && m.content_epoch < s.replay_epoch),
                    "`{}` has a current-epoch message but is not in the transcript set",
                    s.id
                );
            }
        }
    }

    /// The participants of message `message` of `session`'s transcript accumulated in
    /// the current period (this connection and replay epoch); `(None, None)` otherwise.
    pub(crate) fn known_participants(
        &self,
        session: &str,
        message: &str,
    ) -> (Option<Id>, Option<Id>) {
        self.sessions
            .get(session)
            .and_then(|s| {
                let m = s.message(message)?;
                (m.period == (self.conn, s.replay_epoch))
                    .then(|| (m.sender.clone(), m.recipient.clone()))
            })
            .unwrap_or_default()
    }

    /// Has `session` a session-directed message `message` written on this connection?
    pub(crate) fn has_live_session_message(&self, session: &str, message: &str) -> bool {
        self.sessions
            .get(session)
            .and_then(|s| s.message(message))
            .is_some_and(|m| m.period.0 == self.conn)
    }
}
