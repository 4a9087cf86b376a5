//! `lineage`: replay agent traces into a session tree.
//!
//! This binary owns all I/O (files, stdout, exit codes); everything it shows comes from
//! `lineage-core`, which stays pure.

#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use lineage_core::finding::Revision;
use lineage_core::trace::Format;

mod check_cmd;
mod convert_cmd;
mod input;
mod native_source;
mod record_cmd;
mod replay_cmd;
mod rules_cmd;
mod terminal;
mod walk;

/// Fold logs of agent events into immutable snapshots of a session tree.
#[derive(Debug, Parser)]
#[command(name = "lineage", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Replay a trace and show the session tree (at the end, or after a given line).
    Replay(ReplayArgs),
    /// Check ACP traces against the Subagent Sessions RFD (line-numbered findings for CI).
    Check(CheckArgs),
    /// List every finding code (ACP rules, reducer and adapter findings), or explain one.
    Rules(RulesArgs),
    /// Write a deterministic synthetic trace (for benchmarks and experiments).
    Gen(GenArgs),
    /// Project a trace of any format to the ACP stream an Agent would send (an `acp` trace).
    Convert(ConvertArgs),
    /// Run a program that speaks JSON lines on stdio, forwarding both directions unchanged
    /// and writing every message to a trace (use it as an editor's agent command).
    Record(RecordArgs),
}

#[derive(Debug, clap::Args)]
struct RecordArgs {
    /// The trace format to write (detected from the first message when omitted).
    #[arg(long, value_name = "F", value_parser = parse_format)]
    format: Option<Format>,
    /// The trace file to write.
    #[arg(
        long,
        short = 'o',
        value_name = "FILE",
        default_value = "lineage-record.jsonl"
    )]
    output: std::path::PathBuf,
    /// Print findings on standard error as the messages arrive.
    #[arg(long)]
    check: bool,
    /// The program and its arguments, after `--`.
    #[arg(last = true, required = true, value_name = "COMMAND")]
    command: Vec<String>,
}

