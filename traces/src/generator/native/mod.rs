//! Deterministic native sources: the files Codex and Claude Code themselves write, of a
//! requested number of lines, in the shape of a long real session.
//!
//! One root session with many turns. Each turn has the user's message, the model's
//! output (reasoning, tool calls with their outputs, messages, token counts and the
//! bookkeeping the programs write around each model call) and, every 3 to 6 turns, a
//! delegation to 1–3 children, each in its own file, run side by side, waited for and
//! finished. Record kinds, field names and the way a spawn and its child look are those
//! of the lab's real runs (`traces/real-native/`); the per-file preamble records (base
//! instructions, skill listings, prompt snapshots, request shapes) have the sizes the
//! real ones have, their text replaced by filler.
//! - [`NativeKind::CodexRollout`] writes `sessions/YYYY/MM/DD/rollout-<time>-<thread>.jsonl`
//!   files, one per thread; a child's `session_meta` names its parent
//!   (`parent_thread_id`, `source.subagent.thread_spawn`); a child runs 1–3 turns (the
//!   later ones asked for with `send_input`).
//! - [`NativeKind::ClaudeTranscript`] writes `<project>/<session>.jsonl`, and each subagent's
//!   `<project>/<session>/subagents/agent-<id>.jsonl` with its `agent-<id>.meta.json`;
//!   the root's message launches them with one `Agent` tool use each; a subagent runs a
//!   task of 1–4 tool calls and, now and then, a second one the root asks for with
//!   `SendMessage` (resumed in the background, reported by a `<task-notification>`).
//!
//! The total of the files' lines (a `.meta.json` is one line) is at least `lines`, by
//! less than one root turn; the same kind, size and seed always give the same bytes.
//!
//! ```
//! use lineage_traces::generator::{NativeKind, generate_native};
//! let files = generate_native(NativeKind::CodexRollout, 2_000, 7);
//! assert_eq!(files, generate_native(NativeKind::CodexRollout, 2_000, 7));
//! let lines: usize = files.iter().map(|f| f.text.lines().count()).sum();
//! assert!((2_000..2_400).contains(&lines));
//! let source = lineage_core::native::read(&files);
//! assert_eq!(source.streams.len(), 1);
//! assert_eq!(source.streams[0].files.len(), files.len());
//! ```

mod claude;
mod codex;

use lineage_core::native::File;

use super::script::Rng;

/// Which program's files to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NativeKind {
    /// A Codex `sessions` folder: one rollout file per thread.
    CodexRollout,
    /// A Claude Code project folder: the session's transcript and its subagents' files.
    ClaudeTranscript,
}

/// A native source of `kind` of at least `lines` lines in all, deterministic in `seed`:
/// its files with their paths relative to the folder the program writes (`sessions/…`
/// for Codex, `<project>/…` for Claude Code), the root's file first.
pub fn generate_native(kind: NativeKind, lines: usize, seed: u64) -> Vec<File> {
    let mut g = Gen::new(seed);
    match kind {
        NativeKind::CodexRollout => codex::generate(&mut g, lines),
        NativeKind::ClaudeTranscript => claude::generate(&mut g, lines),
    }
}

/// 2026-12-01T09:00:00Z, where every generated session starts (ms since the epoch).
const START: u64 = 1_796_115_600_000;

/// The generator's state shared by every file of a source: randomness, the clock every
/// file's timestamps read, and the lines written so far.
struct Gen {
    rng: Rng,
    /// Milliseconds since the epoch.
    now: u64,
    /// Lines written, over all files.
    lines: usize,
}

impl Gen {
    fn new(seed: u64) -> Self {
        Self {
            rng: Rng(seed ^ 0x6E61_7469_7665),
            now: START,
            lines: 0,
        }
    }

    /// A number in `lo..=hi`.
    fn between(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.rng.below(hi.saturating_sub(lo) + 1)
    }

    /// A count in `lo..=hi`.
    fn count(&mut self, lo: usize, hi: usize) -> usize {
        let n = self.between(lo as u64, hi as u64);
        usize::try_from(n).unwrap_or(lo)
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.rng.chance(percent)
    }

    /// Root turns until `lines` lines are written over all files: `turn` writes one (told
    /// whether it delegates, as every 3rd–6th turn does), and 2–30 s pass between turns.
    fn root_turns<C>(
        &mut self,
        lines: usize,
        c: &mut C,
        mut turn: impl FnMut(&mut C, &mut Self, bool),
    ) {
        let mut next = self.count(3, 6);
        let mut n = 0;
        while self.lines < lines {
            n += 1;
            let delegate = n == next;
            if delegate {
                next += self.count(3, 6);
            }
            turn(c, self, delegate);
            self.tick(2_000, 30_000);
        }
    }

