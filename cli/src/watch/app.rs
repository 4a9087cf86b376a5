//! The state of `lineage watch`: what has been read, and what the user looks at.
//!
//! Owns: the [`History`] and the model of the screen (which state of the history is
//! shown, the selection, the folds, the findings-only toggle, the search), updated by
//! three kinds of input: what the source delivered ([`Feed`]), a key ([`Action`]) and
//! the passing of time ([`App::tick`]). Rendering reads it ([`super::render`]).
//! Never: does I/O or reads a clock: the wall time comes in as a tick, so the same
//! inputs give the same screens.

use std::collections::BTreeSet;

use lineage_core::native::Source;

use super::history::{Frame, History, Note};
use super::keys::Action;
use super::rows::{self, Clock, Key, Layout, Row};

/// What the source delivered.
#[derive(Debug)]
pub(crate) enum Feed {
    /// A physical line of a trace (without its line break).
    Line(Vec<u8>),
    /// A native source as (re-)read, and its tree to show.
    Native(Box<Source>, usize),
    /// Something to say in the findings pane.
    Notice(String),
    /// The file was truncated or replaced: start over (saying why).
    Restart(String),
    /// The input ended (a pipe closed, the recorded program exited).
    Ended,
}

/// How the user left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Quit {
    /// `q`: exit 0.
    Normal,
    /// `Ctrl-C` or a signal: exit 130.
    Interrupted,
}

/// Everything the screen shows, and the history behind it.
#[derive(Debug)]
pub(crate) struct App {
    history: History,
    /// What is watched, as said in the title.
    source: String,
    /// The frame shown while paused; `None`: live (the latest).
    cursor: Option<usize>,
    selected: Option<Key>,
    folded: BTreeSet<String>,
    findings_only: bool,
    /// A search being typed.
    typing: Option<String>,
    /// The search last submitted.
    query: Option<String>,
    /// A one-time word for the status line ("no match …").
    message: Option<String>,
    spin: usize,
    /// The wall clock at the last tick, and when the latest frame arrived (ms).
    wall: Option<u64>,
    arrived: Option<u64>,
    quit: Option<Quit>,
    /// Whether the screen may use colour (`--no-color`, `NO_COLOR`, `TERM=dumb`).
    color: bool,
}

impl App {
    /// An app over `history`, titled `source`.
    pub(crate) fn new(history: History, source: impl Into<String>) -> Self {
        Self {
            history,
            source: source.into(),
            cursor: None,
            selected: None,
            folded: BTreeSet::new(),
            findings_only: false,
            typing: None,
            query: None,
            message: None,
            spin: 0,
            wall: None,
            arrived: None,
            quit: None,
            color: false,
        }
    }

    /// The same app, drawn in colour or not.
    pub(crate) fn with_color(mut self, color: bool) -> Self {
        self.color = color;
        self
    }

    pub(crate) fn color(&self) -> bool {
        self.color
    }

    /// Applies what the source delivered.
    pub(crate) fn feed(&mut self, feed: Feed) {
        let frames = self.history.frames().len();
        match feed {
            Feed::Line(bytes) => self.history.push_line(&bytes),
            Feed::Native(source, index) => self.history.push_native(&source, index),
            Feed::Notice(text) => self.history.notice(text),
            Feed::Restart(why) => self.history.restart(why),
            Feed::Ended => self.history.end(),
        }
        if self.history.frames().len() != frames {
            self.arrived = self.wall;
        }
        if let Some(c) = self.cursor {
            self.cursor = Some(c.min(self.last_frame()));
        }
    }

    /// The wall clock reached `wall_ms`: the spinner turns, live ages grow.
    pub(crate) fn tick(&mut self, wall_ms: u64) {
        self.spin = self.spin.wrapping_add(1);
        self.wall = Some(wall_ms);
        if self.arrived.is_none() {
            self.arrived = Some(wall_ms);
        }
    }

    /// How the user left, once they did.
    pub(crate) fn quit(&self) -> Option<Quit> {
        self.quit
    }

    /// Asks to leave (a signal).
    pub(crate) fn interrupt(&mut self) {
        self.quit = Some(Quit::Interrupted);
    }

    /// Applies a key's action.
    pub(crate) fn act(&mut self, action: Action) {
        self.message = None;
        match action {
            Action::Quit => self.quit = Some(Quit::Normal),
            Action::Interrupt => self.quit = Some(Quit::Interrupted),
            Action::Move(by) => self.move_by(by),
            Action::Back => self.cursor = Some(self.shown_index().saturating_sub(1)),
            Action::Forward => {
                self.cursor = self.cursor.map(|c| (c + 1).min(self.last_frame()));
            }
            Action::First => self.cursor = Some(self.last_frame().min(1)),
            Action::Last => self.cursor = None,
            Action::Pause => {
                self.cursor = match self.cursor {
                    None => Some(self.last_frame()),
                    Some(_) => None,
                }
            }
            Action::Fold => self.fold(),
            Action::FindingsOnly => self.findings_only = !self.findings_only,
            Action::Search => self.typing = Some(String::new()),
            Action::Type(c) => {
                if let Some(t) = self.typing.as_mut() {
                    t.push(c);
                }
            }
            Action::Erase => {
                if let Some(t) = self.typing.as_mut() {
                    t.pop();
                }
            }
            Action::Cancel => self.typing = None,
            Action::Submit => {
                let query = self.typing.take().unwrap_or_default();
                self.query = (!query.is_empty()).then_some(query);
                self.next_match(true, true);
            }
            Action::NextMatch(forward) => self.next_match(forward, false),
        }
    }

