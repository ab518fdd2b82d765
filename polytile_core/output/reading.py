"""Reading result files back (``polytile render``, ``api.read_result``): JSON, TOML or
JSON Lines, each value checked, with one clear line for a file that is not a result file.
Writing them is ``resultfile``'s; this module builds Results, so it sits above ``results``.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import attrs

from polytile_core.convert import structure
from polytile_core.errors import InputError
from polytile_core.output.resultfile import RunHeader
from polytile_core.output.results import PlacedPiece, Result, Solution


@attrs.frozen
class StoredSolution:
    """One solution as a result file holds it: each placed piece as [name, [x0, y0, x1, y1, ...]]."""

    placements: tuple[tuple[str, tuple[int, ...]], ...] = attrs.field(
        metadata={"description": "the placed pieces: [piece name, its cells' x and y in a row], y downward"}
    )
    objective: int | None = attrs.field(default=None, metadata={"description": "objective value (enclosure: area)"})
    interior: tuple[int, ...] | None = attrs.field(
        default=None, metadata={"description": "enclosed cells of an enclosure, x and y in a row"}
    )
    part: str | None = attrs.field(
        default=None, metadata={"description": "key of the split part that found it (split runs only)"}
    )


def _pairs(flat: tuple[int, ...], where: str) -> tuple[tuple[int, int], ...]:
    if len(flat) % 2:
        raise InputError(f"expected x and y for each cell, got {len(flat)} numbers", path=where)
    return tuple(zip(flat[::2], flat[1::2], strict=True))


def solution_from_data(data: object, *, path: str, source: str | None = None) -> Solution:
    stored = structure(data, StoredSolution, path=path, source=source)
    try:
        placements = tuple(
            PlacedPiece(name, _pairs(flat, f"{path}.placements[{index}]"))
            for index, (name, flat) in enumerate(stored.placements)
        )
        interior = None if stored.interior is None else _pairs(stored.interior, f"{path}.interior")
    except InputError as exc:
        raise exc.with_source(source) if source else exc from None
    return Solution(placements, stored.objective, interior, stored.part)


def read_result(path: str | Path, *, keep: int | None = None) -> Result:
    """A result file of any format: JSON, TOML or JSON Lines (by the extension), with at
    most ``keep`` of its solutions (all when None; ``count`` still says how many there were).
    A .jsonl file is read line by line, so memory holds only the solutions kept."""
    path = Path(path)
    if path.suffix == ".jsonl":
        return read_result_lines(path, keep=keep)
    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
    except FileNotFoundError:
        raise InputError("no such file", source=str(path)) from None
    except (OSError, ValueError) as exc:
        raise InputError(f"not a readable result file ({exc})", source=str(path)) from None
    if not isinstance(data, dict):
        raise InputError("a result file holds one table", source=str(path))
    if keep is not None and isinstance(data.get("solutions"), list):
        data["solutions"] = data["solutions"][:keep]
    return result_from_data(data, source=str(path))


def result_from_data(data: dict, *, source: str | None = None) -> Result:
    data = dict(data)
    data.pop("gap", None)
    stored = data.pop("solutions", [])
    if not isinstance(stored, list):
        raise InputError("expected a list of solutions", source=source, path="solutions")
    solutions = tuple(
        solution_from_data(item, path=f"solutions[{index}]", source=source) for index, item in enumerate(stored)
    )
    return attrs.evolve(structure(data, Result, source=source), solutions=solutions)


def read_result_lines(path: str | Path, *, keep: int | None = None) -> Result:
    """The Result a .jsonl file holds, with its first ``keep`` solutions (all when None);
    every line is checked either way."""
    path = Path(path)
    source = str(path)
    solutions: list[Solution] = []
    seen = 0
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
                    seen += 1
                    if keep is None or len(solutions) < keep:
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
    if written != seen:
        raise InputError(f"the closing line says {written} solutions, the file holds {seen}", source=source)
    return attrs.evolve(result_from_data(closing, source=source), solutions=tuple(solutions))
