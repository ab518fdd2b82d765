"""What a plugin provides, typed: one Protocol per kind of thing a plugin registers.

The hook specs (``hookspecs.py``) name these types, so a plugin author and a type
checker see the same contract.  A backend plugin registers a factory; the factory
returns an object with ``solve``, which reports each solution as it is found through
``on_solution`` (so enumeration streams) and returns a ``BackendResult``.  It must
return soon after ``stop`` is set.  While it searches it may call ``report_progress``.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import contextvars
import itertools
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Literal, Protocol, TypeVar, runtime_checkable

import attrs

from polytile_core.model.geometry import Cells, Kind, Region
from polytile_core.model.parts import BuildModel, Split
from polytile_core.model.problem import PieceType, TilingProblem
from polytile_core.model.zero_one import Model
from polytile_core.output.results import Answer, Result

# What a pipeline asks for (``[solve] mode``, ``--mode``): find one tiling, list all, or count them.
PipelineMode = Literal["one", "all", "count"]
# What a backend is asked: one of those, or optimize (what mode one becomes for a problem
# kind with an objective, such as an enclosure).
Mode = Literal[PipelineMode, "optimize"]
# What a backend was doing (``BackendResult.work``): walking a tree of choices, which a
# split into subtrees divides, or filling a whole-problem table, which it does not.
Work = Literal["search", "table"]

# Called with the sorted decision variables that are 1 (and the objective value, if any).
# A listing to .jsonl may give a ``LineSink`` (``polytile_core.output.resultfile``): it
# is called the same way, and a backend that can make the lines itself may hand them to
# its ``take`` in batches instead.
OnSolution = Callable[[list[int]], None]

# Where report_progress goes in this thread: the run's state, set by the run's own thread.
_progress_listener: contextvars.ContextVar[Callable[..., None] | None] = contextvars.ContextVar(
    "polytile_progress_listener", default=None
)


def report_progress(*, best: float | None = None, bound: float | None = None, stage: str | None = None) -> None:
    """A backend says how far it is while it searches: the best objective found, the
    bound proved so far, or a stage of its own (``"computing the bound"``).  The run that
    called it shows this on its progress line; called outside a run, it goes nowhere."""
    progress_reporter()(best=best, bound=bound, stage=stage)


def progress_reporter() -> Callable[..., None]:
    """``report_progress`` for this thread's run, to call from other threads (a solver's
    callback thread, which has no run of its own): take it where ``solve`` is called."""
    return _progress_listener.get() or _nowhere


def _nowhere(**report: object) -> None:
    """Where progress goes outside a run."""


def listen_to_progress(listener: Callable[..., None]) -> None:
    """Send this thread's ``report_progress`` calls to ``listener`` (a run's state)."""
    _progress_listener.set(listener)


@attrs.frozen
class SolveSettings:
    """How to solve: the mode and the limits; ``options`` are the backend's own settings."""

    mode: Mode = "one"
    time_limit: float | None = None
    workers: int = 1
    seed: int | None = None
    options: dict[str, Any] = attrs.Factory(dict)
    # Also solve up to the model's symmetries (``Model.symmetries``); only a backend that
    # declares ``distinct_in_search`` is asked, the run does it generically for the others.
    distinct: bool = False
    # The model is one subtree of a search (a part of a split that declares
    # ``subtrees``): a backend with several ways to count counts it by search, not by a
    # whole-problem table that would be built again for every part.  Others ignore it.
    subtree: bool = False
    # The run only wants an answer the backend can have without a long search (it will
    # split the search into parts otherwise): a backend that counts by tables tries them
    # and then gives up (``TIME_LIMIT``, ``work = "search"``) instead of searching, and
    # one that can estimate a listing lists it only when short, so no search is made
    # twice.  Others ignore it; the probe's time limit bounds them.
    probe: bool = False


@attrs.frozen
class BackendResult(Answer):
    """What a backend reports: an ``Answer`` (why it stopped, what it found, its own
    status word and numbers), with the facts of how and what it was doing."""

    # Facts about how the answer was reached (e.g. how the bound was proved), for Result.details.
    details: dict[str, Any] = attrs.Factory(dict)
    # What kind of work it was doing when it returned (``Work``); None: it does not say.
    # The default route splits a long count or listing only when the work was a search.
    work: Work | None = None


