//! Report formats of `lineage check`. The CI formats are built with their crates
//! (`quick-junit`, `serde-sarif`, `annotate-snippets`), so escaping is theirs; the GitHub
//! workflow-command encoding is the documented percent-encoding, unit-tested below.

use std::fmt::Write as _;

use annotate_snippets::{AnnotationKind, Level, Renderer, Snippet};
use lineage_core::Severity;
use lineage_core::finding::{Code, Revision, Shapes, catalogue};
use lineage_core::render::{CheckedFile, check_json_string};
use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
use serde_json::json;
use serde_sarif::sarif;

use super::FileReport;
use crate::escape::escape_controls;

const SNIPPET_CHARS: usize = 120;

/// Whether a finding fails the run: an error, or a warning with `deny_warnings`.
pub fn fails(reports: &[FileReport], deny_warnings: bool) -> bool {
    reports.iter().flat_map(|r| &r.findings).any(|f| {
        f.severity == Severity::Error || (deny_warnings && f.severity == Severity::Warning)
    })
}

/// rustc-style diagnostics pointing at `file:line`, then a summary line; in colour when
/// `color` (`--color`, see `terminal::colors`).
pub fn human(reports: &[FileReport], color: bool) -> String {
    let renderer = if color {
        Renderer::styled()
    } else {
        Renderer::plain()
    };
    let mut out = String::new();
    for report in reports {
        let path = escape_controls(&report.path, &[]);
        for f in &report.findings {
            let level = match f.severity {
                Severity::Error => Level::ERROR,
                Severity::Warning => Level::WARNING,
                Severity::Note => Level::NOTE,
            };
            let source = report
                .lines
                .get(&f.line)
                .map(|l| shorten(&escape_controls(l.trim_end(), &[])))
                .unwrap_or_default();
            let help = format!("see `lineage rules {}`", f.rule);
            let message = escape_controls(&f.message, &[]);
            let title = level.primary_title(message.as_ref()).id(f.rule.as_str());
            let group = if source.is_empty() {
                title.element(Level::NOTE.message(format!("at {path}:{}", f.line)))
            } else {
                title.element(
                    Snippet::source(source.as_str())
                        .line_start(f.line)
                        .path(path.as_ref())
                        .annotation(AnnotationKind::Primary.span(focus(&source))),
                )
            };
            let group = group.element(Level::HELP.message(help.as_str()));
            let _ = writeln!(out, "{}\n", renderer.render(&[group]));
        }
    }
    for report in reports {
        if let Some((spec, shapes)) = report.revision
            && shapes_differ(spec, shapes)
        {
            let path = escape_controls(&report.path, &[]);
            let _ = writeln!(
                out,
                "note: {path}: checked against the Subagent Sessions RFD revision {spec}, but its shapes match {shapes} (see `--spec`)\n"
            );
        }
    }
    let (errors, warnings) = counts(reports);
    let notes = reports
        .iter()
        .flat_map(|r| &r.findings)
        .filter(|f| f.severity == Severity::Note)
        .count();
    let failed = reports.iter().filter(|r| r.error.is_some()).count();
    let _ = write!(
        out,
        "checked {} file(s): {errors} error(s), {warnings} warning(s), {notes} note(s)",
        reports.len() - failed
    );
    if failed > 0 {
        let _ = write!(out, "; {failed} could not be checked");
    }
    out.push('\n');
    out
}

/// Do a stream's shapes belong to another revision than the one checked against (a
/// draft, or a later revision's shapes)?
fn shapes_differ(spec: Revision, shapes: Shapes) -> bool {
    match shapes {
        Shapes::Draft0831 | Shapes::Draft0915 => true,
        Shapes::Seed => false,
        Shapes::Oct01 => spec == Revision::Seed,
        Shapes::Final => spec != Revision::Final,
    }
}

/// The part of a record to underline: its `sessionUpdate` kind, else its method, else
/// its response id, else the whole (short) line.
fn focus(source: &str) -> std::ops::Range<usize> {
    for key in ["\"sessionUpdate\":\"", "\"method\":\"", "\"id\":"] {
        if let Some(start) = source.find(key) {
            let value = start + key.len();
            let end = source
                .get(value..)
                .and_then(|rest| rest.find(['"', ',', '}']))
                .map_or(source.len(), |i| {
                    value + i + usize::from(key.ends_with('"'))
                });
            return start..end.min(source.len());
        }
    }
    0..source.len()
}

/// The first characters of a (long, single-line JSON) record.
fn shorten(line: &str) -> String {
    let mut s: String = line.chars().take(SNIPPET_CHARS).collect();
    if s.len() < line.len() {
        s.push('…');
    }
    s
}

fn counts(reports: &[FileReport]) -> (usize, usize) {
    let all = || reports.iter().flat_map(|r| &r.findings);
    (
        all().filter(|f| f.severity == Severity::Error).count(),
        all().filter(|f| f.severity == Severity::Warning).count(),
    )
}

