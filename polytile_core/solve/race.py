"""Find one tiling by racing the routes: the first answer wins.

With ``backend = "auto"`` and several routes that may be best (``route.Routing.race``),
the best one first runs in this process for a short head start (a small problem is
solved before any process starts); then every route runs at once, each in a process of
its own (``polytile_core.solve.racers``), with the splits that can prove without search
that there is no tiling asked here, on this process's model.  ``details.route`` says
what was done, with each route's time and outcome.
"""

from __future__ import annotations

import threading
import time

import attrs

from polytile_core.config.pipeline import Plan
from polytile_core.host.capabilities import AUTO
from polytile_core.model.parts import SplitTooLarge
from polytile_core.model.zero_one import BuildStopped, Model, build_limits
from polytile_core.output.results import Found, Result, Termination, answer_fields
from polytile_core.solve.collect import Collector, default_keep
from polytile_core.solve.context import Deadline, RunContext
from polytile_core.solve.outcome import Outcome
from polytile_core.solve.prepare import configure, prepared_model
from polytile_core.solve.racers import Entrant, Lap, race
from polytile_core.solve.result import result_of
from polytile_core.solve.route import Route, Routing
from polytile_core.solve.state import RunState
from polytile_core.solve.whole import solve_routed

# Seconds the best route of a race runs in this process before any process is started:
# enough for the problems an embedding program solves by the thousand (a 2x4 board takes
# well under a millisecond) and for most that exact cover solves at once, little next to
# a race's start (fresh interpreters that import the solvers and build the model again).
HEAD_START = 1.0


def race_routes(plan: Plan, model: Model, routing: Routing, context: RunContext, *, head_start: bool) -> Outcome:
    """Find one tiling: the best route in this process for ``HEAD_START`` seconds (when
    ``head_start``), then every route at once in processes; the first answer wins and
    the others are killed."""
    started = time.perf_counter()
    best = routing.routes[0]
    laps = []
    if head_start:
        head_plan = _racer_plan(plan, best)
        head = solve_routed(head_plan, model, attrs.evolve(context, deadline=context.deadline.within(HEAD_START)))
        answered = head.termination == Termination.COMPLETED and head.found != Found.NONE
        if answered or context.ended():
            how = f"answered in this process within the {HEAD_START:g} s head start, before any race"
            if not answered:
                how = "stopped in the head start, before any race"
            return _on_route(head, {**best.report(plan), "how": how}, backend=best.backend.name)
        laps.append(
            {
                "route": best.name,
                "seconds": round(time.perf_counter() - started, 3),
                "outcome": f"head start: no answer in {HEAD_START:g} s",
            }
        )
    entrants = [
        Entrant(route.name, run_route, (_racer_plan(plan, route, context.deadline),)) for route in routing.routes
    ]
    reports = [route.report(plan) for route in routing.routes]
    # A split raced as a route gives its certificate itself; the others are asked here,
    # on this process's model, while the racers start.
    raced = {route.split.name for route in routing.routes if route.split is not None}
    here = []
    for split in routing.certificates:
        if split.name not in raced:
            name = f"{split.name} certificate"
            certifier = _racer_plan(plan, Route(best.backend, split), context.deadline)
            here.append(Entrant(name, certify, (certifier, model)))
            reports.append({"name": name, "split": split.name, "why": "a proof without search that there is no tiling"})
    winner, race_laps = race(entrants, _is_answer, context.stop, context.deadline.at, here)
    laps += [_lap_report(lap) for lap in race_laps]
    if winner is not None:
        for solution in winner.value.solutions:
            context.collector.add(solution)
        report = reports[[lap.name for lap in race_laps].index(winner.name)]
        how = f"won a race of {len(race_laps)} in {winner.seconds:.2f} s"
        return _on_route(_outcome_of(winner.value), {**report, "how": how, "race": laps})
    none_started = all(lap.error is not None and lap.error.startswith("the process ended") for lap in race_laps)
    if none_started and not context.stop.is_set():
        # No process could run: the best route runs here, as a named backend would.
        fallback = solve_routed(_racer_plan(plan, best), model, context)
        how = "the race's processes did not start; ran in this process"
        return _on_route(fallback, {**best.report(plan), "how": how, "race": laps}, backend=best.backend.name)
    errors = [lap for lap in race_laps if lap.error is not None]
    if context.stop.is_set():
        termination, message = Termination.INTERRUPTED, ""
    elif errors and len(errors) == len(race_laps):
        termination = Termination.ERROR
        message = "every route failed: " + "; ".join(f"{lap.name}: {lap.error}" for lap in errors)
    else:
        termination, message = Termination.TIME_LIMIT, ""
    route_report = {"name": "none", "how": f"no route of {len(race_laps)} answered", "race": laps}
    return Outcome(termination, Found.NONE, "race: no answer", message=message, details={"route": route_report})


