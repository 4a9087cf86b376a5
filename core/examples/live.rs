//! A live host loop: provider records arrive on standard input, one JSON object a line
//! (`{"from":"cli","message":{…}}`, the trace envelope without a header), and the engine's
//! changes and findings are printed as they happen, in the change-stream protocol of
//! `lineage replay --format changes` (one JSON line each, `"v": 1`; see docs/changes.md).
//!
//! The clock lives here, never in the engine: a record is stamped with the wall-clock
//! time it arrived when it has no `at`, and while no record arrives the loop sleeps only
//! until the engine's next deadline (`poll_timeout`), then tells it the time
//! (`handle_timeout`). So a Claude continuation that never starts times out 30 s after
//! the last background child finished, even if the CLI goes quiet.
//!
//! ```text
//! claude -p … --output-format stream-json --verbose \
//!   | jq -c '{from:"cli",message:.}' \
//!   | cargo run -p lineage-core --example live -- claude-sdk
//! ```

use std::io::{BufRead, Write};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use lineage_core::engine::{Engine, Options, Output};
use lineage_core::providers::ProviderRecord;
use lineage_core::render::changes::ChangeWriter;
use lineage_core::trace::Format;

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Writes one output's stream lines to standard output and flushes them.
fn print(writer: &mut ChangeWriter, engine: &Engine, out: &Output) {
    let mut stdout = std::io::stdout().lock();
    let written = writer
        .write(engine.format(), engine.line(), out, &mut stdout)
        .and_then(|_| stdout.flush());
    if let Err(e) = written {
        eprintln!("error: standard output: {e}");
    }
}

fn main() {
    let format = std::env::args()
        .nth(1)
        .map_or(Ok(Format::ClaudeSdk), |f| f.parse::<Format>());
    let format = match format {
        Ok(f) => f,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let mut engine = Engine::new(Options {
        format: Some(format),
        ..Options::default()
    });
    let mut writer = ChangeWriter::default();
    // A reader thread, so the loop can wait for a record *or* the next deadline.
    let (tx, rx) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    loop {
        let wait = engine
            .poll_timeout()
            .map(|deadline| Duration::from_millis(deadline.saturating_sub(now_ms())));
        let received = match wait {
            Some(wait) => rx.recv_timeout(wait),
            None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
        };
        match received {
            Ok(line) if line.trim().is_empty() => {}
            Ok(line) => match serde_json::from_str::<ProviderRecord>(&line) {
                Ok(mut record) => {
                    record.at.get_or_insert_with(now_ms);
                    match engine.push_record(record) {
                        Ok(out) => print(&mut writer, &engine, &out),
                        Err(e) => eprintln!("error: {e}"),
                    }
                }
                // Not a record: the engine reports it as a located `malformed-record`.
                Err(_) => match engine.push_line(&line) {
                    Ok(out) => print(&mut writer, &engine, &out),
                    Err(e) => eprintln!("error: {e}"),
                },
            },
            Err(RecvTimeoutError::Timeout) => {
                let out = engine.handle_timeout(now_ms());
                print(&mut writer, &engine, &out);
            }
            Err(RecvTimeoutError::Disconnected) => break,
        }
    }
    // The input ended: the end-of-trace findings and their changes, then the summary.
    match engine.end() {
        Ok(out) => print(&mut writer, &engine, &out),
        Err(e) => eprintln!("error: {e}"),
    }
    match engine.finish() {
        Ok(replay) => {
            let mut stdout = std::io::stdout().lock();
            if let Err(e) = writer.finish(&replay, &mut stdout) {
                eprintln!("error: standard output: {e}");
            }
        }
        Err(e) => eprintln!("error: {e}"),
    }
}
