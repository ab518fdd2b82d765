"""polytile decomposer: tile one block, repeat it.

Cut the region into k congruent rectangular blocks and give each block a k-th of the
pieces: a tiling of one block, laid down in every block, tiles the region.  The block
problem is tiny next to the whole (the 30×40 rectangle with 20 of each pentomino is
twenty 6×10 blocks with one of each), so a tiling is found in moments when one exists.

Not every tiling is made of blocks, so the parts are: each way of cutting the region
into blocks, smallest blocks first, and last the whole problem, which still decides
when no block has a tiling.  The parts overlap (the whole problem contains them all),
so this split serves mode ``one`` only.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator

import attrs

from polytile_core.plugin import (
    BuildModel,
    Cell,
    Decomposer,
    DecomposerCapabilities,
    InputError,
    Model,
    Part,
    PieceType,
    Region,
    Register,
    Split,
    TilingProblem,
    hookimpl,
)


@attrs.frozen
class Cut:
    """The region cut into ``len(origins)`` blocks of ``width`` × ``height`` cells."""

    width: int
    height: int
    origins: tuple[Cell, ...]

    @property
    def key(self) -> str:
        return f"{len(self.origins)} blocks {self.width}x{self.height}"


def cuts(region: Region, allowed: Callable[[int], bool] = lambda blocks: True) -> list[Cut]:
    """Every way to cut the region into two or more congruent rectangles on one grid,
    into a number of blocks ``allowed`` accepts; smallest blocks first (squarer first
    among equals).

    The block holding the leftmost column starts at that column, and likewise for the
    top row, so each block size has one grid to check."""
    left = min(x for x, _ in region.cells)
    top = min(y for _, y in region.cells)
    area, region_width, region_height = region.area, region.width, region.height
    full = area == region_width * region_height
    found = []
    for width in range(1, region_width + 1):
        for height in range(1, region_height + 1):
            size = width * height
            if size == area or area % size or not allowed(area // size):
                continue
            if full:
                if region_width % width or region_height % height:
                    continue  # a rectangle is cut only by blocks that divide its sides
                origins = {
                    (x, y)
                    for x in range(left, left + region_width, width)
                    for y in range(top, top + region_height, height)
                }
            else:
                origins = {
                    (left + (x - left) // width * width, top + (y - top) // height * height) for x, y in region.cells
                }
                if len(origins) * size != area:
                    continue  # some block is only partly in the region
            found.append(Cut(width, height, tuple(sorted(origins, key=lambda cell: (cell[1], cell[0])))))
    return sorted(
        found, key=lambda cut: (cut.width * cut.height, max(cut.width, cut.height) / min(cut.width, cut.height))
    )


def share(piece: PieceType, blocks: int) -> PieceType | None:
    """The copies of ``piece`` one block gets, so that ``blocks`` blocks use an allowed
    number in all; ``None`` when no such number exists."""
    least = math.ceil(piece.minimum / blocks)
    most = None if piece.maximum is None else piece.maximum // blocks
    if most is not None and least > most:
        return None
    return attrs.evolve(piece, minimum=least, maximum=most)


def block_problem(problem: TilingProblem, cut: Cut) -> tuple[TilingProblem | None, str]:
    """The problem of one block at the origin, or ``None`` and why it has no tiling."""
    shares = [share(piece, len(cut.origins)) for piece in problem.pieces]
    pieces = tuple(shared for shared in shares if shared is not None)
    if len(pieces) < len(shares):
        unshared = next(piece for piece, shared in zip(problem.pieces, shares, strict=True) if shared is None)
        return None, f"the copies of {unshared.name} do not share among {len(cut.origins)} blocks"
    block = TilingProblem(Region.rectangle(cut.width, cut.height), pieces)
    reason = block.area_problem()
    if reason is None:
        unplaceable = [piece.name for piece in pieces if piece.minimum and not _fits(piece, cut)]
        if unplaceable:
            reason = f"{', '.join(unplaceable)} does not fit in a {cut.width}x{cut.height} block"
    return (None, reason) if reason else (block, "")


def _fits(piece: PieceType, cut: Cut) -> bool:
    return any(
        max(x for x, _ in shape) < cut.width and max(y for _, y in shape) < cut.height for shape in piece.orientations()
    )


def _copies(piece: PieceType) -> int | str:
    if piece.exact:
        return piece.minimum
    return f"{piece.minimum}..{'any' if piece.maximum is None else piece.maximum}"


def usable_cuts(problem: TilingProblem) -> list[Cut]:
    """The cuts whose blocks can share the pieces evenly; without the ``h × w`` cut when
    the ``w × h`` one is there and every piece may turn (the same block problem, turned)."""
    all_free = all(piece.kind == "free" for piece in problem.pieces)
    seen: set[tuple[int, int]] = set()
    kept = []

    def shared(blocks: int) -> bool:
        return all(share(piece, blocks) is not None for piece in problem.pieces)

    for cut in cuts(problem.region, shared):
        if all_free and (cut.height, cut.width) in seen:
            continue
        seen.add((cut.width, cut.height))
        kept.append(cut)
    return kept


class BlocksSplit:
    """The decomposer registered as ``blocks``."""

    def split(
        self,
        problem: TilingProblem,
        model: Model,
        build: BuildModel,
        options: None = None,
        *,
        jobs: int = 1,  # its parts are the region's cuts, however many jobs
    ) -> Split:
        if problem.region is None:
            raise InputError("the blocks split needs a region to tile", path="split.method")
        found = usable_cuts(problem)

        def parts() -> Iterator[Part]:
            for cut in found:
                block, reason = block_problem(problem, cut)
                details = {"blocks": len(cut.origins), "block": f"{cut.width}x{cut.height}"}
                if block is None:
                    yield Part(cut.key, Model(name="empty"), details, empty=reason)
                else:
                    details["copies per block"] = {piece.name: _copies(piece) for piece in block.pieces}
                    yield Part(cut.key, build(block), details, cut.origins)
            yield Part("whole", model, {"blocks": 1})

        summary = {
            "cuts": ", ".join(cut.key for cut in found) or "none (no cut shares the pieces evenly)",
            "parts": "overlap: each cut's one-block problem, then the whole problem (for finding one tiling)",
        }
        return Split(parts(), len(found) + 1, None, summary)


@hookimpl
def polytile_register_decomposers(register: Register[Decomposer]) -> None:
    register(
        "blocks",
        BlocksSplit(),
        help="find one tiling fast: tile one of several congruent blocks and repeat it, then try the whole (mode one)",
        # The parts overlap, so mode one only; raced by auto as the equal of the whole problem.
        capabilities=DecomposerCapabilities(modes={"one"}, rank={"one": 0}),
    )
