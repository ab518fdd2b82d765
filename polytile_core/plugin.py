"""Everything a plugin needs, in one place: ``from polytile_core.plugin import ...``.

Like ``pytest`` over ``_pytest``, this module is the plugin author's door into the core;
the rooms behind it (``host``, ``model``, ``output``, ``config``) may move, this stays.
Plugins import nothing else of the core (tests/unit/test_layers.py refuses it), and their
tests import this and ``polytile_core.testing``.

What a plugin provides, by hook (``polytile_core.host.hookspecs`` documents each):

==============================  ===================================  =========================
hook                            ``register`` takes                   contract
==============================  ===================================  =========================
``polytile_register_families``  ``Register[Family]``                 ``Family``
``polytile_register_builders``  ``Register[Builder]``                ``Builder`` → ``Model``
``polytile_register_decomposers`` ``Register[Decomposer]``           ``Decomposer`` → ``Split``
``polytile_register_backends``  ``Register[BackendFactory]``         ``Backend`` → ``BackendResult``
``polytile_register_renderers`` ``Register[Renderer]``               ``Renderer``
``polytile_register_executors`` ``Register[ExecutorFactory]``        ``ExecutorFactory`` (``StopsItsParts``)
``polytile_register_tilers``    ``Register[Tiler]``                  ``Tiler`` → ``LargeTiling``
``polytile_register_flags``     ``Register[Flag]``                   ``Flag`` (a command-line flag)
==============================  ===================================  =========================
"""

from __future__ import annotations

from polytile_core import hookimpl
from polytile_core.config.schema import doc
from polytile_core.errors import InputError
from polytile_core.host.builtin import CLASSIC_FAMILIES
from polytile_core.host.capabilities import BackendCapabilities, BuilderCapabilities, DecomposerCapabilities, Feature
from polytile_core.host.contracts import (
    Backend,
    BackendFactory,
    BackendResult,
    Builder,
    Decomposer,
    ExecutorFactory,
    Family,
    LargeStatus,
    LargeTiling,
    Mode,
    OnSolution,
    Register,
    Renderer,
    SolveSettings,
    StopsItsParts,
    Tiler,
    Work,
    progress_reporter,
    relay_stop,
    report_progress,
)
from polytile_core.host.flags import Flag
from polytile_core.host.machine import usable_cores, usable_memory
from polytile_core.model.fill_order import FILLED_IN_ORDER, fill_order, first_branch, scan_order
from polytile_core.model.geometry import (
    EDGE_STEPS,
    KING_STEPS,
    SQUARE_SYMMETRIES,
    SYMMETRIES_OF_KIND,
    Cell,
    Cells,
    Kind,
    Region,
    cells_from_rows,
    components,
    is_connected,
    kind_symmetries,
    normalise,
    orientations,
    placements,
    rows_from_cells,
)
from polytile_core.model.parts import BuildModel, Part, Split, SplitTooLarge
from polytile_core.model.problem import PieceType, TilingProblem
from polytile_core.model.symmetry import (
    Anchor,
    Permutation,
    burnside,
    checked_symmetries,
    choose_anchor,
    fixed_model,
    is_smallest_image,
    may_have_symmetries,
    movers,
    placement_symmetries,
    search_symmetries,
)
from polytile_core.model.zero_one import Constraint, Model, Pins, Placement, check_build_limits, collector_paused
from polytile_core.output.resultfile import LineSink, SolutionLines, write_atomically
from polytile_core.output.results import Found, PlacedPiece, Result, Solution, Termination

__all__ = [
    # registering: the marker, the register callable's type, and what each hook registers
    "hookimpl",
    "Register",
    "Family",
    "Builder",
    "Decomposer",
    "BackendFactory",
    "Backend",
    "Renderer",
    "ExecutorFactory",
    "Tiler",
    "Flag",
    # declared capabilities (read by backend = "auto", the pipeline's checks and the conformance kits)
    "BackendCapabilities",
    "BuilderCapabilities",
    "DecomposerCapabilities",
    "Feature",
    # options tables: field metadata for the schema, and the one error users see
    "doc",
    "InputError",
    # geometry
    "Cell",
    "Cells",
    "Kind",
    "Region",
    "EDGE_STEPS",
    "KING_STEPS",
    "SQUARE_SYMMETRIES",
    "SYMMETRIES_OF_KIND",
    "CLASSIC_FAMILIES",
    "cells_from_rows",
    "rows_from_cells",
    "components",
    "is_connected",
    "kind_symmetries",
    "normalise",
    "orientations",
    "placements",
    # the problem and its 0-1 model
    "PieceType",
    "TilingProblem",
    "Model",
    "Constraint",
    "Placement",
    "Pins",
    "check_build_limits",
    "collector_paused",
    # the order a cell-filling search takes
    "FILLED_IN_ORDER",
    "fill_order",
    "first_branch",
    "scan_order",
    # splitting into parts
    "BuildModel",
    "Part",
    "Split",
    "SplitTooLarge",
    # symmetry
    "Anchor",
    "Permutation",
    "burnside",
    "checked_symmetries",
    "may_have_symmetries",
    "choose_anchor",
    "fixed_model",
    "is_smallest_image",
    "movers",
    "placement_symmetries",
    "search_symmetries",
    # solving
    "Mode",
    "Work",
    "SolveSettings",
    "StopsItsParts",
    "OnSolution",
    "LineSink",
    "SolutionLines",
    "BackendResult",
    "LargeStatus",
    "LargeTiling",
    "progress_reporter",
    "relay_stop",
    "report_progress",
    # results
    "Termination",
    "Found",
    "Result",
    "Solution",
    "PlacedPiece",
    "write_atomically",
    # the machine: what budgets may take of it
    "usable_cores",
    "usable_memory",
]
