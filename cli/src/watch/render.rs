//! Drawing the screen of `lineage watch` from its [`App`].
//!
//! Owns: the screen's layout (title, session tree, findings pane, status line), the
//! styles (colour only when the app was told colour is on), and the word shown when the
//! terminal is too small. Text from the trace goes through
//! [`crate::terminal::escape_controls`], so a trace cannot move the cursor.
//! Never: changes the app or does I/O: `render(&App, &mut Frame)` is a pure function of
//! the app and the frame's size.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use lineage_core::Severity;

use super::app::App;
use super::history::{Note, Shown};
use super::keys::HINTS;
use super::rows::{Row, Tone};
use crate::terminal::escape_controls;

/// The smallest screen the layout fits in.
pub(crate) const MIN_WIDTH: u16 = 40;
pub(crate) const MIN_HEIGHT: u16 = 8;

/// Draws the whole screen.
pub(crate) fn render(app: &App, frame: &mut Frame<'_>) {
    let area = frame.area();
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        let text = format!(
            "terminal too small ({}×{}): lineage watch needs {MIN_WIDTH}×{MIN_HEIGHT}",
            area.width, area.height
        );
        frame.render_widget(Paragraph::new(text).wrap(Default::default()), area);
        return;
    }
    let [title, body, status] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(1),
    ])
    .areas(area);
    frame.render_widget(Paragraph::new(title_line(app)), title);
    let notes = app.notes();
    if app.findings_only() {
        findings(app, &notes, frame, body);
    } else {
        let wanted = u16::try_from(notes.len())
            .unwrap_or(u16::MAX)
            .saturating_add(1);
        let pane = wanted.clamp(2, (body.height / 3).max(2));
        let [tree_area, notes_area] =
            Layout::vertical([Constraint::Min(1), Constraint::Length(pane)]).areas(body);
        tree(app, frame, tree_area);
        findings(app, &notes, frame, notes_area);
    }
    frame.render_widget(Paragraph::new(status_line(app)), status);
}

fn styled(app: &App, tone: Tone) -> Style {
    let base = Style::default();
    if !app.color() {
        return match tone {
            Tone::Pending => base.add_modifier(Modifier::BOLD),
            _ => base,
        };
    }
    match tone {
        Tone::Guide | Tone::Dim => base.fg(Color::DarkGray),
        Tone::Id => base.fg(Color::Cyan),
        Tone::Title => base,
        Tone::Active => base.fg(Color::Blue),
        Tone::Waiting => base.fg(Color::Yellow),
        Tone::Done => base.fg(Color::Green),
        Tone::Bad => base.fg(Color::Red),
        Tone::Cancel => base.fg(Color::Magenta),
        Tone::Pending => base.fg(Color::Yellow).add_modifier(Modifier::BOLD),
    }
}

fn title_line(app: &App) -> Line<'static> {
    let history = app.history();
    let mut text = format!(" lineage watch · {}", escape_controls(app.source(), &[]));
    if let Some(format) = history.format() {
        text.push_str(&format!(" · {format}"));
    }
    match app.frame().map(|f| &f.state) {
        Some(Shown::Tree(s)) => {
            let pending = s.pending_interaction_count();
            text.push_str(&format!(" · {} session(s)", s.session_count()));
            if pending > 0 {
                text.push_str(&format!(" · {pending} pending"));
            }
        }
        Some(Shown::Acp(v)) => {
            text.push_str(&format!(" · {} session(s)", v.sessions().count()));
        }
        Some(Shown::Empty) | None => {}
    }
    Line::from(text).style(Style::default().add_modifier(Modifier::BOLD))
}