def run_route(plan: Plan) -> Result:
    """What a racer runs in its own process: the plan on its one route (its backend and
    split, chosen), from the build to the Result, within the plan's time limit.  The race
    kills it when it ends, so it watches no stop of its own."""
    started = time.perf_counter()
    context = RunContext(
        threading.Event(), Deadline.after(plan.settings.time_limit), Collector(default_keep(plan), None), RunState()
    )
    model = None
    try:
        with build_limits(context.deadline.at, context.stop):
            model = prepared_model(plan)
            configure(context.collector, plan, model)
            outcome = solve_routed(plan, model, context)
    except BuildStopped as stopped:
        outcome = Outcome(Termination(stopped.reason), Found.NONE, "not solved")
    return result_of(plan, model, outcome, context.collector, started)


def certify(plan: Plan, model: Model) -> Result:
    """A split's proof that there is no tiling, found without search (run in this
    process while the racers run), or a result that is no answer (also when the split
    is too large to analyse: its analysis is bounded by size)."""
    assert plan.split is not None
    try:
        split = plan.split.provides.split(plan.tiling_problem(), model, plan.build, plan.split.options, jobs=plan.jobs)
    except SplitTooLarge as exc:
        return _certificate(plan, Found.NONE, "no certificate", exc.message)
    if split.impossible:
        return _certificate(plan, Found.INFEASIBLE, "no subproblem", split.impossible)
    return _certificate(plan, Found.NONE, "no certificate")


def _certificate(plan: Plan, found: Found, raw_status: str, message: str = "") -> Result:
    mode = plan.settings.mode
    return Result(Termination.COMPLETED, found, raw_status, mode=mode, backend=AUTO, message=message)


def _is_answer(result: Result) -> bool:
    """A tiling found, or a complete proof that there is none: either ends a race."""
    answers = (Found.FEASIBLE, Found.OPTIMAL, Found.INFEASIBLE)
    return result.termination == Termination.COMPLETED and result.found in answers


def _racer_plan(plan: Plan, route: Route, deadline: Deadline | None = None) -> Plan:
    """The plan one route runs on its own: that backend and split, one part at a time
    (the race already spreads the routes over the cores); in a process of its own, it
    has the time left until ``deadline``."""
    assert plan.candidates is not None
    racer = attrs.evolve(
        route.applied(plan),
        jobs=1,
        executor=plan.candidates.in_process_executor,
        candidates=None,
    )
    if deadline is None:
        return racer
    return attrs.evolve(racer, settings=attrs.evolve(racer.settings, time_limit=deadline.left()))


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
        **answer_fields(result),
        message=result.message,
        subproblems=result.subproblems,
        details=result.details,
        backend=result.backend,
    )


def _on_route(outcome: Outcome, route: dict, *, backend: str | None = None) -> Outcome:
    """The outcome with the route it took in its details (and the backend that answered)."""
    return attrs.evolve(outcome, details={**outcome.details, "route": route}, backend=backend or outcome.backend)
