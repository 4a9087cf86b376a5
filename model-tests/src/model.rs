//! A deliberately naive reference model of the canonical reducer.
//!
//! Written from the specification ("Provider-Native Subagents", `docs/canonical-events.md`
//! and the decided semantics of issue 3), never from `core/src/tree/reduce/`.
//!
//! Everything is plain `Vec`s scanned linearly. Nothing is cached: a turn's phase, the
//! active descendants of a root turn, whether a cancel covers a turn and whether a root
//! turn can settle are all recomputed from scratch whenever they are needed, and every
//! root gate is re-evaluated after every applied event. The model only uses the public
//! vocabulary types of `lineage-core` (events, outcomes, phases), none of its logic.

use lineage_core::{Event, InteractionStatus, Outcome, Phase, ProviderPhase, Role, ToolStatus};

/// A turn named by its session and 1-based ordinal.
pub type TurnRef = (String, u32);

/// `<session>#<n>`.
pub fn turn_name(t: &TurnRef) -> String {
    format!("{}#{}", t.0, t.1)
}

/// Root or child.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A user-visible session.
    Root,
    /// A subordinate session.
    Child,
}

/// A child's immutable creator relation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Relation {
    /// The delegating session.
    pub parent_session: String,
    /// The delegating turn.
    pub parent_turn: TurnRef,
    /// The delegation tool call, when known.
    pub tool_call: Option<String>,
    /// The root session.
    pub root_session: String,
    /// The root turn.
    pub root_turn: TurnRef,
}

/// The root provider lifecycle of a root turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provider {
    /// Idle, running or completed.
    pub phase: ProviderPhase,
    /// The last provider turn id seen.
    pub id: Option<String>,
    /// The retained outcome.
    pub outcome: Option<Outcome>,
    /// How many provider turns joined this root turn.
    pub turns: u32,
}

/// A turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MTurn {
    /// Ordinal.
    pub n: u32,
    /// Set once, when settled.
    pub outcome: Option<Outcome>,
    /// Child turns: work observed.
    pub started: bool,
    /// Root turns only.
    pub provider: Option<Provider>,
    /// A terminal that arrived after settlement.
    pub late_terminal: Option<Outcome>,
    /// Guidance submissions joined to this (root) turn.
    pub guidance: u32,
    /// Provider error text, kept only for a `failed` / `interrupted` outcome.
    pub error: Option<String>,
    /// `at` of the event that opened the turn.
    pub opened_at: Option<u64>,
    /// `at` of the event that settled the turn.
    pub settled_at: Option<u64>,
    /// The last non-empty usage reported for the turn (set as reported, never summed).
    pub usage: Option<lineage_core::tree::Usage>,
}

/// A transcript entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MMessage {
    /// Message id.
    pub id: Option<String>,
    /// Owning turn ordinal.
    pub turn: u32,
    /// Speaker.
    pub role: Role,
    /// Text.
    pub text: String,
    /// Kept as history of a settled turn.
    pub history: bool,
}

/// A tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MTool {
    /// Call id.
    pub id: String,
    /// Owning turn ordinal.
    pub turn: u32,
    /// Status.
    pub status: ToolStatus,
}

/// A session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MSession {
    /// Id.
    pub id: String,
    /// Root or child.
    pub kind: Kind,
    /// Children only.
    pub relation: Option<Relation>,
    /// Title.
    pub title: Option<String>,
    /// Tombstoned.
    pub deleted: bool,
    /// (kind, id) provider handles.
    pub aliases: Vec<(String, String)>,
    /// Turns in order.
    pub turns: Vec<MTurn>,
    /// Transcript.
    pub messages: Vec<MMessage>,
    /// Tool calls in start order.
    pub tools: Vec<MTool>,
}

/// An interaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MInteraction {
    /// Owning turn.
    pub turn: TurnRef,
    /// Request id.
    pub request: String,
    /// Status.
    pub status: InteractionStatus,
}

/// An in-flight cancel operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MCancel {
    /// The turn the cancel was requested for.
    pub requested: TurnRef,
    /// Every recorded target (requested first).
    pub targets: Vec<TurnRef>,
    /// Targets whose stop the provider confirmed.
    pub acked: Vec<TurnRef>,
}

/// The whole reference state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Model {
    /// Sessions in creation order.
    pub sessions: Vec<MSession>,
    /// Interactions in creation order.
    pub interactions: Vec<MInteraction>,
    /// In-flight cancel operations.
    pub cancels: Vec<MCancel>,
    /// `at` of the event being applied (time is data).
    pub now: Option<u64>,
}

type Handled = Result<Vec<&'static str>, &'static str>;

