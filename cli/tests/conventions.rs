//! Command-line conventions, through the binary: `--color` (with `NO_COLOR`, `TERM=dumb`
//! and a real terminal), shell completions, the man page, the values `--help` lists, and
//! the exit codes `--help` and docs/contract.md state (the same, and true: SIGINT, a
//! recorded program ended by a signal).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;
use common::lineage;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const ESC: u8 = 0x1b;

fn repo(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(rel)
}

/// An ACP trace with error findings (so `check` prints diagnostics and exits 1).
fn failing_trace() -> String {
    repo("traces/acp/rules/cancel-not-granted.fail.jsonl")
        .display()
        .to_string()
}

fn has_escape(bytes: &[u8]) -> bool {
    bytes.contains(&ESC)
}

/// `lineage check <failing trace> ARGS…` into a pipe, with `env` set (and `NO_COLOR` and
/// `TERM` removed unless set there).
fn check_piped(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_lineage"));
    cmd.arg("check").arg(failing_trace()).args(args);
    cmd.env_remove("NO_COLOR").env_remove("TERM");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// `lineage check <failing trace> ARGS…` with a terminal as standard output (util-linux
/// `script` gives it a pty), or `None` when `script` is not installed.
fn check_on_a_terminal(args: &[&str], env: &[(&str, &str)]) -> Option<Output> {
    let mut line = format!(
        "{} check {}",
        shell_quote(env!("CARGO_BIN_EXE_lineage")),
        shell_quote(&failing_trace())
    );
    for a in args {
        line.push(' ');
        line.push_str(&shell_quote(a));
    }
    let mut cmd = Command::new("script");
    cmd.args(["-qec", &line, "/dev/null"])
        .stdin(Stdio::null())
        .env_remove("NO_COLOR")
        .env("TERM", "xterm-256color");
    for (k, v) in env {
        cmd.env(k, v);
    }
    match cmd.output() {
        Ok(out) => Some(out),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            eprintln!("skipped: no `script` (util-linux) to give lineage a terminal");
            None
        }
        Err(e) => panic!("script: {e}"),
    }
}

#[test]
fn color_always_colours_a_pipe_never_and_auto_do_not() {
    let always = check_piped(&["--color", "always"], &[]);
    assert_eq!(always.status.code(), Some(1));
    assert!(
        has_escape(&always.stdout),
        "--color always gives ANSI escapes"
    );
    let text = String::from_utf8_lossy(&always.stdout);
    assert!(text.contains("\u{1b}[1m\u{1b}[91merror"), "{text}");
    // `always` wins over NO_COLOR and TERM=dumb: it is what was asked.
    let asked = check_piped(&["--color=always"], &[("NO_COLOR", "1"), ("TERM", "dumb")]);
    assert!(has_escape(&asked.stdout));

    for args in [&["--color", "never"][..], &["--color", "auto"], &[]] {
        let out = check_piped(args, &[]);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(!has_escape(&out.stdout), "{args:?}: a pipe gets no colour");
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("error[cancel-not-granted]"),
            "{args:?}"
        );
    }
    let out = check_piped(&["--color", "auto"], &[("NO_COLOR", "1")]);
    assert!(!has_escape(&out.stdout));

    let bad = lineage(&["check", &failing_trace(), "--color", "sometimes"]);
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("invalid value 'sometimes' for '--color <WHEN>'")
            && err.contains("[possible values: auto, always, never]"),
        "{err}"
    );
}

