//! The CI integrations, run as their hosts would: the composite GitHub Action of
//! `action.yml` (its `run:` steps in bash, with the inputs and the runner's variables as
//! GitHub sets them, a stand-in `cargo` that installs the binary these tests built) and the
//! pre-commit hook of `.pre-commit-hooks.yaml`, on a temporary repository holding a failing
//! and a passing trace of the corpus.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn repo(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(rel)
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// The lines under `line` indented deeper than it (blank lines kept), dedented.
fn block(lines: &[&str], at: usize) -> Vec<String> {
    let base = indent(lines[at]);
    let body: Vec<&str> = lines[at + 1..]
        .iter()
        .take_while(|l| l.trim().is_empty() || indent(l) > base)
        .copied()
        .collect();
    let margin = body
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| indent(l))
        .min()
        .unwrap_or(0);
    let mut out: Vec<String> = body
        .iter()
        .map(|l| l.get(margin..).unwrap_or("").to_owned())
        .collect();
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    out
}

fn unquote(value: &str) -> String {
    let v = value.trim();
    v.strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .unwrap_or(v)
        .to_owned()
}

/// One step of the action: its name, shell, environment (expressions unresolved) and script.
#[derive(Debug)]
struct Step {
    name: String,
    shell: String,
    env: Vec<(String, String)>,
    run: String,
}

/// What the runner reads of action.yml: the inputs' defaults and the composite steps. A
/// line-based reading of the file's own layout (two-space YAML, `run: |` blocks), which
/// the asserts below pin down.
struct Action {
    defaults: BTreeMap<String, String>,
    steps: Vec<Step>,
}

fn read_action() -> Action {
    let text = std::fs::read_to_string(repo("action.yml")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let top = |key: &str| lines.iter().position(|l| *l == key).unwrap();

    let mut defaults = BTreeMap::new();
    let inputs = block(&lines, top("inputs:"));
    let inputs: Vec<&str> = inputs.iter().map(String::as_str).collect();
    for (i, line) in inputs.iter().enumerate() {
        if indent(line) == 0 && line.ends_with(':') {
            let name = line.trim_end_matches(':').to_owned();
            let fields = block(&inputs, i);
            let default = fields
                .iter()
                .find_map(|f| f.strip_prefix("default:"))
                .map(unquote)
                .unwrap_or_default();
            defaults.insert(name, default);
        }
    }

    let runs = block(&lines, top("runs:"));
    assert!(runs.iter().any(|l| l == "using: composite"), "{runs:?}");
    let runs: Vec<&str> = runs.iter().map(String::as_str).collect();
    let steps_at = runs.iter().position(|l| *l == "steps:").unwrap();
    let items = block(&runs, steps_at);
    let mut steps = Vec::new();
    let mut i = 0;
    while i < items.len() {
        let Some(first) = items[i].strip_prefix("- ") else {
            i += 1;
            continue;
        };
        // The item's keys, `- ` taken as indentation.
        let mut keys = vec![format!("  {first}")];
        i += 1;
        while i < items.len() && !items[i].starts_with("- ") {
            keys.push(items[i].clone());
            i += 1;
        }
        let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
        let value = |key: &str| {
            keys.iter()
                .find_map(|k| k.trim_start().strip_prefix(key))
                .map(unquote)
        };
        let run_at = keys.iter().position(|k| k.trim() == "run: |");
        let env_at = keys.iter().position(|k| k.trim() == "env:");
        let env = env_at.map_or_else(Vec::new, |at| {
            block(&keys, at)
                .iter()
                .map(|l| {
                    let (k, v) = l.split_once(':').unwrap();
                    (k.trim().to_owned(), v.trim().to_owned())
                })
                .collect()
        });
        steps.push(Step {
            name: value("name:").unwrap_or_default(),
            shell: value("shell:").unwrap_or_default(),
            env,
            run: run_at.map_or_else(String::new, |at| block(&keys, at).join("\n") + "\n"),
        });
    }
    Action { defaults, steps }
}

/// `${{ inputs.NAME }}` resolved the way GitHub does: the given input, else its default.
fn resolve(value: &str, inputs: &BTreeMap<String, String>, action: &Action) -> String {
    let mut out = value.to_owned();
    while let Some(start) = out.find("${{") {
        let end = out[start..].find("}}").unwrap() + start + 2;
        let expr = out[start + 3..end - 2].trim();
        let name = expr.strip_prefix("inputs.").unwrap_or_else(|| {
            panic!("only inputs are substituted in env, not `{expr}`");
        });
        let v = inputs
            .get(name)
            .or_else(|| action.defaults.get(name))
            .unwrap_or_else(|| panic!("`{name}` is no input of the action"))
            .clone();
        out.replace_range(start..end, &v);
    }
    out
}

/// What a run of the action left: the last step's exit code, everything the steps
/// printed, and the calls the stand-in `cargo` received.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    cargo_calls: String,
}

