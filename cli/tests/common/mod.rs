//! Helpers the CLI's end-to-end tests share: run the `lineage` binary.
// Each test crate uses the helpers it needs; the others are unused there.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::Mutex;

/// A scratch folder of this test process under Cargo's `target/tmp` (never the system's
/// temporary folder, which the tests would litter): `name` is emptied the first time the
/// process asks for it, then kept for its other tests.
pub fn scratch(name: &str) -> PathBuf {
    static FRESH: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let mut fresh = FRESH
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if fresh.insert(name.to_owned()) {
        let _ = std::fs::remove_dir_all(&dir);
    }
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `lineage ARGS…`, its output collected.
pub fn lineage(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lineage"))
        .args(args)
        .output()
        .expect("the lineage binary runs")
}

/// `lineage ARGS…` with `input` on its standard input.
pub fn lineage_with_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_lineage"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the lineage binary runs");
    // lineage may exit before it reads its input (a program that does not exist): the
    // input it never read is no failure of the write.
    match child.stdin.take().unwrap().write_all(input) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        written => written.unwrap(),
    }
    child.wait_with_output().unwrap()
}
