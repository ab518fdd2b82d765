"""What every step of a run shares, passed down once: ``RunContext``.

A run's steps (the whole solve, the probe, the split's parts, a race, the count up to
symmetry) all need the same few things: the stop event (Ctrl-C), the time that is left,
where solutions go, what progress displays read, and the checkpoint of a split run.
They get them here rather than each from its own argument, and the time left is
computed in one place: ``Deadline.left``.
"""

from __future__ import annotations

import threading
import time

import attrs

from polytile_core.solve.collect import Collector
from polytile_core.solve.state import RunState
from polytile_core.solve.workers import PartLog

# The least time a step is given when it is started at all: a backend told "0 s" may
# read it as "no limit".
LEAST_SECONDS = 0.01


@attrs.frozen
class Deadline:
    """When the run must end, on ``time.monotonic()``; ``at = None``: never."""

    at: float | None = None

    @classmethod
    def after(cls, seconds: float | None) -> Deadline:
        return cls(None if seconds is None else time.monotonic() + seconds)

    def left(self) -> float | None:
        """Seconds left (at least ``LEAST_SECONDS``), or None when there is no deadline."""
        return None if self.at is None else max(LEAST_SECONDS, self.at - time.monotonic())

    def passed(self) -> bool:
        return self.at is not None and time.monotonic() >= self.at

    def within(self, seconds: float | None) -> Deadline:
        """This deadline, or ``seconds`` from now if that comes first."""
        if seconds is None:
            return self
        sooner = time.monotonic() + seconds
        return Deadline(sooner if self.at is None else min(self.at, sooner))


@attrs.frozen
class RunContext:
    """The run-time side of a run (the plan is what the pipeline said).

    ``stop``: set by Ctrl-C or the caller, every step returns soon after.  ``deadline``:
    the run's time limit.  ``collector``: where solutions go (kept up to ``keep``, every
    one streamed).  ``state``: what progress displays read.  ``checkpoint``: the finished
    parts of a split run, replayed and recorded (``polytile_core.solve.checkpoint``)."""

    stop: threading.Event
    deadline: Deadline
    collector: Collector
    state: RunState
    checkpoint: PartLog | None = None

    def ended(self) -> bool:
        """Whether the run was stopped or ran out of time."""
        return self.stop.is_set() or self.deadline.passed()
