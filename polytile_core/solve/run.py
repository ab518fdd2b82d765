"""Run a plan: build the model, solve it (whole or split into parts), report a Result.

The build and the solve run in a worker thread while the calling thread waits, so
Ctrl-C reaches the caller at once; the run then stops the build or the backend and
still returns what was found, marked ``interrupted``.

With ``backend = "auto"`` the run chooses its route once the model is built
(``polytile_core.solve.route``).  To find one tiling it gives the best route a short
head start in this process (a small problem is solved before any process starts), then
races the routes in processes of their own (``polytile_core.solve.race``), with the
splits that can prove without search that there is no tiling racing alongside.
``details.route`` says what was done.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable

import attrs

from polytile_core.config.pipeline import Plan
from polytile_core.host.capabilities import AUTO, model_features
from polytile_core.host.contracts import listen_to_progress
from polytile_core.model.parts import SplitTooLarge
from polytile_core.model.symmetry import placement_symmetries
from polytile_core.model.zero_one import BuildStopped, Model, build_limits
from polytile_core.output.results import Found, PlacedPiece, Result, Solution, Termination
from polytile_core.solve import distinct
from polytile_core.solve.autosplit import solve_probed, worth_splitting
from polytile_core.solve.collect import Collector, default_keep, solution_of
from polytile_core.solve.outcome import Outcome
from polytile_core.solve.race import Entrant, Lap, race
from polytile_core.solve.route import Route, Routing, choose
from polytile_core.solve.split import solve_split
from polytile_core.solve.state import Progress, RunState

# Seconds the best route of a race runs in this process before any process is started:
# enough for the problems an embedding program solves by the thousand (a 2x4 board takes
# well under a millisecond) and for most that exact cover solves at once, little next to
# a race's start (fresh interpreters that import the solvers and build the model again).
HEAD_START = 1.0
# A model that takes longer than this to build is no small problem: its race starts at once.
SMALL_MODEL = 0.25
# Cells from which one tiling is left to a tiler that builds no whole model (when one
# serves the problem), with no whole-model route to follow.
LARGE_REGION = 20_000


def run(
    plan: Plan,
    *,
    on_solution: Callable[[Solution], None] | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    stop: threading.Event | None = None,
    abandon: threading.Event | None = None,
) -> Result:
    """Solve a plan and return its Result. ``stop`` ends the run early (interrupted), as
    Ctrl-C does; ``abandon`` (or a second Ctrl-C) returns at once, with the solutions
    received so far, without waiting for the backend to stop.

    The time limit covers the whole run: building the model stops at the deadline too,
    and the backend gets the time that is left.
    """
    stop = stop or threading.Event()
    abandon = abandon or threading.Event()
    state = RunState()
    deadline = None if plan.settings.time_limit is None else time.monotonic() + plan.settings.time_limit
    collector = Collector(default_keep(plan), on_solution)
    models: list[Model] = []
    answers: list[Outcome] = []
    errors: list[BaseException] = []
    done = threading.Event()

    def work():
        listen_to_progress(state.note)  # what the backend reports while it searches
        try:
            # The time limit and ``stop`` hold in the build and in what prepares the search
            # (symmetries, a split's parts), as the backend's own search holds them.
            with build_limits(deadline, stop):
                answers.append(solve(models))
        except BuildStopped as stopped:
            answers.append(_unbuilt(Termination(stopped.reason)))
        except BaseException as exc:  # handed to the calling thread
            errors.append(exc)
        finally:
            done.set()

    def solve(models: list[Model]) -> Outcome:
        proof = _proved_by_area(plan)
        if proof is not None:  # no model to build, nothing to search
            return proof
        tiled = _tiled_without_model(plan, collector, stop, deadline)
        if tiled is not None:
            return tiled
        models.append(_prepared_model(plan))
        model = models[0]
        small = time.perf_counter() - state.started <= SMALL_MODEL
        routing = choose(plan, model_features(model), large_model=not small) if plan.backend is None else None
        chosen = routing.routes[0].applied(plan) if routing is not None and not routing.race else plan
        _configure(collector, chosen, model)
        timed = chosen if deadline is None else _with_time_left(chosen, deadline - time.monotonic())
        if timed is None:
            raise BuildStopped("time_limit")
        if routing is not None and routing.race:
            outcome = _race(timed, model, routing, collector, stop, state, head_start=small)
        elif worth_splitting(chosen):
            in_search = distinct.in_search(chosen)

            def whole(probe: Plan, model: Model, held: Collector, stop: threading.Event) -> Outcome:
                return _solve_routed(probe, model, held, stop, state, in_search)

            outcome = _on_one_route(solve_probed(timed, model, collector, stop, state, whole), chosen, routing)
        else:
            outcome = _solve_routed(timed, model, collector, stop, state, distinct.in_search(chosen))
            outcome = _on_one_route(outcome, chosen, routing)
        if plan.distinct:
            try:
                outcome = distinct.with_distinct(chosen, model, outcome, collector, stop)
            except BuildStopped as stopped:  # what was found and counted stands
                why = "the time limit ran out" if stopped.reason == "time_limit" else "the run was stopped"
                outcome = attrs.evolve(outcome, details={**outcome.details, "distinct": f"not counted: {why}"})
        return outcome

    worker = threading.Thread(target=work, name="polytile-solve", daemon=True)
    interrupted = False
    worker.start()
    while not (done.is_set() or abandon.is_set()):
        try:
            while not (done.wait(0.2) or abandon.is_set()):
                if on_progress:
                    on_progress(state.progress(collector.seen))
        except KeyboardInterrupt:
            interrupted = True
            (abandon if stop.is_set() else stop).set()
    abandoned = not done.is_set()
    if abandoned:
        outcome = _abandoned(plan, collector, state)
    elif errors:
        raise errors[0]
    else:
        outcome = answers[0]
    if interrupted or (stop.is_set() and outcome.termination == Termination.COMPLETED and plan.settings.mode != "one"):
        outcome = attrs.evolve(outcome, termination=Termination.INTERRUPTED)
    if on_progress:
        on_progress(state.progress(collector.seen))
    model = models[0] if models else None
    if model is not None and model.verify is not None and not abandoned:
        for solution in collector.kept:
            model.verify(solution)
    return _result(plan, model, outcome, collector, state)


def _prepared_model(plan: Plan) -> Model:
    # A large model is millions of small tuples that never form cycles: the cycle collector
    # would only scan the growing heap again and again (it doubles the 100×100 build's time).
    collecting = gc.isenabled()
    gc.disable()
    try:
        model = _statement(plan) if _reads_no_rows(plan) else plan.build()
    finally:
        if collecting:
            gc.enable()
    if plan.distinct and not model.symmetries and plan.region is not None and model.placements:
        # Only when asked: on a large board this costs about as much as building the model.
        model.symmetries = placement_symmetries(model, plan.region, plan.pieces)
    return model


def _reads_no_rows(plan: Plan) -> bool:
    """Whether the plan's backend is its builder's own and declares ``reads_model = False``."""
    backend = plan.backend
    if backend is None or backend.capabilities is None or backend.name != plan.builder.backend:
        return False
    return not backend.capabilities.reads_model


def _statement(plan: Plan) -> Model:
    """The builder's statement of the problem alone, for a backend that reads no rows."""
    return plan.builder.provides(plan.pieces, plan.region, plan.builder_options, rows=False)


