//! Native sources on disk: a Codex `sessions` folder (or a date folder, or one rollout), a
//! Claude Code project folder (or a session's file), found and read for the core's
//! native reader.
//!
//! Owns: telling whether a path is a native source (a folder, or a regular file whose
//! first record is a rollout's or a transcript's), the files that belong to it, and
//! reading them. A folder is walked as `lineage check` walks one (depth first, path
//! order, each file once); a subagent's `agent-<id>.meta.json` comes with its
//! `agent-<id>.jsonl`. A single rollout comes with the other rollouts of its folder (its
//! children are written there); a Claude Code session file with its `<session>/` folder
//! and the flat `agent-*.jsonl` files beside it. A Codex day folder (or a rollout in one)
//! comes with the rollouts of the next day's folder ([`SourceFiles`]), as `replay`,
//! `convert`, `watch` and `check` (of a folder) read it.
//! Never: interprets a record (the core does); never drops a file silently: a file that
//! cannot be read is an error with its path, and bytes that are not UTF-8 are a finding
//! at their line.

use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};

use lineage_core::finding::{Code, Finding};
use lineage_core::native::{self, File, Kind, Located, Source};

use crate::{input, walk};

/// The native kind of a regular file, from its name and first non-blank line.
pub fn kind(path: &Path) -> Option<Kind> {
    if input::is_stdin(path) {
        // A Zed log pasted into a pipe (`pbpaste | lineage check -`) is one whole file;
        // the other native kinds come in folders.
        return native::kind_of("-", &input::stdin_head()).filter(|k| *k == Kind::ZedAcpLog);
    }
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return None;
    }
    let name = path.file_name()?.to_string_lossy().into_owned();
    if name.ends_with(".meta.json") {
        return Some(Kind::ClaudeMeta);
    }
    let mut head = Vec::new();
    let file = std::fs::File::open(path).ok()?;
    file.take(native::HEAD as u64).read_to_end(&mut head).ok()?;
    native::kind_of(&name, &String::from_utf8_lossy(&head))
}

/// Is `path` a native source: a folder, or a native file?
pub fn is_native(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_dir()) || kind(path).is_some()
}

/// The files a native source is read from: its own, and apart the Codex rollouts of the
/// day after its day folder. A child started after midnight writes its rollout there, so
/// its tree is read whole from its parent's folder (or rollout); a tree rooted there is
/// another source's. `replay`, `convert`, `watch` and `check` of a folder read these
/// same files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceFiles {
    /// The source's own files (each subagent transcript's `agent-<id>.meta.json` with
    /// it), sorted.
    pub own: Vec<PathBuf>,
    /// The rollouts of the next day's folder.
    pub next_day: Vec<PathBuf>,
}

impl SourceFiles {
    /// The files of the native source `path`, `found` being its own (those under the
    /// folder `path`, or the file `path` and its companions): the next day's rollouts
    /// come with them when `path` is a Codex day folder (`…/YYYY/MM/DD`) holding
    /// rollouts, or a rollout in one.
    pub fn of(path: &Path, found: Vec<PathBuf>) -> Self {
        let day = if std::fs::metadata(path).is_ok_and(|m| m.is_dir()) {
            Some(path)
        } else {
            path.parent()
                .filter(|_| kind(path) == Some(Kind::CodexRollout))
        };
        Self {
            next_day: day.map_or_else(Vec::new, |dir| next_day_rollouts(dir, &found)),
            own: with_metas(found),
        }
    }

    /// Every file, the source's own first.
    pub fn all(&self) -> Vec<PathBuf> {
        self.own.iter().chain(&self.next_day).cloned().collect()
    }

    /// For each file of `source` (read from these files), whether it is one of the
    /// source's own.
    pub fn own_in(&self, source: &Source) -> Vec<bool> {
        let own: BTreeSet<String> = self.own.iter().map(|p| p.display().to_string()).collect();
        source.files.iter().map(|f| own.contains(f)).collect()
    }

    /// The streams of `source` (read from these files) that are this source's trees:
    /// those rooted in a file of its own (a tree rooted in the next day's folder is
    /// another source's).
    pub fn streams_in(&self, source: &Source) -> Vec<usize> {
        let own = self.own_in(source);
        (0..source.streams.len())
            .filter(|&k| {
                let root = source.streams.get(k).and_then(|s| s.files.first());
                root.is_some_and(|f| own.get(*f).copied().unwrap_or(false))
            })
            .collect()
    }
}

