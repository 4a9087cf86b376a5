//! Claims of `ARCHITECTURE.md` held by tests: the top-level modules of `core/src` form no
//! import cycle (and `lib.rs` lists them bottom up), and the documentation names no
//! repository path that does not exist.
//!
//! How the module graph is read (a text scan, not a compiler; it reads this crate's own
//! sources): every `core/src/**/*.rs` file except `lib.rs` (the crate root declares and
//! re-exports the modules; it is no module of its own) belongs to the top-level module of
//! its path (`acp/view/mod.rs` to `acp`). Comments, strings and items under `#[cfg(test)]`
//! (test modules and test-only helpers) are left out: a test may drive the whole crate.
//! Every path that starts at `crate`, `$crate`, `super` or `self`, in a `use` or in code,
//! is resolved to the top-level module it names (`crate::Event` through the crate root's
//! `pub use`); one that leaves its own module is an edge. A `pub use` counts like any other
//! use, with one exception: a *facade* file, one that holds nothing but `pub use` items,
//! keeps an old public path working for users outside the crate and is no edge; in return,
//! no file of the crate may name a path through a facade.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every file under `dir` with the given extension, in path order (explicit stack).
fn files_under(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut stack = vec![dir.to_path_buf()];
    let mut files = Vec::new();
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == ext) {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

// ---------------------------------------------------------------------------------------
// Reading Rust source

/// The source with comments, string and character literals blanked (newlines kept, so
/// byte offsets still give line numbers).
fn strip(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    while i < b.len() {
        let rest = &b[i..];
        let end = if rest.starts_with(b"//") {
            i + rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len())
        } else if rest.starts_with(b"/*") {
            block_comment_end(b, i)
        } else if let Some(end) = raw_string_end(b, i) {
            end
        } else if b[i] == b'"' {
            quoted_end(b, i, b'"')
        } else if b[i] == b'\'' && char_literal(b, i) {
            quoted_end(b, i, b'\'')
        } else {
            i += 1;
            continue;
        };
        blank(&mut out, i, end);
        i = end;
    }
    String::from_utf8(out).unwrap()
}

fn block_comment_end(b: &[u8], start: usize) -> usize {
    let (mut depth, mut i) = (0, start);
    while i + 1 < b.len() {
        if b[i..].starts_with(b"/*") {
            depth += 1;
            i += 2;
        } else if b[i..].starts_with(b"*/") {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    b.len()
}

/// The end of a raw string (`r"…"`, `r#"…"#`, `br#"…"#`) starting at `i`, if one does.
fn raw_string_end(b: &[u8], i: usize) -> Option<usize> {
    if i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_') {
        return None;
    }
    let mut j = i + usize::from(b[i] == b'b');
    if b.get(j) != Some(&b'r') {
        return None;
    }
    j += 1;
    let hashes = b[j..].iter().take_while(|&&c| c == b'#').count();
    if b.get(j + hashes) != Some(&b'"') {
        return None;
    }
    let close: Vec<u8> = std::iter::once(b'"')
        .chain(std::iter::repeat_n(b'#', hashes))
        .collect();
    let body = j + hashes + 1;
    let at = b[body..]
        .windows(close.len())
        .position(|w| w == close.as_slice());
    Some(at.map_or(b.len(), |p| body + p + close.len()))
}

fn quoted_end(b: &[u8], start: usize, quote: u8) -> usize {
    let mut i = start + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            c if c == quote => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

/// Whether the `'` at `i` opens a character literal (not a lifetime or label): an
/// escape, or one character and a closing quote.
fn char_literal(b: &[u8], i: usize) -> bool {
    match b.get(i + 1) {
        Some(b'\\') => true,
        Some(&c) => {
            let width = match c {
                0xf0.. => 4,
                0xe0.. => 3,
                0xc0.. => 2,
                _ => 1,
            };
            b.get(i + 1 + width) == Some(&b'\'')
        }
        None => false,
    }
}

/// Blanks every item under `#[cfg(test)]`: up to its `;` or `,`, or its closing brace.
fn strip_test_items(src: &str) -> String {
    let mut out = src.as_bytes().to_vec();
    let mut from = 0;
    while let Some(p) = src[from..].find("#[cfg(test)]") {
        let start = from + p;
        let b = src.as_bytes();
        let (mut i, mut depth) = (start + "#[cfg(test)]".len(), 0usize);
        while i < b.len() {
            match b[i] {
                b'{' | b'(' | b'[' => depth += 1,
                b'}' | b')' | b']' if depth == 0 => break,
                b'}' | b')' | b']' => {
                    depth -= 1;
                    if depth == 0 && b[i] == b'}' {
                        i += 1;
                        break;
                    }
                }
                b';' | b',' if depth == 0 => {
                    i += 1;
                    break;
                }
                _ => {}
            }
            i += 1;
        }
        for c in &mut out[start..i] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
        from = i;
    }
    String::from_utf8(out).unwrap()
}

/// Identifiers, `::` and single punctuation characters, each with its byte offset.
fn tokens(src: &str) -> Vec<(usize, &str)> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_alphanumeric() || c == b'_' {
            let n = b[i..]
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
                .count();
            out.push((i, &src[i..i + n]));
            i += n;
        } else if b[i..].starts_with(b"::") {
            out.push((i, "::"));
            i += 2;
        } else {
            let n = src[i..].chars().next().map_or(1, char::len_utf8);
            out.push((i, &src[i..i + n]));
            i += n;
        }
    }
    out
}

