//! The format-independent script of a generated trace.

use lineage_core::Outcome;
use lineage_core::trace::Format;

use super::Shape;

/// One abstract step; each renderer turns it into one or more records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// The user submits (opens root turn `turn`, or guides it when it is active).
    Submit {
        /// Root turn ordinal this submission belongs to.
        turn: u32,
        /// Guidance on the active root turn (rather than opening it).
        guidance: bool,
    },
    /// A root provider turn starts (first or continuation).
    ProviderStart {
        /// Provider turn ordinal.
        pturn: u32,
    },
    /// The root provider turn ends.
    ProviderDone {
        /// Provider turn ordinal.
        pturn: u32,
        /// Its outcome.
        outcome: Outcome,
    },
    /// Root output.
    RootText {
        /// Provider turn ordinal.
        pturn: u32,
        /// Item ordinal.
        item: u64,
    },
    /// `parent` (a child index, or the root) spawns child `child`.
    Spawn {
        /// The spawning child, or `None` for the root.
        parent: Option<u32>,
        /// The new child's index.
        child: u32,
        /// Provider turn ordinal of the root at spawn time.
        pturn: u32,
    },
    /// The child's turn starts running.
    ChildStart {
        /// Child index.
        child: u32,
    },
    /// Child output.
    ChildText {
        /// Child index.
        child: u32,
        /// Item ordinal.
        item: u64,
    },
    /// An approval request by the root (`None`) or a child.
    Approval {
        /// Owner.
        owner: Option<u32>,
        /// Request ordinal.
        req: u64,
    },
    /// Its answer.
    Answer {
        /// Owner.
        owner: Option<u32>,
        /// Request ordinal.
        req: u64,
    },
    /// A child turn ends.
    ChildDone {
        /// Child index.
        child: u32,
        /// Its outcome.
        outcome: Outcome,
    },
    /// The user cancels the root turn; `targets` are the active children, of which
    /// `acked` confirm the stop.
    Cancel {
        /// Provider turn ordinal live at the cancel (if any).
        pturn: Option<u32>,
        /// Active children.
        targets: Vec<u32>,
        /// Those that confirm.
        acked: Vec<u32>,
    },
}

/// A generated script.
#[derive(Debug, Clone)]
pub struct Script {
    /// Seed, also used in ids.
    pub seed: u64,
    /// Steps in order.
    pub steps: Vec<Step>,
    /// Parent of each child (index → parent child index or root).
    pub parents: Vec<Option<u32>>,
}

/// splitmix64: a tiny deterministic generator (no global state, no OS entropy).
#[derive(Debug, Clone)]
pub(super) struct Rng(pub(super) u64);

impl Rng {
    pub(super) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub(super) fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }

    pub(super) fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

struct Builder {
    rng: Rng,
    steps: Vec<Step>,
    parents: Vec<Option<u32>>,
    pturn: u32,
    item: u64,
    req: u64,
    turn: u32,
    claude: bool,
}

impl Builder {
    fn spawn(&mut self, parent: Option<u32>) -> u32 {
        let child = u32::try_from(self.parents.len()).unwrap_or(u32::MAX);
        self.parents.push(parent);
        self.steps.push(Step::Spawn {
            parent,
            child,
            pturn: self.pturn,
        });
        child
    }

    fn open_root_turn(&mut self) {
        self.turn += 1;
        self.steps.push(Step::Submit {
            turn: self.turn,
            guidance: false,
        });
        self.pturn += 1;
        self.steps.push(Step::ProviderStart { pturn: self.pturn });
        self.item += 1;
        self.steps.push(Step::RootText {
            pturn: self.pturn,
            item: self.item,
        });
    }

    fn child_text(&mut self, child: u32) {
        self.item += 1;
        self.steps.push(Step::ChildText {
            child,
            item: self.item,
        });
    }

    fn approval(&mut self, owner: Option<u32>) {
        self.req += 1;
        self.steps.push(Step::Approval {
            owner,
            req: self.req,
        });
        self.steps.push(Step::Answer {
            owner,
            req: self.req,
        });
    }

    fn provider_done(&mut self) {
        self.steps.push(Step::ProviderDone {
            pturn: self.pturn,
            outcome: Outcome::Completed,
        });
    }

    /// A continuation provider turn of the same root turn.
    fn continuation(&mut self) {
        self.pturn += 1;
        self.steps.push(Step::ProviderStart { pturn: self.pturn });
        self.item += 1;
        self.steps.push(Step::RootText {
            pturn: self.pturn,
            item: self.item,
        });
        self.provider_done();
    }

    /// Ends active children, deepest (latest) first so parents never end before children.
    fn finish_children(&mut self, active: &mut Vec<u32>) {
        while let Some(child) = active.pop() {
            let outcome = if self.rng.chance(15) {
                Outcome::Failed
            } else {
                Outcome::Completed
            };
            self.steps.push(Step::ChildDone { child, outcome });
        }
    }

