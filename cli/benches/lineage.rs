//! lineage's benchmark: each metric is a ratio against a baseline measured in the same
//! run, interleaved, as the median of several repetitions. Never a timed test.
//!
//! `cargo bench -p lineage-cli --bench lineage` (add `-- --quick` for a smaller run, and
//! `-- --only acp_deep_chain,append_scaling` to measure only the metrics named: `replay_vs_parse`,
//! `peak_rss_kib` (with `replay_rss_vs_output`), `check_vs_parse`, `check_vs_official_decode`,
//! `check_peak_rss_mib`, `acp_deep_chain`, `scaling`, `append_scaling`, `snapshot_vs_clone`,
//! `retained_bytes_per_event`, `native_rollout_vs_parse`, `native_transcript_vs_parse`,
//! `render_scaling`, `convert_scaling`, `record_rss_scaling`).
//! Prints a table, then one JSON line with every metric measured.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
#![allow(missing_docs)]
// The only unsafe code in the project: a counting wrapper around the system allocator.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use lineage_core::engine::{Engine, Options, Replay};
use lineage_core::native;
use lineage_core::project::Converter;
use lineage_core::render;
use lineage_core::timeline::Timeline;
use lineage_core::trace::Format;
use lineage_core::{Event, Outcome, Role, SessionId, Snapshot};
use lineage_traces::generator::{NativeKind, Shape, generate, generate_native};

/// Counts live heap bytes (for `retained_bytes_per_event`).
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

// SAFETY: delegates to the system allocator and only adds bookkeeping.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size, Ordering::Relaxed);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn time(f: impl FnOnce()) -> Duration {
    let start = Instant::now();
    f();
    start.elapsed()
}

/// Runs `baseline` and `subject` interleaved `reps` times; returns their medians.
fn interleaved(
    reps: usize,
    mut baseline: impl FnMut(),
    mut subject: impl FnMut(),
) -> (Duration, Duration) {
    let (mut b, mut s) = (Vec::new(), Vec::new());
    for _ in 0..reps {
        b.push(time(&mut baseline));
        s.push(time(&mut subject));
    }
    (median(b), median(s))
}

/// Runs every function of `fs` in turn, `reps` times; returns each one's median.
fn interleaved_all(reps: usize, fs: &mut [&mut dyn FnMut()]) -> Vec<Duration> {
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); fs.len()];
    for _ in 0..reps {
        for (f, t) in fs.iter_mut().zip(times.iter_mut()) {
            t.push(time(&mut *f));
        }
    }
    times.into_iter().map(median).collect()
}

/// An ACP `session/update` line, as the official schema crate decodes it.
#[derive(serde::Deserialize)]
struct UpdateLine {
    message: UpdateMessage,
}

#[derive(serde::Deserialize)]
struct UpdateMessage {
    params: agent_client_protocol_schema::v1::SessionNotification,
}

/// The `check_vs_official_decode` baseline: every `session/update` of the trace decoded
/// into `agent-client-protocol-schema`'s `SessionNotification` (nothing checked, no
/// state). Returns how many decoded.
fn decode_updates(text: &str) -> usize {
    let mut decoded = 0;
    for line in text.lines() {
        if line.contains("\"session/update\"") {
            let update = serde_json::from_str::<UpdateLine>(line).map(|l| l.message.params);
            decoded += usize::from(black_box(update).is_ok());
        }
    }
    decoded
}

fn parse_all(text: &str) {
    for line in text.lines() {
        if !line.is_empty() {
            black_box(serde_json::from_str::<serde_json::Value>(line).ok());
        }
    }
}

/// Reads a native source and replays each of its trees (all files in memory).
fn native_all(files: &[native::File]) {
    let source = native::read(files);
    for index in 0..source.streams.len() {
        let replayed = native::replay(&source, index, native::Options::default()).unwrap();
        black_box(replayed.replay.snapshot().map(|s| s.sessions().count()));
    }
}

fn replay_all(text: &str) {
    let mut r = Engine::new(Options::default());
    for line in text.lines() {
        r.push_line(line).unwrap();
    }
    black_box(r.finish().unwrap().snapshot().map(|s| s.sessions().count()));
}

