"""The tiling model of Garvie & Burkardt (2020), built from pieces and a region."""

from __future__ import annotations

from polytile_core.model.geometry import Region, placements
from polytile_core.model.problem import PieceType
from polytile_core.model.zero_one import Model, Placement


def build_tiling(pieces: tuple[PieceType, ...], region: Region, options=None) -> Model:
    """The exact-cover ILP of Garvie & Burkardt (2020): one 0-1 variable per placement,
    each cell covered exactly once, each piece used within its multiplicity."""
    model = Model(name="tiling")
    covering: dict[tuple[int, int], list[int]] = {cell: [] for cell in sorted(region.cells)}
    for piece in pieces:
        variables = []
        for number, placed in enumerate(placements(piece.orientations(), region)):
            var = model.add_variable(f"{piece.name}#{number}", placement=Placement(piece.name, placed))
            variables.append(var)
            for cell in placed:
                covering[cell].append(var)
        terms = [(var, 1) for var in variables]
        if piece.exact:
            model.add_constraint(terms, "==", piece.minimum, f"piece {piece.name}")
        else:
            if piece.minimum > 0:
                model.add_constraint(terms, ">=", piece.minimum, f"piece {piece.name} min")
            if piece.maximum is not None:
                model.add_constraint(terms, "<=", piece.maximum, f"piece {piece.name} max")
    for (x, y), variables in covering.items():
        model.add_constraint([(var, 1) for var in variables], "==", 1, f"cell {x},{y}")
    return model
