"""The boundary search: the largest pocket a set of pieces can fence in, proved.

Our own implementation of the method of "Optimal Polyomino Fences" (Brömme,
Langlois-Rémillard, Rote, Roldán et al., 2026).  Walk around a pocket P with P on the
left: the curve runs along cell edges whose right-hand cell is a fence cell.  Cut it
where the right-hand piece changes: each stretch is one arc of one piece's clockwise
boundary, and consecutive pieces meet at a *junction*.

- Classic rule (8 neighbours): consecutive pieces share a unit edge at the junction
  vertex; the junction state is (vertex, direction of that shared edge).  Where the curve
  turns round a corner cell of a third piece, that piece joins with an empty arc.
- 4-neighbour rule: consecutive pieces only touch at the junction vertex; the state is
  (vertex, heading of the curve).

The shoelace formula adds the area along the way: an arc from v to v + dv gains
``a + cross(v, dv) / 2`` where ``a`` depends on the arc alone.  A dynamic program over
(state, set of pieces used) that ignores overlaps (``_fence.c``) gives the best closed
value, an upper bound on every pocket (each piece is used at most once: a piece met
twice on the curve can be cut out of one of the two loops it closes, which keeps the
pocket and only adds area).  The bound counts P and anything P surrounds, so it is a
bound on the *largest pocket* (score "region").  A backward walk through the table lists
the cycles of exactly the bound whose pieces do not overlap, each with its largest pocket
measured by a flood fill in C (the run re-checks what it returns with ``check.py``).  If none does, the bound drops by
one and the walk repeats: the first level with a real fence is the optimum.
"""

from __future__ import annotations

import array
import threading
import time
from collections.abc import Callable, Iterable, Sequence

import attrs

from polytile_core.plugin import (
    SQUARE_SYMMETRIES,
    Cell,
    InputError,
    PieceType,
    relay_stop,
    report_progress,
    usable_memory,
)
from polytile_enclosure._fence import Fence

# The pieces of a fence: each piece's name and the cells it covers.
Placements = tuple[tuple[str, tuple[Cell, ...]], ...]

# Headings E, N, W, S; left(h) = h + 1, right(h) = h + 3, reverse = h + 2 (mod 4).
HEADINGS = ((1, 0), (0, 1), (-1, 0), (0, -1))
RIGHT, STRAIGHT, LEFT = 3, 0, 1


class TooManyPieces(InputError):
    """The set is too large for the boundary search's tables (the fence finder takes it)."""


VALUE_LIMIT = 32000  # the table holds doubled areas as 16-bit integers


def table_limit() -> float:
    """Bytes of tables the dynamic program may fill: three fifths of the usable memory
    (the machine's, or its container's limit; 4 GB where that is unknown).  The 12
    pentominoes need 0.07 GB, the 18 one-sided pentominoes 10.7 GB."""
    memory = usable_memory()
    return 4e9 if memory is None else 0.6 * memory


def clockwise_walk(shape: Sequence[Cell]) -> list[tuple[Cell, int]]:
    """The piece's boundary walked with the piece on the right: (start vertex, heading) per edge."""
    cells = set(shape)
    edges: dict[Cell, list[tuple[Cell, int]]] = {}
    for x, y in cells:
        sides = (
            ((x, y - 1), (x + 1, y), 2),  # bottom: heading W
            ((x, y + 1), (x, y + 1), 0),  # top: heading E
            ((x - 1, y), (x, y), 1),  # left: heading N
            ((x + 1, y), (x + 1, y + 1), 3),  # right: heading S
        )
        for neighbour, start, heading in sides:
            if neighbour not in cells:
                edges.setdefault(start, []).append((start, heading))
    if any(len(out) > 1 for out in edges.values()):
        raise ValueError("the piece touches itself at a corner")
    start = min(edges)
    walk, vertex = [], start
    while True:
        edge = edges[vertex][0]
        walk.append(edge)
        dx, dy = HEADINGS[edge[1]]
        vertex = (vertex[0] + dx, vertex[1] + dy)
        if vertex == start:
            break
    if len(walk) != sum(len(out) for out in edges.values()):
        raise ValueError("the piece has a hole")
    return walk


def turn(before: int, after: int) -> int:
    return (after - before) % 4


@attrs.frozen
class Visit:
    """One piece's arc on the curve: from state (0, d_in) to (dv, d_out), gaining area2 / 2
    at the origin; the piece's cells are ``shape`` moved by (ox, oy) from the entry vertex."""

    d_in: int
    d_out: int
    dx: int
    dy: int
    area2: int
    shape: int
    ox: int
    oy: int