/// A Codex trace whose root agent streams one message as `deltas` text deltas (the
/// `append_scaling` ratio: an append must cost the delta, not the text so far).
fn delta_trace(deltas: usize) -> String {
    let mut t = String::from(concat!(
        r#"{"lineage":"trace","format":"codex-app-server","version":1,"rootThreadId":"thr_root"}"#,
        "\n",
        r#"{"from":"client","message":{"id":1,"method":"turn/start","params":{"threadId":"thr_root","input":[{"type":"text","text":"Summarise the build log"}]}},"at":1}"#,
        "\n",
        r#"{"from":"server","message":{"method":"turn/started","params":{"threadId":"thr_root","turn":{"id":"turn_1","items":[],"status":"inProgress"}}},"at":2}"#,
        "\n",
        r#"{"from":"server","message":{"method":"item/started","params":{"threadId":"thr_root","turnId":"turn_1","item":{"type":"agentMessage","id":"msg_1","text":""}}},"at":3}"#,
        "\n",
    ));
    for i in 0..deltas {
        t.push_str(&format!(
            r#"{{"from":"server","message":{{"method":"item/agentMessage/delta","params":{{"threadId":"thr_root","turnId":"turn_1","itemId":"msg_1","delta":"word{} "}}}},"at":{}}}"#,
            i % 10,
            4 + i
        ));
        t.push('\n');
    }
    t.push_str(concat!(
        r#"{"from":"server","message":{"method":"item/completed","params":{"threadId":"thr_root","turnId":"turn_1","item":{"type":"agentMessage","id":"msg_1","text":""}}}}"#,
        "\n",
        r#"{"from":"server","message":{"method":"turn/completed","params":{"threadId":"thr_root","turn":{"id":"turn_1","items":[],"status":"completed"}}}}"#,
        "\n",
    ));
    t
}

/// `replay(300k deltas) / replay(100k deltas)` of one streamed Codex message (linear ⇒ 3).
fn append_scaling(reps: usize) -> (f64, String) {
    let (few, many) = (delta_trace(100_000), delta_trace(300_000));
    let (t_few, t_many) = interleaved(reps, || replay_all(&few), || replay_all(&many));
    let ratio = t_many.as_secs_f64() / t_few.as_secs_f64();
    let detail = format!("one Codex message: 100k deltas {t_few:.2?}, 300k deltas {t_many:.2?}");
    (ratio, detail)
}

/// A tree with `n` active children under one running root turn.
fn wide_snapshot(n: usize) -> Snapshot {
    let mut s = Snapshot::new();
    let apply = |s: &mut Snapshot, e: Event| *s = s.apply(&e, None).snapshot;
    apply(
        &mut s,
        Event::RootSessionCreated {
            session: "R".into(),
            title: None,
            aliases: vec![],
        },
    );
    apply(
        &mut s,
        Event::UserSubmitted {
            session: "R".into(),
            message: None,
            text: None,
        },
    );
    apply(
        &mut s,
        Event::RootProviderTurnStarted {
            session: "R".into(),
            provider_turn: None,
        },
    );
    for i in 0..n {
        apply(
            &mut s,
            Event::ChildSpawned {
                session: format!("c{i}").into(),
                parent_session: "R".into(),
                parent_turn: None,
                tool_call: None,
                title: None,
                aliases: vec![],
            },
        );
        apply(
            &mut s,
            Event::ChildTurnStarted {
                session: format!("c{i}").into(),
            },
        );
    }
    s
}

