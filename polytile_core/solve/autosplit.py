"""The default route for a long count or listing: with ``jobs > 1`` and no ``[split]``,
probe the whole problem for a moment; if it finishes, that is the answer (no processes
for a problem of milliseconds); if not, split it by the search tree and solve the parts
on ``jobs`` workers.  The probe's time is lost only for a run that is long anyway.

A split pays only for a search: its parts are subtrees, and they add up to the whole
search.  A count the backend was making by a table of the whole problem (a frontier
scan: ``BackendResult.work == "table"``) does not divide so; split into subtrees, each
searched, it can be far slower (the 2022 paper's Fig. 12: seconds by the table, 709 s
by search when measured for issue 24).  Such a count runs whole again, to the end: the
probe's time is spent twice, against a split that could cost many times more.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable

import attrs

from polytile_core.config.pipeline import Plan
from polytile_core.host.contracts import relay_stop
from polytile_core.model.zero_one import Model
from polytile_core.output.results import Solution, Termination
from polytile_core.solve.collect import Collector
from polytile_core.solve.outcome import Outcome
from polytile_core.solve.split import solve_split
from polytile_core.solve.state import RunState

# Long enough for the whole-problem counters (frontier scan, memo) to finish what they can
# (6×10 pentominoes: under a second); their work does not divide into subtrees, the search's does.
PROBE_SECONDS = 10.0
# Solutions a probe holds back (in memory) until it is known whether it is the answer.
HELD_AT_MOST = 20_000

SolveWhole = Callable[[Plan, Model, Collector, threading.Event], Outcome]


def _stop_past(stop: threading.Event, limit: int) -> Callable[[Solution], None]:
    """A collector's callback that sets ``stop`` once more than ``limit`` solutions came."""
    seen = itertools.count(1)

    def on_solution(solution: Solution) -> None:
        if next(seen) > limit:
            stop.set()

    return on_solution


def worth_splitting(plan: Plan) -> bool:
    """Whether a run of ``plan`` is split by the tree when a probe of the whole problem
    does not finish (a route chooser calls ``solve_probed`` then)."""
    return plan.split is None and plan.split_when_long is not None


def solve_probed(
    plan: Plan,
    model: Model,
    collector: Collector,
    stop: threading.Event,
    run_state: RunState,
    solve_whole: SolveWhole,
    probe_seconds: float | None = None,
) -> Outcome:
    """Probe the whole problem (``solve_whole(plan, model, collector, stop)``) for
    ``probe_seconds`` (default ``PROBE_SECONDS``); if it does not finish, split it by the
    tree, unless it was counting by a table (then run it whole to the end).
    ``details["when_long"]`` says which happened."""
    probe_seconds = PROBE_SECONDS if probe_seconds is None else probe_seconds
    limit = plan.settings.time_limit
    probe_limit = probe_seconds if limit is None else min(probe_seconds, limit)
    started = time.perf_counter()
    # What the probe finds waits here, every solution of it (``keep`` bounds what a run
    # holds, never what it passes on): all of them reach the caller if the probe is the
    # answer, none if the split searches again.  A probe that finds more than
    # ``HELD_AT_MOST`` is stopped there: a listing that long is split at once.
    probe_stop = threading.Event()
    held = Collector(None, _stop_past(probe_stop, HELD_AT_MOST))
    probe_plan = attrs.evolve(plan, settings=attrs.evolve(plan.settings, time_limit=probe_limit))
    with relay_stop(stop, probe_stop.set):
        outcome = solve_whole(probe_plan, model, held, probe_stop)
    probed = time.perf_counter() - started
    cut_short = probe_stop.is_set() and not stop.is_set()  # the probe found too many to hold
    if not cut_short and (outcome.termination != Termination.TIME_LIMIT or (limit is not None and probed >= limit)):
        for solution in held.kept:
            collector.add(solution)
        finished = outcome.termination == Termination.COMPLETED
        route = f"whole: the {probe_seconds:g} s probe finished it" if finished else "whole"
        return attrs.evolve(outcome, details={**outcome.details, "when_long": route})
    if outcome.work == "table" and not cut_short:
        whole_plan = attrs.evolve(
            plan, settings=attrs.evolve(plan.settings, time_limit=None if limit is None else limit - probed)
        )
        outcome = solve_whole(whole_plan, model, collector, stop)
        route = (
            f"whole: the {probe_seconds:g} s probe was counting by a table of the whole problem, "
            "which a split into search subtrees does not divide; run whole again, to the end"
        )
        details = {**outcome.details, "when_long": route, "probe_seconds": round(probed, 3)}
        return attrs.evolve(outcome, details=details)
    tree = plan.split_when_long
    assert tree is not None
    split_plan = attrs.evolve(
        plan,
        split=tree,
        split_options=plan.split_when_long_options,
        settings=attrs.evolve(plan.settings, time_limit=None if limit is None else limit - probed),
    )
    doing = " (it was searching)" if outcome.work == "search" else ""
    if cut_short:
        doing = f" (it had found over {HELD_AT_MOST:,} solutions, more than a probe holds)"
    outcome = solve_split(split_plan, model, collector, stop, run_state)
    route = (
        f"split by the {tree.name} on {plan.jobs} jobs: the whole problem did not finish in a {probe_seconds:g} s "
        f"probe{doing}"
    )
    return attrs.evolve(outcome, details={**outcome.details, "when_long": route, "probe_seconds": round(probed, 3)})
