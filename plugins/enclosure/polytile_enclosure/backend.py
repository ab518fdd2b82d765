"""The fence backend: the boundary search (``fence.py``) answering an enclosure model.

It reads the problem the builder states (``Model.problem``), searches the plane, and
moves each fence it finds onto the model's board (turned if the pieces may turn), so
its answer is a point of the grid model: placements the model has, and the pocket's
interior cells.  A fence that fits no way is passed over, so on a board given by the
user the answer is the best fence on that board.
"""

from __future__ import annotations

import os
import random
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from polytile_core.plugin import (
    SQUARE_SYMMETRIES,
    BackendResult,
    Cell,
    Found,
    InputError,
    Model,
    OnSolution,
    Placement,
    SolveSettings,
    Termination,
    kind_symmetries,
    report_progress,
)
from polytile_enclosure import checkpoint
from polytile_enclosure.bound import RelaxedBound, grouped_bound, relaxed_bound
from polytile_enclosure.check import enclosed_pockets
from polytile_enclosure.fence import BoundarySearch, Fenced, Placements, TooManyPieces, canonical
from polytile_enclosure.finder import FinderSettings, Finding, OrderSearch, anneal
from polytile_enclosure.model import EnclosureProblem, interior_cells

PROOF = {
    8: "boundary dynamic program (classic rule: pieces joined edge to edge around the pocket), "
    "every better level refuted by the backward walk",
    4: "boundary dynamic program (4-neighbour rule: pieces touching at corners around the pocket), "
    "every better level refuted by the backward walk",
}
DEFAULT_BUDGET = 60.0  # seconds for the fence finder when [solve] sets no time_limit
# Of the finder's time, at most, for the bound's plain rounds before the search; half as
# much is kept for the tallied rounds after it.
BOUND_SHARE = 1 / 3
MARGIN = 0.05  # of the time budget, kept for reporting
SAVE_EVERY = 30.0  # seconds between checkpoints while better fences keep coming
MORE_SEARCH = 0.25  # seconds left after the bound worth searching again (dozens of orders of the hexominoes)


class FenceBackend:
    def solve(
        self, model: Model, settings: SolveSettings, on_solution: OnSolution, stop: threading.Event
    ) -> BackendResult:
        problem = model.problem
        if not isinstance(problem, EnclosureProblem):
            raise InputError('the fence backend solves problem = "enclose" only', path="solve.backend")
        if problem.score != "region":
            raise InputError(
                'the fence backend proves the largest pocket (score = "region"); '
                'score = "pockets" needs an ILP backend such as backend = "cpsat"',
                path="options.enclose.score",
            )
        board = BoardFit(model, problem)
        try:
            search = BoundarySearch(problem.pieces, problem.neighbours)
        except TooManyPieces as too_many:
            if problem.list_optimal:
                raise InputError(
                    f"list_optimal needs the proof, and {too_many.message.split(';')[0]}",
                    path="options.enclose.list_optimal",
                ) from None
            return FenceFinder(problem, board, settings, stop).run(on_solution)
        listing = Listing(board, on_solution) if problem.list_optimal else None
        outcome = search.solve(
            accept=board.place,
            every=listing.add if listing else None,
            time_limit=settings.time_limit,
            workers=settings.workers or os.cpu_count() or 1,
            stop=stop,
        )
        for fenced in outcome.fences:
            on_solution(board.variables(fenced))
        best = max((len(fenced.pocket) for fenced in outcome.fences), default=None)
        if listing is not None and listing.size is not None:
            best = max(best or 0, listing.size)
        if outcome.proved and best is None:
            on_solution([])  # nothing can be enclosed: every piece parked, area 0
            best = 0
        details = {
            "method": "boundary search (docs/enclosure.md): the pieces around the pocket in a cycle, "
            "the area summed by the shoelace formula",
            "bound proof": PROOF[problem.neighbours] if outcome.proved else "the bound the backward walk had reached",
            "levels walked": outcome.levels,
            "fences checked": outcome.cycles_checked,
            "dynamic program seconds": round(outcome.seconds_dp, 2),
        }
        count = None
        if listing is not None:
            count = len(listing.seen)
            details["listed"] = f"{count} optimal fences, one per class under {listing.group}" + (
                "" if outcome.proved else " (stopped before the listing was complete)"
            )
            details["fences walked"] = outcome.listed
        if outcome.proved:
            return BackendResult(
                Termination.COMPLETED, Found.OPTIMAL, "proved", count, objective=best, bound=best, details=details
            )
        termination = Termination.INTERRUPTED if stop.is_set() else Termination.TIME_LIMIT
        found = Found.FEASIBLE if best is not None else Found.NONE
        return BackendResult(termination, found, "stopped", count, objective=best, bound=outcome.bound, details=details)


