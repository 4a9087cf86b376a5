//! v2 mirrored work state: the child's `state_update` stream and the parent's
//! `subagent_update.state` copies are two reports of one logical state.
//!
//! Owns: the per-child transition tracker behind `stale-mirror` and `state-not-mirrored`.
//! Never: looks at other children; its cost per report is constant.
//!
//! The tracker keeps the current logical transition and which paths have reported it.
//! A report equal to the current snapshot is a copy (or a repeat); a different one is a
//! new transition unless it is a delayed copy of an older one.

use crate::acp::wire::StateKey;

/// Which path a report came on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Path {
    /// The child's own `state_update` (authoritative).
    Child,
    /// The parent association's `subagent_update.state`.
    Parent,
}

/// What a report concluded (line numbers of the reports concerned).
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Verdict {
    pub stale: Vec<usize>,
    pub unmirrored: Vec<usize>,
}

#[derive(Debug, Clone)]
struct Transition {
    snapshot: StateKey,
    child: bool,
    parent: bool,
    /// The line of the child's report of it (for `state-not-mirrored`).
    child_line: usize,
}

/// One child's mirror state since the last reset.
#[derive(Debug, Clone, Default)]
pub(super) struct Mirror {
    current: Option<Transition>,
    child_seen: Vec<StateKey>,
    parent_seen: Vec<StateKey>,
    child_last: Option<StateKey>,
    /// A parent copy of an older child snapshot, decided by the child's next report.
    doubtful_copy: Option<(usize, StateKey)>,
}

impl Mirror {
    pub(super) fn report(&mut self, path: Path, snapshot: StateKey, line: usize) -> Verdict {
        let mut verdict = Verdict::default();
        if let Some((copy_line, copy)) = self.doubtful_copy.take() {
            match path {
                Path::Parent if copy == snapshot => {
                    // A repeat of the doubtful copy: still undecided.
                    self.doubtful_copy = Some((copy_line, copy));
                    return verdict;
                }
                Path::Child if copy == snapshot => {
                    // The parent carried a new transition first; the child confirms it.
                    self.close_current(&mut verdict);
                    self.current = Some(Transition {
                        snapshot: snapshot.clone(),
                        child: true,
                        parent: true,
                        child_line: line,
                    });
                    self.seen(path, snapshot);
                    return verdict;
                }
                _ => verdict.stale.push(copy_line),
            }
        }
        if let Some(cur) = self.current.as_mut()
            && cur.snapshot == snapshot
        {
            match path {
                Path::Child if !cur.child => {
                    cur.child = true;
                    cur.child_line = line;
                }
                Path::Parent => cur.parent = true,
                Path::Child => {}
            }
            self.seen(path, snapshot);
            return verdict;
        }
        let current_led_by_parent = self.current.as_ref().is_some_and(|c| c.parent && !c.child);
        match path {
            Path::Parent
                if self.child_seen.contains(&snapshot)
                    && self.child_last.as_ref() != Some(&snapshot) =>
            {
                self.doubtful_copy = Some((line, snapshot));
                return verdict;
            }
            Path::Child if current_led_by_parent && self.parent_seen.contains(&snapshot) => {
                verdict.stale.push(line);
                self.child_last = Some(snapshot.clone());
                self.child_seen_insert(snapshot);
                return verdict;
            }
            _ => {}
        }
        self.close_current(&mut verdict);
        self.current = Some(Transition {
            snapshot: snapshot.clone(),
            child: path == Path::Child,
            parent: path == Path::Parent,
            child_line: line,
        });
        self.seen(path, snapshot);
        verdict
    }

    /// The end of the connection or a reset covering the child: undecided copies are
    /// stale, an unmirrored current child report stays unmirrored.
    pub(super) fn close(mut self) -> Verdict {
        let mut verdict = Verdict::default();
        if let Some((line, _)) = self.doubtful_copy.take() {
            verdict.stale.push(line);
        }
        self.close_current(&mut verdict);
        verdict
    }

    fn close_current(&mut self, verdict: &mut Verdict) {
        if let Some(cur) = self.current.take()
            && cur.child
            && !cur.parent
        {
            verdict.unmirrored.push(cur.child_line);
        }
    }

    fn seen(&mut self, path: Path, snapshot: StateKey) {
        match path {
            Path::Child => {
                self.child_last = Some(snapshot.clone());
                self.child_seen_insert(snapshot);
            }
            Path::Parent => {
                if !self.parent_seen.contains(&snapshot) {
                    self.parent_seen.push(snapshot);
                }
            }
        }
    }

    fn child_seen_insert(&mut self, snapshot: StateKey) {
        if !self.child_seen.contains(&snapshot) {
            self.child_seen.push(snapshot);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(s: &str) -> StateKey {
        StateKey {
            state: s.into(),
            stop_reason: None,
        }
    }

    /// Feeds `c:running p:running …` and returns (stale lines, unmirrored lines) after close.
    fn run(steps: &str) -> (Vec<usize>, Vec<usize>) {
        let mut m = Mirror::default();
        let mut all = Verdict::default();
        for (i, step) in steps.split_whitespace().enumerate() {
            let (p, s) = step.split_once(':').unwrap();
            let path = if p == "c" { Path::Child } else { Path::Parent };
            let v = m.report(path, key(s), i + 1);
            all.stale.extend(v.stale);
            all.unmirrored.extend(v.unmirrored);
        }
        let v = m.close();
        all.stale.extend(v.stale);
        all.unmirrored.extend(v.unmirrored);
        (all.stale, all.unmirrored)
    }

    #[test]
    fn mirrored_transitions_in_either_order_are_clean() {
        assert_eq!(
            run("c:running p:running p:idle c:idle c:running p:running"),
            (vec![], vec![])
        );
    }

    #[test]
    fn repeated_copies_never_count() {
        assert_eq!(run("c:idle p:idle p:idle c:idle"), (vec![], vec![]));
    }

    #[test]
    fn a_delayed_parent_copy_is_stale() {
        assert_eq!(
            run("c:running p:running c:idle p:running"),
            (vec![4], vec![3])
        );
    }

    #[test]
    fn a_parent_copy_confirmed_by_the_child_next_is_a_new_transition() {
        assert_eq!(
            run("c:running p:running c:idle p:idle p:running c:running"),
            (vec![], vec![])
        );
    }

    #[test]
    fn a_delayed_child_report_is_stale() {
        assert_eq!(
            run("p:running c:running p:idle c:running"),
            (vec![4], vec![])
        );
    }

    #[test]
    fn unmirrored_child_reports_are_reported_at_the_next_transition_or_close() {
        assert_eq!(run("c:running c:idle p:idle"), (vec![], vec![1]));
        assert_eq!(run("c:running"), (vec![], vec![1]));
    }
}
