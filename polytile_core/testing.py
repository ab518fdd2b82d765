"""What a plugin author needs to test a plugin against known answers.

- ``fresh_host(*plugins)``: a Host with entry-point loading off and only the given plugins.
- ``INSTANCES``: small tiling instances with known counts, each naming where its count
  comes from (docs/oracles.md, or this module's brute force for the one-sided and
  fixed variants, which ``tests/unit/test_testing.py`` checks against the published counts too).
- ``tilings_brute_force`` / ``count_tilings_brute_force``: polytile's one independent
  tiling lister and counter, with its own rotations and its own search (it shares no
  code with the model builder or any backend); ``count_pictures_brute_force`` counts the
  tilings up to symmetry by the published rule (``picture_symmetries``), with its own
  geometry too.  ``tests/integration/test_crosscheck.py`` checks every way polytile counts against them,
  on the seeded examples of ``random_pipeline``.
  ``placement_problems``: an independent check of one tiling, in the same spirit.
- ``ReferenceBackend`` (registered as ``reference`` by ``REFERENCE_PLUGIN``): an
  exhaustive depth-first search over any 0-1 model, for tiny models; a stand-in backend
  for tests of pipelines, and a second opinion on optima.
- ``BackendConformance``: subclass it in a backend plugin's tests, set ``backend_name`` and
  ``plugin``, and pytest runs the checks every backend must pass.

Nothing here needs pytest at import time, so the module is usable from scripts too.
"""

from __future__ import annotations

import functools
import random
import threading
import time
from collections.abc import Iterable, Iterator

import attrs

from polytile_core import hookimpl
from polytile_core.convert import structure
from polytile_core.host.builtin import CLASSIC_FAMILIES
from polytile_core.host.contracts import BackendResult, Mode, SolveSettings
from polytile_core.host.registry import Host
from polytile_core.model.geometry import Cell, Kind, Region
from polytile_core.model.problem import PieceType
from polytile_core.model.tiling import build_tiling
from polytile_core.model.zero_one import Model
from polytile_core.output.results import Found, Termination

UNLIMITED = None


def fresh_host(*plugins: object) -> Host:
    """A Host that knows the core's built-ins and exactly ``plugins`` (modules or objects
    with ``polytile_register_*`` hook implementations): installed plugins stay out."""
    return Host(autoload=False, plugins=plugins)


# --------------------------------------------------------------------------- instances