def _proved_by_area(plan: Plan) -> Outcome | None:
    """The answer, with no search, when the pieces' areas cannot add up to the region's:
    a proof that no tiling exists, reported like a split's parity proof."""
    if plan.problem != "tiling":
        return None
    reason = plan.tiling_problem().area_problem()
    if reason is None:
        return None
    counting = plan.settings.mode in ("all", "count")
    return Outcome(
        termination=Termination.COMPLETED,
        found=Found.INFEASIBLE,
        raw_status="no search",
        count=0 if counting else None,
        distinct_count=0 if counting and plan.distinct else None,
        message=f"impossible by area: {reason}",
        details={"certificate": "area"},
    )


def _tiled_without_model(
    plan: Plan, collector: Collector, stop: threading.Event, deadline: float | None
) -> Outcome | None:
    """One tiling of a large region by a tiler that builds no whole model (``Candidates.tilers``),
    when ``auto`` may choose the route: mode one, no split, no distinct.  From
    ``LARGE_REGION`` cells up the tiler has the run's time and its answer is the run's;
    below, it has a short look (``2 s + area / 2000``), and the usual routes follow if it
    finds nothing.  None: no tiler serves the plan, or the usual routes are to follow."""
    candidates = plan.candidates
    if plan.backend is not None or plan.split is not None or plan.distinct or candidates is None:
        return None
    if plan.problem != "tiling" or plan.settings.mode != "one" or plan.region is None:
        return None
    problem = plan.tiling_problem()
    tiler = next((reg for reg in candidates.tilers if reg.provides.applies(problem, "one") is None), None)
    if tiler is None:
        return None
    large = problem.region.area >= LARGE_REGION
    look = deadline if large else time.monotonic() + 2 + problem.region.area / 2000
    if deadline is not None and look is not None:
        look = min(look, deadline)
    answer = tiler.provides.tile(problem, seed=plan.settings.seed, stop=stop, deadline=look)
    route = {
        "name": tiler.name,
        "how": f"chosen by auto: {problem.region.area:,} cells, one tiling found part by part with no whole model",
        **answer.details,
    }
    if answer.status == "found":
        errors = problem.tiling_errors(answer.placements)
        if errors:  # the core's own check, cell by cell: a tiler's mistake is never reported
            raise RuntimeError(f"the {tiler.name} tiler gave no tiling: {'; '.join(errors[:3])}")
        pieces = tuple(PlacedPiece(name, tuple(cells)) for name, cells in answer.placements)
        collector.add(Solution(pieces))
        return Outcome(Termination.COMPLETED, Found.FEASIBLE, "tiled", backend=tiler.name, details={"route": route})
    if answer.status == "infeasible":
        return Outcome(
            Termination.COMPLETED,
            Found.INFEASIBLE,
            "no search",
            message=answer.message,
            backend=tiler.name,
            details={"certificate": "counting", "route": route},
        )
    time_left = not stop.is_set() and (deadline is None or time.monotonic() < deadline)
    if not large and answer.status in ("gave_up", "time_limit") and time_left:
        return None  # the usual routes, with the time that is left
    termination = {"interrupted": Termination.INTERRUPTED, "time_limit": Termination.TIME_LIMIT}.get(
        answer.status, Termination.COMPLETED
    )
    message = answer.message or (
        f"the {tiler.name} tiler found no tiling; it searches part by part, so this is no proof that there is none"
    )
    return Outcome(
        termination, Found.NONE, answer.status, message=message, backend=tiler.name, details={"route": route}
    )


