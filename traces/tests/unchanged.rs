//! Output pinned byte for byte: `replay --format json` and `check`'s findings of every
//! corpus trace (`traces/**/*.jsonl` but `traces/real-native/`) and of 1,000 generated
//! traces (`wide:1..10`, `deep:1..10`, `long:20..116`, seeds 0..49, 250 per format), each
//! hashed (FNV-1a 64) and compared with the digests committed in `traces/tests/unchanged/`.
//!
//! The committed digests were produced by the code *before* the performance work of
//! issue 14: they are the "unchanged" reference that the optimizations must keep.
//!
//! - `unchanged/tree.digests`: canonical, Codex and Claude traces (the session tree);
//! - `unchanged/acp.digests`: ACP traces (the Client view and the conformance checker),
//!   kept apart so a change to the ACP checker regenerates only these.
//!
//! A line is `<name> <replay digest> <check digest>`. On a mismatch the test lists every
//! trace whose output changed. After an *intentional* output change, regenerate with
//! `LINEAGE_DIGESTS=write cargo test -p lineage-traces --test unchanged` (both files), or
//! `LINEAGE_DIGESTS=acp` / `LINEAGE_DIGESTS=tree` (that file only), and commit the result.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use lineage_core::render::json_string;
use lineage_core::replay::{Options, check, replay};
use lineage_core::trace::Format;
use lineage_traces::generator::{Shape, generate};

/// FNV-1a, 64 bits: a stable hash of the output bytes (no dependency).
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// `(is ACP, replay digest, check digest)` of one trace text.
fn digest(text: &str) -> (bool, u64, u64) {
    let (acp, replayed) = match replay(text, &Options::default()) {
        Ok(r) => (r.format == Format::Acp, json_string(&r, true)),
        Err(e) => (false, format!("error: {e}")),
    };
    let checked = match check(text, None) {
        Ok(r) => serde_json::to_string(&r.findings).unwrap(),
        Err(e) => format!("error: {e}"),
    };
    (acp, fnv1a(replayed.as_bytes()), fnv1a(checked.as_bytes()))
}

/// Every corpus trace, by path relative to `traces/`, sorted.
fn corpus() -> Vec<(String, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if path.is_dir() {
                if !matches!(rel.as_str(), "real-native" | "src" | "tests" | "target") {
                    stack.push(path);
                }
            } else if path.extension().is_some_and(|x| x == "jsonl") {
                out.push((rel, path));
            }
        }
    }
    out.sort();
    out
}

/// The 1,000 generated traces: 250 per format over small shapes and seeds.
fn generated() -> Vec<(String, String)> {
    let formats = [
        (Format::Canonical, "canonical"),
        (Format::CodexAppServer, "codex"),
        (Format::ClaudeSdk, "claude"),
        (Format::Acp, "acp"),
    ];
    let mut out = Vec::with_capacity(1_000);
    for (format, name) in formats {
        for i in 0..250_u64 {
            let n = usize::try_from(i % 10).unwrap() + 1;
            let (shape, label) = match i % 5 {
                0 => (Shape::Wide { children: n }, format!("wide:{n}")),
                1 => (Shape::Deep { depth: n }, format!("deep:{n}")),
                _ => {
                    let records = 20 + 8 * usize::try_from(i % 13).unwrap();
                    (Shape::Long { records }, format!("long:{records}"))
                }
            };
            let seed = i / 5;
            let text = generate(format, shape, seed);
            out.push((format!("gen/{name}/{label}/seed{seed}"), text));
        }
    }
    out
}

type Digests = BTreeMap<String, (u64, u64)>;

fn parse(text: &str) -> Digests {
    text.lines()
        .filter_map(|l| {
            let mut parts = l.split(' ');
            let name = parts.next()?.to_owned();
            let r = u64::from_str_radix(parts.next()?, 16).ok()?;
            let c = u64::from_str_radix(parts.next()?, 16).ok()?;
            Some((name, (r, c)))
        })
        .collect()
}

fn render(digests: &Digests) -> String {
    digests
        .iter()
        .map(|(name, (r, c))| format!("{name} {r:016x} {c:016x}\n"))
        .collect()
}

/// The names whose digests differ between `want` and `got` (missing on either side too).
fn changed(want: &Digests, got: &Digests) -> Vec<String> {
    let mut names: Vec<String> = want
        .keys()
        .chain(got.keys())
        .filter(|k| want.get(*k) != got.get(*k))
        .cloned()
        .collect();
    names.dedup();
    names
}

#[test]
fn replay_and_check_output_is_unchanged() {
    let (mut tree, mut acp) = (Digests::new(), Digests::new());
    for (name, path) in corpus() {
        let text = std::fs::read_to_string(&path).unwrap();
        let (is_acp, r, c) = digest(&text);
        if is_acp { &mut acp } else { &mut tree }.insert(name, (r, c));
    }
    for (name, text) in generated() {
        let (is_acp, r, c) = digest(&text);
        if is_acp { &mut acp } else { &mut tree }.insert(name, (r, c));
    }
    assert!(
        tree.len() + acp.len() > 1_100,
        "corpus and generated traces"
    );
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/unchanged");
    let write = std::env::var("LINEAGE_DIGESTS").unwrap_or_default();
    let mut failures = Vec::new();
    for (file, got) in [("tree", &tree), ("acp", &acp)] {
        let path = dir.join(format!("{file}.digests"));
        if write == "write" || write == file {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, render(got)).unwrap();
            continue;
        }
        let want = parse(&std::fs::read_to_string(&path).unwrap_or_default());
        let names = changed(&want, got);
        if !names.is_empty() {
            failures.push(format!(
                "{file}.digests: {} trace(s) changed:\n  {}",
                names.len(),
                names.join("\n  ")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "replay/check output changed (regenerate with LINEAGE_DIGESTS=write|tree|acp \
         only if the change is intended):\n{}",
        failures.join("\n")
    );
}
