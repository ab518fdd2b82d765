"""Random pipelines nobody tuned for: seeded examples and random small instances (draw
the seed fresh each run and print it on failure)."""

from __future__ import annotations

import random

from polytile_core.host.builtin import CLASSIC_FAMILIES
from polytile_core.model.geometry import Cell
from polytile_core.model.problem import PieceType
from polytile_core.testing.brute import own_orientations
from polytile_core.testing.instances import UNLIMITED, piece_type

RANDOM_SHAPES = {
    "M": ["#"],
    "D": ["##"],
    "I3": ["###"],
    "V3": ["#.", "##"],
    "I4": ["####"],
    "O": ["##", "##"],
    "T": ["###", ".#."],
    "L": ["#.", "#.", "##"],
    "S": [".##", "##."],
    "P": ["##", "##", "#."],
}
# A reflection (or, for a fixed domino, a turn) carries each of these onto its partner:
# with the same kind and copies, such a pair makes a symmetry count that turns one into
# the other.  Only for the kinds where the two differ (a free L is also a J).
PARTNERS = {
    "L": ("J", [".#", ".#", "##"], ("one-sided", "fixed")),
    "S": ("Z", ["##.", ".##"], ("one-sided", "fixed")),
    "P": ("Q", ["##", "##", ".#"], ("one-sided", "fixed")),
    "D": ("V", ["#", "#"], ("fixed",)),
}


def _random_fill(
    rng: random.Random, width: int, height: int, shapes: list[list[frozenset[Cell]]], holes: bool
) -> tuple[set[Cell], list[int]]:
    """Cover a width × height box greedily at random: each empty cell, in reading order,
    gets a random orientation of a random piece that fits there, or becomes a hole when
    none fits (or, with ``holes``, now and then anyway).  Returns the cells covered (a
    region with at least that tiling) and how often each piece was used; a monomino at
    most twice, or it would fill any region in too many ways."""
    empty = {(x, y) for x in range(width) for y in range(height)}
    covered: set[Cell] = set()
    used = [0] * len(shapes)
    while empty:
        first_x, first_y = min(empty, key=lambda cell: (cell[1], cell[0]))
        choices = [(index, shape) for index, forms in enumerate(shapes) for shape in forms]
        rng.shuffle(choices)
        for index, shape in choices if not holes or rng.random() > 0.1 else ():
            if len(shape) == 1 and used[index] >= 2:
                continue
            anchor_x, anchor_y = min(shape, key=lambda cell: (cell[1], cell[0]))
            cells = {(x - anchor_x + first_x, y - anchor_y + first_y) for x, y in shape}
            if cells <= empty:
                empty -= cells
                covered |= cells
                used[index] += 1
                break
        else:
            empty.discard((first_x, first_y))
    return covered, used


def _random_copies(rng: random.Random, used: int, name: str) -> dict:
    """Copies that allow the ``used`` of a known tiling (now and then one off, so the
    example may have no tiling): exactly once (no key), an exact count, a range (maybe
    open above), or unlimited; monominoes at most twice."""
    few = name == "M"
    if rng.random() < 0.1 and not few:
        used = max(used + rng.choice([-1, 1]), 0)
    ways = ["count", "range"] + (["once"] if used == 1 else []) + ([] if few else ["unlimited"])
    how = rng.choice(ways)
    if how == "count":
        return {"count": used}
    if how == "range":
        low = rng.randint(0, used)
        if few:
            return {"min": low, "max": 2}
        if rng.random() < 0.3:
            return {"min": low}
        return {"min": low, "max": used + rng.randint(0, 2)}
    return {"unlimited": True} if how == "unlimited" else {}


