"""An upper bound on the largest pocket that needs no table per set of pieces.

The boundary search (``fence.py``) proves optima with a dynamic program over (junction
state, set of pieces used), which stops at about 16 pieces: 2^n sets.  Here the set is
replaced by a *tally*: the piece types are split into groups, and the state counts how
many pieces of each group the path has placed, at most the group's copies; "each type at
most its copies" within a group becomes a price per type (Lagrangian relaxation): for
any prices ``l >= 0``,

    largest pocket <= relaxed(l) / 2 + sum over types of l[type] * copies[type],

where ``relaxed(l)`` is the best doubled value of a closed cycle from the same junction
state whose tally never exceeds a group's copies, each placement paying ``2 * l[type]``
(``_fence.relaxed``, in C).  Why it is a bound: a real fence is such a cycle (it uses
each type at most its copies, so each group at most the group's copies), and it pays at
most the sum added back.  One group is the plain relaxation (the tally is the number of
pieces); groups of one type each would be the boundary search's sets.  Every round's
cycle is a plane under the bound as a function of the prices; the next prices are the
best those planes allow near the best so far (Kelley's cutting planes in a box, a linear
program), so the rounds raise the price of types used too often and lower the others,
and stop when the planes show that no prices do better.  Every value met is a valid
bound and the least is kept.  Overlaps and the junction of the cycle's last piece
with its first are treated as in the boundary search.

With ``prove = L``, the dynamic program drops every state through which no cycle
(without the tally) can reach L + 1, so a round either finds a cycle above L exactly or
shows that none reaches L + 1: then L is the bound.  ``grouped_bound`` runs the plain
rounds, then splits the types by their prices into groups and runs tallied rounds, and
splits finer when those reach their limit; a finer split's rounds first run the first
split's tallies forward and backward, and skip the states where no cycle of those can
reach L + 1 (a finer tally's path is a coarser one's).
"""

from __future__ import annotations

import array
import itertools
import math
import time
from collections.abc import Callable, Sequence

import attrs
from ortools.linear_solver import pywraplp

from polytile_core.plugin import PieceType
from polytile_enclosure._fence import relaxed
from polytile_enclosure.fence import visits

ROUNDING = 1e-6  # doubles add areas and prices: a value this close above a whole number may be it
# The box the prices may move in, about the best so far: from prices of 0, and from given
# prices (a warm start).  It doubles after a step that gains at least GROW times what the
# linear program promised, and halves after STALL rounds in a row that lower nothing.  On
# the 35 hexominoes the plain rounds reach the plain relaxation's limit (1,613.91) in 127
# rounds from prices of 0; the pentominoes' in 30.
BOX, WARM_BOX = 1.0, 0.25
GROW = 0.5
STALL = 5
# With a level to prove, a layer lists each live state's edges (the moves that may still
# reach it) once, for all its tallies, unless they are more than this (16 bytes each).
EDGES_MOST = 1 << 25


@attrs.frozen
class RelaxedBound:
    """The least bound met (floored to an integer: pockets are whole cells), the
    prices that gave it, and the work done."""

    bound: int
    prices: tuple[float, ...]
    rounds: int
    seconds: float
    groups: int = 1  # the groups of the tally that gave the bound
    at_limit: bool = False  # no prices do better with this tally: more rounds would not lower it
    uses: tuple[int, ...] = ()  # of each type, on the cycle of the round that gave the bound


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


