//! Helpers the CLI's end-to-end tests share: run the `lineage` binary.
// Each test crate uses the helpers it needs; the others are unused there.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::process::{Command, Output, Stdio};

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