fn s(id: &lineage_core::SessionId) -> String {
    id.as_str().to_owned()
}

impl Model {
    /// An empty tree.
    pub fn new() -> Self {
        Self::default()
    }

    /// Applies one event: the next state and the diagnostic codes expected. A rejected
    /// event (one code of severity warning or error) returns the state unchanged.
    pub fn step(&self, event: &Event) -> (Model, Vec<&'static str>) {
        self.step_at(event, None)
    }

    /// [`Model::step`] for an event stamped `at` (milliseconds).
    pub fn step_at(&self, event: &Event, at: Option<u64>) -> (Model, Vec<&'static str>) {
        let mut next = self.clone();
        next.now = at;
        match next.handle(event) {
            Ok(notes) => {
                next.settle_gates();
                (next, notes)
            }
            Err(code) => (self.clone(), vec![code]),
        }
    }

    // ----- queries (all by scanning) -----

    /// The session with this id.
    pub fn session(&self, id: &str) -> Option<&MSession> {
        self.sessions.iter().find(|x| x.id == id)
    }

    fn session_mut(&mut self, id: &str) -> Option<&mut MSession> {
        self.sessions.iter_mut().find(|x| x.id == id)
    }

    /// The turn named by `t`.
    pub fn turn(&self, t: &TurnRef) -> Option<&MTurn> {
        self.session(&t.0)?.turns.iter().find(|x| x.n == t.1)
    }

    fn turn_mut(&mut self, t: &TurnRef) -> Option<&mut MTurn> {
        self.session_mut(&t.0)?
            .turns
            .iter_mut()
            .find(|x| x.n == t.1)
    }

    /// Not settled.
    pub fn is_active(&self, t: &TurnRef) -> bool {
        self.turn(t).is_some_and(|x| x.outcome.is_none())
    }

    /// The session's unsettled turn.
    pub fn active_turn(&self, id: &str) -> Option<TurnRef> {
        let session = self.session(id)?;
        session
            .turns
            .iter()
            .find(|t| t.outcome.is_none())
            .map(|t| (id.to_owned(), t.n))
    }

    /// The in-flight cancel covering this active turn.
    pub fn covering(&self, t: &TurnRef) -> Option<&MCancel> {
        if !self.is_active(t) {
            return None;
        }
        self.cancels.iter().find(|c| c.targets.contains(t))
    }

    /// Is the active turn covered by an in-flight cancel?
    pub fn covered(&self, t: &TurnRef) -> bool {
        self.covering(t).is_some()
    }

    /// Every unsettled child turn, any depth, whose root turn is `root_turn`.
    pub fn active_descendants(&self, root_turn: &TurnRef) -> Vec<TurnRef> {
        let mut out = Vec::new();
        for session in &self.sessions {
            if session.deleted || session.kind != Kind::Child {
                continue;
            }
            let Some(rel) = &session.relation else {
                continue;
            };
            if &rel.root_turn != root_turn {
                continue;
            }
            for t in &session.turns {
                if t.outcome.is_none() {
                    out.push((session.id.clone(), t.n));
                }
            }
        }
        out
    }

    /// `id` and every session below it (by parent session), found by repeated scans.
    pub fn subtree(&self, id: &str) -> Vec<String> {
        let mut out = vec![id.to_owned()];
        loop {
            let mut grew = false;
            for session in &self.sessions {
                if out.contains(&session.id) {
                    continue;
                }
                if let Some(rel) = &session.relation
                    && out.contains(&rel.parent_session)
                {
                    out.push(session.id.clone());
                    grew = true;
                }
            }
            if !grew {
                return out;
            }
        }
    }

    /// The session a provider handle names.
    pub fn alias_owner(&self, kind: &str, id: &str) -> Option<&str> {
        self.sessions
            .iter()
            .find(|x| x.aliases.iter().any(|(k, i)| k == kind && i == id))
            .map(|x| x.id.as_str())
    }

    /// The derived phase of a turn.
    pub fn phase(&self, t: &TurnRef) -> Phase {
        let Some(turn) = self.turn(t) else {
            return Phase::Submitted;
        };
        if turn.outcome.is_some() {
            return Phase::Settled;
        }
        if self.covered(t) {
            return Phase::Settling;
        }
        if self
            .interactions
            .iter()
            .any(|i| &i.turn == t && i.status == InteractionStatus::Pending)
        {
            return Phase::Waiting;
        }
        match &turn.provider {
            Some(p) => match p.phase {
                ProviderPhase::Idle => Phase::Submitted,
                ProviderPhase::Running => Phase::Running,
                ProviderPhase::Completed => Phase::Waiting,
            },
            None if turn.started => Phase::Running,
            None => Phase::Submitted,
        }
    }