def random_pipeline(seed: int) -> dict:
    """Example ``seed`` (the same on every run and every Python): a pipeline table with
    one to three pieces, each free, one-sided or fixed (with its ``PARTNERS`` of the same
    kind, and mostly the same copies, half of the time), and a region of up to 5×4 cells
    (3×4 with a monomino): in two examples of three the cells a random fill covered
    (holes, notches, several components; at least one tiling), in the third the whole
    rectangle (symmetric; with a tiling when a random fill found one).  Copies: once, an
    exact count, a range or unlimited, around those of the fill."""
    rng = random.Random(seed)
    chosen = []
    for name in rng.sample(sorted(RANDOM_SHAPES), rng.randint(1, 3)):
        kind = rng.choice(["free", "one-sided", "fixed"])
        chosen.append((name, RANDOM_SHAPES[name], kind))
        if name in PARTNERS and kind in PARTNERS[name][2] and rng.random() < 0.5:
            chosen.append((*PARTNERS[name][:2], kind))
    chosen = chosen[:3]
    # Monominoes fill the gaps of any tiling: a smaller box keeps the counts small.
    width, height = rng.randint(1, 5 if "M" not in [name for name, _, _ in chosen] else 3), rng.randint(2, 4)
    if rng.random() < 0.5:
        width, height = height, width
    shapes = [sorted(own_orientations(piece_type(name, rows).cells, kind), key=sorted) for name, rows, kind in chosen]
    if rng.random() < 1 / 3:
        whole = {(x, y) for x in range(width) for y in range(height)}
        for _ in range(20):  # a fill with no hole, when one is found, gives the copies
            covered, used = _random_fill(rng, width, height, shapes, holes=False)
            if covered == whole:
                break
        covered = whole
    else:
        covered, used = _random_fill(rng, width, height, shapes, holes=True)
        covered = covered or {(x, y) for x in range(width) for y in range(height)}
    pieces = []
    copies_of: dict[str, dict] = {}
    for (name, rows, kind), times in zip(chosen, used, strict=True):
        partner_of = next((first for first, (second, *_) in PARTNERS.items() if second == name), None)
        if partner_of in copies_of and rng.random() < 0.8:
            copies = copies_of[partner_of]  # the same copies: the pair makes a symmetry count
        else:
            copies = _random_copies(rng, times, name)
        copies_of[name] = copies
        pieces.append({"name": name, "shape": rows, "kind": kind, **copies})
    rows = ["".join("#" if (x, y) in covered else "." for x in range(width)) for y in range(height)]
    return {"region": {"rows": rows}, "pieces": pieces}


def random_instance(rng: random.Random, area: int) -> dict:
    """A pipeline table of about ``area`` cells that nobody tuned for: a box with a few
    random holes (or a random fill's notches), one to six trominoes, tetrominoes or
    pentominoes, each free, one-sided or fixed, copies once, exact, a range or
    unlimited around those of a random fill (so most have tilings, some none).  Draw
    ``rng`` from a fresh seed and print the seed on failure."""
    pool = {
        f"{name}{size}": rows
        for size, family in ((3, "trominoes"), (4, "tetrominoes"), (5, "pentominoes"))
        for name, rows in CLASSIC_FAMILIES[family].items()
    }
    chosen = [
        (name, pool[name], rng.choice(["free", "one-sided", "fixed"]))
        for name in rng.sample(sorted(pool), rng.randint(1, 6))
    ]
    width = rng.randint(max(2, int(area**0.5) - 3), int(area**0.5) + 3)
    height = max(2, area // width)
    shapes = [sorted(own_orientations(piece_type(name, rows).cells, kind), key=sorted) for name, rows, kind in chosen]
    covered, used = _random_fill(rng, width, height, shapes, holes=rng.random() < 0.5)
    if rng.random() < 0.5 or not covered:  # the box less a few random cells, copies still from the fill
        box = [(x, y) for x in range(width) for y in range(height)]
        covered = set(box) - set(rng.sample(box, rng.randint(0, 3)))
    pieces = [
        {"name": name, "shape": rows, "kind": kind, **_random_copies(rng, times, name)}
        for (name, rows, kind), times in zip(chosen, used, strict=True)
    ]
    rows = ["".join("#" if (x, y) in covered else "." for x in range(width)) for y in range(height)]
    return {"region": {"rows": rows}, "pieces": pieces}


def cells_of_table(table: dict) -> list[Cell]:
    """The region of a pipeline table with ``rows``, read here rather than by polytile."""
    return [(x, y) for y, row in enumerate(table["region"]["rows"]) for x, char in enumerate(row) if char == "#"]


def pieces_of_table(table: dict) -> list[PieceType]:
    """The pieces of a pipeline table with shapes, read here rather than by polytile."""
    found = []
    for piece in table["pieces"]:
        if piece.get("unlimited"):
            low, high = 0, UNLIMITED
        elif "count" in piece:
            low = high = piece["count"]
        else:
            low, high = piece.get("min", 0), piece.get("max")
            if "min" not in piece and "max" not in piece:
                low = high = 1
        found.append(piece_type(piece["name"], piece["shape"], piece.get("kind", "free"), low, high))
    return found