class FenceFinder:
    """The route for sets too large for the proof: the relaxed bound's plain rounds
    (``bound.py``) give prices, the fence finder (``finder.py``), aimed with them, looks
    for fences, the bound's tallied rounds try to prove the best, and the search goes on
    in the time they leave; never "optimal" unless the fence and the bound meet."""

    def __init__(self, problem: EnclosureProblem, board: BoardFit, settings: SolveSettings, stop: threading.Event):
        self.started = time.perf_counter()
        self.problem, self.board, self.stop = problem, board, stop
        self.pieces = list(problem.pieces)
        self.budget = settings.time_limit if settings.time_limit is not None else DEFAULT_BUDGET
        self.budget_said = (
            f"{self.budget:.1f} s (what [solve] time_limit left after building)"
            if settings.time_limit is not None
            else f"{DEFAULT_BUDGET:g} s (the default: [solve] sets no time_limit)"
        )
        self.seed = settings.seed if settings.seed is not None else random.randrange(2**32)
        self.path = Path(problem.checkpoint) if problem.checkpoint else None
        self.saved: checkpoint.Checkpoint | None = None
        if self.path is not None:
            checkpoint.writable(self.path)  # before any search: never write over a file not ours
            self.saved = checkpoint.load(self.path, self.pieces, problem.neighbours)
        self.threads = settings.workers or os.cpu_count() or 1
        self.search = OrderSearch(self.pieces, problem.neighbours, FinderSettings(threads=self.threads))
        self.best: Fenced | None = None  # on the board
        self.best_plane: Fenced | None = self.saved.fence if self.saved else None
        self.best_order = self.saved.order if self.saved else None
        self.last_save = time.perf_counter()
        self.evaluations, self.search_seconds = 0, 0.0  # the finder's work over the run
        if self.best_plane is not None:
            self.best = board.place(self.best_plane)

    def left(self) -> float:
        """Seconds left, less a margin for handing over the answer before the run's deadline."""
        return self.budget * (1 - MARGIN) - (time.perf_counter() - self.started)

    def run(self, on_solution: OnSolution) -> BackendResult:
        share = BOUND_SHARE if self.problem.bound_rounds else 0.0
        start = (
            self.saved.order
            if self.saved
            else random.Random(self.seed).sample(range(len(self.search.items)), len(self.search.items))
        )
        plain = self.prices(self.left() * share) if share else None
        report_progress(stage="looking for fences (fence finder)")
        if self.best is not None:
            report_progress(best=len(self.best.pocket))
        found = self.look(self.left() - self.budget * (1 - MARGIN) * share / 2, start)
        if self.best is not None:  # its variables now: the model takes none after the run's deadline
            on_solution(self.board.variables(self.best))
        bound = plain
        target = len(self.best.pocket) if self.best else 0
        if plain is not None and plain.bound > target and not self.stop.is_set():
            report_progress(stage="computing the bound (relaxed dynamic program, tallied rounds)")
            bound = grouped_bound(
                self.pieces,
                self.problem.neighbours,
                prove=target,
                rounds=self.problem.bound_rounds,
                time_limit=max(self.left(), 1e-3),
                threads=self.threads,
                plain=plain,
            )
        if (bound is None or bound.bound > target) and self.left() >= MORE_SEARCH and not self.stop.is_set():
            # The bound stopped early (its rounds no longer lowered it): the time left is the search's.
            report_progress(stage="looking for fences again (fence finder)")
            self.look(self.left(), self.best_order or found.order)
            if self.best is not None and len(self.best.pocket) > target:
                on_solution(self.board.variables(self.best))
        best = len(self.best.pocket) if self.best else None
        details = {
            "method": "fence finder (docs/enclosure.md): simulated annealing over the cyclic order of the pieces "
            "around the pocket, each order's best fence by a dynamic program over its boundary"
            + (" (skipping, with the bound's prices, what cannot beat the order held)" if self.search.aimed else "")
            + "; finds fences, proves nothing",
            "seed": self.seed,
            "orders evaluated": self.evaluations,
            "time budget": self.budget_said,
            "search seconds": round(self.search_seconds, 2),
            "bound proof": bound_proof(bound, best),
        }
        if self.path is not None:
            details["checkpoint"] = str(self.path)
        if self.saved is not None:
            details["resumed from"] = (
                f"{self.path}, with a fence of {len(self.saved.fence.pocket) if self.saved.fence else 0}"
            )
        upper = bound.bound if bound else None
        if best is not None and upper is not None and upper <= best:
            return BackendResult(
                Termination.COMPLETED, Found.OPTIMAL, "proved", None, objective=best, bound=best, details=details
            )
        termination = Termination.INTERRUPTED if self.stop.is_set() else Termination.TIME_LIMIT
        found_kind = Found.FEASIBLE if best is not None else Found.NONE
        return BackendResult(termination, found_kind, "stopped", None, objective=best, bound=upper, details=details)

    def prices(self, seconds: float) -> RelaxedBound | None:
        """The relaxed bound's plain rounds, before the search: their bound, and their
        prices, with which the search drops what cannot beat the order it holds
        (``OrderSearch.aim``)."""
        report_progress(stage="computing prices (relaxed dynamic program, plain rounds)")
        plain = relaxed_bound(
            self.pieces,
            self.problem.neighbours,
            rounds=self.problem.bound_rounds,
            time_limit=max(seconds, 1e-3),
            threads=self.threads,
        )
        if plain is not None:
            self.search.aim(plain.prices)
        return plain

    def look(self, seconds: float, start: Sequence[int] | None) -> Finding:
        """The fence finder for ``seconds`` from ``start`` (a random order if None); what
        it finds is kept and saved as it comes, and its work added to the run's."""
        found = anneal(
            self.search,
            seed=self.seed,
            time_limit=max(seconds, 0.0),
            start=start,
            stop=self.stop,
            on_better=self.better,
        )
        self.evaluations += found.evaluations
        self.search_seconds += found.seconds
        self.save()
        return found

    def better(self, found: Finding) -> None:
        """A better fence than the run had: keep it (if it fits the board), say so, save it now and then."""
        if found.fence is None or (
            self.best_plane is not None and len(found.fence.pocket) <= len(self.best_plane.pocket)
        ):
            return
        placed = self.board.place(found.fence)
        if placed is None:
            return
        self.best, self.best_plane, self.best_order = placed, found.fence, found.order
        report_progress(best=len(placed.pocket))
        if time.perf_counter() - self.last_save >= SAVE_EVERY:
            self.save(found)

    def save(self, looking: Finding | None = None) -> None:
        """Write the checkpoint: the best order and fence, and this run's work so far
        (``looking``: the search under way, whose work is not yet added)."""
        if self.path is None or self.best_order is None:
            return
        runs = (
            *(self.saved.runs if self.saved else ()),
            {
                "seed": self.seed,
                "orders evaluated": self.evaluations + (looking.evaluations if looking else 0),
                "seconds": round(self.search_seconds + (looking.seconds if looking else 0.0), 1),
                "best": len(self.best_plane.pocket) if self.best_plane else 0,
            },
        )
        saved = checkpoint.Checkpoint(self.best_order, self.best_plane, runs)
        checkpoint.save(self.path, self.pieces, self.problem.neighbours, saved)
        self.last_save = time.perf_counter()


