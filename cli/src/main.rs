//! `lineage`: replay agent traces into a session tree.
//!
//! This binary owns all I/O (files, stdout, exit codes); everything it shows comes from
//! `lineage-core`, which stays pure.

#![forbid(unsafe_code)]

use std::process::ExitCode;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{CommandFactory, Parser, Subcommand, ValueEnum};
use lineage_core::finding::Revision;
use lineage_core::trace::Format;

use lineage_cli::convert::{ClientCaps, ConvertTarget};
use lineage_cli::{input, native_source, otlp_http, walk};

mod check_cmd;
mod convert_cmd;
mod record_cmd;
mod replay_cmd;
mod rules_cmd;
mod terminal;
mod watch;

/// The exit codes of every command (docs/contract.md lists the same, a test checks it).
const EXIT_CODES: &str = "\
Exit codes:
  0    clean: no finding at error level (nor at warning level, with --deny-warnings)
  1    findings at error level, or warnings with --deny-warnings (check, replay, convert)
  2    usage error, a path that cannot be read, a format that cannot be told, or standard output failing
  130  interrupted by SIGINT (Ctrl-C): lineage ends by the signal, which a shell reports as 128+2
  N    record: the recorded program's own exit code, or 128+S when signal S ended it";

/// Fold logs of agent events into immutable snapshots of a session tree.
#[derive(Debug, Parser)]
#[command(name = "lineage", version, about, long_about = None, after_help = EXIT_CODES)]
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
    #[command(after_help = RECORD_EXIT)]
    Record(RecordArgs),
    /// Watch a session tree live in the terminal, with time travel: a trace file as it
    /// grows, a pipe, a native folder as its files grow, or a program run as `record` runs
    /// it (`--record -- <COMMAND>`).
    #[command(after_help = WATCH_KEYS)]
    Watch(WatchArgs),
    /// Print a shell completion script (e.g. `lineage completions bash > ~/.local/share/bash-completion/completions/lineage`).
    Completions(CompletionsArgs),
    /// Print the manual page (roff) of lineage or of one of its commands (`lineage man | man -l -`).
    Man(ManArgs),
}

/// `record`'s own exit codes.
const RECORD_EXIT: &str = "\
Exit code: the recorded program's own, or 128+S when signal S ended it (SIGINT, SIGTERM, \
SIGHUP and SIGQUIT sent to lineage go on to the program); 2 when the program cannot be \
started or the trace file cannot be created.";

/// `watch`'s keys and exit codes.
const WATCH_KEYS: &str = "\
Keys:
  ←/→ (h/l)    one state back / forward in the history (going back pauses)
  Home/End     the first state / the latest, live again
  ↑/↓ (k/j)    move the selection; PgUp/PgDn by ten
  Enter        fold or unfold the selected session
  f            the findings pane alone, or back
  p            pause (keep this state while records arrive) or go live again
  /            search by id or title (Enter: search, Esc: cancel); n/N: next/previous match
  q, Esc       quit

Exit code: 0 after q; 130 after Ctrl-C, SIGINT, SIGTERM or SIGHUP; 2 when the source cannot \
be read or no terminal can be set up; with --record, 127/126 when the program cannot be \
started (it is sent SIGTERM when you quit before it ends).";

#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("input").required(true).args(["source", "record"])))]
struct WatchArgs {
    /// A trace file (followed as it grows), a FIFO or `-` (read to its end), or a native
    /// source: a Codex sessions folder, a Claude Code project folder (followed as files
    /// appear and grow).
    #[arg(value_name = "SOURCE")]
    source: Option<std::path::PathBuf>,
    /// A native source folder with several session trees: the root session to show (the
    /// newest by default).
    #[arg(long, value_name = "ROOT")]
    session: Option<String>,
    /// ACP: the Subagent Sessions RFD revision to check against: 2026-09-24 (the
    /// default, unless the trace header names a `"spec"`), 2026-10-05 or final.
    #[arg(long, value_name = "REV", value_parser = parse_spec)]
    spec: Option<Revision>,
    /// The trace format when the trace has no header (detected from content otherwise).
    #[arg(long, value_name = "F", value_parser = format_parser())]
    input_format: Option<Format>,
    /// Draw without colour (as `--color never`; `NO_COLOR` and `TERM=dumb` do too).
    #[arg(long)]
    no_color: bool,
    /// When to colour the screen.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorWhen::Auto)]
    color: ColorWhen,
    /// Run the program after `--` as `lineage record` does (its standard input and output
    /// pass through when they are not the terminal) and watch its traffic.
    #[arg(long, requires = "command", conflicts_with = "source")]
    record: bool,
    /// With `--record`: the program and its arguments, after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<String>,
}

