"""Why SCIP counts with probing off in presolving (docs/counting.md).

Part 1 counts the cross-check's seeded examples (``polytile_core.testing.random_pipeline``)
with SCIP's counting mode under polytile's counting settings, once as polytile runs it
and once with probing back on in presolving, against the brute force; it prints the
examples each gets wrong and how many end presolving with no variable left.  Part 2 times
three larger counts with probing on, probing off (polytile's choice) and all presolving
off, and prints the median of ``--repeat`` runs.

    .venv/bin/python benchmarks/scip_counting.py [--examples 3000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

from polytile_scip.backend import _COUNTING_PARAMETERS, build_scip

from polytile_core.model.geometry import Region, cells_from_rows
from polytile_core.model.problem import PieceType
from polytile_core.model.tiling import build_tiling
from polytile_core.testing import count_tilings_brute_force, pieces_of_table, random_pipeline

SETTINGS = {
    "probing on": {"propagating/probing/maxprerounds": -1},
    "polytile (probing off)": {},
    "no presolving": {"presolving/maxrounds": 0},
}


def scip_count(model, changes: dict) -> tuple[int, int]:
    """SCIP's counting mode under polytile's settings with ``changes``: (count, variables
    left after presolving)."""
    scip, _ = build_scip(model)
    scip.setParamsCountsols()
    for name, value in {**_COUNTING_PARAMETERS, **changes}.items():
        scip.setParam(name, value)
    scip.count()
    return scip.getNCountedSols(), scip.getNVars(transformed=True)


def miscounts(examples: int) -> None:
    wrong: dict[str, list[tuple[int, int, int]]] = {name: [] for name in ("probing on", "polytile (probing off)")}
    emptied = dict.fromkeys(wrong, 0)
    for seed in range(examples):
        table = random_pipeline(seed)
        region, pieces = Region.from_rows(table["region"]["rows"]), pieces_of_table(table)
        truth = count_tilings_brute_force(region.cells, pieces)
        model = build_tiling(tuple(pieces), region)
        for name in wrong:
            count, left = scip_count(model, SETTINGS[name])
            emptied[name] += left == 0
            if count != truth:
                wrong[name].append((seed, count, truth))
    for name, found in wrong.items():
        print(
            f"{name}: {len(found)} wrong of {examples} (seed, SCIP, brute force): {found}; "
            f"{emptied[name]} ended presolving with no variable"
        )


def timings(repeat: int) -> None:
    def unlimited(name, rows):
        return PieceType(name, cells_from_rows(rows), "free", 0, None)

    cases = [
        ("6x6 dominoes", Region.rectangle(6, 6), (unlimited("D", ["##"]),), 6728),
        ("5x9 L-trominoes", Region.rectangle(9, 5), (unlimited("L", ["#.", "##"]),), 384),
        ("5x12 L-trominoes", Region.rectangle(12, 5), (unlimited("L", ["#.", "##"]),), 8544),
    ]
    print("| count | " + " | ".join(SETTINGS) + " |")
    print("|---|" + "---|" * len(SETTINGS))
    for label, region, pieces, expected in cases:  # counts from docs/oracles.md (OEIS A004003, A084478)
        model = build_tiling(pieces, region)
        cells = []
        for changes in SETTINGS.values():
            seconds = []
            for _ in range(repeat):
                started = time.perf_counter()
                count, _ = scip_count(model, changes)
                seconds.append(time.perf_counter() - started)
                assert count == expected, (label, changes, count)
            cells.append(f"{statistics.median(seconds):.2f} s")
        print(f"| {label} | " + " | ".join(cells) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=3)
    arguments = parser.parse_args()
    miscounts(arguments.examples)
    timings(arguments.repeat)


if __name__ == "__main__":
    main()