/// The files of the native source `path` (see [`SourceFiles`]).
fn gather(path: &Path) -> Result<SourceFiles, String> {
    if std::fs::metadata(path).is_ok_and(|m| m.is_dir()) {
        let mut found = Vec::new();
        for input in walk::inputs(&[path.to_path_buf()]) {
            found.push(input.map_err(|(p, why)| format!("{}: {why}", p.display()))?);
        }
        return Ok(SourceFiles::of(path, found));
    }
    Ok(SourceFiles::of(path, companions(path)))
}

/// The rollouts of the day after `dir`, when `dir` is a Codex day folder
/// (`…/YYYY/MM/DD`) holding rollouts.
fn next_day_rollouts(dir: &Path, found: &[PathBuf]) -> Vec<PathBuf> {
    let holds_rollouts = found.iter().any(|f| kind(f) == Some(Kind::CodexRollout));
    match next_day_folder(dir) {
        Some(next) if holds_rollouts && next.is_dir() => of_kind(&next, Kind::CodexRollout),
        _ => Vec::new(),
    }
}

/// `…/YYYY/MM/DD` → the folder of the next calendar day, `…/YYYY/MM/DD` too.
fn next_day_folder(dir: &Path) -> Option<PathBuf> {
    let number = |p: &Path| -> Option<u32> { p.file_name()?.to_str()?.parse().ok() };
    let month_dir = dir.parent()?;
    let year_dir = month_dir.parent()?;
    let (y, m, d) = next_day(number(year_dir)?, number(month_dir)?, number(dir)?)?;
    let root = year_dir.parent()?;
    Some(
        root.join(format!("{y:04}"))
            .join(format!("{m:02}"))
            .join(format!("{d:02}")),
    )
}

/// The calendar day after `y-m-d` (Gregorian), `None` for a date that does not exist.
fn next_day(y: u32, m: u32, d: u32) -> Option<(u32, u32, u32)> {
    let leap = (y.is_multiple_of(4) && !y.is_multiple_of(100)) || y.is_multiple_of(400);
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    if d == 0 || d > days {
        return None;
    }
    Some(if d < days {
        (y, m, d + 1)
    } else if m < 12 {
        (y, m + 1, 1)
    } else {
        (y + 1, 1, 1)
    })
}

/// A native file with the files that belong to its source.
fn companions(path: &Path) -> Vec<PathBuf> {
    let mut out = vec![path.to_path_buf()];
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    match kind(path) {
        Some(Kind::CodexRollout) => out.extend(of_kind(&dir, Kind::CodexRollout)),
        Some(Kind::ClaudeTranscript) => {
            out.extend(session_files(
                path,
                &dir,
                of_kind(&dir, Kind::ClaudeTranscript),
            ));
        }
        _ => {}
    }
    out
}

/// The files of a Claude Code session given by one of its transcripts: for the session's
/// `<session>.jsonl`, its `<session>/` folder and the transcripts beside it (the project
/// folder: flat `agent-*.jsonl` files name their session only inside); for a subagent's
/// `<session>/subagents/agent-<id>.jsonl`, the session's file two folders up and its files.
fn session_files(path: &Path, dir: &Path, siblings: Vec<PathBuf>) -> Vec<PathBuf> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if name.starts_with("agent-") {
        let in_subagents = dir.file_name().is_some_and(|d| d == "subagents");
        let session = dir.parent().filter(|_| in_subagents).and_then(|folder| {
            let file = folder.with_extension("jsonl");
            file.is_file().then_some(file)
        });
        return match session {
            Some(file) => {
                let parent = file
                    .parent()
                    .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
                let mut all = vec![file.clone()];
                let beside = of_kind(&parent, Kind::ClaudeTranscript);
                all.extend(session_files(&file, &parent, beside));
                all
            }
            // A flat subagent: its session is a sibling, told by the reader.
            None => siblings,
        };
    }
    let mut out = siblings;
    if let Some(stem) = path.file_stem() {
        let folder = dir.join(stem);
        if folder.is_dir() {
            out.extend(walk::inputs(&[folder]).into_iter().flatten());
        }
    }
    out
}

/// The files of native kind `want` directly in `dir`, sorted.
fn of_kind(dir: &Path, want: Kind) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| kind(p) == Some(want))
        .collect();
    found.sort();
    found
}

/// The `agent-<id>.meta.json` beside an `agent-<id>.jsonl`, when it exists.
fn meta_of(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?.to_string_lossy().into_owned();
    let stem = name.strip_prefix("agent-")?.strip_suffix(".jsonl")?;
    let meta = path.with_file_name(format!("agent-{stem}.meta.json"));
    meta.is_file().then_some(meta)
}

