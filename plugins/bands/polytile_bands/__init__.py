"""polytile large-region tiler ``bands``: one tiling of a region of up to millions of
cells, window by window along bands of rows, without a whole model (docs/large.md).

The default route calls it (``polytile_register_tilers``) for mode ``one`` on a large
region whose pieces leave slack; ``tile_large`` is the same for a caller with cells and
pieces in hand.
"""

from __future__ import annotations

import math
import threading

import numpy as np

from polytile_bands.sweep import Grid, Sweep
from polytile_core.plugin import LargeTiling, Mode, Register, Tiler, TilingProblem, hookimpl

# Below this many cells a whole model is built in well under a second and its search
# can prove there is no tiling, which the sweep cannot; from here on the sweep applies.
# Measured (under load): 30x30 minus 5 random cells with unlimited pentominoes, 0.3-0.8 s.
LARGE_REGION_CELLS = 400


def impossibility(problem: TilingProblem, grid: Grid | None = None) -> str | None:
    """A proof by counting that no tiling exists, or None: the pieces' areas cannot add up
    to the region's, or some connected part of the region has a number of cells that is
    no multiple of what every usable piece covers (their areas' greatest common divisor)."""
    reason = problem.area_problem()
    if reason:
        return reason
    step = math.gcd(*(piece.area for piece in problem.pieces if piece.maximum != 0))
    if step <= 1:
        return None
    from scipy import ndimage  # here, not at the top: it takes most of a second to import

    grid = grid or Grid.of(problem.region.cells)
    labels, _ = ndimage.label(grid.inside)  # edge-connected parts
    sizes = np.bincount(labels.ravel())[1:]
    odd = np.nonzero(sizes % step)[0]
    if not len(odd):
        return None
    ys, xs = np.nonzero(labels == odd[0] + 1)
    return (
        f"the part of the region around ({int(xs[0]) + grid.left}, {int(ys[0]) + grid.top}) has {int(sizes[odd[0]])} cells, "
        f"but every piece covers a multiple of {step}"
    )


def tile_large(
    problem: TilingProblem, *, seed: int = 0, stop: threading.Event | None = None, deadline: float | None = None
) -> LargeTiling:
    """One tiling of the region, checked cell by cell; or a proof by counting that there is
    none; or, when the sweep ends without one (``time_limit``, ``interrupted``,
    ``gave_up``), no answer either way.  ``deadline`` is a ``time.monotonic()`` time."""
    grid = Grid.of(problem.region.cells)
    reason = impossibility(problem, grid)
    if reason:
        return LargeTiling("infeasible", (), reason)
    return Sweep(grid, problem.pieces, seed=seed, stop=stop, deadline=deadline).run()


def not_served(problem: TilingProblem, mode: str) -> str | None:
    """Why the sweep does not serve this problem, or None when it does."""
    if mode != "one":
        return f"it finds one tiling (mode one), not mode {mode}"
    if problem.region.area < LARGE_REGION_CELLS:
        return f"the region has {problem.region.area} cells; below {LARGE_REGION_CELLS} a whole model is faster"
    if all(piece.exact for piece in problem.pieces):
        return "every piece has a fixed number of copies; the sweep needs pieces with slack"
    required = sum(piece.area * piece.minimum for piece in problem.pieces)
    if 2 * required > problem.region.area:
        return f"the required copies cover {required} of the {problem.region.area} cells; the sweep needs slack"
    return None


class BandsTiler:
    """The tiler registered as ``bands``."""

    def applies(self, problem: TilingProblem, mode: Mode, /) -> str | None:
        return not_served(problem, mode)

    def tile(
        self, problem: TilingProblem, /, *, seed: int | None, stop: threading.Event, deadline: float | None
    ) -> LargeTiling:
        return tile_large(problem, seed=seed or 0, stop=stop, deadline=deadline)


@hookimpl
def polytile_register_tilers(register: Register[Tiler]) -> None:
    register(
        "bands",
        BandsTiler(),
        help="one tiling of a large region (mode one, pieces with slack): window by window along bands, no whole model",
    )
