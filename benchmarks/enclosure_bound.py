"""The relaxed bound (plugins/enclosure/polytile_enclosure/bound.py): an upper bound on
the largest pocket that needs no table per set of pieces, so it reaches the sets the
boundary search refuses (the 18 one-sided pentominoes, the 35 hexominoes).  Prints, per
set, the bound after the rounds, the rounds and the seconds, beside the
best fence known (a lower bound, for the gap).  With --groups G (2 or more), the bound
the fence finder's route uses (``grouped_bound``): the plain rounds, then the types split
into G groups and tallied rounds that try to prove the best fence known; with
--dearest 2,2,2,2, the dearest types in pairs and the rest in one group instead; --progress
prints every round.  With --needed, also the first step of a branch-and-bound: for each
piece, the plain bound without it; a piece whose bound is at most the best fence known
is in every fence that would beat that fence.

    .venv/bin/python benchmarks/enclosure_bound.py                       # every set below
    .venv/bin/python benchmarks/enclosure_bound.py --groups 3            # the route's bound
    .venv/bin/python benchmarks/enclosure_bound.py --only hexominoes --groups 3 --progress
    .venv/bin/python benchmarks/enclosure_bound.py --only hexominoes --dearest 2,2,2,2 --rounds 200
    .venv/bin/python benchmarks/enclosure_bound.py --only hexominoes --rounds 100 --needed
    .venv/bin/python benchmarks/enclosure_bound.py --only heptominoes --rounds 400 --seconds 3600 --progress

The heptomino with a hole (P7-043) is bounded as its filled octomino, plus its hole's
cell (``holes_filled``).
"""

from __future__ import annotations

import argparse
import time

import attrs

from polytile_core.config.pipeline import resolve_pieces
from polytile_core.config.schema import PieceSpec
from polytile_core.host.registry import Host
from polytile_core.model.geometry import KING_STEPS, components, normalise
from polytile_core.model.problem import PieceType

# (pieces, rule, best fence known): proved optima (oracles.md, docs/enclosure.md: the
# one-sided pentominoes' 308 and 382 by the boundary search), or the best published
# fence (35 hexominoes: 1,597, Lyader and Podhaisky).
SETS = [
    ("free tetrominoes (5)", PieceSpec(family="tetrominoes"), 8, 9),
    ("free tetrominoes (5)", PieceSpec(family="tetrominoes"), 4, 15),
    ("free pentominoes (12)", PieceSpec(family="pentominoes"), 8, 128),
    ("free pentominoes (12)", PieceSpec(family="pentominoes"), 4, 161),
    ("one-sided pentominoes (18)", PieceSpec(family="n-ominoes", n=5, kind="one-sided"), 8, 308),
    ("one-sided pentominoes (18)", PieceSpec(family="n-ominoes", n=5, kind="one-sided"), 4, 382),
    ("free hexominoes (35)", PieceSpec(family="n-ominoes", n=6), 8, 1597),
    ("free heptominoes (108), the holed one filled", PieceSpec(family="n-ominoes", n=7), 8, 19675),
]


def holes_filled(pieces: list[PieceType]) -> tuple[list[PieceType], int]:
    """The pieces with each hole filled, and the cells the holes may add to a pocket.

    A hole of one cell whose only free neighbour is across one corner (the heptomino
    P7-043) joins the pocket, if at all, as a dead end: a fence with the piece filled
    has a pocket of all the other cells, so the filled set's bound plus one per such hole
    bounds the real set.  Any other hole is refused (the argument does not cover it)."""
    filled, allowance = [], 0
    for piece in pieces:
        cells = set(piece.cells)
        box = {
            (x, y)
            for x in range(-1, 1 + max(x for x, _ in cells) + 1)
            for y in range(-1, 1 + max(y for _, y in cells) + 1)
        }
        holes = components(box - cells)[1:]  # the largest is the outside
        for hole in holes:
            (x, y), *more = hole
            free = [(x + dx, y + dy) for dx, dy in KING_STEPS if (x + dx, y + dy) not in cells]
            if more or len(free) != 1:
                raise SystemExit(f"{piece.name}: a hole this bound does not cover (one cell, one free corner)")
            cells.add((x, y))
            allowance += 1
        filled.append(attrs.evolve(piece, cells=normalise(cells)) if holes else piece)
    return filled, allowance


def main() -> None:
    from polytile_enclosure.bound import grouped_bound, needed_types, relaxed_bound

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="only the sets whose name contains this")
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--needed", action="store_true", help="also bound each set without each piece")
    parser.add_argument("--groups", type=int, default=1, help="tallied rounds with this many groups (default 1: none)")
    parser.add_argument(
        "--dearest",
        help="tallied rounds with the dearest types in groups of these sizes (e.g. 2,2,2,2), the rest in one",
    )
    parser.add_argument("--progress", action="store_true", help="print every round")
    parser.add_argument("--seconds", type=float, help="stop each set's rounds after this long (the least bound met)")
    parser.add_argument("--threads", type=int, default=2, help="threads of the dynamic program")
    arguments = parser.parse_args()
    print("| pieces | rule | best fence known | relaxed bound | groups | rounds | seconds |")
    print("|---|---|---|---|---|---|---|")
    for name, spec, neighbours, known in SETS:
        if arguments.only and arguments.only not in name:
            continue
        pieces, allowance = holes_filled(list(resolve_pieces([spec], Host())))
        started = time.perf_counter()

        def said(done: int, bound: float, live: int, started: float = started) -> None:
            if arguments.progress:
                print(
                    f"    round {done}: {bound:.2f}, {live} live states, {time.perf_counter() - started:.0f} s",
                    flush=True,
                )

        limits = {"rounds": arguments.rounds, "time_limit": arguments.seconds, "threads": arguments.threads}
        if arguments.groups > 1 or arguments.dearest:
            dearest = tuple(int(size) for size in arguments.dearest.split(",")) if arguments.dearest else ()
            found = grouped_bound(
                pieces, neighbours, prove=known, groups=arguments.groups, dearest=dearest, on_round=said, **limits
            )
        else:
            found = relaxed_bound(pieces, neighbours, on_round=said, **limits)
        assert found is not None
        rule = "classic" if neighbours == 8 else "4 neighbours"
        bound = f"{found.bound + allowance} ({found.bound} + {allowance} for the holes)" if allowance else found.bound
        print(
            f"| {name} | {rule} | {known} | {bound} | {found.groups} | {found.rounds} | {found.seconds:.1f} |",
            flush=True,
        )
        if arguments.needed:
            started = time.perf_counter()
            without = needed_types(pieces, neighbours, above=known, prices=found.prices, rounds=arguments.rounds)
            needed = [piece for piece, bound in without if bound <= known]
            print(
                f"    without each piece: {', '.join(f'{piece} {bound}' for piece, bound in without)}; "
                f"{len(needed)} of {len(without)} pieces are in every fence above {known} "
                f"({time.perf_counter() - started:.0f} s)",
                flush=True,
            )


if __name__ == "__main__":
    main()
