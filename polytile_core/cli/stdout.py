"""``-o -``: every command that writes a file writes to stdout instead when the file is
``-`` (and never makes a file of that name)."""

from __future__ import annotations

import sys

STDOUT = "-"


def is_stdout(path: object) -> bool:
    return str(path) == STDOUT


def write_stdout(data: str | bytes) -> None:
    """Text or bytes (a PNG) to stdout, in order with what was printed before."""
    sys.stdout.flush()
    sys.stdout.buffer.write(data.encode("utf-8") if isinstance(data, str) else data)
    sys.stdout.buffer.flush()