# How often the relay looks when no solve asks for more (a solve's own ``every`` is at
# most this by default): a new solve then need not wake it.
RELAY_POLL = 0.05
# The relay's thread ends after this long with no solve to watch (the next one starts it).
RELAY_IDLE = 10.0


class _StopRelay:
    """Calls each watched solver's ``halt`` soon after its stop event is set.  A solve
    registers and unregisters (a lock and a dict entry), so a run of thousands of short
    solves (the parts of a tree split) starts no thread per solve, and wakes none.

    Who looks: a thread that only waits for a run to end (``serving``: the run's own
    calling thread) looks every ``RELAY_POLL`` seconds as it waits; where none does (a
    process pool's worker, a solve left running by an abandoned run), one thread per
    process looks as often (or at a solve's shorter ``every``) and is woken only for a
    stop already set or a shorter interval.  Starting that thread while a solve of two
    milliseconds builds its model cost it 0.2 ms; waking it, half a millisecond on a busy
    machine."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._watched: dict[int, tuple[threading.Event, Callable[[], None], float]] = {}
        self._tokens = itertools.count()
        self._thread: threading.Thread | None = None
        self._waiting = RELAY_POLL  # the interval the thread is waiting for now
        self._servers = 0  # threads looking while they wait (``serving``)

    def start(self) -> None:
        """Start the thread, if it is not running (first use, or a forked child)."""
        with self._changed:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="polytile-stop-relay", daemon=True)
                self._thread.start()

    def watch(self, stop: threading.Event, halt: Callable[[], None], every: float) -> int:
        with self._changed:
            if not self._servers:
                self.start()
            token = next(self._tokens)
            self._watched[token] = (stop, halt, every)
            if stop.is_set() or every < self._waiting:
                self._changed.notify()
            return token

    def unwatch(self, token: int) -> None:
        """After this returns, the solve's ``halt`` is not called any more."""
        with self._changed:
            self._watched.pop(token, None)

    @contextlib.contextmanager
    def serving(self) -> Iterator[Callable[[threading.Event, float], bool]]:
        """While the block runs, this thread looks for the stops as it waits, with the
        ``wait(event, seconds)`` yielded (``Event.wait``'s answer), and no relay thread is
        started for the solves watched meanwhile; any still watched when the block ends
        (no other thread serving) go to the relay's thread."""
        with self._changed:
            self._servers += 1
        try:
            yield self._wait_looking
        finally:
            with self._changed:
                self._servers -= 1
                if self._watched and not self._servers:
                    self.start()

    def _wait_looking(self, event: threading.Event, seconds: float) -> bool:
        ends = time.monotonic() + seconds
        while True:
            with self._changed:
                self._halt_stopped()
            left = ends - time.monotonic()
            if left <= 0:
                return event.is_set()
            if event.wait(min(left, RELAY_POLL)):
                return True

    def _halt_stopped(self) -> None:
        """Halt every watched solve whose stop is set (under the lock)."""
        for token, (stop, halt, _) in list(self._watched.items()):
            if stop.is_set():
                del self._watched[token]
                halt()

    def _run(self) -> None:
        idle_since = time.monotonic()
        with self._changed:
            while True:
                self._halt_stopped()
                if self._watched:
                    idle_since = time.monotonic()
                elif time.monotonic() - idle_since > RELAY_IDLE:
                    self._thread = None  # under the lock: a watch now starts a new thread
                    return
                self._waiting = min((every for _, _, every in self._watched.values()), default=RELAY_POLL)
                self._changed.wait(self._waiting)


_relay = _StopRelay()


def serving_stop_relay() -> contextlib.AbstractContextManager[Callable[[threading.Event, float], bool]]:
    """For a thread that waits for a run to end: it relays the stops as it waits, with the
    ``wait(event, seconds)`` this yields, in place of a thread started for them."""
    return _relay.serving()


@contextlib.contextmanager
def relay_stop(stop: threading.Event, halt: Callable[[], None], every: float = 0.05) -> Iterator[None]:
    """Call ``halt`` (the solver's own way to stop) soon after ``stop`` is set, while the
    block runs: a solver busy in native code cannot watch a Python event itself."""
    token = _relay.watch(stop, halt, every)
    try:
        yield
    finally:
        _relay.unwatch(token)


