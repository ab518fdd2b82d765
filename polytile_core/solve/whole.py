"""Solve on one route: the whole model by the plan's backend, or its split's parts."""

from __future__ import annotations

import attrs

from polytile_core.config.pipeline import Plan
from polytile_core.model.zero_one import Model
from polytile_core.output.results import PlacedPiece
from polytile_core.solve.context import RunContext
from polytile_core.solve.outcome import Outcome
from polytile_core.solve.split import solve_split


def solve_routed(plan: Plan, model: Model, context: RunContext, *, in_search: bool = False) -> Outcome:
    """Solve by the plan's own route: the whole model, or its split's parts.  ``in_search``:
    the backend also counts up to symmetry (``distinct.in_search``)."""
    if plan.split is None:
        return solve_whole(plan, model, context, in_search=in_search)
    return solve_split(plan, model, context)


def solve_whole(plan: Plan, model: Model, context: RunContext, *, in_search: bool = False) -> Outcome:
    """The whole model by the plan's backend, with the time that is left."""
    assert plan.backend is not None, "backend auto is resolved before solving"
    backend = plan.backend.provides(plan.backend.options)
    pieces: dict[int, PlacedPiece] = {}
    settings = attrs.evolve(plan.settings, time_limit=context.deadline.left(), distinct=in_search)
    sink = context.collector.line_sink(model, pieces) if settings.mode == "all" else None
    on_solution = sink or (lambda ones: context.collector.add_ones(model, ones, pieces))
    answer = backend.solve(model, settings, on_solution, context.stop)
    count = answer.count
    if plan.settings.mode in ("all", "count") and count is None:
        count = context.collector.seen
    objective = None if answer.objective is None else round(answer.objective)
    return Outcome.of_backend(answer, count=count, objective=objective)
