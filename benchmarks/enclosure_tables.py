"""Enclosure tables: the largest pocket k pieces of a set can fence in, for every k, each
value found and proved by the fence backend (the boundary search of docs/enclosure.md).

For each piece set and rule the dynamic program runs once; the backward walk then runs
once per k, over the cycles of at most k pieces (``BoundarySearch.solve(most_pieces=k)``),
so the value for k is the best over every k-subset of the pieces; each best fence is
measured again by the independent flood fill of ``check.py``.  Prints a Markdown
table for docs/enclosure.md, with the seconds each set took.

    .venv/bin/python benchmarks/enclosure_tables.py              # every set below, both rules
    .venv/bin/python benchmarks/enclosure_tables.py --only tetrominoes
    .venv/bin/python benchmarks/enclosure_tables.py --only one-sided --rule 4
"""

from __future__ import annotations

import argparse
import time

from polytile_core.config.pipeline import resolve_pieces
from polytile_core.config.schema import PieceSpec
from polytile_core.errors import InputError
from polytile_core.host.registry import Host

SETS = {
    "free tetrominoes (5)": PieceSpec(family="tetrominoes"),
    "one-sided tetrominoes (7)": PieceSpec(family="n-ominoes", n=4, kind="one-sided"),
    "free pentominoes (12)": PieceSpec(family="pentominoes"),
    "one-sided pentominoes (18)": PieceSpec(family="n-ominoes", n=5, kind="one-sided"),
}
RULES = {8: "classic", 4: "4 neighbours"}


def row(name: str, spec: PieceSpec, neighbours: int, workers: int) -> str:
    from polytile_enclosure.check import enclosed_pockets
    from polytile_enclosure.fence import BoundarySearch

    pieces = resolve_pieces([spec], Host())
    started = time.perf_counter()
    try:
        search = BoundarySearch(pieces, neighbours)
    except InputError as refused:
        return f"| {name} | {RULES[neighbours]} | not computed: {refused} | |"
    values = []
    for k in range(1, sum(piece.maximum or 0 for piece in pieces) + 1):
        outcome = search.solve(most_pieces=k, workers=workers)
        best = max((len(fenced.pocket) for fenced in outcome.fences), default=0)
        for fenced in outcome.fences:  # each fence measured again by the independent flood fill
            cells = [cell for _, placed in fenced.placements for cell in placed]
            xs, ys = [x for x, _ in cells], [y for _, y in cells]
            box = [(x, y) for x in range(min(xs), max(xs) + 1) for y in range(min(ys), max(ys) + 1)]
            assert enclosed_pockets(cells, box, neighbours)[0] == fenced.pocket, f"{name}: k = {k}"
        values.append(f"{best}" if outcome.proved and best == outcome.bound else f"{best} (bound {outcome.bound})")
    seconds = time.perf_counter() - started
    return f"| {name} | {RULES[neighbours]} | {', '.join(values)} | {seconds:.1f} s |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="only the sets whose name contains this")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rule", type=int, choices=sorted(RULES), help="only this rule (8 or 4 neighbours)")
    arguments = parser.parse_args()
    print("| pieces | rule | best pocket for k = 1, 2, … pieces (each proved) | seconds |")
    print("|---|---|---|---|")
    for name, spec in SETS.items():
        if arguments.only and arguments.only not in name:
            continue
        for neighbours in RULES:
            if arguments.rule and neighbours != arguments.rule:
                continue
            print(row(name, spec, neighbours, arguments.workers), flush=True)


if __name__ == "__main__":
    main()
