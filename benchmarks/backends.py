"""Time the CP-SAT and SCIP backends on find one and count, and SCIP's two ways of
counting (its counting mode, and polytile's enumerator that lists every tiling).
Prints the median of ``--repeat`` runs per cell; writes nothing.

    .venv/bin/python benchmarks/backends.py [--repeat 3] [--time-limit 120]

Each time is one ``backend.solve`` call on a model built beforehand (so it includes the
backend's own model translation, not the tiling builder).  A run that hits the time
limit is shown as ``>limit`` with the solutions seen so far.
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time

from polytile_cpsat import CpsatBackend
from polytile_scip import ScipBackend, ScipOptions

from polytile_core.host.builtin import CLASSIC_FAMILIES
from polytile_core.host.contracts import BackendResult, Mode, SolveSettings
from polytile_core.model.geometry import Region, cells_from_rows
from polytile_core.model.problem import PieceType
from polytile_core.model.tiling import build_tiling
from polytile_core.output.results import Termination


def unlimited(name, rows):
    return PieceType(name, cells_from_rows(rows), "free", 0, None)


PENTOMINOES = tuple(PieceType(name, cells_from_rows(rows)) for name, rows in CLASSIC_FAMILIES["pentominoes"].items())
L_TROMINO = unlimited("L", ["#.", "##"])
DOMINO = unlimited("D", ["##"])
L_TETROMINOES_20 = (PieceType("L", cells_from_rows(["#.", "#.", "##"]), "free", 20, 20),)
NINE_MINUS_CORNER = Region(cell for cell in Region.rectangle(9, 9).cells if cell != (8, 8))
EIGHT_MINUS_CENTRE = Region(
    cell for cell in Region.rectangle(8, 8).cells if cell not in {(3, 3), (3, 4), (4, 3), (4, 4)}
)

# (name, region, pieces, known count from docs/oracles.md)
FIND_ONE = [
    ("6x10, 12 pentominoes", Region.rectangle(10, 6), PENTOMINOES, 9356),
    ("8x8 minus centre, 12 pentominoes", EIGHT_MINUS_CENTRE, PENTOMINOES, 520),
    ("9x9 minus corner, 20 L-tetrominoes", NINE_MINUS_CORNER, L_TETROMINOES_20, 1_709_594),
    ("5x18 L-trominoes", Region.rectangle(18, 5), (L_TROMINO,), 1_168_512),
]
COUNT = [
    ("5x6 L-trominoes", Region.rectangle(6, 5), (L_TROMINO,), 72),
    ("5x9 L-trominoes", Region.rectangle(9, 5), (L_TROMINO,), 384),
    ("6x6 dominoes", Region.rectangle(6, 6), (DOMINO,), 6728),
    ("5x12 L-trominoes", Region.rectangle(12, 5), (L_TROMINO,), 8544),
    ("8x8 minus centre, 12 pentominoes", EIGHT_MINUS_CENTRE, PENTOMINOES, 520),
]
BACKENDS = {
    "cpsat": lambda: CpsatBackend(),
    "scip": lambda: ScipBackend(),
    "scip (cpsolver emphasis)": lambda: ScipBackend(ScipOptions(emphasis="cpsolver")),
    "scip (counting mode)": lambda: ScipBackend(ScipOptions(counting="scip")),
    "scip (enumerator)": lambda: ScipBackend(ScipOptions(counting="nogood")),
}


def timed(backend, model, mode: Mode, time_limit: float) -> tuple[float, BackendResult]:
    seen: list[list[int]] = []
    start = time.perf_counter()
    result = backend.solve(model, SolveSettings(mode=mode, time_limit=time_limit), seen.append, threading.Event())
    seconds = time.perf_counter() - start
    return seconds, result


def cell(backend_factory, model, mode: Mode, expected, repeat, time_limit) -> str:
    times = []
    for _ in range(repeat):
        seconds, result = timed(backend_factory(), model, mode, time_limit)
        times.append(seconds)
        if result.termination == Termination.TIME_LIMIT:
            return f">{time_limit:g} s ({result.count} so far)" if mode == "count" else f">{time_limit:g} s"
        if mode == "count" and result.count != expected:
            raise AssertionError(f"wrong count {result.count}, expected {expected}")
    return f"{statistics.median(times):.2f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--time-limit", type=float, default=120.0)
    parser.add_argument("--only", choices=("one", "count"), help="run one table only")
    arguments = parser.parse_args()
    repeat, limit = arguments.repeat, arguments.time_limit
    print(f"median of {repeat}, time limit {limit:g} s per run")
    tables: list[tuple[Mode, list, tuple[str, ...]]] = [
        ("one", FIND_ONE, ("cpsat", "scip", "scip (cpsolver emphasis)")),
        ("count", COUNT, ("cpsat", "scip (counting mode)", "scip (enumerator)")),
    ]
    for mode, instances, backends in tables:
        if arguments.only not in (None, mode):
            continue
        print(f"\n| {mode} | count | " + " | ".join(backends) + " |")
        print("|---|---|" + "---|" * len(backends))
        for name, region, pieces, expected in instances:
            model = build_tiling(pieces, region)
            row = [cell(BACKENDS[backend], model, mode, expected, repeat, limit) for backend in backends]
            print(f"| {name} | {expected:,} | " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()
