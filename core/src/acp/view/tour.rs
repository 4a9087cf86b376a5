//! The ownership forest as one Euler tour: every known session owns an *open* and a
//! *close* label in one ordered sequence, each tree is one contiguous block, and the
//! descendants of a session are exactly the sessions whose labels lie between its own.
//!
//! Owns: the labels (an order-maintenance list over `u128`: a new entry takes a free
//! label between its neighbours; when there is none, the smallest aligned window around
//! the spot whose density stays under a bound that tightens with the window's size,
//! 2^(l/4) entries in 2^l labels, is relabelled, leaving the spot the middle half), the
//! roots of the trees with their sizes, and a few sparse sets of sessions keyed by open
//! label, so that "the members within this subtree" is a range.
//! Never: walks a parent chain or a subtree, and never decides what a member of a set
//! means (the view does).
//!
//! Costs, with n sessions: a descendant test is two lookups, O(log n); `within` costs
//! O(log n) per member it yields; adding a session or linking a childless child costs
//! O(log n) map operations plus relabelling, O(log n) entries amortized (each relabelled
//! entry re-keys its set memberships). Linking a child that already has children moves
//! the smaller of the two trees, so a session moves O(log n) times over any history.

use std::ops::Bound::{self, Excluded, Included, Unbounded};

use imbl::OrdMap;

use super::Id;
use super::id_map::IdMap;

/// A position in the tour.
type Label = u128;

/// Labels lie in `1..TOP`; `0` and `TOP` stand for "before everything" and "after it".
const TOP: Label = 1 << 127;

/// The label a new `end` entry takes strictly between the adjacent labels `a` and `b`,
/// or `None` when none is free. An open label hugs its left neighbour and a close label
/// keeps 1/256 of what is left as the session's interior (its future children), the rest
/// for its future siblings: a fan of thousands fits one gap, and a chain, which uses 8
/// bits a level, relabels (a window, amortized) every ~10 levels.
fn between(a: Label, b: Label, end: End) -> Option<Label> {
    let gap = b.saturating_sub(a);
    let share = match end {
        End::Open => gap >> 10,
        End::Close => gap / 256,
    };
    (gap >= 2).then(|| a + share.clamp(1, STEP))
}

/// The largest gap a new entry leaves after its left neighbour: a root appended at the
/// end spans this much, and 2^36 of them fit before the end is relabelled.
const STEP: Label = 1 << 90;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    Open,
    Close,
}

type Entry = (Id, End);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    open: Label,
    close: Label,
}

/// A sparse set of sessions that can be queried by subtree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Set {
    /// Current state `running` or `requires_action` on this connection.
    Working,
    /// Holds a connection-stamped fact (announcement, effective grant, current state)
    /// set since the last load/resume reset covering it.
    Stamped,
    /// Has a message written in its current replay epoch.
    Transcript,
    /// Has a tool call shown `pending` or `in_progress`.
    OpenCalls,
    /// Has a pending permission or elicitation request of the Agent.
    Interactions,
}

impl Set {
    const ALL: [Set; 5] = [
        Set::Working,
        Set::Stamped,
        Set::Transcript,
        Set::OpenCalls,
        Set::Interactions,
    ];
}

#[derive(Debug, Clone, Default)]
struct Sets {
    working: OrdMap<Label, Id>,
    stamped: OrdMap<Label, Id>,
    transcript: OrdMap<Label, Id>,
    open_calls: OrdMap<Label, Id>,
    interactions: OrdMap<Label, Id>,
}

impl Sets {
    fn get(&self, set: Set) -> &OrdMap<Label, Id> {
        match set {
            Set::Working => &self.working,
            Set::Stamped => &self.stamped,
            Set::Transcript => &self.transcript,
            Set::OpenCalls => &self.open_calls,
            Set::Interactions => &self.interactions,
        }
    }

    fn get_mut(&mut self, set: Set) -> &mut OrdMap<Label, Id> {
        match set {
            Set::Working => &mut self.working,
            Set::Stamped => &mut self.stamped,
            Set::Transcript => &mut self.transcript,
            Set::OpenCalls => &mut self.open_calls,
            Set::Interactions => &mut self.interactions,
        }
    }
}

/// The set memberships of sessions whose entries are being moved.
type Detached = Vec<(Set, Id)>;

