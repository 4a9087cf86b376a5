"""The module's functions over whole traces give the command's documents: replay,
changes, check, convert, check_paths and report, for trace files, texts and native
source folders."""

from __future__ import annotations

import json
import pickle

import pytest

import lineage
from conftest import ROOT, corpus, run_cli

TRACES = corpus()
SAMPLE = TRACES[::12]  # every format and both corpora, kept short
NATIVE = sorted(p for p in (ROOT / "traces" / "real-native").glob("*/*") if p.is_dir())


def name(path):
    return str(path.relative_to(ROOT / "traces"))


def same_outcome(code, call):
    """The call's value, or None when it raised where the command exited 2."""
    try:
        return call()
    except lineage.LineageError as error:
        assert code == 2, f"{error.code}: {error}"
        return None


@pytest.mark.parametrize("trace", SAMPLE + NATIVE, ids=name)
def test_replay_and_changes_are_the_command_s(trace, lineage_bin):
    code, document = run_cli(lineage_bin, "replay", trace, "--format", "json")
    replayed = same_outcome(code, lambda: lineage.replay(trace))
    if replayed is not None:
        assert replayed == json.loads(document)
    code, stream = run_cli(lineage_bin, "replay", trace, "--format", "changes")
    lines = same_outcome(code, lambda: lineage.changes(trace))
    if lines is not None:
        assert lines == [json.loads(line) for line in stream.splitlines()]


@pytest.mark.parametrize("trace", SAMPLE[:6], ids=name)
def test_a_text_is_read_as_its_file(trace):
    text = trace.read_text(encoding="utf-8")
    assert lineage.replay(text) == lineage.replay(trace)
    assert lineage.replay(str(trace)) == lineage.replay(trace)


def test_check_is_the_command_s(lineage_bin):
    paths = SAMPLE + NATIVE[:3]
    code, document = run_cli(lineage_bin, "check", "--format", "json", *paths)
    assert lineage.check(paths) == json.loads(document)
    code, document = run_cli(lineage_bin, "check", "--format", "json", SAMPLE[0])
    assert lineage.check(SAMPLE[0]) == json.loads(document)


@pytest.mark.parametrize("to", ["acp-v1", "acp-v2", "canonical"])
def test_convert_is_the_command_s(to, lineage_bin):
    for trace in [p for p in SAMPLE if "/acp/" not in str(p) and "acp" not in p.parent.name][:4]:
        code, text = run_cli(lineage_bin, "convert", trace, "--to", to)
        converted = same_outcome(code, lambda: lineage.convert(trace, to=to))
        if converted is not None:
            assert converted == text


@pytest.mark.parametrize("fmt", ["json", "sarif", "junit", "github"])
def test_check_paths_reports_are_the_command_s(fmt, lineage_bin):
    paths = TRACES[:40] + NATIVE[:2]
    code, text = run_cli(lineage_bin, "check", "--format", fmt, *paths)
    reports = lineage.check_paths(paths, workers=2)
    assert lineage.report(reports, fmt) == text


def test_check_paths_keeps_the_order_of_its_paths():
    paths = TRACES[:60]
    one = lineage.check_paths(paths, workers=1)
    two = lineage.check_paths(reversed(paths), workers=2)
    assert [r.path for r in one] == [str(p) for p in paths]
    assert [r.to_dict() for r in one] == [r.to_dict() for r in reversed(two)]


def test_a_file_report_pickles():
    reports = lineage.check_paths(TRACES[:30] + [ROOT / "missing.jsonl"])
    back = pickle.loads(pickle.dumps(reports))
    assert [r.to_dict() for r in back] == [r.to_dict() for r in reports]
    for fmt in ("sarif", "junit", "human"):
        assert lineage.report(back, fmt) == lineage.report(reports, fmt)
    assert back[-1].error and back[-1].format is None


def test_errors_are_typed():
    with pytest.raises(lineage.UsageError) as error:
        lineage.replay(ROOT / "missing.jsonl")
    assert error.value.code == "unreadable"
    with pytest.raises(lineage.FormatError) as error:
        lineage.replay('{"hello":"world"}\n')
    assert error.value.code == "unknown-format"
    with pytest.raises(lineage.FormatError) as error:
        lineage.replay("\n\n")
    assert error.value.code == "empty-input"
    with pytest.raises(lineage.UsageError):
        lineage.replay(42)
    with pytest.raises(lineage.UsageError):
        lineage.check_paths(TRACES[:2], workers=0)
    with pytest.raises(lineage.UsageError):
        lineage.convert(TRACES[0], to="yaml")
    with pytest.raises(lineage.UsageError):
        lineage.report([], "pdf")
