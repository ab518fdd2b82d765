"""The pipeline file as typed data: what a user writes in ``pipeline.toml``.

Every field carries a ``description`` that ends up in the generated JSON Schema
(``polytile schema pipeline``).  Plugin options live in ``[options.<plugin-name>]``
and are checked against the options class the plugin registered.
"""

from __future__ import annotations

import attrs

from polytile_core.host.capabilities import AUTO
from polytile_core.host.contracts import PipelineMode
from polytile_core.host.registry import Host
from polytile_core.model.geometry import Kind, cells_from_rows
from polytile_core.output import notebook
from polytile_core.output.gallery import shelf_solution, solutions_result
from polytile_core.output.results import Result

# A row of an ASCII picture, as polytile_core.model.geometry.cells_from_rows reads it.
ROW = {"pattern": "^[#. ]*$"}


def doc(text: str, **constraints: object) -> dict:
    """A field's metadata: the description ``polytile schema`` writes for the key, and
    JSON Schema constraints the loader also checks (``minimum=1``...).  Plugins use it
    for their options classes too."""
    return {"description": text, "json_schema": constraints} if constraints else {"description": text}


@attrs.frozen
class RegionSpec:
    """The region to tile: ASCII ``rows`` ('#' a cell, '.' a hole), or ``width`` × ``height``."""

    rows: list[str] | None = attrs.field(
        default=None, metadata=doc("the region as ASCII rows: '#' a cell, '.' empty", minItems=1, items=ROW)
    )
    width: int | None = attrs.field(
        default=None, metadata=doc("width of a rectangular region (with height)", minimum=1)
    )
    height: int | None = attrs.field(
        default=None, metadata=doc("height of a rectangular region (with width)", minimum=1)
    )


@attrs.frozen
class PieceSpec:
    """One piece (``shape`` or ``cells``) or a whole family (``family``), with its multiplicity.

    Multiplicity: ``count`` exactly; or ``min``/``max`` (a missing ``max`` means no upper
    limit); or ``unlimited = true``; with none of these, each piece is used exactly once.
    """

    name: str | None = attrs.field(default=None, metadata=doc("the piece's name (its first letter is drawn)"))
    shape: list[str] | None = attrs.field(
        default=None, metadata=doc("the piece as ASCII rows: '#' a cell, '.' empty", minItems=1, items=ROW)
    )
    cells: list[list[int]] | None = attrs.field(
        default=None,
        metadata=doc("the piece as a list of [x, y] cells", minItems=1, items={"minItems": 2, "maxItems": 2}),
    )
    family: str | None = attrs.field(
        default=None, metadata=doc("a named family instead of a shape, e.g. 'pentominoes'")
    )
    n: int | None = attrs.field(default=None, metadata=doc("size parameter of a family such as 'n-ominoes'"))
    kind: Kind = attrs.field(default="free", metadata=doc("free (rotate and reflect), one-sided (rotate) or fixed"))
    count: int | None = attrs.field(default=None, metadata=doc("exact number of copies of each piece", minimum=0))
    min: int | None = attrs.field(default=None, metadata=doc("least number of copies", minimum=0))
    max: int | None = attrs.field(default=None, metadata=doc("most number of copies", minimum=0))
    unlimited: bool = attrs.field(default=False, metadata=doc("any number of copies, none included"))

    # In a notebook: the piece, or every piece of the family, side by side.
    def _repr_svg_(self) -> str | None:
        return notebook.svg_of(self._shelf())

    def _repr_html_(self) -> str | None:
        return notebook.html_of(self._shelf())

    def _shelf(self) -> Result:
        if self.family is not None:
            shapes = Host().get("families", self.family).provides(n=self.n, kind=self.kind)
        else:
            cells = cells_from_rows(self.shape) if self.shape is not None else tuple(map(tuple, self.cells or ()))
            shapes = [(self.name or "P", cells)]
        return solutions_result([shelf_solution(shapes)])


@attrs.frozen
class SolveSpec:
    """How to solve: what to look for, with which backend, within which limits."""

    mode: PipelineMode = attrs.field(
        default="one", metadata=doc("one: find a tiling; all: list every tiling; count: count them")
    )
    backend: str = attrs.field(
        default=AUTO,
        metadata=doc(
            "the backend plugin (see `polytile plugins`), or auto: polytile chooses (and races) the fastest routes; "
            "a problem kind's own backend when its builder names one (fence for enclosures)"
        ),
    )
    time_limit: float | None = attrs.field(
        default=None, metadata=doc("seconds before giving up (whole run)", exclusiveMinimum=0)
    )
    workers: int | None = attrs.field(
        default=None, metadata=doc("solver threads per solve (backend default if unset)", minimum=1)
    )
    seed: int | None = attrs.field(
        default=None, metadata=doc("random seed for the backend", minimum=0, maximum=2**31 - 1)
    )
    distinct: bool = attrs.field(default=False, metadata=doc("also count tilings up to the region's symmetry"))
    keep: int | None = attrs.field(
        default=None, metadata=doc("solutions kept in the result (default: all in mode all, one otherwise)", minimum=0)
    )
    jobs: int | None = attrs.field(
        default=None,
        metadata=doc(
            "parts of a split, or routes of a race, solved at once (default: the usable cores with "
            "backend auto, else 1)",
            minimum=1,
        ),
    )
    executor: str = attrs.field(
        default="auto",
        metadata=doc(
            "executor plugin running the parts of a split; auto: threads when the backend searches "
            "outside the GIL (exactcover), else a process pool"
        ),
    )


@attrs.frozen
class SplitSpec:
    """Split the problem into independent parts before solving."""

    method: str = attrs.field(metadata=doc("the decomposer plugin, e.g. 'checkerboard'"))


@attrs.frozen
class Pipeline:
    """A polytile pipeline file."""

    problem: str = attrs.field(default="tiling", metadata=doc("the problem kind: a model builder plugin's name"))
    region: RegionSpec | None = attrs.field(default=None, metadata=doc("the region to tile"))
    pieces: list[PieceSpec] = attrs.field(
        factory=list, metadata=doc("the pieces, one table each ([[pieces]])", minItems=1)
    )
    solve: SolveSpec = attrs.field(factory=SolveSpec, metadata=doc("how to solve"))
    split: SplitSpec | None = attrs.field(default=None, metadata=doc("an optional decomposition"))
    options: dict[str, dict] = attrs.field(
        factory=dict, metadata=doc("plugin options, one table per plugin: [options.<plugin>]")
    )