    /// Advances the clock by `lo..=hi` ms and returns it.
    fn tick(&mut self, lo: u64, hi: u64) -> u64 {
        self.now += self.between(lo, hi);
        self.now
    }

    /// `n` lowercase hex digits.
    fn hex(&mut self, n: usize) -> String {
        let mut out = String::with_capacity(n);
        while out.len() < n {
            let word = self.rng.next();
            for shift in (0..16).rev() {
                if out.len() == n {
                    break;
                }
                let digit = (word >> (shift * 4)) & 0xF;
                out.push(char::from_digit(u32::try_from(digit).unwrap_or(0), 16).unwrap_or('0'));
            }
        }
        out
    }

    /// A UUID v7 (time-ordered: Codex's thread, turn and item ids).
    fn uuid7(&mut self) -> String {
        let t = self.now;
        let h = self.hex(18);
        let variant = ["8", "9", "a", "b"][(self.rng.below(4)) as usize];
        format!(
            "{:08x}-{:04x}-7{}-{variant}{}-{}",
            (t >> 16) & 0xFFFF_FFFF,
            t & 0xFFFF,
            &h[..3],
            &h[3..6],
            &h[6..18]
        )
    }

    /// A UUID v4 (Claude Code's session, record and request ids).
    fn uuid4(&mut self) -> String {
        let h = self.hex(31);
        let variant = ["8", "9", "a", "b"][(self.rng.below(4)) as usize];
        format!(
            "{}-{}-4{}-{variant}{}-{}",
            &h[..8],
            &h[8..12],
            &h[12..15],
            &h[15..18],
            &h[18..30]
        )
    }

    /// `n` characters of `[A-Za-z0-9]` (Anthropic's message and tool use ids).
    fn base62(&mut self, n: usize) -> String {
        const DIGITS: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
        (0..n)
            .map(|_| char::from(DIGITS[(self.rng.below(62)) as usize]))
            .collect()
    }

    /// Filler of `lo..=hi` bytes ([`Gen::filler`]).
    fn text(&mut self, lo: usize, hi: usize) -> String {
        let len = self.count(lo, hi);
        self.filler(len)
    }

    /// About `len` bytes of prose, already escaped for a JSON string (lines end in `\n`).
    fn filler(&mut self, len: usize) -> String {
        let mut out = String::with_capacity(len + 16);
        let mut words = 0;
        while out.len() < len {
            let word = WORDS[(self.rng.below(WORDS.len() as u64)) as usize];
            out.push_str(word);
            words += 1;
            if words % 14 == 0 {
                out.push_str(".\\n");
            } else {
                out.push(' ');
            }
        }
        out
    }
}

/// The filler's vocabulary.
const WORDS: [&str; 48] = [
    "the",
    "agent",
    "tool",
    "file",
    "test",
    "build",
    "should",
    "when",
    "before",
    "after",
    "run",
    "command",
    "output",
    "error",
    "check",
    "change",
    "module",
    "function",
    "return",
    "value",
    "user",
    "request",
    "session",
    "context",
    "read",
    "write",
    "path",
    "directory",
    "search",
    "result",
    "update",
    "config",
    "permission",
    "sandbox",
    "network",
    "cargo",
    "crate",
    "parser",
    "record",
    "line",
    "turn",
    "model",
    "message",
    "reply",
    "summary",
    "review",
    "patch",
    "diff",
];

/// `ms` since the epoch as the programs write it: `2026-12-01T15:01:27.511Z`.
fn stamp(ms: u64) -> String {
    let (date, (h, m, s)) = civil(ms);
    format!("{date}T{h:02}:{m:02}:{s:02}.{:03}Z", ms % 1000)
}

/// The date (`YYYY-MM-DD`) and the time of day of `ms` since the epoch.
fn civil(ms: u64) -> (String, (u64, u64, u64)) {
    let secs = ms / 1000;
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (
        format!("{y:04}-{m:02}-{d:02}"),
        (rem / 3600, rem % 3600 / 60, rem % 60),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_are_the_programs_format() {
        assert_eq!(stamp(START), "2026-12-01T09:00:00.000Z");
        assert_eq!(
            stamp(START + 15 * 3_600_000 + 1_234),
            "2026-12-02T00:00:01.234Z"
        );
        assert_eq!(
            lineage_core::native::parse_timestamp(&serde_json::json!(stamp(START + 7))),
            Some(START + 7)
        );
    }

    #[test]
    fn ids_have_their_programs_shapes() {
        let mut g = Gen::new(1);
        let v7 = g.uuid7();
        assert_eq!(v7.len(), 36, "{v7}");
        assert_eq!(v7.as_bytes()[14], b'7', "{v7}");
        let v4 = g.uuid4();
        assert_eq!(v4.len(), 36, "{v4}");
        assert_eq!(v4.as_bytes()[14], b'4', "{v4}");
    }
}
