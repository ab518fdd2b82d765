"""An upper bound on the largest pocket that needs no table per set of pieces.

The boundary search (``fence.py``) proves optima with a dynamic program over (junction
state, set of pieces used), which stops at about 16 pieces: 2^n sets.  Here the set is
replaced by the number of pieces placed, and "each piece at most once" by a price per
piece type (Lagrangian relaxation): for any prices ``l >= 0``,

    largest pocket <= relaxed(l) / 2 + sum over types of l[type] * copies[type],

where ``relaxed(l)`` is the best doubled value of a closed cycle of at most n moves
from the same junction state, any piece type placed any number of times, each
placement paying ``2 * l[type]`` (``_fence.relaxed``, in C).  A real fence is such a
cycle using each type at most its copies, so it pays at most the sum added back.
Subgradient steps raise the price of types used too often and lower the others; every
value met is a valid bound and the least is kept.  Overlaps and the junction of the
cycle's last piece with its first are treated as in the boundary search.
"""

from __future__ import annotations

import array
import math
import time
from collections.abc import Sequence

import attrs

from polytile_core.plugin import PieceType
from polytile_enclosure._fence import relaxed
from polytile_enclosure.fence import visits

STALL = 5  # (on the pentominoes: 131 after 100 rounds, where a fixed step gave 134)


@attrs.frozen
class RelaxedBound:
    """The least bound met (floored to an integer: pockets are whole cells), the
    prices that gave it, and the work done."""

    bound: int
    prices: tuple[float, ...]
    rounds: int
    seconds: float


Move = tuple[int, int, int, int]  # d_in, d_out, dx, dy


def _moves(pieces: Sequence[PieceType], neighbours: int) -> tuple[dict[Move, list[tuple[int, int]]], list[int]]:
    """Every distinct move with the (doubled area, type) of each type that makes it, and
    each type's reach (the farthest a move goes)."""
    makers: dict[Move, list[tuple[int, int]]] = {}
    reach = []
    for kind, piece in enumerate(pieces):
        best: dict[Move, int] = {}
        for number, shape in enumerate(piece.orientations()):
            for v in visits(shape, number, neighbours):
                key = (v.d_in, v.d_out, v.dx, v.dy)
                best[key] = max(best.get(key, v.area2), v.area2)
        for key, area2 in best.items():
            makers.setdefault(key, []).append((area2, kind))
        reach.append(max(abs(dx) + abs(dy) for _, _, dx, dy in best))
    return makers, reach


def _priced(makers: dict[Move, list[tuple[int, int]]], prices: list[float]) -> tuple[bytes, bytes]:
    """For each move the type that gains most from it at these prices (the others can never
    beat it there), as int32 rows (type, d_in, dx, dy, area2) grouped by d_out."""
    by_out: list[list[int]] = [[], [], [], []]
    for (d_in, d_out, dx, dy), offers in makers.items():
        area2, kind = max(offers, key=lambda offer: offer[0] - 2 * prices[offer[1]])
        by_out[d_out] += [kind, d_in, dx, dy, area2]
    starts = [0]
    for rows in by_out:
        starts.append(starts[-1] + len(rows) // 5)
    return array.array("i", [value for rows in by_out for value in rows]).tobytes(), array.array("i", starts).tobytes()


def relaxed_bound(
    pieces: Sequence[PieceType],
    neighbours: int,
    *,
    target: float,
    rounds: int = 40,
    time_limit: float | None = None,
    prices: Sequence[float] | None = None,
) -> RelaxedBound | None:
    """The least bound over ``rounds`` subgradient steps (Polyak's step towards ``target``,
    a fence's size known or hoped for: it only sets the step length, with a factor
    halved whenever ``STALL`` rounds bring nothing); None if the first round did not
    finish within ``time_limit``.  ``prices``: where the prices start (a warm start, e.g.
    the prices of a larger set); any prices give a valid bound."""
    started = time.perf_counter()
    makers, reach = _moves(pieces, neighbours)
    copies = [piece.maximum or 0 for piece in pieces]
    reaches = sorted((reach[kind] for kind, count in enumerate(copies) for _ in range(count)), reverse=True)
    n = len(reaches)
    radius = sum(reaches) // 2 + 1
    # After c pieces the path must be able to come back with the n - c farthest-reaching left.
    limits = array.array("i", [min(radius, sum(reaches[: n - c])) for c in range(n + 1)]).tobytes()
    rotations_closed = all(piece.kind in ("free", "one-sided") for piece in pieces)
    starts = [0] if rotations_closed else [0, 1, 2, 3]
    prices = list(prices) if prices is not None else [0.0] * len(pieces)
    best, best_prices, done = math.inf, tuple(prices), 0
    factor, stalled = 2.0, 0  # the step's factor, halved after STALL rounds that bring nothing
    while done < rounds:
        moves, move_start = _priced(makers, prices)
        penalties = array.array("d", prices).tobytes()
        answers = []
        for start in starts:
            left = None if time_limit is None else time_limit - (time.perf_counter() - started)
            if left is not None and left <= 0:
                break
            answer = relaxed(moves, move_start, penalties, limits, len(pieces), radius, start, left or 0.0)
            if answer is None:
                break
            answers.append(answer)
        if len(answers) < len(starts):
            break  # out of time: an unfinished round bounds nothing
        done += 1
        value, _, uses = max(answers)
        # No pieces at all enclose 0, so the bound is never below 0 (when no cycle closes, it is 0).
        bound = max(0.0, value / 2 + sum(p * c for p, c in zip(prices, copies, strict=True)))
        if bound < best:
            best, best_prices, stalled = bound, tuple(prices), 0
        else:
            stalled += 1
            if stalled == STALL:
                factor, stalled = factor / 2, 0
        slope = [u - c for u, c in zip(uses, copies, strict=True)]
        norm = sum(g * g for g in slope)
        if norm == 0 or best < target + 1:
            break  # every type used exactly its copies (no price can move), or nothing left to gain
        length = factor * (bound - target) / norm
        prices = [max(0.0, p + length * g) for p, g in zip(prices, slope, strict=True)]
    if best == math.inf:
        return None
    return RelaxedBound(math.floor(best + 1e-6), best_prices, done, time.perf_counter() - started)


def needed_types(
    pieces: Sequence[PieceType], neighbours: int, *, above: int, prices: Sequence[float], rounds: int = 40
) -> list[tuple[str, int]]:
    """The first step of a branch-and-bound over which pieces a fence uses: for each type,
    the relaxed bound of the set with one copy of it fewer, the prices starting from
    ``prices`` (those of the whole set).  A type whose bound is at most ``above`` is in
    every fence that encloses more than ``above``."""
    found = []
    for kind, piece in enumerate(pieces):
        left = (piece.maximum or 1) - 1
        fewer = [attrs.evolve(piece, minimum=left, maximum=left)] if left else []
        rest = [*fewer, *pieces[:kind], *pieces[kind + 1 :]]
        start = [prices[kind]] * len(fewer) + [*prices[:kind], *prices[kind + 1 :]]
        bound = relaxed_bound(rest, neighbours, target=above, rounds=rounds, prices=start)
        assert bound is not None
        found.append((piece.name, bound.bound))
    return found