/// docs/contract.md: `{"files":[{"path","format","findings":[…]}],"summary":{"files","errors","warnings"}}`.
pub fn json(reports: &[FileReport]) -> String {
    let files: Vec<CheckedFile<'_>> = reports
        .iter()
        .map(|r| CheckedFile {
            path: &r.path,
            format: r.format,
            findings: &r.findings,
            error: r.error.as_deref(),
            revision: r.revision,
        })
        .collect();
    let mut text = check_json_string(&files, true);
    text.push('\n');
    text
}

/// JUnit XML: one test suite per file, one test case per finding (a failure when it
/// fails the run, described with its catalogue summary), or one passing `conformance`
/// case for a clean file.
pub fn junit(reports: &[FileReport], deny_warnings: bool) -> String {
    let mut report = Report::new("lineage check");
    for r in reports {
        let mut suite = TestSuite::new(r.path.as_str());
        if let Some(error) = &r.error {
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
            status.set_message(error.as_str()).set_type("unreadable");
            let mut case = TestCase::new("read", status);
            case.set_classname(r.path.as_str());
            suite.add_test_case(case);
        } else if r.findings.is_empty() {
            let mut case = TestCase::new("conformance", TestCaseStatus::success());
            case.set_classname(r.path.as_str());
            suite.add_test_case(case);
        }
        for f in &r.findings {
            let fails =
                f.severity == Severity::Error || (deny_warnings && f.severity == Severity::Warning);
            let status = if fails {
                let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
                status
                    .set_message(f.message.as_str())
                    .set_type(f.rule.as_str())
                    .set_description(format!(
                        "{}:{}: {}[{}]: {}\nsee `lineage rules {}`",
                        r.path,
                        f.line,
                        f.severity,
                        f.rule,
                        f.rule.rule().summary,
                        f.rule
                    ));
                status
            } else {
                TestCaseStatus::success()
            };
            let mut case = TestCase::new(format!("{} (line {})", f.rule, f.line), status);
            case.set_classname(r.path.as_str());
            if !fails {
                case.set_system_out(format!("{}: {}", f.severity, f.message));
            }
            suite.add_test_case(case);
        }
        report.add_test_suite(suite);
    }
    report.to_string().unwrap_or_default()
}

/// A rule's SARIF help: the specification text it enforces, then its example.
fn help_text(r: &lineage_core::finding::Rule) -> String {
    let mut text = String::new();
    if !r.quote.is_empty() {
        let _ = write!(text, "{}: {}\n\n", r.source, r.quote);
    }
    let _ = write!(text, "Example:\n{}", r.example);
    if let Some((_, definition, example)) = r.in_provider_traces() {
        let _ = write!(
            text,
            "\n\nIn provider traces: {definition}\nExample:\n{example}"
        );
    }
    text
}

fn sarif_level(severity: Severity) -> sarif::ResultLevel {
    match severity {
        Severity::Error => sarif::ResultLevel::Error,
        Severity::Warning => sarif::ResultLevel::Warning,
        Severity::Note => sarif::ResultLevel::Note,
    }
}

/// SARIF 2.1.0: one run whose driver lists every rule (stable `ruleId`s, default level,
/// definition); one result per finding located at `file:line`.
pub fn sarif(reports: &[FileReport]) -> String {
    let rules: Vec<sarif::ReportingDescriptor> = catalogue()
        .iter()
        .map(|r| {
            sarif::ReportingDescriptor::builder()
                .id(r.id)
                .short_description(
                    sarif::MultiformatMessageString::builder()
                        .text(r.summary)
                        .build(),
                )
                .full_description(
                    sarif::MultiformatMessageString::builder()
                        .text(r.definition)
                        .build(),
                )
                .help(
                    sarif::MultiformatMessageString::builder()
                        .text(help_text(r))
                        .build(),
                )
                .default_configuration(
                    sarif::ReportingConfiguration::builder()
                        .level(json!(sarif_level(r.level)))
                        .build(),
                )
                .build()
        })
        .collect();
    // `rules[]` is the catalogue in `Code::ALL` order, so a code's position is its index.
    let rule_index = |code: Code| {
        Code::ALL
            .iter()
            .position(|c| *c == code)
            .and_then(|i| i64::try_from(i).ok())
    };
    let results: Vec<sarif::Result> = reports
        .iter()
        .flat_map(|r| r.findings.iter().map(move |f| (r, f)))
        .map(|(r, f)| {
            let location = sarif::Location::builder()
                .physical_location(
                    sarif::PhysicalLocation::builder()
                        .artifact_location(artifact(&r.path))
                        .region(
                            sarif::Region::builder()
                                .start_line(i64::try_from(f.line).unwrap_or(i64::MAX))
                                .build(),
                        )
                        .build(),
                )
                .build();
            let result = sarif::Result::builder()
                .rule_id(f.rule.as_str())
                .level(sarif_level(f.severity))
                .message(sarif::Message::builder().text(f.message.as_str()).build())
                .locations(vec![location]);
            match rule_index(f.rule) {
                Some(i) => result.rule_index(i).build(),
                None => result.build(),
            }
        })
        .collect();
    let driver = sarif::ToolComponent::builder()
        .name("lineage")
        .version(env!("CARGO_PKG_VERSION"))
        .information_uri(env!("CARGO_PKG_REPOSITORY"))
        .rules(rules)
        .build();
    let tool = sarif::Tool::builder().driver(driver).build();
    let run = match sarif_invocation(reports) {
        Some(invocation) => sarif::Run::builder()
            .tool(tool)
            .results(results)
            .invocations(vec![invocation])
            .build(),
        None => sarif::Run::builder().tool(tool).results(results).build(),
    };
    let log = sarif::Sarif::builder()
        .version(json!("2.1.0"))
        .schema("https://json.schemastore.org/sarif-2.1.0.json")
        .runs(vec![run])
        .build();
    let mut text = serde_json::to_string_pretty(&log).unwrap_or_default();
    text.push('\n');
    text
}