class Backend(Protocol):
    def solve(
        self, model: Model, settings: SolveSettings, on_solution: OnSolution, stop: threading.Event
    ) -> BackendResult: ...


class BackendFactory(Protocol):
    """Makes a backend from its options (an instance of the registered options class, or None)."""

    def __call__(self, options: Any, /) -> Backend: ...


class Family(Protocol):
    """The pieces of a family: ``(name, cells)`` pairs; ``n`` for families that take a size.
    Raises ``ValueError`` for an unusable ``n``."""

    def __call__(self, n: int | None = None, kind: Kind = "free") -> list[tuple[str, Cells]]: ...


class Builder(Protocol):
    """Builds the model of a problem kind from the pieces, the region and the builder's options."""

    def __call__(self, pieces: tuple[PieceType, ...], region: Region | None, options: Any, /) -> Model: ...


class Decomposer(Protocol):
    """Splits a tiling problem into parts.  ``model`` is the whole problem's model (a part
    is usually ``model.restricted(...)``); ``build`` builds the model of another tiling
    problem with the plan's builder; ``jobs`` is how many parts will run at once (a split
    that makes as many parts as it likes makes tens per job)."""

    def split(
        self, problem: TilingProblem, model: Model, build: BuildModel, options: Any, /, *, jobs: int = 1
    ) -> Split: ...


LargeStatus = Literal["found", "infeasible", "time_limit", "interrupted", "gave_up"]


@attrs.frozen
class LargeTiling:
    """What a large-region tiler reports: ``found`` with the placements (piece name and
    cells) of one tiling it has checked cell by cell, or why it has none.  Its search is
    not exhaustive, so ``infeasible`` comes only with a proof by counting in ``message``
    (areas, colours); ``gave_up`` means "unknown", never "no tiling"."""

    status: LargeStatus
    placements: tuple[tuple[str, Cells], ...] = ()
    message: str = ""
    details: dict[str, Any] = attrs.Factory(dict)


class Tiler(Protocol):
    """Finds one tiling of a region too large for a whole model, part by part, without
    a ``Model``.  ``applies`` says why it cannot serve a problem (``None``: it can);
    ``tile`` must return soon after ``stop`` is set or ``deadline`` (``time.monotonic()``)
    passes."""

    def applies(self, problem: TilingProblem, mode: Mode, /) -> str | None: ...

    def tile(
        self, problem: TilingProblem, /, *, seed: int | None, stop: threading.Event, deadline: float | None
    ) -> LargeTiling: ...


class ExecutorFactory(Protocol):
    """Makes the executor that runs the parts of a split run on ``jobs`` workers."""

    def __call__(self, jobs: int, options: Any, /) -> concurrent.futures.Executor: ...


@runtime_checkable
class StopsItsParts(Protocol):
    """An executor (as an ``ExecutorFactory`` makes it) that can ask its running parts to
    stop: a run that is stopped or out of time calls ``stop_parts`` and takes back what
    they found as they end (``split.GRACE``), as from parts on threads, which see the run's
    stop.  An executor without it has its running parts cancelled or killed instead."""

    def stop_parts(self) -> None: ...


class Renderer(Protocol):
    """Writes the picture of a result to ``path``."""

    def __call__(self, result: Result, path: Path, options: Any, /) -> None: ...


Provided = TypeVar("Provided", contravariant=True)


class Register(Protocol[Provided]):
    """The ``register`` argument of a registration hook: ``Register[BackendFactory]`` takes
    a backend factory.  ``options`` is an attrs class read from ``[options.<name>]``;
    ``help`` is the line ``polytile plugins`` shows; ``backend`` (builders only) names the
    backend ``auto`` takes for that problem kind; ``capabilities`` (backends, splits and
    builders) is what ``backend = "auto"`` and the pipeline's checks read
    (``polytile_core.host.capabilities``)."""

    def __call__(
        self,
        name: str,
        provides: Provided,
        /,
        *,
        options: type | None = None,
        help: str = "",
        backend: str | None = None,
        capabilities: object | None = None,
    ) -> None: ...
