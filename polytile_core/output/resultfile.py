"""Result files: JSON or TOML (chosen by the extension), written atomically, never over
a file that is already there unless asked; or JSON Lines (``.jsonl``), streamed.

Solutions are stored compactly, each placed piece as ``[name, [x, y, x, y, ...]]``
(about 350 bytes for a pentomino tiling of 6×10, where a table per cell took 4 kB).

A ``.jsonl`` file is written as the run goes, so a listing of millions of tilings takes
no more memory than one: line 1 is the header (what was run), then one line per
solution, then a closing line with the status and the counts (the Result without its
solutions).  It grows under a temporary name beside the target and is renamed when the
closing line is written, so a file with the target's name is always complete.

Writing needs a Result's values only, not its class, so ``Result.save`` calls this module
directly; reading files back builds Results, and is ``reading.py``'s.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import attrs
import tomli_w

from polytile_core.convert import CONVERTER
from polytile_core.errors import InputError

if TYPE_CHECKING:  # results.py saves with this module: no import cycle at run time
    from polytile_core.model.zero_one import Placement
    from polytile_core.output.results import PlacedPiece, Result, Solution


def _flat(cells: Iterable[Sequence[int]]) -> list[int]:
    return [coordinate for cell in cells for coordinate in cell]


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


def result_data(result: Result) -> dict:
    data = CONVERTER.unstructure(attrs.evolve(result, solutions=()))
    data["solutions"] = [solution_data(solution) for solution in result.solutions]
    # A part's line says what it has (a split may report a thousand parts).
    data["subproblems"] = [_without_none(report) for report in data["subproblems"]]
    data["gap"] = result.gap
    return data


def _without_none(value: Any) -> Any:
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
    return "".join(_json_text(data, (json.dumps(item, separators=(",", ":")) for item in data["solutions"])))


def _json_text(data: dict, solutions: Iterable[str]) -> Iterator[str]:
    """``result_text``'s JSON in pieces, a line per key and a line per solution, with the
    solutions' texts given apart (``ResultJson`` reads them back one at a time)."""
    yield "{\n"
    for number, (key, value) in enumerate(data.items()):
        yield (",\n" if number else "") + f" {json.dumps(key)}: "
        if key == "solutions" or (isinstance(value, list) and value and isinstance(value[0], dict)):
            items = solutions if key == "solutions" else (json.dumps(item, separators=(",", ":")) for item in value)
            first = True
            for text in items:
                yield ("[\n  " if first else ",\n  ") + text
                first = False
            yield "[]" if first else "\n ]"
        else:
            yield json.dumps(value, separators=(",", ":"))
    yield "\n}\n"


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


def write_atomically(path: Path, text: str | bytes | Iterable[str], *, replace: bool = False) -> None:
    """Write ``text`` (bytes, or texts written one after the other as they come) to
    ``path`` through a temporary file and a rename, so a run killed while writing never
    leaves a half-written file under the name asked for.

    Refuses to replace an existing file unless ``replace`` is true.
    """
    handle, temporary = temporary_beside(path, replace=replace)
    try:
        if isinstance(text, bytes):
            with os.fdopen(handle, "wb") as binary:
                binary.write(text)
        else:
            with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:  # newline="": "\n" as it is
                stream.writelines([text] if isinstance(text, str) else text)
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


def _placed_text(piece: str, cells: Iterable[Sequence[int]]) -> str:
    return json.dumps([piece, _flat(cells)], separators=(",", ":"))


# How a solution's .jsonl line begins (``_line`` of ``{"line": "solution", ...}``), where
# its .json entry begins with "{" (``ResultJson``).
_SOLUTION_LINE = '{"line":"solution",'


def _line_ends(part: str | None) -> tuple[str, str]:
    """What comes before and after a solution's placed pieces' texts on its line: what
    ``_line`` makes of ``solution_data``, less the pieces."""
    return _SOLUTION_LINE + '"placements":[', "]}\n" if part is None else '],"part":' + json.dumps(part) + "}\n"


def _solution_line(texts: list[str], part: str | None) -> str:
    head, tail = _line_ends(part)
    return head + ",".join(texts) + tail


class SolutionLines:
    """The .jsonl lines of one model's tilings, made straight from the variables that are 1
    (``ResultLines.add_lines``): each placement's text is made once, and a line joins them.
    A listing of millions is bound by what it does per tiling, and building a Solution
    to write it cost several times what the line itself does."""

    def __init__(self, placements: Mapping[int, Placement]):
        self.placements = placements
        self.texts: dict[int, str] = {}

    def lines(self, many: Iterable[Iterable[int]], part: str | None = None) -> bytes:
        """The lines of ``many`` tilings (each its variables that are 1), one text (UTF-8)."""
        texts = self.texts
        head, tail = _line_ends(part)
        try:
            return "".join([head + ",".join([texts[var] for var in ones]) + tail for ones in many]).encode()
        except KeyError:  # a placement not seen yet, or a variable that places no piece
            pass
        text_of = self.text_of
        return "".join([head + ",".join(filter(None, map(text_of, ones))) + tail for ones in many]).encode()

    def text_of(self, var: int) -> str:
        """The text ``var`` puts on a line: its placed piece, or "" when it places none."""
        text = self.texts.get(var)
        if text is None:
            placement = self.placements.get(var)
            if placement is None:
                return ""
            text = self.texts[var] = _placed_text(placement.piece, placement.cells)
        return text


