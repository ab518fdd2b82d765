"""The relaxed bound (plugins/enclosure/polytile_enclosure/bound.py): an upper bound on
the largest pocket that needs no table per set of pieces, so it reaches the sets the
boundary search refuses (the 18 one-sided pentominoes, the 35 hexominoes).  Prints, per
set, the bound after the subgradient rounds, the rounds and the seconds, beside the
best fence known (a lower bound, for the gap).  With --groups G (2 or more), the bound
the fence finder's route uses (``grouped_bound``): the plain rounds, then the types split
into G groups and tallied rounds that try to prove the best fence known; --progress
prints every round.  With --needed, also the first step of a branch-and-bound: for each
piece, the plain bound without it; a piece whose bound is at most the best fence known
is in every fence that would beat that fence.

    .venv/bin/python benchmarks/enclosure_bound.py                       # every set below
    .venv/bin/python benchmarks/enclosure_bound.py --groups 3            # the route's bound
    .venv/bin/python benchmarks/enclosure_bound.py --only hexominoes --groups 3 --progress
    .venv/bin/python benchmarks/enclosure_bound.py --only hexominoes --rounds 100 --needed
"""

from __future__ import annotations

import argparse
import time

from polytile_core.config.pipeline import resolve_pieces
from polytile_core.config.schema import PieceSpec
from polytile_core.host.registry import Host

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
]


def main() -> None:
    from polytile_enclosure.bound import grouped_bound, needed_types, relaxed_bound

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="only the sets whose name contains this")
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--needed", action="store_true", help="also bound each set without each piece")
    parser.add_argument("--groups", type=int, default=1, help="tallied rounds with this many groups (default 1: none)")
    parser.add_argument("--progress", action="store_true", help="print every round")
    arguments = parser.parse_args()
    print("| pieces | rule | best fence known | relaxed bound | groups | rounds | seconds |")
    print("|---|---|---|---|---|---|---|")
    for name, spec, neighbours, known in SETS:
        if arguments.only and arguments.only not in name:
            continue
        pieces = resolve_pieces([spec], Host())
        started = time.perf_counter()

        def said(done: int, bound: float, live: int, started: float = started) -> None:
            if arguments.progress:
                print(
                    f"    round {done}: {bound:.2f}, {live} live states, {time.perf_counter() - started:.0f} s",
                    flush=True,
                )

        if arguments.groups > 1:
            found = grouped_bound(
                pieces, neighbours, prove=known, rounds=arguments.rounds, groups=arguments.groups, on_round=said
            )
        else:
            found = relaxed_bound(pieces, neighbours, target=known, rounds=arguments.rounds, on_round=said)
        assert found is not None
        rule = "classic" if neighbours == 8 else "4 neighbours"
        print(
            f"| {name} | {rule} | {known} | {found.bound} | {found.groups} | {found.rounds} | {found.seconds:.1f} |",
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
