"""What a plugin author needs to test a plugin: known answers, an independent brute
force, random instances, a reference backend, the conformance kits, and the few core
names a test drives a run with.  A plugin's tests import this and ``polytile_core.plugin``
only (tests/unit/test_layers.py checks it).

- ``kits.py``: ``BackendConformance`` and ``DecomposerConformance``, subclassed in a
  plugin's tests; they read the declared capabilities, and every check has a timeout and
  says what it compared.
- ``instances.py``: ``INSTANCES``, small tiling instances with known counts, each naming
  where its count comes from (docs/oracles.md, or the brute force for the one-sided and
  fixed variants, which ``tests/unit/test_testing.py`` checks against the published
  counts too); ``fresh_host(*plugins)``: a Host with only the given plugins.
- ``brute.py``: polytile's one independent tiling lister and counter
  (``tilings_brute_force``, ``count_tilings_brute_force``, ``count_pictures_brute_force``
  up to symmetry), sharing no code with the model builder or any backend, and
  ``placement_problems``, an independent check of one tiling.
- ``random_instances.py``: ``random_pipeline(seed)`` and ``random_instance(rng, area)``,
  instances nobody tuned for.
- ``reference.py``: ``ReferenceBackend`` (registered as ``reference`` by
  ``REFERENCE_PLUGIN``), an exhaustive search for tiny models.

Nothing here needs pytest at import time, so the package is usable from scripts too.
"""

from polytile_core import api
from polytile_core.cli.main import main
from polytile_core.config.pipeline import load_plan, make_plan, read_pipeline, resolve_pieces
from polytile_core.config.schema import PieceSpec, Pipeline, RegionSpec, SolveSpec, SplitSpec
from polytile_core.convert import structure
from polytile_core.host.registry import Host
from polytile_core.model.analysis import augmented_rank, model_size
from polytile_core.model.tiling import build_tiling
from polytile_core.output.export import export_model, mps_text, variable_index
from polytile_core.solve import autosplit
from polytile_core.solve.checkpoint import Checkpoint
from polytile_core.solve.distinct import canonical_key
from polytile_core.solve.run import run
from polytile_core.testing.brute import (
    count_pictures_brute_force,
    count_tilings_brute_force,
    own_orientations,
    picture_symmetries,
    placement_problems,
    tiling_problems,
    tilings_brute_force,
)
from polytile_core.testing.instances import (
    INSTANCES,
    LARGE,
    TWO_L_TETROMINOES,
    UNLIMITED,
    Instance,
    fresh_host,
    optimisation_instance,
    piece_type,
    reference_optimum,
)
from polytile_core.testing.kits import (
    BackendConformance,
    CheckTimedOut,
    DecomposerConformance,
    expect,
    solve_with,
    within,
)
from polytile_core.testing.random_instances import (
    cells_of_table,
    pieces_of_table,
    random_instance,
    random_pipeline,
)
from polytile_core.testing.reference import REFERENCE_PLUGIN, ReferenceBackend

__all__ = [
    # the kits
    "BackendConformance",
    "DecomposerConformance",
    "CheckTimedOut",
    "expect",
    "solve_with",
    "within",
    # known answers
    "INSTANCES",
    "LARGE",
    "TWO_L_TETROMINOES",
    "UNLIMITED",
    "Instance",
    "fresh_host",
    "optimisation_instance",
    "piece_type",
    "reference_optimum",
    # the brute force
    "count_pictures_brute_force",
    "count_tilings_brute_force",
    "own_orientations",
    "picture_symmetries",
    "placement_problems",
    "tiling_problems",
    "tilings_brute_force",
    # random instances
    "cells_of_table",
    "pieces_of_table",
    "random_instance",
    "random_pipeline",
    # the reference backend
    "REFERENCE_PLUGIN",
    "ReferenceBackend",
    # driving a run from a test
    "api",
    "main",
    "Host",
    "load_plan",
    "make_plan",
    "read_pipeline",
    "resolve_pieces",
    "run",
    "structure",
    "Pipeline",
    "PieceSpec",
    "RegionSpec",
    "SolveSpec",
    "SplitSpec",
    "Checkpoint",
    "autosplit",
    "build_tiling",
    "canonical_key",
    "augmented_rank",
    "model_size",
    "export_model",
    "mps_text",
    "variable_index",
]