class Listing:
    """``list_optimal``: streams each optimal fence the walk lists, once per class under the
    symmetries every piece allows (rotations and reflections for free pieces)."""

    def __init__(self, board: BoardFit, on_solution: OnSolution):
        self.board = board
        self.on_solution = on_solution
        self.seen: set[tuple] = set()
        self.size: int | None = None
        self.group = {8: "rotation and reflection", 4: "rotation", 1: "translation only"}.get(
            len(board.symmetries), "the pieces' symmetries"
        )

    def add(self, fenced: Fenced) -> None:
        key = canonical(fenced.placements, self.board.symmetries)
        if key not in self.seen:
            self.seen.add(key)
            self.size = len(fenced.pocket)
            self.on_solution(self.board.variables(fenced))


class BoardFit:
    """Moves a fence onto the model's board: the grid model's own placements and interior
    cells, or, on the builder's statement alone (no rows), variables added for the fence."""

    def __init__(self, model: Model, problem: EnclosureProblem):
        self.model = model
        self.problem = problem
        self.board = model.board
        self.grid = bool(model.constraints)
        self.placement = {(p.piece, frozenset(p.cells)): var for var, p in model.placements.items()}
        self.interior = {cell: var for var, cell in model.interior.items()}
        if not self.grid:
            self.enclosable = frozenset(interior_cells(self.board, problem.neighbours))
        kinds = {piece.kind for piece in problem.pieces}
        self.symmetries = [s for s in range(8) if all(s in kind_symmetries(kind) for kind in kinds)]
        xs, ys = [x for x, _ in self.board], [y for _, y in self.board]
        self.low, self.high = (min(xs), min(ys)), (max(xs), max(ys))
        self.rectangle = len(self.board) == (self.high[0] - self.low[0] + 1) * (self.high[1] - self.low[1] + 1)

    def place(self, fenced: Fenced) -> Fenced | None:
        for symmetry in self.symmetries:
            turned = [
                (name, [SQUARE_SYMMETRIES[symmetry](x, y) for x, y in cells]) for name, cells in fenced.placements
            ]
            for shift in self._shifts([cell for _, cells in turned for cell in cells]):
                placed = tuple(
                    (name, tuple(sorted((x + shift[0], y + shift[1]) for x, y in cells))) for name, cells in turned
                )
                if all(self._placeable(name, cells) for name, cells in placed):
                    # On a rectangle a fence that fits has its pocket inside its own box, on the board.
                    pocket = self._moved(fenced.pocket, symmetry, shift) if self.rectangle else self._pocket(placed)
                    if len(pocket) >= len(fenced.pocket) and all(self._enclosable(cell) for cell in pocket):
                        return Fenced(placed, pocket)
        if self.problem.board_holds_every_fence:
            raise AssertionError("the automatic board cannot hold a fence the boundary search found (a sizing bug)")
        return None

    def _shifts(self, cells: list[Cell]) -> Iterator[Cell]:
        """Translations putting the fence on the board: flush with the top and left edges on a
        rectangle (where the grid model pins it), every one in the board's box otherwise."""
        low_x, low_y = min(x for x, _ in cells), min(y for _, y in cells)
        high_x, high_y = max(x for x, _ in cells), max(y for _, y in cells)
        if self.rectangle:
            yield self.low[0] - low_x, self.low[1] - low_y
            return
        for dx in range(self.low[0] - low_x, self.high[0] - high_x + 1):
            for dy in range(self.low[1] - low_y, self.high[1] - high_y + 1):
                yield dx, dy

    @staticmethod
    def _moved(cells: Iterable[Cell], symmetry: int, shift: Cell) -> frozenset[Cell]:
        turned = (SQUARE_SYMMETRIES[symmetry](x, y) for x, y in cells)
        return frozenset((x + shift[0], y + shift[1]) for x, y in turned)

    def _placeable(self, name: str, cells: Iterable[Cell]) -> bool:
        if self.grid:
            return (name, frozenset(cells)) in self.placement
        return all(cell in self.board for cell in cells)

    def _enclosable(self, cell: Cell) -> bool:
        return cell in self.interior if self.grid else cell in self.enclosable

    def _pocket(self, placed: Placements) -> frozenset[Cell]:
        pockets = enclosed_pockets([cell for _, cells in placed for cell in cells], self.board, self.problem.neighbours)
        return pockets[0] if pockets else frozenset()

    def variables(self, fenced: Fenced) -> list[int]:
        chosen = [self._placement(name, cells) for name, cells in fenced.placements]
        return sorted(chosen + [self._interior(cell) for cell in fenced.pocket])

    def _placement(self, name: str, cells: tuple[Cell, ...]) -> int:
        key = (name, frozenset(cells))
        if key not in self.placement:
            self.placement[key] = self.model.add_variable(f"{name} at {min(cells)}", placement=Placement(name, cells))
        return self.placement[key]

    def _interior(self, cell: Cell) -> int:
        if cell not in self.interior:
            var = self.model.add_variable(f"interior {cell[0]},{cell[1]}")
            self.model.interior[var] = cell
            self.interior[cell] = var
            assert self.model.objective is not None
            self.model.objective[var] = 1
        return self.interior[cell]


def bound_proof(bound: RelaxedBound | None, best: int | None) -> str:
    """How the bound was had, for ``details["bound proof"]``: the rounds, the groups, and
    whether they stopped at their limit (then a gap to the best fence is one more rounds
    cannot close)."""
    if bound is None:
        return "none: the relaxed bound was not computed (bound_rounds = 0, or no time left for one round)"
    said = (
        f"relaxed dynamic program (bound.py), {bound.rounds} rounds in {bound.seconds:.1f} s, "
        f"the last with {bound.groups} group{'s' if bound.groups > 1 else ''} of piece types"
    )
    if not bound.at_limit:
        return said
    gap = (
        "; the gap left needs a finer split or a search over which pieces are used: docs/enclosure.md, the tally"
        if best is None or bound.bound > best
        else ""
    )
    return f"{said} (at their limit: no prices do better with these groups{gap})"