class LineSink:
    """A listing's ``on_solution`` when only the solutions' .jsonl lines are wanted
    (``Collector.line_sink``, and a split part's worker).  Called with a solution's
    variables, it makes its line in Python, like any ``on_solution``.  A backend that can
    make lines itself (exactcover's C kernels) reads ``text_of`` (``SolutionLines.text_of``),
    ``head``, ``tail``, ``images`` and ``firsts`` instead, and hands batches of lines to
    ``take``.

    Each solution stands for its ``images`` (permutations of the model's variables; none:
    itself), one line each.  ``take(text, count, firsts)`` receives ``count`` lines and the
    variables of the first of them, until ``firsts`` (how many its receiver keeps) are given."""

    def __init__(
        self,
        lines: SolutionLines,
        part: str | None,
        images: Sequence[Sequence[int]],
        firsts: int,
        take: Callable[[bytes, int, list[list[int]]], None],
    ):
        self.lines = lines
        self.part = part
        self.head, self.tail = _line_ends(part)
        self.images = tuple(images)
        self.firsts = firsts
        self._take = take
        self.text_of = lines.text_of

    def take(self, text: bytes, count: int, firsts: list[list[int]]) -> None:
        """``count`` lines, ``firsts`` the variables of the first of them (at most ``self.firsts``)."""
        self.firsts -= len(firsts)
        self._take(text, count, firsts)

    def __call__(self, ones: list[int]) -> None:
        found = [sorted(map(image.__getitem__, ones)) for image in self.images] if self.images else [ones]
        self.take(self.lines.lines(found, self.part), len(found), found[: max(self.firsts, 0)])


class ResultLines:
    """A .jsonl result file being written: ``add`` each solution (from any thread), then
    ``finish`` with the Result (or ``discard``).  Solutions that arrive after ``finish``
    (a backend still stopping after a second Ctrl-C) are dropped."""

    def __init__(self, path: str | Path, header: RunHeader, *, replace: bool = False):
        self.path = Path(path)
        handle, self.temporary = temporary_beside(self.path, replace=replace)
        self.stream = os.fdopen(handle, "wb")  # lines come as UTF-8 (``add_lines``), the rest is encoded
        self.lock = threading.Lock()
        self.written = 0
        self.pieces: dict[PlacedPiece, str] = {}  # the text of each placed piece seen lately
        self.stream.write(_line(CONVERTER.unstructure(header)).encode())

    def add(self, solution: Solution) -> None:
        self.add_lines((self._line_of(solution).encode(),))

    def add_lines(self, texts: Sequence[bytes], count: int = 1) -> None:
        """``count`` solutions' lines, in ``texts`` as ``SolutionLines`` makes them (a
        listing's fast way here)."""
        with self.lock:
            if not self.stream.closed:
                self.stream.writelines(texts)
                self.written += count

    def _line_of(self, solution: Solution) -> str:
        """``solution``'s line, as ``solution_data`` gives it; a listing's solutions share
        their placed pieces, so each piece's text is made once."""
        if solution.objective is not None or solution.interior is not None:
            return _line({"line": "solution", **solution_data(solution)})
        texts = []
        for placed in solution.placements:
            text = self.pieces.get(placed)
            if text is None:
                if len(self.pieces) >= PIECE_TEXTS:
                    self.pieces.clear()
                text = self.pieces[placed] = _placed_text(placed.piece, placed.cells)
            texts.append(text)
        return _solution_line(texts, solution.part)

    def finish(self, result: Result) -> None:
        """Write the closing line and give the file its name."""
        data = result_data(result)
        del data["solutions"]  # they are on the lines above
        closing = _line({"line": "end", **data, "solutions_written": self.written})
        with self.lock:
            try:
                self.stream.write(closing.encode())
                self.stream.close()
                os.replace(self.temporary, self.path)
            except OSError as exc:  # the disk is full, the folder went away
                self.discard()
                raise InputError(f"cannot write here ({exc.strerror})", source=str(self.path)) from None

    def discard(self) -> None:
        self.stream.close()
        self.temporary.unlink(missing_ok=True)


class ResultJson(ResultLines):
    """A .json result file of a listing, written as its solutions come, so that a listing
    of millions holds none of them in memory (``keep`` bounds what the Result holds, as for
    a .jsonl file).  The solutions wait as .jsonl lines in the temporary file (the
    kernels' lines go there as fast as to a .jsonl file); ``finish`` writes the .json of
    them (``write_atomically``), a line at a time, as ``result_text`` would."""

    def __init__(self, path: str | Path, header: RunHeader, *, replace: bool = False):
        super().__init__(path, header, replace=replace)
        self.replace = replace

    def finish(self, result: Result) -> None:
        data = result_data(result)
        with self.lock:
            self.stream.close()
            try:
                write_atomically(self.path, _json_text(data, self._entries()), replace=self.replace)
            finally:
                self.temporary.unlink(missing_ok=True)

    def _entries(self) -> Iterator[str]:
        """Each solution's .json entry, from its .jsonl line (the same keys, less "line")."""
        with open(self.temporary, encoding="utf-8") as lines:
            next(lines)  # the header line
            for line in lines:
                yield "{" + line[len(_SOLUTION_LINE) :].rstrip("\n")