def _priced(makers: dict[Move, list[tuple[int, int]]], prices: list[float], group: list[int]) -> tuple[bytes, bytes]:
    """For each move and group the type of that group that gains most from it at these
    prices (the others can never beat it there: they count against the same tally), as
    int32 rows (type, d_in, dx, dy, area2) grouped by d_out."""
    by_out: list[list[int]] = [[], [], [], []]
    for (d_in, d_out, dx, dy), offers in makers.items():
        best: dict[int, tuple[int, int]] = {}
        for area2, kind in offers:
            held = best.get(group[kind])
            if held is None or area2 - 2 * prices[kind] > held[0] - 2 * prices[held[1]]:
                best[group[kind]] = (area2, kind)
        for area2, kind in best.values():
            by_out[d_out] += [kind, d_in, dx, dy, area2]
    starts = [0]
    for rows in by_out:
        starts.append(starts[-1] + len(rows) // 5)
    return array.array("i", [value for rows in by_out for value in rows]).tobytes(), array.array("i", starts).tobytes()


def _next_prices(
    cycles: list[tuple[float, list[int]]], centre: Sequence[float], box: float, copies: Sequence[int]
) -> tuple[list[float], float]:
    """The prices within ``box`` of ``centre`` (and at least 0) that minimise the bound
    the cycles met so far give, ``max(0, max over cycles (area - prices . uses) + prices
    . copies)`` (a linear program, OR-Tools' GLOP), and that least value: a lower
    estimate of the bound anywhere in the box, since the true bound is a maximum over
    more cycles."""
    solver = pywraplp.Solver.CreateSolver("GLOP")
    price = [solver.NumVar(max(0.0, p - box), p + box, f"l{kind}") for kind, p in enumerate(centre)]
    top = solver.NumVar(0.0, solver.infinity(), "top")  # never below 0: no pieces at all enclose 0
    paid = sum(p * c for p, c in zip(price, copies, strict=True))
    for area, uses in cycles:
        solver.Add(top >= area - sum(price[kind] * u for kind, u in enumerate(uses) if u) + paid)
    solver.Minimize(top)
    if solver.Solve() != pywraplp.Solver.OPTIMAL:
        return list(centre), -math.inf  # (not met: the program is bounded and feasible) no estimate
    return [max(0.0, p.solution_value()) for p in price], solver.Objective().Value()


def relaxed_bound(
    pieces: Sequence[PieceType],
    neighbours: int,
    *,
    rounds: int = 40,
    time_limit: float | None = None,
    prices: Sequence[float] | None = None,
    groups: Sequence[Sequence[int]] | None = None,
    coarse: Sequence[Sequence[int]] | None = None,
    threads: int = 2,
    prove: int | None = None,
    on_round: Callable[[int, float, int], None] | None = None,
) -> RelaxedBound | None:
    """The least bound over at most ``rounds`` rounds, each at the prices the cycles of
    the rounds before suggest (``_next_prices``, in a box around the best prices so far:
    Kelley's cutting planes with a trust region); None if the first round did not finish
    within ``time_limit``.  ``prices``: where the prices start (a warm start, e.g. the
    plain rounds' prices for the tallied ones); any prices give a valid bound.
    ``groups``: the types of each group (one group by default); ``prove``: stop with the
    bound ``prove`` as soon as a round shows that no cycle reaches ``prove + 1``;
    ``coarse``: a coarser split (each of its groups a union of ``groups``) whose cycles,
    forward and backward, first rule out the states none of them can take to ``prove + 1``
    (the finer tallies skip those: their paths are paths of the coarser ones);
    ``on_round(round, bound, live states)`` after each round; ``threads`` for the C
    dynamic program.  The rounds stop early when the cycles met show that no prices in
    the box do better (``at_limit``: the best this tally can give, as convexity makes a
    best in the box a best anywhere)."""
    started = time.perf_counter()
    makers, reach = _moves(pieces, neighbours)
    copies = [piece.maximum or 0 for piece in pieces]
    reaches = sorted((reach[kind] for kind, count in enumerate(copies) for _ in range(count)), reverse=True)
    n = len(reaches)
    radius = sum(reaches) // 2 + 1
    # After c pieces the path is at most the c farthest-reaching pieces from the origin, and
    # must be able to come back with the n - c farthest-reaching left.
    limits = array.array("i", [min(radius, sum(reaches[:c]), sum(reaches[: n - c])) for c in range(n + 1)]).tobytes()
    groups = [list(range(len(pieces)))] if groups is None else [list(g) for g in groups]
    group = [0] * len(pieces)
    for number, members in enumerate(groups):
        for kind in members:
            group[kind] = number
    if sorted(kind for members in groups for kind in members) != list(range(len(pieces))):
        raise ValueError("the groups must split the piece types")
    capacity = array.array("i", [sum(copies[kind] for kind in members) for members in groups]).tobytes()
    coarse_of = array.array(
        "i", _coarse_of(groups, coarse) if coarse is not None and prove is not None else []
    ).tobytes()
    group_of = array.array("i", group).tobytes()
    rotations_closed = all(piece.kind in ("free", "one-sided") for piece in pieces)
    starts = [0] if rotations_closed else [0, 1, 2, 3]
    prices = list(prices) if prices is not None else [0.0] * len(pieces)
    box = BOX if not any(prices) else WARM_BOX
    cycles: list[tuple[float, list[int]]] = []  # (area, uses per type) of each round's cycle
    best, best_prices, done, idle, estimate, at_limit = math.inf, tuple(prices), 0, 0, -math.inf, False
    best_uses: tuple[int, ...] = ()
    while done < rounds:
        moves, move_start = _priced(makers, prices, group)
        penalties = array.array("d", prices).tobytes()
        paid = sum(p * c for p, c in zip(prices, copies, strict=True))
        answers = []
        for start in starts:
            left = None if time_limit is None else time_limit - (time.perf_counter() - started)
            if left is not None and left <= 0:
                break
            floor = 2 * (prove + 1 - paid - ROUNDING) if prove is not None else -1e300
            answer = relaxed(
                moves,
                move_start,
                penalties,
                limits,
                group_of,
                capacity,
                start,
                left or 0.0,
                threads,
                floor,
                EDGES_MOST,
                coarse_of,
            )
            if answer is None:
                break
            answers.append(answer)
        if len(answers) < len(starts):
            break  # out of time: an unfinished round bounds nothing
        done += 1
        value, _, uses, live = max(answers)
        # No pieces at all enclose 0, so the bound is never below 0 (when no cycle closes, it is 0).
        bound = max(0.0, value / 2 + paid)
        if on_round is not None:
            on_round(done, bound, live)
        if prove is not None and bound + ROUNDING < prove + 1:
            best, best_prices = prove, tuple(prices)
            break
        if value / 2 > -1e299:  # the cycle found: its area, unpriced, and its uses
            cycles.append((value / 2 + sum(p * u for p, u in zip(prices, uses, strict=True)), list(uses)))
        if bound < best:
            # A step that gained at least half what the program promised: the box may grow.
            if best < math.inf and best - bound >= GROW * (best - estimate):
                box *= 2
            best, best_prices, best_uses, idle = bound, tuple(prices), tuple(uses), 0
        else:
            idle += 1
            if idle == STALL:
                box, idle = box / 2, 0
        prices, estimate = _next_prices(cycles, best_prices, box, copies)
        if estimate >= best - ROUNDING:
            at_limit = True  # no prices in the box (so none at all) do better
            break
    if best == math.inf:
        return None
    seconds = time.perf_counter() - started
    return RelaxedBound(math.floor(best + ROUNDING), best_prices, done, seconds, at_limit=at_limit, uses=best_uses)


def _coarse_of(groups: Sequence[Sequence[int]], coarse: Sequence[Sequence[int]]) -> list[int]:
    """For each group, the coarser group that holds it."""
    holder = {kind: number for number, members in enumerate(coarse) for kind in members}
    found = []
    for members in groups:
        numbers = {holder.get(kind, -1) for kind in members}
        if len(numbers) != 1 or -1 in numbers:
            raise ValueError("each group must lie in one group of the coarser split")
        found.append(numbers.pop())
    return found


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
        bound = relaxed_bound(rest, neighbours, rounds=rounds, prices=start)
        assert bound is not None
        found.append((piece.name, bound.bound))
    return found


GROUPS = 3  # the one-sided pentominoes: 309 with 2 groups, 308 (their optimum) with 3
# A tally at its limit above the level to prove is refined, one group halved (``halved``),
# while the finer split has at most this many tallies in a layer (the memory and time of a
# round grow with them): the 4-neighbour pentominoes' 161 is proved with 5 groups (78);
# the 35 hexominoes go from 3 groups (120) to 4 (455 or 497; about 9 s and 500 MB a
# round), not to 5 (922 to 1,862; up to 37 s a round).
TALLIES = 500


def halved(split: Sequence[Sequence[int]], limit: RelaxedBound) -> list[list[int]]:
    """The split with one group cut in two by price, the dearer half first: the group in
    which the cycle at the limit repeats one type most (the one it fills with that type;
    ties: the larger group)."""
    chosen = max(
        (g for g in range(len(split)) if len(split[g]) > 1),
        key=lambda g: (max(limit.uses[kind] for kind in split[g]), len(split[g])),
    )
    members = sorted(split[chosen], key=lambda kind: -limit.prices[kind])
    half = len(members) // 2
    return [*map(list, split[:chosen]), members[:half], members[half:], *map(list, split[chosen + 1 :])]


def widest_layer(split: Sequence[Sequence[int]], copies: Sequence[int]) -> int:
    """The most tallies in one layer (tallies whose counts add up to the same number)."""
    layers = [1]
    for members in split:
        room = sum(copies[kind] for kind in members)
        wider = [0] * (len(layers) + room)
        for placed, ways in enumerate(layers):
            for more in range(room + 1):
                wider[placed + more] += ways
        layers = wider
    return max(layers)


def grouped_bound(
    pieces: Sequence[PieceType],
    neighbours: int,
    *,
    prove: int,
    rounds: int = 40,
    groups: int = GROUPS,
    tallies: int = TALLIES,
    dearest: Sequence[int] = (),
    time_limit: float | None = None,
    threads: int = 2,
    on_round: Callable[[int, float, int], None] | None = None,
    plain: RelaxedBound | None = None,
) -> RelaxedBound | None:
    """A bound aimed at proving that no fence beats ``prove`` (a fence found): first
    ``rounds`` plain rounds (one group; ``plain``: their result if they were run
    already, as the fence finder's route does), then, unless they prove it, the types split
    into ``groups`` groups by their prices (the dearest together: the types a relaxed
    cycle repeats) and ``rounds`` tallied rounds from those prices, within the time
    left.  When those stop at their limit (no prices do better with that split) above
    ``prove``, a group is halved (``halved``) and ``rounds`` more run from the
    prices reached, as long as the finer split has at most ``tallies`` tallies in a layer.
    ``dearest`` (sizes, e.g. ``(2, 2, 2, 2)``): split instead the dearest types
    into groups of those sizes, dearest first, and the others into one group.  The
    least bound of them all; None if the first plain round did not finish."""
    ends = list(itertools.accumulate(dearest))
    if dearest and (ends[-1] >= len(pieces) or min(dearest) < 1):
        raise ValueError("dearest: sizes of at least 1 that leave some types for the last group")
    started = time.perf_counter()
    before = plain.seconds if plain is not None else 0.0  # the seconds reported count every part
    if plain is None:
        plain = relaxed_bound(
            pieces, neighbours, rounds=rounds, time_limit=time_limit, threads=threads, on_round=on_round
        )
    if plain is None or plain.bound <= prove:
        return plain
    order = sorted(range(len(pieces)), key=lambda kind: -plain.prices[kind])
    if dearest:
        split = [order[end - size : end] for size, end in zip(dearest, ends, strict=True)] + [order[ends[-1] :]]
    elif groups < 2 or len(pieces) < groups:
        return plain
    else:
        split = [order[len(order) * g // groups : len(order) * (g + 1) // groups] for g in range(groups)]
    best, prices, done, first = plain, plain.prices, plain.rounds, split
    copies = [piece.maximum or 0 for piece in pieces]
    while True:
        left = None if time_limit is None else time_limit - (time.perf_counter() - started)
        if left is not None and left <= 0:
            break
        tallied = relaxed_bound(
            pieces,
            neighbours,
            rounds=rounds,
            time_limit=left,
            prices=prices,
            groups=split,
            coarse=first if split is not first else None,
            threads=threads,
            prove=prove,
            on_round=on_round,
        )
        if tallied is None:
            break
        done += tallied.rounds
        if tallied.bound < best.bound:
            best = attrs.evolve(tallied, groups=len(split))
        if best.bound <= prove or not tallied.at_limit or max(map(len, split)) < 2:
            break
        finer = halved(split, tallied)
        if widest_layer(finer, copies) > tallies:
            break
        split, prices = finer, tallied.prices
    return attrs.evolve(best, rounds=done, seconds=before + time.perf_counter() - started)
