"""Run a plan: build the model, solve it (whole or split into parts), report a Result.

The solve runs in a worker thread while the calling thread waits, so Ctrl-C reaches
the caller at once; the run then stops the backend and still returns what was found,
marked ``interrupted``.

With ``backend = "auto"`` the run chooses its route once the model is built
(``polytile_core.route``).  To find one tiling it gives the best route a short head
start in this process (a small problem is solved before any process starts), then races
the routes in processes of their own (``polytile_core.race``), with the splits that can
prove without search that there is no tiling racing alongside.  ``details.route`` says
what was done.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import attrs

from polytile_core.backend import BackendResult
from polytile_core.capabilities import model_features
from polytile_core.errors import InputError
from polytile_core.model import Model
from polytile_core.pipeline import Plan
from polytile_core.race import Entrant, Lap, race
from polytile_core.results import Found, PlacedPiece, Result, Solution, Termination
from polytile_core.route import Route, Routing, choose
from polytile_core.schema import AUTO
from polytile_core.symmetry import (
    burnside,
    checked_symmetries,
    fixed_model,
    is_canonical,
    placement_symmetries,
    problem_symmetries,
)

# Seconds the best route of a race runs in this process before any process is started:
# enough for the small problems an embedding program solves by the thousand (a 2x4 board
# takes well under a millisecond), little next to a race's process start.  A problem
# whose model takes longer than this to build is no small problem: its race starts at once.
HEAD_START = 0.25


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
    small = time.perf_counter() - started <= HEAD_START
    routing = None
    if plan.backend is None:
        routing = choose(plan, model_features(model))
        if not routing.race:
            plan = routing.routes[0].applied(plan)
    racing = routing is not None and routing.race
    if plan.distinct and not model.symmetries and plan.region is not None and model.placements:
        # Only when asked: on a large board this costs about as much as building the model.
        model.symmetries = placement_symmetries(model, plan.region)
    in_search = not racing and _distinct_in_search(plan)
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
            if racing:
                result = _race(plan, model, routing, collector, stop, parts_state, head_start=small)
            else:
                result = _solve_routed(plan, model, collector, stop, parts_state, in_search)
                route = routing.routes[0] if routing else Route(plan.backend, plan.split, why="named in the pipeline")
                how = f"chosen by auto: {route.why}" if routing else route.why
                result = _with_route(result, {**route.report(plan), "how": how})
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
    capabilities = plan.backend.capabilities
    return plan.distinct and plan.split is None and capabilities is not None and capabilities.distinct_in_search


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


def _solve_routed(
    plan: Plan, model: Model, collector: _Collector, stop: threading.Event, parts_state: dict, in_search: bool = False
) -> Result:
    """Solve by the plan's own route: the whole model, or its split's parts."""
    if plan.split is None:
        return _solve_whole(plan, model, collector, stop, in_search)
    from polytile_core.parallel import solve_split

    return solve_split(plan, model, collector, stop, parts_state)


def _with_route(result: Result, route: dict) -> Result:
    return attrs.evolve(result, details={**result.details, "route": route})


def certify(plan: Plan) -> Result:
    """What a certificate racer runs: its split's proof that there is no tiling (found
    without search), or a result that is no answer."""
    split = plan.split.provides.split(plan.tiling_problem(), plan.split_options)
    if split.impossible:
        return Result(Termination.COMPLETED, Found.INFEASIBLE, plan.settings.mode, AUTO, "no subproblem",
                      message=split.impossible)
    return Result(Termination.COMPLETED, Found.NONE, plan.settings.mode, AUTO, "no certificate")


def _is_answer(result: Result) -> bool:
    """A tiling found, or a complete proof that there is none: either ends a race."""
    return result.termination == Termination.COMPLETED and result.found in (Found.FEASIBLE, Found.OPTIMAL, Found.INFEASIBLE)


def _racer_plan(plan: Plan, route: Route, time_limit: float | None) -> Plan:
    """The plan one route runs on its own: that backend and split, one part at a time in
    its own process (the race already spreads the routes over the cores)."""
    executor = plan.candidates.in_process_executor
    return attrs.evolve(
        route.applied(plan),
        jobs=1,
        executor=executor,
        executor_options=None,
        candidates=None,
        settings=attrs.evolve(plan.settings, time_limit=time_limit),
    )


def run_route(plan: Plan) -> Result:
    """What a racer runs: ``run``, except that a split route builds only its parts'
    models (on a large board the whole model costs seconds, and the parts never use it)."""
    if plan.split is None:
        return run(plan)
    from polytile_core.parallel import solve_split

    started = time.perf_counter()
    collector = _Collector(default_keep(plan), None, want_all=False)
    parts_state = {"done": 0, "total": None, "counted": 0}
    result = solve_split(plan, None, collector, threading.Event(), parts_state)
    return attrs.evolve(
        result, solutions=tuple(collector.kept), seconds=time.perf_counter() - started,
        region=tuple(sorted(plan.region.cells)),
    )


def _lap_report(lap: Lap) -> dict:
    outcome = lap.outcome
    if lap.error is not None:
        outcome = f"error: {lap.error}"
    elif outcome == "finished":
        outcome = f"no answer ({lap.value.termination.value}: {lap.value.raw_status})"
    return {"route": lap.name, "seconds": round(lap.seconds, 3), "outcome": outcome}


def _race(
    plan: Plan, model: Model, routing: Routing, collector: _Collector, stop: threading.Event, parts_state: dict,
    *, head_start: bool,
) -> Result:
    """Find one tiling: the best route in this process for ``HEAD_START`` seconds (when
    ``head_start``), then every route at once in processes; the first answer wins and
    the others are killed."""
    started = time.perf_counter()
    limit = plan.settings.time_limit
    deadline = None if limit is None else started + limit
    best = routing.routes[0]
    report = best.report(plan)
    laps = []
    if head_start:
        head_plan = _racer_plan(plan, best, HEAD_START if limit is None else min(HEAD_START, limit))
        head = _solve_routed(head_plan, model, collector, stop, parts_state)
        if _is_answer(head) or stop.is_set() or (deadline is not None and time.perf_counter() >= deadline):
            how = f"answered in this process within the {HEAD_START:g} s head start, before any race"
            if not _is_answer(head):
                how = "stopped in the head start, before any race"
            return _with_route(head, {**report, "how": how})
        laps.append({"route": best.name, "seconds": round(time.perf_counter() - started, 3),
                     "outcome": f"head start: no answer in {HEAD_START:g} s"})
    remaining = None if deadline is None else max(0.01, deadline - time.perf_counter())
    entrants = [Entrant(route.name, run_route, (_racer_plan(plan, route, remaining),)) for route in routing.routes]
    # A split raced as a route gives its certificate itself; the others race as certificates.
    raced = {route.split.name for route in routing.routes if route.split is not None}
    certificates = [Route(best.backend, split, why="proves without search that there is no tiling, when it can")
                    for split in routing.certificates if split.name not in raced]
    entrants += [Entrant(f"{route.split.name} certificate", certify, (_racer_plan(plan, route, remaining),))
                 for route in certificates]
    winner, race_laps = race(entrants, _is_answer, stop, deadline)
    laps += [_lap_report(lap) for lap in race_laps]
    if winner is not None:
        route = (list(routing.routes) + certificates)[[lap.name for lap in race_laps].index(winner.name)]
        for solution in winner.value.solutions:
            collector.add(solution)
        how = f"won a race of {len(race_laps)} in {winner.seconds:.2f} s"
        report = route.report(plan) if winner.name == route.name else {"name": winner.name, "split": route.split.name}
        return _with_route(winner.value, {**report, "how": how, "race": laps})
    if all(lap.error is not None and lap.error.startswith("the process ended") for lap in race_laps) and not stop.is_set():
        # No process could run (an embedding script without a __main__ guard, say): the
        # best route runs here, as a named backend would.
        fallback = _solve_routed(_racer_plan(plan, best, remaining), model, collector, stop, parts_state)
        how = "the race's processes did not start; ran in this process"
        return _with_route(fallback, {**report, "how": how, "race": laps})
    errors = [lap for lap in race_laps if lap.error is not None]
    if stop.is_set():
        termination, message = Termination.INTERRUPTED, ""
    elif errors and len(errors) == len(race_laps):
        termination = Termination.ERROR
        message = "every route failed: " + "; ".join(f"{lap.name}: {lap.error}" for lap in errors)
    else:
        termination, message = Termination.TIME_LIMIT, ""
    route = {"name": "none", "how": f"no route of {len(race_laps)} answered", "race": laps}
    return Result(termination, Found.NONE, plan.settings.mode, AUTO, "race: no answer",
                  message=message, details={"route": route})