fn is_ident(t: &str) -> bool {
    t.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_')
}

/// Every path a path or use tree starting at token `start` names, groups expanded
/// (`a::{b, c::d}` gives `a::b` and `a::c::d`), with an explicit stack of group prefixes.
fn expand(toks: &[(usize, &str)], start: usize) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut prefixes: Vec<Vec<String>> = vec![Vec::new()];
    let mut cur: Vec<String> = Vec::new();
    let mut i = start;
    let path = |prefixes: &[Vec<String>], cur: &[String]| {
        let mut p = prefixes.last().unwrap().clone();
        p.extend(cur.iter().cloned());
        p
    };
    while let Some(&(_, t)) = toks.get(i) {
        let next = toks.get(i + 1).map(|t| t.1);
        if is_ident(t) || t == "*" {
            cur.push(t.to_owned());
            i += 1;
            if next == Some("::") {
                i += 1;
                continue;
            }
            out.push(path(&prefixes, &cur));
            cur.clear();
            if toks.get(i).map(|t| t.1) == Some("as") {
                i += 2;
            }
        } else if t == "{" && prefixes.len() < 8 {
            prefixes.push(path(&prefixes, &cur));
            cur.clear();
            i += 1;
            continue;
        } else if !cur.is_empty() {
            out.push(path(&prefixes, &cur));
            cur.clear();
        }
        match toks.get(i).map(|t| t.1) {
            Some(",") if prefixes.len() > 1 => i += 1,
            Some("}") if prefixes.len() > 1 => {
                prefixes.pop();
                i += 1;
                if prefixes.len() == 1 {
                    break;
                }
                while toks.get(i).map(|t| t.1) == Some(",") && prefixes.len() > 1 {
                    i += 1;
                }
            }
            _ if prefixes.len() > 1 && !is_ident(toks.get(i).map_or("", |t| t.1)) => break,
            _ if prefixes.len() > 1 => {}
            _ => break,
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// The module graph

/// One source file: its module path and its code with comments, literals and test items
/// blanked.
struct Source {
    rel: String,
    module: Vec<String>,
    code: String,
}

/// The crate's files, without the files of test modules (`#[cfg(test)] mod tests;`).
fn sources() -> Vec<Source> {
    let src = repo().join("core/src");
    let mut test_modules: Vec<Vec<String>> = Vec::new();
    let mut all: Vec<Source> = files_under(&src, "rs")
        .into_iter()
        .map(|path| {
            let rel = path
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let mut module: Vec<String> = rel
                .trim_end_matches(".rs")
                .split('/')
                .map(str::to_owned)
                .collect();
            if module.last().is_some_and(|m| m == "mod" || m == "lib") {
                module.pop();
            }
            let code = strip(&std::fs::read_to_string(&path).unwrap());
            test_modules.extend(test_children(&code).into_iter().map(|name| {
                let mut m = module.clone();
                m.push(name);
                m
            }));
            let code = strip_test_items(&code);
            Source { rel, module, code }
        })
        .collect();
    all.retain(|s| !test_modules.iter().any(|t| s.module.starts_with(t)));
    all
}

/// The modules a file declares under `#[cfg(test)]` and keeps in files of their own.
fn test_children(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (p, _) in code.match_indices("#[cfg(test)]") {
        let toks = tokens(&code[p + "#[cfg(test)]".len()..]);
        let words: Vec<&str> = toks.iter().take(4).map(|t| t.1).collect();
        match words.as_slice() {
            ["mod", name, ";", ..] | ["pub", "mod", name, ";"] => out.push((*name).to_owned()),
            _ => {}
        }
    }
    out
}

/// The crate root's modules, and the module each name it re-exports comes from.
fn root_names(lib: &Source) -> BTreeMap<String, String> {
    let toks = tokens(&lib.code);
    let mut names = BTreeMap::new();
    for (i, &(_, t)) in toks.iter().enumerate() {
        let next = toks.get(i + 1).map_or("", |t| t.1);
        if t == "mod" {
            names.insert(next.to_owned(), next.to_owned());
        } else if t == "use" {
            for p in expand(&toks, i + 1) {
                if let (Some(first), Some(last)) = (p.first(), p.last()) {
                    names.insert(last.clone(), first.clone());
                }
            }
        }
    }
    names
}

/// Whether the file holds nothing but `pub use` items (and attributes).
fn is_facade(code: &str) -> bool {
    let toks = tokens(code);
    let mut i = 0;
    let mut saw_use = false;
    while i < toks.len() {
        match (toks[i].1, toks.get(i + 1).map(|t| t.1)) {
            ("#", _) => {
                let close = toks[i..].iter().position(|t| t.1 == "]").unwrap();
                i += close + 1;
            }
            ("pub", Some("use")) => {
                let semi = toks[i..].iter().position(|t| t.1 == ";").unwrap();
                i += semi + 1;
                saw_use = true;
            }
            _ => return false,
        }
    }
    saw_use
}

/// An absolute module path for a path written in `module` (`None`: not a crate path).
fn resolve(module: &[String], path: &[String]) -> Option<Vec<String>> {
    let mut base: Vec<String> = module.to_vec();
    let mut rest = path;
    match rest.first().map(String::as_str) {
        Some("crate") => {
            base.clear();
            rest = &rest[1..];
        }
        Some("self") => rest = &rest[1..],
        Some("super") => {
            while rest.first().is_some_and(|s| s == "super") {
                base.pop()?;
                rest = &rest[1..];
            }
        }
        _ => return None,
    }
    base.extend(rest.iter().cloned());
    Some(base)
}

/// A reference from one file to an absolute module path, at a line.
struct Reference {
    file: usize,
    line: usize,
    target: Vec<String>,
}

fn references(sources: &[Source]) -> Vec<Reference> {
    let mut out = Vec::new();
    for (file, s) in sources.iter().enumerate() {
        let toks = tokens(&s.code);
        for (i, &(at, t)) in toks.iter().enumerate() {
            let starts = matches!(t, "crate" | "super" | "self")
                && toks.get(i + 1).is_some_and(|n| n.1 == "::")
                && (i == 0 || toks[i - 1].1 != "::");
            if !starts {
                continue;
            }
            let line = s.code[..at].matches('\n').count() + 1;
            for path in expand(&toks, i) {
                if let Some(target) = resolve(&s.module, &path) {
                    out.push(Reference { file, line, target });
                }
            }
        }
    }
    out
}

type Graph = BTreeMap<String, BTreeMap<String, String>>;

/// Edges between top-level modules, each with the first place that makes it.
fn module_graph() -> (Graph, Vec<String>) {
    let sources = sources();
    let lib = sources.iter().find(|s| s.rel == "lib.rs").unwrap();
    let names = root_names(lib);
    let facades: Vec<&Source> = sources.iter().filter(|s| is_facade(&s.code)).collect();
    let mut graph = Graph::new();
    let mut through_facade = Vec::new();
    for r in references(&sources) {
        let from = &sources[r.file];
        if from.rel == "lib.rs" || is_facade(&from.code) {
            continue;
        }
        let place = format!("core/src/{}:{}", from.rel, r.line);
        if let Some(f) = facades.iter().find(|f| r.target.starts_with(&f.module)) {
            through_facade.push(format!("{place} names {} (a facade)", f.module.join("::")));
        }
        let Some(top) = r.target.first().and_then(|t| names.get(t)) else {
            continue;
        };
        let own = &from.module[0];
        if top != own {
            let edges = graph.entry(own.clone()).or_default();
            edges.entry(top.clone()).or_insert(place);
        }
    }
    (graph, through_facade)
}

/// One cycle through each edge that closes one, as `a → b (file:line) → … → a`.
fn cycles(graph: &Graph) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (from, edges) in graph {
        for to in edges.keys() {
            // Breadth first from `to` back to `from`.
            let mut parent: BTreeMap<&str, &str> = BTreeMap::new();
            let mut queue = VecDeque::from([to.as_str()]);
            while let Some(n) = queue.pop_front() {
                if n == from {
                    break;
                }
                for next in graph.get(n).into_iter().flat_map(|e| e.keys()) {
                    if next != to && !parent.contains_key(next.as_str()) {
                        parent.insert(next, n);
                        queue.push_back(next);
                    }
                }
            }
            if to != from && !parent.contains_key(from.as_str()) {
                continue;
            }
            let mut path = vec![from.as_str()];
            let mut n = from.as_str();
            while n != to {
                n = parent[n];
                path.push(n);
            }
            path.push(from);
            path.reverse();
            let mut min = path[..path.len() - 1].to_vec();
            let pos = (0..min.len()).min_by_key(|&i| min[i]).unwrap();
            min.rotate_left(pos);
            min.push(min[0]);
            let text: Vec<String> = min
                .windows(2)
                .map(|w| format!("{} → {} ({})", w[0], w[1], graph[w[0]][w[1]]))
                .collect();
            found.insert(text.join("; "));
        }
    }
    found
}

#[test]
fn top_level_modules_form_no_cycle() {
    let (graph, through_facade) = module_graph();
    let cycles = cycles(&graph);
    assert!(
        cycles.is_empty(),
        "the top-level modules of core/src form cycles:\n{}",
        cycles.into_iter().collect::<Vec<_>>().join("\n")
    );
    assert!(
        through_facade.is_empty(),
        "code of the crate names a path through a facade (use the item's home):\n{}",
        through_facade.join("\n")
    );
}

/// The reader sees the edges that exist: a known one, both directions of a planted cycle.
#[test]
fn module_graph_sees_edges() {
    let (graph, _) = module_graph();
    assert!(graph["engine"].contains_key("tree"), "{graph:?}");
    assert!(graph["render"].contains_key("engine"), "{graph:?}");
    let mut planted = graph.clone();
    planted
        .entry("tree".into())
        .or_default()
        .insert("render".into(), "planted".into());
    assert!(!cycles(&planted).is_empty());
}

#[test]
fn use_trees_expand() {
    let code = "use crate::{a::{b, c as d}, e}; x";
    let toks = tokens(code);
    let paths: Vec<String> = expand(&toks, 1).iter().map(|p| p.join("::")).collect();
    assert_eq!(paths, ["crate::a::b", "crate::a::c", "crate::e"]);
    let stripped = strip("let s = \"crate::x\"; // crate::y\nlet c = '\"'; crate::z");
    assert!(!stripped.contains("crate::x") && !stripped.contains("crate::y"));
    assert!(stripped.contains("crate::z"));
    let tests = strip_test_items("#[cfg(test)]\nmod tests {\n use crate::a;\n}\nuse crate::b;");
    assert!(!tests.contains("crate::a") && tests.contains("crate::b"));
}

// ---------------------------------------------------------------------------------------
// Paths named by the documentation

/// The documents whose paths are checked.
fn documents() -> Vec<PathBuf> {
    let mut docs: Vec<PathBuf> = ["ARCHITECTURE.md", "README.md"]
        .iter()
        .map(|d| repo().join(d))
        .collect();
    docs.extend(files_under(&repo().join("docs"), "md"));
    docs
}

/// Backticked spans outside code blocks, and the targets of relative links, with their
/// line numbers.
fn named_paths(text: &str) -> Vec<(usize, String, bool)> {
    let mut out = Vec::new();
    let mut fenced = false;
    for (n, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let spans = line.split('`').skip(1).step_by(2);
        out.extend(spans.map(|s| (n + 1, s.to_owned(), false)));
        for (p, _) in line.match_indices("](") {
            let target = line[p + 2..].split(')').next().unwrap_or("");
            let target = target.split('#').next().unwrap_or("");
            if !target.is_empty() && !target.contains("://") && !target.starts_with("mailto:") {
                out.push((n + 1, target.to_owned(), true));
            }
        }
    }
    out
}

const EXTENSIONS: [&str; 5] = [".rs", ".md", ".jsonl", ".json", ".toml"];

/// The directories a span may be relative to, or `None` when it names no repository path:
/// a method name like `session/new`, an absolute path, a build output, a file pattern of
/// the programs' own folders (`agent-*.jsonl`).
fn path_bases(span: &str) -> Option<Vec<PathBuf>> {
    let pathy = |c: char| c.is_ascii_alphanumeric() || "_.-/{},*<>…".contains(c);
    if span.is_empty() || !span.chars().all(pathy) || span.starts_with('/') {
        return None;
    }
    let first = span.split('/').next().unwrap_or("");
    let wild = |s: &str| s.contains(['*', '<', '…', '{']);
    let bases = [repo(), repo().join("core/src")];
    if !span.contains('/') {
        // A bare file name: it exists somewhere in the repository.
        let named = EXTENSIONS.iter().any(|e| span.ends_with(e));
        return (named && !wild(span) && !span.starts_with('.')).then(Vec::new);
    }
    if first == "target" || wild(first) {
        return None;
    }
    let known_dir = bases.iter().any(|b| b.join(first).is_dir());
    let named = EXTENSIONS.iter().any(|e| span.ends_with(e));
    (known_dir || named).then(|| bases.to_vec())
}

/// `a*b` with `*` matching any run of characters (`<…>` and `…` are read as `*`).
fn glob_match(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    let (Some(head), Some(tail)) = (parts.first(), parts.last()) else {
        return false;
    };
    if parts.len() == 1 {
        return pattern == name;
    }
    if !name.starts_with(head) || name.len() < head.len() + tail.len() || !name.ends_with(tail) {
        return false;
    }
    let mut rest = &name[head.len()..name.len() - tail.len()];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(p) => rest = &rest[p + mid.len()..],
            None => return false,
        }
    }
    true
}

