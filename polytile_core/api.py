"""The Python API for embedding polytile in a larger program.

Build a plan in code (checked exactly like a pipeline file), then ``solve`` it for a
typed ``Result`` or ``stream`` its solutions as they are found.  In a notebook a
Result, a Solution, a piece and a family draw themselves; ``gallery`` draws several
solutions side by side.  Nothing is global:
every call builds (or is given) its own ``Host``, so threads with separate hosts share
no state.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator, Sequence

import attrs

from polytile_core.config.pipeline import Plan, make_plan
from polytile_core.config.schema import PieceSpec, Pipeline
from polytile_core.convert import structure
from polytile_core.host.registry import Host
from polytile_core.model.geometry import Region, rows_from_cells
from polytile_core.output.notebook import gallery
from polytile_core.output.results import Result, Solution
from polytile_core.solve.run import run

__all__ = ["piece", "family", "plan", "solve", "stream", "SolutionStream", "gallery"]


def piece(name: str, shape: Sequence[str], **multiplicity) -> PieceSpec:
    """One piece from ASCII rows; ``count=``, ``min=``/``max=``, ``unlimited=``, ``kind=``."""
    return PieceSpec(name=name, shape=list(shape), **multiplicity)


def family(name: str, **options) -> PieceSpec:
    """A whole family (``"pentominoes"``, ``"n-ominoes"`` with ``n=``...), each piece once by default."""
    return PieceSpec(family=name, **options)


def plan(
    region: Region | Sequence[str] | tuple[int, int] | None,
    pieces: Sequence[PieceSpec],
    *,
    problem: str = "tiling",
    split: str | None = None,
    options: dict | None = None,
    host: Host | None = None,
    **solve,
) -> Plan:
    """A checked plan.  ``region`` is a Region, ASCII rows, or ``(width, height)``;
    ``solve`` takes the ``[solve]`` keys (mode, backend, time_limit, jobs, executor, ...)."""
    region_table: dict[str, object] | None
    if isinstance(region, Region):
        region_table = {"rows": rows_from_cells(region.cells)}
    elif isinstance(region, tuple) and len(region) == 2 and all(isinstance(side, int) for side in region):
        region_table = {"width": region[0], "height": region[1]}
    elif region is None:
        region_table = None
    else:
        region_table = {"rows": list(region)}
    data = {
        "problem": problem,
        "pieces": [attrs.asdict(spec, filter=lambda _, value: value is not None) for spec in pieces],
        "solve": solve,
        "options": options or {},
    }
    if region_table is not None:
        data["region"] = region_table
    if split is not None:
        data["split"] = {"method": split}
    return make_plan(structure(data, Pipeline), host or Host())


def solve(plan: Plan) -> Result:
    """Run a plan to the end and return its Result."""
    return run(plan)


class SolutionStream:
    """Solutions of a running solve, as an iterator.  The search waits when the caller
    falls behind (a bounded queue), and ``close()`` (or leaving a ``with`` block) stops it.
    ``result`` holds the final Result once the stream is exhausted or closed."""

    _DONE = object()

    def __init__(self, plan: Plan, buffer: int = 64):
        self._queue: queue.Queue = queue.Queue(maxsize=buffer)
        self._stop = threading.Event()
        self.result: Result | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._produce, args=(plan,), name="polytile-stream", daemon=True)
        self._thread.start()

    def _offer(self, item) -> None:
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=0.1)
                return
            except queue.Full:
                continue

    def _produce(self, plan: Plan) -> None:
        try:
            self.result = run(plan, on_solution=self._offer, stop=self._stop)
        except BaseException as exc:  # re-raised in the consuming thread
            self._error = exc
        finally:
            self._offer(self._DONE)

    def __iter__(self) -> Iterator[Solution]:
        while True:
            item = self._queue.get()
            if item is self._DONE:
                self._thread.join()
                if self._error is not None:
                    raise self._error
                return
            yield item

    def close(self) -> None:
        self._stop.set()
        self._thread.join()

    def __enter__(self) -> SolutionStream:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


def stream(plan: Plan) -> SolutionStream:
    """Start solving in the background and iterate over solutions as they are found."""
    return SolutionStream(plan)
