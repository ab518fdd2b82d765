"""The variant-count equations and their non-negative integer solutions.

For piece k with variants v: ``min_k <= sum_v y_v <= max_k``; over all variants,
``sum_v area_v * y_v = area(R)`` and ``sum_v parity_v * y_v = parity(R)``.  A table of
how many completions each (parity, area) state has (a dynamic programme over the
pieces) gives the number of solutions without listing them, and lets a depth-first
generator yield them one by one without ever entering a dead end: memory stays
proportional to the table, however many solutions there are (about 10^14 for 30×40
with 20 copies of each pentomino).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

import attrs

State = tuple[int, int]  # (parity still to make, area still to cover)


@attrs.frozen
class PieceChoices:
    """The ways one piece can be used: variant counts with the parity and area they give."""

    variants: int
    choices: tuple[tuple[tuple[int, ...], int, int], ...]  # (counts per variant, parity, area)


def piece_choices(parities: Sequence[int], area: int, least: int, most: int) -> PieceChoices:
    """Every split of ``least..most`` copies among the piece's (one or two) variants."""
    choices: list[tuple[tuple[int, ...], int, int]] = []
    for copies in range(least, most + 1):
        if len(parities) == 1:
            choices.append(((copies,), parities[0] * copies, area * copies))
        else:
            for first in range(copies + 1):
                counts = (first, copies - first)
                choices.append((counts, parities[0] * first + parities[1] * (copies - first), area * copies))
    return PieceChoices(len(parities), tuple(choices))


class VariantCounts:
    """The solutions of the variant-count equations, counted and enumerated lazily."""

    def __init__(self, pieces: Sequence[PieceChoices], parity: int, area: int):
        self.pieces = list(pieces)
        self.target: State = (parity, area)
        # completions[k][state] = number of ways pieces k.. make exactly that state.
        self.completions: list[dict[State, int]] = [{} for _ in range(len(self.pieces) + 1)]
        self.completions[-1] = {(0, 0): 1}
        for index in range(len(self.pieces) - 1, -1, -1):
            table: dict[State, int] = {}
            for (parity_rest, area_rest), ways in self.completions[index + 1].items():
                for _, piece_parity, piece_area in self.pieces[index].choices:
                    state = (parity_rest + piece_parity, area_rest + piece_area)
                    if state[1] <= area:
                        table[state] = table.get(state, 0) + ways
            self.completions[index] = table

    @property
    def total(self) -> int:
        return self.completions[0].get(self.target, 0)

    def reachable_parities(self) -> list[int]:
        """The parities the pieces can make while covering exactly the region's area."""
        return sorted(parity for parity, area in self.completions[0] if area == self.target[1])

    def solutions(self, order: str = "balanced", seed: int = 0) -> Iterator[tuple[int, ...]]:
        """Yield every solution (the counts of all variants, piece by piece), lazily.

        ``balanced``: at each piece, the most even split between its variants first;
        ``lexicographic``: the first variant's count from 0 up; ``random``: each piece's
        choices shuffled once (seeded), so parallel runs can sample the space.
        """
        orders = [
            self._ordered(piece.choices, order, random.Random(seed + index)) for index, piece in enumerate(self.pieces)
        ]
        if self.total == 0:
            return
        counts: list[tuple[int, ...]] = []

        def extend(index: int, state: State) -> Iterator[tuple[int, ...]]:
            if index == len(self.pieces):
                yield tuple(value for chosen in counts for value in chosen)
                return
            following = self.completions[index + 1]
            for chosen, piece_parity, piece_area in orders[index]:
                rest = (state[0] - piece_parity, state[1] - piece_area)
                if rest in following:
                    counts.append(chosen)
                    yield from extend(index + 1, rest)
                    counts.pop()

        yield from extend(0, self.target)

    @staticmethod
    def _ordered(choices, order: str, rng: random.Random):
        if order == "lexicographic":
            return choices
        if order == "random":
            shuffled = list(choices)
            rng.shuffle(shuffled)
            return shuffled
        return sorted(choices, key=lambda choice: (max(choice[0]) - min(choice[0]), -sum(choice[0])))
