"""polytile backend: exact cover with multiplicities.

Enumeration and one-solution search run on a kernel in C that streams each solution to
Python as it is found: bitboards (``_bitboard.c``) when the items fit in 256 bits, else
dancing links (``_dlx.c``, Knuth's Algorithm X); both with counted groups for piece
multiplicities.  Counting scans the region's frontier with a table of states in C
(``frontier.py``), else falls back to a memoised search (``memo.py``) or to listing
without storing.  Solving up to the region's symmetry breaks the symmetry
in the search (``symmetric.py``).  See docs/exactcover.md.
"""

from __future__ import annotations

import functools
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Literal

import attrs

from polytile_core.plugin import (
    BackendCapabilities,
    BackendFactory,
    BackendResult,
    Found,
    InputError,
    Model,
    Register,
    SolveSettings,
    Termination,
    hookimpl,
    relay_stop,
)
from polytile_exactcover._bitboard import Board
from polytile_exactcover._dlx import Search
from polytile_exactcover.cover import CoverProblem, cover_problem, pinned_problem
from polytile_exactcover.frontier import frontier, layout
from polytile_exactcover.memo import MemoTooLarge, Stopped, memo_count

BITBOARD_ITEMS = 256
# Measured: dancing links solves the 2022 paper's Fig. 5 (holes everywhere) in about 1,000
# nodes, where the bitboards take seconds; on 6×10 pentominoes it needs millions.
PROBE_NODES = 20_000
# The frontier's budget (states in a layer) on auto when the model can be searched by
# images instead, for a fraction of its tree (then the memo, a whole-problem table too, is
# not tried).  Measured (docs/exactcover.md): after pruning every paper instance peaks
# under 30,000 states, where the search takes seconds to minutes (Fig. 12: 10,257 states,
# 0.04 s); 5×12 pentominoes peaks at 105,321 (0.5 s, the search 0.6 s); 6×10 at 410,917
# (1.2–1.5 s) and 8×8 minus the centre at 371,148 (0.86 s), where the search of a quarter
# and an eighth of the tree takes 0.45 s and 0.38 s.
IMAGES_FRONTIER_STATES = 200_000
# The counters that fill a table of the whole problem (``BackendResult.work`` "table").
TABLES = {"frontier", "memo"}


@attrs.frozen
class ExactCoverOptions:
    """Options of the exactcover backend, from ``[options.exactcover]``."""

    counter: Literal["auto", "frontier", "memo", "search"] = attrs.field(
        default="auto",
        metadata={
            "description": "how mode count counts: frontier (a table scan in C), memo (memoised search "
            "in Python), search (list without storing, by the kernel; one anchor placement per orbit when the "
            "problem is symmetric) or auto (frontier, then a short "
            "dancing-links probe, memo and search, each within its budget)"
        },
    )
    kernel: Literal["auto", "bitboard", "dlx"] = attrs.field(
        default="auto",
        metadata={
            "description": "what lists (and counts by search): bitboard (at most 256 items: cells and "
            "pieces used once), dlx (dancing links, any size) or auto (dlx to find one; to list, bitboard when "
            "it fits unless a short dlx probe finishes)"
        },
    )
    memo_budget: int = attrs.field(
        default=1_000_000,
        metadata={
            "description": "states the frontier table may hold in one layer (and the memo in all) before "
            "counting falls back to search",
            "json_schema": {"minimum": 1},
        },
    )
    symmetry: Literal["search", "burnside"] = attrs.field(
        default="search",
        metadata={
            "description": "with distinct: break the symmetry in the search (search), or count the "
            "solutions each symmetry fixes (burnside); listing all: search lists only the tilings with an "
            "anchor piece on a representative and makes the others as their images, burnside lists plainly"
        },
    )

    def __attrs_post_init__(self):
        if self.memo_budget < 1:
            raise InputError(f"expected 1 or more, got {self.memo_budget}", path="memo_budget")