    fn last_frame(&self) -> usize {
        self.history.frames().len().saturating_sub(1)
    }

    /// The index of the frame shown.
    pub(crate) fn shown_index(&self) -> usize {
        self.cursor.unwrap_or_else(|| self.last_frame())
    }

    /// The frame shown.
    pub(crate) fn frame(&self) -> Option<&Frame> {
        self.history.frames().get(self.shown_index())
    }

    /// Whether the latest state is shown (not paused or travelling).
    pub(crate) fn live(&self) -> bool {
        self.cursor.is_none()
    }

    pub(crate) fn history(&self) -> &History {
        &self.history
    }

    pub(crate) fn source(&self) -> &str {
        &self.source
    }

    pub(crate) fn findings_only(&self) -> bool {
        self.findings_only
    }

    /// The search being typed, if one is.
    pub(crate) fn typing(&self) -> Option<&str> {
        self.typing.as_deref()
    }

    pub(crate) fn message(&self) -> Option<&str> {
        self.message.as_deref()
    }

    /// Does this row match the submitted search (ids and titles, any case)?
    pub(crate) fn matches(&self, row: &Row) -> bool {
        self.query
            .as_ref()
            .is_some_and(|q| row.haystack.to_lowercase().contains(&q.to_lowercase()))
    }

    /// The trace's clock for the frame shown: its latest `at`, and while live, the wall
    /// time passed since it arrived (so a running turn's age keeps growing).
    pub(crate) fn clock(&self) -> Clock {
        let at = self.frame().and_then(|f| f.at);
        let since = match (
            self.live() && !self.history.ended(),
            self.wall,
            self.arrived,
        ) {
            (true, Some(wall), Some(arrived)) => wall.saturating_sub(arrived),
            _ => 0,
        };
        Clock {
            now: at.map(|at| at.saturating_add(since)),
            spin: self.spin,
        }
    }

    /// The rows of the frame shown.
    pub(crate) fn rows(&self) -> Vec<Row> {
        let Some(frame) = self.frame() else {
            return Vec::new();
        };
        let layout = Layout {
            folded: &self.folded,
            clock: self.clock(),
            pending_since: self.history.pending_since(),
        };
        rows::rows(&frame.state, &layout)
    }

    /// The selected row's index among `rows` (the first when the selection is gone).
    pub(crate) fn selected_index(&self, rows: &[Row]) -> usize {
        self.selected
            .as_ref()
            .and_then(|k| rows.iter().position(|r| &r.key == k))
            .unwrap_or(0)
    }

    /// The findings pane's entries as of the frame shown, the reader's notes after them.
    pub(crate) fn notes(&self) -> Vec<&Note> {
        let count = self.frame().map_or(0, |f| f.notes);
        let count = if self.live() {
            self.history.notes().len()
        } else {
            count
        };
        self.history
            .notes()
            .iter()
            .take(count)
            .chain(self.history.reader_notes())
            .collect()
    }

    fn move_by(&mut self, by: isize) {
        let rows = self.rows();
        let Some(last) = rows.len().checked_sub(1) else {
            return;
        };
        let at = self.selected_index(&rows);
        let to = at.saturating_add_signed(by).min(last);
        self.selected = rows.get(to).map(|r| r.key.clone());
    }

    fn fold(&mut self) {
        let rows = self.rows();
        let Some(row) = rows.get(self.selected_index(&rows)) else {
            return;
        };
        if let (Key::Session(id), Some(_)) = (&row.key, row.fold) {
            if !self.folded.remove(id) {
                self.folded.insert(id.clone());
            }
            self.selected = Some(row.key.clone());
        }
    }

    /// Selects the next (or previous) row the search matches, from the selection
    /// (`inclusive`: the selection itself counts).
    fn next_match(&mut self, forward: bool, inclusive: bool) {
        let Some(query) = self.query.clone() else {
            return;
        };
        let rows = self.rows();
        let n = rows.len();
        let at = self.selected_index(&rows);
        let start = usize::from(!inclusive);
        let found = (start..n + start)
            .map(|k| {
                if forward {
                    (at + k) % n.max(1)
                } else {
                    (at + n - k % n.max(1)) % n.max(1)
                }
            })
            .find(|&i| rows.get(i).is_some_and(|r| self.matches(r)));
        match found.and_then(|i| rows.get(i)) {
            Some(row) => self.selected = Some(row.key.clone()),
            None => self.message = Some(format!("no session or turn matches “{query}”")),
        }
    }
}
