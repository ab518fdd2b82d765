"""The tiling model of Garvie & Burkardt (2020), built from pieces and a region."""

from __future__ import annotations

from polytile_core.errors import InputError
from polytile_core.model.area import narrowed_by_area
from polytile_core.model.geometry import Region, placements
from polytile_core.model.problem import PieceType
from polytile_core.model.zero_one import Model


def build_tiling(pieces: tuple[PieceType, ...], region: Region | None, options: object = None) -> Model:
    """The exact-cover ILP of Garvie & Burkardt (2020): one 0-1 variable per placement,
    each cell covered exactly once, each piece used within its multiplicity, narrowed to
    the copies the region's area leaves room for (``area.py``).

    Lean on memory (a 100×100 board with unlimited pentominoes has 606,000 placements):
    placements share the region's cell tuples, and each variable's ``(var, 1)`` term is
    one tuple shared by its piece row and its cell rows."""
    if region is None:
        raise InputError("region: a tiling needs a region ([region] rows or width and height)")
    model = Model(name="tiling")
    features: set[str] = set()  # what ``model_features`` would read from the rows below
    covering: dict[tuple[int, int], list[tuple[int, int]]] = {cell: [] for cell in sorted(region.cells)}
    copies = narrowed_by_area(
        [piece.area for piece in pieces], [(piece.minimum, piece.maximum) for piece in pieces], region.area
    )
    for piece, (minimum, maximum) in zip(pieces, copies, strict=True):
        terms: list[tuple[int, int]] = []
        for shape in piece.orientations():  # one at a time: ``add_placements`` checks the run's clock
            placed = placements([shape], region)
            added = [(var, 1) for var in model.add_placements(piece.name, placed, numbered_from=len(terms))]
            terms += added
            for term, cells in zip(added, placed, strict=True):
                for cell in cells:
                    covering[cell].append(term)
        if minimum == maximum:
            model.add_constraint(terms, "==", minimum, f"piece {piece.name}")
            if minimum != 1:
                features.add("count rows")
        else:
            if minimum > 0:
                model.add_constraint(terms, ">=", minimum, f"piece {piece.name} min")
            if maximum is not None:
                model.add_constraint(terms, "<=", maximum, f"piece {piece.name} max")
            if minimum > 0 or maximum is not None:
                features.add("ranges")
    for (x, y), terms in covering.items():
        model.add_constraint(terms, "==", 1, f"cell {x},{y}")
    model.stated_features = (frozenset(features), len(model.constraints), model.num_variables)
    return model
