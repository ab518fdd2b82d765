"""Counting without listing: the frontier scan (``frontier.py``), the memo (``memo.py``) or
the search kernel, each within its budget, and why each step fell back to the next."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import attrs

from polytile_core.plugin import Termination, usable_cores, usable_memory
from polytile_exactcover.cover import CoverProblem
from polytile_exactcover.estimate import estimated_search
from polytile_exactcover.frontier import Layout, frontier, layout
from polytile_exactcover.memo import MemoTooLarge, Stopped, memo_count
from polytile_exactcover.options import ExactCoverOptions
from polytile_exactcover.outcome import Limits, SearchReport
from polytile_exactcover.search import PROBE_NODES, enumerate_covers

# The frontier's budget (states in a layer) on auto when the model can be searched by
# images instead, for a fraction of its tree (then the memo, a whole-problem table too, is
# not tried).  Measured (docs/exactcover.md): after pruning every paper instance peaks
# under 30,000 states, where the search takes seconds to minutes (Fig. 12: 10,257 states,
# 0.04 s).  Meeting in the middle, 6×10 pentominoes peaks at 166,000–323,000 states
# (0.35–0.40 s) and 8×8 minus the centre at 96,000–206,000 (0.33–0.45 s), where the search
# of a quarter and an eighth of the tree takes 0.40 s and 0.38 s; at 200,000 states a
# count on two jobs gave its frontier up and split the search, 4 times slower.
IMAGES_FRONTIER_STATES = 500_000
# The frontier's budget on auto when ``memo_budget`` is not set: states in one layer, as
# many as half the usable memory holds when every usable core runs a scan (the parts of a
# split may), at ``STATE_BYTES`` each, and at least ``FRONTIER_STATES``.  9×9 less 3 cells
# with six pieces of up to 6 copies peaks at 1–40 million states, counted in 3–80 s
# where the search takes from 20 s to far longer (docs/exactcover.md).
FRONTIER_STATES = 6_000_000
FRONTIER_MEMORY_SHARE = 0.5
# The process's peak memory per state at the scan's peak, with room to spare: 156–169
# bytes measured on 9×9 boards of 7 to 39 million states (both sides, both layers each).
STATE_BYTES = 200
# The memo's budget on auto when ``memo_budget`` is not set: states in all (Python).
MEMO_STATES = 1_000_000
# The frontier's time on auto: this share of the estimated search's time (per thread), at
# least ``FRONTIER_FLOOR`` seconds.  The estimate is often low by 2–5 times (a few dives
# into a tree with heavy tails: measured on 9×9 instances and random ones), so a frontier
# that is cut off costs about one to two searches (on one job or on several, which keeps
# a split's speed-up); one that finishes is usually far faster than the search
# (docs/exactcover.md).
FRONTIER_SHARE = 4.0
FRONTIER_FLOOR = 0.25
# The frontier scan uses at most two threads: one scans forward, one backward, and they
# meet in the middle (docs/exactcover.md, "On several threads").
FRONTIER_THREADS = 2


class ImageSearch(Protocol):
    """A count's search of one anchor placement per orbit of a symmetric model, found only
    when asked: ``possible()`` is a cheap look (may the model have symmetries at all),
    calling it finds the symmetries (0.1–0.2 s on the 2022 paper's Figs. 11 and 12) and
    gives the search, or None."""

    def possible(self) -> bool: ...

    def __call__(self) -> Callable[[], SearchReport] | None: ...


def count_covers(
    problem: CoverProblem,
    options: ExactCoverOptions,
    limits: Limits,
    image_search: ImageSearch | None = None,
    *,
    search: bool = True,
    threads: int = 1,
) -> SearchReport:
    """Count without listing: the frontier scan, the memo or the search kernel, as
    ``options.counter`` says.  On auto: dancing links if it finishes within
    ``PROBE_NODES`` nodes, or, estimated nearly done, resumed within ``RESUME_NODES``
    more; else Knuth's estimate of the search's time, then the frontier
    scan within its budget of states and of time (``FRONTIER_SHARE`` of the estimated
    search, on up to two of ``threads`` threads), then the memo within its budget, then the search
    kernel.  ``image_search()`` finds, when first asked, the search of one anchor
    placement per orbit of a symmetric model (or None); it is asked only when the
    frontier does not count the model, since finding the symmetries can cost more than
    the count; ``image_search.possible()`` is asked only once the short search has not
    counted it.  Given such a search, the
    frontier's budget is ``IMAGES_FRONTIER_STATES`` and the memo is not tried; the search
    counts.  The reason for each step back is written to ``details["counter_fallback"]``.
    A forced frontier scan on a model it cannot lay out (a Burnside count's merged model,
    say) steps back to the search the same way.  Without ``search`` (a probe:
    ``SolveSettings.probe``), a count that would need the search kernel gives up instead
    (status ``time_limit``, how ``search``)."""
    notes = []
    auto = options.counter == "auto"
    share: float | None = None  # seconds the frontier may take before the search is made instead
    if auto:
        # A short dancing-links search ends many small counts in under a millisecond,
        # before the frontier's layout (milliseconds of Python) is made.
        probe = estimated_search(problem, limits, finish_short=True)
        if probe.finished is not None:
            return probe.finished
        share = max(FRONTIER_SHARE * probe.seconds / threads, FRONTIER_FLOOR)
        notes.append(f"dlx: not done in {PROBE_NODES} nodes; the search would take about {probe.seconds:.3g} s")
    if image_search is not None and not image_search.possible():
        image_search = None
    if options.counter in ("auto", "frontier"):
        plan = layout(problem)
        if isinstance(plan, str):
            notes.append(f"frontier: {plan}")
        else:
            whole = (options.memo_budget or frontier_budget()) if auto else 1 << 62
            trial = auto and image_search is not None and whole > IMAGES_FRONTIER_STATES
            budget = IMAGES_FRONTIER_STATES if trial else whole
            scan = _Scan(plan, limits, share, min(threads, FRONTIER_THREADS))
            status, count, states, size = scan(budget)
            if trial and status == "budget" and image_search is not None and image_search() is None:
                # No symmetry to search less of: the frontier gets its whole budget.
                budget = whole
                status, count, states, size = scan(budget)
            peaks = {
                "table_peak_states": states,
                "table_peak_mb": round(size / 2**20, 1),
                "frontier_pruning": plan.pruned_by(),
            }
            if threads > 1:
                peaks["frontier_threads"] = min(threads, FRONTIER_THREADS)
            if status == "completed" or (status in ("interrupted", "time_limit") and limits.reason()):
                return SearchReport(Termination(status), count, "frontier", {"kernel": "frontier", **peaks})
            if status == "budget":
                why = f"more than {budget} states in a layer"
            elif status == "time_limit":
                why = f"not done in {share:.3g} s, its share of the estimated search"
            else:
                why = status
            notes.append(f"frontier: {why} (peak {states} states, {peaks['table_peak_mb']} MB)")
    by_images = image_search() if image_search is not None else None
    if options.counter == "memo" or (auto and by_images is None):
        try:
            count = memo_count(
                problem,
                budget=(options.memo_budget or MEMO_STATES) if auto else float("inf"),
                probe=auto,
                stop=limits.stop,
                deadline=limits.deadline,
            )
            return SearchReport(Termination.COMPLETED, count, "memo", {"kernel": "memo", **_fallback(notes)})
        except Stopped as stopped:
            return SearchReport(Termination(stopped.reason), 0, "memo", {"kernel": "memo", **_fallback(notes)})
        except MemoTooLarge:
            notes.append(
                f"memo: passed its budget of {options.memo_budget or MEMO_STATES} states or its states did not recur"
            )
    if not search and auto:
        notes.append("search: not made in a probe (the run splits the search instead)")
        return SearchReport(Termination.TIME_LIMIT, 0, "search", {"kernel": "none", **_fallback(notes)})
    outcome = by_images() if by_images is not None else enumerate_covers(problem, None, limits, kernel=options.kernel)
    outcome.details.update(_fallback(notes))
    return outcome


def frontier_budget() -> int:
    """States a layer of the frontier scan may hold on auto (``FRONTIER_STATES`` where the
    memory is not known)."""
    memory = usable_memory()
    if memory is None:
        return FRONTIER_STATES
    share = memory * FRONTIER_MEMORY_SHARE / usable_cores()
    return max(FRONTIER_STATES, int(share / STATE_BYTES))


@attrs.frozen
class _Scan:
    """The frontier scan of ``plan`` within a budget of states, the run's limits and, on
    auto, its share of time (``share``, None: only the run's limit)."""

    plan: Layout
    limits: Limits
    share: float | None
    threads: int

    def __call__(self, budget: int) -> tuple[str, int, int, int]:
        left = self.limits.left()  # 0: no limit
        if self.share is not None:
            left = self.share if left == 0 else min(left, self.share)
        return self.limits.run(frontier(self.plan), budget, left, self.threads)


def _fallback(notes: list[str]) -> dict[str, str]:
    return {"counter_fallback": "; ".join(notes)} if notes else {}
