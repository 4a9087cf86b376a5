"""Follows a native source folder as the program writes it and prints its changes.

    python follow.py ~/.codex/sessions            # a Codex sessions folder
    python follow.py ~/.claude/projects/-my-repo  # a Claude Code project folder

Every ``--interval`` seconds the folder's ``*.jsonl`` files are looked at; when one grew
(or a new one appeared), the folder is read again with ``lineage.changes`` and the lines
not yet printed are printed: one JSON object per line, the lines of ``lineage replay
--format changes`` (``{"v":1,"line":…,"change":{…}}``, ``{"v":1,"line":…,"finding":
{…}}``). The folder is read as a cut (``at``): what only the end of a trace can tell
(a request never answered) is not said while the program is still writing.

Records are merged across a tree's files by time, so a record written late may belong
before lines already printed; then ``{"reset": true}`` is printed, followed by every
line again, and a consumer starts its copy over. ``--session ROOT`` picks one tree of a
folder holding several. ``--idle-exit N`` stops after N seconds without a change (for
scripts and tests); by default it runs until interrupted.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Optional

import lineage

# A cut past any real trace's last line: everything read so far, as `--at` shows it.
EVERYTHING = 2**62


def signature(folder: Path) -> tuple:
    """What changes when a program writes: each JSONL file's size and modification time."""
    files = []
    for path in sorted(folder.rglob("*.jsonl")):
        try:
            stat = path.stat()
        except OSError:  # removed while we looked
            continue
        files.append((str(path), stat.st_size, stat.st_mtime_ns))
    return tuple(files)


def read(folder: Path, session: Optional[str]) -> Optional[list[dict]]:
    """The change and finding lines of the folder as it stands; None while it holds no
    trace lineage can read yet (no file, a first line half written)."""
    try:
        lines = lineage.changes(folder, session=session, at=EVERYTHING)
    except lineage.LineageError:
        return None
    return [line for line in lines if "change" in line or "finding" in line]


class Follower:
    """The lines printed so far, and what to print when the folder has changed."""

    def __init__(self, folder: Path, session: Optional[str], out=sys.stdout) -> None:
        self.folder = folder
        self.session = session
        self.out = out
        self.printed: list[dict] = []

    def step(self) -> int:
        lines = read(self.folder, self.session)
        if lines is None:
            return 0
        if lines[: len(self.printed)] != self.printed:
            self.emit({"reset": True})
            self.printed = []
        fresh = lines[len(self.printed):]
        for line in fresh:
            self.emit(line)
        self.printed = lines
        self.out.flush()
        return len(fresh)

    def emit(self, line: dict) -> None:
        self.out.write(json.dumps(line, ensure_ascii=False) + "\n")


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--session", help="the root of the tree to follow")
    parser.add_argument("--interval", type=float, default=0.5)
    parser.add_argument("--idle-exit", type=float, help="stop after this many idle seconds")
    args = parser.parse_args(argv)
    follower = Follower(args.folder, args.session)
    seen = None
    last_change = time.monotonic()
    try:
        while True:
            now = signature(args.folder)
            if now != seen:
                seen = now
                follower.step()
                last_change = time.monotonic()
            elif args.idle_exit is not None and time.monotonic() - last_change > args.idle_exit:
                return 0
            time.sleep(args.interval)
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main())