@attrs.define
class Outcome:
    """What one search (or several added up) did; ``details`` go to the result."""

    status: str = "completed"
    count: int = 0
    how: str = "dlx"
    details: dict = attrs.Factory(dict)

    def add(self, other: Outcome, times: int = 1) -> None:
        self.count += times * other.count
        if self.status == "completed":
            self.status = other.status
        for part in other.how.split("+"):
            if part not in self.how.split("+"):
                self.how = f"{self.how}+{part}"
        for key, value in other.details.items():
            mine = self.details.get(key)
            if key.startswith("table_peak"):
                self.details[key] = max(value, mine or 0)
            elif mine is None:
                self.details[key] = value
            elif key == "kernel" and value not in mine.split("+"):
                self.details[key] = f"{mine}+{value}"


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


def run_kernel(kernel, limits: Limits, *args):
    """``kernel.run(*args)`` with the GIL released, cancelled when the stop event is set."""
    with relay_stop(limits.stop, kernel.cancel, every=0.02):
        return kernel.run(*args)


def listing_kernel(problem: CoverProblem, kernel: str, limits: Limits, limit: int = 0):
    """(the search kernel for ``problem``, its name).  On auto, to find a few solutions
    (``limit`` > 0): dancing links, whose most constrained item finds a first tiling of an
    irregular region soonest (the 2022 paper's Fig. 8: 1.5 s, against 12 s filling the
    first empty cell).  To list all: bitboards when the items fit, unless dancing links
    finishes within ``PROBE_NODES`` nodes (a region whose holes force most moves)."""
    fits = problem.n_items <= BITBOARD_ITEMS
    if kernel == "bitboard" and not fits:
        raise InputError(
            f"the bitboard kernel holds at most {BITBOARD_ITEMS} items, this model has {problem.n_items} "
            '(use kernel = "auto" or "dlx")',
            path="options.exactcover.kernel",
        )
    dancing_links = Search(problem.n_items, problem.options, problem.groups)
    if kernel == "dlx" or not fits or (kernel == "auto" and limit > 0):
        return dancing_links, "dlx"
    if kernel == "auto" and run_kernel(dancing_links, limits, None, 0, limits.left(), PROBE_NODES)[0] == "completed":
        return Search(problem.n_items, problem.options, problem.groups), "dlx"
    position = {item: index for index, item in enumerate(problem.order)}
    options = [([position[item] for item in items], memberships) for items, memberships in problem.options]
    board = Board(problem.n_items, options, problem.groups, first_branch(options, problem.n_items), problem.cells)
    return board, "bitboard"


def first_branch(options, n_items: int) -> int:
    """The item the bitboards branch on first: the one with the fewest options if that is
    at most half as many as the first cell has (measured: the X pentomino restricted to 8
    placements by symmetry breaking cuts 6×10 five-fold; unrestricted, with 32 against
    the corner's 37, it doubles the time), else the first cell."""
    reach = Counter(item for items, _ in options for item in items)
    fewest = min(range(n_items), key=lambda item: (reach[item], item))
    return fewest if 2 * reach[fewest] <= reach[0] else 0


def enumerate_covers(problem: CoverProblem, on_ones, limits: Limits, limit: int = 0, kernel: str = "auto") -> Outcome:
    """List the covers, ``on_ones(sorted model variables)`` per solution, or count them
    (``on_ones`` None), on the kernel ``listing_kernel`` picks."""
    reason = limits.reason()
    if reason:
        return Outcome(reason, 0, kernel, {"kernel": kernel})
    search, name = listing_kernel(problem, kernel, limits, limit)
    callback = None
    if on_ones is not None:
        variables = problem.variables
        callback = lambda chosen: on_ones(sorted(variables[option] for option in chosen))  # noqa: E731
    status, count = run_kernel(search, limits, callback, limit, limits.left())
    return Outcome(status, count, name, {"kernel": name})


