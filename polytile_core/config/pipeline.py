"""From a pipeline file to a ``Plan``: every name looked up, every piece resolved.

All checks of user input happen here, before any solving, and each failure is one
``InputError`` naming the key path.
"""

from __future__ import annotations

import collections
import tomllib
from pathlib import Path
from typing import Any

import attrs

from polytile_core.config.schema import AUTO, PieceSpec, Pipeline, RegionSpec
from polytile_core.convert import structure
from polytile_core.errors import InputError
from polytile_core.host.capabilities import BuilderCapabilities
from polytile_core.host.contracts import SolveSettings
from polytile_core.host.machine import usable_cores
from polytile_core.host.registry import Host, Registration
from polytile_core.model.geometry import Cells, GeometryError, Region, cells_from_rows, is_connected, normalise
from polytile_core.model.problem import PieceType, TilingProblem
from polytile_core.model.zero_one import Model

# Kinds of piece a plan takes (the fixed 11-ominoes, 135,268, are still within).
MOST_PIECE_KINDS = 200_000
# Placements a whole model may have (about 10 s and a gigabyte to build; 100×100 with
# the pentominoes has 606,196).
MOST_PLACEMENTS = 2_000_000


@attrs.frozen
class Chosen:
    """A plugin the plan uses, with the options the pipeline gave it (``[options.<name>]``,
    structured and checked when the plan was made; None for a plugin that takes none)."""

    registration: Registration
    options: object = None

    @property
    def name(self) -> str:
        return self.registration.name

    @property
    def provides(self) -> Any:
        return self.registration.provides

    @property
    def capabilities(self) -> Any:
        return self.registration.capabilities


@attrs.frozen
class Candidates:
    """What ``backend = "auto"`` may choose from: the backends and splits that declared
    capabilities, each with its options, and the executor that runs a raced split's parts
    inside its own process."""

    backends: tuple[Chosen, ...]
    splits: tuple[Chosen, ...]
    in_process_executor: Chosen
    # Large-region tilers (mode one, no whole model), tried before any model is built.
    tilers: tuple[Chosen, ...] = ()

    def named(self, name: str) -> Chosen | None:
        """The backend or split named ``name`` among the candidates, if it is one."""
        return next((chosen for chosen in self.backends + self.splits if chosen.name == name), None)


@attrs.frozen
class AutoExecutor:
    """``executor = "auto"``: threads of this process for a backend whose search releases
    the GIL (declared: ``BackendCapabilities.releases_gil``), so no processes start and
    the model is shared; else a process pool.  Chosen when the backend is known (with
    ``backend = "auto"``, after the route is chosen)."""

    threads: Chosen
    processes: Chosen
    name = AUTO

    def choose(self, backend: Chosen) -> tuple[Chosen, str]:
        """The executor for ``backend``'s parts and why."""
        if backend.capabilities is not None and backend.capabilities.releases_gil:
            return self.threads, f"auto: threads, the {backend.name} backend searches outside the GIL"
        return self.processes, f"auto: processes, the {backend.name} backend does not declare that it releases the GIL"


@attrs.frozen
class Plan:
    """What the pipeline said, resolved and checked: the problem, its pieces and region,
    how to solve it, and each plugin it names as a ``Chosen`` (the plugin and its options).
    Nothing of a run is here (``polytile_core.solve.context.RunContext`` has that).

    With ``backend = "auto"`` the plan has no ``backend`` yet: ``candidates`` holds what
    the run chooses from (``polytile_core.solve.route``) once it has built the model.
    """

    problem: str
    pieces: tuple[PieceType, ...]
    region: Region | None
    builder: Chosen
    backend: Chosen | None
    settings: SolveSettings
    split: Chosen | None = None
    jobs: int = 1
    executor: Chosen | AutoExecutor | None = None
    distinct: bool = False
    keep: int | None = None
    candidates: Candidates | None = None
    # Why the plan has its backend: named in the pipeline, or its problem kind's own.
    backend_why: str = "named in the pipeline"
    # With no [split], jobs > 1 and mode count or all: the split a run takes when a short
    # probe of the whole problem does not finish (polytile_core.solve.autosplit).
    split_when_long: Chosen | None = None

    def parts_executor(self) -> tuple[Chosen, str | None]:
        """The executor that runs a split's parts on this plan's backend, and why ``auto``
        chose it (None for an executor the pipeline named)."""
        assert self.executor is not None and self.backend is not None, "a split run has its executor and backend"
        if isinstance(self.executor, AutoExecutor):
            return self.executor.choose(self.backend)
        return self.executor, None

    def tiling_problem(self) -> TilingProblem:
        if self.region is None:
            raise InputError("a tiling problem needs a [region] table", path="region")
        return TilingProblem(self.region, self.pieces)

    def build(self, problem: TilingProblem | None = None) -> Model:
        """The model of the plan's problem (or of ``problem``, a part of it), by the plan's builder."""
        if problem is None:
            if self.problem == "tiling" and self.region is not None:
                bound = self.tiling_problem().placements_at_most()
                if bound > MOST_PLACEMENTS:
                    raise InputError(
                        f"too large for a whole model: up to {bound:,} placements (at most {MOST_PLACEMENTS:,}); "
                        "one tiling of a large region with pieces to spare is found without one "
                        "(mode one, backend auto)",
                        path="region",
                    )
            return self.builder.provides(self.pieces, self.region, self.builder.options)
        return self.builder.provides(problem.pieces, problem.region, self.builder.options)


