"""The fence finder's checkpoint: the best order and fence so far, to resume a long run.

A JSON file that says what it is (``MARK``): the pieces it was made for, the rule, the
best order of the copies, the best fence (each piece's name and cells, and the pocket's
size), the seeds, settings and work of the runs so far.  A file that is not one of ours
is never overwritten.  Nothing in a checkpoint is trusted: on loading, its pieces must
be the run's, and its fence is checked again from scratch (each piece one of the
named piece's orientations, no more copies than there are, no overlap, and the pocket
measured by the flood fill of check.py).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import attrs

from polytile_core.plugin import InputError, PieceType, normalise, write_atomically
from polytile_enclosure.check import enclosed_pockets
from polytile_enclosure.fence import Fenced
from polytile_enclosure.finder import box_of

MARK = "polytile fence checkpoint"
VERSION = 1


@attrs.frozen
class Checkpoint:
    """A run's state: the best fence and the order that gave it, and the runs so far."""

    order: tuple[int, ...]
    fence: Fenced | None
    runs: tuple[dict[str, Any], ...] = ()


def describe(pieces: tuple[PieceType, ...] | list[PieceType]) -> list[dict[str, Any]]:
    """The pieces as a checkpoint names them (a checkpoint is for one set of pieces)."""
    return [
        {"name": piece.name, "cells": [list(cell) for cell in piece.cells], "kind": piece.kind, "count": piece.maximum}
        for piece in pieces
    ]


def writable(path: Path) -> None:
    """Refuse, before any search, to write over a file that is not one of our checkpoints."""
    if path.is_dir():
        raise InputError("is a directory, expected a checkpoint file", source=str(path))
    if path.exists():
        _read(path)


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(
            f"cannot read it as a fence checkpoint ({exc}); polytile writes only its own checkpoints "
            "and never overwrites another file",
            source=str(path),
        ) from None
    if not isinstance(data, dict) or data.get("format") != MARK:
        raise InputError(
            f'not a fence checkpoint (no "format": "{MARK}"); polytile never overwrites another file',
            source=str(path),
        )
    if data.get("version") != VERSION:
        raise InputError(f"expected version {VERSION}, got {data.get('version')!r}", source=str(path), path="version")
    return data


def save(path: Path, pieces: list[PieceType], neighbours: int, checkpoint: Checkpoint) -> None:
    """Write (or replace, when it is ours) the checkpoint, through a temporary file."""
    writable(path)
    fence = checkpoint.fence
    data = {
        "format": MARK,
        "version": VERSION,
        "neighbours": neighbours,
        "pieces": describe(pieces),
        "order": list(checkpoint.order),
        "pocket": len(fence.pocket) if fence else 0,
        "fence": [[name, [list(cell) for cell in cells]] for name, cells in fence.placements] if fence else [],
        "runs": list(checkpoint.runs),
    }
    lines = ",\n".join(f" {json.dumps(key)}: {json.dumps(value)}" for key, value in data.items())
    write_atomically(path, "{\n" + lines + "\n}\n", replace=True)


def load(path: Path, pieces: list[PieceType], neighbours: int) -> Checkpoint | None:
    """The checkpoint at ``path`` (None if there is none yet), checked as the module says."""
    if not path.exists():
        return None
    data = _read(path)
    source = str(path)

    def wrong(key: str, expected: str) -> InputError:
        return InputError(
            f"expected {expected}; this checkpoint cannot be used (delete it to start afresh)", source=source, path=key
        )

    if data.get("neighbours") != neighbours:
        raise wrong("neighbours", f"the run's rule, {neighbours} neighbours, got {data.get('neighbours')!r}")
    if data.get("pieces") != describe(pieces):
        raise wrong("pieces", "the run's pieces (it was written for another set)")
    copies = sum(piece.maximum or 0 for piece in pieces)
    order = data.get("order")
    if not isinstance(order, list) or sorted(order) != list(range(copies)) or not all(type(k) is int for k in order):
        raise wrong("order", f"each of the {copies} copies numbered 0 to {copies - 1} once")
    runs = data.get("runs")
    if not isinstance(runs, list) or not all(isinstance(run, dict) for run in runs):
        raise wrong("runs", "a list of tables")
    return Checkpoint(tuple(order), _fence(data, pieces, wrong), tuple(runs))


def _fence(data: dict[str, Any], pieces: list[PieceType], wrong: Any) -> Fenced | None:
    """The checkpoint's fence, rebuilt and measured here: never taken on trust."""
    placed = data.get("fence")
    if not isinstance(placed, list):
        raise wrong("fence", "a list of [piece name, cells]")
    if not placed:
        return None
    shapes = {piece.name: {normalise(shape) for shape in piece.orientations()} for piece in pieces}
    counts = {piece.name: piece.maximum or 0 for piece in pieces}
    placements = []
    for k, entry in enumerate(placed):
        try:
            name, cells = entry
            cells = tuple(sorted((x, y) for x, y in cells))
        except (TypeError, ValueError):
            raise wrong(f"fence[{k}]", "[piece name, [[x, y], ...]]") from None
        if not cells or not all(type(c) is int for cell in cells for c in cell):
            raise wrong(f"fence[{k}]", "cells given as [x, y] with whole numbers")
        if name not in shapes or normalise(cells) not in shapes[name]:
            raise wrong(f"fence[{k}]", f"the cells of one orientation of a piece of the set (got {name!r})")
        placements.append((name, cells))
    used = Counter(name for name, _ in placements)
    for name, count in used.items():
        if count > counts[name]:
            raise wrong("fence", f"at most {counts[name]} copies of {name!r}, got {count}")
    fence = [cell for _, cells in placements for cell in cells]
    if len(set(fence)) != len(fence):
        raise wrong("fence", "pieces that do not overlap")
    pockets = enclosed_pockets(fence, box_of(fence), data["neighbours"])
    pocket = pockets[0] if pockets else frozenset()
    if data.get("pocket") != len(pocket):
        raise wrong(
            "pocket",
            f"the size of the fence's largest pocket by the flood fill, {len(pocket)}, got {data.get('pocket')!r}",
        )
    return Fenced(tuple(placements), pocket)
