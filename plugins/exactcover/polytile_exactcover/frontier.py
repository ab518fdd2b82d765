"""Counting without listing: a frontier scan in C (``_frontier.c``).  The same scan,
keeping every layer, also lists (``listing.py``).

The scan fills the cells in ``problem.order`` and keeps, per layer, the number of ways
to reach each state (window of covered cells ahead, pieces used once, copies placed of
the pieces counted).  This module lays a cover problem out for it, or says why it
cannot: a placement spanning more than 64 cells of the scan, an option covering no
cell, more than 64 items besides the cells, or piece counts needing more than 64 bits.

It also finds a **colouring invariant** that prunes states no tiling can finish.  Colour
the cell (x, y) by (x mod m, y mod m) and count the colours a set of cells has: a vector
in Z^(m·m).  The pieces with many copies (the *bulk*: the I-tetrominoes of the 2022
paper's Fig. 12) span a lattice L of such vectors; a linear functional f that vanishes
on L gives every bulk placement the value 0.  The cells still to cover must then have
the value of the *other* pieces still to place (those used a few times: the I3, the L3
and the two P of Fig. 12), which can take only a few values.  A state whose remaining
cells have a value the remaining other pieces cannot sum to is dropped: on Fig. 12
that removes 99% of the states (measured: 585,704 states in the peak layer, 1,904 of
them with a completion).  The values are combined into one 64-bit number by a random
linear map, so equal vectors give equal numbers; a coincidence of two different
vectors only keeps a state that could have gone, it never drops one that has a
completion.

And it sets up the **pocket check**: when a placement closes off uncovered cells from
the rest of the region (4-neighbours, pieces being connected), those cells must be
filled by pieces inside them, so their number must be a sum of piece sizes, and a pocket
smaller than two pieces must be exactly the shape of an option still allowed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from itertools import product
from math import gcd, lcm

import attrs
import numpy

from polytile_core.plugin import check_build_limits, normalise
from polytile_exactcover._frontier import Frontier
from polytile_exactcover.cover import CoverProblem

WINDOW = 64
MASK = (1 << 64) - 1
# A group allowing at most this many copies is an "other" piece for the invariant; more
# copies (or no upper bound) make it bulk.
OTHER_COPIES = 4
# Beyond these the table of values the other pieces can take grows large for little gain.
MOST_DRAWS = 6
MOST_GOOD = 200_000
MODULI = (2, 3, 4, 5, 6)
# A prime below 2^31: products of two residues fit in numpy's int64.
PRIME = 2_147_483_647

Cell = tuple[int, int]
# An option as the scan reads it: (start cell, window mask from the start, tail mask, memberships).
Row = tuple[int, int, int, tuple[tuple[int, int], ...]]
# A counted piece: (lo, hi, shift of its packed total); hi 0 is no upper bound.
Group = tuple[int, int, int]
# What an option places for the invariant: ("tail", bit) or ("group", index).
Unit = tuple[str, int]


@attrs.frozen
class Pruning:
    """The invariant's data for ``_frontier.Frontier``: the region's value, the bits of
    the tail and of the packed totals that say which other pieces are placed, and the
    good set of (those bits, value the remaining cells need)."""

    region: int = 0
    other_tail: int = 0
    other_totals: int = 0
    good: tuple[tuple[int, int, int], ...] = ()
    modulus: int = 0


@attrs.frozen
class Pockets:
    """The pocket check's data for ``_frontier.Frontier``: every set of pieces covers a
    multiple of ``unit`` cells, at least ``smallest``; ``neighbours[p]`` are the scan
    positions of cell p's 4-neighbours; ``reach`` is how far ahead a window can be
    covered.  ``unit`` 0: no check."""

    unit: int = 0
    smallest: int = 0
    reach: int = 0
    neighbours: tuple[tuple[int, ...], ...] = ()


@attrs.frozen
class Layout:
    """The arguments of ``_frontier.Frontier``."""

    n_cells: int
    options: list[tuple[int, int, int, tuple[tuple[int, int], ...], int, int]]
    groups: list[tuple[int, int, int]]
    tail_full: int
    pruning: Pruning
    pockets: Pockets
    # Per option of ``options`` (sorted by start cell), its number in the cover problem.
    numbers: list[int] = attrs.Factory(list)

    def pruned_by(self) -> str:
        """What the scan prunes by, for ``details["frontier_pruning"]``."""
        ways = []
        if self.pruning.modulus:
            ways.append(
                f"colours mod {self.pruning.modulus} ({len(self.pruning.good)} values the other pieces can take)"
            )
        if self.pockets.unit:
            ways.append(f"closed pockets (a multiple of {self.pockets.unit} cells, at least {self.pockets.smallest})")
        return ", ".join(ways) or "none"


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
    for number, (items, memberships) in enumerate(problem.options):
        if not number % 4096:
            check_build_limits()  # a large board's layout takes a second of Python: the run's limits hold
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
    # An upper bound no choice of options can pass is dropped (0): the total then only
    # matters up to the lower bound, where the scan saturates it.
    bounds = [
        (lo, 0 if hi >= reachable else hi) for (lo, hi), reachable in zip(problem.groups, weight_sum, strict=True)
    ]
    shifts = []
    used = 0
    for lo, hi in bounds:
        shifts.append(used)
        used += max(hi, lo).bit_length()
    if used > 64:
        return "the piece counts need more than 64 bits"
    groups = [(lo, hi, shift) for (lo, hi), shift in zip(bounds, shifts, strict=True)]
    pruning, values = invariant(problem, rows, groups)
    numbers = sorted(range(len(rows)), key=lambda number: rows[number][0])
    options = [(*rows[k], int(values[k] is not None), values[k] or 0) for k in numbers]
    return Layout(n_cells, options, groups, (1 << tail) - 1, pruning, pockets(problem, rows, n_cells), numbers)


def frontier(plan: Layout) -> Frontier:
    pruning = plan.pruning
    return Frontier(
        plan.n_cells,
        plan.options,
        plan.groups,
        plan.tail_full,
        (pruning.region, pruning.other_tail, pruning.other_totals, pruning.good),
        (plan.pockets.unit, plan.pockets.smallest, plan.pockets.reach, plan.pockets.neighbours),
    )


def pockets(problem: CoverProblem, rows: Sequence[Row], n_cells: int) -> Pockets:
    """The pocket check, when it is sound and can refuse something: every option places a
    connected piece on the cells it covers, each cell's place is certain (the one cell
    all the placements covering it share), and the pieces' sizes are not all 1.  A pocket
    of uncovered cells closed off by covered ones can only be filled by pieces inside it,
    so its size must be a sum of piece sizes: a multiple of their gcd, at least the
    smallest."""
    shapes = problem.shapes
    if len(shapes) != len(rows) or not n_cells:
        return Pockets()
    places: list[frozenset[Cell] | None] = [None] * n_cells
    sizes = set()
    connected: dict[tuple[Cell, ...], bool] = {}  # per shape up to translation: a piece's placements share it
    for number, (shape, (start, window, _, _)) in enumerate(zip(shapes, rows, strict=True)):
        if not number % 4096:
            check_build_limits()
        cells = [start + bit for bit in range(window.bit_length()) if window >> bit & 1]
        if len(shape) != len(cells) or not _connected(shape, connected):
            return Pockets()
        sizes.add(len(cells))
        covered = frozenset(shape)
        for position in cells:
            common = places[position]
            places[position] = covered if common is None else common & covered
    if any(common is None for common in places):
        return Pockets()
    cell_at = _certain_places(places)
    if cell_at is None:
        return Pockets()
    position_of = {cell: position for position, cell in enumerate(cell_at)}
    if len(position_of) != n_cells or (gcd(*sizes) == 1 and min(sizes) == 1):
        return Pockets()
    neighbours = tuple(
        tuple(position_of[near] for near in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)) if near in position_of)
        for x, y in cell_at
    )
    reach = max(window.bit_length() for _, window, _, _ in rows)
    return Pockets(gcd(*sizes), min(sizes), reach, neighbours)


def _certain_places(places: Sequence[frozenset[Cell] | None]) -> list[Cell] | None:
    """Each position's cell: the one cell its placements all share, once the cells
    certain for other positions are set aside (a corner cell that every placement
    covers with its neighbour is told apart by the neighbour's own); None if any stays
    unsure."""
    cell_at: list[Cell | None] = [next(iter(common)) if common and len(common) == 1 else None for common in places]
    while None in cell_at:
        taken = {cell for cell in cell_at if cell is not None}
        settled = False
        for position, common in enumerate(places):
            if cell_at[position] is None and common is not None:
                left = common - taken
                if len(left) == 1:
                    cell_at[position] = next(iter(left))
                    taken |= left
                    settled = True
        if not settled:
            return None
    return [cell for cell in cell_at if cell is not None]


def _connected(shape: Sequence[Cell], known: dict[tuple[Cell, ...], bool]) -> bool:
    """Whether ``shape`` is 4-connected, looked up in ``known`` by its shape at the origin."""
    key = normalise(shape)
    if key not in known:
        known[key] = _flood(shape)
    return known[key]


def _flood(shape: Sequence[Cell]) -> bool:
    cells = set(shape)
    seen = {shape[0]}
    todo = [shape[0]]
    while todo:
        x, y = todo.pop()
        for near in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if near in cells and near not in seen:
                seen.add(near)
                todo.append(near)
    return len(seen) == len(cells)


def invariant(problem: CoverProblem, rows: Sequence[Row], groups: Sequence[Group]) -> tuple[Pruning, list[int | None]]:
    """(the pruning data, per option its value when it places an other piece, else
    None); no pruning (``Pruning()``) when the model is not a tiling whose placements
    are known, no option is bulk, or the invariant is trivial or too large."""
    none: tuple[Pruning, list[int | None]] = (Pruning(), [None] * len(rows))
    shapes = problem.shapes
    if len(shapes) != len(rows) or any(
        len(shape) != bin(window).count("1") for shape, (_, window, _, _) in zip(shapes, rows, strict=True)
    ):
        return none
    other_groups = {g for g, (_, hi, _) in enumerate(groups) if 0 < hi <= OTHER_COPIES}
    # Each option: None (bulk), ("tail", bit) or ("group", g); anything else: no pruning.
    units: list[Unit | None] = []
    for _, _, tail, memberships in rows:
        others = [(g, weight) for g, weight in memberships if g in other_groups]
        if tail and not others and tail & (tail - 1) == 0:
            units.append(("tail", tail.bit_length() - 1))
        elif not tail and len(others) == 1 and others[0][1] == 1:
            units.append(("group", others[0][0]))
        elif not tail and not others:
            units.append(None)
        else:
            return none
    bulk = [shape for shape, unit in zip(shapes, units, strict=True) if unit is None]
    kinds = sorted(set(unit for unit in units if unit is not None))
    draws = sum(1 if kind == "tail" else groups[index][1] for kind, index in kinds)
    if not bulk or not kinds or draws > MOST_DRAWS:
        return none
    region = set().union(*shapes)
    for modulus, values in _colourings(bulk):
        value_of = [_value(shape, modulus, values) for shape in shapes]
        if any(value_of[k] for k, unit in enumerate(units) if unit is None):
            continue  # cannot happen for an exact functional; kept as a guard
        good = _good(kinds, units, value_of, groups)
        if good is None:
            continue
        other_tail = sum(1 << index for kind, index in kinds if kind == "tail")
        other_totals = sum(_field(groups[g]) for kind, g in kinds if kind == "group")
        pruning = Pruning(_value(region, modulus, values), other_tail, other_totals, good, modulus)
        return pruning, [None if unit is None else value for unit, value in zip(units, value_of, strict=True)]
    return none


def _field(group: Group) -> int:
    """The bits of a group's packed total (as ``_frontier.c`` packs it)."""
    lo, hi, shift = group
    return ((1 << (hi or lo).bit_length()) - 1) << shift


def _colourings(bulk: Sequence[Sequence[Cell]]) -> list[tuple[int, list[int]]]:
    """For each modulus m, most invariants first: (m, value of each colour) where the value
    is a random combination of an integer basis of the functionals vanishing on L."""
    found = []
    for modulus in MODULI:
        vectors = sorted({tuple(_colours(shape, modulus)) for shape in bulk})
        if _spans_everything(vectors, modulus * modulus):
            continue  # no invariant
        basis = _null_space(vectors, modulus * modulus)
        if basis:
            weights = [_splitmix(k) for k in range(len(basis))]
            values = [
                sum(w * f[colour] for w, f in zip(weights, basis, strict=True)) & MASK for colour in range(modulus**2)
            ]
            found.append((len(basis), -modulus, values))
    return [(-negative, values) for _, negative, values in sorted(found, reverse=True)]


def _spans_everything(vectors: Sequence[Sequence[int]], size: int) -> bool:
    """Whether ``vectors`` span Q^size: their rank modulo a prime, which is never more
    than over Q, is ``size`` (numpy's whole-row steps, no floating point and no BLAS,
    whose spinning threads would take the scan's cores; a milliseconds' quick no where
    ``_null_space`` in Python would take tens)."""
    work = numpy.array(vectors, dtype=numpy.int64) % PRIME
    rank = 0
    for column in range(size):
        rows = numpy.flatnonzero(work[rank:, column])
        if rows.size == 0:
            continue
        pivot = rank + int(rows[0])
        work[[rank, pivot]] = work[[pivot, rank]]
        work[rank] = work[rank] * pow(int(work[rank, column]), PRIME - 2, PRIME) % PRIME
        below = rank + 1 + numpy.flatnonzero(work[rank + 1 :, column])
        work[below] = (work[below] - work[below, column, None] * work[rank]) % PRIME
        rank += 1
        if rank == len(work):
            break
    return rank == size


def _colours(shape: Iterable[Cell], modulus: int) -> list[int]:
    counts = [0] * modulus**2
    for x, y in shape:
        counts[(x % modulus) * modulus + y % modulus] += 1
    return counts


def _value(cells: Iterable[Cell], modulus: int, values: Sequence[int]) -> int:
    return sum(values[(x % modulus) * modulus + y % modulus] for x, y in cells) & MASK


def _null_space(vectors: Sequence[Sequence[int]], size: int) -> list[list[int]]:
    """An integer basis of the f in Q^size with f·v = 0 for every v in ``vectors``
    (Gauss–Jordan elimination over the integers: every pivot column is zero in the other
    rows)."""
    pivots: list[tuple[int, list[int]]] = []
    for vector in vectors:
        row = list(vector)
        for at, pivot in pivots:
            row = _eliminate(row, pivot, at)
        lead = next((c for c, a in enumerate(row) if a), None)
        if lead is None:
            continue
        pivots = [(at, _eliminate(pivot, row, lead)) for at, pivot in pivots]
        pivots.append((lead, _reduced(row)))
    scale = lcm(*(pivot[at] for at, pivot in pivots))
    basis = []
    for free in sorted(set(range(size)) - {at for at, _ in pivots}):
        f = [0] * size
        f[free] = scale
        for at, pivot in pivots:
            f[at] = -pivot[free] * scale // pivot[at]
        basis.append(f)
    return basis


def _eliminate(row: list[int], pivot: list[int], at: int) -> list[int]:
    """``row`` with its entry in column ``at`` cleared by a multiple of ``pivot``."""
    if not row[at]:
        return row
    return _reduced([pivot[at] * a - row[at] * b for a, b in zip(row, pivot, strict=True)])


def _reduced(row: list[int]) -> list[int]:
    divisor = gcd(*row) or 1
    return [a // divisor for a in row]


def _splitmix(k: int) -> int:
    z = (k + 1) * 0x9E3779B97F4A7C15 & MASK
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9 & MASK
    z = (z ^ (z >> 27)) * 0x94D049BB133111EB & MASK
    return z ^ (z >> 31)


def _good(
    kinds: Sequence[Unit], units: Sequence[Unit | None], value_of: Sequence[int], groups: Sequence[Group]
) -> tuple[tuple[int, int, int], ...] | None:
    """Every (tail bits placed, totals placed, value the remaining cells may have) once at
    least one other piece is placed; None past ``MOST_GOOD``."""
    values = {
        kind: frozenset(value for unit, value in zip(units, value_of, strict=True) if unit == kind) for kind in kinds
    }

    @cache
    def sums(remaining: tuple[tuple[int, int], ...]) -> frozenset[int]:
        """The values of the other pieces still to place: per kind (fewest, most) copies."""
        if not remaining:
            return frozenset([0])
        (fewest, most), rest = remaining[0], remaining[1:]
        if most == 0:
            return sums(rest)
        more = sums(((max(fewest - 1, 0), most - 1), *rest))
        total = {(a + b) & MASK for a in values[kinds[len(kinds) - len(remaining)]] for b in more}
        if fewest == 0:
            total |= sums(rest)
        if len(total) > MOST_GOOD:
            raise OverflowError
        return frozenset(total)

    good: list[tuple[int, int, int]] = []
    placed_choices = [range(2) if kind == "tail" else range(groups[index][1] + 1) for kind, index in kinds]
    try:
        for placed in product(*placed_choices):
            if not any(placed):
                continue
            tail_bits = totals = 0
            remaining = []
            for (kind, index), count in zip(kinds, placed, strict=True):
                if kind == "tail":
                    tail_bits |= count << index
                    remaining.append((1 - count, 1 - count))
                else:
                    lo, hi, shift = groups[index]
                    totals |= count << shift
                    remaining.append((max(lo - count, 0), hi - count))
            good.extend((tail_bits, totals, value) for value in sums(tuple(remaining)))
            if len(good) > MOST_GOOD:
                return None
    except OverflowError:
        return None
    return tuple(good)
