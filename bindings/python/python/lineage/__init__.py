"""lineage: fold agent event logs into a session tree, and check ACP streams.

The engine is the one the ``lineage`` command runs (a Rust extension module); every
document is the JSON the command prints, as Python values:

- :class:`Engine`: push records as they come, read each one's changes and findings
  (``replay --format changes``) and the tree so far (``replay --format json``);
- :func:`replay`, :func:`changes`, :func:`check`, :func:`convert`: a whole trace (a
  path, a native source folder, or a trace's text) as ``lineage replay|check|convert``;
- :func:`check_paths` and :func:`report`: many files checked on every core, and the
  ``check`` report (json, sarif, junit, github, human) of any list of file reports.
"""

from __future__ import annotations

import os
from typing import Any, Iterable, Optional, Sequence, Union

from . import _lineage
from ._errors import FormatError, LineageError, UsageError
from ._lineage import Engine, FileReport, __version__

Source = Union[str, "os.PathLike[str]"]

__all__ = [
    "Engine",
    "FileReport",
    "FormatError",
    "LineageError",
    "UsageError",
    "__version__",
    "changes",
    "check",
    "check_paths",
    "convert",
    "replay",
    "report",
]


def _split(source: Source) -> tuple[Optional[str], Optional[str]]:
    """(path, text): a path-like object or a str without a line break that does not
    start with ``{`` is a path; any other str is a trace's text."""
    if isinstance(source, os.PathLike):
        return os.fspath(source), None
    if isinstance(source, str):
        if "\n" in source or source.lstrip().startswith("{"):
            return None, source
        return source, None
    raise UsageError(
        f"a trace is a path or a str, not {type(source).__name__}", "usage"
    )


def replay(
    source: Source,
    *,
    format: Optional[str] = None,
    spec: Optional[str] = None,
    session: Optional[str] = None,
    root_thread: Optional[str] = None,
    at: Optional[int] = None,
) -> dict[str, Any]:
    """The ``lineage replay --format json`` document of a trace."""
    path, text = _split(source)
    return _lineage._replay(path, text, format, spec, session, root_thread, at)


def changes(
    source: Source,
    *,
    format: Optional[str] = None,
    spec: Optional[str] = None,
    session: Optional[str] = None,
    root_thread: Optional[str] = None,
    at: Optional[int] = None,
) -> list[dict[str, Any]]:
    """Every line of ``lineage replay --format changes`` (start, changes, findings,
    end)."""
    path, text = _split(source)
    return _lineage._changes(path, text, format, spec, session, root_thread, at)


def check(source: Union[Source, Sequence[Source]], *, spec: Optional[str] = None) -> dict[str, Any]:
    """The ``lineage check --format json`` document of a trace, or of several (paths
    are walked as the command walks them)."""
    sources = [source] if isinstance(source, (str, os.PathLike)) else list(source)
    inputs = [_split(s) for s in sources]
    return _lineage._check(inputs, spec)


def convert(
    source: Source,
    *,
    to: str,
    format: Optional[str] = None,
    session: Optional[str] = None,
    client_caps: str = "subagents",
    prompt_response: str = "settlement",
    reconnect: bool = False,
) -> str:
    """The text ``lineage convert --to TO`` writes (``acp-v1``, ``acp-v2``,
    ``canonical``, ``otlp-json``)."""
    path, text = _split(source)
    return _lineage._convert(
        path, text, to, format, session, client_caps, prompt_response, reconnect
    )


def check_paths(
    paths: Iterable[Union[str, "os.PathLike[str]"]],
    workers: Optional[int] = None,
    *,
    spec: Optional[str] = None,
) -> list[FileReport]:
    """Checks every path (a file, or a folder walked as ``lineage check`` walks it) on
    ``workers`` threads (default: every core), with the interpreter released; one
    report per file, in the order of ``paths``."""
    return _lineage._check_paths([os.fspath(p) for p in paths], workers, spec)


def report(
    reports: Iterable[FileReport], format: str = "json", *, deny_warnings: bool = False
) -> str:
    """The ``lineage check --format FORMAT`` report (``json``, ``sarif``, ``junit``,
    ``github``, ``human``) of these file reports, as the command prints it."""
    return _lineage._report(list(reports), format, deny_warnings)
