"""Shared fixtures: the repository, the `lineage` binary the bindings are compared with,
and the trace corpus."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


def corpus() -> list[Path]:
    """Every trace of `traces/` (one per scenario and rule) and `traces/real/` (the real
    programs' recordings)."""
    folders = ["acp", "canonical", "claude", "codex", "real"]
    return sorted(p for f in folders for p in (ROOT / "traces" / f).rglob("*.jsonl"))


def _lineage_binary() -> Path:
    given = os.environ.get("LINEAGE_BIN")
    if given:
        return Path(given)
    for profile in ("release", "debug"):
        built = ROOT / "target" / profile / "lineage"
        if built.exists():
            return built
    found = shutil.which("lineage")
    if found:
        return Path(found)
    subprocess.run(["cargo", "build", "--locked", "--bin", "lineage"], cwd=ROOT, check=True)
    return ROOT / "target" / "debug" / "lineage"


@pytest.fixture(scope="session")
def lineage_bin() -> Path:
    return _lineage_binary()


def run_cli(binary: Path, *args: str | os.PathLike, cwd: Path | None = None):
    """Runs the command; returns (exit code, stdout text)."""
    done = subprocess.run(
        [str(binary), *map(str, args)], capture_output=True, cwd=cwd, check=False
    )
    return done.returncode, done.stdout.decode("utf-8")


def physical_lines(data: bytes) -> list[bytes]:
    """A file's physical lines as the command reads them (`\\n` or `\\r\\n` ends one)."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return [line[:-1] if line.endswith(b"\r") else line for line in lines]
