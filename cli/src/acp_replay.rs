//! `lineage replay` of `acp` traces: the Client's view of the stream (DESIGN.md), with the
//! checker's findings as `diagnostics`.

use std::fs::File;
use std::io::{BufRead, BufReader};

use lineage_core::acp::{render, replay::AcpReplay, replay::AcpReplayer};

use crate::{Exit, ReplayArgs};

pub(crate) fn run(args: &ReplayArgs) -> Exit {
    let path = args.trace.display().to_string();
    let replay = match read(args) {
        Ok(replay) => replay,
        Err(message) => {
            eprintln!("error: {path}: {message}");
            return Exit::Usage;
        }
    };
    crate::replay_cmd::show(
        args,
        &replay.findings,
        || render::tree(&replay),
        || render::json_string(&replay, true),
        || render::mermaid(&replay),
    )
}

/// Streams the file through an [`AcpReplayer`] up to `--at`; bytes that are not UTF-8 are
/// replaced, so such a line becomes a located `malformed-record` finding.
fn read(args: &ReplayArgs) -> Result<AcpReplay, String> {
    let file = File::open(&args.trace).map_err(|e| e.to_string())?;
    let until = args.at.and_then(|n| usize::try_from(n).ok());
    let mut replayer = AcpReplayer::new(true);
    let mut reader = BufReader::new(file);
    let mut buf = Vec::new();
    loop {
        if until.is_some_and(|stop| replayer.line() >= stop) {
            // Stopped early: the trace has not ended, so no end-of-trace findings.
            return Ok(replayer.finish(false));
        }
        buf.clear();
        if reader
            .read_until(b'\n', &mut buf)
            .map_err(|e| e.to_string())?
            == 0
        {
            return Ok(replayer.finish(true));
        }
        replayer.push_line(&String::from_utf8_lossy(&buf));
    }
}