/// Reads the files of a native source and the source they make; a file that cannot be
/// read is left out and returned with its error. Bytes that are not UTF-8 are replaced
/// and reported at their line (`invalid-utf8`).
pub fn read(paths: &[PathBuf]) -> (Source, Vec<(PathBuf, String)>) {
    read_lines(paths, Lines::Whole)
}

/// Which lines of a file are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lines {
    /// All of it (a file that is complete).
    Whole,
    /// A `.jsonl` file up to its last line break: a line still being written (a program
    /// appends to it) waits for the next read.
    Complete,
}

fn read_lines(paths: &[PathBuf], lines: Lines) -> (Source, Vec<(PathBuf, String)>) {
    let mut files = Vec::with_capacity(paths.len());
    let mut utf8 = Vec::new();
    let mut errors = Vec::new();
    for path in paths {
        let read = if input::is_stdin(path) {
            let mut bytes = Vec::new();
            std::io::stdin()
                .lock()
                .read_to_end(&mut bytes)
                .map(|_| bytes)
        } else {
            std::fs::read(path)
        };
        let bytes = match read {
            Ok(mut bytes) => {
                if lines == Lines::Complete && path.extension().is_some_and(|x| x == "jsonl") {
                    let end = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |k| k + 1);
                    bytes.truncate(end);
                }
                bytes
            }
            Err(e) => {
                errors.push((path.clone(), e.to_string()));
                continue;
            }
        };
        let text = match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => {
                let bytes = e.into_bytes();
                let valid = std::str::from_utf8(&bytes).map_or_else(|e| e.valid_up_to(), |_| 0);
                let line = 1 + bytes
                    .get(..valid)
                    .map_or(0, |b| b.iter().filter(|c| **c == b'\n').count());
                let message = "bytes that are not UTF-8: they were read as U+FFFD";
                let finding = Finding::new(line, Code::InvalidUtf8, message);
                utf8.push(Located {
                    file: files.len(),
                    finding,
                });
                String::from_utf8_lossy(&bytes).into_owned()
            }
        };
        files.push(File::new(path.display().to_string(), text));
    }
    let mut source = native::read(&files);
    for located in utf8 {
        match source
            .streams
            .iter_mut()
            .find(|s| s.files.contains(&located.file))
        {
            Some(stream) => stream.findings.push(located),
            None => source.findings.push(located),
        }
    }
    (source, errors)
}

/// `paths` with the `agent-<id>.meta.json` of each `agent-<id>.jsonl` among them.
pub fn with_metas(mut paths: Vec<PathBuf>) -> Vec<PathBuf> {
    let metas: Vec<PathBuf> = paths.iter().filter_map(|f| meta_of(f)).collect();
    paths.extend(metas);
    paths.sort();
    paths.dedup();
    paths
}

/// Opens the native source `path` and picks the tree to show: the one `session` names
/// (its root id), the one a given file belongs to, or the only one. Several trees and no
/// choice is a usage error that lists them.
pub fn open(path: &Path, session: Option<&str>) -> Result<(Source, usize), String> {
    open_as(path, session, Several::Refuse, Lines::Whole)
}

/// What [`open_as`] does with a folder of several trees when no session is named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Several {
    /// A usage error that lists the roots.
    Refuse,
    /// The tree whose root file changed last (`lineage watch`: the session running now).
    Newest,
}

/// [`open`], choosing among several trees as `several` says and reading `lines`.
pub fn open_as(
    path: &Path,
    session: Option<&str>,
    several: Several,
    lines: Lines,
) -> Result<(Source, usize), String> {
    let files = gather(path)?;
    let paths = files.all();
    let (source, errors) = read_lines(&paths, lines);
    if let Some((path, why)) = errors.first() {
        return Err(format!("{}: {why}", path.display()));
    }
    // A tree rooted in the next day's folder is another session, not this source's.
    let here = files.streams_in(&source);
    let roots: Vec<&str> = here
        .iter()
        .filter_map(|&k| source.streams.get(k).map(|s| s.root.as_str()))
        .collect();
    let given_file = paths.iter().position(|p| p == path);
    let chosen = match (session, given_file) {
        (Some(id), _) => here
            .iter()
            .copied()
            .find(|&k| source.streams.get(k).is_some_and(|s| s.root == id))
            .ok_or_else(|| {
                format!(
                    "no session tree with root `{id}` in this source (roots: {})",
                    list(&roots)
                )
            })?,
        (None, Some(file)) => source
            .streams
            .iter()
            .position(|s| s.files.contains(&file))
            .ok_or_else(|| not_read(&source, file))?,
        (None, None) => match here.as_slice() {
            [only] => *only,
            [] => return Err(no_tree(path, &paths, &source)),
            [_, ..] if several == Several::Newest => newest(&source, &here).unwrap_or_default(),
            _ => {
                return Err(format!(
                    "this folder holds {} session trees; pick one with --session <ROOT>: {}",
                    roots.len(),
                    list(&roots)
                ));
            }
        },
    };
    Ok((source, chosen))
}

