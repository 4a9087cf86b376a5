//! Renders a script as a `codex-app-server` trace (the root named by the header).

use std::fmt::Write;

use super::Records;
use super::script::{Script, Step};

struct Out<'a> {
    records: Records<'a>,
    id: u64,
}

impl Out<'_> {
    fn server(&mut self, message: String) {
        self.records.push("server", &message);
    }

    fn client(&mut self, message: String) {
        self.records.push("client", &message);
    }

    fn next_id(&mut self) -> u64 {
        self.id += 1;
        self.id
    }
}

fn turn(id: &str, status: &str) -> String {
    format!(
        r#"{{"id":"{id}","items":[],"status":"{status}","error":null,"startedAt":null,"completedAt":null,"durationMs":null}}"#
    )
}

pub(super) fn render(s: &Script, out: &mut String) {
    let root = s.root();
    let _ = writeln!(
        out,
        r#"{{"lineage":"trace","format":"codex-app-server","version":1,"rootThreadId":"{root}"}}"#
    );
    let mut o = Out {
        records: Records::new(out),
        id: 0,
    };
    let mut root_turn = String::new();
    for step in &s.steps {
        match step {
            Step::Submit { turn: t, guidance } => {
                let id = o.next_id();
                let method = if *guidance { "turn/steer" } else { "turn/start" };
                o.client(format!(
                    r#"{{"id":{id},"method":"{method}","params":{{"threadId":"{root}","input":[{{"type":"text","text":"task {t}","text_elements":[]}}]}}}}"#
                ));
                o.server(format!(r#"{{"id":{id},"result":{{}}}}"#));
            }
            Step::ProviderStart { pturn } => {
                root_turn = format!("turn-p{pturn}");
                o.server(format!(
                    r#"{{"method":"turn/started","params":{{"threadId":"{root}","turn":{}}}}}"#,
                    turn(&root_turn, "inProgress")
                ));
            }
            Step::ProviderDone { pturn, outcome } => {
                let status = match outcome {
                    lineage_core::Outcome::Failed => "failed",
                    lineage_core::Outcome::Interrupted | lineage_core::Outcome::Canceled => "interrupted",
                    lineage_core::Outcome::Completed => "completed",
                };
                o.server(format!(
                    r#"{{"method":"turn/completed","params":{{"threadId":"{root}","turn":{}}}}}"#,
                    turn(&format!("turn-p{pturn}"), status)
                ));
            }
            Step::RootText { item, .. } => o.server(format!(
                r#"{{"method":"item/completed","params":{{"threadId":"{root}","turnId":"{root_turn}","item":{{"type":"agentMessage","id":"msg-{item}","text":"Working on it.","phase":null,"memoryCitation":null}},"completedAtMs":{}}}}}"#,
                o.records.at
            )),
            Step::Spawn { parent, child, .. } => {
                let sender = s.owner(*parent);
                let receiver = s.child(*child);
                let turn_id = parent.map_or_else(|| root_turn.clone(), |p| format!("turn-c{p}"));
                for (method, receivers, status) in [
                    ("item/started", String::new(), "inProgress"),
                    ("item/completed", format!(r#""{receiver}""#), "completed"),
                ] {
                    o.server(format!(
                        r#"{{"method":"{method}","params":{{"threadId":"{sender}","turnId":"{turn_id}","item":{{"type":"collabAgentToolCall","id":"call-{child}","tool":"spawnAgent","status":"{status}","senderThreadId":"{sender}","receiverThreadIds":[{receivers}],"prompt":"do part {child}","model":null,"reasoningEffort":null,"agentsStates":{{}}}}}}}}"#
                    ));
                }
            }
            Step::ChildStart { child } => o.server(format!(
                r#"{{"method":"turn/started","params":{{"threadId":"{}","turn":{}}}}}"#,
                s.child(*child),
                turn(&format!("turn-c{child}"), "inProgress")
            )),
            Step::ChildText { child, item } => o.server(format!(
                r#"{{"method":"item/completed","params":{{"threadId":"{}","turnId":"turn-c{child}","item":{{"type":"agentMessage","id":"msg-{item}","text":"Progress {item}.","phase":null,"memoryCitation":null}},"completedAtMs":{}}}}}"#,
                s.child(*child),
                o.records.at
            )),
            Step::Approval { owner, req } => {
                let thread = s.owner(*owner);
                let turn_id = owner.map_or_else(|| root_turn.clone(), |c| format!("turn-c{c}"));
                o.server(format!(
                    r#"{{"id":{},"method":"item/commandExecution/requestApproval","params":{{"threadId":"{thread}","turnId":"{turn_id}","itemId":"cmd-{req}","startedAtMs":{},"reason":"run the tests","command":"cargo test"}}}}"#,
                    1_000_000 + req,
                    o.records.at
                ));
            }
            Step::Answer { owner, req } => {
                let id = 1_000_000 + req;
                o.client(format!(r#"{{"id":{id},"result":{{"decision":"accept"}}}}"#));
                o.server(format!(
                    r#"{{"method":"serverRequest/resolved","params":{{"threadId":"{}","requestId":{id}}}}}"#,
                    s.owner(*owner)
                ));
            }
            Step::ChildDone { child, outcome } => {
                let status = if *outcome == lineage_core::Outcome::Failed { "failed" } else { "completed" };
                o.server(format!(
                    r#"{{"method":"turn/completed","params":{{"threadId":"{}","turn":{}}}}}"#,
                    s.child(*child),
                    turn(&format!("turn-c{child}"), status)
                ));
            }
            Step::Cancel { pturn, targets, acked } => {
                let id = o.next_id();
                o.client(format!(
                    r#"{{"id":{id},"method":"turn/interrupt","params":{{"threadId":"{root}","turnId":"{root_turn}"}}}}"#
                ));
                o.server(format!(r#"{{"id":{id},"result":{{}}}}"#));
                for c in targets {
                    let id = o.next_id();
                    o.client(format!(
                        r#"{{"id":{id},"method":"turn/interrupt","params":{{"threadId":"{}","turnId":"turn-c{c}"}}}}"#,
                        s.child(*c)
                    ));
                    if acked.contains(c) {
                        o.server(format!(r#"{{"id":{id},"result":{{}}}}"#));
                    } else {
                        o.server(format!(
                            r#"{{"id":{id},"error":{{"code":-32600,"message":"no active turn to interrupt"}}}}"#
                        ));
                    }
                }
                if let Some(p) = pturn {
                    o.server(format!(
                        r#"{{"method":"turn/completed","params":{{"threadId":"{root}","turn":{}}}}}"#,
                        turn(&format!("turn-p{p}"), "interrupted")
                    ));
                }
            }
        }
    }
}
