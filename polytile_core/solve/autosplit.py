"""The default route for a long count or listing: with ``jobs > 1`` and no ``[split]``,
probe the whole problem first; if the probe finishes, that is the answer (no parts for a
problem of milliseconds); if not, split it by the search tree and solve the parts on
``jobs`` workers.

A split pays only for a search: its parts are subtrees, and they add up to the whole
search.  A count a backend makes by a table of the whole problem (a frontier scan, a
memo: ``BackendResult.work == "table"``) does not divide so; split into subtrees, each
searched, it can be far slower (the 2022 paper's Fig. 12: seconds by the table, 709 s
by search when measured for issue 24).  So the probe wastes as little as it can:

- On a backend that ``answers_probes`` (exactcover) the probe has ``SolveSettings.probe``
  and no time limit but the run's.  A count: the backend counts by a short search or its
  tables and gives up at once where a longer search would be needed, so a table count is never cut short and
  made again, and no search is made twice.  A listing: the backend estimates its search
  and lists it only when short, else gives up at once, so the split's listing is the
  only one.
- Otherwise the probe is a search with a short time limit (``PROBE_SECONDS`` for a
  count, ``PROBE_LISTING_SECONDS`` for a listing), lost only for a run that is long
  anyway.
- A backend that answers probes lists only what it will finish (its table's, or a short
  search's), so its probe hands what it finds on to the run at once: a listing of 15
  million tilings from a table is made once, in the probe.  Any other probe's tilings
  wait in memory until the probe is known to be the answer; one that finds more than
  ``HELD_AT_MOST`` stops there.  If it listed them from a table of the whole problem, the
  whole problem is listed again, not split: the table's listing ends, where the split
  would search.
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
from polytile_core.solve import distinct
from polytile_core.solve.collect import Collector
from polytile_core.solve.context import RunContext
from polytile_core.solve.outcome import Outcome
from polytile_core.solve.split import solve_split
from polytile_core.solve.whole import solve_whole

# A count probed by time alone (a backend that does not answer probes): long enough for
# whole-problem counters to finish what they can (6×10 pentominoes: under a second).
PROBE_SECONDS = 10.0
# A listing is a search whatever the backend: a short look shows whether it is long.
PROBE_LISTING_SECONDS = 1.0
# Solutions a probe holds back (in memory) until it is known whether it is the answer.
HELD_AT_MOST = 20_000


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


def solve_probed(plan: Plan, model: Model, context: RunContext) -> Outcome:
    """Probe the whole problem (module docstring); if it does not finish, split it by
    the tree.  ``details["when_long"]`` says which happened."""
    assert plan.backend is not None, "the backend is chosen before a run is probed"
    declared = plan.backend.capabilities
    answers = declared is not None and declared.answers_probes
    probe_seconds = None if answers else PROBE_LISTING_SECONDS if plan.settings.mode == "all" else PROBE_SECONDS
    started = time.monotonic()
    # The probe has every job's core: a backend that counts by a table on threads uses them.
    workers = plan.settings.workers or plan.jobs
    probe_plan = attrs.evolve(plan, settings=attrs.evolve(plan.settings, probe=answers, workers=workers))
    if answers:  # what it lists, it finishes: straight to the run
        outcome = solve_whole(probe_plan, model, context, in_search=distinct.in_search(plan))
        too_many = False
    else:
        # What the probe finds waits here, every solution of it (``keep`` bounds what a
        # run holds, never what it passes on): all of them reach the caller if the probe
        # is the answer, none if the split searches again.
        probe_stop = threading.Event()
        held = Collector(None, _stop_past(probe_stop, HELD_AT_MOST))
        probe = attrs.evolve(context, stop=probe_stop, deadline=context.deadline.within(probe_seconds), collector=held)
        with relay_stop(context.stop, probe_stop.set):
            outcome = solve_whole(probe_plan, model, probe, in_search=distinct.in_search(plan))
        too_many = probe_stop.is_set() and not context.stop.is_set()
    probed = time.monotonic() - started
    if not too_many and (outcome.termination != Termination.TIME_LIMIT or context.deadline.passed()):
        if not answers:
            for solution in held.kept:
                context.collector.add(solution)
            how = f"within {probe_seconds:g} s"
        elif plan.settings.mode == "count":
            how = "by a short search" if outcome.work == "search" else "by its tables"
        else:
            how = "from its table" if outcome.work == "table" else "as a short listing"
        route = f"whole: the probe finished it {how}" if outcome.termination == Termination.COMPLETED else "whole"
        return attrs.evolve(outcome, details={**outcome.details, "when_long": route})
    if too_many and outcome.work == "table":
        # A listing made from a table of the whole problem ends, however long it is; split
        # into subtrees, it would be searched.  So it is made again, whole, not held.
        whole_plan = attrs.evolve(plan, settings=attrs.evolve(plan.settings, workers=workers))
        outcome = solve_whole(whole_plan, model, context, in_search=distinct.in_search(plan))
        route = f"whole: the probe listed it from a table, over {HELD_AT_MOST:,} tilings, more than a probe holds"
        return attrs.evolve(outcome, details={**outcome.details, "when_long": route, "probe_seconds": round(probed, 3)})
    if too_many:
        why = f"found over {HELD_AT_MOST:,} tilings, more than a probe holds"
    elif answers and plan.settings.mode == "count":
        why = "could not count it by a table: it needs a search"
    elif answers:
        why = "found its listing long by an estimate of its search"
    else:
        why = f"did not finish it in {probe_seconds:g} s" + (" (it was searching)" if outcome.work == "search" else "")
    tree = plan.split_when_long
    assert tree is not None
    split_plan = attrs.evolve(plan, split=tree)
    outcome = solve_split(split_plan, model, context)
    route = f"split by the {tree.name} on {plan.jobs} jobs: the probe of the whole problem {why}"
    return attrs.evolve(outcome, details={**outcome.details, "when_long": route, "probe_seconds": round(probed, 3)})
