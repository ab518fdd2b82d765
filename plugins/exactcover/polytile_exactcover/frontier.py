"""Counting without listing: a frontier scan in C (``_frontier.c``).

The scan fills the cells in ``problem.order`` and keeps, per layer, the number of ways
to reach each state (window of covered cells ahead, pieces used once, copies placed of
the pieces counted).  This module lays a cover problem out for it, or says why it
cannot: a placement spanning more than 64 cells of the scan, an option covering no
cell, more than 64 items besides the cells, or piece counts needing more than 64 bits.
"""

from __future__ import annotations

import attrs

from polytile_exactcover._frontier import Frontier
from polytile_exactcover.cover import CoverProblem

WINDOW = 64


@attrs.frozen
class Layout:
    """The arguments of ``_frontier.Frontier``."""

    n_cells: int
    options: list[tuple[int, int, int, tuple[tuple[int, int], ...]]]
    groups: list[tuple[int, int]]
    tail_full: int


def layout(problem: CoverProblem) -> Layout | str:
    """The scan's layout of ``problem``, or the reason it has none."""
    position = {item: index for index, item in enumerate(problem.order)}
    n_cells = problem.cells
    tail = len(problem.order) - n_cells
    if n_cells == 0 and problem.options:
        return "no item was recognised as a cell of a region"
    if tail > WINDOW:
        return f"{tail} items besides the cells (at most {WINDOW})"
    rows = []
    weight_sum = [0] * len(problem.groups)
    for items, memberships in problem.options:
        places = sorted(position[item] for item in items)
        start = places[0]
        if start >= n_cells:
            return "an option covers no cell"
        cells = [place for place in places if place < n_cells]
        if cells[-1] - start >= WINDOW:
            return f"a placement spans {cells[-1] - start + 1} cells of the scan (at most {WINDOW})"
        window = sum(1 << (place - start) for place in cells)
        tail_mask = sum(1 << (place - n_cells) for place in places if place >= n_cells)
        rows.append((start, window, tail_mask, memberships))
        for group, weight in memberships:
            weight_sum[group] += weight
    rows.sort(key=lambda row: row[0])
    # An upper bound no choice of options can pass is dropped (0): the total then only
    # matters up to the lower bound, where the scan saturates it.
    groups = [
        (lo, 0 if hi >= reachable else hi) for (lo, hi), reachable in zip(problem.groups, weight_sum, strict=True)
    ]
    if sum(max(hi, lo).bit_length() for lo, hi in groups) > 64:
        return "the piece counts need more than 64 bits"
    return Layout(n_cells, rows, groups, (1 << tail) - 1)


def frontier(plan: Layout) -> Frontier:
    return Frontier(plan.n_cells, plan.options, plan.groups, plan.tail_full)
