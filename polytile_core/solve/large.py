"""One tiling of a large region, by a tiler that builds no whole model."""

from __future__ import annotations

from polytile_core.config.pipeline import Plan
from polytile_core.output.results import Found, PlacedPiece, Solution, Termination
from polytile_core.solve.context import RunContext
from polytile_core.solve.outcome import Outcome

# Cells from which one tiling is left to a tiler that builds no whole model (when one
# serves the problem), with no whole-model route to follow.
LARGE_REGION = 20_000


def tiled_without_model(plan: Plan, context: RunContext) -> Outcome | None:
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
    look = context.deadline if large else context.deadline.within(2 + problem.region.area / 2000)
    answer = tiler.provides.tile(problem, seed=plan.settings.seed, stop=context.stop, deadline=look.at)
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
        context.collector.add(Solution(pieces))
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
    if not large and answer.status in ("gave_up", "time_limit") and not context.ended():
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
