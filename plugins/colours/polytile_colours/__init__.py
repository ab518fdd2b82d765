"""polytile decomposer ``colours``: the k-colour split (Garvie & Burkardt 2026).

Colour the region with k colours, cell (x, y) getting (x + shift·y) mod k.  Each piece
falls into coloured variants; every tiling uses some number y_v of each variant, and
those numbers solve the colour-count equations (copies per piece, cells of each colour of
the region).  Each solution y is a part: the tiling model restricted to the placements of
the variants it uses, with one count row per variant; the tilings are partitioned among
the parts.  No solution y at all proves that there is no tiling, with no search.  k = 2
is the checkerboard split of 2022 (docs/split.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Literal

import attrs
from polytile_checkerboard import VariantParts

from polytile_colours.colouring import Colouring, Variant, coloured_variants
from polytile_colours.equations import ColourCounts, TooMany
from polytile_core.plugin import (
    BuildModel,
    Decomposer,
    DecomposerCapabilities,
    InputError,
    Model,
    Part,
    Register,
    Split,
    TilingProblem,
    hookimpl,
)

# States the colour-count tables may hold in all, and seconds to build them, before the
# split gives up on them and makes one part, the whole problem (which still partitions
# the tilings): ``polytile analyze`` and a run must end in seconds on any region.
TABLE_BUDGET = 200_000
TABLE_SECONDS = 3.0


def _at_least(least: int) -> Callable[[object, attrs.Attribute, int], None]:
    """A check of an option, naming its key relative to ``[options.colours]`` (the core
    puts the table in front)."""

    def check(instance: object, attribute: attrs.Attribute, value: int) -> None:
        if value < least:
            raise InputError(f"expected {least} or more, got {value}", path=attribute.name)

    return check


@attrs.frozen
class ColoursOptions:
    """Options of the k-colour split, from ``[options.colours]``."""

    colours: int = attrs.field(
        default=3,
        validator=_at_least(2),
        metadata={"description": "k, the number of colours: cell (x, y) has colour (x + shift*y) mod k"},
    )
    shift: int = attrs.field(
        default=1,
        validator=_at_least(0),
        metadata={"description": "how far the colours move along from one row to the next (1: diagonal stripes)"},
    )
    variants: Literal["patterns", "counts"] = attrs.field(
        default="patterns",
        metadata={
            "description": "patterns: a variant per coloured shape up to the piece's symmetries (as the papers; "
            "colours = 2 is then the checkerboard split); counts: one per colour-count vector (far fewer parts)"
        },
    )
    order: Literal["balanced", "lexicographic", "random"] = attrs.field(
        default="balanced",
        metadata={"description": "order in which parts are made: balanced, lexicographic or random (seeded)"},
    )
    seed: int = attrs.field(default=0, metadata={"description": "seed of the random order"})


def part_key(variants: list[Variant], counts: tuple[int, ...]) -> str:
    """A stable name for a part: the variants it uses, with their counts (with k colours
    most variants are unused; their zeros would make keys hundreds of names long)."""
    return " ".join(f"{variant.name}={count}" for variant, count in zip(variants, counts, strict=True) if count)


def _impossibility(colouring: Colouring, target: tuple[int, ...], equations: ColourCounts) -> str:
    reachable = equations.reachable()
    shown = "; ".join(str(list(vector)) for vector in reachable[:4])
    if len(reachable) > 4:
        shown += f"; … ({len(reachable)} in all)"
    return (
        f"impossible by {colouring.colours}-colouring ({colouring.describe()}): the region has {list(target)} cells "
        f"of colours 0..{colouring.colours - 1}, but no numbers of the pieces' coloured variants make that; "
        f"covering the area, they can make only {shown or 'nothing'}"
    )


class ColoursSplit:
    """The decomposer registered as ``colours``."""

    def split(
        self,
        problem: TilingProblem,
        model: Model,
        build: BuildModel,
        options: ColoursOptions | None = None,
        *,
        jobs: int = 1,  # the parts are what the colouring gives, however many jobs
    ) -> Split:
        options = options or ColoursOptions()
        if problem.region is None:
            raise InputError("the colours split needs a region to tile", path="split.method")
        region = problem.region
        colouring = Colouring(options.colours, options.shift)
        variants: list[Variant] = []
        pieces = []
        for piece in problem.pieces:
            own = coloured_variants(piece, region, colouring, by_counts=options.variants == "counts")
            variants += own
            most = region.area // piece.area if piece.maximum is None else min(piece.maximum, region.area // piece.area)
            pieces.append(([variant.counts for variant in own], piece.minimum, most))
        target = colouring.counts(region.cells)
        summary: dict[str, object] = {
            "colouring": colouring.describe(),
            "region_colours": list(target),
            "variants_by": options.variants,
            "order": options.order,
            "variants": ", ".join(f"{variant.name} ({len(variant.placements)} placements)" for variant in variants),
        }
        try:
            equations = ColourCounts(pieces, target, TABLE_BUDGET, TABLE_SECONDS)
        except TooMany:
            summary["parts"] = (
                f"one, the whole problem: the colour-count tables pass {TABLE_BUDGET:,} states or {TABLE_SECONDS} s"
            )
            return Split(iter([Part("whole", model, {"too many colour states": True})]), 1, None, summary)
        if equations.total == 0:
            return Split(iter(()), 0, _impossibility(colouring, target, equations), summary)
        prepared = VariantParts(variants, region, model)

        def parts() -> Iterator[Part]:
            for counts in equations.solutions(options.order, options.seed):
                yield prepared.part(counts, {"counts": {v.name: c for v, c in zip(variants, counts, strict=True) if c}})

        return Split(parts(), equations.total, None, summary)


@hookimpl
def polytile_register_decomposers(register: Register[Decomposer]) -> None:
    register(
        "colours",
        ColoursSplit(),
        options=ColoursOptions,
        help="k-colour split into independent subproblems (Garvie & Burkardt 2026; colours = 2 is the checkerboard)",
        # Its parts add a count row per variant.  Not raced by auto as a route: it has not
        # been measured to find tilings sooner (benchmarks/colours.py).  But its proof that
        # there is none is asked while a race runs (``certificate``): 3 colours prove what 2
        # cannot (examples/trominoes-20x20-corner.toml), and its tables are bounded.
        capabilities=DecomposerCapabilities(part_features={"count rows"}, certificate=True),
    )
