"""Listing (or counting by listing) on a search kernel in C: bitboards when the items fit
in 256 bits, else dancing links; a short dancing-links probe tells which to take."""

from __future__ import annotations

from collections.abc import Callable

from polytile_core.plugin import FILLED_IN_ORDER, InputError, OnSolution, Termination, first_branch
from polytile_exactcover._bitboard import Board
from polytile_exactcover._dlx import Search
from polytile_exactcover.cover import CoverProblem
from polytile_exactcover.outcome import Limits, SearchReport

BITBOARD_ITEMS = FILLED_IN_ORDER  # the bitboards fill cells in scan order (polytile_core.model.fill_order)
# Measured: dancing links solves the 2022 paper's Fig. 5 (holes everywhere) in about 1,000
# nodes, where the bitboards take seconds; on 6×10 pentominoes it needs millions.
PROBE_NODES = 20_000


def listing_kernel(problem: CoverProblem, kernel: str, limits: Limits, limit: int = 0) -> tuple[Search | Board, str]:
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
    if kernel == "auto" and limits.run(dancing_links, None, 0, limits.left(), PROBE_NODES)[0] == "completed":
        return Search(problem.n_items, problem.options, problem.groups), "dlx"
    position = {item: index for index, item in enumerate(problem.order)}
    options = [([position[item] for item in items], memberships) for items, memberships in problem.options]
    if problem.fixed:
        # A part of the tree split: its fixed options first, then the first open cell, as
        # the whole search goes on below them (its part is that subtree).
        covered = {item for k in problem.fixed for item in options[k][0]}
        first = next((item for item in range(problem.n_items) if item not in covered), 0)
        return Board(problem.n_items, options, problem.groups, first, problem.cells, problem.fixed), "bitboard"
    first = first_branch([items for items, _ in options], problem.n_items)
    return Board(problem.n_items, options, problem.groups, first, problem.cells), "bitboard"


def enumerate_covers(
    problem: CoverProblem, on_ones: OnSolution | None, limits: Limits, limit: int = 0, kernel: str = "auto"
) -> SearchReport:
    """List the covers, ``on_ones(sorted model variables)`` per solution, or count them
    (``on_ones`` None), on the kernel ``listing_kernel`` picks."""
    reason = limits.reason()
    if reason:
        return SearchReport(Termination(reason), 0, kernel, {"kernel": kernel})
    search, name = listing_kernel(problem, kernel, limits, limit)
    callback: Callable[[list[int]], None] | None = None
    if on_ones is not None:
        report, variables = on_ones, problem.variables
        callback = lambda chosen: report(sorted(map(variables.__getitem__, chosen)))  # noqa: E731
    status, count = limits.run(search, callback, limit, limits.left())
    return SearchReport(Termination(status), count, name, {"kernel": name})


def short_search(problem: CoverProblem, limits: Limits) -> SearchReport:
    """A count by dancing links if it ends within ``PROBE_NODES`` nodes; else given up
    (status ``time_limit``): what a probe may search."""
    status, count = limits.run(
        Search(problem.n_items, problem.options, problem.groups), None, 0, limits.left(), PROBE_NODES
    )
    if status == "node_limit":
        return SearchReport(
            Termination.TIME_LIMIT,
            0,
            "search",
            {"counter": f"search: not done in {PROBE_NODES} nodes, a probe's share"},
        )
    return SearchReport(Termination(status), count, "dlx", {"kernel": "dlx"})
