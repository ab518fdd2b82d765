"""Tile a large region window by window, never building the whole model.

The region's bounding box is cut into bands of rows, each band into windows of columns,
visited band by band, left to right.  Each window is done one of two ways:

- **Filled**: a window whose cells are all in the region and all still free is filled
  with copies of a small rectangle the unlimited pieces tile (the *block*, found once),
  leaving a straight edge behind.
- **Searched**: an exact cover (dancing links, ``polytile_exactcover``) of the window's
  free cells *and a lookahead* of a few more columns to its right, where cells one
  piece's ``reach`` further right are *secondary* (a piece may stick out onto them, but
  need not cover them).  Only the pieces that touch the window are kept; the lookahead's own pieces
  are dropped, having shown that what is left next to the window can still be covered.
  First the pieces must stay inside the band's rows (its lower edge stays straight, so
  the band below can be filled); if that fails, the lookahead takes in rows below too.

So every window is covered exactly once when the sweep passes it, and the frontier of
half-covered cells it leaves is carried to the next window.  When a window cannot be
covered, the sweep goes back: it undoes the windows before it, one more each time,
and searches them again in a shuffled order.  The model of a window holds a few
hundred cells, so memory and time per window do not depend on the region's size;
what grows with the region is a grid of owners (4 bytes a cell) and the answer.

A search never proves there is no tiling (the sweep may have taken a wrong turn long
before); the only proofs given are counting ones (``impossibility``).
"""

from __future__ import annotations

import itertools
import math
import threading
import time
from collections.abc import Collection, Iterator, Sequence

import attrs
import numpy as np
from polytile_exactcover._dlx import Search

from polytile_core.plugin import Cell, LargeTiling, PieceType

# Nodes one window's search may take before the sweep counts it as failed: a window that
# thrashes is better searched again in another order, or with the window before it.
# Measured on 100x100 minus 5 random cells: a window that has a cover finds it in a few
# thousand nodes; 200,000 took 0.2 s a window for nothing, 20,000 halved the sweep.
WINDOW_NODES = 20_000
# Columns (and rows) past a window that its search covers too, at least.
LOOKAHEAD = 4
# Failed windows after which a sweep with no deadline gives up (it would go back and
# forth for ever on a region it cannot tile).
MAX_FAILURES = 20_000
# The largest block (cells) tried when looking for a rectangle the unlimited pieces tile.
BLOCK_MAX_CELLS = 64
# Sides of a window, at least: several pieces across, so that a window's search has room.
WINDOW_MIN_HEIGHT = 8
WINDOW_MIN_WIDTH = 12


@attrs.frozen
class Shape:
    """One orientation of one piece: cell offsets ``dx``, ``dy`` (smallest 0)."""

    piece: int
    dx: np.ndarray
    dy: np.ndarray

    @property
    def width(self) -> int:
        return int(self.dx.max()) + 1

    @property
    def height(self) -> int:
        return int(self.dy.max()) + 1


def shapes_of(pieces: Sequence[PieceType]) -> list[Shape]:
    found = []
    for index, piece in enumerate(pieces):
        for orientation in piece.orientations():
            cells = np.array(orientation, dtype=np.int64)
            found.append(Shape(index, cells[:, 0], cells[:, 1]))
    return found


@attrs.frozen
class Grid:
    """The region as a boolean grid of its bounding box, whose corner is (left, top)."""

    inside: np.ndarray
    left: int
    top: int

    @classmethod
    def of(cls, cells: Collection[Cell]) -> Grid:
        flat = np.fromiter(itertools.chain.from_iterable(cells), dtype=np.int64, count=2 * len(cells))
        xs, ys = flat[0::2], flat[1::2]
        left, top = int(xs.min()), int(ys.min())
        inside = np.zeros((int(ys.max()) - top + 1, int(xs.max()) - left + 1), dtype=bool)
        inside[ys - top, xs - left] = True
        return cls(inside, left, top)


class Stopped(Exception):
    """The deadline passed or the stop event was set."""


