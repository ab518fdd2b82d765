"""Streaming result files (JSON Lines, ``.jsonl``): solutions are written as they arrive,
so a listing of millions of tilings takes no more memory than one.

Line 1 is the header (what was run), then one line per solution (``StoredSolution``),
then a closing line with the status and the counts (the Result without its solutions).
The file grows under a temporary name beside the target and is renamed when the closing
line is written, so a file with the target's name is always complete.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Literal

import attrs

from polytile_core.convert import CONVERTER, structure
from polytile_core.errors import InputError
from polytile_core.pipeline import Plan
from polytile_core.resultfile import result_data, result_from_data, solution_data, solution_from_data, temporary_beside
from polytile_core.results import Result, Solution


@attrs.frozen
class RunHeader:
    """The first line of a .jsonl result file: the run's settings."""

    line: Literal["header"] = attrs.field(metadata={"description": "marks the header line"})
    problem: str = attrs.field(metadata={"description": "the problem kind (tiling, enclose, ...)"})
    mode: str = attrs.field(metadata={"description": "one, all or count (or optimize for enclosures)"})
    backend: str = attrs.field(metadata={"description": "the backend plugin"})
    pieces: tuple[str, ...] = attrs.field(metadata={"description": "the pieces' names"})
    time_limit: float | None = attrs.field(default=None, metadata={"description": "seconds allowed for the whole run"})
    distinct: bool = attrs.field(default=False, metadata={"description": "counted up to the region's symmetry too"})
    split: str | None = attrs.field(default=None, metadata={"description": "the split method, if any"})
    jobs: int = attrs.field(default=1, metadata={"description": "parts of a split solved at once"})


def header_of(plan: Plan) -> RunHeader:
    return RunHeader(
        line="header",
        problem=plan.problem,
        mode=plan.settings.mode,
        backend=plan.backend.name,
        pieces=tuple(piece.name for piece in plan.pieces),
        time_limit=plan.settings.time_limit,
        distinct=plan.distinct,
        split=plan.split.name if plan.split else None,
        jobs=plan.jobs,
    )


def _line(data: dict) -> str:
    return json.dumps(data, separators=(",", ":")) + "\n"


class ResultLines:
    """A .jsonl result file being written: ``add`` each solution (from any thread), then
    ``finish`` with the Result (or ``discard``).  Solutions that arrive after ``finish``
    (a backend still stopping after a second Ctrl-C) are dropped."""

    def __init__(self, path: str | Path, plan: Plan, *, replace: bool = False):
        self.path = Path(path)
        handle, self.temporary = temporary_beside(self.path, replace=replace)
        self.stream = os.fdopen(handle, "w", encoding="utf-8")
        self.lock = threading.Lock()
        self.written = 0
        self.stream.write(_line(CONVERTER.unstructure(header_of(plan))))

    def add(self, solution: Solution) -> None:
        text = _line({"line": "solution", **solution_data(solution)})
        with self.lock:
            if not self.stream.closed:
                self.stream.write(text)
                self.written += 1

    def finish(self, result: Result) -> None:
        """Write the closing line and give the file its name."""
        data = result_data(result)
        del data["solutions"]  # they are on the lines above
        closing = _line({"line": "end", **data, "solutions_written": self.written})
        with self.lock:
            try:
                self.stream.write(closing)
                self.stream.close()
                os.replace(self.temporary, self.path)
            except OSError as exc:  # the disk is full, the folder went away
                self.discard()
                raise InputError(f"cannot write here ({exc.strerror})", source=str(self.path)) from None

    def discard(self) -> None:
        self.stream.close()
        self.temporary.unlink(missing_ok=True)


def read_result_lines(path: str | Path) -> Result:
    """The Result a .jsonl file holds, every solution included."""
    path = Path(path)
    source = str(path)
    solutions: list[Solution] = []
    closing = None
    try:
        with path.open(encoding="utf-8") as lines:
            for number, text in enumerate(lines, start=1):
                where = f"line {number}"
                try:
                    data = json.loads(text)
                except ValueError as exc:
                    raise InputError(f"not JSON ({exc})", source=source, path=where) from None
                kind = data.get("line") if isinstance(data, dict) else None
                if number == 1:
                    if kind != "header":
                        raise InputError("a .jsonl result file starts with its header line", source=source)
                    structure(data, RunHeader, path=where, source=source)
                elif closing is not None:
                    raise InputError("nothing may follow the closing line", source=source, path=where)
                elif kind == "solution":
                    del data["line"]
                    solutions.append(solution_from_data(data, path=where, source=source))
                elif kind == "end":
                    closing = data
                else:
                    raise InputError('expected "line": "solution" or "end"', source=source, path=where)
    except FileNotFoundError:
        raise InputError("no such file", source=source) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"not a readable result file ({exc})", source=source) from None
    if closing is None:
        raise InputError("the file has no closing line: the run that wrote it did not finish", source=source)
    del closing["line"]
    written = closing.pop("solutions_written", None)
    if written != len(solutions):
        raise InputError(f"the closing line says {written} solutions, the file holds {len(solutions)}", source=source)
    return attrs.evolve(result_from_data(closing, source=source), solutions=tuple(solutions))

