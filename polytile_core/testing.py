"""What a plugin author needs to test a plugin against known answers.

- ``fresh_host(*plugins)``: a Host with entry-point loading off and only the given plugins.
- ``INSTANCES``: small tiling instances with known counts, each naming where its count
  comes from (docs/oracles.md, or this module's brute force for the one-sided and
  fixed variants, which ``tests/test_testing.py`` checks against the published counts too).
- ``count_tilings_brute_force``: an independent tiling counter with its own rotations and
  its own search (it shares no code with the model builder or any backend).
- ``ReferenceBackend`` (registered as ``reference`` by ``REFERENCE_PLUGIN``): an
  exhaustive depth-first search over any 0-1 model, for tiny models; a stand-in backend
  for tests of pipelines, and a second opinion on optima.
- ``BackendConformance``: subclass it in a backend plugin's tests, set ``backend_name`` and
  ``plugin``, and pytest runs the checks every backend must pass.

Nothing here needs pytest at import time, so the module is usable from scripts too.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Iterable

import attrs

from polytile_core import hookimpl
from polytile_core.convert import structure
from polytile_core.host.contracts import BackendResult, SolveSettings
from polytile_core.model.tiling import build_tiling
from polytile_core.model.geometry import Cell, Region
from polytile_core.host.registry import Host
from polytile_core.model.zero_one import Model
from polytile_core.model.problem import PieceType
from polytile_core.output.results import Found, Termination

UNLIMITED = None


def fresh_host(*plugins: object) -> Host:
    """A Host that knows the core's built-ins and exactly ``plugins`` (modules or objects
    with ``polytile_register_*`` hook implementations): installed plugins stay out."""
    return Host(autoload=False, plugins=plugins)


# --------------------------------------------------------------------------- instances


def _piece(name: str, rows: list[str], kind: str = "free", minimum: int = 0, maximum: int | None = UNLIMITED):
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
        "3x3 minus a corner, dominoes", Region.from_rows(["##.", "###", "###"]), (_piece("D", DOMINO),), 4,
        f"{ORACLES}: Reid's example",
    ),
    Instance(
        "2x4, two L-tetrominoes", Region.rectangle(4, 2), (_piece("L", L_TETROMINO, minimum=2, maximum=2),), 2,
        f"{ORACLES}: Garvie & Burkardt 2022",
    ),
    Instance("4x4 dominoes", Region.rectangle(4, 4), (_piece("D", DOMINO),), 36, f"{ORACLES}: OEIS A004003"),
    Instance("5x6 L-trominoes", Region.rectangle(6, 5), (_piece("L", L_TROMINO),), 72, f"{ORACLES}: OEIS A084478"),
    Instance(
        "5x3 L-trominoes (impossible)", Region.rectangle(3, 5), (_piece("L", L_TROMINO),), 0,
        f"{ORACLES}: OEIS A084478",
    ),
    Instance(
        "two components (2x2 and 2x3), dominoes", Region.from_rows(["##.###", "##.###"]), (_piece("D", DOMINO),), 6,
        f"{ORACLES}: 2x2 and 2x3 dominoes, 2 x 3 (Fibonacci)",
    ),
    Instance(
        "3x3 ring around a hole, dominoes", Region.from_rows(["###", "#.#", "###"]), (_piece("D", DOMINO),), 2, BRUTE,
    ),
    Instance(
        "2x4, two one-sided L-tetrominoes", Region.rectangle(4, 2),
        (_piece("L", L_TETROMINO, "one-sided", 2, 2),), 1, BRUTE,
    ),
    Instance(
        "2x4, two fixed L-tetrominoes (impossible)", Region.rectangle(4, 2),
        (_piece("L", L_TETROMINO, "fixed", 2, 2),), 0, BRUTE,
    ),
    Instance(
        "4x4, one-sided L- and S-tetrominoes", Region.rectangle(4, 4),
        (_piece("L", L_TETROMINO, "one-sided"), _piece("S", S_TETROMINO, "one-sided")), 3, BRUTE,
    ),
    Instance(
        "4x4, fixed horizontal dominoes and at most 4 fixed vertical ones", Region.rectangle(4, 4),
        (_piece("H", DOMINO, "fixed"), _piece("V", ["#", "#"], "fixed", maximum=4)), 26, BRUTE,
    ),
    Instance(
        "4x4, two fixed L-tromino orientations and fixed horizontal dominoes", Region.rectangle(4, 4),
        (_piece("A", L_TROMINO, "fixed"), _piece("B", ["##", ".#"], "fixed"), _piece("H", DOMINO, "fixed")), 11, BRUTE,
    ),
    Instance(
        "4x4, at most 2 dominoes, 1 to 3 squares, I-tetrominoes", Region.rectangle(4, 4),
        (_piece("D", DOMINO, maximum=2), _piece("O", SQUARE, minimum=1, maximum=3), _piece("I", ["####"])), 68, BRUTE,
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
    return result.objective


# --------------------------------------------------------------------------- brute force


def own_orientations(cells: Iterable[Cell], kind: str) -> set[frozenset[Cell]]:
    """The orientations of a shape, computed here without polytile's geometry module."""
    current = set(cells)
    found = set()
    for _ in range(1 if kind == "fixed" else 4):
        for mirrored in (False, True) if kind == "free" else (False,):
            shape = {(-x, y) for x, y in current} if mirrored else current
            low_x, low_y = min(x for x, _ in shape), min(y for _, y in shape)
            found.add(frozenset((x - low_x, y - low_y) for x, y in shape))
        current = {(-y, x) for x, y in current}
    return found


