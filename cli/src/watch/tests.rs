//! Screens of `lineage watch` rendered on ratatui's `TestBackend`: corpus traces fed
//! record by record into the [`App`], drawn at chosen lines. Each snapshot was read by
//! eye against `lineage replay <trace> --at <line>`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::path::Path;

use lineage_core::native::{self, File};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use super::app::{App, Feed};
use super::history::History;
use super::keys::Action;
use super::render::render;

/// The corpus file `name` (relative to the repository's `traces/`).
fn corpus(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../traces")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// An app fed the first `lines` lines of `text` (all, then the end, when `None`).
fn fed(name: &str, lines: Option<usize>) -> App {
    let text = corpus(name);
    let mut app = App::new(History::new(None, None), name);
    for line in text.lines().take(lines.unwrap_or(usize::MAX)) {
        app.feed(Feed::Line(line.as_bytes().to_vec()));
    }
    if lines.is_none() {
        app.feed(Feed::Ended);
    }
    app
}

/// The screen of `app` on a `width`×`height` terminal.
fn screen(app: &App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|f| render(app, f)).unwrap();
    terminal.backend().to_string()
}

#[test]
fn a_fan_out_running() {
    let app = fed("codex/07-concurrent-children-one-fails.jsonl", Some(16));
    insta::assert_snapshot!(screen(&app, 130, 12));
}

#[test]
fn a_child_waiting_on_an_approval() {
    let app = fed("codex/08-child-approvals.jsonl", Some(17));
    insta::assert_snapshot!(screen(&app, 130, 14));
}

#[test]
fn a_cancel_in_flight() {
    let app = fed("codex/11-user-cancel-full-fanout.jsonl", Some(19));
    insta::assert_snapshot!(screen(&app, 130, 12));
}

#[test]
fn a_root_waiting_for_its_child() {
    let app = fed("codex/01-collab-spawn-root-terminal-first.jsonl", Some(15));
    insta::assert_snapshot!(screen(&app, 130, 10));
}

#[test]
fn settled_with_a_failed_child() {
    let app = fed("codex/07-concurrent-children-one-fails.jsonl", None);
    insta::assert_snapshot!(screen(&app, 130, 12));
}

#[test]
fn an_acp_client_view_with_permissions_pending() {
    let app = fed(
        "acp/scenarios/09-cancel-child-then-ancestor.jsonl",
        Some(12),
    );
    insta::assert_snapshot!(screen(&app, 100, 12));
}

#[test]
fn colour_only_when_asked() {
    let done = |app: &App| {
        let mut terminal = Terminal::new(TestBackend::new(130, 12)).unwrap();
        terminal.draw(|f| render(app, f)).unwrap();
        let buffer = terminal.backend().buffer().clone();
        let cells: Vec<_> = buffer
            .content()
            .iter()
            .filter(|c| c.symbol() == "✓")
            .collect();
        assert!(!cells.is_empty());
        cells.iter().map(|c| c.fg).collect::<Vec<_>>()
    };
    let plain = fed("codex/07-concurrent-children-one-fails.jsonl", None);
    assert!(
        done(&plain)
            .iter()
            .all(|c| *c == ratatui::style::Color::Reset)
    );
    let coloured = fed("codex/07-concurrent-children-one-fails.jsonl", None).with_color(true);
    assert!(
        done(&coloured)
            .iter()
            .all(|c| *c == ratatui::style::Color::Green)
    );
}

#[test]
fn findings_arrive_located_and_the_findings_pane_can_take_the_screen() {
    let mut app = fed("codex/17-malformed-and-unknown-responses.jsonl", None);
    app.act(Action::FindingsOnly);
    insta::assert_snapshot!(screen(&app, 130, 12));
}

#[test]
fn a_terminal_too_small_says_so() {
    let app = fed("codex/07-concurrent-children-one-fails.jsonl", None);
    let text = screen(&app, 30, 5);
    assert!(text.contains("terminal too small (30×5):"), "{text}");
    assert!(!text.contains("019a6c55-root"), "{text}");
    assert!(screen(&app, 40, 8).contains("019a6c55-root"));
}

/// The status line (the screen's last line).
fn status(app: &App) -> String {
    let text = screen(app, 100, 10);
    text.lines().last().unwrap_or_default().to_owned()
}

#[test]
fn time_travel_steps_through_the_kept_states_and_end_goes_live_again() {
    let mut app = fed("codex/07-concurrent-children-one-fails.jsonl", None);
    assert!(
        status(&app).contains("line 24 of 24 · ended"),
        "{}",
        status(&app)
    );
    app.act(Action::Back);
    let back = status(&app);
    assert!(back.contains("of 24 · paused"), "{back}");
    assert!(!back.contains("line 24 of"), "{back}");
    // The earlier state is shown: the root had not settled yet.
    assert!(screen(&app, 130, 12).contains("running"));
    app.act(Action::First);
    assert!(status(&app).contains("line 3 of 24"), "{}", status(&app));
    app.act(Action::Forward);
    assert!(!status(&app).contains("line 3 of 24"));
    app.act(Action::Last);
    assert!(status(&app).contains("line 24 of 24 · ended"));
}

