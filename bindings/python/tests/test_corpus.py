"""For every trace of the corpus, the engine fed line by line from Python gives what the
command gives: `snapshot()` after `finish()` is `lineage replay --format json`, and the
changes and findings of each `push()` (then of `finish()`) are the `change` and
`finding` lines of `lineage replay --format changes`, at the same lines, in order."""

from __future__ import annotations

import json

import pytest

import lineage
from conftest import ROOT, corpus, physical_lines, run_cli

TRACES = corpus()


def stream_items(text: str) -> list[tuple[int, str, dict]]:
    """The change and finding lines of a change stream, as (line, kind, value)."""
    items = []
    for raw in text.splitlines():
        line = json.loads(raw)
        assert line["v"] == 1
        for kind in ("change", "finding"):
            if kind in line:
                items.append((line["line"], kind, line[kind]))
    return items


def pushed_items(engine: lineage.Engine, output: dict) -> list[tuple[int, str, dict]]:
    line = engine.line
    return [(line, "change", c) for c in output["changes"]] + [
        (line, "finding", f) for f in output["findings"]
    ]


def test_the_corpus_is_there():
    assert len(TRACES) > 200, TRACES


@pytest.mark.parametrize("trace", TRACES, ids=lambda p: str(p.relative_to(ROOT / "traces")))
def test_engine_matches_the_command(trace, lineage_bin):
    code, document = run_cli(lineage_bin, "replay", trace, "--format", "json")
    changes_code, stream = run_cli(lineage_bin, "replay", trace, "--format", "changes")
    assert code == changes_code
    engine = lineage.Engine()
    items = []
    try:
        for line in physical_lines(trace.read_bytes()):
            items += pushed_items(engine, engine.push(line))
        items += pushed_items(engine, engine.finish())
    except lineage.LineageError as error:
        # The command refuses the same traces (exit 2: a usage error, no document).
        assert code == 2, f"{trace}: {error.code}: {error}"
        return
    assert code in (0, 1), f"{trace}: the command exited {code} where the engine read it"
    assert engine.snapshot() == json.loads(document)
    assert items == stream_items(stream)