def visits(shape: Sequence[Cell], shape_index: int, neighbours: int) -> list[Visit]:
    """Every arc of one oriented piece that the curve around a pocket can follow."""
    walk = clockwise_walk(shape)
    length = len(walk)
    vertex = [start for start, _ in walk]
    heading = [h for _, h in walk]
    found = []

    def arc_area2(first: int, count: int, origin: Cell) -> int:
        total = 0
        for k in range(first, first + count):
            (ax, ay), (bx, by) = vertex[k % length], vertex[(k + 1) % length]
            total += (ax - origin[0]) * (by - origin[1]) - (bx - origin[0]) * (ay - origin[1])
        return total

    def add(d_in: int, d_out: int, entry: Cell, leave: Cell, area2: int) -> None:
        found.append(
            Visit(d_in, d_out, leave[0] - entry[0], leave[1] - entry[1], area2, shape_index, -entry[0], -entry[1])
        )

    if neighbours == 8:
        # e_in = edge a (shared with the previous piece), arc = edges a+1 .. b-1, e_out = edge b.
        for a in range(length):
            for k in range(1, length):
                b = (a + k) % length
                arc = k - 1
                if arc == 0:
                    if turn(heading[a], heading[b]) != RIGHT:
                        continue
                else:
                    if turn(heading[a], heading[(a + 1) % length]) not in (RIGHT, STRAIGHT):
                        continue
                    if turn(heading[(b - 1) % length], heading[b]) not in (RIGHT, STRAIGHT):
                        continue
                entry = vertex[(a + 1) % length]
                add((heading[a] + 2) % 4, heading[b], entry, vertex[b], arc_area2(a + 1, arc, entry))
    else:
        # arc = edges s .. t-1 (at least one); the curve arrives at vertex s heading h.
        for s in range(length):
            entering = turn(heading[s - 1], heading[s])
            if entering not in (RIGHT, STRAIGHT):
                continue
            states = [(heading[s] + 3) % 4] + ([heading[s]] if entering == RIGHT else [])
            for arc in range(1, length):
                t = (s + arc) % length
                if turn(heading[(t - 1) % length], heading[t]) not in (RIGHT, STRAIGHT):
                    continue
                entry = vertex[s]
                area2 = arc_area2(s, arc, entry)
                for state in states:
                    add(state, heading[(t - 1) % length], entry, vertex[t], area2)
    return found


Shapes = list[tuple[int, tuple[Cell, ...]]]  # each oriented shape: its piece type and cells


def piece_visits(pieces: Sequence[PieceType], neighbours: int) -> tuple[Shapes, list[list[Visit]]]:
    """Every oriented shape, and per piece type every visit of its shapes; refuses
    (``InputError``) a piece with a hole or touching itself at a corner."""
    shapes: Shapes = []
    by_type: list[list[Visit]] = []
    for number, piece in enumerate(pieces):
        found = []
        for shape in piece.orientations():
            try:
                found += visits(shape, len(shapes), neighbours)
            except ValueError as exc:
                raise InputError(f'piece {piece.name!r}: {exc}; use backend = "cpsat"', path="pieces") from None
            shapes.append((number, tuple(shape)))
        by_type.append(found)
    return shapes, by_type


def ints(values: Iterable[int]) -> bytes:
    return array.array("i", values).tobytes()


