"""polytile plugin: the largest area a set of pieces can fence in (``problem = "enclose"``).

The builder writes Furmanek's ILP made exact (see ``model.py``) and states the problem
for the ``fence`` backend, the default for enclosures: a boundary search that proves the
largest pocket (``fence.py``, ``backend.py``).  Every solution a run returns is re-checked
by an independent flood fill (``check.py``).
"""

from __future__ import annotations

import functools

from polytile_core.plugin import (
    BackendCapabilities,
    BackendFactory,
    Builder,
    BuilderCapabilities,
    Model,
    PieceType,
    Region,
    Register,
    Solution,
    hookimpl,
)
from polytile_enclosure.backend import FenceBackend
from polytile_enclosure.check import EnclosureCheckError, check_fence, enclosed_area, enclosed_pockets
from polytile_enclosure.model import build as build_model
from polytile_enclosure.options import EncloseOptions

__all__ = ["EncloseOptions", "EnclosureCheckError", "build", "check_fence", "enclosed_area", "enclosed_pockets"]


def verify(solution: Solution, *, board: frozenset, neighbours: int, score: str) -> None:
    """The plugin's check of a returned fence, by flood fill (raises on disagreement)."""
    fence = [(x, y) for placed in solution.placements for x, y in placed.cells]
    check_fence(fence, solution.interior or (), solution.objective, board, neighbours, score)


def build(
    pieces: tuple[PieceType, ...], region: Region | None, options: EncloseOptions | None, rows: bool = True
) -> Model:
    """Build the enclosure model (with ``rows=False``, for the fence backend, the statement
    alone) and attach its details and its independent check."""
    options = options or EncloseOptions()
    model = build_model(pieces, region, options, rows)
    model.verify = functools.partial(verify, board=model.board, neighbours=options.neighbours, score=options.score)
    return model


@hookimpl
def polytile_register_builders(register: Register[Builder]) -> None:
    register(
        "enclose",
        build,
        options=EncloseOptions,
        help="fence in the largest area with the pieces (classic or 4-neighbour rule; all pockets or one region)",
        backend="fence",
        capabilities=BuilderCapabilities(lists_optimal="options.enclose.list_optimal = true"),
    )


def make_backend(options: None = None) -> FenceBackend:
    return FenceBackend()


@hookimpl
def polytile_register_backends(register: Register[BackendFactory]) -> None:
    register(
        "fence",
        make_backend,
        help="enclosures only: the boundary search, which proves the largest pocket (the default for enclose)",
        # It optimises enclosure models only, so it ranks no mode: auto reaches it through the
        # enclose builder, which declares it as its problem's own backend.
        # It reads the builder's statement (Model.problem), never the grid model's rows.
        capabilities=BackendCapabilities(modes={"optimize"}, reads_model=False),
    )