def _configure(collector: Collector, plan: Plan, model: Model) -> None:
    """Tell the collector, once the model is known, how to rank and filter solutions."""
    in_search = distinct.in_search(plan)
    listing_distinct = plan.distinct and not in_search and plan.settings.mode == "all"
    collector.accept = distinct.canonical_filter(plan, model) if listing_distinct else None
    collector.rank = _ranking(plan, model)


def _with_time_left(plan: Plan, seconds: float) -> Plan | None:
    """The plan with the time left after building as its backend's limit (None when none is left)."""
    if seconds <= 0:
        return None
    return attrs.evolve(plan, settings=attrs.evolve(plan.settings, time_limit=seconds))


def _unbuilt(termination: Termination) -> Outcome:
    why = "the time limit ran out" if termination == Termination.TIME_LIMIT else "the run was stopped"
    return Outcome(
        termination=termination,
        found=Found.NONE,
        raw_status="not solved",
        message=f"{why} before the search began (while building the model or preparing its search)",
    )


def _abandoned(plan: Plan, collector: Collector, state: RunState) -> Outcome:
    """What a run that did not wait for its backend to stop knows: what was streamed
    (in mode count, only what finished parts counted: the backend's own count is lost)."""
    with collector.lock:
        seen = collector.seen
    counted = max(seen, state.counted)
    listing = plan.settings.mode == "all" or (plan.settings.mode == "count" and counted > 0)
    return Outcome(
        termination=Termination.INTERRUPTED,
        found=Found.FEASIBLE if seen else Found.NONE,
        raw_status="abandoned",
        count=counted if listing else None,
        message="a second Ctrl-C: the backend was not waited for; these are the solutions it had sent",
    )


def _result(plan: Plan, model: Model | None, outcome: Outcome, collector: Collector, state: RunState) -> Result:
    """The one place a run's ``Result`` is made (``model`` is None when its build was cut short)."""
    if plan.region is not None:
        region = tuple(sorted(plan.region.cells))
    else:
        region = tuple(sorted(model.board)) if model is not None else ()
    with collector.lock:
        kept = tuple(collector.kept)
    return Result(
        termination=outcome.termination,
        found=outcome.found,
        mode=plan.settings.mode,
        backend=outcome.backend or (plan.backend.name if plan.backend else AUTO),
        raw_status=outcome.raw_status,
        count=outcome.count,
        distinct_count=outcome.distinct_count,
        solutions=kept,
        objective=outcome.objective,
        bound=outcome.bound,
        seconds=time.perf_counter() - state.started,
        message=outcome.message,
        region=region,
        subproblems=outcome.subproblems,
        details={**(model.details if model is not None else {}), **outcome.details},
    )