class Sweep:
    """One sweep over one region; ``run()`` gives a ``LargeTiling``."""

    def __init__(
        self,
        grid: Grid,
        pieces: Sequence[PieceType],
        *,
        seed: int = 0,
        stop: threading.Event | None = None,
        deadline: float | None = None,
    ):
        self.inside, self.left, self.top = grid.inside, grid.left, grid.top
        self.height, self.width = self.inside.shape
        # owner[y, x]: the index of the placement covering the cell, -1 while free.
        self.owner = np.full((self.height, self.width), -1, dtype=np.int32)
        self.pieces = tuple(pieces)
        self.shapes = shapes_of(self.pieces)
        # How far a piece touching a window can stick out of it, and how far past the
        # window a search looks (at least LOOKAHEAD: a tromino sticks out one cell, but one
        # column is too little to show that the cells it leaves can still be covered).
        self.reach = max(max(shape.width, shape.height) for shape in self.shapes) - 1
        self.lookahead = max(self.reach, LOOKAHEAD)
        # Every number of cells the pieces cover is a multiple of this.
        self.step = math.gcd(*(piece.area for piece in self.pieces))
        self.used = [0] * len(self.pieces)
        # The placements so far, a stack: shape index and top-left corner.
        self.placed_shape: list[int] = []
        self.placed_x: list[int] = []
        self.placed_y: list[int] = []
        self.rng = np.random.default_rng(seed)
        self.stop = stop or threading.Event()
        self.deadline = deadline
        self.block = find_block(self.pieces, self.shapes)
        block_width, block_height = (self.block[0], self.block[1]) if self.block else (1, 1)
        self.band = _multiple_at_least(block_height, max(WINDOW_MIN_HEIGHT, 2 * self.lookahead))
        self.window = _multiple_at_least(block_width, max(WINDOW_MIN_WIDTH, 3 * self.lookahead))
        self.counters = {"filled": 0, "searched": 0, "searched_deeper": 0, "failed": 0, "backtracks": 0}

    # --- the placements stack -------------------------------------------------

    def _place(self, shape_index: int, x: int, y: int) -> None:
        shape = self.shapes[shape_index]
        self.owner[y + shape.dy, x + shape.dx] = len(self.placed_shape)
        self.placed_shape.append(shape_index)
        self.placed_x.append(x)
        self.placed_y.append(y)
        self.used[shape.piece] += 1

    def _undo_to(self, size: int) -> None:
        while len(self.placed_shape) > size:
            shape = self.shapes[self.placed_shape.pop()]
            x, y = self.placed_x.pop(), self.placed_y.pop()
            self.owner[y + shape.dy, x + shape.dx] = -1
            self.used[shape.piece] -= 1

    # --- one window -----------------------------------------------------------

    def _check_time(self) -> None:
        if self.stop.is_set() or (self.deadline is not None and time.monotonic() > self.deadline):
            raise Stopped

    def _fill(self, r0: int, r1: int, c0: int, c1: int) -> bool:
        """Fill the window with the block when it is whole, free and a multiple of the block."""
        if self.block is None or any(used < piece.minimum for piece, used in zip(self.pieces, self.used, strict=True)):
            return False  # the block has no copy of a piece still short of its minimum
        block_width, block_height, pattern = self.block
        if (r1 - r0) % block_height or (c1 - c0) % block_width:
            return False
        if not self.inside[r0:r1, c0:c1].all() or (self.owner[r0:r1, c0:c1] >= 0).any():
            return False
        rows, columns = np.meshgrid(np.arange(r0, r1, block_height), np.arange(c0, c1, block_width), indexing="ij")
        origin_y, origin_x = rows.ravel(), columns.ravel()
        base, copies = len(self.placed_shape), len(pattern)
        for k, (shape_index, dx, dy) in enumerate(pattern):
            shape = self.shapes[shape_index]
            number = base + k + copies * np.arange(len(origin_y))
            for cell_x, cell_y in zip(shape.dx, shape.dy, strict=True):
                self.owner[origin_y + dy + cell_y, origin_x + dx + cell_x] = number
            self.used[shape.piece] += len(origin_y)
        self.placed_shape.extend([shape_index for _ in origin_y for shape_index, _, _ in pattern])
        self.placed_x.extend([int(x) + dx for x in origin_x for _, dx, _ in pattern])
        self.placed_y.extend([int(y) + dy for y in origin_y for _, _, dy in pattern])
        self.counters["filled"] += 1
        return True

    def _search(self, r0: int, r1: int, c0: int, c1: int, deeper: bool, shuffle: bool) -> bool:
        """Cover the window's free cells (and the lookahead's) by an exact cover; keep the
        pieces that touch the window.  ``deeper``: pieces may reach below the band."""
        reach, ahead = self.reach, self.lookahead
        below = ahead if deeper else 0
        # Primary: the window, the lookahead to its right, and (deeper) below both.
        pr1 = min(self.height, r1 + below)
        pc0, pc1 = max(0, c0 - below), min(self.width, c1 + ahead)
        # Secondary: one reach further right (and further down and left when deeper).
        er1 = min(self.height, pr1 + (reach if deeper else 0))
        ec0, ec1 = max(0, pc0 - (reach if deeper else 0)), min(self.width, pc1 + reach)
        free = self.inside[r0:er1, ec0:ec1] & (self.owner[r0:er1, ec0:ec1] < 0)
        primary = np.zeros_like(free)
        primary[: pr1 - r0, pc0 - ec0 : pc1 - ec0] = True
        primary &= free
        core = np.zeros_like(free)
        core[: r1 - r0, c0 - ec0 : c1 - ec0] = True
        core &= free
        if not core.any():
            return True
        n_primary = int(primary.sum())
        secondary = free & ~primary
        if not secondary.any() and n_primary % self.step:
            return False  # closed in, and the pieces' areas cannot add up to it
        # Items numbered column by column: of the cells with fewest options, dancing
        # links takes the first, so the cover grows from the left like the sweep.
        item = np.zeros(free.shape[::-1], dtype=np.int64)
        item[primary.T] = np.arange(1, n_primary + 1)
        n_items = n_primary + int(secondary.sum())
        item[secondary.T] = np.arange(n_primary + 1, n_items + 1)
        item = item.T

        options, placed, groups = self._options(item, n_primary, core, r0, ec0, shuffle)
        answer: list[list[int]] = []
        left = 0.0 if self.deadline is None else max(self.deadline - time.monotonic(), 1e-6)
        search = Search(n_items, options, groups, n_primary)
        status, _ = search.run(answer.append, 1, left, WINDOW_NODES)
        self.counters["searched_deeper" if deeper else "searched"] += 1
        if status in ("interrupted", "time_limit"):
            raise Stopped
        if not answer:
            return False
        for option in answer[0]:
            shape_index, x, y, touch = placed[option]
            if touch:
                self._place(shape_index, x, y)
        return True

    def _options(
        self, item: np.ndarray, n_primary: int, core: np.ndarray, top: int, left: int, shuffle: bool
    ) -> tuple[list, list[tuple[int, int, int, bool]], list[tuple[int, int]]]:
        """The window's exact cover: every placement on free cells (``item`` > 0) that
        covers a primary one, as (items, group memberships); where each one lies
        (shape, x, y, whether it touches the window ``core``); and the groups (copies
        still allowed of each piece with a maximum).  Pieces still short of their
        minimum come first; ``shuffle``: otherwise in random order."""
        groups: list[tuple[int, int]] = []
        group_of: dict[int, int] = {}
        for index, piece in enumerate(self.pieces):
            if piece.maximum is not None:
                group_of[index] = len(groups)
                groups.append((0, piece.maximum - self.used[index]))
        needed = [self.used[index] < piece.minimum for index, piece in enumerate(self.pieces)]

        options: list[tuple[tuple[int, ...], tuple[tuple[int, int], ...]]] = []
        placed: list[tuple[int, int, int, bool]] = []  # shape, x, y, touches the window
        preferred: list[int] = []
        rows, cols = item.shape
        for shape_index, shape in enumerate(self.shapes):
            if shape.piece in group_of and groups[group_of[shape.piece]][1] <= 0:
                continue
            h, w = shape.height, shape.width
            if h > rows or w > cols:
                continue
            stacked = np.stack(
                [
                    item[dy : dy + rows - h + 1, dx : dx + cols - w + 1]
                    for dx, dy in zip(shape.dx, shape.dy, strict=True)
                ]
            )
            fits = (stacked > 0).all(axis=0)
            fits &= (stacked <= n_primary).any(axis=0)
            ys, xs = np.nonzero(fits)
            if not len(ys):
                continue
            chosen = stacked[:, ys, xs].T
            at = [core[ys + dy, xs + dx] for dx, dy in zip(shape.dx, shape.dy, strict=True)]
            touching = np.any(np.stack(at), axis=0).astype(bool).tolist()
            membership = ((group_of[shape.piece], 1),) if shape.piece in group_of else ()
            for items, y, x, touch in zip(chosen.tolist(), ys.tolist(), xs.tolist(), touching, strict=True):
                if needed[shape.piece]:
                    preferred.append(len(options))
                options.append((tuple(items), membership))
                placed.append((shape_index, x + left, y + top, touch))
        order = list(range(len(options)))
        if shuffle:
            order = self.rng.permutation(len(options)).tolist()
        if preferred:  # pieces still short of their minimum are tried first
            wanted = set(preferred)
            order = [k for k in order if k in wanted] + [k for k in order if k not in wanted]
        return [options[k] for k in order], [placed[k] for k in order], groups

    def _window(self, r0: int, r1: int, c0: int, c1: int, retry: int) -> bool:
        """Cover one window: filled, else searched within its band, else deeper.  Searched
        again after a failure further on (``retry``), it is shuffled, and every other time
        searched deeper first: the frontier it leaves must change for the sweep to get on."""
        self._check_time()
        if retry == 0 and self._fill(r0, r1, c0, c1):
            return True
        ways = [False, True] if r1 < self.height else [False]
        if retry % 2:
            ways.reverse()
        return any(self._search(r0, r1, c0, c1, deeper=deeper, shuffle=retry > 0) for deeper in ways)

    # --- the sweep ------------------------------------------------------------

    def windows(self) -> list[tuple[int, int, int, int]]:
        """Bands of ``band`` rows, windows of ``window`` columns; a last band or window
        narrower than that joins the one before it (a sliver such as a 3 x 9 strip may
        have no cover where a wider strip has)."""
        return [
            (r0, r1, c0, c1) for r0, r1 in _spans(self.height, self.band) for c0, c1 in _spans(self.width, self.window)
        ]

    def run(self) -> LargeTiling:
        started = time.monotonic()
        windows = self.windows()
        marks = [0] * len(windows)  # placements before each window
        retries = [0] * len(windows)
        failures = [0] * len(windows)
        index = 0
        try:
            while index < len(windows):
                marks[index] = len(self.placed_shape)
                if self._window(*windows[index], retries[index]):
                    index += 1
                    continue
                self.counters["failed"] += 1
                failures[index] += 1
                back = min(index, failures[index])  # one window further back each time
                self._undo_to(marks[index - back])
                for undone in range(index - back, index + 1):
                    retries[undone] += 1
                index -= back
                self.counters["backtracks"] += back > 0
                if back == 0 and failures[0] > 20:
                    return self._tiling("gave_up", started, "the first window has no cover")
                if self.counters["failed"] > MAX_FAILURES:
                    return self._tiling("gave_up", started, f"{MAX_FAILURES} windows failed")
        except Stopped:
            status = "interrupted" if self.stop.is_set() else "time_limit"
            return self._tiling(status, started, "stopped before the sweep ended")
        short = [
            f"{piece.name} ({self.used[k]} of at least {piece.minimum})"
            for k, piece in enumerate(self.pieces)
            if self.used[k] < piece.minimum
        ]
        if short:
            return self._tiling("gave_up", started, f"the sweep placed too few copies of {', '.join(short)}")
        return self._tiling("found", started)

    def _tiling(self, status: str, started: float, message: str = "") -> LargeTiling:
        details = {
            "windows": f"{self.band} rows x {self.window} columns",
            "block": f"{self.block[0]}x{self.block[1]}" if self.block else "none",
            **self.counters,
            "sweep_seconds": round(time.monotonic() - started, 3),
        }
        if status != "found":
            return LargeTiling(status, (), message, details)  # type: ignore[arg-type]
        problem = self.recount()
        if problem:
            raise AssertionError(f"the sweep made a wrong tiling: {problem}")  # a bug, never an answer
        placements: list[tuple[str, tuple[Cell, ...]]] = []
        for shape_index, xs, ys in self._by_shape():
            shape, name = self.shapes[shape_index], self.pieces[self.shapes[shape_index].piece].name
            cell_xs = (xs[:, None] + shape.dx[None, :] + self.left).tolist()
            cell_ys = (ys[:, None] + shape.dy[None, :] + self.top).tolist()
            placements.extend(
                (name, tuple(zip(row_x, row_y, strict=True))) for row_x, row_y in zip(cell_xs, cell_ys, strict=True)
            )
        return LargeTiling("found", tuple(placements), message, details)

    def _by_shape(self) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
        """(shape index, x's, y's) of the placements, grouped by shape."""
        shapes = np.array(self.placed_shape, dtype=np.int64)
        xs, ys = np.array(self.placed_x, dtype=np.int64), np.array(self.placed_y, dtype=np.int64)
        for shape_index in np.unique(shapes).tolist():
            chosen = shapes == shape_index
            yield shape_index, xs[chosen], ys[chosen]

    def recount(self) -> str | None:
        """Check the placements cell by cell, from the list alone (not the owner grid the
        sweep kept): every cell of the region covered once, none outside, copies in bounds."""
        covered = np.zeros(self.inside.size, dtype=np.int64)
        copies = [0] * len(self.pieces)
        for shape_index, xs, ys in self._by_shape():
            shape = self.shapes[shape_index]
            cell_xs, cell_ys = xs[:, None] + shape.dx[None, :], ys[:, None] + shape.dy[None, :]
            if cell_xs.min() < 0 or cell_ys.min() < 0 or cell_xs.max() >= self.width or cell_ys.max() >= self.height:
                return "a piece outside the region's bounding box"
            covered += np.bincount((cell_ys * self.width + cell_xs).ravel(), minlength=self.inside.size)
            copies[shape.piece] += len(xs)
        inside = self.inside.ravel()
        if (covered[~inside] != 0).any():
            return "a piece covers a cell outside the region"
        if (covered[inside] != 1).any():
            return "a cell of the region is covered twice or not at all"
        for piece, used in zip(self.pieces, copies, strict=True):
            if used < piece.minimum or (piece.maximum is not None and used > piece.maximum):
                return f"{used} copies of {piece.name}"
        return None


