"""Stubs of the extension module ``lineage._lineage`` (the Rust engine)."""

from typing import Any, Optional, TypedDict

__version__: str

class Finding(TypedDict):
    line: int
    rule: str
    severity: str  # "error" | "warning" | "note"
    message: str

class Pushed(TypedDict):
    """What a push caused: the changes (each as a ``change`` of ``replay --format
    changes``; see docs/changes.md and docs/changes.schema.json), then the findings."""

    changes: list[dict[str, Any]]
    findings: list[Finding]

class Engine:
    """One trace, pushed record by record. Safe to share between threads: calls take
    turns, with the interpreter released while the engine works."""

    def __init__(
        self,
        format: Optional[str] = None,
        spec: Optional[str] = None,
        transcripts: Optional[bool] = None,
        root_thread: Optional[str] = None,
    ) -> None: ...
    def push(self, line_or_dict: str | bytes | bytearray | dict[str, Any], at: Optional[int] = None) -> Pushed: ...
    def poll_timeout(self) -> Optional[int]: ...
    def handle_timeout(self, now: int) -> Pushed: ...
    def snapshot(self) -> dict[str, Any]: ...
    def finish(self) -> Pushed: ...
    @property
    def format(self) -> Optional[str]: ...
    @property
    def line(self) -> int: ...
    @property
    def finished(self) -> bool: ...

class FileReport:
    """One checked file (or one that could not be checked); picklable."""

    @property
    def path(self) -> str: ...
    @property
    def format(self) -> Optional[str]: ...
    @property
    def findings(self) -> list[Finding]: ...
    @property
    def error(self) -> Optional[str]: ...
    def to_dict(self) -> dict[str, Any]: ...

def _replay(
    path: Optional[str],
    text: Optional[str],
    format: Optional[str],
    spec: Optional[str],
    session: Optional[str],
    root_thread: Optional[str],
    at: Optional[int],
) -> dict[str, Any]: ...
def _changes(
    path: Optional[str],
    text: Optional[str],
    format: Optional[str],
    spec: Optional[str],
    session: Optional[str],
    root_thread: Optional[str],
    at: Optional[int],
) -> list[dict[str, Any]]: ...
def _check(inputs: list[tuple[Optional[str], Optional[str]]], spec: Optional[str]) -> dict[str, Any]: ...
def _convert(
    path: Optional[str],
    text: Optional[str],
    to: str,
    format: Optional[str],
    session: Optional[str],
    client_caps: str,
    prompt_response: str,
    reconnect: bool,
) -> str: ...
def _check_paths(paths: list[str], workers: Optional[int], spec: Optional[str]) -> list[FileReport]: ...
def _report(reports: list[FileReport], format: str, deny_warnings: bool) -> str: ...
def _rust_push_seconds(lines: list[bytes], repeat: int = 3) -> float: ...
