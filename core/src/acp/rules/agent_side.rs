//! Agent-side-only sources: an ACP adapter's own test recording holds the messages the
//! Agent sent and none of the Client's.
//!
//! Owns: reading such a source's lines ([`crate::acp::recording`] translates each into
//! the Agent's JSON-RPC message), and the one note saying what the source lacks. A
//! response is paired with the Client method the line names (the view stands that
//! request pending for it, and nothing else of the Client's), so every response rule
//! and the view's reading of results apply as on the wire.
//! Never: reports what only the Client's messages would tell: the Agent's requests are
//! never answered in such a source (no `child-request-unanswered`,
//! `permission-left-pending` or unanswered `elicitation-not-cancelled` at its end), and a
//! session that is not a child may have been set up by a Client `session/load` or
//! `session/resume` the source does not hold (`traffic-before-announce` holds an Agent to
//! its announcements of children only). Rules that need the Client's `initialize`, its
//! cancels or a replay window's request find none and stay silent by themselves.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::Checker;
use crate::acp::recording::{self, Recorded};
use crate::acp::wire::RpcId;
use crate::finding::Code;

/// What the note says an Agent-side-only source lacks.
pub(crate) const LIMITS: &str = "an ACP adapter's test recording holds only the Agent's messages: each response answers the method its line names; the rules that need the Client's messages are not checked (its `initialize` capabilities, its cancels, its `session/load`/`session/resume` requests and their replay windows, its answers: no request is reported unanswered), and `traffic-before-announce` holds the Agent to its announcements of children only (a root may have been set up by a request the recording lacks); every other rule applies";

/// The state of an Agent-side-only source (the checker has one once such a line came).
#[derive(Debug, Clone, Default)]
pub(super) struct AgentSide {
    /// What was skipped, each said once.
    skipped: BTreeSet<String>,
}

impl Checker {
    /// One line of an ACP adapter's test recording (an object [`recording::is_line`]
    /// accepts): the first says what such a source lacks, once; the Agent message it
    /// records is then checked as if the Agent had sent it, at this line.
    pub(crate) fn push_recorded(&mut self, line: usize, obj: &Map<String, Value>) {
        if self.agent_side.is_none() {
            self.agent_side = Some(AgentSide::default());
            self.report(line, Code::NativeSourceLimits, LIMITS.into());
        }
        match recording::translate(line, obj) {
            Ok(Recorded::Message { answers, message }) => {
                if let Some(method) = answers {
                    let id = RpcId::Int(i64::try_from(line).unwrap_or(i64::MAX));
                    self.view.expect_response(line, id, &method);
                }
                self.push_message(line, "agent", &message);
            }
            Ok(Recorded::Skipped(what)) => {
                let first = self
                    .agent_side
                    .as_mut()
                    .is_some_and(|side| side.skipped.insert(what.clone()));
                if first {
                    self.report(
                        line,
                        Code::NativeRecordSkipped,
                        format!("{what}: not a message the Agent sent over ACP, not checked (this one and any later one like it)"),
                    );
                }
            }
            Err(reason) => self.malformed(
                line,
                format!("not a valid ACP adapter recording line: {reason}"),
            ),
        }
    }

    /// Is this an Agent-side-only source?
    pub(super) fn agent_side_only(&self) -> bool {
        self.agent_side.is_some()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::Checker;
    use crate::acp::rules::requests_tests::findings_at_end as findings;

    /// An Agent announces child `A` on root `R`'s stream, then asks the Client's
    /// permission for `A`'s tool call, and nothing else is seen.
    fn agent_messages() -> [Value; 2] {
        [
            json!({"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"R","update":{"sessionUpdate":"subagent_update","sessionId":"A"}}}),
            json!({"jsonrpc":"2.0","id":2,"method":"session/request_permission","params":{"sessionId":"A","toolCall":{"toolCallId":"c1"},"options":[]}}),
        ]
    }

    /// On the wire, both sides' messages are there: `R` was never set up ("announce it
    /// first") and the Client never answered `A`'s request ("Responses to Agent-to-Client
    /// requests … MUST still be delivered"). An adapter's own recording of the same
    /// messages holds the Agent's side only: `R`'s `session/new` and the Client's answer
    /// may be in what it does not hold, so neither is reported; it says once what it
    /// lacks.
    #[test]
    fn an_agent_side_recording_reports_no_missing_client_message() {
        let mut wire = Checker::new(None);
        for (i, message) in agent_messages().iter().enumerate() {
            wire.push_message(i + 1, "agent", message);
        }
        assert_eq!(
            findings(wire),
            ["1:traffic-before-announce", "2:child-request-unanswered"]
        );

        let mut recording = Checker::new(None);
        let [update, permission] = agent_messages();
        let lines = [
            json!({"kind":"notification","method":"session/update","payload":update["params"]}),
            json!({"kind":"request","method":"session/request_permission","payload":permission["params"]}),
        ];
        for (i, line) in lines.iter().enumerate() {
            recording.push_recorded(i + 1, line.as_object().unwrap());
        }
        assert_eq!(findings(recording), ["1:native-source-limits"]);
    }
}
