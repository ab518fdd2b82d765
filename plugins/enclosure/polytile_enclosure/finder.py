"""The fence finder: good fences of many pieces, found (not proved) by a local search
over the cyclic ORDER of the pieces around the pocket.

The boundary search (``fence.py``) proves optima with a table per set of pieces, which
stops at about 16 pieces.  Here the set is replaced by an order: for a given cyclic
order of the copies, a dynamic program with one layer per piece (``_order.c``) finds the
best cycle that visits the pieces in that order (each in any orientation and on any arc
of its boundary, or parked), and a walk back through the layers picks the best such cycle
whose pieces do not overlap, its largest pocket measured by a flood fill.  For the order
that cycle is exact but for overlaps.  Simulated annealing moves the order (swap two
copies, move one elsewhere, reverse a stretch), two orders evaluated at once on two
threads (the C code releases the GIL).  Everything it reports is a real fence; its size
is a lower bound, the relaxed bound (``bound.py``) the upper one.
"""

from __future__ import annotations

import array
import math
import random
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

import attrs

from polytile_core.plugin import Cell, PieceType, relay_stop
from polytile_enclosure._order import Orders
from polytile_enclosure.check import enclosed_pockets
from polytile_enclosure.fence import Fenced, MoveTables, piece_visits

NEAR = 4  # a local change of the order moves copies at most this many places
# The way back (``OrderSearch.aim``) keeps a double per state and number of pieces left:
# at most this many (256 MB), else the search prunes nothing (the 35 hexominoes need 2.7
# million; the 107 heptominoes about 90 million).
WAY_BACK_STATES = 32_000_000


@attrs.frozen
class FinderSettings:
    """How hard to look.  ``beam`` 0 keeps every state of a layer (exact for the order)."""

    beam: int = 0
    levels: int = 40  # levels walked down from an order's best cycle looking for one without overlaps
    nodes: int = 200_000  # nodes of that walk per order
    skip: bool = True  # a piece may be parked (left out of the cycle)
    # Simulated annealing's hottest (cells), cooled towards 0 over each cycle.  On the
    # hexominoes in 150 s under load: 1,579 at 0.5 and 1, 1,565 to 1,573 at 4, 1,564 at 10.
    temperature: float = 1.0
    cycle: int = 400  # orders evaluated per cycle of cooling
    threads: int = 2
    radius: int | None = None  # how far from the start a junction may lie (None: as far as the pieces reach)


@attrs.frozen
class Evaluation:
    """One order's answer: the best closing value of the dynamic program (an upper bound
    for this order, doubled), and the best fence without overlaps found, if any."""

    order: tuple[int, ...]
    value2: int
    fence: Fenced | None

    @property
    def pocket(self) -> int:
        return len(self.fence.pocket) if self.fence else 0


@attrs.frozen
class Finding:
    """The best fence the search found, the order that gave it, and the work done."""

    fence: Fenced | None
    order: tuple[int, ...]
    evaluations: int
    seconds: float
    seed: int


