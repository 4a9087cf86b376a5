//! `lineage replay`: read a trace line by line, fold it, print one view.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};

use lineage_core::Severity;
use lineage_core::render;
use lineage_core::replay::{Options, Replay, Replayer};

use crate::{Exit, OutputFormat, ReplayArgs};

pub(crate) fn run(args: &ReplayArgs) -> Exit {
    let path = args.trace.display().to_string();
    let replay = match read(args) {
        Ok(replay) => replay,
        Err(message) => {
            eprintln!("error: {path}: {message}");
            return Exit::Usage;
        }
    };
    let text = match args.format {
        OutputFormat::Tree => render::tree(&replay),
        OutputFormat::Json => {
            let mut s = render::json_string(&replay, true);
            s.push('\n');
            s
        }
        OutputFormat::Mermaid => {
            for f in &replay.findings {
                eprintln!(
                    "{path}:{}: {}[{}]: {}",
                    f.line, f.severity, f.rule, f.message
                );
            }
            render::mermaid(&replay)
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
    if replay
        .findings
        .iter()
        .any(|f| f.severity == Severity::Error)
    {
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
