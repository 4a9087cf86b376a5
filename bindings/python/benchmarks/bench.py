"""The Python binding's costs, as ratios (never as timed tests):

1. push: seconds to push a generated trace line by line through ``lineage.Engine.push``
   (a ``str`` in, the changes and findings as Python objects out) divided by the seconds
   the Rust engine takes for the same lines in the same build (target: at most 1.5);
2. check_paths: files checked per second with 2 workers divided by with 1 (target: at
   least 1.7 on a 2-core machine).

Usage: python benchmarks/bench.py [--lineage PATH] [--records N] [--files N]
The traces are written by ``lineage gen`` into a temporary folder.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import lineage
from lineage import _lineage

FORMATS = ["canonical", "codex-app-server", "claude-sdk", "acp"]


def gen(binary: str, fmt: str, shape: str, seed: int, out: Path) -> Path:
    subprocess.run(
        [binary, "gen", "--format", fmt, "--shape", shape, "--seed", str(seed), "-o", str(out)],
        check=True,
    )
    return out


def python_push_seconds(lines: list[str], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        engine = lineage.Engine()
        start = time.perf_counter()
        for line in lines:
            engine.push(line)
        best = min(best, time.perf_counter() - start)
    return best


def push_ratios(binary: str, folder: Path, records: int, repeat: int) -> None:
    print(f"push cost, Python / Rust (long:{records}, best of {repeat}; target <= 1.5)")
    for fmt in FORMATS:
        path = gen(binary, fmt, f"long:{records}", 1, folder / f"{fmt}.jsonl")
        raw = path.read_bytes().split(b"\n")
        if raw and raw[-1] == b"":
            raw.pop()
        text = [line.decode("utf-8") for line in raw]
        rust = _lineage._rust_push_seconds(raw, repeat)
        python = python_push_seconds(text, repeat)
        per_line = python / len(raw) * 1e6
        print(f"  {fmt:17} {len(raw):6} lines  rust {rust:7.3f}s  python {python:7.3f}s"
              f"  ({per_line:5.1f} us/line)  ratio {python / rust:5.2f}")


def check_ratio(binary: str, folder: Path, files: int, repeat: int) -> None:
    corpus = folder / "corpus"
    corpus.mkdir()
    paths = []
    for k in range(files):
        fmt = FORMATS[k % len(FORMATS)]
        paths.append(gen(binary, fmt, "long:400", k + 1, corpus / f"{k:05}-{fmt}.jsonl"))
    best = {}
    for workers in (1, 2):
        seconds = float("inf")
        for _ in range(repeat):
            start = time.perf_counter()
            reports = lineage.check_paths(paths, workers=workers)
            seconds = min(seconds, time.perf_counter() - start)
        assert len(reports) == files
        best[workers] = seconds
        print(f"  check_paths workers={workers}: {files / seconds:8.1f} files/s")
    print(f"check_paths throughput, 2 workers / 1 (target >= 1.7): {best[1] / best[2]:.2f}"
          f"  ({os.cpu_count()} cores)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lineage", default=shutil.which("lineage") or "lineage")
    parser.add_argument("--records", type=int, default=20_000)
    parser.add_argument("--files", type=int, default=400)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        push_ratios(args.lineage, Path(tmp), args.records, args.repeat)
        check_ratio(args.lineage, Path(tmp), args.files, args.repeat)


if __name__ == "__main__":
    main()
