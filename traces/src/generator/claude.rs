//! Renders a script as a `claude-sdk` stream-json trace (background subagents).

use std::fmt::Write;

use lineage_core::Outcome;

use super::Records;
use super::script::{Script, Step};

struct Out<'a> {
    records: Records<'a>,
    uuid: u64,
}

impl Out<'_> {
    fn cli(&mut self, message: String) {
        self.records.push("cli", &message);
    }

    fn host(&mut self, message: String) {
        self.records.push("host", &message);
    }

    fn uuid(&mut self) -> String {
        self.uuid += 1;
        format!("00000000-0000-4000-8000-{:012x}", self.uuid)
    }
}

fn parent_field(s: &Script, parent: Option<u32>) -> String {
    parent.map_or_else(|| "null".to_owned(), |p| format!(r#""{}""#, s.child(p)))
}

pub(super) fn render(s: &Script, out: &mut String) {
    let root = s.root();
    let _ = writeln!(
        out,
        r#"{{"lineage":"trace","format":"claude-sdk","version":1}}"#
    );
    let mut o = Out {
        records: Records::new(out),
        uuid: 0,
    };
    let mut control = 0u64;
    for step in &s.steps {
        match step {
            Step::Submit { turn, .. } => {
                let u = o.uuid();
                o.host(format!(
                    r#"{{"type":"user","message":{{"role":"user","content":"task {turn}"}},"parent_tool_use_id":null,"session_id":"{root}","uuid":"{u}"}}"#
                ));
            }
            Step::ProviderStart { .. } => {
                let u = o.uuid();
                o.cli(format!(
                    r#"{{"type":"system","subtype":"init","session_id":"{root}","tools":["Agent","Bash"],"model":"claude-sonnet-4-5","permissionMode":"default","uuid":"{u}"}}"#
                ));
            }
            Step::ProviderDone { outcome, .. } => {
                let (subtype, is_error) = if *outcome == Outcome::Completed {
                    ("success", false)
                } else {
                    ("error_during_execution", true)
                };
                let u = o.uuid();
                o.cli(format!(
                    r#"{{"type":"result","subtype":"{subtype}","is_error":{is_error},"num_turns":1,"result":"done","session_id":"{root}","total_cost_usd":0.01,"uuid":"{u}"}}"#
                ));
            }
            Step::RootText { item, .. } => {
                let u = o.uuid();
                o.cli(format!(
                    r#"{{"type":"assistant","message":{{"id":"msg_{item}","role":"assistant","content":[{{"type":"text","text":"Working on it."}}]}},"parent_tool_use_id":null,"session_id":"{root}","uuid":"{u}"}}"#
                ));
            }
            Step::Spawn { parent, child, .. } => {
                let id = s.child(*child);
                let pf = parent_field(s, *parent);
                let u = o.uuid();
                o.cli(format!(
                    r#"{{"type":"assistant","message":{{"id":"msg_spawn_{child}","role":"assistant","content":[{{"type":"tool_use","id":"{id}","name":"Agent","input":{{"description":"part {child}","prompt":"do part {child}","subagent_type":"general-purpose","run_in_background":true}}}}]}},"parent_tool_use_id":{pf},"session_id":"{root}","uuid":"{u}"}}"#
                ));
                let u = o.uuid();
                o.cli(format!(
                    r#"{{"type":"system","subtype":"task_started","task_id":"t{child}","tool_use_id":"{id}","description":"part {child}","task_type":"local_agent","is_backgrounded":true,"session_id":"{root}","uuid":"{u}"}}"#
                ));
                let u = o.uuid();
                o.cli(format!(
                    r#"{{"type":"user","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"{id}","content":"Async agent launched successfully."}}]}},"tool_use_result":{{"status":"async_launched","agentId":"t{child}"}},"parent_tool_use_id":{pf},"session_id":"{root}","uuid":"{u}"}}"#
                ));
            }
            Step::ChildStart { child } => {
                let u = o.uuid();
                o.cli(format!(
                    r#"{{"type":"user","message":{{"role":"user","content":[{{"type":"text","text":"do part {child}"}}]}},"parent_tool_use_id":"{}","session_id":"{root}","uuid":"{u}"}}"#,
                    s.child(*child)
                ));
            }
            Step::ChildText { child, item } => {
                let u = o.uuid();
                o.cli(format!(
                    r#"{{"type":"assistant","message":{{"id":"msg_{item}","role":"assistant","content":[{{"type":"text","text":"Progress {item}."}}]}},"parent_tool_use_id":"{}","agent_id":"t{child}","session_id":"{root}","uuid":"{u}"}}"#,
                    s.child(*child)
                ));
            }
            Step::Approval { owner, req } => {
                let agent = owner.map_or_else(String::new, |c| format!(r#","agent_id":"t{c}""#));
                o.cli(format!(
                    r#"{{"type":"control_request","request_id":"perm-{req}","request":{{"subtype":"can_use_tool","tool_name":"Bash","input":{{"command":"cargo test"}},"tool_use_id":"toolu_bash_{req}"{agent}}}}}"#
                ));
            }
            Step::Answer { req, .. } => o.host(format!(
                r#"{{"type":"control_response","response":{{"subtype":"success","request_id":"perm-{req}","response":{{"behavior":"allow","updatedInput":{{}}}}}}}}"#
            )),
            Step::ChildDone { child, outcome } => {
                let status = if *outcome == Outcome::Failed { "failed" } else { "completed" };
                let u = o.uuid();
                o.cli(format!(
                    r#"{{"type":"system","subtype":"task_notification","task_id":"t{child}","tool_use_id":"{}","status":"{status}","summary":"part {child} {status}","output_file":"/tmp/t{child}.out","session_id":"{root}","uuid":"{u}"}}"#,
                    s.child(*child)
                ));
            }
            Step::Cancel { pturn, acked, .. } => {
                control += 1;
                o.host(format!(
                    r#"{{"type":"control_request","request_id":"int-{control}","request":{{"subtype":"interrupt"}}}}"#
                ));
                o.cli(format!(
                    r#"{{"type":"control_response","response":{{"subtype":"success","request_id":"int-{control}","response":{{}}}}}}"#
                ));
                for c in acked {
                    let u = o.uuid();
                    o.cli(format!(
                        r#"{{"type":"system","subtype":"task_notification","task_id":"t{c}","tool_use_id":"{}","status":"stopped","summary":"stopped","output_file":"/tmp/t{c}.out","session_id":"{root}","uuid":"{u}"}}"#,
                        s.child(*c)
                    ));
                }
                if pturn.is_some() {
                    let u = o.uuid();
                    o.cli(format!(
                        r#"{{"type":"result","subtype":"error_during_execution","is_error":true,"num_turns":1,"result":"interrupted","session_id":"{root}","uuid":"{u}"}}"#
                    ));
                }
            }
        }
    }
}
