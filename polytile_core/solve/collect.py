"""Where solutions go as they are found: turned back into placed pieces, kept up to a
limit (or the best ones), counted, and passed on to the caller."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from polytile_core.config.pipeline import Plan
from polytile_core.model.zero_one import Model
from polytile_core.output.resultfile import LineSink, SolutionLines
from polytile_core.output.results import PlacedPiece, Solution


def solution_of(
    model: Model, ones: list[int], pieces: dict[int, PlacedPiece] | None = None, part: str | None = None
) -> Solution:
    """Turn the decision variables that are 1 back into placed pieces (and enclosed cells).
    ``pieces`` keeps the placed pieces built so far, to share them between the solutions
    of one model (they are immutable): a listing then builds each piece once.  ``part``:
    the key of the split part that found it."""
    pieces = {} if pieces is None else pieces
    placed = []
    for var in ones:
        piece = pieces.get(var)
        if piece is None:
            placement = model.placements.get(var)
            if placement is None:
                continue
            piece = pieces[var] = PlacedPiece(placement.piece, placement.cells)
        placed.append(piece)
    interior = tuple(sorted(model.interior[var] for var in ones if var in model.interior)) if model.interior else None
    return Solution(tuple(placed), model.objective_value(ones), interior, part)


# Models whose placements' texts a collector keeps (a split's parts share their whole
# model's placements; a split that makes a model per part starts again past this).
MODELS_WITH_LINES = 64


def default_keep(plan: Plan) -> int | None:
    if plan.keep is not None:
        return plan.keep
    return {"all": None, "count": 0}.get(plan.settings.mode, 1)


class Collector:
    """Receives solutions from any thread; keeps the first ``keep`` (or, when ``rank`` is
    given, the ``keep`` best: lowest rank first) and counts them all.  With ``accept``
    (listing up to symmetry) only accepted solutions are kept, passed on and counted
    in ``accepted``.  ``keep`` bounds memory only: every solution added is passed on.

    ``on_line`` (a .jsonl file's ``add_lines``, given with its ``add`` as ``on_solution``)
    takes the tilings that ``add_ones`` and ``add_many`` receive as their lines (text,
    how many): each solution is passed on once, to one of the two."""

    def __init__(
        self,
        keep: int | None,
        on_solution: Callable[[Solution], None] | None,
        rank: Callable[[Solution], float] | None = None,
        accept: Callable[[Solution], bool] | None = None,
        on_line: Callable[[Sequence[bytes], int], None] | None = None,
    ):
        self.keep = keep
        self.on_solution = on_solution
        self.on_line = on_line
        self.lines: dict[int, SolutionLines] = {}  # by id of the placements they read (kept in them)
        self.rank = rank
        self.accept = accept
        self.kept: list[Solution] = []
        self.seen = 0
        self.accepted = 0
        self.lock = threading.Lock()

    def add(self, solution: Solution) -> None:
        with self.lock:
            self.seen += 1
            if self.accept is not None and not self.accept(solution):
                return
            self.accepted += 1
            if self.rank is not None:
                self.kept = sorted([*self.kept, solution], key=self.rank)[: self.keep]
            elif self.keep is None or len(self.kept) < self.keep:
                self.kept.append(solution)
        if self.on_solution is not None:
            self.on_solution(solution)

    def add_ones(self, model: Model, ones: list[int], pieces: dict[int, PlacedPiece], part: str | None = None) -> None:
        """``add(solution_of(model, ones, pieces, part))``, without building the solution
        when only its line is wanted: a listing to .jsonl that keeps no more of it."""
        self.add_many(model, [ones], pieces, part)

    def add_many(
        self, model: Model, many: list[list[int]], pieces: dict[int, PlacedPiece], part: str | None = None
    ) -> None:
        """``add_ones`` for each of ``many``, their lines written at once."""
        lines = self._lines_of(model)
        if lines is None:
            for ones in many:
                self.add(solution_of(model, ones, pieces, part))
            return
        self._take_lines(model, many, (lines.lines(many, part),), len(many), pieces, part)

    def add_lines(
        self, model: Model, first: list[list[int]], texts: Sequence[bytes], count: int, part: str | None
    ) -> None:
        """``count`` solutions of ``model`` as a worker wrote their lines (``texts``), with
        the first of them (``first``, at least as many as this keeps) to keep."""
        assert self.takes_lines(model)
        self._take_lines(model, first, texts, count, {}, part)

    def _take_lines(
        self,
        model: Model,
        first: list[list[int]],
        texts: Sequence[bytes],
        count: int,
        pieces: dict[int, PlacedPiece],
        part: str | None,
    ) -> None:
        """Count ``count`` solutions, keep what room is left from ``first``, and pass their
        lines (``texts``) on."""
        with self.lock:
            self.seen += count
            self.accepted += count
            room = count if self.keep is None else max(0, self.keep - len(self.kept))
            self.kept.extend(solution_of(model, ones, pieces, part) for ones in first[:room])
        assert self.on_line is not None
        self.on_line(texts, count)

    def line_sink(self, model: Model, pieces: dict[int, PlacedPiece], part: str | None = None) -> LineSink | None:
        """An ``on_solution`` for a listing of ``model`` that passes the solutions on as
        lines (a backend may make them itself); None when they must come one by one:
        ``takes_lines`` says no, or this keeps every solution."""
        lines = self._lines_of(model)
        if lines is None or self.keep is None:
            return None

        def take(text: bytes, count: int, firsts: list[list[int]]) -> None:
            self._take_lines(model, firsts, (text,), count, pieces, part)

        return LineSink(lines, part, (), self.keep, take)

    def takes_lines(self, model: Model) -> bool:
        """Whether ``model``'s solutions may reach this collector as lines."""
        return self._lines_of(model) is not None

    def _lines_of(self, model: Model) -> SolutionLines | None:
        """The line maker of ``model``'s tilings; None when its solutions must be built:
        no .jsonl file takes lines, or the collector ranks or filters them, or they carry
        an objective or enclosed cells."""
        lines = self.lines.get(id(model.placements))
        if lines is not None:
            return lines
        plain = self.accept is None and self.rank is None and model.objective is None and not model.interior
        if self.on_line is None or not plain:
            return None
        if len(self.lines) >= MODELS_WITH_LINES:
            self.lines.clear()
        lines = self.lines[id(model.placements)] = SolutionLines(model.placements)
        return lines