def count_tilings_brute_force(region_cells: Iterable[Cell], pieces: Iterable[PieceType]) -> int:
    """Number of tilings by covering the first empty cell (top row first) in every way.

    Independent of the model builder and of every backend: its own orientations, its
    own search, multiplicities checked at the end (``maximum`` None is unlimited).
    """
    pieces = list(pieces)
    shapes = [sorted(own_orientations(piece.cells, piece.kind), key=sorted) for piece in pieces]
    used = [0] * len(pieces)

    def search(empty: frozenset[Cell]) -> int:
        if not empty:
            return int(all(piece.minimum <= used[i] for i, piece in enumerate(pieces)))
        first_x, first_y = min(empty, key=lambda cell: (cell[1], cell[0]))
        total = 0
        for index, piece in enumerate(pieces):
            if piece.maximum is not None and used[index] >= piece.maximum:
                continue
            for shape in shapes[index]:
                anchor_x, anchor_y = min(shape, key=lambda cell: (cell[1], cell[0]))
                placed = frozenset((x - anchor_x + first_x, y - anchor_y + first_y) for x, y in shape)
                if placed <= empty:
                    used[index] += 1
                    total += search(empty - placed)
                    used[index] -= 1
        return total

    return search(frozenset(region_cells))


def tiling_problems(instance: Instance, model: Model, ones: Iterable[int]) -> list[str]:
    """What is wrong with a reported tiling (empty when it is a true tiling): every cell
    covered once, each piece within its multiplicity, each piece in an allowed orientation."""
    problems = []
    covered: dict[Cell, int] = {}
    used = {piece.name: 0 for piece in instance.pieces}
    by_name = {piece.name: piece for piece in instance.pieces}
    for var in ones:
        placed = model.placements.get(var)
        if placed is None:
            problems.append(f"variable {var} is not a placement")
            continue
        piece = by_name[placed.piece]
        used[piece.name] += 1
        low_x = min(x for x, _ in placed.cells)
        low_y = min(y for _, y in placed.cells)
        if frozenset((x - low_x, y - low_y) for x, y in placed.cells) not in own_orientations(piece.cells, piece.kind):
            problems.append(f"{piece.name} at {sorted(placed.cells)} is not a {piece.kind} orientation of it")
        for cell in placed.cells:
            covered[cell] = covered.get(cell, 0) + 1
    twice = sorted(cell for cell, times in covered.items() if times > 1)
    missing = sorted(set(instance.region.cells) - set(covered))
    outside = sorted(set(covered) - set(instance.region.cells))
    for what, cells in (("covered twice", twice), ("not covered", missing), ("outside the region", outside)):
        if cells:
            problems.append(f"cells {what}: {cells}")
    for name, times in used.items():
        piece = by_name[name]
        if times < piece.minimum or (piece.maximum is not None and times > piece.maximum):
            problems.append(f"{name} used {times} times, allowed {piece.minimum}..{piece.maximum}")
    return problems


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


def solve_with(backend, model: Model, mode: str, *, time_limit: float | None = None, stop_after: int | None = None):
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
            Termination.COMPLETED, expected_found, instance.count
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

    def test_infeasible_is_proved(self, impossible: Instance, mode: str):
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