class MoveTables:
    """The C searches' view of the visits: the distinct moves per (type, entry direction)
    with their best doubled area (for filling tables), every visit per (type, exit
    direction) (for walking back), and each shape's cells."""

    def __init__(self, by_type: Sequence[Sequence[Visit]], shapes: Shapes):
        self.moves: list[int] = []
        self.move_start = [0]
        for found in by_type:
            for d in range(4):
                best: dict[tuple, int] = {}
                for v in found:
                    if v.d_in == d:
                        key = (v.d_out, v.dx, v.dy)
                        best[key] = max(best.get(key, v.area2), v.area2)
                for (d_out, dx, dy), area2 in sorted(best.items()):
                    self.moves += [d, d_out, dx, dy, area2]
                self.move_start.append(len(self.moves) // 5)
        self.visit_rows: list[Visit] = []
        self.visit_start = [0]
        for found in by_type:
            for d in range(4):
                self.visit_rows += [v for v in found if v.d_out == d]
                self.visit_start.append(len(self.visit_rows))
        self.cell_start = [0]
        self.cells: list[int] = []
        for _, shape in shapes:
            self.cells += [c for cell in shape for c in cell]
            self.cell_start.append(len(self.cells) // 2)

    def packed(self) -> list[bytes]:
        """moves, move_start, visits, visit_start, cell_start, cells as int32 bytes."""
        rows = [value for v in self.visit_rows for value in attrs.astuple(v)]
        tables = (self.moves, self.move_start, rows, self.visit_start, self.cell_start, self.cells)
        return [ints(values) for values in tables]


def pocket_cells(packed: bytes) -> frozenset[Cell]:
    """The pocket the C walk measured, from its packed int32 (x, y) pairs."""
    values = array.array("i", packed)
    return frozenset(zip(values[0::2], values[1::2], strict=True))


def canonical(placements: Sequence[tuple[str, Sequence[Cell]]], symmetries: Sequence[int]) -> Placements:
    """The same key for a fence and its images under ``symmetries`` (moved to the origin)."""
    images = []
    for symmetry in symmetries:
        moved = [(name, [SQUARE_SYMMETRIES[symmetry](x, y) for x, y in cells]) for name, cells in placements]
        low_x = min(x for _, cells in moved for x, _ in cells)
        low_y = min(y for _, cells in moved for _, y in cells)
        images.append(
            tuple(sorted((name, tuple(sorted((x - low_x, y - low_y) for x, y in cells))) for name, cells in moved))
        )
    return min(images)


@attrs.frozen
class Fenced:
    """A fence the search accepted: the pieces placed and the pocket they enclose."""

    placements: Placements
    pocket: frozenset[Cell]


@attrs.frozen
class Outcome:
    """The fences of the best pocket found, the bound (proved, or the level the walk had
    reached), and how much work it took."""

    fences: tuple[Fenced, ...]
    bound: int | None
    proved: bool
    levels: int
    cycles_checked: int
    seconds_dp: float
    listed: int = 0  # with ``every``: the fences passed to it


class BoundarySearch:
    """Prepare the moves of every piece and run the dynamic program and the backward walk."""

    def __init__(self, pieces: Sequence[PieceType], neighbours: int):
        """Refuses (``InputError``) pieces with holes and sets whose tables would not fit in memory."""
        self.neighbours = neighbours
        self.items: list[int] = []
        self.pieces = list(pieces)
        for number, piece in enumerate(self.pieces):
            self.items += [number] * (piece.maximum or 0)  # the builder refuses unlimited pieces
        self.shapes, self.by_type = piece_visits(self.pieces, neighbours)
        self.reach = [max(abs(v.dx) + abs(v.dy) for v in found) for found in self.by_type]
        total = sum(self.reach[t] for t in self.items)
        self.radius = total // 2 + 1
        extent = max(max(max(abs(x), abs(y)) for x, y in cells) for _, cells in self.shapes)
        self.cell_radius = self.radius + 2 * extent + 2
        worst = sum(
            max(abs(v.area2) + 2 * self.radius * (abs(v.dx) + abs(v.dy)) for v in self.by_type[t]) for t in self.items
        )
        if worst > VALUE_LIMIT:
            raise TooManyPieces(
                f"too many or too large pieces for the fence backend (its 16-bit tables would need areas up to "
                f'{worst // 2}); use backend = "cpsat"',
                path="pieces",
            )
        rotations_closed = all(piece.kind in ("free", "one-sided") for piece in self.pieces)
        self.starts = [0] if rotations_closed else [0, 1, 2, 3]
        diamond = 2 * self.radius * (self.radius + 1) + 1  # positions with |x| + |y| <= radius
        self.table_bytes = sum(
            2 ** (len(self.items) - 1 - i) * 4 * diamond * 2
            for i, kind in enumerate(self.items)
            if i == 0 or self.items[i - 1] != kind
        ) * len(self.starts)
        limit = table_limit()
        if self.table_bytes > limit:
            raise TooManyPieces(
                f"the fence backend would need {self.table_bytes / 1e9:.1f} GB of tables for {len(self.items)} pieces "
                f'(at most {limit / 1e9:.1f} GB, three fifths of the usable memory); use backend = "cpsat"',
                path="pieces",
            )
        self.closings: list[tuple[int, int, int, int]] | None = None
        self.fence = Fence(
            len(self.items), len(self.pieces), self.radius, self.cell_radius, neighbours, *self._tables()
        )

    def _tables(self) -> list[bytes]:
        prev, following = [], []
        for k, kind in enumerate(self.items):
            prev.append(k - 1 if k > 0 and self.items[k - 1] == kind else -1)
            following.append(k + 1 if k + 1 < len(self.items) and self.items[k + 1] == kind else -1)
        tables = MoveTables(self.by_type, self.shapes)
        self.visit_rows = tables.visit_rows
        return [ints(self.items), ints(prev), ints(following), ints(self.reach), *tables.packed()]

    def placements_of(self, cycle: Iterable[tuple[int, int, int, int]]) -> Placements:
        placed = []
        for _item, row, x, y in cycle:
            visit = self.visit_rows[row]
            kind, shape = self.shapes[visit.shape]
            cells = tuple(sorted((cx + x + visit.ox, cy + y + visit.oy) for cx, cy in shape))
            placed.append((self.pieces[kind].name, cells))
        return tuple(placed)

    def solve(
        self,
        *,
        accept: Callable[[Fenced], Fenced | None] = lambda fenced: fenced,
        every: Callable[[Fenced], None] | None = None,
        most_pieces: int | None = None,
        time_limit: float | None = None,
        workers: int = 1,
        stop: threading.Event | None = None,
    ) -> Outcome:
        """Walk the levels down from the dynamic program's bound until a fence that
        ``accept`` takes (it may move it, e.g. onto a board) encloses the level; with
        ``every``, list every such fence at that level instead, each passed to ``every``
        as soon as it is proved optimal (its pocket is the level walked).  With
        ``most_pieces``, only fences of at most that many pieces count.  The dynamic
        program runs once per search: a second ``solve`` walks the same tables."""
        stop = stop or threading.Event()
        started = time.perf_counter()
        deadline = None if time_limit is None else started + time_limit
        with relay_stop(stop, self.fence.cancel):
            if self.closings is None:
                self.closings = self._tables_filled(deadline, workers)
            seconds_dp = time.perf_counter() - started
            if self.closings is None:
                return Outcome((), None, False, 0, 0, seconds_dp)
            candidates = [c for c in self.closings if most_pieces is None or 1 + c[3].bit_count() <= most_pieces]
            return self._levels(candidates, accept, every, deadline, stop, seconds_dp)

    def _tables_filled(self, deadline: float | None, workers: int) -> list[tuple[int, int, int, int]] | None:
        """Run the dynamic program: every closed cycle's (doubled value, first item, start
        direction, set of the other items), best first; None if it ran out of time.  The
        tables are filled one after the other, each by ``workers`` threads (the first
        table is as large as all the others together: each item halves the next one)."""
        firsts = [
            (i, s) for i, kind in enumerate(self.items) if i == 0 or self.items[i - 1] != kind for s in self.starts
        ]
        candidates: list[tuple[int, int, int, int]] = []
        report_progress(stage="computing the bound (boundary tables)")
        for first, start in firsts:
            left = 0.0 if deadline is None else max(deadline - time.perf_counter(), 1e-3)
            closing = self.fence.dp(first, start, left, max(1, workers))
            if closing is None:
                return None
            candidates += [(value, first, start, t) for t, value in enumerate(closing) if value > 0]
        return sorted(candidates, reverse=True)

    def _levels(
        self,
        candidates: list[tuple[int, int, int, int]],
        accept: Callable[[Fenced], Fenced | None],
        every: Callable[[Fenced], None] | None,
        deadline: float | None,
        stop: threading.Event,
        seconds_dp: float,
    ) -> Outcome:
        # Every non-overlapping cycle of value >= level has been looked at, so the optimum is
        # at most max(size, level - 1); and a fence with pocket p has a cycle of value >= p.
        best: list[Fenced] = []  # the largest fences found, until they are listed
        size = checked = levels = listed = 0
        level = candidates[0][0] // 2 if candidates else 0

        def stopped() -> Outcome:
            return Outcome(tuple(best), max(size, level), False, levels, checked, seconds_dp, listed)

        while level > 0 and (size < level or (every is not None and size == level)):
            report_progress(best=size, bound=level)
            levels += 1
            for value, first, start, t in candidates:
                if value < 2 * level:
                    break
                left = 0.0 if deadline is None else deadline - time.perf_counter()
                if stop.is_set() or (deadline is not None and left <= 0):
                    return stopped()
                cycles, status = self.fence.trace(first, start, t, 2 * level, 0, left)
                for cycle, cells in cycles:
                    checked += 1
                    pocket = pocket_cells(cells)
                    if not pocket or len(pocket) < size or (len(pocket) == size and every is None):
                        continue
                    fenced = accept(Fenced(self.placements_of(cycle), pocket))
                    if fenced is None:
                        continue
                    if len(fenced.pocket) > size:
                        size, best = len(fenced.pocket), []
                        report_progress(best=size, bound=level)
                    best.append(fenced)
                    if size >= level and every is None:
                        return Outcome(tuple(best), size, True, levels, checked, seconds_dp)
                    if size == level and every is not None:  # proved optimal: no level above has a fence
                        for optimal in best:
                            every(optimal)
                        listed += len(best)
                        best = []
                if status == 0:
                    return stopped()
            level -= 1
        return Outcome(tuple(best), size, True, levels, checked, seconds_dp, listed)