class OrderSearch:
    """The pieces' moves, prepared once; ``evaluate`` answers one order."""

    def __init__(self, pieces: Sequence[PieceType], neighbours: int, settings: FinderSettings | None = None):
        """Refuses (``InputError``) pieces with holes, as the boundary search does."""
        self.pieces = list(pieces)
        self.neighbours = neighbours
        self.settings = settings or FinderSettings()
        self.items = [kind for kind, piece in enumerate(self.pieces) for _ in range(piece.maximum or 0)]
        self.shapes, by_type = piece_visits(self.pieces, neighbours)
        reach = [max(abs(v.dx) + abs(v.dy) for v in found) for found in by_type]
        radius = sum(reach[kind] for kind in self.items) // 2 + 1
        if self.settings.radius is not None:
            radius = min(radius, self.settings.radius)
        farthest = sorted((reach[kind] for kind in self.items), reverse=True)
        # With k pieces left the curve is within the k farthest-reaching pieces' reach of its end.
        self.way_back_limits = [min(radius, sum(farthest[:k])) for k in range(len(self.items) + 1)]
        self.aimed = False
        self.most2 = math.inf  # once aimed, the most any order's value2 can be
        extent = max(max(max(abs(x), abs(y)) for x, y in cells) for _, cells in self.shapes)
        self.tables = MoveTables(by_type, self.shapes)
        moves, move_start, visits, visit_start, cell_start, cells = self.tables.packed()
        self.orders = Orders(
            neighbours,
            radius,
            radius + 2 * extent + 2,
            moves,
            move_start,
            visits,
            visit_start,
            array.array("i", reach).tobytes(),
            cell_start,
            cells,
        )
        rotations_closed = all(piece.kind in ("free", "one-sided") for piece in self.pieces)
        self.starts = [0] if rotations_closed else [0, 1, 2, 3]

    def aim(self, prices: Sequence[float]) -> bool:
        """Prices per piece type from the relaxed bound (``bound.py``) let each order's
        dynamic program drop the states from which no cycle can reach the value the
        annealing would still take (``evaluate``'s ``floor2``): for any prices, what the
        pieces left can add is at most the best curve back to the start by any such
        moves, each paying its type's price, plus the prices of those pieces (the way
        back, ``_order.c``).  Good prices make an order of the hexominoes 30 times
        faster; no answer the annealing uses changes.  False, with nothing set, if the
        table would hold more than ``WAY_BACK_STATES`` states.  The prices must be at
        least 0 (a piece may be parked: the pieces left pay back at most their prices)."""
        if min(prices, default=0.0) < 0:
            raise ValueError("the prices must be at least 0")
        states = sum(4 * (2 * limit * limit + 2 * limit + 1) for limit in self.way_back_limits)
        if states > WAY_BACK_STATES:
            return False
        best: dict[tuple[int, ...], float] = {}
        moves, move_start = self.tables.moves, self.tables.move_start
        for kind in range(len(self.pieces)):
            for row in range(move_start[4 * kind], move_start[4 * kind + 4]):
                d_in, d_out, dx, dy, area2 = moves[5 * row : 5 * row + 5]
                gain = area2 - 2 * prices[kind]
                if gain > best.get((d_in, d_out, dx, dy), -math.inf):
                    best[(d_in, d_out, dx, dy)] = gain
        keys = sorted(best)  # by d_in first
        starts = [sum(1 for key in keys if key[0] < d) for d in range(5)]
        most = self.orders.rest(
            array.array("i", [value for key in keys for value in key]).tobytes(),
            array.array("d", [best[key] for key in keys]).tobytes(),
            array.array("i", starts).tobytes(),
            array.array("i", self.way_back_limits).tobytes(),
            array.array("d", [2 * price for price in prices]).tobytes(),
            sum(1 << start for start in self.starts),
        )
        # No order's best cycle is worth more than this (doubled): the relaxed bound itself.
        self.most2 = most + sum(2 * prices[kind] for kind in self.items)
        self.aimed = True
        return True

    def cancel(self) -> None:
        """Stop the orders being evaluated (from any thread); later ones are not evaluated."""
        self.orders.cancel()

    def evaluate(self, order: Sequence[int], seconds: float = 0.0, floor2: float | None = None) -> Evaluation | None:
        """The best fence of one order of the copies (indices into ``items``); None if
        cancelled or out of time (``seconds``, 0 for none).  ``floor2``, once the search
        is aimed: states that cannot reach this doubled value are dropped, so an answer
        whose pocket P has 2P - 2 >= floor2 is the answer without it, and any other one
        has a pocket P with 2P - 2 < floor2, and a value2 no larger than without it (``floors2``)."""
        kinds = array.array("i", [self.items[item] for item in order]).tobytes()
        s = self.settings
        floor = (floor2,) if floor2 is not None and self.aimed else ()
        best: Evaluation | None = None
        for start in self.starts:
            answer = self.orders.best(kinds, start, int(s.skip), s.beam, s.levels, s.nodes, seconds, *floor)
            if answer is None:
                return None
            value2, pocket, cycle, _nodes, _level = answer
            fence = self._fenced(order, cycle) if pocket else None
            found = Evaluation(tuple(order), value2, fence)
            if best is None or (found.pocket, found.value2) > (best.pocket, best.value2):
                best = found
        return best

    def _fenced(self, order: Sequence[int], cycle: Sequence[tuple[int, int, int, int]]) -> Fenced:
        """The cycle's pieces at their cells, and the largest pocket by the flood fill of check.py."""
        placed = []
        for _position, row, x, y in cycle:
            visit = self.tables.visit_rows[row]
            kind, shape = self.shapes[visit.shape]
            cells = tuple(sorted((cx + x + visit.ox, cy + y + visit.oy) for cx, cy in shape))
            placed.append((self.pieces[kind].name, cells))
        fence = [cell for _, cells in placed for cell in cells]
        pockets = enclosed_pockets(fence, box_of(fence), self.neighbours)
        return Fenced(tuple(placed), pockets[0] if pockets else frozenset())


def box_of(cells: Sequence[Cell]) -> list[Cell]:
    """The cells of the fence's bounding box: the board on which its pockets are measured
    (everything off it is outside)."""
    xs, ys = [x for x, _ in cells], [y for _, y in cells]
    return [(x, y) for x in range(min(xs), max(xs) + 1) for y in range(min(ys), max(ys) + 1)]


