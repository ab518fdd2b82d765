"""polytile plugin: the largest area a set of pieces can fence in (``problem = "enclose"``).

The builder writes Furmanek's ILP made exact (see ``model.py``) and states the problem
for the ``fence`` backend, the default for enclosures: a boundary search that proves the
largest pocket (``fence.py``, ``backend.py``).  Every solution a run returns is re-checked
by an independent flood fill (``check.py``).
"""

from __future__ import annotations

import functools
from typing import Literal

import attrs

from polytile_core.plugin import (
    BackendCapabilities,
    BackendFactory,
    Builder,
    InputError,
    Register,
    Solution,
    doc,
    hookimpl,
)
from polytile_enclosure.check import EnclosureCheckError, check_fence, enclosed_area, enclosed_pockets
from polytile_enclosure.model import check_board_cells

__all__ = ["EncloseOptions", "EnclosureCheckError", "build", "check_fence", "enclosed_area", "enclosed_pockets"]


@attrs.frozen
class EncloseOptions:
    """Options of the enclosure builder, from ``[options.enclose]``."""

    width: int | None = attrs.field(
        default=None,
        metadata=doc("board width; with height. Default: a square sized from the pieces (docs/enclosure.md)"),
    )
    height: int | None = attrs.field(default=None, metadata=doc("board height; with width"))
    neighbours: Literal[8, 4] = attrs.field(
        default=8,
        metadata=doc(
            "8: classic rule, the outside leaks through corners, pieces close a fence edge to edge; "
            "4: Furmanek's literal rule, corner contacts close the fence"
        ),
    )
    score: Literal["pockets", "region"] = attrs.field(
        default="region",
        metadata=doc(
            "region: the largest connected enclosed region (the classic score; the fence backend proves it); "
            "pockets: every enclosed cell counts (grid model backends such as cpsat only)"
        ),
    )
    size_for_area: int = attrs.field(
        default=1,
        metadata=doc(
            "size the automatic board only for pockets of at least this many cells: a smaller, faster "
            "board whose optimum is exact whenever it reaches this area"
        ),
    )
    list_optimal: bool = attrs.field(
        default=False,
        metadata=doc(
            "list every optimal fence, one per class under the pieces' symmetries (fence backend only): "
            "each is a solution, streamed with -o FILE.jsonl, and the result's count is their number"
        ),
    )
    symmetry_breaking: bool = attrs.field(
        default=True,
        metadata=doc("fix one asymmetric piece's orientation and pin the fence to the top and left edges"),
    )

    def __attrs_post_init__(self):
        """A board given here is checked when the plan is made, before anything is built."""
        if self.width is None and self.height is None:
            return
        if self.width is None or self.height is None:
            missing = "width" if self.width is None else "height"
            raise InputError("give both width and height (or neither, to size the board from the pieces)", path=missing)
        for key, value in (("width", self.width), ("height", self.height)):
            if value < 1:
                raise InputError(f"expected 1 or more, got {value}", path=key)
        cells = self.width * self.height
        check_board_cells(cells, f"a {self.width}×{self.height} board has {cells} cells", "width")


def verify(solution: Solution, *, board: frozenset, neighbours: int, score: str) -> None:
    """The plugin's check of a returned fence, by flood fill (raises on disagreement)."""
    fence = [(x, y) for placed in solution.placements for x, y in placed.cells]
    check_fence(fence, solution.interior or (), solution.objective, board, neighbours, score)


def build(pieces, region, options, rows: bool = True):
    """Build the enclosure model (with ``rows=False``, for the fence backend, the statement
    alone) and attach its details and its independent check."""
    from polytile_enclosure.model import build as build_model

    options = options or EncloseOptions()
    model = build_model(pieces, region, options, rows)
    model.verify = functools.partial(verify, board=model.board, neighbours=options.neighbours, score=options.score)
    return model


@hookimpl
def polytile_register_builders(register: Register[Builder]) -> None:
    register(
        "enclose",
        build,
        options=EncloseOptions,
        help="fence in the largest area with the pieces (classic or 4-neighbour rule; all pockets or one region)",
        backend="fence",
    )


def make_backend(options=None):
    from polytile_enclosure.backend import FenceBackend

    return FenceBackend()


@hookimpl
def polytile_register_backends(register: Register[BackendFactory]) -> None:
    register(
        "fence",
        make_backend,
        help="enclosures only: the boundary search, which proves the largest pocket (the default for enclose)",
        # It optimises enclosure models only, so it ranks no mode: auto reaches it through the
        # enclose builder, which declares it as its problem's own backend.
        # It reads the builder's statement (Model.problem), never the grid model's rows.
        capabilities=BackendCapabilities(modes={"optimize"}, reads_model=False),
    )
