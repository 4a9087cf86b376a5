//! The inputs of `lineage check` (and the files of a native source folder): each path as
//! given, each directory walked.
//!
//! Owns: the walk order and cycle detection. A path that is not a directory (a file, a
//! FIFO, `/dev/stdin`) or `-` is an input as given. A directory is walked depth first,
//! its entries in path order (files and subdirectories interleaved, as `sort` orders
//! their paths), for `*.jsonl` files. Symbolic links are followed, and every directory
//! and file is visited once per given directory, by its canonical path, the first time
//! the walk reaches it, so a symlink cycle ends and a linked file is checked once.
//! Never: opens a trace (the reader does) or recurses (an explicit stack, so a deep tree
//! cannot overflow); never drops a path silently: a missing path, an unreadable
//! directory, a dangling `*.jsonl` link and a directory without any `*.jsonl` file are
//! inputs with an error.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::input;

/// A path to check, or a path and why it cannot be.
pub type Input = Result<PathBuf, (PathBuf, String)>;

/// Every input of `paths`, in order.
pub fn inputs(paths: &[PathBuf]) -> Vec<Input> {
    let mut out = Vec::new();
    for path in paths {
        if input::is_stdin(path) {
            out.push(Ok(path.clone()));
            continue;
        }
        match std::fs::metadata(path) {
            Ok(meta) if meta.is_dir() => {
                let before = out.len();
                walk(path, &mut out);
                if out.len() == before {
                    let why = "no *.jsonl file in this directory or below it".to_owned();
                    out.push(Err((path.clone(), why)));
                }
            }
            Ok(_) => out.push(Ok(path.clone())),
            Err(e) => out.push(Err((path.clone(), describe(&e)))),
        }
    }
    out
}

/// Walks `top` depth first in path order, each canonical directory and file once.
fn walk(top: &Path, out: &mut Vec<Input>) {
    let mut seen: BTreeSet<PathBuf> = BTreeSet::new();
    let mut first_visit = |path: &Path| {
        std::fs::canonicalize(path)
            .map(|canonical| seen.insert(canonical))
            .unwrap_or(true)
    };
    // Paths still to visit, the next one last.
    let mut stack = vec![top.to_path_buf()];
    while let Some(path) = stack.pop() {
        let is_trace = path.extension().is_some_and(|x| x == "jsonl");
        match std::fs::metadata(&path) {
            Ok(meta) if meta.is_dir() => {
                if !first_visit(&path) {
                    continue;
                }
                match entries(&path) {
                    Ok(mut children) => {
                        children.sort();
                        stack.extend(children.into_iter().rev());
                    }
                    Err(e) => out.push(Err((path, describe(&e)))),
                }
            }
            Ok(_) if is_trace => {
                if first_visit(&path) {
                    out.push(Ok(path));
                }
            }
            Ok(_) => {}
            Err(e) if is_trace => out.push(Err((path, describe(&e)))),
            Err(_) => {} // a dangling link to something that is not a trace
        }
    }
}

fn entries(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    std::fs::read_dir(dir)?
        .map(|entry| entry.map(|e| e.path()))
        .collect()
}

fn describe(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".to_owned(),
        _ => e.to_string(),
    }
}
