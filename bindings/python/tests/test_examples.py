"""The examples run: `follow.py` on a folder that grows while it runs, and
`dask_check.py` on a LocalCluster of two workers over 1,000 generated files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conftest import ROOT, run_cli

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
CODEX = ROOT / "traces" / "real-native" / "codex" / "02-two-children" / "sessions"


def read_until(process, done, timeout=60.0):
    """Lines of the process's output until `done(lines)` holds."""
    lines = []
    deadline = time.monotonic() + timeout
    os.set_blocking(process.stdout.fileno(), False)
    while not done(lines):
        assert time.monotonic() < deadline, f"no end in sight; read {lines}"
        chunk = process.stdout.readline()
        if chunk:
            lines.append(json.loads(chunk))
        else:
            time.sleep(0.05)
    return lines


def fold(lines):
    """What a consumer holds: the lines since the last reset."""
    held = []
    for line in lines:
        held = [] if line.get("reset") else held + [line]
    return held


def test_follow_prints_the_changes_of_a_growing_folder(tmp_path, lineage_bin):
    folder = tmp_path / "sessions"
    files = sorted(CODEX.rglob("*.jsonl"))
    halves = {}
    for source in files:
        target = folder / source.relative_to(CODEX)
        target.parent.mkdir(parents=True, exist_ok=True)
        lines = source.read_bytes().splitlines(keepends=True)
        cut = max(1, len(lines) // 2)
        target.write_bytes(b"".join(lines[:cut]))
        halves[target] = b"".join(lines[cut:])
    process = subprocess.Popen(
        [sys.executable, str(EXAMPLES / "follow.py"), str(folder), "--interval", "0.1"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        first = read_until(process, lambda lines: len(lines) > 0)
        for target, rest in halves.items():  # the program writes on
            with target.open("ab") as out:
                out.write(rest)
        code, stream = run_cli(lineage_bin, "replay", folder, "--format", "changes", "--at", "1000000000")
        expected = [
            json.loads(l) for l in stream.splitlines() if '"change"' in l or '"finding"' in l
        ]
        assert len(expected) > len(first)
        later = read_until(process, lambda lines: fold(first + lines) == expected)
    finally:
        process.terminate()
        process.wait(timeout=10)
    assert fold(first + later) == expected


def generate_corpus(binary, folder: Path, count: int) -> list[Path]:
    """`count` generated traces of every format and shape; every tenth one gets a
    malformed last line, so the reports have findings."""
    formats = ["canonical", "codex-app-server", "claude-sdk", "acp"]
    shapes = ["wide:3", "deep:3", "long:30"]
    folder.mkdir()

    def one(k: int) -> Path:
        fmt, shape = formats[k % 4], shapes[(k // 4) % 3]
        path = folder / f"{k:05}-{fmt}.jsonl"
        subprocess.run([str(binary), "gen", "--format", fmt, "--shape", shape,
                        "--seed", str(k + 1), "-o", str(path)], check=True)
        if k % 10 == 0:
            with path.open("a") as out:
                out.write("{not json\n")
        return path

    with ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(one, range(count)))


@pytest.mark.dask
def test_dask_check_reports_as_the_command(tmp_path, lineage_bin):
    pytest.importorskip("dask.distributed")
    files = generate_corpus(lineage_bin, tmp_path / "corpus", 1000)
    sarif, junit = tmp_path / "out.sarif", tmp_path / "out.xml"
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "dask_check.py"), str(tmp_path / "corpus"),
         "--workers", "2", "--batch", "100", "--sarif", str(sarif), "--junit", str(junit)],
        capture_output=True, text=True, check=False,
    )
    assert done.returncode == 1, done.stderr  # the malformed lines are errors
    for fmt, out in (("sarif", sarif), ("junit", junit)):
        code, text = run_cli(lineage_bin, "check", "--format", fmt, *files)
        assert code == 1
        assert out.read_text() == text