def neighbour(order: list[int], rng: random.Random) -> list[int]:
    """A random nearby order: two copies swapped, one moved elsewhere, or a stretch
    reversed; half the time between places at most ``NEAR`` apart (a small change of the
    fence), otherwise anywhere."""
    n = len(order)
    changed = list(order)
    i = rng.randrange(n)
    j = (i + rng.randint(1, NEAR)) % n if rng.random() < 0.5 else rng.randrange(n)
    i, j = sorted((i, j))
    if i == j:
        j = (i + 1) % n
        i, j = sorted((i, j))
    kind = rng.randrange(3)
    if kind == 0:
        changed[i], changed[j] = changed[j], changed[i]
    elif kind == 1:
        changed.insert(j, changed.pop(i))
    else:
        changed[i : j + 1] = reversed(changed[i : j + 1])
    return changed


def anneal(
    search: OrderSearch,
    *,
    seed: int,
    time_limit: float,
    start: Sequence[int] | None = None,
    stop: threading.Event | None = None,
    on_better: Callable[[Finding], None] | None = None,
    evaluations: int | None = None,
) -> Finding:
    """Simulated annealing over orders for ``time_limit`` seconds (or ``evaluations``
    orders) from ``start`` (a random order if None); ``on_better`` hears of each better
    fence as it is found.

    The temperature falls with the number of orders evaluated, not with the clock, and
    rises again every ``cycle`` evaluations, from the best order: with the same seed and
    start the run looks at the same orders in the same sequence (the time limit only
    decides where it stops)."""
    stop = stop or threading.Event()
    rng = random.Random(seed)
    started = time.perf_counter()
    deadline = started + time_limit
    order = list(start) if start is not None else rng.sample(range(len(search.items)), len(search.items))
    settings = search.settings

    def left() -> float:
        return max(deadline - time.perf_counter(), 1e-3)

    def found(evaluation: Evaluation, evaluations: int) -> Finding:
        return Finding(evaluation.fence, evaluation.order, evaluations, time.perf_counter() - started, seed)

    first = search.evaluate(order, left())
    if first is None:
        return Finding(None, tuple(order), 0, time.perf_counter() - started, seed)
    current = best = first
    done = 1
    if on_better and best.fence:
        on_better(found(best, done))
    threads = max(1, settings.threads)
    with ThreadPoolExecutor(threads) as pool, relay_stop(stop, search.cancel):
        while not stop.is_set() and time.perf_counter() < deadline and (evaluations is None or done < evaluations):
            phase = done % settings.cycle
            if phase < threads and done > threads:
                current = best  # a new cycle: hot again, from the best order
            temperature = settings.temperature * (1 - phase / settings.cycle)
            candidates = [neighbour(list(current.order), rng) for _ in range(threads)]
            draws = [rng.random() for _ in candidates]
            floors = floors2(score(current), temperature, draws, search.most2)
            answers = list(pool.map(lambda order, floor: search.evaluate(order, left(), floor), candidates, floors))
            if any(answer is None for answer in answers):
                break
            done += len(answers)
            for answer, draw in zip(answers, draws, strict=True):
                assert answer is not None
                if taken(score(answer) - score(current), temperature, draw):
                    current = answer
            if score(current) > score(best):
                best = current
                if on_better and best.fence:
                    on_better(found(best, done))
    return found(best, done)


def taken(change: float, temperature: float, draw: float) -> bool:
    """The annealing's rule: a change of score is taken if it loses nothing, or with
    probability exp(change / temperature) (``draw`` uniform in [0, 1))."""
    return change >= 0 or draw < math.exp(change / temperature)


def floors2(current: float, temperature: float, draws: Sequence[float], most2: float) -> list[float | None]:
    """For each candidate of a step, a doubled value that any candidate the annealing
    could take reaches with room to spare, whatever the candidates before it did (so
    ``evaluate`` with it answers every such candidate exactly).  Candidate k is taken
    only if its score beats the current one's plus ``temperature * log(draw)``, and the
    current one can have fallen by at most that much at each candidate taken before it;
    a score is the pocket plus at most ``most2 / 2 * 1e-3`` (``score``); a pocket P is
    found by walking levels above 2P - 2 only (``_order.c``)."""
    floors: list[float | None] = []
    lowest = current
    for draw in draws:
        lowest = lowest + temperature * math.log(draw) if draw > 0 else -math.inf
        pocket = lowest - most2 / 2 * 1e-3 - 1e-6 * max(1.0, abs(lowest))  # the margin: exp and log round
        floors.append(2 * pocket - 2 if pocket > 1 and math.isfinite(pocket) else None)
    return floors


def score(evaluation: Evaluation) -> float:
    """What the annealing maximises: the pocket of the order's best fence without overlaps,
    and a little of the order's closing value (it tells orders with the same pocket apart)."""
    return evaluation.pocket + evaluation.value2 / 2 * 1e-3