def read_pipeline(path: str | Path) -> Pipeline:
    """Read and structure a pipeline file; errors name the file and the key path."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError("no such file", source=str(path)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the file ({exc})", source=str(path)) from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"not valid TOML: {exc}", source=str(path)) from None
    return structure(data, Pipeline, source=str(path))


def resolve_region(spec: RegionSpec | None, *, required: bool = True) -> Region | None:
    if spec is None:
        if required:
            raise InputError("a [region] table is required (rows, or width and height)", path="region")
        return None
    if spec.rows is not None:
        if spec.width is not None or spec.height is not None:
            raise InputError("give either rows or width and height, not both", path="region")
        try:
            return Region.from_rows(spec.rows)
        except GeometryError as exc:
            raise InputError(str(exc), path="region.rows") from None
    if spec.width is None or spec.height is None:
        raise InputError("give rows, or both width and height", path="region")
    try:
        return Region.rectangle(spec.width, spec.height)
    except GeometryError as exc:
        raise InputError(str(exc), path="region") from None


def _multiplicity(spec: PieceSpec, path: str) -> tuple[int, int | None]:
    given = [key for key in ("count", "min", "max") if getattr(spec, key) is not None]
    if spec.unlimited:
        if given:
            raise InputError(f"unlimited cannot be combined with {given[0]}", path=f"{path}.unlimited")
        return 0, None
    if spec.count is not None:
        if spec.min is not None or spec.max is not None:
            raise InputError("give count, or min/max, not both", path=f"{path}.count")
        if spec.count < 0:
            raise InputError(f"expected a count of 0 or more, got {spec.count}", path=f"{path}.count")
        return spec.count, spec.count
    if spec.min is None and spec.max is None:
        return 1, 1
    minimum = 0 if spec.min is None else spec.min
    if minimum < 0:
        raise InputError(f"expected 0 or more, got {minimum}", path=f"{path}.min")
    if spec.max is not None and spec.max < minimum:
        raise InputError(f"max {spec.max} is less than min {minimum}", path=f"{path}.max")
    return minimum, spec.max


def resolve_pieces(specs: list[PieceSpec], host: Host) -> tuple[PieceType, ...]:
    """Expand families and shapes into piece types; check connectivity and names."""
    if not specs:
        raise InputError("at least one [[pieces]] table is required", path="pieces")
    pieces: list[PieceType] = []
    for index, spec in enumerate(specs):
        path = f"pieces[{index}]"
        minimum, maximum = _multiplicity(spec, path)
        sources = [key for key in ("shape", "cells", "family") if getattr(spec, key) is not None]
        if len(sources) != 1:
            problem = "none" if not sources else " and ".join(sources)
            raise InputError(f"give exactly one of shape, cells or family (got {problem})", path=path)
        if spec.family is not None:
            if spec.name is not None:
                raise InputError("a family names its own pieces; leave name out", path=f"{path}.name")
            make = lookup(host, "families", spec.family, f"{path}.family").provides
            _refuse_too_many(make, spec, path)
            try:
                shapes = make(n=spec.n, kind=spec.kind)
            except (ValueError, TypeError) as exc:
                raise InputError(str(exc), path=f"{path}.n") from None
        else:
            if spec.n is not None:
                raise InputError("n belongs to a family", path=f"{path}.n")
            try:
                cells = cells_from_rows(spec.shape) if spec.shape is not None else _cells(spec.cells or [], path)
            except GeometryError as exc:
                raise InputError(str(exc), path=f"{path}.shape") from None
            shapes = [(spec.name or f"P{index + 1}", cells)]
        for name, cells in shapes:
            if not is_connected(cells):
                raise InputError(f"piece {name!r} is not connected (its cells must join edge to edge)", path=path)
            pieces.append(PieceType(name, normalise(cells), spec.kind, minimum, maximum))
    duplicates = sorted(
        name for name, times in collections.Counter(piece.name for piece in pieces).items() if times > 1
    )
    if duplicates:
        raise InputError(f"two pieces are called {duplicates[0]!r}; give each a distinct name", path="pieces")
    return tuple(pieces)


def _refuse_too_many(make: Any, spec: PieceSpec, path: str) -> None:
    """Refuse a family of more than ``MOST_PIECE_KINDS`` pieces before it is built, when
    the family can count its pieces (building 1.9 million fixed 13-ominoes takes minutes
    and gigabytes, and no model of them could be solved)."""
    count = getattr(make, "count", None)
    if count is None:
        return
    try:
        pieces = count(n=spec.n, kind=spec.kind)
    except (ValueError, TypeError):
        return  # the family's own call says what is wrong
    if pieces > MOST_PIECE_KINDS:
        raise InputError(
            f"the {spec.family} family gives {pieces:,} {spec.kind} pieces for n = {spec.n}; "
            f"a plan takes at most {MOST_PIECE_KINDS:,} kinds of piece",
            path=f"{path}.n",
        )


def _cells(cells: list[list[int]], path: str) -> Cells:
    if not cells:
        raise InputError("a piece needs at least one cell", path=f"{path}.cells")
    first: dict[tuple[int, int], int] = {}
    for position, cell in enumerate(cells):
        if len(cell) != 2:
            raise InputError(f"expected [x, y], got {cell}", path=f"{path}.cells[{position}]")
        earlier = first.setdefault((cell[0], cell[1]), position)
        if earlier != position:
            # Read as a set, the piece would silently lose a cell.
            raise InputError(f"cell {cell} is given twice (also as cells[{earlier}])", path=f"{path}.cells[{position}]")
    return tuple((x, y) for x, y in cells)


def chosen(host: Host, registration: Registration, pipeline: Pipeline) -> Chosen:
    """The plugin with its ``[options.<name>]`` table, structured and checked."""
    return Chosen(registration, plugin_options(host, registration, pipeline))


def plugin_options(host: Host, registration: Registration, pipeline: Pipeline) -> object:
    """The structured ``[options.<name>]`` table of a plugin (its defaults when absent)."""
    table = pipeline.options.get(registration.name)
    if registration.options is None:
        if table:
            raise InputError(f"{registration.name!r} takes no options", path=f"options.{registration.name}")
        return None
    return structure(table or {}, registration.options, path=f"options.{registration.name}")


def auto_candidates(host: Host, pipeline: Pipeline) -> Candidates:
    """What ``backend = "auto"`` may choose from, each with its options checked now."""
    backends = tuple(reg for reg in host.registry["backends"].values() if reg.capabilities is not None)
    splits = tuple(
        reg for reg in host.registry["decomposers"].values() if reg.capabilities.rank or reg.capabilities.certificate
    )
    tilers = tuple(chosen(host, reg, pipeline) for reg in host.registry["tilers"].values())
    return Candidates(
        tuple(chosen(host, reg, pipeline) for reg in backends),
        tuple(chosen(host, reg, pipeline) for reg in splits),
        Chosen(host.get("executors", "thread")),
        tilers,
    )


def lookup(host: Host, capability: str, name: str, path: str) -> Registration:
    """``host.get``, its error pointing at the key that named the plugin."""
    try:
        return host.get(capability, name)
    except InputError as exc:
        raise InputError(exc.message, source=exc.source, path=exc.path or path) from None


def make_plan(pipeline: Pipeline, host: Host) -> Plan:
    """Resolve a structured pipeline against the installed plugins."""
    builder = lookup(host, "builders", pipeline.problem, "problem")
    solve = pipeline.solve
    # auto: the problem kind's own backend when its builder names one, else chosen by the run.
    named = builder.backend if solve.backend == AUTO else solve.backend
    backend = lookup(host, "backends", named, "solve.backend") if named else None
    auto = backend is None
    if auto and not host.registry["backends"]:  # the core alone
        raise InputError(
            "no backend plugin is installed; install one "
            "(pip install -e plugins/cpsat, or plugins/exactcover, plugins/scip) and see `polytile plugins`",
            path="solve.backend",
        )
    backend_why = "named in the pipeline" if solve.backend != AUTO else f"the {pipeline.problem} problem's own backend"
    # auto races routes or runs a split's parts on every usable core unless told otherwise.
    jobs = solve.jobs if solve.jobs is not None else (usable_cores() if auto else 1)
    if jobs < 1:
        raise InputError(f"expected 1 or more, got {jobs}", path="solve.jobs")
    if solve.time_limit is not None and not solve.time_limit > 0:  # also refuses nan
        raise InputError(f"expected a positive number of seconds, got {solve.time_limit}", path="solve.time_limit")
    if solve.workers is not None and solve.workers < 1:
        raise InputError(f"expected 1 or more, got {solve.workers}", path="solve.workers")
    if solve.seed is not None and not 0 <= solve.seed < 2**31:
        raise InputError(f"expected a seed from 0 to {2**31 - 1}, got {solve.seed}", path="solve.seed")
    if solve.keep is not None and solve.keep < 0:
        raise InputError(f"expected 0 or more, got {solve.keep}", path="solve.keep")
    known = {name for capability in host.registry.values() for name in capability}
    # A plugin that registers several things sharing options reads one table named after
    # itself: the render plugin's svg and png formats read [options.render].
    known |= set(host.plugin_origins())
    for name in pipeline.options:
        if name not in known:
            raise InputError(f"no installed plugin provides {name!r} (see `polytile plugins`)", path=f"options.{name}")
    split = lookup(host, "decomposers", pipeline.split.method, "split.method") if pipeline.split else None
    if split and split.capabilities.one_solution_only and solve.mode != "one":
        raise InputError(
            f"the {split.name} split finds one tiling; it cannot count or list them "
            f'(use solve.mode = "one", or another split), got mode {solve.mode!r}',
            path="split.method",
        )
    if split and solve.mode not in split.capabilities.modes:
        raise InputError(
            f"the {split.name} split serves modes {', '.join(sorted(split.capabilities.modes))}, "
            f"got mode {solve.mode!r}",
            path="split.method",
        )
    if pipeline.problem != "tiling" and solve.mode != "one":
        # Listing or counting would drop the objective and walk every feasible answer.
        declared = builder.capabilities
        listing = declared.lists_optimal if isinstance(declared, BuilderCapabilities) else None
        raise InputError(
            f'problem {pipeline.problem!r} is an optimisation: mode "one" finds the best answer; '
            f'"all" and "count" list and count tilings, got mode {solve.mode!r}'
            + (f"; to list every optimal answer, set {listing}" if listing else ""),
            path="solve.mode",
        )
    executor: Chosen | AutoExecutor
    if solve.executor == AUTO:
        executor = AutoExecutor(Chosen(host.get("executors", "thread")), Chosen(host.get("executors", "process")))
    else:
        executor = chosen(host, lookup(host, "executors", solve.executor, "solve.executor"), pipeline)
    mode = "optimize" if pipeline.problem != "tiling" else solve.mode
    pieces = resolve_pieces(pipeline.pieces, host)
    region = resolve_region(pipeline.region, required=pipeline.problem == "tiling")
    split_when_long = None
    if split is None and mode in ("count", "all") and not solve.distinct:
        split_when_long = next(
            (
                registration
                for registration in host.registry["decomposers"].values()
                if registration.capabilities.when_long and jobs >= max(2, registration.capabilities.min_jobs)
            ),
            None,
        )
    return Plan(
        problem=pipeline.problem,
        pieces=pieces,
        region=region,
        builder=chosen(host, builder, pipeline),
        backend=None if backend is None else chosen(host, backend, pipeline),
        backend_why=backend_why,
        settings=SolveSettings(mode=mode, time_limit=solve.time_limit, workers=solve.workers or 0, seed=solve.seed),
        split=chosen(host, split, pipeline) if split else None,
        jobs=jobs,
        executor=executor,
        distinct=solve.distinct,
        keep=solve.keep,
        candidates=auto_candidates(host, pipeline) if auto else None,
        split_when_long=chosen(host, split_when_long, pipeline) if split_when_long else None,
    )


# The command-line option that sets each [solve] key, for errors that blame the option.
OPTION_OF = {
    "mode": "--mode",
    "backend": "--backend",
    "time_limit": "--time-limit",
    "jobs": "--jobs",
    "executor": "--executor",
    "distinct": "--distinct",
}


def load_plan(path: str | Path, host: Host, overrides: dict | None = None) -> Plan:
    """Read a pipeline file and resolve it, with ``[solve]`` keys replaced by ``overrides``
    (from the command line); every error names the file, or the option when the value
    that failed came from the command line."""
    overrides = overrides or {}
    try:
        pipeline = read_pipeline(path)
        if overrides:
            pipeline = attrs.evolve(pipeline, solve=attrs.evolve(pipeline.solve, **overrides))
        plan = make_plan(pipeline, host)
    except InputError as exc:
        key = (exc.path or "").removeprefix("solve.")
        if exc.path == f"solve.{key}" and key in overrides and key in OPTION_OF:
            raise InputError(exc.message, source=f"{OPTION_OF[key]} {overrides[key]}") from None
        raise exc.with_source(str(path)) from None
    if "backend" in overrides and overrides["backend"] != AUTO:
        plan = attrs.evolve(plan, backend_why="named on the command line")
    return plan
