"""Listing (or counting by listing) on a search kernel in C: bitboards when the items fit
in 256 bits, else dancing links; a short dancing-links probe tells which to take."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import attrs

from polytile_core.plugin import FILLED_IN_ORDER, InputError, LineSink, OnSolution, Termination, first_branch
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
    if kernel == "dlx" or not fits or (kernel == "auto" and limit > 0):
        return Search(problem.n_items, problem.options, problem.groups), "dlx"
    # A part of the tree split (``problem.fixed``) is a subtree of a search the run found
    # long, split as the bitboards branch: no probe.
    if kernel == "auto" and not problem.fixed:
        dancing_links = Search(problem.n_items, problem.options, problem.groups)
        if limits.run(dancing_links, None, 0, limits.left(), PROBE_NODES)[0] == "completed":
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


@attrs.frozen
class Listing:
    """A listing whose solutions go to ``sink`` as lines that the kernel makes: only the
    ``decision`` variables (None: all) are on them, and each solution stands for its
    images under ``movers`` (none: itself), as ``search_by_images`` hands them on."""

    sink: LineSink
    decision: frozenset[int] | None = None
    movers: tuple[Sequence[int], ...] = ()

    def request(self, variables: tuple[int, ...]) -> LineRequest:
        """What a kernel reads to make the lines of a cover whose option k is ``variables[k]``."""
        sink, decision = self.sink, self.decision
        images: tuple[Sequence[int], ...] = self.movers or sink.images
        if self.movers and sink.images:  # each mover's image, then each of the sink's
            images = tuple(tuple(image[v] for v in mover) for mover in self.movers for image in sink.images)
        return LineRequest(sink.take, sink.text_of, variables, decision, images, sink.head, sink.tail, sink.firsts)


@attrs.frozen
class LineRequest:
    """A run's ``callback`` when the kernel makes the lines (``_handover.h`` reads these
    fields): ``text_of(var)``, the text of a model variable on a line ("" for none); per
    option its model ``variables``; a solution is its variables in ``kept`` (None: all),
    one line for each of its ``images`` (none: itself): ``head``, the texts of the
    image's variables in order joined by ",", then ``tail``.  The first ``firsts`` lines
    also go to ``sink`` as variables."""

    sink: Callable[[bytes, int, list[list[int]]], None]
    text_of: Callable[[int], str]
    variables: tuple[int, ...]
    kept: frozenset[int] | None
    images: tuple[Sequence[int], ...]
    head: str
    tail: str
    firsts: int


def enumerate_covers(
    problem: CoverProblem, on_ones: OnSolution | Listing | None, limits: Limits, limit: int = 0, kernel: str = "auto"
) -> SearchReport:
    """List the covers, ``on_ones(sorted model variables)`` per solution (a ``Listing``:
    their lines, made by the kernel), or count them (``on_ones`` None), on the kernel
    ``listing_kernel`` picks."""
    reason = limits.reason()
    if reason:
        return SearchReport(Termination(reason), 0, kernel, {"kernel": kernel})
    search, name = listing_kernel(problem, kernel, limits, limit)
    callback = None if on_ones is None else kernel_callback(problem, on_ones)
    status, count = limits.run(search, callback, limit, limits.left())
    return SearchReport(Termination(status), count, name, {"kernel": name})


def kernel_callback(problem: CoverProblem, on_ones: OnSolution | Listing) -> Callable[[list[int]], None] | LineRequest:
    """What a kernel's run hands ``problem``'s covers to: a listing's line request, or a
    call of ``on_ones`` with each cover's sorted model variables."""
    if isinstance(on_ones, Listing):
        return on_ones.request(problem.variables)
    variables = problem.variables
    return lambda chosen: on_ones(sorted(map(variables.__getitem__, chosen)))


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
