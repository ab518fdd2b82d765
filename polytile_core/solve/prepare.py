"""Before the search: the answer by area alone, the model, and how the collector ranks
and filters what the search finds."""

from __future__ import annotations

from collections.abc import Callable

from polytile_core.config.pipeline import Plan
from polytile_core.model.symmetry import placement_symmetries
from polytile_core.model.zero_one import Model, collector_paused
from polytile_core.output.results import Found, Solution, Termination
from polytile_core.solve import distinct
from polytile_core.solve.collect import Collector
from polytile_core.solve.outcome import Outcome


def proved_by_area(plan: Plan) -> Outcome | None:
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


def prepared_model(plan: Plan) -> Model:
    """The plan's model (only the builder's statement for a backend that reads no rows),
    with its symmetries when the run counts up to them."""
    with collector_paused():
        model = _statement(plan) if _reads_no_rows(plan) else plan.build()
    if plan.distinct and not model.symmetries and plan.region is not None and model.placements:
        # Only when asked: on a large board this costs about as much as building the model.
        model.symmetries = placement_symmetries(model, plan.region, plan.pieces)
    return model


def _reads_no_rows(plan: Plan) -> bool:
    """Whether the plan's backend is its builder's own and declares ``reads_model = False``."""
    backend = plan.backend
    if backend is None or backend.capabilities is None or backend.name != plan.builder.registration.backend:
        return False
    return not backend.capabilities.reads_model


def _statement(plan: Plan) -> Model:
    """The builder's statement of the problem alone, for a backend that reads no rows."""
    return plan.builder.provides(plan.pieces, plan.region, plan.builder.options, rows=False)


def configure(collector: Collector, plan: Plan, model: Model) -> None:
    """Tell the collector, once the model is known, how to rank and filter solutions."""
    in_search = distinct.in_search(plan)
    listing_distinct = plan.distinct and not in_search and plan.settings.mode == "all"
    collector.accept = distinct.canonical_filter(plan, model) if listing_distinct else None
    collector.rank = _ranking(plan, model)


def _ranking(plan: Plan, model: Model) -> Callable[[Solution], float] | None:
    """When optimising, rank solutions best first, so the run keeps the best ones."""
    if plan.settings.mode != "optimize" or model.objective is None:
        return None
    sign = -1 if model.maximize else 1
    return lambda solution: sign * (solution.objective or 0)
