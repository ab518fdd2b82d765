"""The one error users see: bad input, said in one line with where it came from."""

from __future__ import annotations


class InputError(Exception):
    """Input that cannot be used. ``str()`` gives ``file: key.path: what was expected``."""

    def __init__(self, message: str, *, source: str | None = None, path: str | None = None):
        super().__init__(message)
        self.message = message
        self.source = source
        self.path = path

    def with_source(self, source: str) -> InputError:
        return InputError(self.message, source=self.source or source, path=self.path)

    def __str__(self) -> str:
        return ": ".join(part for part in (self.source, self.path, self.message) if part)
