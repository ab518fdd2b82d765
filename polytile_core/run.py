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

from polytile_core.backend import BackendResult
from polytile_core.model import Model
from polytile_core.pipeline import Plan
from polytile_core.results import Found, PlacedPiece, Result, Solution, Termination
from polytile_core.symmetry import distinct_count


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
    given, the ``keep`` best: lowest rank first) and counts them all."""

    def __init__(
        self,
        keep: int | None,
        on_solution: Callable[[Solution], None] | None,
        want_all: bool,
        rank: Callable[[Solution], float] | None = None,
    ):
        self.keep = keep
        self.on_solution = on_solution
        self.want_all = want_all
        self.rank = rank
        self.kept: list[Solution] = []
        self.all: list[Solution] = []
        self.seen = 0
        self.lock = threading.Lock()

    def add(self, solution: Solution) -> None:
        with self.lock:
            self.seen += 1
            if self.rank is not None:
                self.kept = sorted([*self.kept, solution], key=self.rank)[: self.keep]
            elif self.keep is None or len(self.kept) < self.keep:
                self.kept.append(solution)
            if self.want_all:
                self.all.append(solution)
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
    collector = _Collector(default_keep(plan), on_solution, want_all=plan.distinct, rank=_ranking(plan, model))
    parts_state = {"done": 0, "total": None}
    outcome: dict = {}
    done = threading.Event()

    def work():
        try:
            if plan.split is None:
                outcome["result"] = _solve_whole(plan, model, collector, stop)
            else:
                from polytile_core.parallel import solve_split

                outcome["result"] = solve_split(plan, model, collector, stop, parts_state)
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
                on_progress(Progress(collector.seen, parts_state["done"], parts_state["total"], time.perf_counter() - started))
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
        on_progress(Progress(collector.seen, parts_state["done"], parts_state["total"], time.perf_counter() - started))
    details = {**model.details, **result.details}
    if model.verify is not None:
        for solution in collector.kept:
            model.verify(solution)
    distinct = None
    if plan.distinct:
        if result.termination == Termination.COMPLETED and plan.settings.mode == "all":
            distinct = distinct_count(plan.region, collector.all)
        else:
            details["distinct"] = "counted only for a completed run in mode all"
    return attrs.evolve(
        result,
        solutions=tuple(collector.kept),
        distinct_count=distinct if distinct is not None else result.distinct_count,
        seconds=time.perf_counter() - started,
        region=tuple(sorted(plan.region.cells)) if plan.region else tuple(sorted(model.board)),
        details=details,
    )


def _ranking(plan: Plan, model: Model) -> Callable[[Solution], float] | None:
    """When optimising, rank solutions best first, so the run keeps the best ones."""
    if plan.settings.mode != "optimize" or model.objective is None:
        return None
    sign = -1 if model.maximize else 1
    return lambda solution: sign * (solution.objective or 0)


def _solve_whole(plan: Plan, model: Model, collector: _Collector, stop: threading.Event) -> Result:
    backend = plan.backend.provides(plan.backend_options)
    answer: BackendResult = backend.solve(
        model, plan.settings, lambda ones: collector.add(solution_of(model, ones)), stop
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
    )
