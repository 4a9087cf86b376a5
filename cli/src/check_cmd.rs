//! `lineage check <PATH>...`: run traces through the checker (`lineage_cli::check`) and
//! print the report for people (rustc-style) or CI (JSON contract, JUnit, SARIF 2.1.0,
//! GitHub workflow commands).
//!
//! Exit codes: 0 clean, 1 an error (or, with `--deny-warnings`, a warning), 2 a usage
//! error or an unreadable or untellable path (which every report format lists as a file
//! with its error).

use lineage_cli::check::{self, Settings, formats};

use crate::{CheckArgs, CheckFormat, Exit, input, terminal};

pub(crate) fn run(args: &CheckArgs) -> Exit {
    if args.paths.iter().filter(|p| input::is_stdin(p)).count() > 1 {
        terminal::warn(
            "error: standard input (`-`) is given more than once; it can be read once (save it to a file to check it twice)",
        );
        return Exit::Usage;
    }
    let settings = Settings {
        spec: args.spec,
        keep_lines: args.format == CheckFormat::Human,
    };
    let reports = check::check_paths(&args.paths, settings);
    for report in &reports {
        if let Some(error) = &report.error {
            terminal::warn(&format!("error: {}: {error}", report.path));
        }
    }
    let text = match args.format {
        CheckFormat::Human => formats::human(&reports, terminal::colors(args.color)),
        CheckFormat::Json => formats::json(&reports),
        CheckFormat::Junit => formats::junit(&reports, args.deny_warnings),
        CheckFormat::Sarif => formats::sarif(&reports),
        CheckFormat::Github => formats::github(&reports),
    };
    if let Err(e) = terminal::print(&text) {
        terminal::warn(&format!("error: standard output: {e}"));
        return Exit::Usage;
    }
    if reports.iter().any(|r| r.error.is_some()) {
        Exit::Usage
    } else if formats::fails(&reports, args.deny_warnings) {
        Exit::Findings
    } else {
        Exit::Clean
    }
}
