//! `lineage replay`: read a trace line by line, fold it, print one view.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};

use lineage_core::Severity;
use lineage_core::render;
use lineage_core::replay::{Finding, Options, Replay, Replayer};
use lineage_core::trace::{self, Format};

use crate::{Exit, OutputFormat, ReplayArgs};

pub(crate) fn run(args: &ReplayArgs) -> Exit {
    let path = args.trace.display().to_string();
    match sniff_format(args) {
        Err(message) => {
            eprintln!("error: {path}: {message}");
            return Exit::Usage;
        }
        Ok(Some(Format::Acp)) => return crate::acp_replay::run(args),
        Ok(_) => {}
    }
    let replay = match read(args) {
        Ok(replay) => replay,
        Err(message) => {
            eprintln!("error: {path}: {message}");
            return Exit::Usage;
        }
    };
    show(
        args,
        &replay.findings,
        || render::tree(&replay),
        || render::json_string(&replay, true),
        || render::mermaid(&replay),
    )
}

/// Prints one view of a replay (findings go to stderr with a Mermaid chart) and returns
/// the exit code its findings call for. Shared by every trace format.
pub(crate) fn show(
    args: &ReplayArgs,
    findings: &[Finding],
    tree: impl FnOnce() -> String,
    json: impl FnOnce() -> String,
    mermaid: impl FnOnce() -> String,
) -> Exit {
    let text = match args.format {
        OutputFormat::Tree => tree(),
        OutputFormat::Json => json() + "\n",
        OutputFormat::Mermaid => {
            let path = args.trace.display();
            for f in findings {
                eprintln!(
                    "{path}:{}: {}[{}]: {}",
                    f.line, f.severity, f.rule, f.message
                );
            }
            mermaid()
        }
    };
    let mut stdout = std::io::stdout().lock();
    if stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
        .is_err()
    {
        return Exit::Usage;
    }
    if findings.iter().any(|f| f.severity == Severity::Error) {
        Exit::Findings
    } else {
        Exit::Clean
    }
}

/// Streams the file through a [`Replayer`]; bytes that are not UTF-8 are replaced, so such
/// a line becomes a located `malformed-record` finding instead of an abort.
fn read(args: &ReplayArgs) -> Result<Replay, String> {
    let file = File::open(&args.trace).map_err(|e| e.to_string())?;
    let options = Options {
        format: args.input_format,
        until_line: args.at.and_then(|n| usize::try_from(n).ok()),
    };
    let mut replayer = Replayer::new(&options);
    let mut reader = BufReader::new(file);
    let mut buf = Vec::new();
    loop {
        if options
            .until_line
            .is_some_and(|stop| replayer.line() >= stop)
        {
            break;
        }
        buf.clear();
        let n = reader
            .read_until(b'\n', &mut buf)
            .map_err(|e| e.to_string())?;
        if n == 0 {
            break;
        }
        let line = String::from_utf8_lossy(&buf);
        replayer.push_line(&line).map_err(|e| e.to_string())?;
    }
    replayer.finish().map_err(|e| e.to_string())
}

/// The trace's format as the replay will resolve it: the header's, else `--input-format`,
/// else what the first records look like. `None` when nothing tells.
pub(crate) fn sniff_format(args: &ReplayArgs) -> Result<Option<Format>, String> {
    let file = File::open(&args.trace).map_err(|e| e.to_string())?;
    let mut head = String::new();
    for line in BufReader::new(file).lines().take(50) {
        let line = line.unwrap_or_default();
        if head.trim().is_empty()
            && !line.trim().is_empty()
            && let Some(Ok(header)) = trace::parse_header(line.trim())
        {
            return Ok(Some(header.format));
        }
        head.push_str(&line);
        head.push('\n');
    }
    Ok(args.input_format.or_else(|| trace::detect_format(&head)))
}