/// The tour. Cloning is O(1) (persistent maps only).
#[derive(Debug, Clone, Default)]
pub(super) struct Tour {
    spans: IdMap<Span>,
    seq: OrdMap<Label, Entry>,
    /// The root of every tree by its open label, with the tree's number of sessions.
    roots: OrdMap<Label, (Id, usize)>,
    sets: Sets,
    /// Test support: entries placed by relabelling so far.
    #[cfg(test)]
    relabelled: usize,
}

impl Tour {
    /// Adds `id` as a new one-session tree at the end of the tour (no-op when known).
    pub(super) fn add(&mut self, id: &Id) {
        if self.spans.contains_key(id) {
            return;
        }
        self.spans.insert(id.clone(), Span { open: 0, close: 0 });
        let last = self.seq.get_max().map(|(label, _)| *label);
        let open = self.insert(last, None, (id.clone(), End::Open));
        self.insert(Some(open), None, (id.clone(), End::Close));
        if let Some(span) = self.span(id) {
            self.roots.insert(span.open, (id.clone(), 1));
        }
    }

    /// Adds `id` as the new last child of `parent` (as [`Tour::add`] then
    /// [`Tour::link`], without the detour through the end of the tour). No-op when `id`
    /// is known; a new root when `parent` is not.
    pub(super) fn add_under(&mut self, parent: &str, id: &Id) {
        if self.spans.contains_key(id) {
            return;
        }
        let Some(p) = self.span(parent) else {
            self.add(id);
            return;
        };
        let Some((root_label, (root, size))) = self
            .roots
            .range(..=p.open)
            .next_back()
            .map(|(k, v)| (*k, v.clone()))
        else {
            self.add(id);
            return;
        };
        self.roots.insert(root_label, (root, size + 1));
        // Both labels at once when the gap before the parent's close holds them (nearly
        // always); else one at a time, relabelling as `insert` does.
        let lo = self.seq.range(..p.close).next_back().map_or(0, |(k, _)| *k);
        let labels = between(lo, p.close, End::Open)
            .and_then(|open| Some((open, between(open, p.close, End::Close)?)));
        if let Some((open, close)) = labels {
            self.spans.insert(id.clone(), Span { open, close });
            self.seq.insert(open, (id.clone(), End::Open));
            self.seq.insert(close, (id.clone(), End::Close));
            return;
        }
        self.spans.insert(id.clone(), Span { open: 0, close: 0 });
        let entries = vec![(id.clone(), End::Open), (id.clone(), End::Close)];
        self.put_before((parent, End::Close), entries);
    }

    /// Is `id` a strict descendant of `ancestor`? (`false` when either is unknown.)
    pub(super) fn is_descendant(&self, id: &str, ancestor: &str) -> bool {
        match (self.span(id), self.span(ancestor)) {
            (Some(x), Some(a)) => a.open < x.open && x.close < a.close,
            _ => false,
        }
    }

