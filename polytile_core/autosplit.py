"""The default route for a long count or listing: with ``jobs > 1`` and no ``[split]``,
probe the whole problem for a moment; if it finishes, that is the answer (no processes
for a problem of milliseconds); if not, split it by the search tree and solve the parts
on ``jobs`` workers.  The probe's time is lost only for a run that is long anyway.
"""

from __future__ import annotations

import threading
import time

import attrs

from polytile_core.results import Result, Solution, Termination

PROBE_SECONDS = 1.0


def worth_splitting(plan) -> bool:
    """Whether a run of ``plan`` would be split by the tree if a probe of the whole
    problem did not finish (for a route chooser: call ``solve_probed`` then)."""
    return plan.split is None and plan.split_when_long is not None


class _Held:
    """Holds what the probe finds (as many as the run keeps) until it is known to be the answer."""

    def __init__(self, keep: int | None):
        self.keep = keep
        self.solutions: list[Solution] = []
        self.seen = 0

    def add(self, solution: Solution) -> None:
        self.seen += 1
        if self.keep is None or len(self.solutions) < self.keep:
            self.solutions.append(solution)


def solve_probed(plan, model, collector, stop: threading.Event, parts_state: dict, solve_whole,
                 probe_seconds: float | None = None) -> Result:
    """Probe the whole problem (``solve_whole(plan, model, collector, stop)``) for
    ``probe_seconds`` (default ``PROBE_SECONDS``); if it does not finish, split it by the
    tree.  ``details["route"]`` says which happened."""
    from polytile_core.parallel import solve_split

    probe_seconds = PROBE_SECONDS if probe_seconds is None else probe_seconds
    limit = plan.settings.time_limit
    probe_limit = probe_seconds if limit is None else min(probe_seconds, limit)
    started = time.perf_counter()
    held = _Held(collector.keep)
    probe_plan = attrs.evolve(plan, settings=attrs.evolve(plan.settings, time_limit=probe_limit))
    result = solve_whole(probe_plan, model, held, stop)
    probed = time.perf_counter() - started
    if result.termination != Termination.TIME_LIMIT or (limit is not None and probed >= limit):
        for solution in held.solutions:
            collector.add(solution)
        route = f"whole: the {probe_seconds:g} s probe finished it" if result.termination == Termination.COMPLETED else "whole"
        return attrs.evolve(result, details={**result.details, "route": route})
    split_plan = attrs.evolve(
        plan,
        split=plan.split_when_long,
        split_options=plan.split_when_long_options,
        settings=attrs.evolve(plan.settings, time_limit=None if limit is None else limit - probed),
    )
    result = solve_split(split_plan, model, collector, stop, parts_state)
    route = f"split by the {plan.split_when_long.name} on {plan.jobs} jobs: the whole problem did not finish in a {probe_seconds:g} s probe"
    return attrs.evolve(result, details={**result.details, "route": route, "probe_seconds": round(probed, 3)})
