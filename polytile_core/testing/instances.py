"""Small tiling instances with known counts, each naming where its count comes from,
and an optimisation instance whose optimum the reference backend proves."""

from __future__ import annotations

import functools
import threading

import attrs

from polytile_core.host.contracts import SolveSettings
from polytile_core.host.registry import Host
from polytile_core.model.geometry import Kind, Region
from polytile_core.model.problem import PieceType
from polytile_core.model.tiling import build_tiling
from polytile_core.model.zero_one import Model
from polytile_core.testing.reference import ReferenceBackend

UNLIMITED = None


def fresh_host(*plugins: object) -> Host:
    """A Host that knows the core's built-ins and exactly ``plugins`` (modules or objects
    with ``polytile_register_*`` hook implementations): installed plugins stay out."""
    return Host(autoload=False, plugins=plugins)


def piece_type(
    name: str, rows: list[str], kind: Kind = "free", minimum: int = 0, maximum: int | None = UNLIMITED
) -> PieceType:
    cells = tuple(sorted((x, y) for y, row in enumerate(rows) for x, char in enumerate(row) if char == "#"))
    return PieceType(name, cells, kind, minimum, maximum)


@attrs.frozen
class Instance:
    """A tiling instance with its number of tilings and where that number comes from."""

    name: str
    region: Region
    pieces: tuple[PieceType, ...]
    count: int
    source: str

    def model(self) -> Model:
        return build_tiling(self.pieces, self.region)


DOMINO = ["##"]
L_TROMINO = ["#.", "##"]
L_TETROMINO = ["#.", "#.", "##"]
S_TETROMINO = [".##", "##."]
SQUARE = ["##", "##"]
ORACLES = "docs/oracles.md"
BRUTE = "brute force (polytile_core.testing.count_tilings_brute_force)"

INSTANCES: tuple[Instance, ...] = (
    Instance("2x6 dominoes", Region.rectangle(6, 2), (piece_type("D", DOMINO),), 13, f"{ORACLES}: Fibonacci F(7)"),
    Instance(
        "3x3 minus a corner, dominoes",
        Region.from_rows(["##.", "###", "###"]),
        (piece_type("D", DOMINO),),
        4,
        f"{ORACLES}: Reid's example",
    ),
    Instance(
        "2x4, two L-tetrominoes",
        Region.rectangle(4, 2),
        (piece_type("L", L_TETROMINO, minimum=2, maximum=2),),
        2,
        f"{ORACLES}: Garvie & Burkardt 2022",
    ),
    Instance("4x4 dominoes", Region.rectangle(4, 4), (piece_type("D", DOMINO),), 36, f"{ORACLES}: OEIS A004003"),
    Instance("5x6 L-trominoes", Region.rectangle(6, 5), (piece_type("L", L_TROMINO),), 72, f"{ORACLES}: OEIS A084478"),
    Instance(
        "5x3 L-trominoes (impossible)",
        Region.rectangle(3, 5),
        (piece_type("L", L_TROMINO),),
        0,
        f"{ORACLES}: OEIS A084478",
    ),
    Instance(
        "two components (2x2 and 2x3), dominoes",
        Region.from_rows(["##.###", "##.###"]),
        (piece_type("D", DOMINO),),
        6,
        f"{ORACLES}: 2x2 and 2x3 dominoes, 2 x 3 (Fibonacci)",
    ),
    Instance(
        "3x3 ring around a hole, dominoes",
        Region.from_rows(["###", "#.#", "###"]),
        (piece_type("D", DOMINO),),
        2,
        BRUTE,
    ),
    Instance(
        "2x4, two one-sided L-tetrominoes",
        Region.rectangle(4, 2),
        (piece_type("L", L_TETROMINO, "one-sided", 2, 2),),
        1,
        BRUTE,
    ),
    Instance(
        "2x4, two fixed L-tetrominoes (impossible)",
        Region.rectangle(4, 2),
        (piece_type("L", L_TETROMINO, "fixed", 2, 2),),
        0,
        BRUTE,
    ),
    Instance(
        "4x4, one-sided L- and S-tetrominoes",
        Region.rectangle(4, 4),
        (piece_type("L", L_TETROMINO, "one-sided"), piece_type("S", S_TETROMINO, "one-sided")),
        3,
        BRUTE,
    ),
    Instance(
        "4x4, fixed horizontal dominoes and at most 4 fixed vertical ones",
        Region.rectangle(4, 4),
        (piece_type("H", DOMINO, "fixed"), piece_type("V", ["#", "#"], "fixed", maximum=4)),
        26,
        BRUTE,
    ),
    Instance(
        "4x4, two fixed L-tromino orientations and fixed horizontal dominoes",
        Region.rectangle(4, 4),
        (piece_type("A", L_TROMINO, "fixed"), piece_type("B", ["##", ".#"], "fixed"), piece_type("H", DOMINO, "fixed")),
        11,
        BRUTE,
    ),
    Instance(
        "4x4, at most 2 dominoes, 1 to 3 squares, I-tetrominoes",
        Region.rectangle(4, 4),
        (piece_type("D", DOMINO, maximum=2), piece_type("O", SQUARE, minimum=1, maximum=3), piece_type("I", ["####"])),
        68,
        BRUTE,
    ),
)

# The introduction of Garvie & Burkardt (2022) as pipeline text, for tests to extend with
# [solve] and [options] tables: two L-tetrominoes in a 2×4 rectangle, 2 tilings (oracles.md).
TWO_L_TETROMINOES = """
[region]
width = 4
height = 2

[[pieces]]
name = "L"
shape = ["#.", "#.", "##"]
count = 2
"""

# Too many tilings to count in a fraction of a second: for the time-limit check.
LARGE = Instance(
    "8x8 dominoes", Region.rectangle(8, 8), (piece_type("D", DOMINO),), 12_988_816, f"{ORACLES}: OEIS A004003"
)


def optimisation_instance() -> tuple[Model, str]:
    """A tiling model with an objective (as many L-trominoes as possible in 4×4 with
    dominoes), and a description; its optimum comes from ``ReferenceBackend``."""
    pieces = (piece_type("D", DOMINO), piece_type("L", L_TROMINO))
    model = build_tiling(pieces, Region.rectangle(4, 4))
    model.objective = {var: 1 for var, placed in model.placements.items() if placed.piece == "L"}
    model.maximize = True
    return model, "4x4 with dominoes and L-trominoes, most L-trominoes"


@functools.cache
def reference_optimum() -> float:
    """The optimum of ``optimisation_instance``, found by ``ReferenceBackend``'s exhaustive search."""
    model, _ = optimisation_instance()
    result = ReferenceBackend().solve(model, SolveSettings(mode="optimize"), lambda ones: None, threading.Event())
    assert result.objective is not None, "the optimisation instance has a solution"
    return result.objective