    /// The members of `set` among `root` (unless `strict`) and its descendants, in tour
    /// order (parents before children, children in link order).
    pub(super) fn within<'a>(
        &'a self,
        set: Set,
        root: &str,
        strict: bool,
    ) -> impl Iterator<Item = &'a Id> + 'a {
        let bounds = self.span(root).map(|s| {
            let start = if strict {
                Excluded(s.open)
            } else {
                Included(s.open)
            };
            (start, Excluded(s.close))
        });
        let members = self.sets.get(set);
        bounds
            .into_iter()
            .flat_map(move |b| members.range(b).map(|(_, id)| id))
    }

    /// Adds `id` to `set` (`on`) or removes it; no-op for an unknown session.
    pub(super) fn mark(&mut self, set: Set, id: &str, on: bool) {
        let Some((key, span)) = self.spans.get_key_value(id) else {
            return;
        };
        let (key, open) = (key.clone(), span.open);
        let members = self.sets.get_mut(set);
        if !on {
            members.remove(&open);
        } else if !members.contains_key(&open) {
            members.insert(open, key);
        }
    }

    /// Empties `set`.
    pub(super) fn clear(&mut self, set: Set) {
        *self.sets.get_mut(set) = OrdMap::new();
    }

    /// `child`, the root of its tree, becomes the last child of `parent` (its descendants
    /// move with it). No-op unless both are known, `child` is a root and `parent` is not
    /// in `child`'s tree.
    pub(super) fn link(&mut self, parent: &str, child: &str) {
        let (Some(p), Some(c)) = (self.span(parent), self.span(child)) else {
            return;
        };
        let Some((root_label, (root, size))) = self
            .roots
            .range(..=p.open)
            .next_back()
            .map(|(k, v)| (*k, v.clone()))
        else {
            return;
        };
        let Some(&(_, child_size)) = self.roots.get(&c.open) else {
            return;
        };
        if root_label == c.open {
            return;
        }
        self.roots.remove(&c.open);
        let mut detached = Detached::new();
        if child_size <= size {
            self.roots.insert(root_label, (root, size + child_size));
            let block = self.take(c.open, Included(c.close), &mut detached);
            self.put_before((parent, End::Close), block);
        } else {
            self.roots.remove(&root_label);
            let Some(r) = self.span(&root) else {
                return;
            };
            let before = self.take(r.open, Excluded(p.close), &mut detached);
            let after = self.take(p.close, Included(r.close), &mut detached);
            self.put_before((child, End::Open), before);
            self.put_after((child, End::Close), after);
            if let Some(r) = self.span(&root) {
                self.roots.insert(r.open, (root, size + child_size));
            }
        }
        for (set, id) in detached {
            self.mark(set, &id, true);
        }
    }

    fn span(&self, id: &str) -> Option<Span> {
        self.spans.get(id).copied()
    }

    fn label(&self, (id, end): (&str, End)) -> Option<Label> {
        let span = self.span(id)?;
        Some(match end {
            End::Open => span.open,
            End::Close => span.close,
        })
    }

    /// Removes the entries from `from` to `to` (in order), detaching the set
    /// memberships of the sessions they open.
    fn take(&mut self, from: Label, to: Bound<Label>, detached: &mut Detached) -> Vec<Entry> {
        let entries: Vec<(Label, Entry)> = self
            .seq
            .range((Included(from), to))
            .map(|(k, e)| (*k, e.clone()))
            .collect();
        for (label, entry) in &entries {
            self.seq.remove(label);
            if entry.1 == End::Open {
                for set in Set::ALL {
                    if self.sets.get_mut(set).remove(label).is_some() {
                        detached.push((set, entry.0.clone()));
                    }
                }
            }
        }
        entries.into_iter().map(|(_, e)| e).collect()
    }

    /// Inserts `entries`, in order, immediately before `anchor`.
    fn put_before(&mut self, anchor: (&str, End), entries: Vec<Entry>) {
        for entry in entries {
            let Some(hi) = self.label(anchor) else {
                return;
            };
            let lo = self.seq.range(..hi).next_back().map(|(k, _)| *k);
            self.insert(lo, Some(hi), entry);
        }
    }

    /// Inserts `entries`, in order, immediately after `anchor`.
    fn put_after(&mut self, anchor: (&str, End), entries: Vec<Entry>) {
        let mut prev: Entry = (Id::from(anchor.0), anchor.1);
        for entry in entries {
            let Some(lo) = self.label((&prev.0, prev.1)) else {
                return;
            };
            let hi = self
                .seq
                .range((Excluded(lo), Unbounded))
                .next()
                .map(|(k, _)| *k);
            self.insert(Some(lo), hi, entry.clone());
            prev = entry;
        }
    }

    /// Puts `entry` strictly between the adjacent labels `lo` and `hi` (`None`: the
    /// ends), relabelling a window around the spot when no label is free; returns its
    /// label.
    fn insert(&mut self, lo: Option<Label>, hi: Option<Label>, entry: Entry) -> Label {
        let (a, b) = (lo.unwrap_or(0), hi.unwrap_or(TOP));
        match between(a, b, entry.1) {
            Some(label) => {
                self.place(label, entry);
                label
            }
            None => self.relabel(a, entry),
        }
    }

    fn place(&mut self, label: Label, entry: Entry) {
        if let Some(span) = self.spans.get_mut(&entry.0) {
            match entry.1 {
                End::Open => span.open = label,
                End::Close => span.close = label,
            }
        }
        self.seq.insert(label, entry);
    }

    /// Spreads the entries of the window around `after` evenly, `entry` among them right
    /// after the label `after`; returns `entry`'s label.
    fn relabel(&mut self, after: Label, entry: Entry) -> Label {
        let (base, size) = self.window(after);
        let old: Vec<(Label, Entry)> = self
            .seq
            .range(base..base.saturating_add(size))
            .map(|(k, e)| (*k, e.clone()))
            .collect();
        let at = old.partition_point(|(k, _)| *k <= after);
        let label_at = spread(base, size, at, old.len() - at);
        for (label, _) in &old {
            self.seq.remove(label);
        }
        #[cfg(test)]
        {
            self.relabelled += old.len();
        }
        let mut rekeyed = Vec::new();
        for (i, (label, e)) in old.into_iter().enumerate() {
            let new = label_at(if i < at { i } else { i + 1 });
            if e.1 == End::Open && new != label {
                rekeyed.push((label, new));
            }
            self.place(new, e);
        }
        self.rekey(&rekeyed);
        let label = label_at(at);
        self.place(label, entry);
        label
    }

    /// The smallest aligned window (`base`, `size`) around `point` that holds fewer than
    /// 2^(l/4) entries at level l (size 2^l), so one more still fits sparsely.
    fn window(&self, point: Label) -> (Label, Label) {
        let mut count = usize::from(self.seq.contains_key(&point));
        let mut base = point;
        for level in 1..127u32 {
            let size: Label = 1 << level;
            let half = size >> 1;
            let wider = point & !(size - 1);
            let fresh = if wider == base { base + half } else { wider };
            count += self.seq.range(fresh..fresh + half).count();
            base = wider;
            if u64::try_from(count).unwrap_or(u64::MAX) < 1u64 << (level / 4) {
                return (base, size);
            }
        }
        (0, TOP)
    }

    /// Re-keys the roots and set memberships of sessions whose open label moved
    /// (`(old, new)` pairs; all removed first, so old and new labels may overlap).
    fn rekey(&mut self, moves: &[(Label, Label)]) {
        let roots: Vec<_> = moves
            .iter()
            .filter_map(|(old, new)| self.roots.remove(old).map(|v| (*new, v)))
            .collect();
        self.roots.extend(roots);
        for set in Set::ALL {
            let members = self.sets.get_mut(set);
            if members.is_empty() {
                continue;
            }
            let moved: Vec<_> = moves
                .iter()
                .filter_map(|(old, new)| members.remove(old).map(|v| (*new, v)))
                .collect();
            members.extend(moved);
        }
    }
}