/// `a/{b,c}/d` as `a/b/d` and `a/c/d`; placeholders as `*`.
fn expand_braces(span: &str) -> Vec<String> {
    let mut done = Vec::new();
    let mut todo = vec![span.to_owned()];
    while let Some(s) = todo.pop() {
        match (s.find('{'), s.find('}')) {
            (Some(a), Some(b)) if a < b => {
                for alt in s[a + 1..b].split(',') {
                    todo.push(format!("{}{alt}{}", &s[..a], &s[b + 1..]));
                }
            }
            _ => done.push(s),
        }
    }
    done.into_iter()
        .map(|s| {
            let mut out = String::new();
            let mut in_angle = false;
            for c in s.chars() {
                match c {
                    '<' => in_angle = true,
                    '>' if in_angle => {
                        in_angle = false;
                        out.push('*');
                    }
                    _ if in_angle => {}
                    '…' => out.push('*'),
                    c => out.push(c),
                }
            }
            out
        })
        .collect()
}

/// Whether `pattern` (segments may hold `*`) names something under `base`.
fn exists_under(base: &Path, pattern: &str) -> bool {
    let mut here = vec![base.to_path_buf()];
    for segment in pattern.trim_end_matches('/').split('/') {
        let mut next = Vec::new();
        for dir in &here {
            if !segment.contains('*') {
                let p = dir.join(segment);
                if p.exists() {
                    next.push(p);
                }
                continue;
            }
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            for e in entries.flatten() {
                if glob_match(segment, &e.file_name().to_string_lossy()) {
                    next.push(e.path());
                }
            }
        }
        here = next;
    }
    !here.is_empty()
}

