"""Run a plan: build the model, solve it (whole or split into parts), report a Result.

The build and the solve run in a worker thread while the calling thread waits, so
Ctrl-C reaches the caller at once; the run then stops the build or the backend and
still returns what was found, marked ``interrupted``.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable

import attrs

from polytile_core.config.pipeline import Plan
from polytile_core.model.symmetry import placement_symmetries
from polytile_core.model.zero_one import BuildStopped, Model, build_limits
from polytile_core.output.results import Found, Result, Solution, Termination
from polytile_core.solve import distinct
from polytile_core.solve.autosplit import solve_probed, worth_splitting
from polytile_core.solve.collect import Collector, default_keep, solution_of
from polytile_core.solve.outcome import Outcome
from polytile_core.solve.split import solve_split
from polytile_core.solve.state import Progress, RunState


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
    collector = Collector(default_keep(plan), on_solution, want_all=False)
    models: list[Model] = []
    answers: list[Outcome] = []
    errors: list[BaseException] = []
    done = threading.Event()

    def work():
        try:
            proof = _proved_by_area(plan)
            if proof is not None:  # no model to build, nothing to search
                answers.append(proof)
                return
            with build_limits(deadline, stop):
                models.append(_prepared_model(plan))
            model = models[0]
            _configure(collector, plan, model)
            timed = plan if deadline is None else _with_time_left(plan, deadline - time.monotonic())
            if timed is None:
                raise BuildStopped("time_limit")
            in_search = distinct.in_search(plan)
            if worth_splitting(plan):

                def whole(probe: Plan, model: Model, held: Collector, stop: threading.Event) -> Outcome:
                    return _solve_whole(probe, model, held, stop, in_search)

                outcome = solve_probed(timed, model, collector, stop, state, whole)
            elif plan.split is None:
                outcome = _solve_whole(timed, model, collector, stop, in_search)
            else:
                outcome = solve_split(timed, model, collector, stop, state)
            if plan.distinct:
                outcome = distinct.with_distinct(plan, model, outcome, collector, stop)
            answers.append(outcome)
        except BuildStopped as stopped:
            answers.append(_unbuilt(Termination(stopped.reason)))
        except BaseException as exc:  # handed to the calling thread
            errors.append(exc)
        finally:
            done.set()

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
        model = plan.build()
    finally:
        if collecting:
            gc.enable()
    if plan.distinct and not model.symmetries and plan.region is not None and model.placements:
        # Only when asked: on a large board this costs about as much as building the model.
        model.symmetries = placement_symmetries(model, plan.region, plan.pieces)
    return model


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


def _configure(collector: Collector, plan: Plan, model: Model) -> None:
    """Tell the collector, once the model is known, how to rank and filter solutions."""
    in_search = distinct.in_search(plan)
    listing_distinct = plan.distinct and not in_search and plan.settings.mode == "all"
    collector.accept = distinct.canonical_filter(plan, model) if listing_distinct else None
    collector.want_all = collector.accept is not None
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
        message=f"{why} before the backend could start (while building the model, or just after)",
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
        backend=plan.backend.name,
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
    backend = plan.backend.provides(plan.backend_options)
    answer = backend.solve(
        model,
        attrs.evolve(plan.settings, distinct=in_search),
        lambda ones: collector.add(solution_of(model, ones)),
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
    )