    /// One churn cycle: a root turn with a few (nested) children.
    fn cycle(&mut self) {
        self.open_root_turn();
        let mut active: Vec<u32> = Vec::new();
        for _ in 0..1 + self.rng.below(4) {
            let parent = if !active.is_empty() && self.rng.chance(25) {
                active
                    .get(usize::try_from(self.rng.below(active.len() as u64)).unwrap_or(0))
                    .copied()
            } else {
                None
            };
            let child = self.spawn(parent);
            self.steps.push(Step::ChildStart { child });
            active.push(child);
        }
        for _ in 0..2 + self.rng.below(8) {
            let pick = usize::try_from(self.rng.below(active.len() as u64)).unwrap_or(0);
            let Some(&child) = active.get(pick) else {
                break;
            };
            match self.rng.below(10) {
                0 => self.approval(Some(child)),
                1 => self.approval(None),
                2 => self.steps.push(Step::Submit {
                    turn: self.turn,
                    guidance: true,
                }),
                _ => self.child_text(child),
            }
        }
        match self.rng.below(10) {
            0 => {
                let mut acked: Vec<u32> = active
                    .iter()
                    .copied()
                    .filter(|_| self.rng.chance(70))
                    .collect();
                if self.claude {
                    // Claude's interrupt is the root-query cancel: its answer covers every
                    // Task execution of the query ("Provider-Native Subagents",
                    // *Cancellation*), so every child's stop is confirmed.
                    acked.clone_from(&active);
                }
                self.steps.push(Step::Cancel {
                    pturn: Some(self.pturn),
                    targets: active.clone(),
                    acked,
                });
            }
            1..=3 => {
                // The provider ends while children run; a continuation follows (always for
                // Claude, whose adapter reserves one for the last background child).
                self.provider_done();
                if self.claude {
                    // Claude reports the last background child before its continuation
                    // begins; the adapter's continuation guard keeps the root open.
                    self.finish_children(&mut active);
                    self.continuation();
                } else if self.rng.chance(50) {
                    // Elsewhere the continuation starts while a child still runs (after
                    // the last child the root turn would already have settled).
                    let last = active.first().copied();
                    active.retain(|c| Some(*c) != last);
                    self.finish_children(&mut active);
                    self.pturn += 1;
                    self.steps.push(Step::ProviderStart { pturn: self.pturn });
                    self.item += 1;
                    self.steps.push(Step::RootText {
                        pturn: self.pturn,
                        item: self.item,
                    });
                    if let Some(last) = last {
                        self.steps.push(Step::ChildDone {
                            child: last,
                            outcome: Outcome::Completed,
                        });
                    }
                    self.provider_done();
                } else {
                    self.finish_children(&mut active);
                }
            }
            _ => {
                self.finish_children(&mut active);
                self.provider_done();
            }
        }
    }
}

impl Script {
    /// Builds the script of `shape` for `format`, deterministically from `seed`.
    pub fn new(shape: Shape, seed: u64, format: Format) -> Self {
        let mut b = Builder {
            rng: Rng(seed),
            steps: Vec::new(),
            parents: Vec::new(),
            pturn: 0,
            item: 0,
            req: 0,
            turn: 0,
            claude: format == Format::ClaudeSdk,
        };
        match shape {
            Shape::Wide { children } => {
                b.open_root_turn();
                let mut active = Vec::new();
                for _ in 0..children {
                    let c = b.spawn(None);
                    b.steps.push(Step::ChildStart { child: c });
                    active.push(c);
                }
                for &c in &active.clone() {
                    b.child_text(c);
                }
                b.provider_done();
                b.finish_children(&mut active);
                if b.claude {
                    b.continuation();
                }
            }
            Shape::Deep { depth } => {
                b.open_root_turn();
                let mut chain = Vec::new();
                let mut parent = None;
                for _ in 0..depth {
                    let c = b.spawn(parent);
                    b.steps.push(Step::ChildStart { child: c });
                    b.child_text(c);
                    chain.push(c);
                    parent = Some(c);
                }
                b.provider_done();
                b.finish_children(&mut chain);
                if b.claude {
                    b.continuation();
                }
            }
            Shape::Long { records } => {
                while b.steps.len() < records {
                    b.cycle();
                }
            }
        }
        Script {
            seed,
            steps: b.steps,
            parents: b.parents,
        }
    }

    /// The root session id.
    pub fn root(&self) -> String {
        format!("root-{}", self.seed)
    }

    /// Child `i`'s id.
    pub fn child(&self, i: u32) -> String {
        format!("child-{}-{i}", self.seed)
    }

    /// The session id of an owner (`None` = root).
    pub fn owner(&self, owner: Option<u32>) -> String {
        owner.map_or_else(|| self.root(), |c| self.child(c))
    }
}
