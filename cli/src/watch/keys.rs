//! The keys of `lineage watch` and what each asks for.
//!
//! Owns: the key map (one table, also shown in the status line and `--help`). Never:
//! changes state; [`super::app::App::act`] does.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// What a key asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Action {
    /// `q`, `Esc`: leave (exit 0).
    Quit,
    /// `Ctrl-C`: leave as interrupted (exit 130, as a shell reports SIGINT).
    Interrupt,
    /// `↑`/`↓` (`k`/`j`), `PgUp`/`PgDn`: move the selection by this many rows.
    Move(isize),
    /// `←` (`h`): one state back in the history (pauses).
    Back,
    /// `→` (`l`): one state forward.
    Forward,
    /// `Home`: the first state.
    First,
    /// `End`: the latest state, live again.
    Last,
    /// `Enter`, `Space`: fold or unfold the selected session.
    Fold,
    /// `f`: the findings pane alone, or back.
    FindingsOnly,
    /// `p`: pause (keep showing this state) or go live again.
    Pause,
    /// `/`: start typing a search (an id or a title).
    Search,
    /// `n` / `N`: the next / previous row the search matches.
    NextMatch(bool),
    /// While typing a search: a character, `Backspace`, `Enter` (search), `Esc`
    /// (cancel).
    Type(char),
    Erase,
    Submit,
    Cancel,
}

/// The action of a key press (`searching`: a search is being typed), if any.
pub(crate) fn action(key: KeyEvent, searching: bool) -> Option<Action> {
    if key.kind == KeyEventKind::Release {
        return None;
    }
    if key.modifiers.contains(KeyModifiers::CONTROL) {
        return match key.code {
            KeyCode::Char('c') => Some(Action::Interrupt),
            _ => None,
        };
    }
    if searching {
        return match key.code {
            KeyCode::Char(c) => Some(Action::Type(c)),
            KeyCode::Backspace => Some(Action::Erase),
            KeyCode::Enter => Some(Action::Submit),
            KeyCode::Esc => Some(Action::Cancel),
            _ => None,
        };
    }
    Some(match key.code {
        KeyCode::Char('q') | KeyCode::Esc => Action::Quit,
        KeyCode::Up | KeyCode::Char('k') => Action::Move(-1),
        KeyCode::Down | KeyCode::Char('j') => Action::Move(1),
        KeyCode::PageUp => Action::Move(-10),
        KeyCode::PageDown => Action::Move(10),
        KeyCode::Left | KeyCode::Char('h') => Action::Back,
        KeyCode::Right | KeyCode::Char('l') => Action::Forward,
        KeyCode::Home => Action::First,
        KeyCode::End => Action::Last,
        KeyCode::Enter | KeyCode::Char(' ') => Action::Fold,
        KeyCode::Char('f') => Action::FindingsOnly,
        KeyCode::Char('p') => Action::Pause,
        KeyCode::Char('/') => Action::Search,
        KeyCode::Char('n') => Action::NextMatch(true),
        KeyCode::Char('N') => Action::NextMatch(false),
        _ => return None,
    })
}

/// The key hints of the status line.
pub(crate) const HINTS: &str =
    "←/→ history  ↑/↓ move  enter fold  f findings  p pause  / search  q quit";

#[cfg(test)]
mod tests {
    use super::*;

    fn press(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn letters_are_commands_unless_a_search_is_typed() {
        assert_eq!(action(press(KeyCode::Char('q')), false), Some(Action::Quit));
        assert_eq!(
            action(press(KeyCode::Char('q')), true),
            Some(Action::Type('q'))
        );
        assert_eq!(action(press(KeyCode::Esc), true), Some(Action::Cancel));
        assert_eq!(action(press(KeyCode::Left), false), Some(Action::Back));
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(action(ctrl_c, true), Some(Action::Interrupt));
        assert_eq!(action(press(KeyCode::F(5)), false), None);
    }
}