def count_covers(
    problem: CoverProblem,
    options: ExactCoverOptions,
    limits: Limits,
    image_search: Callable[[], Callable[[], Outcome] | None] | None = None,
    *,
    search: bool = True,
) -> Outcome:
    """Count without listing: the frontier scan, the memo or the search kernel, as
    ``options.counter`` says.  On auto: the frontier scan within its budget, then dancing
    links if it finishes within ``PROBE_NODES`` nodes, then the memo within its budget,
    then the search kernel.  ``image_search()`` finds, when first asked, the search of
    one anchor placement per orbit of a symmetric model (or None); it is asked only when
    the frontier does not count the model, since finding the symmetries can cost more
    than the count (0.1–0.2 s on the 2022 paper's Figs. 11 and 12).  Given such a
    search, the frontier's budget is ``IMAGES_FRONTIER_STATES`` and the memo is not
    tried; the search counts.  The reason for each step back is written to
    ``details["counter_fallback"]``.  A forced frontier scan on a model it cannot lay out
    (a Burnside count's merged model, say) steps back to the search the same way.
    Without ``search`` (a probe: ``SolveSettings.probe``), a count that would need the
    search kernel gives up instead (status ``time_limit``, how ``search``)."""
    notes = []
    if options.counter in ("auto", "frontier"):
        plan = layout(problem)
        if isinstance(plan, str):
            notes.append(f"frontier: {plan}")
        else:
            budget = options.memo_budget if options.counter == "auto" else 1 << 62
            trial = options.counter == "auto" and image_search is not None and budget > IMAGES_FRONTIER_STATES
            if trial:
                budget = IMAGES_FRONTIER_STATES
            status, count, states, size = run_kernel(frontier(plan), limits, budget, limits.left())
            if trial and status == "budget" and image_search is not None and image_search() is None:
                # No symmetry to search less of: the frontier gets its whole budget.
                budget = options.memo_budget
                status, count, states, size = run_kernel(frontier(plan), limits, budget, limits.left())
            peaks = {
                "table_peak_states": states,
                "table_peak_mb": round(size / 2**20, 1),
                "frontier_pruning": plan.pruned_by(),
            }
            if status in ("completed", "interrupted", "time_limit"):
                return Outcome(status, count, "frontier", {"kernel": "frontier", **peaks})
            notes.append(
                f"frontier: {'more than ' + str(budget) + ' states in a layer' if status == 'budget' else status} "
                f"(peak {states} states, {peaks['table_peak_mb']} MB)"
            )
    if options.counter == "auto":
        probe = Search(problem.n_items, problem.options, problem.groups)
        status, count = run_kernel(probe, limits, None, 0, limits.left(), PROBE_NODES)
        if status != "node_limit":
            return Outcome(status, count, "dlx", {"kernel": "dlx", **_fallback(notes)})
        notes.append(f"dlx: not done in {PROBE_NODES} nodes")
    by_images = image_search() if image_search is not None else None
    if options.counter == "memo" or (options.counter == "auto" and by_images is None):
        auto = options.counter == "auto"
        try:
            count = memo_count(
                problem,
                budget=options.memo_budget if auto else float("inf"),
                probe=auto,
                stop=limits.stop,
                deadline=limits.deadline,
            )
            return Outcome("completed", count, "memo", {"kernel": "memo", **_fallback(notes)})
        except Stopped as stopped:
            return Outcome(stopped.reason, 0, "memo", {"kernel": "memo", **_fallback(notes)})
        except MemoTooLarge:
            notes.append(f"memo: passed its budget of {options.memo_budget} states or its states did not recur")
    if not search and options.counter == "auto":
        notes.append("search: not made in a probe (the run splits the search instead)")
        return Outcome("time_limit", 0, "search", {"kernel": "none", **_fallback(notes)})
    outcome = by_images() if by_images is not None else enumerate_covers(problem, None, limits, kernel=options.kernel)
    outcome.details.update(_fallback(notes))
    return outcome


def short_search(problem: CoverProblem, limits: Limits) -> Outcome:
    """A count by dancing links if it ends within ``PROBE_NODES`` nodes; else given up
    (status ``time_limit``): what a probe may search."""
    status, count = run_kernel(
        Search(problem.n_items, problem.options, problem.groups), limits, None, 0, limits.left(), PROBE_NODES
    )
    if status == "node_limit":
        return Outcome(
            "time_limit", 0, "search", {"counter": f"search: not done in {PROBE_NODES} nodes, a probe's share"}
        )
    return Outcome(status, count, "dlx", {"kernel": "dlx"})


def _fallback(notes: list[str]) -> dict:
    return {"counter_fallback": "; ".join(notes)} if notes else {}