#[derive(Debug, clap::Args)]
struct CompletionsArgs {
    /// The shell to complete in.
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

#[derive(Debug, clap::Args)]
struct ManArgs {
    /// The command whose page to print (lineage's own page, which lists them all, when
    /// omitted).
    command: Option<String>,
}

/// When to colour output meant for people.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ColorWhen {
    /// On a terminal, unless `NO_COLOR` is set (non-empty) or `TERM` is `dumb`.
    Auto,
    /// Always, even into a pipe or a file.
    Always,
    /// Never.
    Never,
}

#[derive(Debug, clap::Args)]
struct RecordArgs {
    /// The trace format to write (detected from the first message when omitted).
    #[arg(long, value_name = "F", value_parser = format_parser())]
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
    /// Send OpenTelemetry spans (OTLP/HTTP JSON) to this collector URL as turns settle
    /// (a URL without a path gets `/v1/traces`).
    #[arg(long, value_name = "URL")]
    otlp_endpoint: Option<String>,
    /// How `--otlp-endpoint` encodes the spans.
    #[arg(long, value_enum, default_value_t = otlp_http::Protocol::Json, requires = "otlp_endpoint")]
    otlp_protocol: otlp_http::Protocol,
    /// The program and its arguments, after `--`.
    #[arg(last = true, required = true, value_name = "COMMAND")]
    command: Vec<String>,
}

#[derive(Debug, clap::Args)]
struct ConvertArgs {
    /// The trace file (JSONL), `-` for standard input, or a native source (a folder, a
    /// rollout, a transcript, a Zed ACP log).
    trace: std::path::PathBuf,
    /// The stream to write (optional with `--otlp-endpoint`, which sends the OTLP export).
    #[arg(long, value_enum, required_unless_present = "otlp_endpoint")]
    to: Option<ConvertTarget>,
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
    #[arg(long, value_name = "F", value_parser = format_parser())]
    input_format: Option<Format>,
    /// The root session to convert: of a native source folder with several session trees,
    /// or of a Codex app-server trace whose connection started several root threads.
    #[arg(long, value_name = "ROOT")]
    session: Option<String>,
    /// Write here instead of stdout.
    #[arg(long, short = 'o', value_name = "FILE")]
    output: Option<std::path::PathBuf>,
    /// POST the OTLP export (OTLP/HTTP JSON) to this collector URL (a URL without a
    /// path gets `/v1/traces`); with `--to`, only `otlp-json`.
    #[arg(long, value_name = "URL")]
    otlp_endpoint: Option<String>,
    /// How `--otlp-endpoint` encodes the export.
    #[arg(long, value_enum, default_value_t = otlp_http::Protocol::Json, requires = "otlp_endpoint")]
    otlp_protocol: otlp_http::Protocol,
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
    #[arg(long, value_name = "F", value_parser = format_parser())]
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
    /// When to colour the `human` report.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorWhen::Auto)]
    color: ColorWhen,
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

#[derive(Debug, Clone, clap::Args)]
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
    #[arg(long, value_name = "F", value_parser = format_parser())]
    input_format: Option<Format>,
    /// The root session to show: of a native source folder with several session trees,
    /// or of a Codex app-server trace whose connection started several root threads.
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

/// A trace format name, its possible values listed in `--help`.
fn format_parser() -> impl TypedValueParser<Value = Format> {
    let values = Format::ALL.map(|format| {
        PossibleValue::new(format.as_str()).help(match format {
            Format::Acp => "An ACP JSON-RPC stream between a Client and an Agent",
            Format::CodexAppServer => "A Codex app-server stdio log",
            Format::ClaudeSdk => "A Claude Code stream-json log (the Agent SDK's)",
            Format::Canonical => "lineage's own canonical events",
            // `Format` is non-exhaustive: a newer format is listed by its name alone.
            _ => "",
        })
    });
    PossibleValuesParser::new(values).try_map(|name| name.parse::<Format>())
}

/// Exit codes (docs/contract.md, [`EXIT_CODES`]): 0 clean, 1 findings at error level, 2
/// usage error or unreadable path.
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
        Command::Watch(args) => watch::run(&args).into(),
        Command::Completions(args) => completions(args.shell).into(),
        Command::Man(args) => man(args.command.as_deref()).into(),
    }
}

