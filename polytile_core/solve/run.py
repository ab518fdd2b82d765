"""Run a plan: build, route, solve, count up to symmetry, report a Result.

``run`` reads as the flow it runs; each step is a call into a module of its own:

1. ``prepare.proved_by_area``: no tiling by area alone, with no model built;
2. ``large.tiled_without_model``: one tiling of a large region by a tiler;
3. ``prepare.prepared_model``: the model (the build checks the clock and ``stop``);
4. ``route.choose``: with ``backend = "auto"``, the routes to take, and why;
5. the solve: ``race.race_routes`` (one tiling, several routes may be best),
   ``autosplit.solve_probed`` (a long count or listing on several jobs) or
   ``whole.solve_routed`` (the whole model, or the named split's parts);
6. ``distinct.with_distinct``: the count up to symmetry, when asked for;
7. ``result.result_of``: the one Result.

The steps run in a worker thread while the calling thread waits, so Ctrl-C reaches the
caller at once; the run then stops the step that is running and still returns what was
found, marked ``interrupted``.  Every step gets one ``RunContext``: the stop event, the
deadline, the collector, the progress state and the checkpoint.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence

import attrs

from polytile_core.config.pipeline import Plan
from polytile_core.host.capabilities import model_features
from polytile_core.host.contracts import listen_to_progress, serving_stop_relay
from polytile_core.model.zero_one import BuildStopped, Model, build_limits
from polytile_core.output.results import Found, Result, Solution, Termination
from polytile_core.solve import distinct
from polytile_core.solve.autosplit import solve_probed, worth_splitting
from polytile_core.solve.collect import Collector, default_keep
from polytile_core.solve.context import Deadline, RunContext
from polytile_core.solve.large import tiled_without_model
from polytile_core.solve.outcome import Outcome
from polytile_core.solve.prepare import configure, prepared_model, proved_by_area
from polytile_core.solve.race import race_routes
from polytile_core.solve.result import result_of
from polytile_core.solve.route import choose, on_one_route
from polytile_core.solve.state import Progress, RunState
from polytile_core.solve.whole import solve_routed
from polytile_core.solve.workers import PartLog

# A model that takes longer than this to build is no small problem: its race starts at
# once, with no head start in this process (``race.HEAD_START``).
SMALL_MODEL = 0.25


def run(
    plan: Plan,
    *,
    on_solution: Callable[[Solution], None] | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    stop: threading.Event | None = None,
    abandon: threading.Event | None = None,
    checkpoint: PartLog | None = None,
    started: float | None = None,
    on_line: Callable[[Sequence[bytes], int], None] | None = None,
) -> Result:
    """Solve a plan and return its Result. ``stop`` ends the run early (interrupted), as
    Ctrl-C does; ``abandon`` (or a second Ctrl-C) returns at once, with the solutions
    received so far, without waiting for the backend to stop.  ``checkpoint``: a split
    run replays the parts it holds and records the others (``solve.checkpoint.Checkpoint``).

    The time limit covers the whole run: building the model stops at the deadline too,
    and every step gets the time that is left.  ``started`` (``time.monotonic()``, default
    now) is when the limit's clock started: the command line passes its own start, so
    that starting Python, loading the plugins and the pipeline count against the limit (the
    result's ``seconds`` are the run's own, from this call).
    """
    stop = stop or threading.Event()
    abandon = abandon or threading.Event()
    since = 0.0 if started is None else max(0.0, time.monotonic() - started)
    limit = plan.settings.time_limit
    context = RunContext(
        stop,
        Deadline.after(None if limit is None else limit - since),
        Collector(default_keep(plan), on_solution, on_line=on_line),
        RunState(),
        checkpoint,
    )
    models: list[Model] = []
    outcomes: list[Outcome] = []
    errors: list[BaseException] = []
    done = threading.Event()

    def work() -> None:
        listen_to_progress(context.state.note)  # what the backend reports while it searches
        try:
            # The time limit and ``stop`` hold in the build and in what prepares the search
            # (symmetries, a split's parts), as the backend's own search holds them.
            with build_limits(context.deadline.at, stop):
                outcomes.append(_flow(plan, context, models))
        except BuildStopped as stopped:
            outcomes.append(_stopped_outside_search(plan, context, Termination(stopped.reason), built=bool(models)))
        except BaseException as exc:  # handed to the calling thread
            errors.append(exc)
        finally:
            done.set()

    worker = threading.Thread(target=work, name="polytile-solve", daemon=True)
    interrupted = False
    with serving_stop_relay() as wait:  # this thread relays the solves' stops as it waits
        worker.start()
        while not (done.is_set() or abandon.is_set()):
            try:
                while not (wait(done, 0.2) or abandon.is_set()):
                    if on_progress:
                        on_progress(context.state.progress(context.collector.seen))
            except KeyboardInterrupt:
                interrupted = True
                (abandon if stop.is_set() else stop).set()
    abandoned = not done.is_set()
    if abandoned:
        outcome = _abandoned(plan, context)
    elif errors:
        raise errors[0]
    else:
        outcome = outcomes[0]
    if interrupted or (stop.is_set() and outcome.termination == Termination.COMPLETED and plan.settings.mode != "one"):
        outcome = attrs.evolve(outcome, termination=Termination.INTERRUPTED)
    if on_progress:
        on_progress(context.state.progress(context.collector.seen))
    model = models[0] if models else None
    if model is not None and model.verify is not None and not abandoned:
        for solution in context.collector.kept:
            model.verify(solution)
    return result_of(plan, model, outcome, context.collector, context.state.started)


def _flow(plan: Plan, context: RunContext, models: list[Model]) -> Outcome:
    """Build, route, solve, distinct (the module docstring's steps 1–6); the model built
    is put in ``models`` for the result, also when a later step is cut short."""
    proof = proved_by_area(plan)
    if proof is not None:  # no model to build, nothing to search
        return proof
    tiled = tiled_without_model(plan, context)
    if tiled is not None:
        return tiled
    model = prepared_model(plan)
    models.append(model)
    small = time.perf_counter() - context.state.started <= SMALL_MODEL
    routing = choose(plan, model_features(model), large_model=not small) if plan.backend is None else None
    chosen = routing.routes[0].applied(plan) if routing is not None and not routing.race else plan
    configure(context.collector, chosen, model)
    if context.deadline.passed():
        raise BuildStopped("time_limit")
    if routing is not None and routing.race:
        outcome = race_routes(plan, model, routing, context, head_start=small)
    elif worth_splitting(chosen):
        outcome = on_one_route(solve_probed(chosen, model, context), chosen, routing)
    else:
        outcome = solve_routed(chosen, model, context, in_search=distinct.in_search(chosen))
        outcome = on_one_route(outcome, chosen, routing)
    if plan.distinct:
        try:
            outcome = distinct.with_distinct(chosen, model, outcome, context)
        except BuildStopped as stopped:  # what was found and counted stands
            why = "the time limit ran out" if stopped.reason == "time_limit" else "the run was stopped"
            outcome = attrs.evolve(outcome, details={**outcome.details, "distinct": f"not counted: {why}"})
    return outcome


def _stopped_outside_search(plan: Plan, context: RunContext, termination: Termination, *, built: bool) -> Outcome:
    """A run stopped by its limits where no backend could answer for it: in the model's
    build, or in what a backend or split prepares (symmetries, parts) before or between
    its searches; what was streamed by then stands."""
    why = "the time limit ran out" if termination == Termination.TIME_LIMIT else "the run was stopped"
    where = "while the search was prepared or made" if built else "before the search began (while building the model)"
    return _streamed(plan, context, termination, "not solved", f"{why} {where}")


def _abandoned(plan: Plan, context: RunContext) -> Outcome:
    """What a run that did not wait for its backend to stop knows: what was streamed
    (in mode count, only what finished parts counted: the backend's own count is lost)."""
    message = "a second Ctrl-C: the backend was not waited for; these are the solutions it had sent"
    return _streamed(plan, context, Termination.INTERRUPTED, "abandoned", message)


def _streamed(plan: Plan, context: RunContext, termination: Termination, raw_status: str, message: str) -> Outcome:
    """An outcome made of what the collector received and finished parts counted."""
    with context.collector.lock:
        seen = context.collector.seen
    counted = max(seen, context.state.counted)
    listing = plan.settings.mode == "all" or (plan.settings.mode == "count" and counted > 0)
    return Outcome(
        termination=termination,
        found=Found.FEASIBLE if counted else Found.NONE,
        raw_status=raw_status,
        count=counted if listing else None,
        message=message,
    )
