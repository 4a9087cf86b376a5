//! `lineage watch` end to end: the real binary in a tmux pane, fed as a program would
//! feed it. A real Codex recording's lines are appended to a file one by one, and a
//! Claude Code project folder gains a subagent transcript mid-run; `capture-pane` shows
//! the child appear, its approval pending, then the tree settled; `←` shows an earlier
//! state; `q` exits 0 and gives the terminal back as it was.
//!
//! Skipped (said on standard error) only when tmux is not installed and
//! `LINEAGE_REQUIRE_TMUX` is unset; `.ci/run` sets it, so CI never skips.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_lineage");

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path)
}

/// Whether tmux can run here; without it the test skips, unless CI requires it.
fn tmux_available() -> bool {
    let found = Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var_os("LINEAGE_REQUIRE_TMUX").is_none(),
            "LINEAGE_REQUIRE_TMUX is set but tmux cannot be run"
        );
        eprintln!(
            "skipped: tmux is not installed (set LINEAGE_REQUIRE_TMUX to make this an error)"
        );
    }
    found
}

/// A tmux server of this test alone, killed when dropped.
struct Tmux {
    socket: String,
    dir: PathBuf,
}

impl Tmux {
    /// Runs `watch_args` in a 200×40 pane; the shell around it keeps the terminal's
    /// settings before and after, and the exit code.
    fn start(name: &str, dir: &Path, watch_args: &str) -> Self {
        let socket = format!("lineage-watch-{}-{name}", std::process::id());
        let script = format!(
            "cd '{d}' && stty -g > before && '{BIN}' watch {watch_args} --no-color; \
             echo $? > rc; stty -g > after; sleep 60",
            d = dir.display()
        );
        let status = Command::new("tmux")
            .args([
                "-L",
                &socket,
                "-f",
                "/dev/null",
                "new-session",
                "-d",
                "-x",
                "200",
                "-y",
                "40",
            ])
            .arg(script)
            .status()
            .unwrap();
        assert!(status.success());
        Self {
            socket,
            dir: dir.to_path_buf(),
        }
    }

    fn capture(&self) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket, "capture-pane", "-p"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn keys(&self, keys: &[&str]) {
        let status = Command::new("tmux")
            .args(["-L", &self.socket, "send-keys"])
            .args(keys)
            .status()
            .unwrap();
        assert!(status.success());
    }

    fn alternate_screen(&self) -> String {
        let out = Command::new("tmux")
            .args([
                "-L",
                &self.socket,
                "display-message",
                "-p",
                "#{alternate_on}",
            ])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    /// Waits (at most 10 s) until the pane shows what `ok` looks for.
    fn wait_for(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.capture();
            if ok(&screen) {
                return screen;
            }
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "the pane never showed {what}; it shows:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(30));
        }
    }

    /// `q`, then: exit code 0, the terminal's settings as before, the main screen back.
    fn quit_cleanly(&self) {
        self.keys(&["q"]);
        let rc = self.dir.join("rc");
        let start = Instant::now();
        while !self.dir.join("after").exists() {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "watch did not exit on q"
            );
            std::thread::sleep(Duration::from_millis(30));
        }
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(std::fs::read_to_string(rc).unwrap().trim(), "0");
        let before = std::fs::read_to_string(self.dir.join("before")).unwrap();
        let after = std::fs::read_to_string(self.dir.join("after")).unwrap();
        assert_eq!(
            before, after,
            "the terminal's settings (raw mode) were not restored"
        );
        assert_eq!(
            self.alternate_screen(),
            "0",
            "the alternate screen was not left"
        );
        let screen = self.capture();
        assert!(
            !screen.contains("lineage watch ·"),
            "the screen was not restored:\n{screen}"
        );
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .status();
    }
}