def _piece(name: str, rows: list[str], kind: Kind = "free", minimum: int = 0, maximum: int | None = UNLIMITED):
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
    Instance("2x6 dominoes", Region.rectangle(6, 2), (_piece("D", DOMINO),), 13, f"{ORACLES}: Fibonacci F(7)"),
    Instance(
        "3x3 minus a corner, dominoes",
        Region.from_rows(["##.", "###", "###"]),
        (_piece("D", DOMINO),),
        4,
        f"{ORACLES}: Reid's example",
    ),
    Instance(
        "2x4, two L-tetrominoes",
        Region.rectangle(4, 2),
        (_piece("L", L_TETROMINO, minimum=2, maximum=2),),
        2,
        f"{ORACLES}: Garvie & Burkardt 2022",
    ),
    Instance("4x4 dominoes", Region.rectangle(4, 4), (_piece("D", DOMINO),), 36, f"{ORACLES}: OEIS A004003"),
    Instance("5x6 L-trominoes", Region.rectangle(6, 5), (_piece("L", L_TROMINO),), 72, f"{ORACLES}: OEIS A084478"),
    Instance(
        "5x3 L-trominoes (impossible)",
        Region.rectangle(3, 5),
        (_piece("L", L_TROMINO),),
        0,
        f"{ORACLES}: OEIS A084478",
    ),
    Instance(
        "two components (2x2 and 2x3), dominoes",
        Region.from_rows(["##.###", "##.###"]),
        (_piece("D", DOMINO),),
        6,
        f"{ORACLES}: 2x2 and 2x3 dominoes, 2 x 3 (Fibonacci)",
    ),
    Instance(
        "3x3 ring around a hole, dominoes",
        Region.from_rows(["###", "#.#", "###"]),
        (_piece("D", DOMINO),),
        2,
        BRUTE,
    ),
    Instance(
        "2x4, two one-sided L-tetrominoes",
        Region.rectangle(4, 2),
        (_piece("L", L_TETROMINO, "one-sided", 2, 2),),
        1,
        BRUTE,
    ),
    Instance(
        "2x4, two fixed L-tetrominoes (impossible)",
        Region.rectangle(4, 2),
        (_piece("L", L_TETROMINO, "fixed", 2, 2),),
        0,
        BRUTE,
    ),
    Instance(
        "4x4, one-sided L- and S-tetrominoes",
        Region.rectangle(4, 4),
        (_piece("L", L_TETROMINO, "one-sided"), _piece("S", S_TETROMINO, "one-sided")),
        3,
        BRUTE,
    ),
    Instance(
        "4x4, fixed horizontal dominoes and at most 4 fixed vertical ones",
        Region.rectangle(4, 4),
        (_piece("H", DOMINO, "fixed"), _piece("V", ["#", "#"], "fixed", maximum=4)),
        26,
        BRUTE,
    ),
    Instance(
        "4x4, two fixed L-tromino orientations and fixed horizontal dominoes",
        Region.rectangle(4, 4),
        (_piece("A", L_TROMINO, "fixed"), _piece("B", ["##", ".#"], "fixed"), _piece("H", DOMINO, "fixed")),
        11,
        BRUTE,
    ),
    Instance(
        "4x4, at most 2 dominoes, 1 to 3 squares, I-tetrominoes",
        Region.rectangle(4, 4),
        (_piece("D", DOMINO, maximum=2), _piece("O", SQUARE, minimum=1, maximum=3), _piece("I", ["####"])),
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
LARGE = Instance("8x8 dominoes", Region.rectangle(8, 8), (_piece("D", DOMINO),), 12_988_816, f"{ORACLES}: OEIS A004003")


def optimisation_instance() -> tuple[Model, str]:
    """A tiling model with an objective (as many L-trominoes as possible in 4×4 with
    dominoes), and a description; its optimum comes from ``ReferenceBackend``."""
    pieces = (_piece("D", DOMINO), _piece("L", L_TROMINO))
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


# --------------------------------------------------------------------------- brute force


def _turn(cells: Iterable[Cell]) -> set[Cell]:
    return {(-y, x) for x, y in cells}


def _mirror(cells: Iterable[Cell]) -> set[Cell]:
    return {(-x, y) for x, y in cells}


def _at_origin(cells: Iterable[Cell]) -> frozenset[Cell]:
    cells = list(cells)
    low_x, low_y = min(x for x, _ in cells), min(y for _, y in cells)
    return frozenset((x - low_x, y - low_y) for x, y in cells)


def own_orientations(cells: Iterable[Cell], kind: str) -> set[frozenset[Cell]]:
    """The orientations of a shape, computed here without polytile's geometry module."""
    current = set(cells)
    found = set()
    for _ in range(1 if kind == "fixed" else 4):
        for mirrored in (False, True) if kind == "free" else (False,):
            found.add(_at_origin(_mirror(current) if mirrored else current))
        current = _turn(current)
    return found


Tiling = frozenset[tuple[str, frozenset[Cell]]]


def tilings_brute_force(region_cells: Iterable[Cell], pieces: Iterable[PieceType]) -> Iterator[Tiling]:
    """Every tiling, as a set of (piece name, cells), by covering the first empty cell (top
    row first) in every way.

    Independent of the model builder and of every backend: its own orientations, its
    own search, multiplicities checked at the end (``maximum`` None is unlimited); a
    branch stops early only when the cells left are fewer than the copies still needed cover.
    """
    pieces = list(pieces)
    shapes = [sorted(own_orientations(piece.cells, piece.kind), key=sorted) for piece in pieces]
    used = [0] * len(pieces)
    placed: list[tuple[str, frozenset[Cell]]] = []

    def search(empty: frozenset[Cell]) -> Iterator[Tiling]:
        needed = sum(max(piece.minimum - used[i], 0) * len(piece.cells) for i, piece in enumerate(pieces))
        if len(empty) < needed:
            return
        if not empty:
            yield frozenset(placed)
            return
        first_x, first_y = min(empty, key=lambda cell: (cell[1], cell[0]))
        for index, piece in enumerate(pieces):
            if piece.maximum is not None and used[index] >= piece.maximum:
                continue
            for shape in shapes[index]:
                anchor_x, anchor_y = min(shape, key=lambda cell: (cell[1], cell[0]))
                cells = frozenset((x - anchor_x + first_x, y - anchor_y + first_y) for x, y in shape)
                if cells <= empty:
                    used[index] += 1
                    placed.append((piece.name, cells))
                    yield from search(empty - cells)
                    placed.pop()
                    used[index] -= 1

    return search(frozenset(region_cells))


def count_tilings_brute_force(region_cells: Iterable[Cell], pieces: Iterable[PieceType]) -> int:
    """Number of tilings (``tilings_brute_force``, counted)."""
    return sum(1 for _ in tilings_brute_force(region_cells, pieces))


def _plane_symmetries() -> list:
    """The eight symmetries of the square as maps on sets of cells: four turns, each
    with and without a mirror."""
    maps = []
    for turns in range(4):
        for mirrored in (False, True):

            def move(cells, turns=turns, mirrored=mirrored):
                cells = _mirror(cells) if mirrored else set(cells)
                for _ in range(turns):
                    cells = _turn(cells)
                return cells

            maps.append(move)
    return maps


def picture_symmetries(region_cells: Iterable[Cell], pieces: Iterable[PieceType]) -> list:
    """The symmetries that count when tilings are compared as pictures, by the published
    rule: a symmetry of the region whose image of every piece's allowed orientations is
    the allowed orientations of a piece with the same multiplicity bounds (pieces alike
    in both keep their order).  Each as a map on tilings; computed with this module's own
    geometry, for checking polytile's distinct counts."""
    region = frozenset(region_cells)
    pieces = list(pieces)
    alike: dict[tuple, list[str]] = {}
    for piece in pieces:
        key = (frozenset(own_orientations(piece.cells, piece.kind)), piece.minimum, piece.maximum)
        alike.setdefault(key, []).append(piece.name)
    found = []
    for move in _plane_symmetries():
        moved_region = move(region)
        if _at_origin(moved_region) != _at_origin(region):
            continue
        shift_x = min(x for x, _ in region) - min(x for x, _ in moved_region)
        shift_y = min(y for _, y in region) - min(y for _, y in moved_region)
        renaming: dict[str, str] = {}
        for (forms, low, high), names in alike.items():
            partners = alike.get((frozenset(_at_origin(move(form)) for form in forms), low, high), [])
            if len(partners) != len(names):
                break
            renaming.update(zip(names, partners, strict=True))
        else:

            def act(tiling: Tiling, move=move, shift=(shift_x, shift_y), renaming=renaming) -> Tiling:
                return frozenset(
                    (renaming[name], frozenset((x + shift[0], y + shift[1]) for x, y in move(cells)))
                    for name, cells in tiling
                )

            found.append(act)
    return found


def count_pictures_brute_force(region_cells: Iterable[Cell], pieces: Iterable[PieceType]) -> int:
    """Number of tilings up to ``picture_symmetries``: every tiling listed, each class
    counted at its smallest member."""
    region_cells, pieces = list(region_cells), list(pieces)
    symmetries = picture_symmetries(region_cells, pieces)

    def image(tiling: Tiling) -> tuple:
        return tuple(sorted((name, tuple(sorted(cells))) for name, cells in tiling))

    return len({min(image(act(tiling)) for act in symmetries) for tiling in tilings_brute_force(region_cells, pieces)})


def tiling_problems(instance: Instance, model: Model, ones: Iterable[int]) -> list[str]:
    """What is wrong with a tiling reported as model variables (empty when it is a true
    tiling); see ``placement_problems``."""
    placed, problems = [], []
    for var in ones:
        placement = model.placements.get(var)
        if placement is None:
            problems.append(f"variable {var} is not a placement")
        else:
            placed.append((placement.piece, placement.cells))
    return problems + placement_problems(instance.region.cells, instance.pieces, placed)


def placement_problems(
    region_cells: Iterable[Cell], pieces: Iterable[PieceType], placed: Iterable[tuple[str, Iterable[Cell]]]
) -> list[str]:
    """What is wrong with a tiling given as ``(piece name, cells)`` pairs (empty when it is
    a true tiling): every cell covered once, each placement a copy of its piece in an
    allowed orientation, each piece within its multiplicity.  Shares no code with the
    model builder or any backend."""
    problems = []
    region = set(region_cells)
    covered: dict[Cell, int] = {}
    by_name = {piece.name: piece for piece in pieces}
    used = dict.fromkeys(by_name, 0)
    for name, cells in placed:
        cells = tuple(cells)
        piece = by_name.get(name)
        if piece is None:
            problems.append(f"{name!r} is not one of the pieces")
            continue
        used[name] += 1
        low_x = min(x for x, _ in cells)
        low_y = min(y for _, y in cells)
        if frozenset((x - low_x, y - low_y) for x, y in cells) not in own_orientations(piece.cells, piece.kind):
            problems.append(f"{name} at {sorted(cells)} is not a {piece.kind} orientation of it")
        for cell in cells:
            covered[cell] = covered.get(cell, 0) + 1
    twice = sorted(cell for cell, times in covered.items() if times > 1)
    missing = sorted(region - set(covered))
    outside = sorted(set(covered) - region)
    for what, cells in (("covered twice", twice), ("not covered", missing), ("outside the region", outside)):
        if cells:
            problems.append(f"cells {what}: {cells}")
    for name, times in used.items():
        piece = by_name[name]
        if times < piece.minimum or (piece.maximum is not None and times > piece.maximum):
            problems.append(f"{name} used {times} times, allowed {piece.minimum}..{piece.maximum}")
    return problems


# --------------------------------------------------------------------------- random examples

RANDOM_SHAPES = {
    "M": ["#"],
    "D": ["##"],
    "I3": ["###"],
    "V3": ["#.", "##"],
    "I4": ["####"],
    "O": ["##", "##"],
    "T": ["###", ".#."],
    "L": ["#.", "#.", "##"],
    "S": [".##", "##."],
    "P": ["##", "##", "#."],
}
# A reflection (or, for a fixed domino, a turn) carries each of these onto its partner:
# with the same kind and copies, such a pair makes a symmetry count that turns one into
# the other.  Only for the kinds where the two differ (a free L is also a J).
PARTNERS = {
    "L": ("J", [".#", ".#", "##"], ("one-sided", "fixed")),
    "S": ("Z", ["##.", ".##"], ("one-sided", "fixed")),
    "P": ("Q", ["##", "##", ".#"], ("one-sided", "fixed")),
    "D": ("V", ["#", "#"], ("fixed",)),
}


def _random_fill(
    rng: random.Random, width: int, height: int, shapes: list[list[frozenset[Cell]]], holes: bool
) -> tuple[set[Cell], list[int]]:
    """Cover a width × height box greedily at random: each empty cell, in reading order,
    gets a random orientation of a random piece that fits there, or becomes a hole when
    none fits (or, with ``holes``, now and then anyway).  Returns the cells covered (a
    region with at least that tiling) and how often each piece was used; a monomino at
    most twice, or it would fill any region in too many ways."""
    empty = {(x, y) for x in range(width) for y in range(height)}
    covered: set[Cell] = set()
    used = [0] * len(shapes)
    while empty:
        first_x, first_y = min(empty, key=lambda cell: (cell[1], cell[0]))
        choices = [(index, shape) for index, forms in enumerate(shapes) for shape in forms]
        rng.shuffle(choices)
        for index, shape in choices if not holes or rng.random() > 0.1 else ():
            if len(shape) == 1 and used[index] >= 2:
                continue
            anchor_x, anchor_y = min(shape, key=lambda cell: (cell[1], cell[0]))
            cells = {(x - anchor_x + first_x, y - anchor_y + first_y) for x, y in shape}
            if cells <= empty:
                empty -= cells
                covered |= cells
                used[index] += 1
                break
        else:
            empty.discard((first_x, first_y))
    return covered, used


def _random_copies(rng: random.Random, used: int, name: str) -> dict:
    """Copies that allow the ``used`` of a known tiling (now and then one off, so the
    example may have no tiling): exactly once (no key), an exact count, a range (maybe
    open above), or unlimited; monominoes at most twice."""
    few = name == "M"
    if rng.random() < 0.1 and not few:
        used = max(used + rng.choice([-1, 1]), 0)
    ways = ["count", "range"] + (["once"] if used == 1 else []) + ([] if few else ["unlimited"])
    how = rng.choice(ways)
    if how == "count":
        return {"count": used}
    if how == "range":
        low = rng.randint(0, used)
        if few:
            return {"min": low, "max": 2}
        if rng.random() < 0.3:
            return {"min": low}
        return {"min": low, "max": used + rng.randint(0, 2)}
    return {"unlimited": True} if how == "unlimited" else {}


def random_pipeline(seed: int) -> dict:
    """Example ``seed`` (the same on every run and every Python): a pipeline table with
    one to three pieces, each free, one-sided or fixed (with its ``PARTNERS`` of the same
    kind, and mostly the same copies, half of the time), and a region of up to 5×4 cells
    (3×4 with a monomino): in two examples of three the cells a random fill covered
    (holes, notches, several components; at least one tiling), in the third the whole
    rectangle (symmetric; with a tiling when a random fill found one).  Copies: once, an
    exact count, a range or unlimited, around those of the fill."""
    rng = random.Random(seed)
    chosen = []
    for name in rng.sample(sorted(RANDOM_SHAPES), rng.randint(1, 3)):
        kind = rng.choice(["free", "one-sided", "fixed"])
        chosen.append((name, RANDOM_SHAPES[name], kind))
        if name in PARTNERS and kind in PARTNERS[name][2] and rng.random() < 0.5:
            chosen.append((*PARTNERS[name][:2], kind))
    chosen = chosen[:3]
    # Monominoes fill the gaps of any tiling: a smaller box keeps the counts small.
    width, height = rng.randint(1, 5 if "M" not in [name for name, _, _ in chosen] else 3), rng.randint(2, 4)
    if rng.random() < 0.5:
        width, height = height, width
    shapes = [sorted(own_orientations(_piece(name, rows).cells, kind), key=sorted) for name, rows, kind in chosen]
    if rng.random() < 1 / 3:
        whole = {(x, y) for x in range(width) for y in range(height)}
        for _ in range(20):  # a fill with no hole, when one is found, gives the copies
            covered, used = _random_fill(rng, width, height, shapes, holes=False)
            if covered == whole:
                break
        covered = whole
    else:
        covered, used = _random_fill(rng, width, height, shapes, holes=True)
        covered = covered or {(x, y) for x in range(width) for y in range(height)}
    pieces = []
    copies_of: dict[str, dict] = {}
    for (name, rows, kind), times in zip(chosen, used, strict=True):
        partner_of = next((first for first, (second, *_) in PARTNERS.items() if second == name), None)
        if partner_of in copies_of and rng.random() < 0.8:
            copies = copies_of[partner_of]  # the same copies: the pair makes a symmetry count
        else:
            copies = _random_copies(rng, times, name)
        copies_of[name] = copies
        pieces.append({"name": name, "shape": rows, "kind": kind, **copies})
    rows = ["".join("#" if (x, y) in covered else "." for x in range(width)) for y in range(height)]
    return {"region": {"rows": rows}, "pieces": pieces}


def random_instance(rng: random.Random, area: int) -> dict:
    """A pipeline table of about ``area`` cells that nobody tuned for: a box with a few
    random holes (or a random fill's notches), one to six trominoes, tetrominoes or
    pentominoes, each free, one-sided or fixed, copies once, exact, a range or
    unlimited around those of a random fill (so most have tilings, some none).  Draw
    ``rng`` from a fresh seed and print the seed on failure."""
    pool = {
        f"{name}{size}": rows
        for size, family in ((3, "trominoes"), (4, "tetrominoes"), (5, "pentominoes"))
        for name, rows in CLASSIC_FAMILIES[family].items()
    }
    chosen = [
        (name, pool[name], rng.choice(["free", "one-sided", "fixed"]))
        for name in rng.sample(sorted(pool), rng.randint(1, 6))
    ]
    width = rng.randint(max(2, int(area**0.5) - 3), int(area**0.5) + 3)
    height = max(2, area // width)
    shapes = [sorted(own_orientations(_piece(name, rows).cells, kind), key=sorted) for name, rows, kind in chosen]
    covered, used = _random_fill(rng, width, height, shapes, holes=rng.random() < 0.5)
    if rng.random() < 0.5:  # the whole box less a few random cells, copies still from the fill
        box = [(x, y) for x in range(width) for y in range(height)]
        covered = set(box) - set(rng.sample(box, rng.randint(0, 3)))
    pieces = [
        {"name": name, "shape": rows, "kind": kind, **_random_copies(rng, times, name)}
        for (name, rows, kind), times in zip(chosen, used, strict=True)
    ]
    rows = ["".join("#" if (x, y) in covered else "." for x in range(width)) for y in range(height)]
    return {"region": {"rows": rows}, "pieces": pieces}


def cells_of_table(table: dict) -> list[Cell]:
    """The region of a pipeline table with ``rows``, read here rather than by polytile."""
    return [(x, y) for y, row in enumerate(table["region"]["rows"]) for x, char in enumerate(row) if char == "#"]


def pieces_of_table(table: dict) -> list[PieceType]:
    """The pieces of a pipeline table with shapes, read here rather than by polytile."""
    found = []
    for piece in table["pieces"]:
        if piece.get("unlimited"):
            low, high = 0, UNLIMITED
        elif "count" in piece:
            low = high = piece["count"]
        else:
            low, high = piece.get("min", 0), piece.get("max")
            if "min" not in piece and "max" not in piece:
                low = high = 1
        found.append(_piece(piece["name"], piece["shape"], piece.get("kind", "free"), low, high))
    return found


# --------------------------------------------------------------------------- reference backend


class _Interrupted(Exception):
    pass


class ReferenceBackend:
    """Exhaustive depth-first search over a 0-1 model with bound propagation.

    Small enough to read and trust, slow on anything but tiny models (and recursive: one
    level per branching, so at most about 900 variables).  Optimises by looking at every
    solution.  Reports solutions projected on the decision variables,
    each once.
    """

    def __init__(self, options=None):
        self.options = options

    def solve(self, model: Model, settings: SolveSettings, on_solution, stop: threading.Event) -> BackendResult:
        deadline = None if settings.time_limit is None else time.monotonic() + settings.time_limit
        rows = [(list(c.terms), c.sense, c.rhs) for c in model.constraints]
        rows_of: list[list[int]] = [[] for _ in range(model.num_variables)]
        for number, (terms, _, _) in enumerate(rows):
            for var, _ in terms:
                rows_of[var].append(number)
        value: list[int | None] = [None] * model.num_variables
        seen: set[tuple[int, ...]] = set()
        best: dict = {"value": None}
        stop_at_first = settings.mode in ("one", "optimize") and model.objective is None
        enumerate_all = settings.mode in ("all", "count")

        def activity_bounds(terms):
            low = high = 0
            for var, coefficient in terms:
                if value[var] is None:
                    low += min(coefficient, 0)
                    high += max(coefficient, 0)
                else:
                    low += coefficient * value[var]
                    high += coefficient * value[var]
            return low, high

        def propagate(trail: list[int], queue: list[int]) -> bool:
            """Fix what the rows in ``queue`` (and rows they touch) force; False on a contradiction."""
            while queue:
                terms, sense, rhs = rows[queue.pop()]
                low, high = activity_bounds(terms)
                if (sense != ">=" and low > rhs) or (sense != "<=" and high < rhs):
                    return False
                for var, coefficient in terms:
                    if value[var] is not None or coefficient == 0:
                        continue
                    # Setting var to the value that raises the activity by |coefficient|:
                    raise_to = 1 if coefficient > 0 else 0
                    if sense != ">=" and low + abs(coefficient) > rhs:
                        value[var] = 1 - raise_to
                    elif sense != "<=" and high - abs(coefficient) < rhs:
                        value[var] = raise_to
                    else:
                        continue
                    trail.append(var)
                    queue.extend(rows_of[var])
                    break
            return True

        def report():
            ones = tuple(var for var in model.decision if value[var] == 1)
            if ones in seen:
                return
            seen.add(ones)
            if enumerate_all:
                on_solution(list(ones))
                return
            objective = model.objective_value(ones)
            if best["value"] is None or (
                objective is not None and (objective > best["value"] if model.maximize else objective < best["value"])
            ):
                best["value"] = objective if objective is not None else 0
                on_solution(list(ones))
            if stop_at_first:
                raise _Interrupted

        def search():
            if stop.is_set() or (deadline is not None and time.monotonic() > deadline):
                raise _Interrupted
            free = next((var for var in range(model.num_variables) if value[var] is None), None)
            if free is None:
                report()
                return
            for choice in (1, 0):
                trail = [free]
                value[free] = choice
                if propagate(trail, list(rows_of[free])):
                    search()
                for var in trail:
                    value[var] = None

        completed = True
        try:
            if propagate([], list(range(len(rows)))):
                search()
        except _Interrupted:
            completed = stop_at_first and not stop.is_set() and bool(seen)
        found_any = bool(seen)
        count = len(seen) if enumerate_all else None
        if not completed:
            cut_short = Termination.INTERRUPTED if stop.is_set() else Termination.TIME_LIMIT
            return BackendResult(cut_short, Found.FEASIBLE if found_any else Found.NONE, "stopped", count)
        if not found_any:
            return BackendResult(Termination.COMPLETED, Found.INFEASIBLE, "exhausted", count)
        if model.objective is not None and not enumerate_all:
            optimum = float(best["value"])
            return BackendResult(Termination.COMPLETED, Found.OPTIMAL, "exhausted", None, optimum, optimum)
        return BackendResult(Termination.COMPLETED, Found.FEASIBLE, "exhausted", count)


class _ReferencePlugin:
    @hookimpl
    def polytile_register_backends(self, register):
        register("reference", ReferenceBackend, help="exhaustive search for tiny models (polytile_core.testing)")


REFERENCE_PLUGIN = _ReferencePlugin()


# --------------------------------------------------------------------------- conformance


def solve_with(backend, model: Model, mode: Mode, *, time_limit: float | None = None, stop_after: int | None = None):
    """Solve and collect what was streamed; ``stop_after`` sets the stop event once that
    many solutions have arrived.  Returns (BackendResult, streamed solutions, seconds)."""
    stop = threading.Event()
    streamed: list[list[int]] = []

    def on_solution(ones):
        streamed.append(sorted(ones))
        if stop_after is not None and len(streamed) >= stop_after:
            stop.set()

    started = time.perf_counter()
    result = backend.solve(model, SolveSettings(mode=mode, time_limit=time_limit), on_solution, stop)
    return result, streamed, time.perf_counter() - started


class BackendConformance:
    """Checks every backend must pass.  Subclass it in your plugin's tests::

        class TestMyBackend(BackendConformance):
            backend_name = "mine"
            plugin = polytile_mine          # the module your entry point names
            options = {"some_option": 1}    # as in [options.mine], optional

    Counts come from ``INSTANCES`` (published results or the independent brute force).
    """

    backend_name: str = ""
    plugin: object = None
    options: dict = {}
    # Seconds a backend may take beyond a time limit or after the stop event.
    slack: float = 5.0

    def pytest_generate_tests(self, metafunc) -> None:
        """One test per instance (pytest calls this for a class's own tests), so a failure
        names the instance, without this module importing pytest."""
        choices = {
            "instance": INSTANCES,
            "impossible": tuple(instance for instance in INSTANCES if instance.count == 0),
            "mode": ("one", "count"),
        }
        for name, values in choices.items():
            if name in metafunc.fixturenames:
                metafunc.parametrize(name, values, ids=[getattr(value, "name", value) for value in values])

    def make_backend(self):
        registration = fresh_host(self.plugin).get("backends", self.backend_name)
        options = None
        if registration.options is not None:
            options = structure(dict(self.options), registration.options, path=f"options.{self.backend_name}")
        return registration.provides(options)

    def test_find_one_gives_a_valid_tiling(self, instance: Instance):
        model = instance.model()
        result, streamed, _ = solve_with(self.make_backend(), model, "one")
        if instance.count == 0:
            assert (result.termination, result.found) == (Termination.COMPLETED, Found.INFEASIBLE)
            assert not streamed
            return
        assert (result.termination, result.found) == (Termination.COMPLETED, Found.FEASIBLE)
        assert streamed, "no solution streamed"
        assert tiling_problems(instance, model, streamed[-1]) == []

    def test_counts_match_known_results(self, instance: Instance):
        result, _, _ = solve_with(self.make_backend(), instance.model(), "count")
        expected_found = Found.FEASIBLE if instance.count else Found.INFEASIBLE
        assert (result.termination, result.found, result.count) == (
            Termination.COMPLETED,
            expected_found,
            instance.count,
        ), f"expected {instance.count} ({instance.source}), raw status {result.raw_status}"

    def test_enumeration_streams_every_tiling_once(self, instance: Instance):
        model = instance.model()
        result, streamed, _ = solve_with(self.make_backend(), model, "all")
        assert result.termination == Termination.COMPLETED
        assert len(streamed) == instance.count, f"expected {instance.count} ({instance.source})"
        assert len({tuple(ones) for ones in streamed}) == len(streamed), "a tiling came twice"
        for ones in streamed:
            assert tiling_problems(instance, model, ones) == []
        assert result.count in (None, instance.count)

    def test_stop_ends_enumeration_soon(self):
        backend = self.make_backend()
        result, streamed, seconds = solve_with(backend, LARGE.model(), "all", stop_after=3)
        assert result.termination == Termination.INTERRUPTED
        assert 3 <= len(streamed) < LARGE.count
        assert seconds < self.slack

    def test_infeasible_is_proved(self, impossible: Instance, mode: Mode):
        result, streamed, _ = solve_with(self.make_backend(), impossible.model(), mode)
        assert (result.termination, result.found) == (Termination.COMPLETED, Found.INFEASIBLE)
        assert result.count in ((0,) if mode == "count" else (None, 0))
        assert not streamed

    def test_time_limit_is_reported_not_a_wrong_count(self):
        backend = self.make_backend()
        limit = 0.5
        result, streamed, seconds = solve_with(backend, LARGE.model(), "count", time_limit=limit)
        assert result.termination == Termination.TIME_LIMIT, result.raw_status
        assert result.found in (Found.FEASIBLE, Found.NONE)
        assert result.count is None or result.count < LARGE.count
        assert seconds < limit + self.slack

    def test_optimises_to_the_reference_optimum(self):
        model, description = optimisation_instance()
        optimum = reference_optimum()
        result, streamed, _ = solve_with(self.make_backend(), model, "optimize")
        assert (result.termination, result.found) == (Termination.COMPLETED, Found.OPTIMAL), description
        assert result.objective == optimum, description
        assert result.bound is not None and abs(result.bound - optimum) < 1e-6, description
        assert streamed and model.objective_value(streamed[-1]) == optimum
        assert model.check(streamed[-1]) == []