#[test]
fn color_auto_on_a_terminal_respects_no_color_and_term_dumb() {
    let Some(plain) = check_on_a_terminal(&[], &[]) else {
        return;
    };
    assert_eq!(plain.status.code(), Some(1), "script -e passes the code");
    assert!(
        has_escape(&plain.stdout),
        "auto colours a terminal: {}",
        String::from_utf8_lossy(&plain.stdout)
    );
    // An empty NO_COLOR is as if unset (no-color.org).
    let empty = check_on_a_terminal(&["--color", "auto"], &[("NO_COLOR", "")]).unwrap();
    assert!(has_escape(&empty.stdout));
    for (what, env, args) in [
        ("NO_COLOR=1", &[("NO_COLOR", "1")][..], &[][..]),
        ("NO_COLOR=0", &[("NO_COLOR", "0")], &["--color", "auto"]),
        ("TERM=dumb", &[("TERM", "dumb")], &[]),
        ("--color never", &[], &["--color", "never"]),
    ] {
        let out = check_on_a_terminal(args, env).unwrap();
        assert_eq!(out.status.code(), Some(1), "{what}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(!has_escape(&out.stdout), "{what}: {text}");
        assert!(text.contains("error[cancel-not-granted]"), "{what}: {text}");
    }
}

/// The subcommands `lineage --help` lists (but clap's `help`).
fn subcommands() -> Vec<String> {
    let help = String::from_utf8(lineage(&["--help"]).stdout).unwrap();
    let list: Vec<String> = help
        .lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| !l.is_empty())
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .filter(|name| name != "help")
        .collect();
    for expected in [
        "replay", "check", "rules", "convert", "record", "watch", "gen",
    ] {
        assert!(list.iter().any(|c| c == expected), "{expected} in {list:?}");
    }
    list
}

#[test]
fn completions_cover_every_subcommand_and_option() {
    let out = lineage(&["completions", "bash"]);
    assert_eq!(out.status.code(), Some(0));
    let script = String::from_utf8(out.stdout).unwrap();
    for sub in subcommands() {
        assert!(script.contains(&sub), "bash completion names `{sub}`");
    }
    for option in ["--format", "--input-format", "--deny-warnings", "--color"] {
        assert!(script.contains(option), "{option}");
    }
    // The values `--format` takes are completed too.
    assert!(script.contains("human json junit sarif github"), "{script}");
    // The script is valid bash.
    let mut bash = Command::new("bash")
        .arg("-n")
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    bash.stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let checked = bash.wait_with_output().unwrap();
    assert!(
        checked.status.success(),
        "{}",
        String::from_utf8_lossy(&checked.stderr)
    );

    for (shell, marker) in [
        ("zsh", "#compdef lineage"),
        ("fish", "complete -c lineage"),
        ("elvish", "edit:completion:arg-completer[lineage]"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let out = lineage(&["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains(marker), "{shell}: {text}");
        assert!(text.contains("input-format"), "{shell}");
    }
    let bad = lineage(&["completions", "tcsh"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&bad.stderr)
            .contains("[possible values: bash, elvish, fish, powershell, zsh]")
    );
}

#[test]
fn man_is_a_roff_page_naming_every_command_with_its_exit_status() {
    let out = lineage(&["man"]);
    assert_eq!(out.status.code(), Some(0));
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(page.contains("\n.TH LINEAGE 1 "), "{page}");
    assert!(page.contains(".SH SYNOPSIS") && page.contains(".SH SUBCOMMANDS"));
    for sub in subcommands() {
        assert!(
            page.contains(&format!("lineage\\-{sub}(1)")),
            "`{sub}` in\n{page}"
        );
    }
    assert!(
        !page.contains("lineage\\-help"),
        "no page for clap's `help`"
    );
    assert!(page.contains(".SH \"EXIT STATUS\""), "{page}");
    assert!(page.contains("130  interrupted by SIGINT"), "{page}");

    let check = String::from_utf8(lineage(&["man", "check"]).stdout).unwrap();
    assert!(
        check.contains(".TH LINEAGE\\-CHECK 1 ") || check.contains(".TH LINEAGE-CHECK 1 "),
        "{check}"
    );
    assert!(check.contains("\\-\\-color"), "{check}");
    let record = String::from_utf8(lineage(&["man", "record"]).stdout).unwrap();
    assert!(record.contains("128+S when signal S ended it"), "{record}");
    let watch = String::from_utf8(lineage(&["man", "watch"]).stdout).unwrap();
    assert!(watch.contains("\\-\\-record"), "{watch}");

    let bad = lineage(&["man", "nope"]);
    assert_eq!(bad.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&bad.stderr),
        "error: `nope` is not a lineage command (one of: replay, check, rules, gen, convert, record, watch, completions, man)\n"
    );

    // `man` renders it without a warning, when man is installed.
    for (what, roff) in [
        ("lineage", &page),
        ("lineage check", &check),
        ("lineage record", &record),
        ("lineage watch", &watch),
    ] {
        let Some(rendered) = render_with_man(roff) else {
            return;
        };
        assert!(rendered.status.success(), "{what}");
        let warnings = String::from_utf8_lossy(&rendered.stderr);
        assert!(warnings.is_empty(), "{what}: {warnings}");
        let text = String::from_utf8_lossy(&rendered.stdout);
        assert!(
            text.contains("SYNOPSIS") && text.contains("OPTIONS"),
            "{text}"
        );
    }
}

/// `man -l -` of `roff`, or `None` when man is not installed.
fn render_with_man(roff: &str) -> Option<Output> {
    let child = Command::new("man")
        .args(["-l", "-"])
        .env("MANPAGER", "cat")
        .env("MANWIDTH", "100")
        .env("LC_ALL", "C.UTF-8")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            eprintln!("skipped: no `man` to render the page");
            return None;
        }
        Err(e) => panic!("man: {e}"),
    };
    child
        .stdin
        .take()
        .unwrap()
        .write_all(roff.as_bytes())
        .unwrap();
    Some(child.wait_with_output().unwrap())
}

