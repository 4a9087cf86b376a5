//! Renders a script as an `acp` (v1) trace: the Agent's side of a conformant stream.
//!
//! Children are announced with `subagent_update` before any traffic bearing them, carry
//! a `cancel` capability, and report `running` / `idle` work states; permissions are
//! answered; a user cancel is answered with every pending request cancelled and every
//! affected child confirming `idle` with `stopReason: "cancelled"`.

use std::collections::BTreeSet;
use std::fmt::Write;

use super::Records;
use super::script::{Script, Step};

struct Out<'a> {
    records: Records<'a>,
}

impl Out<'_> {
    fn agent(&mut self, message: String) {
        self.records.push("agent", &message);
    }

    fn client(&mut self, message: String) {
        self.records.push("client", &message);
    }

    fn update(&mut self, session: &str, update: String) {
        self.agent(format!(
            r#"{{"jsonrpc":"2.0","method":"session/update","params":{{"sessionId":"{session}","update":{update}}}}}"#
        ));
    }

    fn state(&mut self, parent: &str, child: &str, state: &str) {
        self.update(
            parent,
            format!(
                r#"{{"sessionUpdate":"subagent_update","sessionId":"{child}","state":{state}}}"#
            ),
        );
    }
}

pub(super) fn render(s: &Script, out: &mut String) {
    let root = s.root();
    let _ = writeln!(
        out,
        r#"{{"lineage":"trace","format":"acp","version":1,"protocolVersion":1}}"#
    );
    let mut o = Out {
        records: Records::new(out),
    };
    o.client(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true},"terminal":true,"subagents":{}}}}"#.into());
    o.agent(r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":true}}}"#.into());
    o.client(r#"{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/work","mcpServers":[]}}"#.into());
    o.agent(format!(
        r#"{{"jsonrpc":"2.0","id":1,"result":{{"sessionId":"{root}"}}}}"#
    ));
    let mut prompt: Option<u64> = None;
    let mut next_id = 1u64;
    let mut pending: BTreeSet<u64> = BTreeSet::new();
    let parent_of = |c: u32| s.owner(s.parents.get(c as usize).copied().flatten());
    for step in &s.steps {
        match step {
            Step::Submit { turn, guidance: false } => {
                next_id += 1;
                prompt = Some(next_id);
                o.client(format!(
                    r#"{{"jsonrpc":"2.0","id":{next_id},"method":"session/prompt","params":{{"sessionId":"{root}","prompt":[{{"type":"text","text":"task {turn}"}}]}}}}"#
                ));
            }
            // ACP v1 has no guidance on a running prompt; continuations are the Agent's own.
            Step::Submit { guidance: true, .. } | Step::ProviderStart { .. } => {}
            Step::RootText { item, .. } => o.update(
                &root,
                format!(r#"{{"sessionUpdate":"agent_message_chunk","messageId":"m{item}","content":{{"type":"text","text":"Working on it."}}}}"#),
            ),
            Step::ProviderDone { .. } => {
                if let Some(id) = prompt.take() {
                    o.agent(format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"stopReason":"end_turn"}}}}"#));
                }
            }
            Step::Spawn { parent, child, .. } => {
                let parent = s.owner(*parent);
                o.update(
                    &parent,
                    format!(
                        r#"{{"sessionUpdate":"subagent_update","sessionId":"{}","title":"worker {child}","description":"does part {child}","capabilities":{{"cancel":{{}}}}}}"#,
                        s.child(*child)
                    ),
                );
            }
            Step::ChildStart { child } => o.state(&parent_of(*child), &s.child(*child), r#"{"state":"running"}"#),
            Step::ChildText { child, item } => o.update(
                &s.child(*child),
                format!(r#"{{"sessionUpdate":"agent_message_chunk","messageId":"m{item}","content":{{"type":"text","text":"Progress {item}."}}}}"#),
            ),
            Step::Approval { owner, req } => {
                let id = 1_000_000 + req;
                pending.insert(id);
                o.agent(format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"session/request_permission","params":{{"sessionId":"{}","toolCall":{{"toolCallId":"call-{req}"}},"options":[{{"optionId":"allow","name":"Allow once","kind":"allow_once"}}]}}}}"#,
                    s.owner(*owner)
                ));
            }
            Step::Answer { req, .. } => {
                let id = 1_000_000 + req;
                pending.remove(&id);
                o.client(format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"result":{{"outcome":{{"outcome":"selected","optionId":"allow"}}}}}}"#
                ));
            }
            Step::ChildDone { child, outcome } => {
                let reason = if *outcome == lineage_core::Outcome::Failed { "refusal" } else { "end_turn" };
                o.state(
                    &parent_of(*child),
                    &s.child(*child),
                    &format!(r#"{{"state":"idle","stopReason":"{reason}"}}"#),
                );
            }
            Step::Cancel { targets, .. } => {
                o.client(format!(
                    r#"{{"jsonrpc":"2.0","method":"session/cancel","params":{{"sessionId":"{root}"}}}}"#
                ));
                for id in std::mem::take(&mut pending) {
                    o.client(format!(
                        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"outcome":{{"outcome":"cancelled"}}}}}}"#
                    ));
                }
                for c in targets {
                    o.state(&parent_of(*c), &s.child(*c), r#"{"state":"idle","stopReason":"cancelled"}"#);
                }
                if let Some(id) = prompt.take() {
                    o.agent(format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"stopReason":"cancelled"}}}}"#));
                }
            }
        }
    }
}