#[derive(Debug, clap::Args)]
struct ConvertArgs {
    /// The trace file (JSONL), `-` for standard input, or a native source (a folder, a
    /// rollout, a transcript, a Zed ACP log).
    trace: std::path::PathBuf,
    /// The stream to write.
    #[arg(long, value_enum)]
    to: ConvertTarget,
    /// v1: whether the Client advertises `subagents` (without it children are flattened
    /// into the root session).
    #[arg(long, value_enum, default_value_t = ClientCaps::Subagents)]
    client_caps: ClientCaps,
    /// v1: answer the root `session/prompt` at canonical root settlement (after every
    /// nested child ended) or when the root provider turn ends.
    #[arg(long, value_enum, default_value_t = PromptAt::Settlement)]
    prompt_response: PromptAt,
    /// After the log, reconnect and load every root: history before the load's
    /// response, current states and grants after it.
    #[arg(long)]
    reconnect: bool,
    /// The trace format when the file has no header (detected from content otherwise).
    #[arg(long, value_name = "F", value_parser = parse_format)]
    input_format: Option<Format>,
    /// A native source folder with several session trees: the root session to convert.
    #[arg(long, value_name = "ROOT")]
    session: Option<String>,
    /// Write here instead of stdout.
    #[arg(long, short = 'o', value_name = "FILE")]
    output: Option<std::path::PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ConvertTarget {
    /// ACP v1 (`subagent_update` states on the parent).
    AcpV1,
    /// ACP v2 (`state_update` on the child's stream, mirrored on the parent).
    AcpV2,
    /// The canonical events the input normalizes to (a `canonical` trace).
    Canonical,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ClientCaps {
    /// The Client advertises `subagents: {}`.
    Subagents,
    /// The Client advertises nothing: children are presented through the root session.
    None,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum PromptAt {
    /// At canonical root settlement.
    Settlement,
    /// When the root provider turn ends.
    ProviderEnd,
}

#[derive(Debug, clap::Args)]
struct GenArgs {
    /// Trace format to write.
    #[arg(long, value_name = "F", value_parser = parse_format)]
    format: Format,
    /// `wide:N` (N concurrent children), `deep:N` (a chain N deep) or `long:N` (churn of at
    /// least N records).
    #[arg(long, value_parser = lineage_traces::generator::parse_shape)]
    shape: lineage_traces::generator::Shape,
    /// Seed: the same seed, shape and format always give the same bytes.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write here instead of stdout.
    #[arg(long, short = 'o', value_name = "FILE")]
    output: Option<std::path::PathBuf>,
}

#[derive(Debug, clap::Args)]
struct CheckArgs {
    /// Trace files (JSONL), directories walked for `*.jsonl`, or `-` for standard input.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<std::path::PathBuf>,
    /// How to report findings.
    #[arg(long, value_enum, default_value_t = CheckFormat::Human)]
    format: CheckFormat,
    /// Exit 1 on warnings too, not only on errors.
    #[arg(long)]
    deny_warnings: bool,
    /// ACP: the Subagent Sessions RFD revision to check against: 2026-09-24 (the
    /// default, unless the trace header names a `"spec"`), 2026-10-05 or final.
    #[arg(long, value_name = "REV", value_parser = parse_spec)]
    spec: Option<Revision>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum CheckFormat {
    /// rustc-style diagnostics pointing at `file:line`.
    Human,
    /// The JSON contract of docs/contract.md.
    Json,
    /// JUnit XML (one test suite per file).
    Junit,
    /// SARIF 2.1.0 (stable `ruleId`s).
    Sarif,
    /// GitHub Actions workflow commands (`::error file=…,line=…::`).
    Github,
}

#[derive(Debug, clap::Args)]
struct RulesArgs {
    /// The code to explain (all codes are listed when omitted).
    rule: Option<String>,
}

#[derive(Debug, clap::Args)]
struct ReplayArgs {
    /// The trace file (JSONL), `-` for standard input, or a native source: a Codex
    /// sessions folder or rollout, a Claude Code project folder or session transcript.
    trace: std::path::PathBuf,
    /// How to show the tree.
    #[arg(long, value_enum, default_value_t = OutputFormat::Tree)]
    format: OutputFormat,
    /// Show the snapshot after this physical line (the header is line 1); for a native
    /// source, after this many records in the order they are applied.
    #[arg(long, value_name = "LINE", allow_negative_numbers = true, value_parser = replay_cmd::parse_at)]
    at: Option<u64>,
    /// The trace format when the file has no header (detected from content otherwise).
    #[arg(long, value_name = "F", value_parser = parse_format)]
    input_format: Option<Format>,
    /// A native source folder with several session trees: the root session to show.
    #[arg(long, value_name = "ROOT")]
    session: Option<String>,
    /// ACP: the Subagent Sessions RFD revision to check against: 2026-09-24 (the
    /// default, unless the trace header names a `"spec"`), 2026-10-05 or final.
    #[arg(long, value_name = "REV", value_parser = parse_spec)]
    spec: Option<Revision>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum OutputFormat {
    /// A readable unicode tree.
    Tree,
    /// The JSON contract of docs/contract.md.
    Json,
    /// A Mermaid flowchart.
    Mermaid,
    /// A self-contained HTML page: the tree beside swimlanes on a time axis, with a slider.
    Html,
    /// The change stream: one JSON line per change or finding, flushed as each record is
    /// read (docs/changes.md).
    Changes,
}

fn parse_spec(s: &str) -> Result<Revision, String> {
    s.parse::<Revision>().map_err(|e| e.to_string())
}

fn parse_format(s: &str) -> Result<Format, String> {
    s.parse::<Format>().map_err(|e| e.to_string())
}

/// Exit codes (docs/contract.md): 0 clean, 1 findings at error level, 2 usage error or
/// unreadable path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Exit {
    Clean,
    Findings,
    Usage,
    /// A recorded program's own exit code, passed through.
    Code(u8),
}

impl From<Exit> for ExitCode {
    fn from(e: Exit) -> Self {
        ExitCode::from(match e {
            Exit::Clean => 0,
            Exit::Findings => 1,
            Exit::Usage => 2,
            Exit::Code(code) => code,
        })
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Replay(args) => replay_cmd::run(&args).into(),
        Command::Check(args) => check_cmd::run(&args).into(),
        Command::Rules(args) => rules_cmd::run(&args).into(),
        Command::Gen(args) => gen_cmd(&args).into(),
        Command::Convert(args) => convert_cmd::run(&args).into(),
        Command::Record(args) => record_cmd::run(&args).into(),
    }
}

/// `lineage gen`: the trace generator of `lineage-traces`, to a file or stdout.
fn gen_cmd(args: &GenArgs) -> Exit {
    let text = lineage_traces::generator::generate(args.format, args.shape, args.seed);
    let written = match &args.output {
        Some(path) => {
            std::fs::write(path, text.as_bytes()).map_err(|e| format!("{}: {e}", path.display()))
        }
        None => terminal::print(&text).map_err(|e| format!("standard output: {e}")),
    };
    match written {
        Ok(()) => Exit::Clean,
        Err(e) => {
            terminal::warn(&format!("error: {e}"));
            Exit::Usage
        }
    }
}
