"""The engine's Python surface: inputs of every kind, time, its life, and bad input,
which gives a typed error or a finding, never a crash of the interpreter."""

from __future__ import annotations

import json
import threading

import pytest

import lineage

ROOT = '{"event":{"type":"root_session_created","session":"R"}}'
SUBMIT = '{"event":{"type":"user_submitted","session":"R","text":"go"}}'

# A Claude Code run whose last background child completed at 20 s: the root may continue
# for 30 s, so the engine asks for time until 50 s (the core's `poll_timeout` example).
CLAUDE = [
    '{"lineage":"trace","format":"claude-sdk","version":1}',
    '{"from":"host","message":{"type":"user","message":{"role":"user","content":"go"},"session_id":""},"at":1000}',
    '{"from":"cli","message":{"type":"system","subtype":"init","session_id":"S"},"at":1001}',
    '{"from":"cli","message":{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Agent","input":{"prompt":"p","run_in_background":true}}]},"parent_tool_use_id":null,"session_id":"S"},"at":1002}',
    '{"from":"cli","message":{"type":"system","subtype":"task_started","task_id":"k","tool_use_id":"t1","is_backgrounded":true,"session_id":"S"},"at":1003}',
    '{"from":"cli","message":{"type":"result","subtype":"success","is_error":false,"session_id":"S"},"at":1004}',
]
LAST_CHILD_DONE = '{"from":"cli","message":{"type":"system","subtype":"task_notification","task_id":"k","tool_use_id":"t1","status":"completed","session_id":"S"}}'


def root_phase(engine: lineage.Engine) -> str:
    return engine.snapshot()["sessions"][0]["turns"][0]["phase"]


def test_push_returns_the_changes_and_findings():
    engine = lineage.Engine()
    out = engine.push(ROOT)
    assert out == {
        "changes": [
            {"type": "session_created", "session": "R", "kind": "root", "parent": None,
             "root": None, "title": None}
        ],
        "findings": [],
    }
    assert (engine.format, engine.line) == ("canonical", 1)
    out = engine.push("{oops")
    assert [(f["line"], f["rule"]) for f in out["findings"]] == [(2, "malformed-record")]


def test_a_dict_is_the_line_json_dumps_writes():
    by_line, by_dict = lineage.Engine(), lineage.Engine()
    for text in (ROOT, SUBMIT):
        assert by_dict.push(json.loads(text)) == by_line.push(text)
    assert by_dict.snapshot() == by_line.snapshot()


def test_time_is_an_input():
    engine = lineage.Engine()
    for line in CLAUDE:
        engine.push(line)
        assert engine.poll_timeout() is None
    engine.push(LAST_CHILD_DONE, at=20_000)  # `at` becomes the record's time
    assert engine.poll_timeout() == 50_000
    assert root_phase(engine) == "running"
    assert engine.handle_timeout(49_999) == {"changes": [], "findings": []}
    out = engine.handle_timeout(50_000)
    assert "turn_settled" in [c["type"] for c in out["changes"]]
    assert (root_phase(engine), engine.poll_timeout()) == ("settled", None)


def test_options_are_read():
    codex = lineage.Engine(format="codex-app-server", root_thread="T", spec="final")
    codex.push('{"from":"server","message":{"method":"thread/started","params":{"thread":{"id":"T"}}}}')
    assert codex.format == "codex-app-server"
    with pytest.raises(lineage.UsageError) as error:
        lineage.Engine(format="yaml")
    assert error.value.code == "usage"
    with pytest.raises(lineage.UsageError):
        lineage.Engine(spec="1999-01-01")


def test_finish_ends_the_engine():
    engine = lineage.Engine()
    engine.push(ROOT)
    engine.push(SUBMIT)
    assert engine.finish() == {"changes": [], "findings": []}
    assert engine.finished
    assert engine.snapshot()["sessions"][0]["turns"][0]["phase"] == "submitted"
    for use in (lambda: engine.push(ROOT), lambda: engine.handle_timeout(1),
                engine.finish, engine.poll_timeout):
        with pytest.raises(lineage.UsageError) as error:
            use()
        assert error.value.code == "finished"


