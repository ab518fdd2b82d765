"""The interface between the pipeline and a solver backend.

A backend plugin registers a factory; the factory returns an object with ``solve``.
``solve`` reports each solution as it is found through ``on_solution`` (so enumeration
streams) and returns a ``BackendResult``.  It must return soon after ``stop`` is set.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Literal, Protocol

import attrs

from polytile_core.model import Model
from polytile_core.results import Found, Termination

Mode = Literal["one", "all", "count", "optimize"]

# Called with the sorted decision variables that are 1 (and the objective value, if any).
OnSolution = Callable[[list[int]], None]


@attrs.frozen
class SolveSettings:
    """How to solve: the mode and the limits; ``options`` are the backend's own settings."""

    mode: Mode = "one"
    time_limit: float | None = None
    workers: int = 1
    seed: int | None = None
    options: dict = attrs.Factory(dict)
    # Also solve up to the model's symmetries (``Model.symmetries``); only a backend with
    # ``supports_distinct = True`` is asked, the run does it generically for the others.
    distinct: bool = False


@attrs.frozen
class BackendResult:
    """What a backend reports: why it stopped, what it found, and its own status word."""

    termination: Termination
    found: Found
    raw_status: str
    count: int | None = None
    objective: float | None = None
    bound: float | None = None
    # Solutions up to symmetry, from a backend that handled ``settings.distinct`` itself.
    distinct_count: int | None = None
    # Facts about how the backend solved (the kernel that ran, table sizes), for ``Result.details``.
    details: dict = attrs.Factory(dict)


class Backend(Protocol):
    def solve(
        self, model: Model, settings: SolveSettings, on_solution: OnSolution, stop: threading.Event
    ) -> BackendResult: ...