/// The same event mix whatever the tree size: output, approvals, and a child that ends
/// while a new one is spawned (the number of active children stays constant).
fn event_mix(n: usize, count: usize) -> Vec<Event> {
    let mut events = Vec::with_capacity(count);
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = |m: usize| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        usize::try_from(x % m as u64).unwrap()
    };
    let mut live: Vec<usize> = (0..n).collect();
    let mut fresh = n;
    let mut req = 0;
    while events.len() < count {
        let slot = next(live.len());
        let child: SessionId = format!("c{}", live[slot]).into();
        match next(10) {
            0 => {
                req += 1;
                events.push(Event::InteractionRequested {
                    session: child.clone(),
                    request: format!("r{req}").into(),
                    kind: lineage_core::InteractionKind::Approval,
                    provider_turn: None,
                    tool_call: None,
                    title: None,
                });
                events.push(Event::InteractionAnswered {
                    session: child,
                    request: format!("r{req}").into(),
                    answer: None,
                });
            }
            1 => {
                events.push(Event::ChildTurnCompleted {
                    session: child,
                    outcome: Outcome::Completed,
                    error: None,
                });
                let new: SessionId = format!("c{fresh}").into();
                events.push(Event::ChildSpawned {
                    session: new.clone(),
                    parent_session: "R".into(),
                    parent_turn: None,
                    tool_call: None,
                    title: None,
                    aliases: vec![],
                });
                events.push(Event::ChildTurnStarted { session: new });
                live[slot] = fresh;
                fresh += 1;
            }
            _ => events.push(Event::Message {
                session: child,
                message: None,
                role: Role::Assistant,
                text: "progress".into(),
            }),
        }
    }
    events
}

fn per_event(base: &Snapshot, events: &[Event]) -> Duration {
    let t = time(|| {
        let mut s = base.clone();
        for e in events {
            s = s.apply(e, None).snapshot;
        }
        black_box(s);
    });
    t / u32::try_from(events.len()).unwrap()
}

/// The "plain std map" baseline: a session record cloned whole on every event.
#[derive(Clone)]
#[allow(dead_code)]
struct PlainSession {
    id: String,
    parent: Option<String>,
    phase: u8,
    turns: Vec<(u32, u8)>,
    messages: Vec<String>,
}

fn clone_per_event(n: usize, events: usize) -> Duration {
    let mut map = std::collections::BTreeMap::new();
    for i in 0..n {
        map.insert(
            format!("c{i}"),
            PlainSession {
                id: format!("c{i}"),
                parent: Some("R".into()),
                phase: 1,
                turns: vec![(1, 1)],
                messages: vec![],
            },
        );
    }
    let t = time(|| {
        let mut state = map.clone();
        for i in 0..events {
            let mut next = state.clone();
            if let Some(s) = next.get_mut(&format!("c{}", i % n)) {
                s.messages.push("progress".into());
            }
            state = black_box(next);
        }
        black_box(state.len());
    });
    t / u32::try_from(events).unwrap()
}

fn persistent_per_event(n: usize, events: usize) -> Duration {
    let base = wide_snapshot(n);
    let mix = event_mix(n, events);
    let t = time(|| {
        let mut kept = Vec::with_capacity(mix.len());
        let mut s = base.clone();
        for e in &mix {
            let next = s.apply(e, None).snapshot;
            kept.push(s);
            s = next;
        }
        black_box(kept.len());
    });
    t / u32::try_from(mix.len()).unwrap()
}

/// The events (with their `at`) of a `long` canonical trace, parsed up front so that
/// parsing does not count as retained memory.
fn long_canonical_events(records: usize) -> Vec<(Event, Option<u64>)> {
    generate(Format::Canonical, Shape::Long { records }, 11)
        .lines()
        .skip(1)
        .filter_map(|l| lineage_core::trace::parse_canonical(l).ok())
        .map(|r| (r.event, r.at))
        .collect()
}

/// Retained bytes by event type (the `--breakdown` view of `retained_bytes_per_event`).
fn retained_breakdown(records: usize) {
    let events = long_canonical_events(records);
    let mut by_type: std::collections::BTreeMap<&str, (usize, usize)> =
        std::collections::BTreeMap::new();
    let mut kept: Vec<Snapshot> = Vec::with_capacity(events.len() + 1);
    let mut s = Snapshot::new();
    for (e, at) in &events {
        let before = LIVE.load(Ordering::Relaxed);
        let step = s.apply(e, *at);
        let next = step.snapshot;
        drop(step.changes);
        kept.push(s);
        s = next;
        let after = LIVE.load(Ordering::Relaxed);
        let entry = by_type.entry(e.name()).or_default();
        entry.0 += 1;
        entry.1 += after.saturating_sub(before);
    }
    black_box(&kept);
    for (name, (n, bytes)) in by_type {
        println!(
            "{name:<30} {n:>9} events {:>9} bytes/event",
            bytes / n.max(1)
        );
    }
}

