"""lineage: fold agent event logs into a session tree, and check ACP streams.

The engine is the one the ``lineage`` command runs (a Rust extension module); every
document is the JSON the command prints, as Python values.
"""

from __future__ import annotations

from ._errors import FormatError, LineageError, UsageError
from ._lineage import Engine, __version__

__all__ = [
    "Engine",
    "FormatError",
    "LineageError",
    "UsageError",
    "__version__",
]