#[test]
fn live_the_status_names_the_last_line_read_even_when_it_changed_nothing() {
    // Lines 23 to 25 of this trace change nothing after the cancel completes at 22.
    let mut app = fed("codex/11-user-cancel-full-fanout.jsonl", None);
    assert!(
        status(&app).contains("line 25 of 25 · ended"),
        "{}",
        status(&app)
    );
    app.act(Action::Pause);
    assert!(
        status(&app).contains("line 22 of 25 · paused"),
        "{}",
        status(&app)
    );
}

#[test]
fn a_paused_screen_keeps_its_state_while_records_arrive() {
    let text = corpus("codex/08-child-approvals.jsonl");
    let mut app = App::new(History::new(None, None), "t");
    let mut lines = text.lines();
    for line in lines.by_ref().take(17) {
        app.feed(Feed::Line(line.as_bytes().to_vec()));
    }
    app.act(Action::Pause);
    let paused = screen(&app, 130, 14);
    for line in lines {
        app.feed(Feed::Line(line.as_bytes().to_vec()));
    }
    assert_eq!(
        screen(&app, 130, 14).replace("of 31", "of 17"),
        paused,
        "only the count of lines read moves"
    );
    app.act(Action::Pause);
    assert!(status(&app).contains("line 31 of 31 · live"));
}

#[test]
fn folding_hides_a_sessions_children_and_search_selects_by_title() {
    let mut app = fed("codex/07-concurrent-children-one-fails.jsonl", None);
    assert_eq!(app.rows().len(), 3);
    app.act(Action::Fold);
    assert_eq!(app.rows().len(), 1, "the root folded");
    assert!(screen(&app, 130, 12).contains("(2 folded)"));
    app.act(Action::Fold);
    app.act(Action::Search);
    for c in "api/".chars() {
        app.act(Action::Type(c));
    }
    app.act(Action::Submit);
    let rows = app.rows();
    let selected = rows.get(app.selected_index(&rows)).unwrap();
    assert!(
        selected.haystack.contains("019a6c57-child-b"),
        "{selected:?}"
    );
    app.act(Action::Search);
    app.act(Action::Type('z'));
    app.act(Action::Type('z'));
    app.act(Action::Submit);
    assert!(status(&app).contains("no session or turn matches “zz”"));
}

#[test]
fn a_truncated_file_starts_over_and_says_why() {
    let mut app = fed("codex/07-concurrent-children-one-fails.jsonl", Some(16));
    app.feed(Feed::Restart(
        "t.jsonl was truncated: reading it again from its start".into(),
    ));
    assert!(app.rows().is_empty());
    let text = screen(&app, 100, 10);
    assert!(text.contains("notice: t.jsonl was truncated"), "{text}");
    assert!(text.contains("line 0 of 0"), "{text}");
}

/// A Claude Code session folder as files: the root transcript cut after `root_lines`,
/// with or without its subagent's transcript.
fn claude_source(root_lines: usize, with_child: bool) -> lineage_core::native::Source {
    let dir =
        "real-native/claude-code/05-child-permission/projects/-tmp-lab-claude-code-bffbkl-work";
    let session = "f11fed91-bf48-4a65-87fc-50d7959ba920";
    let root = corpus(&format!("{dir}/{session}.jsonl"));
    let root: String = root
        .lines()
        .take(root_lines)
        .map(|l| format!("{l}\n"))
        .collect();
    let mut files = vec![File::new(format!("{session}.jsonl"), root)];
    if with_child {
        let agent = "agent-a1b57ba7c4b29e2c0";
        for ext in ["jsonl", "meta.json"] {
            let text = corpus(&format!("{dir}/{session}/subagents/{agent}.{ext}"));
            files.push(File::new(
                format!("{session}/subagents/{agent}.{ext}"),
                text,
            ));
        }
    }
    native::read(&files)
}

#[test]
fn a_native_source_that_grows_applies_only_its_new_records() {
    let mut app = App::new(History::new(None, None), "folder");
    app.feed(Feed::Native(Box::new(claude_source(3, false)), 0));
    let before = app.history().frames().len();
    app.feed(Feed::Native(Box::new(claude_source(1000, true)), 0));
    let text = screen(&app, 120, 12);
    assert!(text.contains("toolu_0001_0 child"), "{text}");
    assert!(text.contains("✓ completed"), "{text}");
    assert!(app.history().frames().len() > before);
    assert!(
        !text.contains("read again"),
        "the first records did not change: {text}"
    );
}
