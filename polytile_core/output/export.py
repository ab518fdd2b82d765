"""Write any built model as a CPLEX LP file or an MPS file, in pure Python.

So a model can go to any solver that reads these formats (CPLEX, Gurobi, HiGHS, SCIP,
CBC, ...) without polytile.  Variable ``i`` is written as ``x<i>_<label>`` and
constraint ``j`` as ``c<j>_<name>``, with the characters the formats do not allow
replaced by ``_``: the index prefix keeps names unique and maps a solution read back
by name to the model's variables (``variable_index``).  Every variable is binary.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from polytile_core.errors import InputError
from polytile_core.model.zero_one import Model
from polytile_core.output.resultfile import write_atomically

Format = Literal["lp", "mps"]
FORMATS: tuple[Format, ...] = ("lp", "mps")

# Letters, digits and a few punctuation marks every LP and MPS reader accepts in names.
_NOT_ALLOWED = re.compile(r"[^A-Za-z0-9_.#]")
_TERMS_PER_LINE = 8


def variable_name(model: Model, index: int) -> str:
    return f"x{index}_{_NOT_ALLOWED.sub('_', model.labels[index])}"


def constraint_name(model: Model, index: int) -> str:
    return f"c{index}_{_NOT_ALLOWED.sub('_', model.constraints[index].name)}"


def variable_index(name: str) -> int:
    """The model variable a written name stands for (``x12_L#3`` → 12)."""
    match = re.match(r"x(\d+)(_|$)", name)
    if match is None:
        raise ValueError(f"{name!r} is not a variable name written by polytile")
    return int(match.group(1))


def _require_variables(model: Model) -> None:
    if model.num_variables == 0:
        raise InputError("the model has no variables: nothing to export (no piece fits in the region?)")


def _linear(terms: list[tuple[str, int]]) -> list[str]:
    """A linear expression as LP-format lines of a few terms each."""
    pieces = []
    for position, (name, coefficient) in enumerate(terms):
        sign = "-" if coefficient < 0 else ("+" if position else "")
        magnitude = abs(coefficient)
        term = name if magnitude == 1 else f"{magnitude} {name}"
        pieces.append(f"{sign} {term}".strip())
    return [" ".join(pieces[i : i + _TERMS_PER_LINE]) for i in range(0, len(pieces), _TERMS_PER_LINE)]


def lp_text(model: Model) -> str:
    """The model in CPLEX LP format."""
    _require_variables(model)
    names = [variable_name(model, index) for index in range(model.num_variables)]
    lines = [
        f"\\ polytile model {model.name}: {model.num_variables} binary variables, {len(model.constraints)} constraints"
    ]
    if model.objective is None:
        lines += ["Minimize", " obj:"]
    else:
        lines.append("Maximize" if model.maximize else "Minimize")
        objective = [(names[var], coefficient) for var, coefficient in sorted(model.objective.items()) if coefficient]
        body = _linear(objective) or [""]
        lines.append(f" obj: {body[0]}")
        lines += [f"   {line}" for line in body[1:]]
    lines.append("Subject To")
    for index, constraint in enumerate(model.constraints):
        terms = [(names[var], coefficient) for var, coefficient in constraint.terms if coefficient]
        # A row with no terms still says something (0 = 1 is infeasible): keep it, with a zero term.
        body = _linear(terms) if terms else [f"0 {names[0]}"]
        body[-1] += f" {constraint.sense.replace('==', '=')} {constraint.rhs}"
        lines.append(f" {constraint_name(model, index)}: {body[0]}")
        lines += [f"   {line}" for line in body[1:]]
    lines.append("Binaries")
    lines += [" " + " ".join(names[i : i + _TERMS_PER_LINE]) for i in range(0, len(names), _TERMS_PER_LINE)]
    lines.append("End")
    return "\n".join(lines) + "\n"


def mps_text(model: Model) -> str:
    """The model in MPS format (free-format names: no spaces, may exceed 8 characters)."""
    _require_variables(model)
    names = [variable_name(model, index) for index in range(model.num_variables)]
    rows = [constraint_name(model, index) for index in range(len(model.constraints))]
    named_rows = list(zip(rows, model.constraints, strict=True))
    row_kind = {"==": "E", "<=": "L", ">=": "G"}
    entries: list[list[tuple[str, int]]] = [[] for _ in names]
    for var, coefficient in sorted((model.objective or {}).items()):
        if coefficient:
            entries[var].append(("obj", coefficient))
    for row, constraint in named_rows:
        for var, coefficient in constraint.terms:
            if coefficient:
                entries[var].append((row, coefficient))
    lines = [f"* polytile model {model.name}", f"NAME          {_NOT_ALLOWED.sub('_', model.name)}"]
    if model.objective is not None and model.maximize:
        lines += ["OBJSENSE", "    MAX"]
    lines += ["ROWS", " N  obj"]
    lines += [f" {row_kind[constraint.sense]}  {row}" for row, constraint in named_rows]
    lines += ["COLUMNS", "    MARKER                 'MARKER'                 'INTORG'"]
    for name, column in zip(names, entries, strict=True):
        for row, coefficient in column or [("obj", 0)]:
            lines.append(f"    {name}  {row}  {coefficient}")
    lines += ["    MARKER                 'MARKER'                 'INTEND'", "RHS"]
    lines += [f"    RHS  {row}  {constraint.rhs}" for row, constraint in named_rows if constraint.rhs]
    lines.append("BOUNDS")
    lines += [f" BV BND  {name}" for name in names]
    lines.append("ENDATA")
    return "\n".join(lines) + "\n"


def model_text(model: Model, fmt: Format) -> str:
    if fmt not in FORMATS:
        raise InputError(f"unknown export format {fmt!r} (known: {', '.join(FORMATS)})", path="format")
    return lp_text(model) if fmt == "lp" else mps_text(model)


def format_of(path: str | Path, fmt: Format | None = None) -> Format:
    """The export format: as given, or from the file's extension."""
    if fmt is not None:
        return fmt
    suffix = Path(path).suffix.lower().lstrip(".")
    for known in FORMATS:
        if suffix == known:
            return known
    raise InputError(f"cannot tell the format from the extension {suffix!r}; pass --format lp or mps", source=str(path))


def export_model(model: Model, path: str | Path, fmt: Format | None = None, *, replace: bool = False) -> Path:
    """Write ``model`` to ``path`` (format from ``fmt`` or the extension); refuses to
    replace an existing file unless ``replace``."""
    path = Path(path)
    write_atomically(path, model_text(model, format_of(path, fmt)), replace=replace)
    return path
