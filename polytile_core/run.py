"""Run a plan: build the model, solve it (whole or split into parts), report a Result.

The solve runs in a worker thread while the calling thread waits, so Ctrl-C reaches
the caller at once; the run then stops the backend and still returns what was found,
marked ``interrupted``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import attrs

from polytile_core.autosplit import solve_probed, worth_splitting
from polytile_core.backend import BackendResult
from polytile_core.errors import InputError
from polytile_core.model import Model
from polytile_core.pipeline import Plan
from polytile_core.results import Found, PlacedPiece, Result, Solution, Termination
from polytile_core.symmetry import (
    burnside,
    checked_symmetries,
    fixed_model,
    is_canonical,
    placement_symmetries,
    problem_symmetries,
)


@attrs.frozen
class Progress:
    """A snapshot for progress displays."""

    solutions: int
    parts_done: int
    parts_total: int | None
    elapsed: float


def solution_of(model: Model, ones: list[int]) -> Solution:
    """Turn the decision variables that are 1 back into placed pieces (and enclosed cells)."""
    placed = tuple(
        PlacedPiece(model.placements[var].piece, model.placements[var].cells) for var in ones if var in model.placements
    )
    interior = tuple(sorted(model.interior[var] for var in ones if var in model.interior)) if model.interior else None
    return Solution(placed, model.objective_value(ones), interior)


def build_model(plan: Plan) -> Model:
    return plan.builder.provides(plan.pieces, plan.region, plan.builder_options)


def default_keep(plan: Plan) -> int | None:
    if plan.keep is not None:
        return plan.keep
    return {"all": None, "count": 0}.get(plan.settings.mode, 1)


class _Collector:
    """Receives solutions from any thread; keeps the first ``keep`` (or, when ``rank`` is
    given, the ``keep`` best: lowest rank first) and counts them all.  With ``accept``
    (listing up to symmetry) only accepted solutions are kept, passed on and counted
    in ``accepted``; ``want_all`` then asks the parts of a split to send every one."""

    def __init__(
        self,
        keep: int | None,
        on_solution: Callable[[Solution], None] | None,
        want_all: bool,
        rank: Callable[[Solution], float] | None = None,
        accept: Callable[[Solution], bool] | None = None,
    ):
        self.keep = keep
        self.on_solution = on_solution
        self.want_all = want_all
        self.rank = rank
        self.accept = accept
        self.kept: list[Solution] = []
        self.seen = 0
        self.accepted = 0
        self.lock = threading.Lock()

    def add(self, solution: Solution) -> None:
        with self.lock:
            self.seen += 1
            if self.accept is not None and not self.accept(solution):
                return
            self.accepted += 1
            if self.rank is not None:
                self.kept = sorted([*self.kept, solution], key=self.rank)[: self.keep]
            elif self.keep is None or len(self.kept) < self.keep:
                self.kept.append(solution)
        if self.on_solution is not None:
            self.on_solution(solution)


def run(
    plan: Plan,
    *,
    on_solution: Callable[[Solution], None] | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    stop: threading.Event | None = None,
) -> Result:
    """Solve a plan and return its Result. ``stop`` ends the run early (interrupted)."""
    stop = stop or threading.Event()
    started = time.perf_counter()
    model = build_model(plan)
    if plan.distinct and not model.symmetries and plan.region is not None and model.placements:
        # Only when asked: on a large board this costs about as much as building the model.
        model.symmetries = placement_symmetries(model, plan.region)
    in_search = _distinct_in_search(plan)
    accept = _canonical_filter(plan, model) if plan.distinct and not in_search and plan.settings.mode == "all" else None
    collector = _Collector(
        default_keep(plan), on_solution, want_all=accept is not None, rank=_ranking(plan, model), accept=accept
    )
    # Filled by a split run: parts done, parts in all, solutions counted in finished parts.
    parts_state = {"done": 0, "total": None, "counted": 0}
    outcome: dict = {}
    done = threading.Event()

    def work():
        try:
            if worth_splitting(plan):
                result = solve_probed(plan, model, collector, stop, parts_state, _solve_whole)
            elif plan.split is None:
                result = _solve_whole(plan, model, collector, stop, in_search)
            else:
                from polytile_core.parallel import solve_split

                result = solve_split(plan, model, collector, stop, parts_state)
            if plan.distinct:
                result = _with_distinct(plan, model, result, collector, stop)
            outcome["result"] = result
        except BaseException as exc:  # handed to the calling thread
            outcome["error"] = exc
        finally:
            done.set()

    worker = threading.Thread(target=work, name="polytile-solve", daemon=True)
    interrupted = False
    worker.start()
    try:
        while not done.wait(0.2):
            if on_progress:
                on_progress(_progress(collector, parts_state, started))
    except KeyboardInterrupt:
        interrupted = True
        stop.set()
        done.wait()
    if "error" in outcome:
        raise outcome["error"]
    result: Result = outcome["result"]
    if interrupted or (stop.is_set() and result.termination == Termination.COMPLETED and plan.settings.mode != "one"):
        result = attrs.evolve(result, termination=Termination.INTERRUPTED)
    if on_progress:
        on_progress(_progress(collector, parts_state, started))
    details = {**model.details, **result.details}
    if model.verify is not None:
        for solution in collector.kept:
            model.verify(solution)
    return attrs.evolve(
        result,
        solutions=tuple(collector.kept),
        seconds=time.perf_counter() - started,
        region=tuple(sorted(plan.region.cells)) if plan.region else tuple(sorted(model.board)),
        details=details,
    )


def _progress(collector: _Collector, parts_state: dict, started: float) -> Progress:
    """Solutions seen so far: those streamed, or those counted by finished parts (mode count
    streams none)."""
    solutions = max(collector.seen, parts_state["counted"])
    return Progress(solutions, parts_state["done"], parts_state["total"], time.perf_counter() - started)


def _ranking(plan: Plan, model: Model) -> Callable[[Solution], float] | None:
    """When optimising, rank solutions best first, so the run keeps the best ones."""
    if plan.settings.mode != "optimize" or model.objective is None:
        return None
    sign = -1 if model.maximize else 1
    return lambda solution: sign * (solution.objective or 0)


def _distinct_in_search(plan: Plan) -> bool:
    """Whether the backend solves up to symmetry itself (whole problems only: the parts of
    a split have lost the region's symmetry)."""
    return plan.distinct and plan.split is None and getattr(plan.backend.provides, "supports_distinct", False)


def _canonical_filter(plan: Plan, model: Model) -> Callable[[Solution], bool] | None:
    """Keeps one solution per class (the smallest image), without storing any."""
    if plan.region is None or not model.placements:
        return None
    symmetries = problem_symmetries(model, plan.region)
    return lambda solution: is_canonical(plan.region, solution, symmetries)


def _with_distinct(plan: Plan, model: Model, result: Result, collector: _Collector, stop: threading.Event) -> Result:
    """Add the count up to symmetry, when the backend has not: in mode all the solutions
    the canonical filter accepted, in mode count Burnside's lemma (``count`` stays raw)."""
    if result.distinct_count is not None:
        return result
    why = None
    if plan.settings.mode not in ("all", "count"):
        why = "counted in modes all and count only"
    elif result.termination != Termination.COMPLETED:
        why = "not counted: the run did not complete"
    elif plan.settings.mode == "all":
        if collector.accept is None:
            why = "not counted: the model has no placements to compare"
        else:
            return attrs.evolve(result, distinct_count=collector.accepted)
    else:
        distinct = _burnside_count(plan, model, result.count, stop)
        if distinct is not None:
            return attrs.evolve(result, distinct_count=distinct, details={**result.details, "distinct": "burnside"})
        why = "not counted: the model declares no symmetries, or a fixed-solution count did not complete"
    return attrs.evolve(result, details={**result.details, "distinct": why})


def _burnside_count(plan: Plan, model: Model, raw: int | None, stop: threading.Event) -> int | None:
    """Classes = the average over the symmetries of the solutions each one fixes, each
    counted by the plan's backend on a smaller model (``symmetry.fixed_model``)."""
    try:
        group = checked_symmetries(model)
    except ValueError as exc:
        raise InputError(f"cannot count up to symmetry: {exc}", path="solve.distinct") from None
    if not group or raw is None:
        return None
    backend = plan.backend.provides(plan.backend_options)
    settings = attrs.evolve(plan.settings, mode="count", distinct=False)
    fixes = [raw]
    for permutation in group[1:]:
        fixed, _ = fixed_model(model, permutation)
        answer = backend.solve(fixed, settings, lambda ones: None, stop)
        if answer.termination != Termination.COMPLETED or answer.count is None:
            return None
        fixes.append(answer.count)
    return burnside(fixes)


def _solve_whole(
    plan: Plan, model: Model, collector: _Collector, stop: threading.Event, in_search: bool = False
) -> Result:
    backend = plan.backend.provides(plan.backend_options)
    answer: BackendResult = backend.solve(
        model, attrs.evolve(plan.settings, distinct=in_search), lambda ones: collector.add(solution_of(model, ones)), stop
    )
    count = answer.count
    if plan.settings.mode in ("all", "count") and count is None:
        count = collector.seen
    return Result(
        termination=answer.termination,
        found=answer.found,
        mode=plan.settings.mode,
        backend=plan.backend.name,
        raw_status=answer.raw_status,
        count=count,
        objective=None if answer.objective is None else round(answer.objective),
        bound=answer.bound,
        distinct_count=answer.distinct_count,
    )