def test_a_trace_whose_format_cannot_be_told():
    engine = lineage.Engine()
    engine.push('{"hello":"world"}')
    with pytest.raises(lineage.FormatError) as error:
        engine.finish()
    assert error.value.code == "unknown-format"
    assert isinstance(error.value, lineage.LineageError)
    with pytest.raises(lineage.UsageError):
        engine.push(ROOT)


@pytest.mark.parametrize("value", [3, None, 1.5, ["a"], object(), (ROOT,)])
def test_a_value_that_is_not_a_line_is_a_usage_error(value):
    engine = lineage.Engine()
    with pytest.raises(lineage.UsageError) as error:
        engine.push(value)
    assert error.value.code == "usage"
    assert engine.push(ROOT)["changes"]  # the engine goes on


def test_a_dict_json_cannot_write_is_a_usage_error():
    with pytest.raises(lineage.UsageError):
        lineage.Engine().push({"event": {1, 2}})


def test_invalid_utf8_is_reported_at_its_line_as_in_a_file():
    engine = lineage.Engine()
    engine.push(ROOT)
    out = engine.push(b'{"event":{"type":"user_submitted","session":"R","text":"\xff"}}')
    assert [f["rule"] for f in out["findings"]] == ["invalid-utf8"]
    assert out["findings"][0]["line"] == 2
    assert engine.snapshot()["sessions"][0]["turns"], "the record still applies"
    # The same byte read with errors="surrogateescape", and a lone surrogate.
    for text in ('{"x":"\udcff"}', '{"x":"\ud800"}'):
        out = lineage.Engine(format="canonical").push(text)
        assert out["findings"][0]["rule"] == "invalid-utf8"


def test_a_50_mb_line_is_read():
    engine = lineage.Engine()
    big = '{"event":{"type":"root_session_created","session":"R","title":"' + "x" * 50_000_000 + '"}}'
    out = engine.push(big)
    assert len(out["changes"][0]["title"]) == 50_000_000
    out = engine.push("{" * 50_000_000)
    assert [f["rule"] for f in out["findings"]] == ["malformed-record"]


def test_two_threads_on_one_engine_take_turns():
    engine = lineage.Engine()
    engine.push(ROOT)
    errors = []

    def submit(k: int) -> None:
        try:
            for _ in range(200):
                engine.push({"event": {"type": "user_submitted", "session": "R", "text": str(k)}})
                engine.snapshot()
        except Exception as error:  # noqa: BLE001 - any error fails the test below
            errors.append(error)

    threads = [threading.Thread(target=submit, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert engine.line == 801
    assert len(engine.snapshot()["sessions"][0]["turns"]) == 1  # guidance joins the turn


def test_numbers_are_what_json_loads_reads(tmp_path, lineage_bin):
    """A payload's numbers keep their text in lineage; in Python they are what
    `json.loads` makes of the command's output: a big integer stays an int, 1e400 is inf."""
    from conftest import run_cli

    trace = tmp_path / "numbers.jsonl"
    trace.write_text(
        '{"from":"client","message":{"jsonrpc":"2.0","id":1,"method":"session/new","params":{}}}\n'
        '{"from":"agent","message":{"jsonrpc":"2.0","id":1,"result":{"sessionId":"R"}}}\n'
        '{"from":"agent","message":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"R",'
        '"update":{"sessionUpdate":"usage_update","used":123456789012345678901234567890,'
        '"size":1e400,"cost":{"amount":1.50,"currency":"USD"},"x":-0}}}}\n'
    )
    engine = lineage.Engine()
    changes = []
    for line in trace.read_text().splitlines():
        changes += engine.push(line)["changes"]
    usage = [c["usage"] for c in changes if c["type"] == "acp_usage_changed"]
    assert usage == [{"cost": {"amount": 1.5, "currency": "USD"}, "size": float("inf"),
                      "used": 123456789012345678901234567890, "x": 0}]
    assert isinstance(usage[0]["used"], int) and isinstance(usage[0]["cost"]["amount"], float)
    _, document = run_cli(lineage_bin, "replay", trace, "--format", "json")
    engine.finish()
    assert engine.snapshot() == json.loads(document)