fn retained_bytes_per_event(records: usize) -> (f64, usize) {
    let events = long_canonical_events(records);
    let mut kept: Vec<Snapshot> = Vec::with_capacity(events.len() + 1);
    let before = LIVE.load(Ordering::Relaxed);
    let mut s = Snapshot::new();
    for (e, at) in &events {
        let next = s.apply(e, *at).snapshot;
        kept.push(s);
        s = next;
    }
    let after = LIVE.load(Ordering::Relaxed);
    let n = events.len();
    black_box(&kept);
    #[allow(clippy::cast_precision_loss)]
    let per = (after.saturating_sub(before)) as f64 / n as f64;
    (per, n)
}

/// Peak RSS (KiB) of `lineage <args>`, its standard output sent to `stdout`.
fn peak_rss_kib(args: &[&str], stdout: std::process::Stdio) -> Option<u64> {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_lineage"))
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(stdout)
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    let status_path = format!("/proc/{}/status", child.id());
    let mut peak = None;
    loop {
        if let Ok(status) = std::fs::read_to_string(&status_path) {
            for line in status.lines() {
                if let Some(v) = line.strip_prefix("VmHWM:") {
                    peak = v.trim().trim_end_matches("kB").trim().parse().ok().or(peak);
                }
            }
        }
        if child.try_wait().ok()?.is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    peak
}

/// One row of the table: name, value, target, detail.
type Row = (&'static str, f64, &'static str, String);

/// A metric measured on its own: its name and how.
type Measure = (&'static str, fn(&Run) -> Row);

/// What a run measures: sizes, repetitions, and the metrics asked for.
struct Run {
    quick: bool,
    records: usize,
    reps: usize,
    only: Option<Vec<String>>,
    started: Instant,
}

impl Run {
    fn from_args() -> Self {
        let args: Vec<String> = std::env::args().collect();
        let quick = args.iter().any(|a| a == "--quick");
        let only = args
            .iter()
            .position(|a| a == "--only")
            .and_then(|i| args.get(i + 1))
            .map(|list| list.split(',').map(String::from).collect())
            // `--append` is the older spelling of `--only append_scaling`.
            .or_else(|| {
                args.iter()
                    .any(|a| a == "--append")
                    .then(|| vec!["append_scaling".to_owned()])
            });
        Self {
            quick,
            records: if quick { 100_000 } else { 1_000_000 },
            reps: if quick { 3 } else { 5 },
            only,
            started: Instant::now(),
        }
    }

    /// Is `metric` asked for (every metric unless `--only a,b,…` names some)?
    fn wants(&self, metric: &str) -> bool {
        self.only
            .as_ref()
            .is_none_or(|names| names.iter().any(|n| n == metric))
    }

    fn progress(&self, what: &str) {
        eprintln!("[{:>7.1?}] {what}", self.started.elapsed());
    }
}

/// `replay_vs_parse` on a `long` Codex trace; returns the row, the trace and its size.
fn replay_vs_parse(run: &Run) -> (Row, String, usize) {
    run.progress("replay_vs_parse");
    let codex = generate(
        Format::CodexAppServer,
        Shape::Long {
            records: run.records,
        },
        7,
    );
    let lines = codex.lines().count();
    let (parse, replay) = interleaved(run.reps, || parse_all(&codex), || replay_all(&codex));
    let row = (
        "replay_vs_parse",
        parse.as_secs_f64() / replay.as_secs_f64(),
        "≥ 0.8",
        format!("{lines} codex records: parse {parse:.2?}, replay {replay:.2?}"),
    );
    (row, codex, lines)
}

/// The `long` ACP trace of `check_vs_parse` (at least `run.records` records).
fn acp_trace(run: &Run) -> String {
    // ACP has no record for some script steps (guidance, provider starts): ask for more
    // steps so the trace still has at least `records` records.
    let records = run.records + run.records / 8;
    generate(Format::Acp, Shape::Long { records }, 7)
}

/// `check_vs_parse` and `check_vs_official_decode`, measured interleaved on one trace.
fn check_rows(run: &Run, acp: &str) -> Vec<Row> {
    run.progress("check_vs_parse, check_vs_official_decode");
    let acp_lines = acp.lines().count();
    let mut decoded = 0;
    let times = interleaved_all(
        run.reps,
        &mut [
            &mut || parse_all(acp),
            &mut || decoded = decode_updates(acp),
            &mut || {
                let _ = black_box(lineage_core::replay::check(acp, None).map(|r| r.findings.len()));
            },
        ],
    );
    let (parse, decode, check) = (times[0], times[1], times[2]);
    let mut rows = Vec::new();
    if run.wants("check_vs_parse") {
        rows.push((
            "check_vs_parse",
            parse.as_secs_f64() / check.as_secs_f64(),
            "≥ 0.8",
            format!("{acp_lines} acp records: parse {parse:.2?}, check {check:.2?}"),
        ));
    }
    if run.wants("check_vs_official_decode") {
        rows.push((
            "check_vs_official_decode",
            decode.as_secs_f64() / check.as_secs_f64(),
            "≥ 1.0",
            format!(
                "{decoded} session/update decoded by agent-client-protocol-schema 1.20 in \
                 {decode:.2?}, check {check:.2?}"
            ),
        ));
    }
    rows
}

/// `acp_deep_chain`: checking an ACP chain twice as deep costs about twice as much
/// (O(n log n) in all), measured as check(deep:8000) ÷ check(deep:4000).
fn acp_deep_chain(run: &Run) -> Row {
    run.progress("acp_deep_chain");
    let shallow = generate(Format::Acp, Shape::Deep { depth: 4_000 }, 7);
    let deep = generate(Format::Acp, Shape::Deep { depth: 8_000 }, 7);
    let check = |text: &str| {
        let _ = black_box(lineage_core::replay::check(text, None).map(|r| r.findings.len()));
    };
    let (t4, t8) = interleaved(run.reps, || check(&shallow), || check(&deep));
    (
        "acp_deep_chain",
        t8.as_secs_f64() / t4.as_secs_f64(),
        "≤ 2.2",
        format!("check of an acp chain: deep:4000 {t4:.2?}, deep:8000 {t8:.2?}"),
    )
}

fn scaling(run: &Run) -> Row {
    run.progress("scaling");
    let mix_len = if run.quick { 20_000 } else { 100_000 };
    let small = wide_snapshot(1_000);
    let big = wide_snapshot(100_000);
    let small_mix = event_mix(1_000, mix_len);
    let big_mix = event_mix(100_000, mix_len);
    let mut smalls = Vec::new();
    let mut bigs = Vec::new();
    for _ in 0..run.reps {
        smalls.push(per_event(&small, &small_mix));
        bigs.push(per_event(&big, &big_mix));
    }
    let (c_small, c_big) = (median(smalls), median(bigs));
    (
        "scaling",
        c_big.as_secs_f64() / c_small.as_secs_f64(),
        "≤ 2",
        format!("per event: 1k active {c_small:.2?}, 100k active {c_big:.2?}"),
    )
}

fn snapshot_vs_clone(run: &Run) -> Row {
    run.progress("snapshot_vs_clone");
    let events = if run.quick { 2_000 } else { 5_000 };
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    for _ in 0..run.reps {
        theirs.push(clone_per_event(10_000, events / 10));
        ours.push(persistent_per_event(10_000, events));
    }
    let (ours, theirs) = (median(ours), median(theirs));
    (
        "snapshot_vs_clone",
        ours.as_secs_f64() / theirs.as_secs_f64(),
        "≤ 0.05",
        format!("per event at 10k sessions: persistent {ours:.2?}, std clone {theirs:.2?}"),
    )
}

fn append(run: &Run) -> Row {
    run.progress("append_scaling");
    let (ratio, detail) = append_scaling(run.reps);
    ("append_scaling", ratio, "≤ 3.5", detail)
}

/// `native_rollout_vs_parse` / `native_transcript_vs_parse`: parsing every line of a
/// generated native source (`run.records` lines in all) to `serde_json::Value` ÷ reading
/// the source and replaying it (`native::read` + `native::replay`).
fn native_vs_parse(run: &Run, kind: NativeKind, name: &'static str) -> Row {
    run.progress(name);
    let files = generate_native(kind, run.records, 7);
    let lines: usize = files.iter().map(|f| f.text.lines().count()).sum();
    let bytes: usize = files.iter().map(|f| f.text.len()).sum();
    let sessions = native::replay(&native::read(&files), 0, native::Options::default())
        .unwrap()
        .replay
        .snapshot()
        .map_or(0, |s| s.sessions().count());
    // The full-size sources hold 1.4–2.2 GB of text: three interleaved repetitions keep
    // the whole benchmark under ten minutes (each one takes tens of seconds).
    let (parse, replay) = interleaved(
        run.reps.min(3),
        || files.iter().for_each(|f| parse_all(&f.text)),
        || native_all(&files),
    );
    let what = match kind {
        NativeKind::CodexRollout => "rollout",
        NativeKind::ClaudeTranscript => "transcript",
    };
    (
        name,
        parse.as_secs_f64() / replay.as_secs_f64(),
        "≥ 0.8",
        format!(
            "{lines} {what} lines, {} files, {} MiB, {sessions} sessions: parse {parse:.2?}, read + replay {replay:.2?}",
            files.len(),
            bytes >> 20
        ),
    )
}

fn native_rollout(run: &Run) -> Row {
    native_vs_parse(run, NativeKind::CodexRollout, "native_rollout_vs_parse")
}

fn native_transcript(run: &Run) -> Row {
    native_vs_parse(
        run,
        NativeKind::ClaudeTranscript,
        "native_transcript_vs_parse",
    )
}

fn retained(run: &Run) -> Row {
    run.progress("retained bytes");
    let (retained, n) = retained_bytes_per_event(run.records);
    (
        "retained_bytes_per_event",
        retained,
        "≤ 1024",
        format!("{n} events, every snapshot kept"),
    )
}

/// A temporary file of the benchmark, removed when dropped.
struct TempFile(std::path::PathBuf);

impl TempFile {
    fn new(name: &str) -> Self {
        Self(std::env::temp_dir().join(format!("lineage-bench-{}-{name}", std::process::id())))
    }
    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[allow(clippy::cast_precision_loss)]
fn kib(n: u64) -> f64 {
    n as f64
}

/// Peak RSS of `lineage replay --format json` on the Codex trace of `replay_vs_parse`,
/// and that peak ÷ the size of the JSON it printed.
fn replay_rss_rows(run: &Run, codex: &str, records: usize) -> Vec<Row> {
    run.progress("peak memory of lineage replay --format json on the same trace");
    let (input, output) = (TempFile::new("codex.jsonl"), TempFile::new("replay.json"));
    std::fs::write(&input.0, codex).unwrap();
    let sink = std::fs::File::create(&output.0).unwrap();
    let peak = peak_rss_kib(&["replay", input.path(), "--format", "json"], sink.into());
    let out_kib = std::fs::metadata(&output.0)
        .map(|m| m.len() / 1024)
        .unwrap_or(0);
    let Some(peak) = peak else {
        return vec![(
            "peak_rss_kib",
            f64::NAN,
            "report",
            "(could not be read)".into(),
        )];
    };
    vec![
        (
            "peak_rss_kib",
            kib(peak),
            "report",
            format!("lineage replay --format json on the {records}-record Codex trace"),
        ),
        (
            "replay_rss_vs_output",
            kib(peak) / kib(out_kib.max(1)),
            "≤ 2",
            format!(
                "peak RSS {} MiB ÷ its JSON output {} MiB",
                peak / 1024,
                out_kib / 1024
            ),
        ),
    ]
}

/// Peak RSS (MiB) of `lineage check --format json` (transcripts off) on the ACP trace of
/// `check_vs_parse`.
fn check_rss_row(run: &Run, acp: &str) -> Row {
    run.progress("peak memory of lineage check --format json on the ACP trace");
    let input = TempFile::new("acp.jsonl");
    std::fs::write(&input.0, acp).unwrap();
    let args = ["check", input.path(), "--format", "json"];
    let peak = peak_rss_kib(&args, std::process::Stdio::null());
    let records = acp.lines().count();
    (
        "check_peak_rss_mib",
        peak.map_or(f64::NAN, |p| kib(p) / 1024.0),
        "≤ 64",
        format!("lineage check --format json on the {records}-record ACP trace"),
    )
}

/// A `long` Codex trace of `records` records, as `lineage gen --format codex-app-server
/// --shape long:N --seed 7` writes it.
fn codex_long(records: usize) -> String {
    generate(Format::CodexAppServer, Shape::Long { records }, 7)
}

/// The replay of `text`, with the timeline `replay --format html` records as it reads.
fn replay_with_timeline(text: &str) -> (Replay, Timeline) {
    let mut engine = Engine::new(Options::default());
    let mut timeline = Timeline::default();
    for line in text.lines() {
        let out = engine.push_line(line).unwrap();
        timeline.observe(&engine, &out);
    }
    (engine.finish().unwrap(), timeline)
}

/// The sizes (records) of the `render_scaling` and `convert_scaling` traces.
const SCALING_SIZES: [usize; 2] = [40_000, 160_000];

/// `render_scaling`: the time of each view of `replay` (tree, mermaid, html) of a `long`
/// Codex trace of 160k records ÷ of 40k records (linear gives 4), the three views
/// measured interleaved; the row is the worst of the three, each one in its detail.
fn render_scaling(run: &Run) -> Row {
    run.progress("render_scaling");
    let [small, big] = SCALING_SIZES.map(|n| replay_with_timeline(&codex_long(n)));
    let html = |(replay, timeline): &(Replay, Timeline)| {
        black_box(render::html(replay, &timeline.summary(replay), "bench").len());
    };
    let times = interleaved_all(
        run.reps,
        &mut [
            &mut || drop(black_box(render::tree(&small.0))),
            &mut || drop(black_box(render::tree(&big.0))),
            &mut || drop(black_box(render::mermaid(&small.0))),
            &mut || drop(black_box(render::mermaid(&big.0))),
            &mut || html(&small),
            &mut || html(&big),
        ],
    );
    let ratio = |i: usize| times[i + 1].as_secs_f64() / times[i].as_secs_f64();
    let views = [("tree", 0), ("mermaid", 2), ("html", 4)];
    let worst = views.iter().map(|&(_, i)| ratio(i)).fold(0.0, f64::max);
    let detail = views
        .iter()
        .map(|&(name, i)| {
            format!(
                "{name} {:.2?} → {:.2?} ({:.2})",
                times[i],
                times[i + 1],
                ratio(i)
            )
        })
        .collect::<Vec<_>>()
        .join(", ");
    (
        "render_scaling",
        worst,
        "≤ 4.5",
        format!("worst of, 40k → 160k codex records: {detail}"),
    )
}

/// What `lineage convert --to acp-v1` does with `text`: the converter's output, record
/// by record, and its tail.
fn convert_all(text: &str) {
    let mut converter = Converter::new(Options::default(), Default::default());
    let mut written = 0;
    for line in text.lines() {
        written += converter.push_line(line).unwrap().len();
    }
    let (tail, replay) = converter.finish().unwrap();
    black_box((written, tail.len(), replay.findings.len()));
}

/// `convert_scaling`: `convert --to acp-v1` of a `long` Codex trace of 160k records ÷ of
/// 40k records (linear gives 4).
fn convert_scaling(run: &Run) -> Row {
    run.progress("convert_scaling");
    let [small, big] = SCALING_SIZES.map(codex_long);
    let (t_small, t_big) = interleaved(run.reps, || convert_all(&small), || convert_all(&big));
    (
        "convert_scaling",
        t_big.as_secs_f64() / t_small.as_secs_f64(),
        "≤ 4.5",
        format!("convert --to acp-v1 of codex records: 40k {t_small:.2?}, 160k {t_big:.2?}"),
    )
}

/// One line a recorded program writes (an ACP agent's message chunk).
const RECORDED_LINE: &str = r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Reading the build log"}}}}"#;

/// Peak RSS (KiB) of `lineage record -o /dev/null` in front of a program that writes
/// `lines` lines (each forwarded to standard output and recorded).
fn record_peak_rss(lines: usize) -> Option<u64> {
    let program = format!("yes '{RECORDED_LINE}' | head -n {lines}");
    let args = ["record", "-o", "/dev/null", "--", "sh", "-c", &program];
    peak_rss_kib(&args, std::process::Stdio::null())
}

/// `record_rss_scaling`: the peak RSS of `lineage record` forwarding 4M lines ÷ 1M lines
/// (1M ÷ 250k with `--quick`); a proxy that keeps nothing per line gives 1.
fn record_rss_scaling(run: &Run) -> Row {
    run.progress("record_rss_scaling");
    let big = if run.quick { 1_000_000 } else { 4_000_000 };
    let small = big / 4;
    let (mut smalls, mut bigs) = (Vec::new(), Vec::new());
    for _ in 0..run.reps.min(3) {
        smalls.extend(record_peak_rss(small));
        bigs.extend(record_peak_rss(big));
    }
    let median = |mut v: Vec<u64>| {
        v.sort_unstable();
        v.get(v.len() / 2).copied()
    };
    let (Some(p_small), Some(p_big)) = (median(smalls), median(bigs)) else {
        return (
            "record_rss_scaling",
            f64::NAN,
            "≤ 1.2",
            "(could not be read)".into(),
        );
    };
    (
        "record_rss_scaling",
        kib(p_big) / kib(p_small),
        "≤ 1.2",
        format!(
            "peak RSS of lineage record forwarding {}k lines {p_small} KiB, {}k lines {p_big} KiB",
            small / 1000,
            big / 1000
        ),
    )
}

/// The table, then one JSON line with every metric measured.
fn report(rows: &[Row], lines: Option<usize>) {
    println!("{:<26} {:>12} {:>8}  detail", "metric", "value", "target");
    for (name, value, target, detail) in rows {
        println!("{name:<26} {value:>12.3} {target:>8}  {detail}");
    }
    let mut json = serde_json::Map::new();
    for (name, value, _, _) in rows {
        json.insert((*name).into(), serde_json::json!(value));
    }
    if let Some(lines) = lines {
        json.insert("records".into(), serde_json::json!(lines));
    }
    println!("{}", serde_json::Value::Object(json));
}

fn main() {
    let run = Run::from_args();
    if std::env::args().any(|a| a == "--breakdown") {
        retained_breakdown(run.records);
        return;
    }
    let mut rows: Vec<Row> = Vec::new();
    let mut lines = None;
    if run.wants("replay_vs_parse") || run.wants("peak_rss_kib") {
        let (row, codex, n) = replay_vs_parse(&run);
        if run.wants("replay_vs_parse") {
            rows.push(row);
        }
        lines = Some(n);
        if run.wants("peak_rss_kib") {
            rows.extend(replay_rss_rows(&run, &codex, n));
        }
    }
    let acp_metrics = [
        "check_vs_parse",
        "check_vs_official_decode",
        "check_peak_rss_mib",
    ];
    if acp_metrics.iter().any(|m| run.wants(m)) {
        let acp = acp_trace(&run);
        if run.wants("check_vs_parse") || run.wants("check_vs_official_decode") {
            rows.extend(check_rows(&run, &acp));
        }
        if run.wants("check_peak_rss_mib") {
            rows.push(check_rss_row(&run, &acp));
        }
    }
    let measures: [Measure; 10] = [
        ("acp_deep_chain", acp_deep_chain),
        ("scaling", scaling),
        ("append_scaling", append),
        ("snapshot_vs_clone", snapshot_vs_clone),
        ("retained_bytes_per_event", retained),
        ("native_rollout_vs_parse", native_rollout),
        ("native_transcript_vs_parse", native_transcript),
        ("render_scaling", render_scaling),
        ("convert_scaling", convert_scaling),
        ("record_rss_scaling", record_rss_scaling),
    ];
    for (name, measure) in measures {
        if run.wants(name) {
            rows.push(measure(&run));
        }
    }
    report(&rows, lines);
}