def _spans(length: int, step: int) -> list[tuple[int, int]]:
    starts = list(range(0, length, step))
    if len(starts) > 1 and length - starts[-1] < step:
        starts.pop()
    return list(zip(starts, starts[1:] + [length], strict=True))


def _multiple_at_least(step: int, least: int) -> int:
    return step * math.ceil(least / step)


def find_block(pieces: Sequence[PieceType], shapes: Sequence[Shape]) -> tuple[int, int, list] | None:
    """(width, height, [(shape, dx, dy)]): the smallest rectangle (squarest first) the
    unlimited pieces tile, or None when none of at most ``BLOCK_MAX_CELLS`` cells is."""
    usable = [k for k, shape in enumerate(shapes) if pieces[shape.piece].maximum is None]
    if not usable:
        return None
    areas = {pieces[shapes[k].piece].area for k in usable}
    step = math.gcd(*areas)
    sizes = sorted(
        ((w, h) for w in range(1, BLOCK_MAX_CELLS + 1) for h in range(1, BLOCK_MAX_CELLS // w + 1)),
        key=lambda size: (size[0] * size[1], abs(size[0] - size[1])),
    )
    for w, h in sizes:
        if (w * h) % step:
            continue
        cell = {(x, y): k + 1 for k, (x, y) in enumerate((x, y) for y in range(h) for x in range(w))}
        options, placed = [], []
        for k in usable:
            shape = shapes[k]
            for y in range(h - shape.height + 1):
                for x in range(w - shape.width + 1):
                    options.append(
                        (tuple(cell[(x + dx, y + dy)] for dx, dy in zip(shape.dx, shape.dy, strict=True)), ())
                    )
                    placed.append((k, x, y))
        if not options:
            continue
        answer: list[list[int]] = []
        Search(w * h, options, []).run(answer.append, 1, 0.0, WINDOW_NODES)
        if answer:
            return w, h, [placed[option] for option in answer[0]]
    return None
