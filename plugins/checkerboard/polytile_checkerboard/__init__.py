"""polytile decomposer: the checkerboard colouring split of Garvie & Burkardt (2022).

Colour the region like a checkerboard.  Each piece falls into one or two coloured
variants; every tiling uses some number y_v of each variant, and those numbers solve
the variant-count equations (copies per piece, black cells of the region).  Each
solution y is a subproblem: the tiling model restricted to the placements of the
variants it uses, with one count row per variant.  The tilings are partitioned among
the subproblems.  No solution y proves that no tiling exists, with no search at all.
"""

from __future__ import annotations

from typing import Literal

import itertools

import attrs

from polytile_core import hookimpl
from polytile_core.capabilities import DecomposerCapabilities
from polytile_core.decompose import Part, Split
from polytile_core.errors import InputError
from polytile_core.geometry import Region
from polytile_core.model import Constraint, Model, Placement
from polytile_core.problem import TilingProblem
from polytile_checkerboard.counts import VariantCounts, piece_choices
from polytile_checkerboard.variants import Variant, coloured_variants, region_colours


@attrs.frozen
class CheckerboardOptions:
    """Options of the checkerboard split, from ``[options.checkerboard]``."""

    order: Literal["balanced", "lexicographic", "random"] = attrs.field(
        default="balanced",
        metadata={
            "description": "order in which subproblems are tried: balanced (most even variant counts "
            "first), lexicographic (as in the paper), random (seeded)"
        },
    )
    seed: int = attrs.field(default=0, metadata={"description": "seed of the random order"})


def part_key(variants: list[Variant], counts: tuple[int, ...]) -> str:
    """A stable name for a subproblem: every variant with its count."""
    return " ".join(f"{variant.name}={count}" for variant, count in zip(variants, counts))


class _Prepared:
    """What every subproblem reuses: per variant its labels, placements and covered cells."""

    def __init__(self, variants: list[Variant], region: Region):
        self.variants = variants
        self.region = region
        self.cells = sorted(region.cells)
        self.labels = [tuple(f"{v.name}#{n}" for n in range(len(v.placements))) for v in variants]
        self.placed = [tuple(Placement(v.piece.name, cells) for cells in v.placements) for v in variants]
        self.covered = [frozenset(cell for cells in v.placements for cell in cells) for v in variants]

    def why_empty(self, counts: tuple[int, ...]) -> str | None:
        """A reason the subproblem has no tiling that needs no search, or None."""
        covered: set = set()
        for variant, count, cells in zip(self.variants, counts, self.covered):
            if count > len(variant.placements):
                return f"{variant.name} is needed {count} times but has only {len(variant.placements)} placements"
            if count:
                covered |= cells
        missing = self.region.cells - covered
        if missing:
            x, y = min(missing)
            return f"no placement of a variant in use covers cell {x},{y}"
        return None

    def model(self, counts: tuple[int, ...]) -> Model:
        """The tiling model restricted to the variants in use, one count row per variant."""
        labels: list[str] = []
        placed: dict[int, Placement] = {}
        constraints: list[Constraint] = []
        covering: dict[tuple[int, int], list[int]] = {cell: [] for cell in self.cells}
        for index, count in enumerate(counts):
            if count == 0:
                continue
            variant = self.variants[index]
            first = len(labels)
            labels += self.labels[index]
            placed.update(zip(itertools.count(first), self.placed[index]))
            for var, cells in enumerate(variant.placements, first):
                for cell in cells:
                    covering[cell].append(var)
            terms = tuple((var, 1) for var in range(first, len(labels)))
            constraints.append(Constraint(terms, "==", count, f"variant {variant.name}"))
        for (x, y), chosen in covering.items():
            constraints.append(Constraint(tuple((var, 1) for var in chosen), "==", 1, f"cell {x},{y}"))
        return Model(
            name="tiling", labels=labels, constraints=constraints, decision=list(range(len(labels))), placements=placed
        )


def _linear(variants: list[Variant]) -> str:
    """``2·y[T+] − 2·y[T-]``: one piece's share of the parity equation."""
    text = ""
    for variant in variants:
        sign = "−" if variant.parity < 0 else "+"
        term = f"{abs(variant.parity)}·y[{variant.name}]"
        text = (f"−{term}" if sign == "−" else term) if not text else f"{text} {sign} {term}"
    return text


def _impossibility(variants: list[Variant], equations: VariantCounts, black: int, white: int) -> str:
    """The parity equation that has no solution, said briefly."""
    terms = []
    for piece in dict.fromkeys(variant.piece for variant in variants):
        own = [variant for variant in variants if variant.piece is piece]
        if any(variant.parity for variant in own):
            terms.append(_linear(own))
    shown = " + ".join(f"({term})" for term in terms[:3]) + (f" + … ({len(terms)} pieces)" if len(terms) > 3 else "")
    reachable = equations.reachable_parities()
    if len(reachable) > 8:
        reachable_text = ", ".join(map(str, reachable[:3])) + ", …, " + ", ".join(map(str, reachable[-2:]))
    else:
        reachable_text = ", ".join(map(str, reachable)) or "none"
    return (
        f"impossible by checkerboard colouring: the region has parity {black - white} "
        f"({black} black, {white} white cells) but {shown or '0'} = {black - white} has no solution "
        f"in variant counts; covering the area, the pieces can only make parity {reachable_text}"
    )


class CheckerboardSplit:
    """The decomposer registered as ``checkerboard``."""

    def split(self, problem: TilingProblem, options: CheckerboardOptions | None = None) -> Split:
        options = options or CheckerboardOptions()
        if problem.region is None:
            raise InputError("the checkerboard split needs a region to tile", path="split.method")
        region = problem.region
        variants: list[Variant] = []
        choices = []
        for piece in problem.pieces:
            own = coloured_variants(piece, region)
            variants += own
            most = region.area // piece.area if piece.maximum is None else min(piece.maximum, region.area // piece.area)
            choices.append(piece_choices([variant.parity for variant in own], piece.area, piece.minimum, most))
        black, white = region_colours(region)
        equations = VariantCounts(choices, black - white, region.area)
        summary = {
            "order": options.order,
            "region_parity": black - white,
            "variants": ", ".join(f"{variant.name} ({variant.parity:+d}, {len(variant.placements)} placements)" for variant in variants),
        }
        total = equations.total
        if total == 0:
            return Split(iter(()), 0, _impossibility(variants, equations, black, white), summary)

        prepared = _Prepared(variants, region)

        def parts():
            for counts in equations.solutions(options.order, options.seed):
                details = {"counts": dict(zip((variant.name for variant in variants), counts))}
                reason = prepared.why_empty(counts)
                if reason:
                    # Removed before search: no model is built for it.
                    details["empty"] = reason
                    yield Part(part_key(variants, counts), Model(name="empty"), details)
                else:
                    yield Part(part_key(variants, counts), prepared.model(counts), details)

        return Split(parts(), total, None, summary)


@hookimpl
def polytile_register_decomposers(register):
    register(
        "checkerboard",
        CheckerboardSplit(),
        options=CheckerboardOptions,
        help="checkerboard colouring split into independent subproblems (Garvie & Burkardt 2022)",
        # Its parts add a count row per variant.  Raced for one tiling behind the whole problem
        # (it helps CP-SAT on some instances, hurts on others: docs/benchmarks/split.md); its
        # parity argument proves some problems have no tiling before any search.
        capabilities=DecomposerCapabilities(part_features={"count rows"}, rank={"one": -15}, certificate=True),
    )