/// New labels for a window (`base`, `size`) holding `before` entries, the new one, then
/// `after` entries: slot `i` of that order. The new entry is likely followed by more at
/// the same spot (a chain nests there, a fan appends there), so when the window is
/// roomy the others are packed evenly into its first and last quarters and the new one
/// takes the middle of the hole; otherwise all are spread evenly.
fn spread(base: Label, size: Label, before: usize, after: usize) -> impl Fn(usize) -> Label {
    let count = |n: usize| Label::try_from(n).unwrap_or(Label::MAX);
    let quarter = size / 4;
    let roomy = quarter / 4 >= count(before.max(after));
    move |slot: usize| {
        let i = count(slot);
        if !roomy {
            let spacing = (size / count(before + after + 1)).max(1);
            return base + spacing * i + spacing.div_ceil(2);
        }
        let nb = count(before);
        if i < nb {
            let spacing = quarter / nb;
            base + spacing * i + spacing / 2
        } else if i == nb {
            base + size / 2
        } else {
            let spacing = quarter / count(after);
            base + size - quarter + spacing * (i - nb - 1) + spacing / 2
        }
    }
}

impl Tour {
    /// Every member of `set`, in tour order.
    pub(super) fn members(&self, set: Set) -> Vec<Id> {
        self.sets.get(set).values().cloned().collect()
    }
}