/// Appends `lines` to `path` one at a time, as a program writing its log would.
fn append(path: &Path, lines: &[&str]) {
    for line in lines {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .unwrap();
        file.write_all(format!("{line}\n").as_bytes()).unwrap();
        drop(file);
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[test]
fn a_growing_codex_recording_shows_its_child_its_approval_then_the_settled_tree() {
    if !tmux_available() {
        return;
    }
    let dir = tempdir("codex");
    let text = std::fs::read_to_string(repo("traces/real/codex/05-child-approval.jsonl")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 54);
    let trace = dir.join("run.jsonl");
    std::fs::write(&trace, "").unwrap();
    let tmux = Tmux::start("codex", &dir, "run.jsonl");
    tmux.wait_for("the empty screen", |s| {
        s.contains("waiting for the first record")
    });
    let child = "01a23220-0a59-77b2-87d8-613bf8b51e61 child";
    // `lineage replay --at`: the child is spawned at line 20, its approval is pending
    // from line 30 to 31, the root settles at line 54.
    append(&trace, &lines[..20]);
    tmux.wait_for("the child", |s| {
        s.contains(child) && s.contains("line 20 of 20 · live")
    });
    append(&trace, &lines[20..30]);
    let screen = tmux.wait_for("the pending approval", |s| {
        s.contains("? approval 0 · pending")
    });
    assert!(screen.contains("waiting"), "{screen}");
    assert!(screen.contains("1 pending"), "{screen}");
    append(&trace, &lines[30..]);
    let settled = tmux.wait_for("the settled tree", |s| {
        s.contains("line 54 of 54 · live") && s.contains("root  #1 ✓ completed")
    });
    assert!(settled.contains("? approval 0 · resolved"), "{settled}");
    assert!(!settled.contains("running"), "{settled}");
    tmux.keys(&["Left"]);
    let earlier = tmux.wait_for("an earlier state", |s| s.contains("· paused"));
    assert!(!earlier.contains("line 54 of 54"), "{earlier}");
    let root_line = earlier
        .lines()
        .find(|l| l.contains(" root  #1"))
        .unwrap_or_default();
    assert!(
        root_line.contains("running"),
        "the root had not settled yet:\n{earlier}"
    );
    tmux.keys(&["End"]);
    tmux.wait_for("the live state again", |s| {
        s.contains("line 54 of 54 · live")
    });
    tmux.quit_cleanly();
}

#[test]
fn a_claude_code_project_folder_gains_a_subagent_transcript_mid_run() {
    if !tmux_available() {
        return;
    }
    let dir = tempdir("claude");
    let from = repo(
        "traces/real-native/claude-code/05-child-permission/projects/-tmp-lab-claude-code-bffbkl-work",
    );
    let session = "f11fed91-bf48-4a65-87fc-50d7959ba920";
    let agent = "agent-a1b57ba7c4b29e2c0";
    let root_text = std::fs::read_to_string(from.join(format!("{session}.jsonl"))).unwrap();
    let root_lines: Vec<&str> = root_text.lines().collect();
    let project = dir.join("project");
    std::fs::create_dir_all(&project).unwrap();
    let root = project.join(format!("{session}.jsonl"));
    // The prompt, up to the root's `Agent` tool use (line 19).
    append(&root, &root_lines[..20]);
    let tmux = Tmux::start("claude", &dir, "project");
    tmux.wait_for("the root", |s| s.contains(&format!("{session} root")));
    // The subagent's transcript appears, and grows.
    let subagents = project.join(session).join("subagents");
    std::fs::create_dir_all(&subagents).unwrap();
    let meta = std::fs::read(
        from.join(session)
            .join("subagents")
            .join(format!("{agent}.meta.json")),
    )
    .unwrap();
    std::fs::write(subagents.join(format!("{agent}.meta.json")), meta).unwrap();
    let child_text = std::fs::read_to_string(
        from.join(session)
            .join("subagents")
            .join(format!("{agent}.jsonl")),
    )
    .unwrap();
    let child_lines: Vec<&str> = child_text.lines().collect();
    append(&subagents.join(format!("{agent}.jsonl")), &child_lines);
    tmux.wait_for("the child", |s| s.contains("toolu_0001_0 child"));
    append(&root, &root_lines[20..]);
    let settled = tmux.wait_for("the settled tree", |s| {
        s.contains("root  #1 ✓ completed") && s.contains("toolu_0001_0 child  #1 ✓ completed")
    });
    assert!(settled.contains("\"create x\""), "{settled}");
    tmux.quit_cleanly();
}

/// A fresh folder for one test.
fn tempdir(name: &str) -> PathBuf {
    common::scratch(&format!("watch-{name}"))
}
