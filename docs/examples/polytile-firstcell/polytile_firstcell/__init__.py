"""An example third-party polytile decomposer: the ``first-cell`` split.

Every tiling covers any one cell of the region with exactly one placement.  So choose a
cell, and make one part per placement that covers it: the whole model with that
placement pinned.  Each tiling is a tiling of exactly one part (the one of the placement
it puts on the cell), so the parts partition the tilings.  When no placement covers the
cell, there is no tiling at all, and the split says so without any search.

It is the smallest useful split, to read and copy; ``plugins/tree`` makes the same kind
of parts many levels deep.
"""

from __future__ import annotations

from collections import Counter
from typing import Literal

import attrs

from polytile_core.plugin import (
    BuildModel,
    Cell,
    Decomposer,
    DecomposerCapabilities,
    InputError,
    Model,
    Part,
    Register,
    Split,
    TilingProblem,
    hookimpl,
)


@attrs.frozen
class FirstCellOptions:
    """Options of the first-cell split, from ``[options.first-cell]``."""

    # A Literal is checked by the core when it reads the table: a wrong choice is named
    # as ``options.first-cell.cell: ...`` with no code here.  A check that the type cannot
    # say goes in ``__attrs_post_init__`` and raises ``InputError(..., path="<key>")``,
    # the path relative to this table (the core puts ``options.first-cell`` in front).
    cell: Literal["first", "fewest"] = attrs.field(
        default="first",
        metadata={
            "description": "the cell to split on: first (in reading order, row by row) or fewest "
            "(the one the fewest placements cover, so the fewest parts)"
        },
    )


def chosen_cell(cells: frozenset[Cell], model: Model, choice: str) -> Cell:
    """The cell to split on: the first in reading order (y, then x), or the one the fewest
    placements cover (the first of those in reading order)."""
    in_reading_order = sorted(cells, key=lambda cell: (cell[1], cell[0]))
    if choice == "first":
        return in_reading_order[0]
    covers = Counter(cell for placed in model.placements.values() for cell in placed.cells)
    return min(in_reading_order, key=lambda cell: covers[cell])


def covered_exactly_once(model: Model, variables: frozenset[int]) -> bool:
    """Whether the model has the row ``sum(variables) == 1``: what makes the parts a
    partition (and an empty row, a model with no solution)."""
    return any(
        row.sense == "==" and row.rhs == 1 and frozenset(var for var, coefficient in row.terms) == variables
        for row in model.constraints
        if all(coefficient == 1 for _, coefficient in row.terms)
    )


class FirstCellSplit:
    """The decomposer registered as ``first-cell``."""

    def split(
        self,
        problem: TilingProblem,
        model: Model,
        build: BuildModel,  # for splits that build other problems' models; this one needs none
        options: FirstCellOptions | None = None,
        /,
        *,
        jobs: int = 1,  # one part per placement on the cell, however many jobs
    ) -> Split:
        options = options or FirstCellOptions()
        if problem.region is None or not problem.region.cells:
            raise InputError("the first-cell split needs a region to tile", path="split.method")
        x, y = cell = chosen_cell(problem.region.cells, model, options.cell)
        covering = [var for var, placed in model.placements.items() if cell in placed.cells]
        if not covered_exactly_once(model, frozenset(covering)):
            raise InputError(
                f"the first-cell split needs each cell covered exactly once; model {model.name!r} "
                f"has no such row for cell ({x}, {y})",
                path="split.method",
            )
        summary = {"cell": f"{x},{y}", "chosen": options.cell, "placements": len(covering)}
        if not covering:
            return Split(iter(()), 0, impossible=f"no piece can cover cell ({x}, {y})", summary=summary)
        # The part is the whole model with ``var`` fixed to 1 (``Model.pinned``): given as
        # ``fixed``, the model travels once per worker, not once per part.
        parts = (
            Part(model.labels[var], model, {"piece": model.placements[var].piece}, fixed=(var,)) for var in covering
        )
        return Split(parts, total=len(covering), summary=summary)


@hookimpl
def polytile_register_decomposers(register: Register[Decomposer]) -> None:
    register(
        "first-cell",
        FirstCellSplit(),
        options=FirstCellOptions,
        help="one part per placement covering one cell (an example decomposer)",
        # Its parts serve every tiling mode and overlap nowhere.  No rank: `auto` never picks
        # it, since a few parts of nearly the whole problem's size rarely beat solving it
        # whole; name it in [split] method to use it.
        capabilities=DecomposerCapabilities(modes={"one", "all", "count"}),
    )