#[cfg(test)]
impl Tour {
    /// Test support: spans, labels, roots and sets agree with each other.
    pub(super) fn assert_consistent(&self) {
        assert_eq!(self.seq.len(), 2 * self.spans.len());
        for (id, span) in self.spans.iter() {
            assert!(0 < span.open && span.open < span.close && span.close < TOP);
            assert_eq!(self.seq.get(&span.open), Some(&(id.clone(), End::Open)));
            assert_eq!(self.seq.get(&span.close), Some(&(id.clone(), End::Close)));
        }
        for set in Set::ALL {
            for (label, id) in self.sets.get(set) {
                assert_eq!(self.span(id).map(|s| s.open), Some(*label), "{set:?}");
            }
        }
        let mut covered = 0;
        for (label, (id, size)) in &self.roots {
            let span = self.span(id).unwrap();
            assert_eq!(span.open, *label);
            let opens = self
                .seq
                .range(span.open..=span.close)
                .filter(|(_, e)| e.1 == End::Open)
                .count();
            assert_eq!(opens, *size, "size of `{id}`'s tree");
            covered += size;
        }
        assert_eq!(covered, self.spans.len(), "every session is in one tree");
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::{Id, Set, Tour};

    /// The oracle: parent pointers and children lists, walked naively.
    #[derive(Default)]
    struct Forest {
        parent: BTreeMap<String, String>,
        children: BTreeMap<String, Vec<String>>,
        known: Vec<String>,
    }

    impl Forest {
        fn is_descendant(&self, id: &str, ancestor: &str) -> bool {
            let mut cur = self.parent.get(id);
            while let Some(p) = cur {
                if p == ancestor {
                    return true;
                }
                cur = self.parent.get(p);
            }
            false
        }

        fn root(&self, id: &str) -> String {
            let mut cur = id.to_owned();
            while let Some(p) = self.parent.get(&cur) {
                cur = p.clone();
            }
            cur
        }

        /// `root`, then its descendants, parents first and children in link order.
        fn preorder(&self, root: &str) -> Vec<String> {
            let mut out = Vec::new();
            let mut stack = vec![root.to_owned()];
            while let Some(id) = stack.pop() {
                if let Some(c) = self.children.get(&id) {
                    stack.extend(c.iter().rev().cloned());
                }
                out.push(id);
            }
            out
        }

        fn link(&mut self, parent: &str, child: &str) {
            if self.parent.contains_key(child) || self.root(parent) == child {
                return;
            }
            self.parent.insert(child.to_owned(), parent.to_owned());
            self.children
                .entry(parent.to_owned())
                .or_default()
                .push(child.to_owned());
        }
    }

    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            usize::try_from(self.0 % n.max(1) as u64).unwrap()
        }
    }

    /// Every `stride`-th session against every session (and its subtree ranges).
    fn assert_agrees(
        tour: &Tour,
        forest: &Forest,
        sets: &BTreeMap<(usize, String), ()>,
        stride: usize,
    ) {
        tour.assert_consistent();
        for x in forest.known.iter().step_by(stride) {
            for a in &forest.known {
                assert_eq!(
                    tour.is_descendant(x, a),
                    forest.is_descendant(x, a),
                    "is `{x}` a descendant of `{a}`?"
                );
            }
            let order = forest.preorder(x);
            for (i, set) in Set::ALL.into_iter().enumerate() {
                let expected: Vec<&String> = order
                    .iter()
                    .filter(|id| sets.contains_key(&(i, (*id).clone())))
                    .collect();
                let got: Vec<String> = tour
                    .within(set, x, false)
                    .map(|id| id.to_string())
                    .collect();
                assert_eq!(
                    got.iter().collect::<Vec<_>>(),
                    expected,
                    "{set:?} within `{x}`"
                );
                let strict: Vec<String> =
                    tour.within(set, x, true).map(|id| id.to_string()).collect();
                let expected_strict: Vec<&String> =
                    expected.into_iter().filter(|id| *id != x).collect();
                assert_eq!(strict.iter().collect::<Vec<_>>(), expected_strict);
            }
        }
    }

    /// One randomized history: sessions added, linked top-down, bottom-up, under a
    /// random node or in an invalid way (cycles, second parents: no-ops), marked and
    /// unmarked; the tour answers what the naive walks answer after every step.
    fn history(seed: u64, steps: usize, check_every: usize, stride: usize) {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let (mut tour, mut forest) = (Tour::default(), Forest::default());
        let mut sets = BTreeMap::new();
        for step in 0..steps {
            let n = forest.known.len();
            let pick = |rng: &mut Rng| forest.known.get(rng.below(n)).cloned();
            match rng.below(10) {
                0..=1 => {
                    let id = format!("s{n}");
                    match pick(&mut rng) {
                        Some(p) if rng.below(2) == 0 => {
                            tour.add_under(&p, &Id::from(id.as_str()));
                            forest.known.push(id.clone());
                            forest.link(&p, &id);
                        }
                        _ => {
                            tour.add(&Id::from(id.as_str()));
                            forest.known.push(id);
                        }
                    }
                }
                2..=5 => {
                    if let (Some(p), Some(c)) = (pick(&mut rng), pick(&mut rng)) {
                        tour.link(&p, &c);
                        forest.link(&p, &c);
                    }
                }
                6 => {
                    // A chain grown at the bottom (the deep shape) or at the top.
                    let id = format!("s{n}");
                    tour.add(&Id::from(id.as_str()));
                    forest.known.push(id.clone());
                    if let Some(other) = forest.known.get(n.saturating_sub(1)).cloned() {
                        let (p, c) = if rng.below(2) == 0 {
                            (other, id)
                        } else {
                            (id, forest.root(&other))
                        };
                        tour.link(&p, &c);
                        forest.link(&p, &c);
                    }
                }
                _ => {
                    if let Some(id) = pick(&mut rng) {
                        let set = rng.below(Set::ALL.len());
                        let on = rng.below(3) > 0;
                        tour.mark(Set::ALL[set], &id, on);
                        if on {
                            sets.insert((set, id), ());
                        } else {
                            sets.remove(&(set, id));
                        }
                    }
                }
            }
            if step % check_every == 0 || step + 1 == steps {
                assert_agrees(&tour, &forest, &sets, stride);
            }
        }
    }

    /// Entries relabelled while growing `n` sessions in `pattern`.
    fn grow(pattern: &str, n: usize) -> usize {
        let mut tour = Tour::default();
        tour.add(&Id::from("R"));
        for i in 0..n {
            let id = format!("n{i}");
            let parent = match pattern {
                "chain" if i > 0 => format!("n{}", i - 1),
                "mixed" if i % 7 != 0 && i > 9 => format!("n{}", i - 1 - (i * 31) % 9),
                "nested" if (i * 7919) % 100 < 15 => format!("n{}", (i * 104_729) % i.max(1)),
                _ => "R".to_owned(),
            };
            tour.add_under(&parent, &Id::from(id.as_str()));
        }
        tour.assert_consistent();
        tour.relabelled
    }

    /// Relabelling stays amortized: growing a chain, a fan, a mix of both, or a fan with
    /// some nesting under earlier children four times larger relabels about four times
    /// as many entries (a logarithmic factor at most), never sixteen.
    #[test]
    fn relabelling_is_amortized_for_chains_and_fans() {
        for pattern in ["chain", "fan", "mixed", "nested"] {
            let (small, big) = (grow(pattern, 1_000), grow(pattern, 4_000));
            assert!(
                big <= 6 * small + 4_000,
                "{pattern}: {small} entries relabelled for 1,000 sessions, {big} for 4,000"
            );
        }
    }

    #[test]
    fn random_forests_answer_what_parent_walks_answer() {
        for seed in 1..=30 {
            history(seed, 300, 10, 1);
        }
    }

    #[test]
    fn long_histories_relabel_and_still_agree() {
        for seed in 1..=3 {
            history(seed, 3000, 500, 11);
        }
    }

    /// Chains grown at the bottom and at the top (each link moves the smaller tree),
    /// deep enough to exhaust gaps many times over.
    #[test]
    fn deep_chains_both_ways() {
        for bottom_up in [false, true] {
            let (mut tour, mut forest) = (Tour::default(), Forest::default());
            let mut sets = BTreeMap::new();
            for i in 0..600 {
                let id = format!("n{i}");
                tour.add(&Id::from(id.as_str()));
                if i > 0 {
                    let prev = format!("n{}", i - 1);
                    let (p, c) = if bottom_up {
                        (&id, &prev)
                    } else {
                        (&prev, &id)
                    };
                    tour.link(p, c);
                    forest.link(p, c);
                }
                if i % 3 == 0 {
                    tour.mark(Set::Working, &id, true);
                    sets.insert((0, id.clone()), ());
                }
                forest.known.push(id);
            }
            tour.assert_consistent();
            let top = if bottom_up { "n599" } else { "n0" };
            let all: Vec<String> = tour
                .within(Set::Working, top, false)
                .map(|id| id.to_string())
                .collect();
            let expected: Vec<String> = forest
                .preorder(top)
                .into_iter()
                .filter(|id| sets.contains_key(&(0, id.clone())))
                .collect();
            assert_eq!(all, expected);
            assert_eq!(tour.members(Set::Working).len(), 200);
            assert!(tour.is_descendant(if bottom_up { "n0" } else { "n599" }, top));
        }
    }
}
