//! The client's `turn/interrupt` fan-out as a canonical cancel operation.
//!
//! docs/contract.md (`codex-app-server`): "A client `turn/interrupt` of the root's active provider
//! turn is the user's cancel of the canonical root turn, prepared at that line; the
//! client's later `turn/interrupt`s of child threads are its fan-out; the cancel completes
//! when every interrupt sent for it has a response." The seed has Codex stop the root
//! first and interrupt the children afterwards, so "every interrupt sent for it" includes
//! the fan-out still to come: the operation completes once no interrupt is outstanding
//! and every recorded target thread has either been interrupted or ended on its own.
//! A successful interrupt response acknowledges its target; a child turn that completes
//! `interrupted` acknowledges itself (the reducer treats that terminal as evidence).

use std::collections::BTreeSet;

use super::CodexAdapter;
use super::rpc::{ClientRequest, RpcId};
use crate::finding::Code;
use crate::ids::SessionId;
use crate::providers::Ctx;
use crate::tree::{Event, Snapshot};

/// One cancel operation's transport state.
#[derive(Debug, Clone)]
pub(super) struct CancelFanOut {
    /// The line of the interrupt that prepared it.
    pub(super) line: usize,
    /// Interrupts sent and not yet answered.
    pub(super) outstanding: BTreeSet<RpcId>,
    /// Threads an interrupt was sent to.
    interrupted: BTreeSet<SessionId>,
    /// Sessions of the recorded target set (the requested one excluded).
    targets: Vec<SessionId>,
}

impl CancelFanOut {
    /// Target threads still active that no interrupt was sent to.
    pub(super) fn uninterrupted(&self, snapshot: &Snapshot) -> Vec<SessionId> {
        self.targets
            .iter()
            .filter(|t| !self.interrupted.contains(*t))
            .filter(|t| {
                snapshot
                    .session(t)
                    .is_some_and(|s| s.active_turn().is_some())
            })
            .cloned()
            .collect()
    }
}

impl CodexAdapter {
    /// A client `turn/interrupt` of `thread`.
    pub(super) fn interrupt(
        &mut self,
        cx: &mut Ctx<'_>,
        id: &RpcId,
        thread: &str,
        turn: Option<String>,
    ) -> ClientRequest {
        let thread = SessionId::from(thread);
        // Part of the fan-out of an operation in flight?
        let joined = self
            .cancels
            .iter_mut()
            .find(|(session, op)| **session == thread || op.targets.contains(&thread));
        if let Some((operation, op)) = joined {
            op.outstanding.insert(id.clone());
            op.interrupted.insert(thread.clone());
            return ClientRequest::Interrupt {
                thread,
                turn,
                operation: operation.clone(),
            };
        }
        if cx.snapshot().session(&thread).is_none() {
            cx.finding(Code::InterruptUnregisteredThread, format!(
                    "turn/interrupt of thread `{thread}`, which is no session (never registered, or revealed after a cancel and never created): transport cleanup only"
                ),);
            return ClientRequest::Other;
        }
        // A new operation: the root's (the user's cancel) or a child-only cancel.
        let step = cx.emit(Event::CancelRequested {
            session: thread.clone(),
        });
        let Some(targets) = step.cancel_prepared() else {
            return ClientRequest::Other; // the reducer refused it (and said why)
        };
        if self.roots.contains(&thread) {
            self.boundary_opened(&thread);
        }
        let targets = targets
            .iter()
            .skip(1)
            .map(|t| t.session().clone())
            .collect();
        self.cancels.insert(
            thread.clone(),
            CancelFanOut {
                line: cx.line(),
                outstanding: BTreeSet::from([id.clone()]),
                interrupted: BTreeSet::from([thread.clone()]),
                targets,
            },
        );
        ClientRequest::Interrupt {
            operation: thread.clone(),
            thread,
            turn,
        }
    }

    /// The server answered an interrupt: a success acknowledges its target.
    pub(super) fn interrupt_returned(
        &mut self,
        cx: &mut Ctx<'_>,
        id: &RpcId,
        thread: &SessionId,
        turn: Option<String>,
        operation: &SessionId,
        ok: bool,
    ) {
        if let Some(op) = self.cancels.get_mut(operation) {
            op.outstanding.remove(id);
        }
        if ok {
            if let Some(turn) = turn {
                self.interrupted_turns.insert((thread.clone(), turn));
            }
            cx.emit(Event::CancelAcknowledged {
                session: thread.clone(),
            });
        }
    }

    /// Completes every operation with no interrupt outstanding and no target left to
    /// interrupt.
    pub(super) fn try_complete_cancels(&mut self, cx: &mut Ctx<'_>) {
        let done: Vec<SessionId> = self
            .cancels
            .iter()
            .filter(|(_, op)| {
                op.outstanding.is_empty() && op.uninterrupted(cx.snapshot()).is_empty()
            })
            .map(|(session, _)| session.clone())
            .collect();
        for session in done {
            self.cancels.remove(&session);
            cx.emit(Event::CancelCompleted { session });
        }
    }
}
