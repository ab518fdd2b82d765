"""polytile backend: exact cover with multiplicities.

Enumeration and one-solution search run on a dancing-links kernel in C (``_dlx.c``,
Knuth's Algorithm X with counted groups for piece multiplicities) that streams each
solution to Python as it is found.  Counting picks a memoised first-empty-cell search
when it pays off (``memo.py``).  Solving up to the region's symmetry breaks the symmetry
in the search (``symmetric.py``).  See docs/exactcover.md.
"""

from __future__ import annotations

import threading
import time
from typing import Literal

import attrs

from polytile_core import hookimpl
from polytile_core.host.contracts import BackendResult, SolveSettings
from polytile_core.errors import InputError
from polytile_core.model.zero_one import Model
from polytile_core.output.results import Found, Termination

from polytile_exactcover._dlx import Search
from polytile_exactcover.cover import CoverProblem, cover_problem
from polytile_exactcover.memo import MemoTooLarge, Stopped, memo_count


@attrs.frozen
class ExactCoverOptions:
    """Options of the exactcover backend, from ``[options.exactcover]``."""

    counter: Literal["auto", "memo", "dlx"] = attrs.field(
        default="auto",
        metadata={"description": "how mode count counts: memo (memoised), dlx (dancing links) or auto (memo "
                  "while states recur, else dlx)"},
    )
    memo_budget: int = attrs.field(
        default=2_000_000, metadata={"description": "states the memo may store before auto gives up on it"}
    )
    symmetry: Literal["search", "burnside"] = attrs.field(
        default="search",
        metadata={"description": "with distinct: break the symmetry in the search (search), or count the "
                  "solutions each symmetry fixes (burnside)"},
    )

    def __attrs_post_init__(self):
        if self.memo_budget < 1:
            raise InputError(f"expected 1 or more, got {self.memo_budget}", path="options.exactcover.memo_budget")


@attrs.define
class Outcome:
    """What one search (or several added up) did."""

    status: str = "completed"
    count: int = 0
    how: str = "dlx"

    def add(self, other: Outcome, times: int = 1) -> None:
        self.count += times * other.count
        if self.status == "completed":
            self.status = other.status
        if other.how not in self.how.split("+"):
            self.how = f"{self.how}+{other.how}"


class Limits:
    """The stop event and the deadline shared by every search of one solve."""

    def __init__(self, stop: threading.Event, time_limit: float | None):
        self.stop = stop
        self.deadline = None if time_limit is None else time.monotonic() + time_limit

    def left(self) -> float:
        """Seconds left for the kernel (0 = no limit; a tiny positive number when past)."""
        if self.deadline is None:
            return 0.0
        return max(self.deadline - time.monotonic(), 1e-6)

    def reason(self) -> str | None:
        if self.stop.is_set():
            return "interrupted"
        if self.deadline is not None and time.monotonic() > self.deadline:
            return "time_limit"
        return None


def enumerate_covers(problem: CoverProblem, on_ones, limits: Limits, limit: int = 0) -> Outcome:
    """Run dancing links; ``on_ones(sorted model variables)`` per solution, or count only."""
    if limits.reason():
        return Outcome(limits.reason(), 0)
    search = Search(problem.n_items, problem.options, problem.groups)
    callback = None
    if on_ones is not None:
        variables = problem.variables
        callback = lambda chosen: on_ones(sorted(variables[option] for option in chosen))  # noqa: E731
    finished = threading.Event()

    def watch():
        while not finished.wait(0.02):
            if limits.stop.is_set():
                search.cancel()
                return

    watcher = threading.Thread(target=watch, name="exactcover-stop", daemon=True)
    watcher.start()
    try:
        status, count = search.run(callback, limit, limits.left())
    finally:
        finished.set()
        watcher.join()
    return Outcome(status, count)


def count_covers(model: Model, problem: CoverProblem, options: ExactCoverOptions, limits: Limits) -> Outcome:
    """Count without listing: the memo when chosen (or, on auto, while it pays), else dlx."""
    if options.counter != "dlx":
        auto = options.counter == "auto"
        budget = options.memo_budget if auto else float("inf")
        try:
            count = memo_count(model, problem, budget=budget, probe=auto, stop=limits.stop, deadline=limits.deadline)
            return Outcome("completed", count, "memo")
        except Stopped as stopped:
            return Outcome(stopped.reason, 0, "memo")
        except MemoTooLarge:
            pass
    return enumerate_covers(problem, None, limits)


_TERMINATION = {
    "completed": Termination.COMPLETED,
    "solution_limit": Termination.COMPLETED,
    "interrupted": Termination.INTERRUPTED,
    "time_limit": Termination.TIME_LIMIT,
}


class ExactCoverBackend:
    """Exact cover by dancing links; counts by memo; symmetry broken in the search."""

    supports_distinct = True

    def __init__(self, options: ExactCoverOptions | None = None):
        self.options = options or ExactCoverOptions()

    def solve(self, model: Model, settings: SolveSettings, on_solution, stop: threading.Event) -> BackendResult:
        if settings.mode == "optimize":
            raise InputError("the exactcover backend does not optimise (use cpsat or scip)", path="solve.backend")
        problem = cover_problem(model)
        limits = Limits(stop, settings.time_limit)
        decision = set(model.decision)
        report = on_solution if decision == set(range(model.num_variables)) else (
            lambda ones: on_solution([var for var in ones if var in decision])
        )
        distinct = None
        if settings.distinct and settings.mode in ("all", "count"):
            from polytile_exactcover.symmetric import solve_distinct

            outcome, distinct = solve_distinct(model, problem, settings.mode, report, limits, self.options)
        elif settings.mode == "count":
            outcome = count_covers(model, problem, self.options, limits)
        else:
            outcome = enumerate_covers(problem, report, limits, limit=1 if settings.mode == "one" else 0)
        complete = outcome.status in ("completed", "solution_limit")
        if outcome.count:
            found = Found.FEASIBLE
        else:
            found = Found.INFEASIBLE if complete else Found.NONE
        return BackendResult(
            termination=_TERMINATION[outcome.status],
            found=found,
            raw_status=f"{outcome.how}: {outcome.status}",
            count=outcome.count if settings.mode in ("all", "count") else None,
            distinct_count=distinct if outcome.status == "completed" else None,
        )


@hookimpl
def polytile_register_backends(register):
    register(
        "exactcover",
        ExactCoverBackend,
        options=ExactCoverOptions,
        help="exact cover with multiplicities: dancing links in C, memoised counting, symmetry broken in the search",
    )
