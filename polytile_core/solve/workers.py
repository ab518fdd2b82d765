"""What runs in a worker (a thread, another process, a cluster's machine): one part's solve.

These functions are all a worker imports of a split run, so they stay small and their
arguments picklable: the backend's factory and options, the part's model (or the key of
a model the worker holds, ``polytile_core.solve.parcels``), its settings and how many
solutions to send back.
"""

from __future__ import annotations

import os
import socket
import sys
import threading
import time
from typing import Protocol

import attrs

from polytile_core.host.contracts import BackendFactory, BackendResult, OnSolution, SolveSettings
from polytile_core.host.orphans import PARTS_STOP
from polytile_core.model.parts import Part
from polytile_core.model.zero_one import Model
from polytile_core.output.resultfile import LineSink, SolutionLines
from polytile_core.solve.parcels import ModelNeeded, ModelParcel, model_of


class PartLog(Protocol):
    """What a split run asks of its checkpoint (``RunContext.checkpoint``: a ``solve.checkpoint.Checkpoint``)."""

    replayed: int

    def replay(self, part: Part) -> PartOutcome | None: ...

    def record(self, part: Part, outcome: PartOutcome) -> None: ...


@attrs.frozen
class PartOutcome:
    """What a worker sends back for one part."""

    answer: BackendResult
    solutions: list[list[int]]
    seconds: float
    # Of ``seconds``, the time spent making the part's model from the cached whole one.
    prepare_seconds: float = 0.0
    worker: str = ""  # host and process that solved it
    # With ``lines`` asked for: every solution's .jsonl line, made in the worker (all of
    # them, in UTF-8 chunks as the backend handed them, where ``solutions`` holds only
    # the first ``keep``), and how many there are.
    lines: tuple[bytes, ...] | None = None
    lines_count: int = 0


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def solve_part(
    factory: BackendFactory,
    backend_options: object,
    model: Model,
    settings: SolveSettings,
    keep: int | None,
    stop: threading.Event | None = None,
    lines: Lines | None = None,
    sent_at: float | None = None,
) -> PartOutcome:
    """Solve one part (runs in a worker: a thread or another process).

    ``keep`` caps the solutions sent back (``None``: all of them, 0: none, for counting).
    ``stop`` is an event the worker can see (thread executors); in a process pool's worker
    the part stops when the run asks the pool (``orphans.PARTS_STOP``).  ``lines`` (a listing to .jsonl): every solution's
    line is made here, in the worker, and sent back as text with the first ``keep``.
    ``sent_at`` (``time.time()`` when the part was handed over): its time limit, what
    was left of the run's when it was sent, is shortened by its wait in the queue, so that
    it ends by the run's deadline and its answer reaches the run (``split.GRACE``).
    """
    started = time.perf_counter()
    settings = _less_the_wait(settings, sent_at)
    solutions: list[list[int]] = []
    on_solution: OnSolution
    if lines is None:

        def on_solution(ones: list[int]) -> None:
            if keep is None or len(solutions) < keep:
                solutions.append(list(ones))

    else:
        texts: list[bytes] = []
        counted = [0]

        def take(text: bytes, count: int, firsts: list[list[int]]) -> None:
            texts.append(text)
            counted[0] += count
            solutions.extend(firsts)

        on_solution = LineSink(
            SolutionLines(model.placements), lines.part, lines.images, sys.maxsize if keep is None else keep, take
        )
    answer = factory(backend_options).solve(model, settings, on_solution, stop or PARTS_STOP)
    seconds = time.perf_counter() - started
    if lines is None:
        return PartOutcome(answer, solutions, seconds)
    return PartOutcome(answer, solutions, seconds, lines=tuple(texts), lines_count=counted[0])


@attrs.frozen
class Lines:
    """Asks a worker for its part's .jsonl lines (``solve_part``): ``part``, the key they
    name, and the part's ``images`` (``Part.images``), each solution's line made for each."""

    part: str | None
    images: tuple[tuple[int, ...], ...] = ()


def solve_fixed_part(
    factory: BackendFactory,
    backend_options: object,
    parcel: ModelParcel,
    fixed: tuple[int, ...],
    settings: SolveSettings,
    keep: int | None,
    stop: threading.Event | None = None,
    lines: Lines | None = None,
    sent_at: float | None = None,
) -> PartOutcome | ModelNeeded:
    """Solve the whole model of ``parcel`` with the ``fixed`` variables pinned to 1 (in a worker).

    ``prepare_seconds`` is what the part costs beyond the backend's solve: finding the
    model and pinning the variables.
    """
    started = time.perf_counter()
    whole = model_of(parcel)
    if whole is None:
        return ModelNeeded(worker_name())
    model = whole.pinned(fixed)
    prepared = time.perf_counter()
    outcome = solve_part(factory, backend_options, model, _less_the_wait(settings, sent_at), keep, stop, lines)
    return attrs.evolve(
        outcome, seconds=time.perf_counter() - started, prepare_seconds=prepared - started, worker=worker_name()
    )


def _less_the_wait(settings: SolveSettings, sent_at: float | None) -> SolveSettings:
    """``settings`` with the time since ``sent_at`` taken off the time limit (at least a
    millisecond left: a part that starts after the deadline stops at once)."""
    if sent_at is None or settings.time_limit is None:
        return settings
    waited = max(0.0, time.time() - sent_at)
    return attrs.evolve(settings, time_limit=max(settings.time_limit - waited, 0.001))
