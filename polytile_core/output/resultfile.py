"""Result files: JSON (or TOML, chosen by the extension), written atomically,
never over a file that is already there unless asked."""

from __future__ import annotations

import json
import os
import tempfile
import tomllib
from pathlib import Path

import tomli_w

from polytile_core.convert import CONVERTER, structure
from polytile_core.errors import InputError
from polytile_core.output.results import Result


def result_data(result: Result) -> dict:
    data = CONVERTER.unstructure(result)
    data["gap"] = result.gap
    return data


def _without_none(value):
    if isinstance(value, dict):
        return {key: _without_none(item) for key, item in value.items() if item is not None}
    if isinstance(value, (list, tuple)):
        return [_without_none(item) for item in value]
    return value


def result_text(result: Result, fmt: str = "json") -> str:
    data = result_data(result)
    if fmt == "toml":
        return tomli_w.dumps(_without_none(data))
    return json.dumps(data, indent=1) + "\n"


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_atomically(path: Path, text: str | bytes, *, replace: bool = False) -> None:
    """Write ``text`` (or bytes) to ``path`` through a temporary file and a rename, so a
    run killed while writing never leaves a half-written file under the name asked for.

    Refuses to replace an existing file unless ``replace`` is true.
    """
    path = Path(path)
    if path.exists() and not replace:
        raise InputError("the file exists already; choose another name or pass --force", source=str(path))
    directory = path.parent if str(path.parent) else Path(".")
    try:
        handle, temporary = tempfile.mkstemp(dir=directory, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:  # a missing or read-only directory
        raise InputError(f"cannot write here ({exc.strerror})", source=str(path)) from None
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(text if isinstance(text, bytes) else text.encode("utf-8"))
        os.chmod(temporary, 0o666 & ~_umask())  # mkstemp makes 0600; give the usual mode
        os.replace(temporary, path)
    except BaseException as exc:
        Path(temporary).unlink(missing_ok=True)
        if isinstance(exc, OSError):  # e.g. the path is a directory, or the disk is full
            raise InputError(f"cannot write here ({exc.strerror})", source=str(path)) from None
        raise


def write_result(result: Result, path: str | Path, *, replace: bool = False) -> None:
    path = Path(path)
    fmt = "toml" if path.suffix == ".toml" else "json"
    write_atomically(path, result_text(result, fmt), replace=replace)


def read_result(path: str | Path) -> Result:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
    except FileNotFoundError:
        raise InputError("no such file", source=str(path)) from None
    except (OSError, ValueError) as exc:
        raise InputError(f"not a readable result file ({exc})", source=str(path)) from None
    if not isinstance(data, dict):
        raise InputError("a result file holds one table", source=str(path))
    data.pop("gap", None)
    return structure(data, Result, source=str(path))
