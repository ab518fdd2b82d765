"""The colour-count equations of the k-colour split and their solutions, lazily.

With y_v copies of variant v (n_v[c] of its cells on colour c): for every colour c,
``sum_v n_v[c] * y_v = R[c]`` (the region's cells of that colour; the area equation is
their sum), and ``min_p <= sum_{v of p} y_v <= max_p`` for every piece p.  For k = 2 it is
the checkerboard split's parity and area equations.

A piece may have many variants (up to k per orientation), so its choices are not listed:
a table per piece says, variant by variant, which (colour counts, copies) the variants
from there on can make; a table over the pieces says how many ways the pieces from there
on complete each colour-count vector.  ``total`` is one lookup; the generator enters
only choices that complete, so it never meets a dead end.  The tables are bounded
(``budget`` states in all, ``seconds`` to build): a problem whose tables would be
larger or slower raises ``TooMany``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator, Sequence

Vector = tuple[int, ...]


class TooMany(Exception):
    """The tables would hold more states than the budget, or take longer than its seconds."""


class Budget:
    """States the tables may still hold, and until when they may be built."""

    def __init__(self, states: int, seconds: float):
        self.states = states
        self.deadline = time.monotonic() + seconds
        self.steps = 0

    def spend(self, states: int = 0) -> None:
        self.states -= states
        self.steps += 1
        if self.states < 0 or (self.steps % 1024 == 0 and time.monotonic() > self.deadline):
            raise TooMany


def _add(a: Vector, b: Vector, times: int = 1) -> Vector:
    return tuple(x + times * y for x, y in zip(a, b, strict=True))


class PieceTable:
    """For one piece: ``after[j][(vector, copies)]`` = ways variants j, j+1, ... make that
    many cells of each colour with that many copies."""

    def __init__(self, counts: Sequence[Vector], least: int, most: int, target: Vector, budget: Budget):
        self.counts, self.least, self.most = list(counts), least, most
        colours = len(target)
        self.after: list[dict[tuple[Vector, int], int]] = [{} for _ in range(len(self.counts) + 1)]
        self.after[-1] = {((0,) * colours, 0): 1}
        for j in range(len(self.counts) - 1, -1, -1):
            table: dict[tuple[Vector, int], int] = {}
            for (vector, copies), ways in self.after[j + 1].items():
                budget.spend()
                for extra in range(0, most - copies + 1):
                    made = _add(vector, self.counts[j], extra)
                    if any(x > limit for x, limit in zip(made, target, strict=True)):
                        break
                    key = (made, copies + extra)
                    table[key] = table.get(key, 0) + ways
            budget.spend(len(table))
            self.after[j] = table
        self.made: dict[Vector, int] = {}
        for (vector, copies), ways in self.after[0].items():
            if least <= copies <= most:
                self.made[vector] = self.made.get(vector, 0) + ways

    def choices(self, vector: Vector, order: str, rng: random.Random) -> Iterator[tuple[int, ...]]:
        """Every tuple of variant counts that makes ``vector`` with an allowed number of copies."""
        for copies in range(self.least, self.most + 1):
            if (vector, copies) in self.after[0]:
                yield from self._with_copies(vector, copies, order, rng)

    def _with_copies(self, vector: Vector, copies: int, order: str, rng: random.Random) -> Iterator[tuple[int, ...]]:
        chosen: list[int] = []

        def extend(j: int, rest: Vector, copies_left: int) -> Iterator[tuple[int, ...]]:
            if j == len(self.counts):
                yield tuple(chosen)
                return
            options = list(range(copies_left + 1))
            if order == "random":
                rng.shuffle(options)
            elif order == "balanced":
                share = copies_left / (len(self.counts) - j)
                options.sort(key=lambda extra: (abs(extra - share), extra))
            for extra in options:
                left = _add(rest, self.counts[j], -extra)
                if (left, copies_left - extra) in self.after[j + 1]:
                    chosen.append(extra)
                    yield from extend(j + 1, left, copies_left - extra)
                    chosen.pop()

        yield from extend(0, vector, copies)


class ColourCounts:
    """The solutions of the colour-count equations, counted and enumerated lazily."""

    def __init__(
        self,
        pieces: Sequence[tuple[Sequence[Vector], int, int]],
        target: Vector,
        budget: int = 1_000_000,
        seconds: float = 5.0,
    ):
        """``pieces``: per piece, its variants' colour counts and its least and most copies."""
        left = Budget(budget, seconds)
        self.tables = [PieceTable(counts, least, most, target, left) for counts, least, most in pieces]
        self.target = target
        zero = (0,) * len(target)
        # completions[p][vector] = ways pieces p, p+1, ... make exactly that vector.
        self.completions: list[dict[Vector, int]] = [{} for _ in range(len(self.tables) + 1)]
        self.completions[-1] = {zero: 1}
        for index in range(len(self.tables) - 1, -1, -1):
            table: dict[Vector, int] = {}
            for rest, ways in self.completions[index + 1].items():
                left.spend()
                for made, own in self.tables[index].made.items():
                    vector = _add(rest, made)
                    if all(x <= limit for x, limit in zip(vector, target, strict=True)):
                        table[vector] = table.get(vector, 0) + ways * own
            left.spend(len(table))
            self.completions[index] = table

    @property
    def total(self) -> int:
        return self.completions[0].get(self.target, 0)

    def reachable(self) -> list[Vector]:
        """The colour-count vectors the pieces can make while covering the region's area."""
        area = sum(self.target)
        return sorted(vector for vector in self.completions[0] if sum(vector) == area)

    def solutions(self, order: str = "balanced", seed: int = 0) -> Iterator[tuple[int, ...]]:
        """Every solution (the counts of all variants, piece by piece), lazily; ``order``
        as for the checkerboard split: balanced (the most even counts first),
        lexicographic, random (seeded)."""
        if self.total == 0:
            return
        rng = random.Random(seed)
        counts: list[tuple[int, ...]] = []

        def extend(index: int, rest: Vector) -> Iterator[tuple[int, ...]]:
            if index == len(self.tables):
                yield tuple(value for chosen in counts for value in chosen)
                return
            following = self.completions[index + 1]
            made = [vector for vector in self.tables[index].made if _add(rest, vector, -1) in following]
            if order == "random":
                rng.shuffle(made)
            else:
                made.sort()
            for vector in made:
                for chosen in self.tables[index].choices(vector, order, rng):
                    counts.append(chosen)
                    yield from extend(index + 1, _add(rest, vector, -1))
                    counts.pop()

        yield from extend(0, self.target)
