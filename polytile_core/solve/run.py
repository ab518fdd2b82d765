"""Run a plan: build the model, solve it (whole or split into parts), report a Result.

The solve runs in a worker thread while the calling thread waits, so Ctrl-C reaches
the caller at once; the run then stops the backend and still returns what was found,
marked ``interrupted``.

With ``backend = "auto"`` the run chooses its route once the model is built
(``polytile_core.solve.route``).  To find one tiling it gives the best route a short
head start in this process (a small problem is solved before any process starts), then
races the routes in processes of their own (``polytile_core.solve.race``), with the
splits that can prove without search that there is no tiling racing alongside.
``details.route`` says what was done.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import attrs

from polytile_core.config.pipeline import Plan
from polytile_core.host.capabilities import AUTO, model_features
from polytile_core.model.symmetry import placement_symmetries
from polytile_core.model.zero_one import Model
from polytile_core.output.results import Found, Result, Solution, Termination
from polytile_core.solve import distinct
from polytile_core.solve.collect import Collector, default_keep, solution_of
from polytile_core.solve.outcome import Outcome
from polytile_core.solve.race import Entrant, Lap, race
from polytile_core.solve.route import Route, Routing, choose
from polytile_core.solve.split import solve_split
from polytile_core.solve.state import Progress, RunState

# Seconds the best route of a race runs in this process before any process is started:
# enough for the small problems an embedding program solves by the thousand (a 2x4 board
# takes well under a millisecond), little next to a race's process start.  A problem
# whose model takes longer than this to build is no small problem: its race starts at once.
HEAD_START = 0.25


def run(
    plan: Plan,
    *,
    on_solution: Callable[[Solution], None] | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    stop: threading.Event | None = None,
) -> Result:
    """Solve a plan and return its Result. ``stop`` ends the run early (interrupted)."""
    stop = stop or threading.Event()
    state = RunState()
    model = plan.build()
    small = time.perf_counter() - state.started <= HEAD_START
    routing = None
    if plan.backend is None:
        routing = choose(plan, model_features(model))
        if not routing.race:
            plan = routing.routes[0].applied(plan)
    racing = routing is not None and routing.race
    if plan.distinct and not model.symmetries and plan.region is not None and model.placements:
        # Only when asked: on a large board this costs about as much as building the model.
        model.symmetries = placement_symmetries(model, plan.region)
    in_search = not racing and distinct.in_search(plan)
    accept = distinct.canonical_filter(plan, model) if plan.distinct and not in_search and plan.settings.mode == "all" else None
    collector = Collector(
        default_keep(plan), on_solution, want_all=accept is not None, rank=_ranking(plan, model), accept=accept
    )
    answers: list[Outcome] = []
    errors: list[BaseException] = []
    done = threading.Event()

    def work():
        try:
            if routing is not None and routing.race:
                outcome = _race(plan, model, routing, collector, stop, state, head_start=small)
            else:
                outcome = _solve_routed(plan, model, collector, stop, state, in_search)
                if routing is not None:
                    route, how = routing.routes[0], f"chosen by auto: {routing.routes[0].why}"
                else:
                    assert plan.backend is not None
                    route = Route(plan.backend, plan.split, why="named in the pipeline")
                    how = route.why
                outcome = _with_route(outcome, {**route.report(plan), "how": how})
            if plan.distinct:
                outcome = distinct.with_distinct(plan, model, outcome, collector, stop)
            answers.append(outcome)
        except BaseException as exc:  # handed to the calling thread
            errors.append(exc)
        finally:
            done.set()

    worker = threading.Thread(target=work, name="polytile-solve", daemon=True)
    interrupted = False
    worker.start()
    try:
        while not done.wait(0.2):
            if on_progress:
                on_progress(state.progress(collector.seen))
    except KeyboardInterrupt:
        interrupted = True
        stop.set()
        done.wait()
    if errors:
        raise errors[0]
    outcome = answers[0]
    if interrupted or (stop.is_set() and outcome.termination == Termination.COMPLETED and plan.settings.mode != "one"):
        outcome = attrs.evolve(outcome, termination=Termination.INTERRUPTED)
    if on_progress:
        on_progress(state.progress(collector.seen))
    if model.verify is not None:
        for solution in collector.kept:
            model.verify(solution)
    return _result(plan, model, outcome, collector, state)


def _result(plan: Plan, model: Model, outcome: Outcome, collector: Collector, state: RunState) -> Result:
    """The one place a run's ``Result`` is made."""
    return Result(
        termination=outcome.termination,
        found=outcome.found,
        mode=plan.settings.mode,
        backend=outcome.backend or (plan.backend.name if plan.backend else AUTO),
        raw_status=outcome.raw_status,
        count=outcome.count,
        distinct_count=outcome.distinct_count,
        solutions=tuple(collector.kept),
        objective=outcome.objective,
        bound=outcome.bound,
        seconds=time.perf_counter() - state.started,
        message=outcome.message,
        region=tuple(sorted(plan.region.cells)) if plan.region else tuple(sorted(model.board)),
        subproblems=outcome.subproblems,
        details={**model.details, **outcome.details},
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
    answer = backend.solve(
        model, attrs.evolve(plan.settings, distinct=in_search), lambda ones: collector.add(solution_of(model, ones)), stop
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


def certify(plan: Plan) -> Result:
    """What a certificate racer runs: its split's proof that there is no tiling (found
    without search), or a result that is no answer."""
    assert plan.split is not None
    split = plan.split.provides.split(plan.tiling_problem(), plan.build(), plan.build, plan.split_options)
    if split.impossible:
        return Result(Termination.COMPLETED, Found.INFEASIBLE, plan.settings.mode, AUTO, "no subproblem",
                      message=split.impossible)
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
        termination=result.termination, found=result.found, raw_status=result.raw_status, count=result.count,
        objective=result.objective, bound=result.bound, distinct_count=result.distinct_count,
        message=result.message, subproblems=result.subproblems, details=result.details, backend=result.backend,
    )


def _race(
    plan: Plan, model: Model, routing: Routing, collector: Collector, stop: threading.Event, state: RunState,
    *, head_start: bool,
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
        laps.append({"route": best.name, "seconds": round(time.perf_counter() - started, 3),
                     "outcome": f"head start: no answer in {HEAD_START:g} s"})
    remaining = None if deadline is None else max(0.01, deadline - time.perf_counter())
    entrants = [Entrant(route.name, run, (_racer_plan(plan, route, remaining),)) for route in routing.routes]
    reports = [route.report(plan) for route in routing.routes]
    # A split raced as a route gives its certificate itself; the others race as certificates.
    raced = {route.split.name for route in routing.routes if route.split is not None}
    for split in routing.certificates:
        if split.name not in raced:
            certificate = Route(best.backend, split)
            name = f"{split.name} certificate"
            entrants.append(Entrant(name, certify, (_racer_plan(plan, certificate, remaining),)))
            reports.append({"name": name, "split": split.name, "why": "a proof without search that there is no tiling"})
    winner, race_laps = race(entrants, _is_answer, stop, deadline)
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
