"""The Python API for embedding polytile in a larger program.

Build a plan in code (checked exactly like a pipeline file) or ``load`` a pipeline
file, then ``solve`` it for a typed ``Result`` or ``stream`` its solutions as they are
found.  ``Result.save`` writes a result file, ``read_result`` reads one back and
``render`` draws a result as a picture file.  In a notebook a Result, a Solution, a
piece and a family draw themselves; ``gallery`` draws several solutions side by side.
Nothing is global: every call builds (or is given) its own ``Host``, so threads with
separate hosts share no state.  What the run decides (the route, a split's parts) is
logged on the ``polytile`` logger.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import attrs

from polytile_core.config.pipeline import Plan, make_plan, read_pipeline
from polytile_core.config.schema import PieceSpec, Pipeline, SolveSpec
from polytile_core.convert import structure
from polytile_core.errors import InputError
from polytile_core.host.contracts import PipelineMode
from polytile_core.host.registry import Host
from polytile_core.model.geometry import Kind, Region, rows_from_cells
from polytile_core.output.gallery import gallery
from polytile_core.output.reading import read_result
from polytile_core.output.resultfile import refuse_existing
from polytile_core.output.results import Result, Solution
from polytile_core.solve.run import run

__all__ = [
    "piece",
    "family",
    "plan",
    "load",
    "solve",
    "stream",
    "SolutionStream",
    "gallery",
    "read_result",
    "render",
]


def piece(
    name: str,
    shape: Sequence[str],
    *,
    kind: Kind = "free",
    count: int | None = None,
    min: int | None = None,
    max: int | None = None,
    unlimited: bool = False,
) -> PieceSpec:
    """One piece from ASCII rows; each copy used once unless ``count``, ``min``/``max`` or ``unlimited``."""
    return PieceSpec(name=name, shape=list(shape), kind=kind, count=count, min=min, max=max, unlimited=unlimited)


def family(
    name: str,
    *,
    n: int | None = None,
    kind: Kind = "free",
    count: int | None = None,
    min: int | None = None,
    max: int | None = None,
    unlimited: bool = False,
) -> PieceSpec:
    """A whole family (``"pentominoes"``, ``"n-ominoes"`` with ``n=``...), each piece once by default."""
    return PieceSpec(family=name, n=n, kind=kind, count=count, min=min, max=max, unlimited=unlimited)


def plan(
    region: Region | Sequence[str] | tuple[int, int] | None,
    pieces: Sequence[PieceSpec],
    *,
    problem: str = "tiling",
    mode: PipelineMode = "one",
    backend: str = "auto",
    time_limit: float | None = None,
    jobs: int | None = None,
    executor: str = "auto",
    distinct: bool = False,
    keep: int | None = None,
    workers: int | None = None,
    seed: int | None = None,
    split: str | None = None,
    options: dict | None = None,
    host: Host | None = None,
) -> Plan:
    """A checked plan.  ``region`` is a Region, ASCII rows, or ``(width, height)``; the
    keywords from ``mode`` to ``seed`` are the ``[solve]`` keys of a pipeline file."""
    solve = {
        "mode": mode,
        "backend": backend,
        "time_limit": time_limit,
        "jobs": jobs,
        "executor": executor,
        "distinct": distinct,
        "keep": keep,
        "workers": workers,
        "seed": seed,
    }
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
        "solve": {key: value for key, value in solve.items() if value is not None},
        "options": options or {},
    }
    if region_table is not None:
        data["region"] = region_table
    if split is not None:
        data["split"] = {"method": split}
    return make_plan(structure(data, Pipeline), host or Host())


def load(
    path: str | Path,
    *,
    mode: PipelineMode | None = None,
    backend: str | None = None,
    time_limit: float | None = None,
    jobs: int | None = None,
    host: Host | None = None,
) -> Plan:
    """The checked plan of a pipeline file, its ``[solve]`` keys replaced by those given
    here; errors name the file and the key."""
    given = {"mode": mode, "backend": backend, "time_limit": time_limit, "jobs": jobs}
    try:
        pipeline = read_pipeline(path)
        table = {**attrs.asdict(pipeline.solve), **{key: value for key, value in given.items() if value is not None}}
        pipeline = attrs.evolve(pipeline, solve=structure(table, SolveSpec, path="solve"))
        return make_plan(pipeline, host or Host())
    except InputError as exc:
        raise exc.with_source(str(path)) from None


def solve(plan: Plan) -> Result:
    """Run a plan to the end and return its Result."""
    return run(plan)


def render(
    result: Result, path: str | Path, *, replace: bool = False, host: Host | None = None, **options: object
) -> Path:
    """Draw ``result`` into a picture file (.svg, .png, .txt: any installed renderer,
    by the extension), with the renderer's options (``cell_size=``, ``limit=``...)."""
    picture = Path(path)
    registration = (host or Host()).get("renderers", picture.suffix.lstrip(".").lower())
    if registration.options is None and options:
        raise InputError(f"render format {picture.suffix!r} takes no options (got {', '.join(options)})")
    chosen = structure(options, registration.options, path="render options") if registration.options else None
    refuse_existing(picture, replace=replace)
    registration.provides(result, picture, chosen)
    return picture


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

    def _offer(self, item: object) -> None:
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

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def stream(plan: Plan) -> SolutionStream:
    """Start solving in the background and iterate over solutions as they are found."""
    return SolutionStream(plan)
