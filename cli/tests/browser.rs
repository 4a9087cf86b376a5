//! `replay --format html` in a real headless Chromium (Debian's `chromium`, driven by
//! `playwright-core` from `cli/tests/browser/`). Every corpus trace whose header states
//! what the tree (or the ACP view) must show becomes a page; the browser checks, for each:
//! no console or page error and no network request, a lane per session, the state the
//! header expects for each session with the slider at the end and at every `expectAt`
//! line, labels, and a working click; a screenshot of each page is kept under
//! `target/tmp/browser-screenshots/`.
//!
//! Needs `node`, `/usr/bin/chromium` (or `LINEAGE_CHROMIUM`) and `npm ci` in
//! `cli/tests/browser/`; `.ci/run` installs them and sets `LINEAGE_REQUIRE_BROWSER=1`, so
//! in CI a missing part fails the test. Elsewhere it is skipped with a message.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// What is missing to run a browser, if anything.
fn missing_parts() -> Vec<String> {
    let mut missing = Vec::new();
    let chromium = std::env::var("LINEAGE_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    if !Path::new(&chromium).exists() {
        missing.push(format!("{chromium} (apt-get install chromium)"));
    }
    let driver =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser/node_modules/playwright-core");
    if !driver.exists() {
        missing.push("playwright-core (npm ci in cli/tests/browser)".into());
    }
    if Command::new("node").arg("--version").output().is_err() {
        missing.push("node".into());
    }
    missing
}

/// The state the page's tree shows for a turn state of a trace header
/// (`settled:<outcome>` shows the outcome; a phase shows itself).
fn shown(state: &str) -> Option<String> {
    match state {
        "absent" => None,
        s => Some(s.strip_prefix("settled:").unwrap_or(s).to_owned()),
    }
}

/// Session → expected state, from a header's `turns` map: each session shows its latest
/// turn (the highest ordinal present).
fn session_states(turns: &Value) -> BTreeMap<String, String> {
    let mut latest: BTreeMap<String, (u32, String)> = BTreeMap::new();
    for (turn, state) in turns.as_object().into_iter().flatten() {
        let (Some((session, n)), Some(state)) =
            (turn.rsplit_once('#'), state.as_str().and_then(shown))
        else {
            continue;
        };
        let n: u32 = n.parse().unwrap_or(0);
        if latest.get(session).is_none_or(|(m, _)| n > *m) {
            latest.insert(session.to_owned(), (n, state));
        }
    }
    latest
        .into_iter()
        .map(|(s, (_, state))| (s, state))
        .collect()
}

/// One browser case for `trace`, when its header says what must be shown.
fn case(trace: &Path, out: &Path) -> Option<Value> {
    let text = std::fs::read_to_string(trace).ok()?;
    let header: Value = serde_json::from_str(text.lines().next()?).ok()?;
    let expect = &header["expect"];
    let (end, at, labels) = if let Some(sessions) = expect["sessions"].as_object() {
        let end: BTreeMap<String, String> = sessions
            .iter()
            .filter_map(|(id, s)| Some((id.clone(), s["activity"].as_str()?.to_owned())))
            .collect();
        let labels: BTreeMap<String, String> = sessions
            .iter()
            .filter_map(|(id, s)| Some((id.clone(), s["title"].as_str()?.to_owned())))
            .collect();
        (end, BTreeMap::new(), labels)
    } else {
        let end = session_states(&expect["turns"]);
        let at: BTreeMap<String, BTreeMap<String, String>> = header["expectAt"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(line, e)| (line.clone(), session_states(&e["turns"])))
            .collect();
        (end, at, BTreeMap::new())
    };
    if end.is_empty() {
        return None;
    }
    let name = trace
        .strip_prefix(root().join("traces"))
        .ok()?
        .with_extension("");
    let name = name.to_string_lossy().replace(['/', '\\'], "__");
    let html = out.join(format!("{name}.html"));
    let run = Command::new(env!("CARGO_BIN_EXE_lineage"))
        .args(["replay", "--format", "html"])
        .arg(trace)
        .output()
        .unwrap();
    std::fs::write(&html, &run.stdout).unwrap();
    // Every session of the replay's JSON contract has a lane.
    let contract = Command::new(env!("CARGO_BIN_EXE_lineage"))
        .args(["replay", "--format", "json"])
        .arg(trace)
        .output()
        .unwrap();
    let contract: Value = serde_json::from_slice(&contract.stdout).unwrap();
    let lanes: Vec<Value> = contract["sessions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s["id"].as_str().map(|id| json!(id)))
        .collect();
    for id in end.keys() {
        assert!(
            lanes.contains(&json!(id)),
            "{name}: expected session {id} is not in the replay"
        );
    }
    Some(
        json!({"name": name, "html": html, "lanes": lanes, "labels": labels, "end": end, "at": at}),
    )
}

fn corpus() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in [
        "canonical",
        "codex",
        "claude",
        "acp/scenarios",
        "real/codex",
        "real/claude-code",
        "real/claude-agent-acp",
        "real/codex-acp",
    ] {
        let Ok(entries) = std::fs::read_dir(root().join("traces").join(dir)) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .collect();
        paths.sort();
        files.extend(paths);
    }
    files
}

#[test]
fn html_pages_show_the_expected_tree_in_a_real_browser() {
    let missing = missing_parts();
    if !missing.is_empty() {
        assert!(
            std::env::var_os("LINEAGE_REQUIRE_BROWSER").is_none(),
            "LINEAGE_REQUIRE_BROWSER is set but the browser test cannot run: missing {missing:?}"
        );
        eprintln!("skipped: the browser test needs {missing:?}");
        return;
    }
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("browser-pages");
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("browser-screenshots");
    std::fs::create_dir_all(&out).unwrap();
    let cases: Vec<Value> = corpus().iter().filter_map(|t| case(t, &out)).collect();
    assert!(
        cases.len() >= 40,
        "only {} traces state what must be shown",
        cases.len()
    );
    let cases_file = out.join("cases.json");
    std::fs::write(&cases_file, serde_json::to_vec(&cases).unwrap()).unwrap();
    let run = Command::new("node")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser/check.mjs"))
        .arg(&cases_file)
        .arg(&shots)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    let failed: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("\"ok\":false"))
        .collect();
    assert!(
        run.status.success() && failed.is_empty() && stdout.lines().count() == cases.len(),
        "browser checks failed:\n{}\n{}",
        failed.join("\n"),
        String::from_utf8_lossy(&run.stderr)
    );
}
