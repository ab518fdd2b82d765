"""The state of a run that progress displays read while the search goes on."""

from __future__ import annotations

import time

import attrs


@attrs.frozen
class Progress:
    """A snapshot for progress displays.  ``best``, ``bound`` and ``stage`` are what an
    optimising backend reported while it searches (``report_progress``)."""

    solutions: int
    parts_done: int
    parts_total: int | None
    elapsed: float
    best: float | None = None
    bound: float | None = None
    stage: str | None = None


@attrs.define
class RunState:
    """Written by the run (a split run's parts as they finish), read by progress displays."""

    started: float = attrs.Factory(time.perf_counter)
    parts_done: int = 0
    parts_total: int | None = None
    counted: int = 0  # solutions counted by finished parts (mode count streams none)
    best: float | None = None
    bound: float | None = None
    stage: str | None = None

    def note(self, *, best: float | None, bound: float | None, stage: str | None) -> None:
        """What the backend reported (host.contracts.report_progress); a report without a
        stage ends the last one."""
        self.best = best if best is not None else self.best
        self.bound = bound if bound is not None else self.bound
        self.stage = stage

    def progress(self, streamed: int) -> Progress:
        return Progress(
            max(streamed, self.counted),
            self.parts_done,
            self.parts_total,
            time.perf_counter() - self.started,
            self.best,
            self.bound,
            self.stage,
        )