/// The stream among `here` whose root file was modified last (the first of equals).
fn newest(source: &Source, here: &[usize]) -> Option<usize> {
    let modified = |k: usize| {
        let file = source.streams.get(k)?.files.first()?;
        std::fs::metadata(source.files.get(*file)?)
            .and_then(|m| m.modified())
            .ok()
    };
    let mut best: Option<(usize, Option<std::time::SystemTime>)> = None;
    for &k in here {
        let m = modified(k);
        if best.is_none_or(|(_, b)| m > b) {
            best = Some((k, m));
        }
    }
    best.map(|(k, _)| k)
}

/// Why a folder gives no session tree. A folder of traces (files lineage reads one at a
/// time) says so in one short line, with what to run instead; otherwise each file's reason.
fn no_tree(path: &Path, paths: &[PathBuf], source: &Source) -> String {
    let traces = paths
        .iter()
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .count();
    if traces > 1 && traces == paths.len() {
        let first = paths
            .first()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        return format!(
            "a folder of {traces} trace files, not a native source (Codex rollouts, Claude Code transcripts, a Zed log): `replay` shows one trace, so give one file (e.g. `{first}`); `lineage check {}` checks them all",
            path.display()
        );
    }
    format!("no session tree in this folder: {}", reasons(source))
}

fn list(roots: &[&str]) -> String {
    const SHOWN: usize = 20;
    let mut text = roots
        .iter()
        .take(SHOWN)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if roots.len() > SHOWN {
        text.push_str(&format!(", and {} more", roots.len() - SHOWN));
    }
    text
}

/// Why a file given on its own is in no tree: the reader's findings about it.
fn not_read(source: &Source, file: usize) -> String {
    let why: Vec<&str> = source
        .findings
        .iter()
        .filter(|l| l.file == file)
        .map(|l| l.finding.message.as_str())
        .collect();
    if why.is_empty() {
        "this file belongs to no session tree".to_owned()
    } else {
        why.join("; ")
    }
}

fn reasons(source: &Source) -> String {
    let why: Vec<String> = source
        .findings
        .iter()
        .take(5)
        .map(|l| {
            let path = source.files.get(l.file).map_or("?", String::as_str);
            format!("{path}:{}: {}", l.finding.line, l.finding.message)
        })
        .collect();
    if why.is_empty() {
        "no Codex rollout or Claude Code transcript found".to_owned()
    } else {
        why.join("; ")
    }
}

#[cfg(test)]
mod next_day_tests {
    use super::{next_day, next_day_folder};
    use std::path::{Path, PathBuf};

    #[test]
    fn the_next_day_rolls_over_months_years_and_leap_days() {
        assert_eq!(next_day(2026, 12, 1), Some((2026, 12, 2)));
        assert_eq!(next_day(2026, 4, 30), Some((2026, 5, 1)));
        assert_eq!(next_day(2026, 12, 31), Some((2027, 1, 1)));
        assert_eq!(next_day(2028, 2, 28), Some((2028, 2, 29)));
        assert_eq!(next_day(2026, 2, 28), Some((2026, 3, 1)));
        assert_eq!(next_day(1900, 2, 28), Some((1900, 3, 1)));
        assert_eq!(next_day(2000, 2, 28), Some((2000, 2, 29)));
        assert_eq!(next_day(2026, 2, 30), None);
        assert_eq!(next_day(2026, 13, 1), None);
    }

    #[test]
    fn only_a_day_folder_has_a_next_day_folder() {
        assert_eq!(
            next_day_folder(Path::new("s/2026/12/31")),
            Some(PathBuf::from("s/2027/01/01"))
        );
        assert_eq!(next_day_folder(Path::new("s/2026/12")), None);
        assert_eq!(next_day_folder(Path::new("s/sessions/12/31")), None);
    }
}