fn tree(app: &App, frame: &mut Frame<'_>, area: Rect) {
    let block = Block::new().borders(Borders::TOP).title(" sessions ");
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let rows = app.rows();
    if rows.is_empty() {
        let word = if app.history().last_line() == 0 {
            "waiting for the first record…"
        } else {
            "no session yet"
        };
        frame.render_widget(Paragraph::new(word), inner);
        return;
    }
    let selected = app.selected_index(&rows);
    let height = usize::from(inner.height.max(1));
    let offset = selected.saturating_sub(height - 1);
    let lines: Vec<Line<'_>> = rows
        .iter()
        .enumerate()
        .skip(offset)
        .take(height)
        .map(|(i, row)| row_line(app, row, i == selected))
        .collect();
    frame.render_widget(Paragraph::new(lines), inner);
}

fn row_line(app: &App, row: &Row, selected: bool) -> Line<'static> {
    let mut spans = vec![Span::styled(row.indent.clone(), styled(app, Tone::Guide))];
    let mark = match row.fold {
        Some(true) => "▸ ",
        Some(false) => "▾ ",
        None => "",
    };
    spans.push(Span::styled(mark, styled(app, Tone::Guide)));
    for (text, tone) in &row.parts {
        let text = escape_controls(text, &[]).into_owned();
        spans.push(Span::styled(text, styled(app, *tone)));
    }
    let mut line = Line::from(spans);
    if app.matches(row) {
        line = line.patch_style(Style::default().add_modifier(Modifier::UNDERLINED));
    }
    if selected {
        line = line.patch_style(Style::default().add_modifier(Modifier::REVERSED));
    }
    line
}

fn findings(app: &App, notes: &[&Note], frame: &mut Frame<'_>, area: Rect) {
    let title = format!(" findings ({}) ", notes.len());
    let block = Block::new().borders(Borders::TOP).title(title);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let height = usize::from(inner.height);
    let lines: Vec<Line<'_>> = if notes.is_empty() {
        vec![Line::from("none")]
    } else {
        let skip = notes.len().saturating_sub(height);
        notes.iter().skip(skip).map(|n| note_line(app, n)).collect()
    };
    frame.render_widget(Paragraph::new(lines), inner);
}

fn note_line(app: &App, note: &Note) -> Line<'static> {
    let mut place = match &note.file {
        Some(file) => {
            let name = std::path::Path::new(file)
                .file_name()
                .map_or_else(|| file.clone(), |n| n.to_string_lossy().into_owned());
            format!("{name}:{}", note.line)
        }
        None if note.line > 0 => format!("line {}", note.line),
        None => String::new(),
    };
    if !place.is_empty() {
        place.push_str(": ");
    }
    let (label, tone) = match &note.rule {
        Some((severity, rule)) => (
            format!("{severity}[{rule}]: "),
            match severity {
                Severity::Error => Tone::Bad,
                Severity::Warning => Tone::Waiting,
                Severity::Note => Tone::Dim,
            },
        ),
        None => ("notice: ".to_owned(), Tone::Cancel),
    };
    Line::from(vec![
        Span::styled(
            escape_controls(&place, &[]).into_owned(),
            styled(app, Tone::Dim),
        ),
        Span::styled(label, styled(app, tone)),
        Span::raw(escape_controls(&note.message, &[]).into_owned()),
    ])
}

fn status_line(app: &App) -> Line<'static> {
    if let Some(typed) = app.typing() {
        return Line::from(format!(
            "/{}▏  (enter: search, esc: cancel)",
            escape_controls(typed, &[])
        ));
    }
    let history = app.history();
    // Live, the state shown is the one after the last line read (the lines since its
    // frame changed nothing); paused, the frame's own line.
    let line = if app.live() {
        history.last_line()
    } else {
        app.frame().map_or(0, |f| f.line)
    };
    let state = if !app.live() {
        "paused"
    } else if history.ended() {
        "ended"
    } else {
        "live"
    };
    let mut text = format!(" line {line} of {} · {state}", history.last_line());
    if let Some(message) = app.message() {
        text.push_str(&format!(" · {message}"));
    }
    Line::from(vec![
        Span::styled(text, Style::default().add_modifier(Modifier::BOLD)),
        Span::styled(format!("   {HINTS}"), styled(app, Tone::Dim)),
    ])
}