/// The files that could not be checked, as SARIF tool-execution notifications of an
/// unsuccessful invocation (none when every file was checked).
fn sarif_invocation(reports: &[FileReport]) -> Option<sarif::Invocation> {
    let notes: Vec<sarif::Notification> = reports
        .iter()
        .filter_map(|r| Some((r, r.error.as_deref()?)))
        .map(|(r, error)| {
            let location = sarif::Location::builder()
                .physical_location(
                    sarif::PhysicalLocation::builder()
                        .artifact_location(artifact(&r.path))
                        .build(),
                )
                .build();
            sarif::Notification::builder()
                .level(json!("error"))
                .message(sarif::Message::builder().text(error).build())
                .locations(vec![location])
                .build()
        })
        .collect();
    (!notes.is_empty()).then(|| {
        sarif::Invocation::builder()
            .execution_successful(false)
            .tool_execution_notifications(notes)
            .build()
    })
}

fn artifact(path: &str) -> sarif::ArtifactLocation {
    sarif::ArtifactLocation::builder()
        .uri(uri_reference(path))
        .build()
}

/// A path as a URI reference (RFC 3986): `/` separates segments; every byte but the
/// unreserved characters (`A-Z a-z 0-9 - . _ ~`) is percent-encoded, so a space, `#`,
/// `%`, `:` or non-ASCII character keeps its meaning as part of the file name.
fn uri_reference(path: &str) -> String {
    let mut uri = String::with_capacity(path.len());
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            uri.push(char::from(byte));
        } else {
            let _ = write!(uri, "%{byte:02X}");
        }
    }
    uri
}

/// GitHub Actions workflow commands: `::error file=…,line=…,title=<rule>::<message>`.
pub fn github(reports: &[FileReport]) -> String {
    let mut out = String::new();
    for r in reports {
        if let Some(error) = &r.error {
            let _ = writeln!(
                out,
                "::error file={}::{}",
                escape_property(&r.path),
                escape_data(error)
            );
        }
        for f in &r.findings {
            let command = match f.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Note => "notice",
            };
            let _ = writeln!(
                out,
                "::{command} file={},line={},title={}::{}",
                escape_property(&r.path),
                f.line,
                escape_property(f.rule.as_str()),
                escape_data(&f.message)
            );
        }
    }
    out
}

/// Workflow-command data encoding (`@actions/core`'s `escapeData`), after control
/// characters other than line breaks are escaped (a runner log renders ANSI sequences).
fn escape_data(s: &str) -> String {
    let s = escape_controls(s, &['\n', '\r']);
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Workflow-command property encoding (`@actions/core`'s `escapeProperty`).
fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workflow_command_encoding_matches_actions_core() {
        assert_eq!(escape_data("50% done\r\nnext"), "50%25 done%0D%0Anext");
        assert_eq!(escape_property("a:b,c%"), "a%3Ab%2Cc%25");
    }

    #[test]
    fn paths_become_uri_references() {
        assert_eq!(uri_reference("traces/acp/a.jsonl"), "traces/acp/a.jsonl");
        assert_eq!(
            uri_reference("/tmp/my trace#1 100%é:x.jsonl"),
            "/tmp/my%20trace%231%20100%25%C3%A9%3Ax.jsonl"
        );
    }

    #[test]
    fn the_snippet_underlines_the_update_kind_or_method() {
        let line = r#"{"from":"client","message":{"id":5,"method":"session/prompt","params":{}}}"#;
        assert_eq!(line.get(focus(line)), Some(r#""method":"session/prompt""#));
        let line = r#"{"from":"agent","message":{"id":5,"result":{}}}"#;
        assert_eq!(line.get(focus(line)), Some(r#""id":5"#));
        assert_eq!(focus("not json"), 0..8);
    }

    #[test]
    fn long_lines_are_shortened_on_a_char_boundary() {
        let long = "é".repeat(200);
        let s = shorten(&long);
        assert_eq!(s.chars().count(), SNIPPET_CHARS + 1);
        assert!(s.ends_with('…'));
        assert_eq!(shorten("short"), "short");
    }
}