/// Every file name in the repository (outside build output and `.git`).
fn file_names() -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut stack = vec![repo()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if e.path().is_dir() {
                if !["target", ".git", "node_modules"].contains(&name.as_str()) {
                    stack.push(e.path());
                }
            } else {
                names.insert(name);
            }
        }
    }
    names
}

#[test]
fn documents_name_only_paths_that_exist() {
    let names = file_names();
    let mut missing = Vec::new();
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        let rel = doc.strip_prefix(repo()).unwrap().display().to_string();
        for (line, span, link) in named_paths(&text) {
            let bases = if link {
                vec![doc.parent().unwrap().to_path_buf()]
            } else {
                match path_bases(&span) {
                    Some(bases) => bases,
                    None => continue,
                }
            };
            let found = if bases.is_empty() {
                names.contains(&span)
            } else {
                let patterns = expand_braces(&span);
                patterns
                    .iter()
                    .all(|p| bases.iter().any(|b| exists_under(b, p)))
            };
            if !found {
                missing.push(format!("{rel}:{line}: `{span}`"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "the documentation names paths that do not exist (from the repository root or \
         core/src/):\n{}",
        missing.join("\n")
    );
}

#[test]
fn path_checks_read_spans_as_paths() {
    assert!(path_bases("check_cmd/walk.rs").is_some());
    assert!(path_bases("session/new").is_none());
    assert!(path_bases("engine/raw.rs").is_some());
    assert!(!repo().join("check_cmd/walk.rs").exists());
    let all = |s: &str| expand_braces(s).iter().all(|p| exists_under(&repo(), p));
    assert!(all("traces/{canonical,codex}/*.jsonl"));
    assert!(!all("traces/{canonical,nowhere}/*.jsonl"));
    assert!(all("traces/acp/rules/<rule-id>.{pass,fail}.jsonl"));
    assert!(glob_match("agent-*.jsonl", "agent-a1.jsonl"));
    assert!(!glob_match("agent-*.jsonl", "agent.json"));
}

/// The crate docs list the public modules bottom up: none imports one listed after it,
/// and every public module is listed.
#[test]
fn crate_docs_list_modules_bottom_up() {
    let lib = std::fs::read_to_string(repo().join("core/src/lib.rs")).unwrap();
    let listed: Vec<String> = lib
        .lines()
        .filter_map(|l| l.strip_prefix("//! - "))
        .filter_map(|l| {
            l.trim_start_matches('[')
                .split('`')
                .nth(1)
                .map(str::to_owned)
        })
        .collect();
    let public: BTreeSet<String> = lib
        .lines()
        .filter_map(|l| l.strip_prefix("pub mod "))
        .map(|l| l.trim_end_matches(';').to_owned())
        .collect();
    let missing: Vec<&String> = public.iter().filter(|m| !listed.contains(m)).collect();
    assert!(missing.is_empty(), "lib.rs docs leave out {missing:?}");
    let (graph, _) = module_graph();
    for (i, m) in listed.iter().enumerate() {
        let later = &listed[i + 1..];
        let up: Vec<&String> = graph
            .get(m)
            .into_iter()
            .flat_map(|e| e.keys())
            .filter(|t| later.contains(t))
            .collect();
        assert!(
            up.is_empty(),
            "lib.rs lists {m} before {up:?}, which it imports"
        );
    }
}
