"""The enclosure builder's options (``[options.enclose]``), checked when the plan is made,
and the largest board it takes."""

from __future__ import annotations

from typing import Literal

import attrs

from polytile_core.plugin import InputError, doc

# The grid model has about 130 variables a board cell (the flow that keeps the pocket in
# one piece), so a 100×100 board takes about 10 s and 0.6 GB to build and a 316×316 one
# 80 s and 7 GB.  The largest board any known piece set needs is 31×35 (docs/enclosure.md).
MAX_BOARD_CELLS = 10_000


def check_board_cells(cells: int, board: str, path: str, advice: str = "") -> None:
    """Refuse a board whose grid model would not fit in memory; ``board`` says which board
    and how many cells it has."""
    if cells > MAX_BOARD_CELLS:
        raise InputError(
            f"{board}, more than the {MAX_BOARD_CELLS} an enclosure board may have "
            f"(its grid model needs over 130 variables a cell){advice}",
            path=path,
        )


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
    finder_checkpoint: str | None = attrs.field(
        default=None,
        metadata=doc(
            "fence finder (sets too many for the proof, e.g. the 35 hexominoes): a JSON file, relative to the "
            "working directory, that keeps the best order and fence found and from which the next run resumes "
            "(not the --checkpoint of a split run)"
        ),
    )
    bound_rounds: int = attrs.field(
        default=150,
        metadata=doc(
            "fence finder: rounds of the relaxed upper bound (bound.py), at most, each way: plain rounds before the "
            "search (a third of the time at most; their prices let the search skip what cannot help), tallied ones "
            "after it, for each split of the types (a finer one at the limit); each stops early at its limit (no "
            "prices do better); the search gets the time left; 0: no bound, and a search without prices"
        ),
    )
    symmetry_breaking: bool = attrs.field(
        default=True,
        metadata=doc("fix one asymmetric piece's orientation and pin the fence to the top and left edges"),
    )

    def __attrs_post_init__(self) -> None:
        """A board given here is checked when the plan is made, before anything is built."""
        if self.bound_rounds < 0:
            raise InputError(f"expected 0 or more, got {self.bound_rounds}", path="bound_rounds")
        if self.finder_checkpoint is not None and not self.finder_checkpoint.strip():
            raise InputError("expected a file name, got an empty string", path="finder_checkpoint")
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