/// Runs the action's steps in `workspace` with `inputs`, as the runner does: each `run`
/// in `bash --noprofile --norc -eo pipefail`, in the workspace, with its `env` and the
/// runner's variables; a path appended to `$GITHUB_PATH` is on `PATH` for later steps. A
/// failing step ends the run.
fn run_action(workspace: &Path, inputs: &[(&str, &str)]) -> Run {
    let action = read_action();
    let inputs: BTreeMap<String, String> = inputs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    for name in inputs.keys() {
        assert!(action.defaults.contains_key(name), "`{name}` is an input");
    }
    let runner = workspace.with_extension("runner");
    let stub_bin = runner.join("stub-bin");
    std::fs::create_dir_all(&stub_bin).unwrap();
    let cargo = stub_bin.join("cargo");
    std::fs::write(
        &cargo,
        "#!/bin/sh\n\
         # A stand-in for `cargo install`: logs its arguments and installs the binary the\n\
         # tests built under `--root`.\n\
         printf '%s\\n' \"$*\" >> \"$STUB_LOG\"\n\
         [ \"$1\" = install ] || exit 3\n\
         root=\n\
         while [ $# -gt 0 ]; do [ \"$1\" = --root ] && root=$2; shift; done\n\
         [ -n \"$root\" ] || exit 4\n\
         mkdir -p \"$root/bin\" && cp \"$LINEAGE_BUILT\" \"$root/bin/lineage\"\n",
    )
    .unwrap();
    make_executable(&cargo);
    let github_path = runner.join("github_path");
    std::fs::write(&github_path, "").unwrap();
    let log = runner.join("cargo.log");
    let temp = runner.join("temp");
    std::fs::create_dir_all(&temp).unwrap();

    let mut path = format!(
        "{}:{}",
        stub_bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut run = Run {
        code: Some(0),
        stdout: String::new(),
        stderr: String::new(),
        cargo_calls: String::new(),
    };
    for (n, step) in action.steps.iter().enumerate() {
        assert_eq!(step.shell, "bash", "{}", step.name);
        assert!(
            !step.run.contains("${{"),
            "{}: inputs reach the script through env, never pasted into it",
            step.name
        );
        let script = runner.join(format!("step-{n}.sh"));
        std::fs::write(&script, &step.run).unwrap();
        let mut cmd = Command::new("bash");
        cmd.args(["--noprofile", "--norc", "-eo", "pipefail"])
            .arg(&script)
            .current_dir(workspace)
            .env("PATH", &path)
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_WORKSPACE", workspace)
            .env("GITHUB_ACTION_PATH", repo(""))
            .env("GITHUB_PATH", &github_path)
            .env("RUNNER_TEMP", &temp)
            .env("STUB_LOG", &log)
            .env("LINEAGE_BUILT", env!("CARGO_BIN_EXE_lineage"))
            .env_remove("NO_COLOR");
        for (k, v) in &step.env {
            cmd.env(k, resolve(v, &inputs, &action));
        }
        let out = cmd.output().unwrap();
        run.stdout.push_str(&String::from_utf8_lossy(&out.stdout));
        run.stderr.push_str(&String::from_utf8_lossy(&out.stderr));
        run.code = out.status.code();
        let added = std::fs::read_to_string(&github_path).unwrap();
        for dir in added.lines().rev() {
            path = format!("{dir}:{path}");
        }
        std::fs::write(&github_path, "").unwrap();
        if !out.status.success() {
            break;
        }
    }
    run.cargo_calls = std::fs::read_to_string(&log).unwrap_or_default();
    run
}

#[cfg(unix)]
fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[cfg(not(unix))]
fn make_executable(_path: &Path) {}

/// A fresh repository under the temp directory holding `traces` (corpus paths, kept under
/// `traces/` by file name).
fn workspace(name: &str, traces: &[&str]) -> PathBuf {
    let dir = common::scratch("action-tests").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(dir.with_extension("runner"));
    std::fs::create_dir_all(dir.join("traces")).unwrap();
    for t in traces {
        let from = repo(t);
        let to = dir.join("traces").join(from.file_name().unwrap());
        std::fs::copy(&from, &to).unwrap();
    }
    dir
}

fn sarif_validator() -> jsonschema::Validator {
    let schema: Value = serde_json::from_str(include_str!("data/sarif-schema-2.1.0.json")).unwrap();
    jsonschema::draft7::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap()
}

/// The SARIF log at `path`, valid against the SARIF 2.1.0 schema.
fn valid_sarif(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let log: Value = serde_json::from_str(&text).unwrap();
    let validator = sarif_validator();
    let errors: Vec<String> = validator
        .iter_errors(&log)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    log
}

const FAIL: &str = "traces/acp/rules/cancel-not-granted.fail.jsonl";
const PASS: &str = "traces/acp/rules/cancel-not-granted.pass.jsonl";
const WARN: &str = "traces/acp/rules/cancel-not-confirmed.fail.jsonl";

#[test]
fn the_action_installs_from_its_own_checkout() {
    let action = read_action();
    let names: Vec<&str> = action.steps.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["Install lineage", "Check traces"]);
    let inputs: Vec<&str> = action.defaults.keys().map(String::as_str).collect();
    assert_eq!(inputs, ["deny-warnings", "paths", "sarif-file", "spec"]);

    let dir = workspace("install", &[PASS]);
    let run = run_action(&dir, &[("paths", "traces")]);
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    // One `cargo install` of the cli package of the action's own checkout, locked.
    let calls: Vec<&str> = run.cargo_calls.lines().collect();
    assert_eq!(calls.len(), 1, "{calls:?}");
    let expected = format!("install --locked --path {}/cli --root ", repo("").display());
    assert!(calls[0].starts_with(&expected), "{calls:?}");
    let manifest = std::fs::read_to_string(repo("cli/Cargo.toml")).unwrap();
    assert!(manifest.contains("name = \"lineage-cli\"") && manifest.contains("name = \"lineage\""));
}