_TERMINATION = {
    "completed": Termination.COMPLETED,
    "solution_limit": Termination.COMPLETED,
    "interrupted": Termination.INTERRUPTED,
    "time_limit": Termination.TIME_LIMIT,
}


class ExactCoverBackend:
    """Exact cover by dancing links; counts by memo; symmetry broken in the search."""

    def __init__(self, options: ExactCoverOptions | None = None):
        self.options = options or ExactCoverOptions()

    def solve(self, model: Model, settings: SolveSettings, on_solution, stop: threading.Event) -> BackendResult:
        # symmetric.py builds on this module's kernels, so it is imported when first needed.
        from polytile_exactcover.symmetric import images_of, list_all, search_by_images, solve_distinct

        if settings.mode == "optimize":
            raise InputError("the exactcover backend does not optimise (use cpsat or scip)", path="solve.backend")
        pins = model.pinned_on()
        if pins is not None and not settings.distinct:
            # A part of the tree split: made from the whole model's cover, read once.
            problem = pinned_problem(pins)
            if problem is None:
                return _pins_clash(settings)
        else:
            problem = cover_problem(model)
        limits = Limits(stop, settings.time_limit)
        if len(model.decision) == model.num_variables:
            report = on_solution
        else:
            decision = set(model.decision)
            report = lambda ones: on_solution([var for var in ones if var in decision])  # noqa: E731
        distinct = None
        if settings.distinct and settings.mode in ("all", "count"):
            outcome, distinct = solve_distinct(model, problem, settings.mode, report, limits, self.options)
        elif settings.mode == "count" and settings.probe and self.options.counter == "search":
            # A probe wants no long search (the run splits it instead): a short one only.
            outcome = short_search(problem, limits)
        elif settings.mode == "count" and settings.subtree and self.options.counter == "auto":
            # A subtree of a search: count it by search, as the whole problem's search would.
            outcome = enumerate_covers(problem, None, limits, kernel=self.options.kernel)
            outcome.details["counter"] = "search: the model is a subtree of a search"
        elif settings.mode == "all" or (settings.mode == "count" and self.options.counter == "search"):
            # A search, with the anchor on one placement per orbit and the images made (or counted).
            outcome = list_all(model, problem, report if settings.mode == "all" else None, limits, self.options)
        elif settings.mode == "count":

            @functools.cache
            def image_search() -> Callable[[], Outcome] | None:
                images = images_of(model, problem, self.options)
                return None if images is None else lambda: search_by_images(images, problem, None, limits, self.options)

            outcome = count_covers(problem, self.options, limits, image_search, search=not settings.probe)
        else:
            outcome = enumerate_covers(problem, report, limits, limit=1, kernel=self.options.kernel)
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
            details={f"exactcover_{key}": value for key, value in outcome.details.items()},
            work="table" if TABLES & set(outcome.how.split("+")) else "search",
        )


def _pins_clash(settings: SolveSettings) -> BackendResult:
    """The answer for a part whose pinned variables rule each other out: no tiling."""
    return BackendResult(
        termination=Termination.COMPLETED,
        found=Found.INFEASIBLE,
        raw_status="pinned variables clash",
        count=0 if settings.mode in ("all", "count") else None,
        work="search",
    )


@hookimpl
def polytile_register_backends(register: Register[BackendFactory]) -> None:
    register(
        "exactcover",
        ExactCoverBackend,
        options=ExactCoverOptions,
        help="exact cover with multiplicities: dancing links in C, memoised counting, symmetry broken in the search",
        # The fastest for a pure cover (docs/benchmarks/split.md, exactcover.md), but no objective
        # and no general rows: auto takes an ILP backend for those.
        capabilities=BackendCapabilities(
            modes={"one", "all", "count"},
            accepts={"count rows", "ranges", "weights"},
            counts_without_listing=True,
            distinct_in_search=True,
            releases_gil=True,  # its C kernels (dlx, bitboard, frontier) run without it; the memo is Python
            answers_probes=True,  # a count in a probe is by the frontier or the memo, or none
            rank={"one": 30, "all": 30, "count": 30},
        ),
    )