const FORMATS: [&str; 4] = ["acp", "codex-app-server", "claude-sdk", "canonical"];

#[test]
fn help_lists_the_trace_formats() {
    for args in [
        &["replay", "--help"][..],
        &["convert", "--help"],
        &["gen", "--help"],
        &["record", "--help"],
    ] {
        let out = lineage(args);
        assert_eq!(out.status.code(), Some(0));
        let help = String::from_utf8(out.stdout).unwrap();
        for format in FORMATS {
            assert!(
                help.contains(&format!("- {format}:")),
                "{args:?} lists `{format}`:\n{help}"
            );
        }
    }
    // The short help lists them on one line.
    let short = String::from_utf8(lineage(&["gen", "-h"]).stdout).unwrap();
    assert!(
        short.contains("[possible values: acp, codex-app-server, claude-sdk, canonical]"),
        "{short}"
    );
    // A value outside them is a usage error that lists them, and a listed one works.
    let bad = lineage(&["replay", "-", "--input-format", "codex"]);
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("invalid value 'codex' for '--input-format <F>'")
            && err.contains("[possible values: acp, codex-app-server, claude-sdk, canonical]"),
        "{err}"
    );
    let generated = lineage(&["gen", "--format", "claude-sdk", "--shape", "wide:1"]);
    assert_eq!(generated.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&generated.stdout)
            .starts_with(r#"{"lineage":"trace","format":"claude-sdk""#)
    );
}

/// The (code, meaning) rows of the "Exit codes:" list of `lineage --help`.
fn exit_codes_in_help() -> Vec<(String, String)> {
    let help = String::from_utf8(lineage(&["--help"]).stdout).unwrap();
    let rows: Vec<(String, String)> = help
        .lines()
        .skip_while(|l| *l != "Exit codes:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .map(|l| {
            let (code, meaning) = l.trim().split_once(' ').unwrap();
            (code.to_owned(), meaning.trim().to_owned())
        })
        .collect();
    assert!(!rows.is_empty(), "an Exit codes section in\n{help}");
    rows
}

/// The (code, meaning) rows of the exit-code table of docs/contract.md, backticks dropped.
fn exit_codes_in_contract() -> Vec<(String, String)> {
    let contract = std::fs::read_to_string(repo("docs/contract.md")).unwrap();
    let rows: Vec<(String, String)> = contract
        .lines()
        .skip_while(|l| !l.starts_with("**Exit codes**"))
        .skip_while(|l| *l != "| code | meaning |")
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            let cells: Vec<String> = l
                .trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().replace('`', ""))
                .collect();
            assert_eq!(cells.len(), 2, "{l}");
            (cells[0].clone(), cells[1].clone())
        })
        .collect();
    assert!(!rows.is_empty(), "an exit-code table in docs/contract.md");
    rows
}

