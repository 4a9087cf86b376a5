//! Renders a script as a `canonical` trace.

use std::fmt::Write;

use super::script::{Script, Step};

pub(super) fn render(s: &Script, out: &mut String) {
    let root = s.root();
    let mut at = 0u64;
    let mut line = |out: &mut String, event: String| {
        at += 10;
        let _ = writeln!(out, r#"{{"event":{event},"at":{at}}}"#);
    };
    out.push_str("{\"lineage\":\"trace\",\"format\":\"canonical\",\"version\":1}\n");
    line(
        out,
        format!(r#"{{"type":"root_session_created","session":"{root}"}}"#),
    );
    for step in &s.steps {
        match step {
            Step::Submit { turn, .. } => line(
                out,
                format!(r#"{{"type":"user_submitted","session":"{root}","text":"task {turn}"}}"#),
            ),
            Step::ProviderStart { pturn } => line(
                out,
                format!(
                    r#"{{"type":"root_provider_turn_started","session":"{root}","provider_turn":"p{pturn}"}}"#
                ),
            ),
            Step::ProviderDone { pturn, outcome } => line(
                out,
                format!(
                    r#"{{"type":"root_provider_turn_completed","session":"{root}","provider_turn":"p{pturn}","outcome":"{outcome}"}}"#
                ),
            ),
            Step::RootText { item, .. } => line(
                out,
                format!(
                    r#"{{"type":"message","session":"{root}","message":"m{item}","text":"working on it"}}"#
                ),
            ),
            Step::Spawn { parent, child, .. } => line(
                out,
                format!(
                    r#"{{"type":"child_spawned","session":"{}","parent_session":"{}","tool_call":"call-{child}","title":"worker {child}"}}"#,
                    s.child(*child),
                    s.owner(*parent)
                ),
            ),
            Step::ChildStart { child } => line(
                out,
                format!(
                    r#"{{"type":"child_turn_started","session":"{}"}}"#,
                    s.child(*child)
                ),
            ),
            Step::ChildText { child, item } => line(
                out,
                format!(
                    r#"{{"type":"message","session":"{}","message":"m{item}","text":"progress {item}"}}"#,
                    s.child(*child)
                ),
            ),
            Step::Approval { owner, req } => line(
                out,
                format!(
                    r#"{{"type":"interaction_requested","session":"{}","request":"r{req}","kind":"approval","title":"run tests"}}"#,
                    s.owner(*owner)
                ),
            ),
            Step::Answer { owner, req } => line(
                out,
                format!(
                    r#"{{"type":"interaction_answered","session":"{}","request":"r{req}","answer":"accept"}}"#,
                    s.owner(*owner)
                ),
            ),
            Step::ChildDone { child, outcome } => line(
                out,
                format!(
                    r#"{{"type":"child_turn_completed","session":"{}","outcome":"{outcome}"}}"#,
                    s.child(*child)
                ),
            ),
            Step::Cancel { pturn, acked, .. } => {
                line(
                    out,
                    format!(r#"{{"type":"cancel_requested","session":"{root}"}}"#),
                );
                for c in acked {
                    line(
                        out,
                        format!(
                            r#"{{"type":"cancel_acknowledged","session":"{}"}}"#,
                            s.child(*c)
                        ),
                    );
                }
                line(
                    out,
                    format!(r#"{{"type":"cancel_completed","session":"{root}"}}"#),
                );
                if let Some(p) = pturn {
                    line(
                        out,
                        format!(
                            r#"{{"type":"root_provider_turn_completed","session":"{root}","provider_turn":"p{p}","outcome":"interrupted"}}"#
                        ),
                    );
                }
            }
        }
    }
}
