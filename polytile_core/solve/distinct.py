"""Solutions up to symmetry, as pictures: counted by Burnside's lemma, listed by
keeping the smallest image of each class, or left to a backend that breaks the
symmetry in its own search (``model.symmetry`` has the group theory and the rule for
which symmetries count)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import attrs

from polytile_core.config.pipeline import Plan
from polytile_core.errors import InputError
from polytile_core.model.geometry import Region
from polytile_core.model.symmetry import (
    ProblemSymmetry,
    burnside,
    checked_symmetries,
    fixed_model,
    problem_symmetries,
)
from polytile_core.model.zero_one import Model
from polytile_core.output.results import Solution, Termination
from polytile_core.solve.context import RunContext
from polytile_core.solve.outcome import Outcome


def canonical_key(region: Region, solution: Solution, symmetries: Sequence[ProblemSymmetry] | None = None) -> tuple:
    """The same key for a solution and all its images under ``symmetries`` (by default the
    region's symmetries, every piece keeping its name)."""
    return min(_images(region, solution, symmetries))


def _images(region: Region, solution: Solution, symmetries: Sequence[ProblemSymmetry] | None) -> list[tuple]:
    if symmetries is None:
        symmetries = [(symmetry, {}) for symmetry in region.symmetries()]
    return [
        tuple(
            sorted(
                (renaming.get(placed.piece, placed.piece), region.map_onto_itself(symmetry, placed.cells))
                for placed in solution.placements
            )
        )
        for symmetry, renaming in symmetries
    ]


def is_canonical(region: Region, solution: Solution, symmetries: Sequence[ProblemSymmetry] | None = None) -> bool:
    """True for exactly one solution of each class: the one that is the smallest image.
    ``symmetries`` must start with the identity."""
    images = _images(region, solution, symmetries)
    return images[0] == min(images)


def in_search(plan: Plan) -> bool:
    """Whether the backend solves up to symmetry itself (whole problems only: the parts of
    a split have lost the region's symmetry)."""
    capabilities = plan.backend.capabilities if plan.backend else None
    return plan.distinct and plan.split is None and capabilities is not None and capabilities.distinct_in_search


def canonical_filter(plan: Plan, model: Model) -> Callable[[Solution], bool] | None:
    """Keeps one solution per class (the smallest image), without storing any."""
    region = plan.region
    if region is None or not model.placements:
        return None
    symmetries = problem_symmetries(model, region, plan.pieces)
    return lambda solution: is_canonical(region, solution, symmetries)


def with_distinct(plan: Plan, model: Model, result: Outcome, context: RunContext) -> Outcome:
    """Add the count up to symmetry, when the backend has not: in mode all the solutions
    the canonical filter accepted, in mode count Burnside's lemma (``count`` stays raw)."""
    if result.distinct_count is not None:
        return result
    why = None
    if plan.settings.mode not in ("all", "count"):
        why = "counted in modes all and count only"
    elif result.termination != Termination.COMPLETED:
        why = "not counted: the run did not complete"
    elif result.count == 0:
        return attrs.evolve(result, distinct_count=0)
    elif plan.settings.mode == "all":
        if context.collector.accept is None:
            why = "not counted: the model has no placements to compare"
        else:
            return attrs.evolve(result, distinct_count=context.collector.accepted)
    else:
        distinct = _burnside_count(plan, model, result.count, context)
        if distinct is not None:
            return attrs.evolve(result, distinct_count=distinct, details={**result.details, "distinct": "burnside"})
        why = "not counted: the model declares no symmetries, or a fixed-solution count did not complete"
    return attrs.evolve(result, details={**result.details, "distinct": why})


def _burnside_count(plan: Plan, model: Model, raw: int | None, context: RunContext) -> int | None:
    """Classes = the average over the symmetries of the solutions each one fixes, each
    counted by the plan's backend on a smaller model (``symmetry.fixed_model``)."""
    try:
        group = checked_symmetries(model)
    except ValueError as exc:
        raise InputError(f"cannot count up to symmetry: {exc}", path="solve.distinct") from None
    if not group or raw is None:
        return None
    assert plan.backend is not None, "backend auto is resolved before counting"
    backend = plan.backend.provides(plan.backend.options)
    fixes = [raw]
    for permutation in group[1:]:
        fixed, _ = fixed_model(model, permutation)
        settings = attrs.evolve(plan.settings, mode="count", distinct=False, time_limit=context.deadline.left())
        answer = backend.solve(fixed, settings, lambda ones: None, context.stop)
        if answer.termination != Termination.COMPLETED or answer.count is None:
            return None
        fixes.append(answer.count)
    return burnside(fixes)
