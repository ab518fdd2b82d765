"""Listing every cover: by search, or from the frontier scan's table when the search would
be long and the table fits (``_frontier.c``, "Listing from the table").

A search that fills the same cells can wander for minutes in subtrees with no tiling (a
board whose piece counts only fail at its last cells: issue 29's d0, 2.9 million tilings
counted in 2.5 s, none found by search in 400 s).  The table knows which states a tiling
can finish, so a listing from it never steps into such a subtree.  It keeps every layer
of the forward scan, so it is tried only within a budget of states in all, and of time
(a share of the estimated search, as for a count); past either it is given up before
anything is listed, and the search lists instead.
"""

from __future__ import annotations

from polytile_core.plugin import Model, OnSolution, Termination
from polytile_exactcover.count import FRONTIER_FLOOR, FRONTIER_SHARE
from polytile_exactcover.cover import CoverProblem
from polytile_exactcover.estimate import ESTIMATE_SECONDS, SECONDS_PER_SOLUTION, SHORT_LISTING, estimated_search
from polytile_exactcover.frontier import Layout, frontier, layout
from polytile_exactcover.options import ExactCoverOptions
from polytile_exactcover.outcome import Limits, SearchReport
from polytile_exactcover.search import Listing, kernel_callback
from polytile_exactcover.symmetric import list_all

# The table's budget on auto when ``memo_budget`` is not set: states in all its layers
# (about 60 bytes each).  Measured: 9×9 less three cells with six pieces of up to 6
# copies keeps 6.7–12 million states (0.4–0.7 GB) and lists its tilings in 1–2.6 s; the
# boards that need 100 million and more (6 GB) are listed by search.
TABLE_STATES = 16_000_000
# The table is tried when the search is estimated to take at least this long.  Measured
# (Knuth's estimate, which is often low by 2–5 times): 6×10 pentominoes 5–7 s and e1, a
# 9×9 board with six counted pieces, 8 s; they are listed by search in 0.25–0.36 s (by
# images) and 52 s, where the table of 6×10 holds 6 million states (1.8 s) and e1's
# forward scan peaks at 5.7 million in one layer.  Random boards whose search never
# ends are estimated at 950 s to 2 million s (docs/exactcover.md).
TABLE_AFTER = 60.0
# The estimate's dives when only that is asked (a listing not in a probe): 1,000 dives
# of 6×10 pentominoes take 56 ms, a sixth of its listing; this many still put it and e1
# far below ``TABLE_AFTER``, and the boards above far over it.
TABLE_ESTIMATE_SECONDS = 0.01
# A listing searches by images only on a model of at most this many placements.  Finding
# the symmetries reads every placement (100×100 with pentominoes, 606,000 of them: over
# 10 s before the first tiling, where the plain search streams thousands a second), and
# the images divide a listing's search, never its output.  6×10 pentominoes: 2,056.
IMAGES_AT_MOST = 100_000
# Why a table was given up, by the scan's status.
GIVEN_UP = {
    "budget": "more than {budget} states",
    "overflow": "a count of paths past 2^128",
    "no_memory": "out of memory",
}


def list_covers(
    model: Model,
    problem: CoverProblem,
    listed: OnSolution | Listing,
    limits: Limits,
    options: ExactCoverOptions,
    *,
    probe: bool = False,
    threads: int = 1,
) -> SearchReport:
    """Every cover, each handed to ``listed`` once.  On auto (``counter`` and ``kernel``):
    a search estimated at ``TABLE_AFTER`` seconds or more first tries the table, within
    ``TABLE_STATES`` and ``FRONTIER_SHARE`` of the estimated search, and walked on up to
    ``threads`` threads; else the search lists them (by images up to ``IMAGES_AT_MOST``
    placements).  ``counter = "frontier"`` lists
    from the table with no budget (the search lists only if it runs out of memory).  A probe (``probe``), whatever the options, gives a
    listing estimated long up (status ``TIME_LIMIT``) when the table does not list it,
    so that the split searches it and nothing is listed twice."""
    forced = options.counter == "frontier"
    by_table = forced or (options.counter == "auto" and options.kernel == "auto")
    notes: list[str] = []
    # A probe decides between its listing and the split, as tuned; a listing on one job
    # only asks whether to try the table, and spends less on the estimate's dives.
    dives = ESTIMATE_SECONDS if probe else TABLE_ESTIMATE_SECONDS
    estimate = None if forced or not (by_table or probe) else estimated_search(problem, limits, seconds=dives)
    if estimate is not None and estimate.finished is not None:
        if estimate.finished.status != Termination.COMPLETED:
            return SearchReport(estimate.finished.status, 0, "dlx", {"kernel": "dlx"})
        return list_all(model, problem, listed, limits, options, by_images=_images_pay(problem))
    if by_table and (estimate is None or estimate.seconds >= TABLE_AFTER):
        plan = layout(problem)
        if isinstance(plan, str):
            notes.append(f"table: {plan}")
        else:
            budget = 1 << 62 if forced else options.memo_budget or TABLE_STATES
            share = 0.0 if estimate is None else max(FRONTIER_SHARE * estimate.seconds, FRONTIER_FLOOR)
            report = _from_table(plan, problem, listed, limits, budget, share, threads)
            if report.status != Termination.TIME_LIMIT or limits.reason():
                return report
            notes.append(report.details.pop("listing"))
    seconds = 0.0 if estimate is None else estimate.seconds + estimate.solutions * SECONDS_PER_SOLUTION
    if probe and seconds > SHORT_LISTING:
        why = f"not listed in a probe: the listing would take about {seconds:.3g} s (the split lists it)"
        return SearchReport(Termination.TIME_LIMIT, 0, "search", {"kernel": "none", "listing": why, **_notes(notes)})
    outcome = list_all(model, problem, listed, limits, options, by_images=_images_pay(problem))
    outcome.details.update(_notes(notes))
    return outcome


def _images_pay(problem: CoverProblem) -> bool:
    """Whether finding the model's symmetries may pay for a listing (``IMAGES_AT_MOST``)."""
    return len(problem.variables) <= IMAGES_AT_MOST


def _from_table(
    plan: Layout,
    problem: CoverProblem,
    listed: OnSolution | Listing,
    limits: Limits,
    budget: int,
    share: float,
    threads: int,
) -> SearchReport:
    """The listing from the table of ``plan``, walked on up to ``threads`` threads; a
    table past its budget or ``share`` of time gives up with status ``TIME_LIMIT`` and
    why in ``details["listing"]``."""
    callback = kernel_callback(problem, listed)
    status, solutions, states, size, walked = limits.list(
        frontier(plan), callback, 0, limits.left(), budget, plan.numbers, share, threads
    )
    details: dict[str, object] = {"kernel": "frontier", "table_states": states, "table_mb": round(size / 2**20, 1)}
    if walked > 1:
        details["table_threads"] = walked
    if status in GIVEN_UP or (status == "time_limit" and not limits.reason()):
        why = GIVEN_UP.get(status, f"not made in {share:.3g} s").format(budget=budget)
        details["listing"] = f"table: {why} (the search lists it)"
        return SearchReport(Termination.TIME_LIMIT, 0, "frontier", details)
    return SearchReport(Termination(status), solutions, "frontier", details)


def _notes(notes: list[str]) -> dict[str, str]:
    return {"listing_fallback": "; ".join(notes)} if notes else {}