/// `lineage completions <SHELL>`: clap_complete's script for the whole command line.
fn completions(shell: clap_complete::Shell) -> Exit {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "lineage", &mut script);
    print_bytes(&script)
}

/// `lineage man [COMMAND]`: clap_mangen's page (roff) of lineage, or of one command
/// (titled `LINEAGE-<COMMAND>`, as clap names a built subcommand), its exit codes in an
/// EXIT STATUS section.
fn man(command: Option<&str>) -> Exit {
    // No `help` page: `lineage help` is clap's, not a command of its own.
    let mut cli = Cli::command().disable_help_subcommand(true);
    cli.build();
    let page = match command {
        None => cli,
        Some(name) => match cli.find_subcommand(name) {
            Some(sub) => sub.clone(),
            None => {
                let names: Vec<&str> = cli.get_subcommands().map(|c| c.get_name()).collect();
                terminal::warn(&format!(
                    "error: `{name}` is not a lineage command (one of: {})",
                    names.join(", ")
                ));
                return Exit::Usage;
            }
        },
    };
    let mut roff = Vec::new();
    match render_man(&page, &mut roff) {
        Ok(()) => print_bytes(&roff),
        Err(e) => {
            terminal::warn(&format!("error: man page: {e}"));
            Exit::Usage
        }
    }
}

/// clap_mangen's sections, with the command's `after_help` (its exit codes) as EXIT STATUS
/// (the section man-pages(7) names) in place of clap_mangen's EXTRA.
fn render_man(page: &clap::Command, out: &mut Vec<u8>) -> std::io::Result<()> {
    let title = page
        .get_display_name()
        .unwrap_or_else(|| page.get_name())
        .to_uppercase();
    let man = clap_mangen::Man::new(page.clone())
        .title(title)
        .source(concat!("lineage ", env!("CARGO_PKG_VERSION")));
    man.render_title(out)?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    man.render_options_section(out)?;
    if page.has_subcommands() {
        man.render_subcommands_section(out)?;
    }
    if let Some(exit) = page.get_after_help() {
        // A table keeps its columns (no-fill), a paragraph is filled; roff reads `\` as an
        // escape and `-` as a hyphen.
        let text = exit.to_string().replace('\\', "\\e").replace('-', "\\-");
        out.extend_from_slice(b".SH \"EXIT STATUS\"\n");
        let text = if text.contains('\n') {
            format!(".nf\n{text}\n.fi\n")
        } else {
            format!("{text}\n")
        };
        out.extend_from_slice(text.as_bytes());
    }
    if page.get_version().is_some() {
        man.render_version_section(out)?;
    }
    Ok(())
}

/// Generated text (UTF-8) to standard output.
fn print_bytes(bytes: &[u8]) -> Exit {
    match terminal::print(&String::from_utf8_lossy(bytes)) {
        Ok(()) => Exit::Clean,
        Err(e) => {
            terminal::warn(&format!("error: standard output: {e}"));
            Exit::Usage
        }
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