def _ranking(plan: Plan, model: Model) -> Callable[[Solution], float] | None:
    """When optimising, rank solutions best first, so the run keeps the best ones."""
    if plan.settings.mode != "optimize" or model.objective is None:
        return None
    sign = -1 if model.maximize else 1
    return lambda solution: sign * (solution.objective or 0)


def _solve_whole(
    plan: Plan, model: Model, collector: Collector, stop: threading.Event, in_search: bool = False
) -> Outcome:
    assert plan.backend is not None, "backend auto is resolved before solving"
    backend = plan.backend.provides(plan.backend_options)
    pieces: dict[int, PlacedPiece] = {}
    answer = backend.solve(
        model,
        attrs.evolve(plan.settings, distinct=in_search),
        lambda ones: collector.add(solution_of(model, ones, pieces)),
        stop,
    )
    count = answer.count
    if plan.settings.mode in ("all", "count") and count is None:
        count = collector.seen
    return Outcome(
        termination=answer.termination,
        found=answer.found,
        raw_status=answer.raw_status,
        count=count,
        objective=None if answer.objective is None else round(answer.objective),
        bound=answer.bound,
        distinct_count=answer.distinct_count,
        details=answer.details,
        work=answer.work,
    )


def _solve_routed(
    plan: Plan, model: Model, collector: Collector, stop: threading.Event, state: RunState, in_search: bool = False
) -> Outcome:
    """Solve by the plan's own route: the whole model, or its split's parts."""
    if plan.split is None:
        return _solve_whole(plan, model, collector, stop, in_search)
    return solve_split(plan, model, collector, stop, state)


def _with_route(outcome: Outcome, route: dict) -> Outcome:
    return attrs.evolve(outcome, details={**outcome.details, "route": route})


def _on_one_route(outcome: Outcome, plan: Plan, routing: Routing | None) -> Outcome:
    """The outcome of a run on one route, saying which (chosen by auto, or named)."""
    assert plan.backend is not None
    if routing is not None:
        route = routing.routes[0]
        report = {**route.report(plan), "how": f"chosen by auto: {route.why}"}
    else:
        named = Route(plan.backend, plan.split, why=plan.backend_why)
        report = {**named.report(plan), "how": named.why}
    return attrs.evolve(_with_route(outcome, report), backend=plan.backend.name)


def certify(plan: Plan, model: Model) -> Result:
    """A split's proof that there is no tiling, found without search (run in this
    process while the racers run), or a result that is no answer (also when the split
    is too large to analyse: its analysis is bounded by size)."""
    assert plan.split is not None
    try:
        split = plan.split.provides.split(plan.tiling_problem(), model, plan.build, plan.split_options, jobs=plan.jobs)
    except SplitTooLarge as exc:
        return Result(
            Termination.COMPLETED, Found.NONE, plan.settings.mode, AUTO, "no certificate", message=exc.message
        )
    if split.impossible:
        return Result(
            Termination.COMPLETED, Found.INFEASIBLE, plan.settings.mode, AUTO, "no subproblem", message=split.impossible
        )
    return Result(Termination.COMPLETED, Found.NONE, plan.settings.mode, AUTO, "no certificate")


def _is_answer(result: Result) -> bool:
    """A tiling found, or a complete proof that there is none: either ends a race."""
    answers = (Found.FEASIBLE, Found.OPTIMAL, Found.INFEASIBLE)
    return result.termination == Termination.COMPLETED and result.found in answers


def _racer_plan(plan: Plan, route: Route, time_limit: float | None) -> Plan:
    """The plan one route runs on its own: that backend and split, one part at a time in
    its own process (the race already spreads the routes over the cores)."""
    assert plan.candidates is not None
    return attrs.evolve(
        route.applied(plan),
        jobs=1,
        executor=plan.candidates.in_process_executor,
        executor_options=None,
        candidates=None,
        settings=attrs.evolve(plan.settings, time_limit=time_limit),
    )


