"""Checks a corpus of traces with dask.distributed and writes one report.

    python dask_check.py CORPUS... [--scheduler tcp://host:8786] [--batch 500]
                         [--sarif out.sarif] [--junit out.xml] [--json out.json]

The files are split into batches of ``--batch``; each batch is one Dask task that runs
``lineage.check_paths`` on a worker (Rust threads, the interpreter released) and sends
back its file reports (picklable). The reports are put back in the files' order and
rendered once with ``lineage.report``, so the SARIF, JUnit and JSON reports are the
ones ``lineage check --format sarif|junit|json`` prints for the same files, byte for
byte, however many machines did the work.

Without ``--scheduler`` a ``LocalCluster`` is started on this machine (``--workers``
processes of one thread). Folders are walked for ``*.jsonl`` files, sorted by name,
depth first. Each file is checked on its own, as ``lineage check FILE...`` does: give a
native source folder (a Codex ``sessions/`` folder, a Claude Code project) to ``lineage
check`` itself, which reads its files together as one tree.

Exit code: 0 clean, 1 a finding at error level (or a warning with ``--deny-warnings``),
2 a file that could not be checked, as ``lineage check``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Iterable, Optional

import lineage


def corpus_files(paths: Iterable[str]) -> list[str]:
    """The files of the arguments: a file as given, a folder's ``*.jsonl`` files by name,
    depth first."""
    files = []
    for path in paths:
        if not os.path.isdir(path):
            files.append(path)
            continue
        stack = [path]
        while stack:
            folder = stack.pop()
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
            for entry in entries:
                if entry.is_file() and entry.name.endswith(".jsonl"):
                    files.append(entry.path)
            stack.extend(e.path for e in reversed(entries) if e.is_dir())
    return files


def batches(files: list[str], size: int) -> list[list[str]]:
    return [files[k : k + size] for k in range(0, len(files), size)]


def check_batch(files: list[str], spec: Optional[str], threads: int) -> list[lineage.FileReport]:
    """One task: the reports of a batch, in its order."""
    return lineage.check_paths(files, workers=threads, spec=spec)


def check_corpus(client, files: list[str], batch: int, spec: Optional[str] = None,
                 threads: int = 1) -> list[lineage.FileReport]:
    """Every file's report, in the files' order, checked by the cluster behind ``client``."""
    futures = client.map(check_batch, batches(files, batch), spec=spec, threads=threads,
                         pure=False)
    reports: list[lineage.FileReport] = []
    for part in client.gather(futures):
        reports.extend(part)
    return reports


def connect(scheduler: Optional[str], workers: int):
    """A client of the given scheduler, or of a new LocalCluster."""
    from dask.distributed import Client, LocalCluster

    if scheduler:
        return Client(scheduler), None
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                           dashboard_address=None)
    return Client(cluster), cluster


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--scheduler", help="a Dask scheduler address (default: a LocalCluster)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                        help="LocalCluster worker processes")
    parser.add_argument("--batch", type=int, default=500, help="files per task")
    parser.add_argument("--threads", type=int, default=1, help="check_paths threads per task")
    parser.add_argument("--spec", help="the RFD revision to check ACP traces against")
    parser.add_argument("--sarif", type=Path)
    parser.add_argument("--junit", type=Path)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--deny-warnings", action="store_true")
    args = parser.parse_args(argv)

    files = corpus_files(args.paths)
    client, cluster = connect(args.scheduler, args.workers)
    try:
        start = time.perf_counter()
        reports = check_corpus(client, files, args.batch, args.spec, args.threads)
        seconds = time.perf_counter() - start
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    for fmt, out in (("sarif", args.sarif), ("junit", args.junit), ("json", args.json)):
        if out is not None:
            out.write_text(lineage.report(reports, fmt, deny_warnings=args.deny_warnings))
    per_file = seconds / max(len(files), 1) * 1e6
    print(f"{len(files)} files in {seconds:.2f}s ({per_file:.0f} us per file)", file=sys.stderr)
    if any(r.error for r in reports):
        return 2
    failing = {"error", "warning"} if args.deny_warnings else {"error"}
    return 1 if any(f["severity"] in failing for r in reports for f in r.findings) else 0


if __name__ == "__main__":
    sys.exit(main())
