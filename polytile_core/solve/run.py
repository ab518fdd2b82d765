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

from polytile_core.config.pipeline import Plan
from polytile_core.model.symmetry import placement_symmetries
from polytile_core.model.zero_one import Model
from polytile_core.output.results import Result, Solution, Termination
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
) -> Result:
    """Solve a plan and return its Result. ``stop`` ends the run early (interrupted)."""
    stop = stop or threading.Event()
    state = RunState()
    model = plan.build()
    if plan.distinct and not model.symmetries and plan.region is not None and model.placements:
        # Only when asked: on a large board this costs about as much as building the model.
        model.symmetries = placement_symmetries(model, plan.region)
    in_search = distinct.in_search(plan)
    accept = distinct.canonical_filter(plan, model) if plan.distinct and not in_search and plan.settings.mode == "all" else None
    collector = Collector(
        default_keep(plan), on_solution, want_all=accept is not None, rank=_ranking(plan, model), accept=accept
    )
    answers: list[Outcome] = []
    errors: list[BaseException] = []
    done = threading.Event()

    def work():
        try:
            if worth_splitting(plan):

                def whole(probe: Plan, model: Model, held: Collector, stop: threading.Event) -> Outcome:
                    return _solve_whole(probe, model, held, stop, in_search)

                outcome = solve_probed(plan, model, collector, stop, state, whole)
            elif plan.split is None:
                outcome = _solve_whole(plan, model, collector, stop, in_search)
            else:
                outcome = solve_split(plan, model, collector, stop, state)
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
        backend=plan.backend.name,
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