#[test]
fn a_failing_trace_fails_the_step_with_annotations_and_a_sarif_file() {
    let dir = workspace("failing", &[FAIL, PASS]);
    let run = run_action(&dir, &[("paths", "traces")]);
    assert_eq!(run.code, Some(1), "{}{}", run.stdout, run.stderr);
    let file = "traces/cancel-not-granted.fail.jsonl";
    let annotations: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("::error "))
        .collect();
    assert!(
        annotations.contains(&format!("::error file={file},line=7,title=cancel-not-granted::`session/cancel` names child `A` but its current effective capabilities hold no `cancel` object (historical grants and `cancel: true` do not count); cancel the parent turn instead, or wait for a current `\"capabilities\": {{\"cancel\": {{}}}}`").as_str()),
        "{}",
        run.stdout
    );
    assert!(
        annotations
            .iter()
            .all(|a| a.starts_with(&format!("::error file={file},line="))),
        "only the failing trace is annotated: {annotations:#?}"
    );

    // The SARIF file is where the input said, valid, with the same findings.
    let log = valid_sarif(&dir.join("lineage.sarif"));
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), annotations.len());
    for r in results {
        assert_eq!(r["ruleId"], "cancel-not-granted");
        assert_eq!(r["level"], "error");
        let location = &r["locations"][0]["physicalLocation"];
        assert_eq!(location["artifactLocation"]["uri"], file);
        assert!(location["region"]["startLine"].as_u64().unwrap() > 0);
    }
}

#[test]
fn a_passing_trace_passes_and_still_writes_the_sarif_file() {
    let dir = workspace("passing", &[PASS]);
    // The SARIF file's folder is made when missing.
    let run = run_action(
        &dir,
        &[("paths", "traces"), ("sarif-file", "out/report.sarif")],
    );
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    assert!(!run.stdout.contains("::error"), "{}", run.stdout);
    let log = valid_sarif(&dir.join("out/report.sarif"));
    assert_eq!(log["runs"][0]["results"], serde_json::json!([]));

    // A SARIF file that cannot be written fails the step, with an annotation saying so.
    let run = run_action(&dir, &[("paths", "traces"), ("sarif-file", "traces")]);
    assert_eq!(run.code, Some(2), "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .contains("::error::lineage wrote no SARIF report to traces"),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr.contains("traces: Is a directory"),
        "{}",
        run.stderr
    );
}