    // ----- helpers for generators -----

    /// Non-deleted root session ids.
    pub fn roots(&self) -> Vec<String> {
        self.sessions
            .iter()
            .filter(|x| !x.deleted && x.kind == Kind::Root)
            .map(|x| x.id.clone())
            .collect()
    }

    /// Non-deleted child session ids.
    pub fn children(&self) -> Vec<String> {
        self.sessions
            .iter()
            .filter(|x| !x.deleted && x.kind == Kind::Child)
            .map(|x| x.id.clone())
            .collect()
    }

    /// Every session id ever created (deleted too).
    pub fn all_ids(&self) -> Vec<String> {
        self.sessions.iter().map(|x| x.id.clone()).collect()
    }

    /// Every non-deleted session id.
    pub fn live_ids(&self) -> Vec<String> {
        self.sessions
            .iter()
            .filter(|x| !x.deleted)
            .map(|x| x.id.clone())
            .collect()
    }

    /// Every active turn.
    pub fn active_turns(&self) -> Vec<TurnRef> {
        self.sessions
            .iter()
            .filter_map(|x| self.active_turn(&x.id))
            .collect()
    }

    /// Sessions whose active turn a cancel covers.
    pub fn covered_sessions(&self) -> Vec<String> {
        self.active_turns()
            .into_iter()
            .filter(|t| self.covered(t))
            .map(|t| t.0)
            .collect()
    }

    /// (session, request) of every interaction.
    pub fn interaction_keys(&self) -> Vec<(String, String)> {
        self.interactions
            .iter()
            .map(|i| (i.turn.0.clone(), i.request.clone()))
            .collect()
    }

    // ----- mutation -----

    fn settle(&mut self, t: &TurnRef, outcome: Outcome, error: Option<String>) {
        let now = self.now;
        if let Some(turn) = self.turn_mut(t) {
            turn.outcome = Some(outcome);
            turn.settled_at = now;
            // A canceled or completed turn carries no error (seed: *Cancellation*).
            turn.error =
                error.filter(|_| matches!(outcome, Outcome::Failed | Outcome::Interrupted));
        }
        for i in &mut self.interactions {
            if &i.turn == t && i.status == InteractionStatus::Pending {
                i.status = InteractionStatus::Superseded;
            }
        }
    }

    /// Settles every root turn whose gate is open: provider completed, no active nested
    /// child turn, no cancel covering it.
    fn settle_gates(&mut self) {
        loop {
            let mut ready: Option<(TurnRef, Outcome, Option<String>)> = None;
            for root in self.roots() {
                let Some(t) = self.active_turn(&root) else {
                    continue;
                };
                let Some(turn) = self.turn(&t) else { continue };
                let Some(p) = &turn.provider else { continue };
                if p.phase != ProviderPhase::Completed {
                    continue;
                }
                let Some(outcome) = p.outcome else { continue };
                if !self.active_descendants(&t).is_empty() || self.covered(&t) {
                    continue;
                }
                let error = turn.error.clone();
                ready = Some((t, outcome, error));
                break;
            }
            match ready {
                Some((t, outcome, error)) => self.settle(&t, outcome, error),
                None => return,
            }
        }
    }