#[test]
fn help_and_the_contract_state_the_same_exit_codes() {
    let help = exit_codes_in_help();
    assert_eq!(help, exit_codes_in_contract());
    let codes: Vec<&str> = help.iter().map(|(c, _)| c.as_str()).collect();
    assert_eq!(codes, ["0", "1", "2", "130", "N"]);
    // A subcommand's help sends nobody looking: record states its own.
    let record = String::from_utf8(lineage(&["record", "--help"]).stdout).unwrap();
    assert!(
        record.contains("Exit code: the recorded program's own, or 128+S when signal S ended it"),
        "{record}"
    );
}

#[test]
fn the_stated_codes_are_the_codes() {
    let clean = repo("traces/acp/rules/cancel-not-granted.pass.jsonl");
    assert_eq!(
        lineage(&["check", clean.to_str().unwrap()]).status.code(),
        Some(0)
    );
    assert_eq!(lineage(&["check", &failing_trace()]).status.code(), Some(1));
    assert_eq!(
        lineage(&["check", "/nonexistent/x.jsonl"]).status.code(),
        Some(2)
    );
    assert_eq!(lineage(&["check", "--nope", "x"]).status.code(), Some(2));
}

/// Waits until process `pid` runs the lineage binary (past `env`'s exec).
fn wait_for_lineage(pid: u32) {
    for _ in 0..400 {
        let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
        if comm.trim() == "lineage" {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    panic!("lineage never started");
}

/// SIGINT ends `check` by the signal (its default action), which a shell reports as 130.
/// `env --default-signal=INT` undoes an ignored SIGINT inherited from whatever ran the tests.
#[test]
#[cfg(target_os = "linux")]
fn sigint_ends_lineage_and_a_shell_reports_130() {
    // lineage waits on a FIFO no one writes to, until the signal comes.
    let script = r#"
        fifo=$(mktemp -u) && mkfifo "$fifo" || exit 9
        env --default-signal=INT "$LINEAGE" check "$fifo" &
        pid=$!
        while [ "$(cat /proc/$pid/comm 2>/dev/null)" != lineage ]; do sleep 0.01; done
        sleep 0.1
        kill -INT "$pid"
        wait "$pid"
        echo "status $?"
        rm -f "$fifo"
    "#;
    let out = Command::new("sh")
        .args(["-c", script])
        .env("LINEAGE", env!("CARGO_BIN_EXE_lineage"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout.trim(),
        "status 130",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `record` passes SIGINT to the program; a program that SIGINT ends gives 128+2 as
/// lineage's own exit code, and the trace keeps what it wrote.
#[test]
#[cfg(target_os = "linux")]
fn record_exits_128_plus_the_signal_that_ended_the_program() {
    let dir = common::scratch("conventions");
    let trace = dir.join("sigint.jsonl");
    let mut child = Command::new("env")
        .args([
            "--default-signal=INT",
            env!("CARGO_BIN_EXE_lineage"),
            "record",
            "-o",
        ])
        .arg(&trace)
        .args([
            "--",
            "env",
            "--default-signal=INT",
            "sh",
            "-c",
            "echo '{\"type\":\"ready\"}'; while true; do sleep 0.05; done",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_lineage(child.id());
    wait_for_line(&trace, "ready");
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "{status:?}");
    let text = std::fs::read_to_string(&trace).unwrap();
    assert!(
        text.contains(r#"{"from":"cli","message":{"type":"ready"}"#),
        "{text}"
    );
}

fn wait_for_line(trace: &Path, text: &str) {
    for _ in 0..400 {
        if std::fs::read_to_string(trace).is_ok_and(|t| t.contains(text)) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    panic!("{} never held {text}", trace.display());
}
