"""The variant-count equations and their non-negative integer solutions.

For piece k with variants v: ``min_k <= sum_v y_v <= max_k``; over all variants,
``sum_v area_v * y_v = area(R)`` and ``sum_v parity_v * y_v = parity(R)``.

A table says, for each piece k and each area a, which parities the pieces k, k+1, …
can make while covering exactly a cells: one Python integer per area, used as a bitset
of parities.  It proves that no solution exists (the region's parity is not among those
of its area) and lets a depth-first generator yield the solutions one by one without
ever entering a dead end, in memory proportional to the table.  Building it takes one
shift-and-or per (area, copies) pair of each piece, so its work is known before it
starts: past ``WORK_LIMIT`` the equations are ``TooLarge`` to analyse (a 100×100 square
with unlimited pentominoes), and nothing is claimed.  How many solutions there are
(about 10^14 for 30×40 with 20 copies of each pentomino) is counted by a second, slower
table only when that one is small too.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

import attrs

# Shift-and-or steps on the parity bitsets; about 0.3 s of work in Python.
WORK_LIMIT = 400_000
# (state, choice) pairs the table that counts the solutions may visit.
COUNT_LIMIT = 2_000_000

Choice = tuple[tuple[int, ...], int, int]  # (counts per variant, parity, area)


class TooLarge(Exception):
    """The equations have too many states to analyse within ``WORK_LIMIT``."""


@attrs.frozen
class PieceChoices:
    """The ways one piece can be used: ``least..most`` copies, split among its one or
    two variants of the given parities."""

    parities: tuple[int, ...]
    area: int
    least: int
    most: int

    @property
    def variants(self) -> int:
        return len(self.parities)

    def choices(self) -> list[Choice]:
        """Every split of ``least..most`` copies among the variants (quadratic in copies:
        made only when the solutions are listed or counted)."""
        found: list[Choice] = []
        for copies in range(self.least, self.most + 1):
            if len(self.parities) == 1:
                found.append(((copies,), self.parities[0] * copies, self.area * copies))
                continue
            first_parity, second_parity = self.parities
            for first in range(copies + 1):
                parity = first_parity * first + second_parity * (copies - first)
                found.append(((first, copies - first), parity, self.area * copies))
        return found

    def choice_count(self) -> int:
        copies = range(self.least, self.most + 1)
        return len(copies) if len(self.parities) == 1 else sum(c + 1 for c in copies)


def piece_choices(parities: Sequence[int], area: int, least: int, most: int) -> PieceChoices:
    return PieceChoices(tuple(parities), area, least, most)


class VariantCounts:
    """The solutions of the variant-count equations, decided and enumerated lazily.
    Raises ``TooLarge`` when the table would take more than ``work_limit`` steps."""

    def __init__(self, pieces: Sequence[PieceChoices], parity: int, area: int, work_limit: int = WORK_LIMIT):
        self.pieces = list(pieces)
        self.target = (parity, area)
        self.offset = area  # |parity| <= area: bit (offset + p) stands for parity p
        # reach[k][a]: bitset of the parities pieces k.. make covering exactly a cells.
        self.reach: list[dict[int, int]] = [{} for _ in self.pieces] + [{0: 1 << self.offset}]
        work = 0
        for index in range(len(self.pieces) - 1, -1, -1):
            piece, following = self.pieces[index], self.reach[index + 1]
            work += len(following) * (piece.most + 1)
            if work > work_limit:
                raise TooLarge(f"over {work_limit:,} steps of the variant-count table")
            self.reach[index] = _add_piece(piece, following, area)
        self._total: int | None = None

    def reachable(self, index: int, parity: int, area: int) -> bool:
        """Whether pieces ``index..`` can make ``parity`` covering exactly ``area`` cells."""
        bits = self.reach[index].get(area)
        return bits is not None and abs(parity) <= self.offset and bool(bits >> (self.offset + parity) & 1)

    @property
    def feasible(self) -> bool:
        return self.reachable(0, *self.target)

    @property
    def total(self) -> int | None:
        """How many solutions there are, or None when counting them is too large a job."""
        if self._total is None and self.feasible:
            self._total = self._count()
        return 0 if not self.feasible else self._total

    def _count(self) -> int | None:
        work = sum(
            sum(bin(bits).count("1") for bits in self.reach[index + 1].values()) * piece.choice_count()
            for index, piece in enumerate(self.pieces)
        )
        if work > COUNT_LIMIT:
            return None
        ways: dict[tuple[int, int], int] = {(0, 0): 1}
        for piece in reversed(self.pieces):
            table: dict[tuple[int, int], int] = {}
            choices = piece.choices()
            for (parity_rest, area_rest), count in ways.items():
                for _, piece_parity, piece_area in choices:
                    state = (parity_rest + piece_parity, area_rest + piece_area)
                    if state[1] <= self.target[1]:
                        table[state] = table.get(state, 0) + count
            ways = table
        return ways.get(self.target, 0)

    def reachable_parities(self) -> list[int]:
        """The parities the pieces can make while covering exactly the region's area."""
        bits = self.reach[0].get(self.target[1], 0)
        return [position - self.offset for position in range(bits.bit_length()) if bits >> position & 1]

    def solutions(self, order: str = "balanced", seed: int = 0) -> Iterator[tuple[int, ...]]:
        """Yield every solution (the counts of all variants, piece by piece), lazily.

        ``balanced``: at each piece, the most even split between its variants first;
        ``lexicographic``: the first variant's count from 0 up; ``random``: each piece's
        choices shuffled once (seeded), so parallel runs can sample the space.
        """
        if not self.feasible:
            return
        orders = [
            self._ordered(piece.choices(), order, random.Random(seed + index))
            for index, piece in enumerate(self.pieces)
        ]
        counts: list[tuple[int, ...]] = []

        def extend(index: int, parity: int, area: int) -> Iterator[tuple[int, ...]]:
            if index == len(self.pieces):
                yield tuple(value for chosen in counts for value in chosen)
                return
            for chosen, piece_parity, piece_area in orders[index]:
                if self.reachable(index + 1, parity - piece_parity, area - piece_area):
                    counts.append(chosen)
                    yield from extend(index + 1, parity - piece_parity, area - piece_area)
                    counts.pop()

        yield from extend(0, *self.target)

    @staticmethod
    def _ordered(choices: list[Choice], order: str, rng: random.Random) -> list[Choice]:
        if order == "lexicographic":
            return choices
        if order == "random":
            rng.shuffle(choices)
            return choices
        return sorted(choices, key=lambda choice: (max(choice[0]) - min(choice[0]), -sum(choice[0])))


def _shifted(bits: int, by: int) -> int:
    return bits << by if by >= 0 else bits >> -by


def _add_piece(piece: PieceChoices, following: dict[int, int], area: int) -> dict[int, int]:
    """``reach`` for a piece placed before ``following``: every copies count of the piece,
    every split of them among its variants, on top of every state of the rest."""
    table: dict[int, int] = {}
    low_parity = min(piece.parities)
    step = max(piece.parities) - low_parity  # one copy moved from the low variant to the high one
    for area_rest, bits in following.items():
        # ``spread``: the parities of ``copies`` copies, all of the low variant, up to all high.
        spread = bits
        for copies in range(piece.most + 1):
            if copies:
                spread |= _shifted(spread, step) if step else 0
            total_area = area_rest + piece.area * copies
            if total_area > area:
                break
            if copies >= piece.least:
                table[total_area] = table.get(total_area, 0) | _shifted(spread, low_parity * copies)
    return table
