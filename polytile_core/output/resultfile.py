"""Result files: JSON or TOML (chosen by the extension), written atomically, never over
a file that is already there unless asked; or JSON Lines (``.jsonl``), streamed.

Solutions are stored compactly, each placed piece as ``[name, [x, y, x, y, ...]]``
(about 350 bytes for a pentomino tiling of 6×10, where a table per cell took 4 kB).

A ``.jsonl`` file is written as the run goes, so a listing of millions of tilings takes
no more memory than one: line 1 is the header (what was run), then one line per
solution, then a closing line with the status and the counts (the Result without its
solutions).  It grows under a temporary name beside the target and is renamed when the
closing line is written, so a file with the target's name is always complete.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import tempfile
import threading
import tomllib
from pathlib import Path
from typing import Literal

import attrs
import tomli_w

from polytile_core.convert import CONVERTER, structure
from polytile_core.errors import InputError
from polytile_core.output.results import PlacedPiece, Result, Solution, save_with


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


def _flat(cells) -> list[int]:
    return [coordinate for cell in cells for coordinate in cell]


def _pairs(flat: tuple[int, ...], where: str) -> tuple[tuple[int, int], ...]:
    if len(flat) % 2:
        raise InputError(f"expected x and y for each cell, got {len(flat)} numbers", path=where)
    return tuple(zip(flat[::2], flat[1::2], strict=True))


def solution_data(solution: Solution) -> dict:
    """The compact form of a solution (keys that do not apply are left out)."""
    data: dict = {"placements": [[placed.piece, _flat(placed.cells)] for placed in solution.placements]}
    if solution.objective is not None:
        data["objective"] = solution.objective
    if solution.interior is not None:
        data["interior"] = _flat(solution.interior)
    if solution.part is not None:
        data["part"] = solution.part
    return data


def solution_from_data(data, *, path: str, source: str | None = None) -> Solution:
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


def result_data(result: Result) -> dict:
    data = CONVERTER.unstructure(attrs.evolve(result, solutions=()))
    data["solutions"] = [solution_data(solution) for solution in result.solutions]
    data["gap"] = result.gap
    return data


def _without_none(value):
    if isinstance(value, dict):
        return {key: _without_none(item) for key, item in value.items() if item is not None}
    if isinstance(value, (list, tuple)):
        return [_without_none(item) for item in value]
    return value


def result_text(result: Result, fmt: str = "json") -> str:
    """The file's text: TOML, or JSON with a line per key and a line per solution."""
    data = result_data(result)
    if fmt == "toml":
        return tomli_w.dumps(_without_none(data))
    lines = []
    for key, value in data.items():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            items = ",\n  ".join(json.dumps(item, separators=(",", ":")) for item in value)
            text = f"[\n  {items}\n ]"
        else:
            text = json.dumps(value, separators=(",", ":"))
        lines.append(f" {json.dumps(key)}: {text}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


# What a result file's name ends with, and so how it is written.
RESULT_SUFFIXES = (".json", ".toml", ".jsonl")


def check_result_suffix(path: str | Path) -> None:
    """A result file is written as its suffix says: any other suffix is a mistake, such as
    ``-o result.xml``, not a JSON file under a misleading name."""
    suffix = Path(path).suffix
    if suffix not in RESULT_SUFFIXES:
        known = ", ".join(RESULT_SUFFIXES[:-1]) + f" or {RESULT_SUFFIXES[-1]}"
        got = f"got {suffix}" if suffix else "got no suffix"
        raise InputError(f"a result file is {known} ({got})", source=str(path))


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def refuse_existing(path: str | Path, *, replace: bool = False) -> None:
    """Nothing a user wrote is overwritten: an existing file is an error unless ``replace``."""
    if Path(path).exists() and not replace:
        raise InputError("the file exists already; choose another name or pass --force", source=str(path))


def temporary_beside(path: Path, *, replace: bool = False) -> tuple[int, Path]:
    """A new temporary file in the target's folder (so a rename completes it), as an
    open descriptor and its path.  Refuses an existing target unless ``replace``."""
    path = Path(path)
    refuse_existing(path, replace=replace)
    directory = path.parent if str(path.parent) else Path(".")
    try:
        handle, temporary = tempfile.mkstemp(dir=directory, prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp")
    except OSError as exc:  # a missing or read-only directory
        raise InputError(f"cannot write here ({exc.strerror})", source=str(path)) from None
    os.chmod(temporary, 0o666 & ~_umask())  # mkstemp makes 0600; give the usual mode
    return handle, Path(temporary)


def remove_stale_temporaries(path: str | Path) -> list[Path]:
    """Remove the temporary files that runs killed while writing ``path`` left beside it
    (``.NAME.PID.XXXX.tmp`` whose process PID is gone), and return them.  A killed run
    cannot clean up after itself (SIGKILL); the next run for the same file does."""
    path = Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    removed = []
    for candidate in directory.glob(f".{glob.escape(path.name)}.*.tmp"):
        owner = candidate.name[len(path.name) + 2 :].split(".", 1)[0]
        if owner.isdigit() and not _alive(int(owner)):
            with contextlib.suppress(OSError):
                candidate.unlink()
                removed.append(candidate)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: alive
        return True
    return True


def write_atomically(path: Path, text: str | bytes, *, replace: bool = False) -> None:
    """Write ``text`` (or bytes) to ``path`` through a temporary file and a rename, so a
    run killed while writing never leaves a half-written file under the name asked for.

    Refuses to replace an existing file unless ``replace`` is true.
    """
    handle, temporary = temporary_beside(path, replace=replace)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(text if isinstance(text, bytes) else text.encode("utf-8"))
        os.replace(temporary, path)
    except BaseException as exc:
        temporary.unlink(missing_ok=True)
        if isinstance(exc, OSError):  # e.g. the path is a directory, or the disk is full
            raise InputError(f"cannot write here ({exc.strerror})", source=str(path)) from None
        raise


def write_result(result: Result, path: str | Path, *, replace: bool = False) -> None:
    """A result file of any format (``Result.save``): JSON, TOML or JSON Lines by the extension."""
    path = Path(path)
    if path.suffix == ".jsonl":
        lines = ResultLines(path, header_of_result(result), replace=replace)
        for solution in result.solutions:
            lines.add(solution)
        lines.finish(result)
        return
    fmt = "toml" if path.suffix == ".toml" else "json"
    write_atomically(path, result_text(result, fmt), replace=replace)


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


@attrs.frozen
class RunHeader:
    """The first line of a .jsonl result file: the run's settings."""

    line: Literal["header"] = attrs.field(metadata={"description": "marks the header line"})
    problem: str | None = attrs.field(
        metadata={
            "description": "the problem kind (tiling, enclose, ...); null if saved from a Result that does not say"
        }
    )
    mode: str = attrs.field(metadata={"description": "one, all or count (or optimize for enclosures)"})
    backend: str = attrs.field(metadata={"description": "the backend plugin"})
    pieces: tuple[str, ...] = attrs.field(metadata={"description": "the pieces' names"})
    time_limit: float | None = attrs.field(default=None, metadata={"description": "seconds allowed for the whole run"})
    distinct: bool = attrs.field(default=False, metadata={"description": "counted up to the region's symmetry too"})
    split: str | None = attrs.field(default=None, metadata={"description": "the split method, if any"})
    jobs: int = attrs.field(default=1, metadata={"description": "parts of a split solved at once"})


def header_of_result(result: Result) -> RunHeader:
    """The header a finished Result can give: what it says of its run (a run writing its
    own .jsonl file knows more, see ``polytile solve``)."""
    route = result.details.get("route")
    return RunHeader(
        line="header",
        problem="tiling" if result.mode in ("one", "all", "count") else None,  # only tilings list and count
        mode=result.mode,
        backend=result.backend,
        pieces=tuple(dict.fromkeys(placed.piece for solution in result.solutions for placed in solution.placements)),
        distinct=result.distinct_count is not None,
        split=route.get("split") if isinstance(route, dict) else None,
    )


# Placed pieces whose text a .jsonl writer keeps (then it starts again).
PIECE_TEXTS = 200_000


def _line(data: dict) -> str:
    return json.dumps(data, separators=(",", ":")) + "\n"


class ResultLines:
    """A .jsonl result file being written: ``add`` each solution (from any thread), then
    ``finish`` with the Result (or ``discard``).  Solutions that arrive after ``finish``
    (a backend still stopping after a second Ctrl-C) are dropped."""

    def __init__(self, path: str | Path, header: RunHeader, *, replace: bool = False):
        self.path = Path(path)
        handle, self.temporary = temporary_beside(self.path, replace=replace)
        self.stream = os.fdopen(handle, "w", encoding="utf-8")
        self.lock = threading.Lock()
        self.written = 0
        self.pieces: dict[PlacedPiece, str] = {}  # the text of each placed piece seen lately
        self.stream.write(_line(CONVERTER.unstructure(header)))

    def add(self, solution: Solution) -> None:
        text = self._line_of(solution)
        with self.lock:
            if not self.stream.closed:
                self.stream.write(text)
                self.written += 1

    def _line_of(self, solution: Solution) -> str:
        """``solution``'s line, as ``solution_data`` gives it; a listing's solutions share
        their placed pieces, so each piece's text is made once (a listing of millions is
        bound by this)."""
        if solution.objective is not None or solution.interior is not None:
            return _line({"line": "solution", **solution_data(solution)})
        texts = []
        for placed in solution.placements:
            text = self.pieces.get(placed)
            if text is None:
                if len(self.pieces) >= PIECE_TEXTS:
                    self.pieces.clear()
                text = self.pieces[placed] = json.dumps([placed.piece, _flat(placed.cells)], separators=(",", ":"))
            texts.append(text)
        part = "" if solution.part is None else ',"part":' + json.dumps(solution.part)
        return '{"line":"solution","placements":[' + ",".join(texts) + "]" + part + "}\n"

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


save_with(write_result)