#[test]
fn the_inputs_reach_lineage() {
    // deny-warnings: a trace with warnings only passes, unless warnings are denied.
    let dir = workspace("warnings", &[WARN]);
    let run = run_action(&dir, &[("paths", "traces/"), ("sarif-file", "")]);
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .contains("::warning file=traces/cancel-not-confirmed.fail.jsonl,line="),
        "{}",
        run.stdout
    );
    assert!(
        !dir.join("lineage.sarif").exists(),
        "an empty sarif-file writes none"
    );
    let run = run_action(&dir, &[("paths", "traces/"), ("deny-warnings", "true")]);
    assert_eq!(run.code, Some(1), "{}{}", run.stdout, run.stderr);
    valid_sarif(&dir.join("lineage.sarif"));

    // paths: several, on lines of their own, each checked; a missing one is exit 2.
    let dir = workspace("paths", &[FAIL, PASS]);
    let run = run_action(
        &dir,
        &[(
            "paths",
            "traces/cancel-not-granted.pass.jsonl\ntraces/cancel-not-granted.fail.jsonl",
        )],
    );
    assert_eq!(run.code, Some(1), "{}{}", run.stdout, run.stderr);
    let run = run_action(
        &dir,
        &[(
            "paths",
            "traces/cancel-not-granted.pass.jsonl missing.jsonl",
        )],
    );
    assert_eq!(run.code, Some(2), "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("::error file=missing.jsonl"),
        "{}",
        run.stdout
    );

    // spec: passed on, so a revision lineage does not know is a usage error.
    let run = run_action(&dir, &[("paths", "traces"), ("spec", "2099-01-01")]);
    assert_eq!(run.code, Some(2), "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("'2099-01-01' for '--spec <REV>'"),
        "{}",
        run.stderr
    );
    let run = run_action(
        &dir,
        &[
            ("paths", "traces/cancel-not-granted.pass.jsonl"),
            ("spec", "final"),
        ],
    );
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    let log = valid_sarif(&dir.join("lineage.sarif"));
    assert_eq!(log["runs"][0]["results"], serde_json::json!([]));
}

/// The hook as pre-commit runs a `system` hook: its `entry` split on spaces, with the
/// staged files its `files` pattern matches appended.
#[test]
fn the_pre_commit_hook_checks_the_jsonl_files_it_is_given() {
    let text = std::fs::read_to_string(repo(".pre-commit-hooks.yaml")).unwrap();
    let field = |key: &str| {
        text.lines()
            .find_map(|l| l.trim_start().trim_start_matches("- ").strip_prefix(key))
            .map(unquote)
            .unwrap_or_else(|| panic!("{key} in\n{text}"))
    };
    assert_eq!(field("id:"), "lineage-check");
    assert_eq!(field("language:"), "system");
    assert_eq!(field("files:"), r"\.jsonl$");
    let entry = field("entry:");
    let mut words = entry.split_whitespace();
    assert_eq!(words.next(), Some("lineage"));
    let args: Vec<&str> = words.collect();

    let dir = workspace("pre-commit", &[FAIL, PASS]);
    let hook = |files: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_lineage"))
            .args(&args)
            .args(files)
            .current_dir(&dir)
            .env_remove("NO_COLOR")
            .output()
            .unwrap()
    };
    let pass = hook(&["traces/cancel-not-granted.pass.jsonl"]);
    assert_eq!(pass.status.code(), Some(0));
    let fail = hook(&[
        "traces/cancel-not-granted.pass.jsonl",
        "traces/cancel-not-granted.fail.jsonl",
    ]);
    assert_eq!(fail.status.code(), Some(1));
    let out = String::from_utf8_lossy(&fail.stdout);
    assert!(
        out.contains("traces/cancel-not-granted.fail.jsonl:7")
            && out.contains("error[cancel-not-granted]"),
        "{out}"
    );
}

/// The example workflow uses this repository's action and uploads the SARIF file the
/// action writes.
#[test]
fn the_example_workflow_uploads_the_action_s_sarif_file() {
    let text = std::fs::read_to_string(repo("docs/ci/github-workflow.yml")).unwrap();
    let values = |key: &str| -> Vec<String> {
        text.lines()
            .filter_map(|l| l.trim_start().trim_start_matches("- ").strip_prefix(key))
            .map(unquote)
            .collect()
    };
    let manifest = std::fs::read_to_string(repo("Cargo.toml")).unwrap();
    let url = manifest
        .lines()
        .find_map(|l| l.strip_prefix("repository = "))
        .map(unquote)
        .unwrap();
    let action = url.strip_prefix("https://github.com/").unwrap();
    let uses = values("uses:");
    assert!(
        uses.iter().any(|u| u.starts_with(&format!("{action}@"))),
        "{uses:?}"
    );
    assert!(
        uses.iter()
            .any(|u| u.starts_with("github/codeql-action/upload-sarif@")),
        "{uses:?}"
    );
    assert_eq!(values("sarif-file:"), ["lineage.sarif"]);
    assert_eq!(values("sarif_file:"), ["lineage.sarif"]);
    assert!(values("security-events:").contains(&"write".to_owned()));
}