    fn live(&self, id: &lineage_core::SessionId) -> Result<&MSession, &'static str> {
        let session = self.session(id.as_str()).ok_or("unknown-session")?;
        if session.deleted {
            return Err("deleted-session");
        }
        Ok(session)
    }

    fn handle(&mut self, event: &Event) -> Handled {
        match event {
            Event::RootSessionCreated {
                session,
                title,
                aliases,
            } => {
                if let Some(existing) = self.session(session.as_str()) {
                    if existing.kind == Kind::Child {
                        return Err("session-kind-conflict");
                    }
                    if existing.deleted {
                        // A tombstone never changes.
                        return Err("deleted-session");
                    }
                    // Aligned with the reducer (the spec is silent): a repeated creation
                    // binds aliases it newly names.
                    let aliases = self.check_new_aliases(session.as_str(), aliases)?;
                    if let Some(sess) = self.session_mut(session.as_str()) {
                        for a in aliases {
                            if !sess.aliases.contains(&a) {
                                sess.aliases.push(a);
                            }
                        }
                    }
                    return Ok(vec!["duplicate-session"]);
                }
                let aliases = self.check_new_aliases(session.as_str(), aliases)?;
                self.sessions.push(MSession {
                    id: s(session),
                    kind: Kind::Root,
                    relation: None,
                    title: title.clone(),
                    deleted: false,
                    aliases,
                    turns: Vec::new(),
                    messages: Vec::new(),
                    tools: Vec::new(),
                });
                Ok(vec![])
            }
            Event::UserSubmitted {
                session,
                message,
                text,
            } => {
                let sess = self.live(session)?;
                if sess.kind == Kind::Child {
                    return Err("child-guidance-unsupported");
                }
                let n = u32::try_from(sess.turns.len()).unwrap_or(u32::MAX);
                match self.active_turn(session.as_str()) {
                    Some(t) => {
                        if self.covered(&t) {
                            return Err("submission-during-cancel");
                        }
                        if let Some(turn) = self.turn_mut(&t) {
                            turn.guidance += 1;
                        }
                        self.user_message(session.as_str(), t.1, message, text);
                    }
                    None => {
                        let now = self.now;
                        if let Some(sess) = self.session_mut(session.as_str()) {
                            sess.turns.push(MTurn {
                                n: n + 1,
                                outcome: None,
                                started: false,
                                provider: Some(Provider {
                                    phase: ProviderPhase::Idle,
                                    id: None,
                                    outcome: None,
                                    turns: 0,
                                }),
                                late_terminal: None,
                                guidance: 0,
                                error: None,
                                opened_at: now,
                                settled_at: None,
                                usage: None,
                            });
                        }
                        self.user_message(session.as_str(), n + 1, message, text);
                    }
                }
                Ok(vec![])
            }
            Event::RootProviderTurnStarted {
                session,
                provider_turn,
            } => {
                let sess = self.live(session)?;
                if sess.kind != Kind::Root {
                    return Err("wrong-session-kind");
                }
                let t = self
                    .active_turn(session.as_str())
                    .ok_or("unowned-provider-turn")?;
                if self.covered(&t) {
                    return Err("provider-turn-during-cancel");
                }
                let Some(turn) = self.turn_mut(&t) else {
                    return Ok(vec![]);
                };
                let Some(p) = turn.provider.as_mut() else {
                    return Ok(vec![]);
                };
                if p.phase == ProviderPhase::Running
                    && (provider_turn.is_none() || *provider_turn == p.id)
                {
                    return Ok(vec![]);
                }
                p.phase = ProviderPhase::Running;
                p.outcome = None;
                p.turns += 1;
                p.id = provider_turn.clone();
                turn.error = None;
                Ok(vec![])
            }
            Event::RootProviderTurnCompleted {
                session,
                provider_turn,
                outcome,
                error,
            } => {
                let sess = self.live(session)?;
                if sess.kind != Kind::Root {
                    return Err("wrong-session-kind");
                }
                let last = sess.turns.last().ok_or("unmatched-provider-terminal")?;
                let t = (s(session), last.n);
                if last.outcome.is_some() {
                    // Only a *matching* terminal of a live provider turn is recorded late
                    // (seed); any other late terminal is only noted.
                    let live = last
                        .provider
                        .as_ref()
                        .filter(|p| p.phase == ProviderPhase::Running);
                    if let (Some(a), Some(b)) = (provider_turn, live.and_then(|p| p.id.as_ref()))
                        && a != b
                    {
                        return Err("unmatched-provider-terminal");
                    }
                    // The running provider turn confirming the cancel is the expected
                    // order and is recorded silently.
                    let confirms = live.is_some()
                        && last.outcome == Some(Outcome::Canceled)
                        && matches!(outcome, Outcome::Interrupted | Outcome::Canceled);
                    if let Some(p) = self.turn_mut(&t).and_then(|x| x.provider.as_mut())
                        && p.phase == ProviderPhase::Running
                    {
                        p.phase = ProviderPhase::Completed;
                        p.outcome = Some(*outcome);
                    }
                    if confirms {
                        return Ok(vec![]);
                    }
                    return Ok(vec!["late-provider-terminal"]);
                }
                let covered = self.covered(&t);
                let turn = self.turn_mut(&t).ok_or("unmatched-provider-terminal")?;
                let p = turn
                    .provider
                    .as_mut()
                    .ok_or("unmatched-provider-terminal")?;
                if p.phase != ProviderPhase::Running {
                    return Err("unmatched-provider-terminal");
                }
                if let (Some(a), Some(b)) = (provider_turn, &p.id)
                    && a != b
                {
                    return Err("unmatched-provider-terminal");
                }
                p.phase = ProviderPhase::Completed;
                p.outcome = Some(*outcome);
                // Aligned with the reducer: the retained outcome's error text is kept on
                // the root turn (only for failed / interrupted, and not while a cancel
                // that will settle it `canceled` covers it).
                turn.error = error.clone().filter(|_| {
                    !covered && matches!(outcome, Outcome::Failed | Outcome::Interrupted)
                });
                Ok(vec![])
            }
            Event::ChildSpawned {
                session,
                parent_session,
                parent_turn,
                tool_call,
                title,
                aliases,
            } => self.spawn(
                session.as_str(),
                parent_session.as_str(),
                parent_turn
                    .as_ref()
                    .map(|t| (t.session().as_str().to_owned(), t.ordinal())),
                tool_call.as_ref().map(|c| c.as_str().to_owned()),
                title.clone(),
                aliases,
            ),
            Event::ChildTurnStarted { session } => {
                let sess = self.live(session)?;
                if sess.kind != Kind::Child {
                    return Err("wrong-session-kind");
                }
                if let Some(t) = self.active_turn(session.as_str()) {
                    if let Some(turn) = self.turn_mut(&t) {
                        turn.started = true;
                    }
                    return Ok(vec![]);
                }
                let rel = sess.relation.clone().ok_or("wrong-session-kind")?;
                let n = u32::try_from(sess.turns.len()).unwrap_or(u32::MAX);
                if !self.is_active(&rel.root_turn) || self.covered(&rel.root_turn) {
                    return Err("late-child-turn");
                }
                // New work is closed while a cancel of this child's earlier work is in
                // flight, or while one covers an ancestor's current turn (it would escape
                // the recorded target set).
                if self
                    .cancels
                    .iter()
                    .any(|c| c.requested.0 == session.as_str())
                {
                    return Err("spawn-after-cancel");
                }
                let mut ancestor = Some(rel.parent_session.clone());
                while let Some(a) = ancestor {
                    if let Some(t) = self.active_turn(&a)
                        && self.covered(&t)
                    {
                        return Err("spawn-after-cancel");
                    }
                    ancestor = self
                        .session(&a)
                        .and_then(|x| x.relation.as_ref())
                        .map(|r| r.parent_session.clone());
                }
                let now = self.now;
                if let Some(sess) = self.session_mut(session.as_str()) {
                    sess.turns.push(MTurn {
                        n: n + 1,
                        outcome: None,
                        started: true,
                        provider: None,
                        late_terminal: None,
                        guidance: 0,
                        error: None,
                        opened_at: now,
                        settled_at: None,
                        usage: None,
                    });
                }
                Ok(vec![])
            }
            Event::ChildTurnCompleted {
                session,
                outcome,
                error,
            } => {
                let sess = self.live(session)?;
                if sess.kind != Kind::Child {
                    return Err("wrong-session-kind");
                }
                match self.active_turn(session.as_str()) {
                    Some(t) => {
                        let stop_report =
                            matches!(outcome, Outcome::Canceled | Outcome::Interrupted);
                        if stop_report
                            && let Some(op) =
                                self.cancels.iter_mut().find(|c| c.targets.contains(&t))
                        {
                            if !op.acked.contains(&t) {
                                op.acked.push(t);
                            }
                            return Ok(vec![]);
                        }
                        // A failure after the stop was confirmed is cancellation fallout
                        // (seed, *Cancellation*): the cancel settles the target canceled.
                        let fallout = *outcome == Outcome::Failed
                            && self.cancels.iter().any(|c| c.acked.contains(&t));
                        if fallout {
                            return Ok(vec![]);
                        }
                        self.settle(&t, *outcome, error.clone());
                        Ok(vec![])
                    }
                    None => {
                        // Aligned with the reducer (the spec is silent): the first late
                        // terminal is the one recorded.
                        if let Some(last) = self
                            .session_mut(session.as_str())
                            .and_then(|x| x.turns.last_mut())
                            && last.late_terminal.is_none()
                        {
                            last.late_terminal = Some(*outcome);
                        }
                        Ok(vec!["late-terminal"])
                    }
                }
            }
            Event::Message {
                session,
                message,
                role,
                text,
            } => {
                let (turn, history, notes) = self.output_target(session)?;
                let sess = self
                    .session_mut(session.as_str())
                    .ok_or("unknown-session")?;
                let id = message.as_ref().map(|m| m.as_str().to_owned());
                match sess
                    .messages
                    .iter_mut()
                    .find(|m| id.is_some() && m.id == id)
                {
                    Some(existing) => existing.text.push_str(text),
                    None => sess.messages.push(MMessage {
                        id,
                        turn,
                        role: *role,
                        text: text.clone(),
                        history,
                    }),
                }
                Ok(notes)
            }
            Event::ToolCallStarted { session, call, .. } => {
                // Aligned with the reducer (the spec is silent): a repeated start of a
                // known call changes nothing.
                if self
                    .live(session)?
                    .tools
                    .iter()
                    .any(|c| c.id == call.as_str())
                {
                    return Ok(vec![]);
                }
                let (turn, _, notes) = self.output_target(session)?;
                let sess = self
                    .session_mut(session.as_str())
                    .ok_or("unknown-session")?;
                if !sess.tools.iter().any(|c| c.id == call.as_str()) {
                    sess.tools.push(MTool {
                        id: call.as_str().to_owned(),
                        turn,
                        status: ToolStatus::InProgress,
                    });
                }
                Ok(notes)
            }
            Event::ToolCallCompleted {
                session,
                call,
                status,
            } => {
                self.live(session)?;
                if let Some(existing) = self
                    .session_mut(session.as_str())
                    .and_then(|x| x.tools.iter_mut().find(|c| c.id == call.as_str()))
                {
                    existing.status = *status;
                    return Ok(vec![]);
                }
                let (turn, _, notes) = self.output_target(session)?;
                let sess = self
                    .session_mut(session.as_str())
                    .ok_or("unknown-session")?;
                sess.tools.push(MTool {
                    id: call.as_str().to_owned(),
                    turn,
                    status: *status,
                });
                Ok(notes)
            }
            Event::AliasBound { session, alias } => {
                self.live(session)?;
                match self.alias_owner(&alias.kind, &alias.id) {
                    Some(owner) if owner == session.as_str() => Ok(vec![]),
                    Some(_) => Err("alias-conflict"),
                    None => {
                        if let Some(sess) = self.session_mut(session.as_str()) {
                            sess.aliases
                                .push((alias.kind.to_string(), alias.id.to_string()));
                        }
                        Ok(vec![])
                    }
                }
            }
            Event::UsageReported { turn, .. } => {
                self.live(turn.session())?;
                let usage = event.usage().unwrap_or_default();
                let t: TurnRef = (turn.session().as_str().to_owned(), turn.ordinal());
                let m = self.turn_mut(&t).ok_or("unknown-turn")?;
                if !usage.is_empty() {
                    m.usage = Some(usage);
                }
                Ok(vec![])
            }
            Event::SessionTitled { session, title } => {
                self.live(session)?;
                if let Some(sess) = self.session_mut(session.as_str()) {
                    sess.title = title.clone();
                }
                Ok(vec![])
            }
            Event::InteractionRequested {
                session, request, ..
            } => {
                self.live(session)?;
                let t = self
                    .active_turn(session.as_str())
                    .ok_or("interaction-without-turn")?;
                if self.interactions.iter().any(|i| {
                    i.turn.0 == session.as_str()
                        && i.request == request.as_str()
                        && i.status == InteractionStatus::Pending
                }) {
                    return Ok(vec!["duplicate-interaction"]);
                }
                match self
                    .interactions
                    .iter_mut()
                    .find(|i| i.turn == t && i.request == request.as_str())
                {
                    Some(existing) => existing.status = InteractionStatus::Pending,
                    None => self.interactions.push(MInteraction {
                        turn: t.clone(),
                        request: request.as_str().to_owned(),
                        status: InteractionStatus::Pending,
                    }),
                }
                self.mark_started(&t);
                Ok(vec![])
            }
            Event::InteractionAnswered {
                session, request, ..
            } => self.close_interaction(session, request, InteractionStatus::Answered),
            Event::InteractionResolved { session, request } => {
                self.close_interaction(session, request, InteractionStatus::Resolved)
            }
            Event::CancelRequested { session } => {
                let sess = self.live(session)?;
                let kind = sess.kind;
                let t = self
                    .active_turn(session.as_str())
                    .ok_or("nothing-to-cancel")?;
                if self.covered(&t) {
                    return Ok(vec!["already-cancelling"]);
                }
                let targets = self.cancel_targets(session.as_str(), kind, &t);
                let mut acked = Vec::new();
                let mut kept = Vec::new();
                for op in std::mem::take(&mut self.cancels) {
                    if op.targets.iter().any(|x| targets.contains(x)) {
                        for a in op.acked {
                            if targets.contains(&a) && !acked.contains(&a) {
                                acked.push(a);
                            }
                        }
                    } else {
                        kept.push(op);
                    }
                }
                kept.push(MCancel {
                    requested: t,
                    targets,
                    acked,
                });
                self.cancels = kept;
                Ok(vec![])
            }
            Event::CancelAcknowledged { session } => {
                // Aligned with the reducer: the session's last turn, active or already
                // settled, still listed as a target of an in-flight cancel.
                let last = self.live(session)?.turns.last().map(|t| t.n);
                let t = last.map(|n| (s(session), n)).ok_or("no-pending-cancel")?;
                let op = self
                    .cancels
                    .iter_mut()
                    .find(|c| c.targets.contains(&t))
                    .ok_or("no-pending-cancel")?;
                if !op.acked.contains(&t) {
                    op.acked.push(t);
                }
                Ok(vec![])
            }
            Event::CancelCompleted { session } => {
                let kind = self.live(session)?.kind;
                let own = self
                    .cancels
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| c.requested.0 == session.as_str())
                    .max_by_key(|(_, c)| c.requested.1)
                    .map(|(i, _)| i);
                let Some(index) = own else {
                    return match self.active_turn(session.as_str()) {
                        Some(t) if self.covered(&t) => Ok(vec!["cancel-absorbed"]),
                        _ => Err("no-pending-cancel"),
                    };
                };
                let op = self.cancels.remove(index);
                // Children first, the requested turn last.
                for t in op.targets.iter().skip(1).rev() {
                    if self.is_active(t) {
                        let outcome = if op.acked.contains(t) {
                            Outcome::Canceled
                        } else {
                            Outcome::Interrupted
                        };
                        self.settle(t, outcome, None);
                    }
                }
                if self.is_active(&op.requested) {
                    let outcome = if kind == Kind::Root || op.acked.contains(&op.requested) {
                        Outcome::Canceled
                    } else {
                        Outcome::Interrupted
                    };
                    self.settle(&op.requested, outcome, None);
                }
                Ok(vec![])
            }
            Event::SessionDeleted { session } => {
                self.live(session)?;
                let doomed = self.subtree(session.as_str());
                // Operations requested in the subtree go with it; the subtree's active
                // turns leave the other operations (settled targets stay recorded).
                let doomed_active: Vec<TurnRef> = self
                    .active_turns()
                    .into_iter()
                    .filter(|t| doomed.contains(&t.0))
                    .collect();
                self.cancels.retain(|c| !doomed.contains(&c.requested.0));
                for op in &mut self.cancels {
                    op.targets.retain(|t| !doomed_active.contains(t));
                    op.acked.retain(|t| !doomed_active.contains(t));
                }
                for sess in &mut self.sessions {
                    if doomed.contains(&sess.id) {
                        sess.deleted = true;
                        sess.turns.clear();
                        sess.messages.clear();
                        sess.tools.clear();
                    }
                }
                self.interactions.retain(|i| !doomed.contains(&i.turn.0));
                Ok(vec![])
            }
        }
    }

    /// The target set a cancel of `t` (the active turn of `session`) records: a root
    /// turn and every active nested child turn under it; or a child turn and the active
    /// turns of the child's descendant sessions.
    pub fn cancel_targets(&self, session: &str, kind: Kind, t: &TurnRef) -> Vec<TurnRef> {
        let mut targets = vec![t.clone()];
        match kind {
            Kind::Root => targets.extend(self.active_descendants(t)),
            Kind::Child => {
                for id in self.subtree(session) {
                    if id == session {
                        continue;
                    }
                    if let Some(d) = self.active_turn(&id) {
                        targets.push(d);
                    }
                }
            }
        }
        targets
    }

    fn check_new_aliases(
        &self,
        session: &str,
        aliases: &[lineage_core::Alias],
    ) -> Result<Vec<(String, String)>, &'static str> {
        let mut out: Vec<(String, String)> = Vec::new();
        for a in aliases {
            if let Some(owner) = self.alias_owner(&a.kind, &a.id)
                && owner != session
            {
                return Err("alias-conflict");
            }
            let pair = (a.kind.to_string(), a.id.to_string());
            if !out.contains(&pair) {
                out.push(pair);
            }
        }
        Ok(out)
    }

    /// The user's submitted text joins the root turn's transcript.
    fn user_message(
        &mut self,
        session: &str,
        turn: u32,
        message: &Option<lineage_core::MessageId>,
        text: &Option<String>,
    ) {
        let Some(text) = text else { return };
        let id = message.as_ref().map(|m| m.as_str().to_owned());
        if let Some(sess) = self.session_mut(session) {
            match sess
                .messages
                .iter_mut()
                .find(|m| id.is_some() && m.id == id)
            {
                Some(existing) => existing.text.push_str(text),
                None => sess.messages.push(MMessage {
                    id,
                    turn,
                    role: Role::User,
                    text: text.clone(),
                    history: false,
                }),
            }
        }
    }

    fn mark_started(&mut self, t: &TurnRef) {
        if let Some(turn) = self.turn_mut(t)
            && turn.provider.is_none()
        {
            turn.started = true;
        }
    }

    /// The turn output of `session` belongs to: (ordinal, history, notes).
    fn output_target(
        &mut self,
        session: &lineage_core::SessionId,
    ) -> Result<(u32, bool, Vec<&'static str>), &'static str> {
        let sess = self.live(session)?;
        if let Some(t) = self.active_turn(session.as_str()) {
            self.mark_started(&t);
            return Ok((t.1, false, vec![]));
        }
        if sess.kind == Kind::Root {
            return Err("late-root-output");
        }
        let last = sess.turns.last().ok_or("late-child-output")?;
        Ok((last.n, true, vec!["late-child-output"]))
    }

    fn close_interaction(
        &mut self,
        session: &lineage_core::SessionId,
        request: &lineage_core::RequestId,
        status: InteractionStatus,
    ) -> Handled {
        self.live(session)?;
        let found = self
            .interactions
            .iter_mut()
            .filter(|i| i.turn.0 == session.as_str() && i.request == request.as_str())
            .max_by_key(|i| i.turn.1)
            .ok_or("unknown-interaction")?;
        // The provider may resolve an interaction the client answered.
        let open = found.status == InteractionStatus::Pending
            || (status == InteractionStatus::Resolved
                && found.status == InteractionStatus::Answered);
        if !open {
            return Ok(vec!["interaction-closed"]);
        }
        found.status = status;
        Ok(vec![])
    }

    fn spawn(
        &mut self,
        child: &str,
        parent: &str,
        parent_turn: Option<TurnRef>,
        tool_call: Option<String>,
        title: Option<String>,
        aliases: &[lineage_core::Alias],
    ) -> Handled {
        let parent_session = self.session(parent).ok_or("unknown-session")?.clone();
        if parent_session.deleted {
            return Err("deleted-session");
        }
        // The delegating turn: explicit, else the parent's active turn, else its last.
        let pt: TurnRef = match parent_turn {
            Some(t) => t,
            None => self
                .active_turn(parent)
                .or_else(|| {
                    parent_session
                        .turns
                        .last()
                        .map(|t| (parent.to_owned(), t.n))
                })
                .ok_or("unknown-parent-turn")?,
        };
        if pt.0 != parent || !parent_session.turns.iter().any(|t| t.n == pt.1) {
            return Err("unknown-parent-turn");
        }
        if let Some(existing) = self.session(child) {
            if existing.kind == Kind::Root {
                return Err("session-kind-conflict");
            }
            let rel = existing.relation.as_ref().ok_or("session-kind-conflict")?;
            // The edge is (parent session, parent turn, delegation call when named).
            let other_call =
                tool_call.is_some() && rel.tool_call.is_some() && tool_call != rel.tool_call;
            if rel.parent_session != parent || rel.parent_turn != pt || other_call {
                return Err("reparent-rejected");
            }
            if existing.deleted {
                return Err("deleted-session");
            }
            // The same edge again: nothing about the relation changes. Aligned with the
            // reducer (the spec lets adapters merge later fields): a title (when the
            // child has none) and aliases the repeat carries are merged into it.
            let aliases = self.check_new_aliases(child, aliases)?;
            if let Some(sess) = self.session_mut(child) {
                if sess.title.is_none() {
                    sess.title = title;
                }
                for a in aliases {
                    if !sess.aliases.contains(&a) {
                        sess.aliases.push(a);
                    }
                }
            }
            return Ok(vec!["duplicate-spawn"]);
        }
        if !self.is_active(&pt) {
            return Err("spawn-under-settled-turn");
        }
        let (root_session, root_turn) = match &parent_session.relation {
            Some(rel) => (rel.root_session.clone(), rel.root_turn.clone()),
            None => (parent.to_owned(), pt.clone()),
        };
        if self.covered(&pt) || self.covered(&root_turn) {
            return Err("spawn-after-cancel");
        }
        let aliases = self.check_new_aliases(child, aliases)?;
        self.sessions.push(MSession {
            id: child.to_owned(),
            kind: Kind::Child,
            relation: Some(Relation {
                parent_session: parent.to_owned(),
                parent_turn: pt,
                tool_call,
                root_session,
                root_turn,
            }),
            title,
            deleted: false,
            aliases,
            turns: vec![MTurn {
                n: 1,
                outcome: None,
                started: false,
                provider: None,
                late_terminal: None,
                guidance: 0,
                error: None,
                opened_at: self.now,
                settled_at: None,
                usage: None,
            }],
            messages: Vec::new(),
            tools: Vec::new(),
        });
        Ok(vec![])
    }
}
