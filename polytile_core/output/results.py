"""What a solve reports, on two axes as in OR-Tools MathOpt: why it stopped, and what it found.

``Termination`` says why the run ended; ``Found`` says what is known about solutions.
A count is exact only when the run *completed*; an interrupted or time-limited run
still reports what it saw, and says so.
"""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Any

import attrs

# Both know a Result only as a value (their imports of this module are for type checking).
from polytile_core.output import notebook, resultfile
from polytile_core.output.picture import ascii_picture

# The longest first-solution picture a Result's repr shows (a 60×64 tiling is not shown).
REPR_PICTURE = 1500


class Termination(str, enum.Enum):
    COMPLETED = "completed"
    TIME_LIMIT = "time_limit"
    SOLUTION_LIMIT = "solution_limit"
    INTERRUPTED = "interrupted"
    ERROR = "error"


class Found(str, enum.Enum):
    OPTIMAL = "optimal"
    FEASIBLE = "feasible"
    NONE = "none"
    INFEASIBLE = "proved_infeasible"


@attrs.frozen(cache_hash=True)
class PlacedPiece:
    """One piece of a solution: its name and the cells it covers (as [x, y]).  Its hash
    is kept: a listing's solutions share their pieces, and writing them looks each up."""

    piece: str = attrs.field(metadata={"description": "name of the piece"})
    cells: tuple[tuple[int, int], ...] = attrs.field(metadata={"description": "covered cells as [x, y], y downward"})


@attrs.frozen
class Solution:
    """One tiling (or fence): the pieces placed, and the objective value where there is one."""

    placements: tuple[PlacedPiece, ...] = attrs.field(metadata={"description": "the placed pieces"})
    objective: int | None = attrs.field(default=None, metadata={"description": "objective value (enclosure: area)"})
    interior: tuple[tuple[int, int], ...] | None = attrs.field(
        default=None, metadata={"description": "enclosed cells, for an enclosure"}
    )
    part: str | None = attrs.field(
        default=None, metadata={"description": "key of the split part that found it (split runs only)"}
    )

    # In a notebook: the picture (output/notebook.py), or the ASCII one without an svg renderer.
    def _repr_svg_(self) -> str | None:
        return notebook.svg_of(_drawn(self))

    def _repr_html_(self) -> str | None:
        return notebook.html_of(_drawn(self))


def _whole_if_integral(value: float | None) -> float | None:
    """An objective of 128.0 is 128 (an area, a count): read back from a file it stays 128."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


@attrs.frozen
class Answer:
    """What is known when a solve stops: why it stopped, what it found, and the numbers.

    The one answer value of polytile: a backend's ``BackendResult``, a split part's
    ``SubproblemReport`` and the run's ``Result`` are each an ``Answer`` with what their
    level adds (``answer_fields`` hands one on to the next), so the fields are written once.
    """

    termination: Termination = attrs.field(metadata={"description": "why it stopped"})
    found: Found = attrs.field(metadata={"description": "what was found"})
    raw_status: str = attrs.field(default="", metadata={"description": "the backend's own status"})
    count: int | None = attrs.field(
        default=None, metadata={"description": "number of solutions (exact when completed)"}
    )
    objective: float | None = attrs.field(
        default=None, converter=_whole_if_integral, metadata={"description": "best objective found"}
    )
    bound: float | None = attrs.field(default=None, metadata={"description": "proven bound on the objective"})
    distinct_count: int | None = attrs.field(
        default=None, metadata={"description": "solutions up to the region's symmetry, when asked for"}
    )


def answer_fields(answer: Answer) -> dict[str, Any]:
    """The fields an ``Answer`` of any level shares, to make the next level's from."""
    return {field.name: getattr(answer, field.name) for field in attrs.fields(Answer)}


@attrs.frozen(kw_only=True)
class SubproblemReport(Answer):
    """What one part of a split run did."""

    key: str = attrs.field(metadata={"description": "identity of the subproblem (e.g. its variant counts)"})
    seconds: float = attrs.field(default=0.0, metadata={"description": "wall time of this part"})
    error: str | None = attrs.field(default=None, metadata={"description": "the error, if the part failed"})


@attrs.frozen(kw_only=True)
class Result(Answer):
    """The outcome of a run, written as JSON or TOML by ``polytile solve --output``."""

    mode: str = attrs.field(metadata={"description": "one, all or count (or optimize for enclosures)"})
    backend: str = attrs.field(metadata={"description": "the backend plugin that solved it"})
    solutions: tuple[Solution, ...] = attrs.field(default=(), metadata={"description": "solutions kept"})
    seconds: float = attrs.field(default=0.0, metadata={"description": "wall time of the whole run"})
    message: str = attrs.field(
        default="", metadata={"description": "a human explanation (e.g. an impossibility proof)"}
    )
    region: tuple[tuple[int, int], ...] = attrs.field(default=(), metadata={"description": "the region's cells"})
    subproblems: tuple[SubproblemReport, ...] = attrs.field(
        default=(), metadata={"description": "per-part reports of a split run"}
    )
    details: dict[str, Any] = attrs.field(
        factory=dict,
        metadata={
            "description": "extra facts: rules used, speedup measures, the route taken (route: name, split, "
            "backend, options, why, how, and for a race each route tried with its time and outcome), ..."
        },
    )

    # In a notebook: the picture (a gallery of at most 12 solutions); the status is in the repr.
    def _repr_svg_(self) -> str | None:
        return notebook.svg_of(self)

    def _repr_html_(self) -> str | None:
        return notebook.html_of(self)

    def __repr__(self) -> str:
        """Short at any size: the status, the counts, the first solution and how many more."""
        lines = [f"Result: {self.caption()}"]
        if self.message:
            lines.append(self.message)
        if self.solutions:
            first = ascii_picture(self.solutions[0], self.region)
            cells = sum(len(placed.cells) for placed in self.solutions[0].placements)
            lines.append(first if len(first) <= REPR_PICTURE else f"(the first solution: {cells} cells, not drawn)")
            if len(self.solutions) > 1:
                lines.append(f"… and {len(self.solutions) - 1:,} more")
        return "\n".join(lines)

    def caption(self) -> str:
        """One line: status, count, objective, time (what ``polytile solve`` prints first)."""
        words = [f"{self.termination.value}, {self.found.value.replace('_', ' ')} ({self.backend})"]
        if self.count is not None:
            words.append(f"{self.count:,} solution{'s' if self.count != 1 else ''}")
        if self.distinct_count is not None:
            words.append(f"{self.distinct_count:,} up to symmetry")
        if self.objective is not None:
            bound = f", bound {self.bound:g}" if self.bound is not None else ""
            words.append(f"objective {self.objective}{bound}")
        words.append(f"{self.seconds:.2f} s")
        return " · ".join(words)

    def save(self, path: str | Path, *, replace: bool = False) -> None:
        """Write the result file: .json, .toml or .jsonl by the extension (read it back
        with ``api.read_result``); an existing file is kept unless ``replace``."""
        resultfile.write_result(self, path, replace=replace)

    @property
    def gap(self) -> float | None:
        if self.objective is None or self.bound is None or self.bound == 0:
            return None
        return abs(self.bound - self.objective) / abs(self.bound)


def _drawn(solution: Solution) -> Result:
    """A lone solution as a Result, the one thing renderers draw."""
    return Result(
        termination=Termination.COMPLETED, found=Found.FEASIBLE, mode="one", backend="", count=1, solutions=(solution,)
    )
