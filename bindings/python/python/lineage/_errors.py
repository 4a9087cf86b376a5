"""The exceptions lineage raises. Each has a stable ``code``."""

from __future__ import annotations


class LineageError(Exception):
    """Base of every lineage error; ``code`` is a stable kebab-case name."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code

    def __reduce__(self):  # keep ``code`` across pickling (Dask, multiprocessing)
        return (type(self), (str(self), self.code))


class UsageError(LineageError):
    """The call cannot be carried out: a bad argument or option, a path that cannot be
    read, an engine used after ``finish()``."""


class FormatError(LineageError):
    """The input cannot be read as a trace at all: its format cannot be told, it holds
    no record, or it is not UTF-8 text."""
