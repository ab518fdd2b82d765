"""The state of a run that progress displays read while the search goes on."""

from __future__ import annotations

import time

import attrs


@attrs.frozen
class Progress:
    """A snapshot for progress displays."""

    solutions: int
    parts_done: int
    parts_total: int | None
    elapsed: float


@attrs.define
class RunState:
    """Written by the run (a split run's parts as they finish), read by progress displays."""

    started: float = attrs.Factory(time.perf_counter)
    parts_done: int = 0
    parts_total: int | None = None
    counted: int = 0  # solutions counted by finished parts (mode count streams none)

    def progress(self, streamed: int) -> Progress:
        return Progress(
            max(streamed, self.counted), self.parts_done, self.parts_total, time.perf_counter() - self.started
        )