def _lap_report(lap: Lap) -> dict:
    outcome = lap.outcome
    if lap.error is not None:
        outcome = f"error: {lap.error}"
    elif outcome == "finished":
        outcome = f"no answer ({lap.value.termination.value}: {lap.value.raw_status})"
    return {"route": lap.name, "seconds": round(lap.seconds, 3), "outcome": outcome}


def _outcome_of(result: Result) -> Outcome:
    """A racer's Result as the outcome of this run (its solutions go to the collector)."""
    return Outcome(
        termination=result.termination,
        found=result.found,
        raw_status=result.raw_status,
        count=result.count,
        objective=result.objective,
        bound=result.bound,
        distinct_count=result.distinct_count,
        message=result.message,
        subproblems=result.subproblems,
        details=result.details,
        backend=result.backend,
    )


def _race(
    plan: Plan,
    model: Model,
    routing: Routing,
    collector: Collector,
    stop: threading.Event,
    state: RunState,
    *,
    head_start: bool,
) -> Outcome:
    """Find one tiling: the best route in this process for ``HEAD_START`` seconds (when
    ``head_start``), then every route at once in processes; the first answer wins and
    the others are killed."""
    started = time.perf_counter()
    limit = plan.settings.time_limit
    deadline = None if limit is None else started + limit
    best = routing.routes[0]
    laps = []
    if head_start:
        head_plan = _racer_plan(plan, best, HEAD_START if limit is None else min(HEAD_START, limit))
        head = _solve_routed(head_plan, model, collector, stop, state)
        answered = head.termination == Termination.COMPLETED and head.found != Found.NONE
        if answered or stop.is_set() or (deadline is not None and time.perf_counter() >= deadline):
            how = f"answered in this process within the {HEAD_START:g} s head start, before any race"
            if not answered:
                how = "stopped in the head start, before any race"
            return attrs.evolve(_with_route(head, {**best.report(plan), "how": how}), backend=best.backend.name)
        laps.append(
            {
                "route": best.name,
                "seconds": round(time.perf_counter() - started, 3),
                "outcome": f"head start: no answer in {HEAD_START:g} s",
            }
        )
    remaining = None if deadline is None else max(0.01, deadline - time.perf_counter())
    entrants = [Entrant(route.name, run, (_racer_plan(plan, route, remaining),)) for route in routing.routes]
    reports = [route.report(plan) for route in routing.routes]
    # A split raced as a route gives its certificate itself; the others are asked here,
    # on this process's model, while the racers start.
    raced = {route.split.name for route in routing.routes if route.split is not None}
    here = []
    for split in routing.certificates:
        if split.name not in raced:
            name = f"{split.name} certificate"
            here.append(Entrant(name, certify, (_racer_plan(plan, Route(best.backend, split), remaining), model)))
            reports.append({"name": name, "split": split.name, "why": "a proof without search that there is no tiling"})
    winner, race_laps = race(entrants, _is_answer, stop, deadline, here)
    laps += [_lap_report(lap) for lap in race_laps]
    if winner is not None:
        for solution in winner.value.solutions:
            collector.add(solution)
        report = reports[[lap.name for lap in race_laps].index(winner.name)]
        how = f"won a race of {len(race_laps)} in {winner.seconds:.2f} s"
        return _with_route(_outcome_of(winner.value), {**report, "how": how, "race": laps})
    none_started = all(lap.error is not None and lap.error.startswith("the process ended") for lap in race_laps)
    if none_started and not stop.is_set():
        # No process could run: the best route runs here, as a named backend would.
        fallback = _solve_routed(_racer_plan(plan, best, remaining), model, collector, stop, state)
        how = "the race's processes did not start; ran in this process"
        fallback = _with_route(fallback, {**best.report(plan), "how": how, "race": laps})
        return attrs.evolve(fallback, backend=best.backend.name)
    errors = [lap for lap in race_laps if lap.error is not None]
    if stop.is_set():
        termination, message = Termination.INTERRUPTED, ""
    elif errors and len(errors) == len(race_laps):
        termination = Termination.ERROR
        message = "every route failed: " + "; ".join(f"{lap.name}: {lap.error}" for lap in errors)
    else:
        termination, message = Termination.TIME_LIMIT, ""
    route_report = {"name": "none", "how": f"no route of {len(race_laps)} answered", "race": laps}
    return Outcome(termination, Found.NONE, "race: no answer", message=message, details={"route": route_report})
