"""polytile decomposer: the checkerboard colouring split of Garvie & Burkardt (2022).

Colour the region like a checkerboard.  Each piece falls into one or two coloured
variants; every tiling uses some number y_v of each variant, and those numbers solve
the variant-count equations (copies per piece, black cells of the region).  Each
solution y is a subproblem: the tiling model restricted to the placements of the
variants it uses, with one count row per variant.  The tilings are partitioned among
the subproblems.  No solution y proves that no tiling exists, with no search at all.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Literal, Protocol

import attrs

from polytile_checkerboard.counts import TooLarge, VariantCounts, piece_choices
from polytile_checkerboard.variants import Variant, coloured_variants, region_colours
from polytile_core.plugin import (
    BuildModel,
    Cells,
    Constraint,
    Decomposer,
    DecomposerCapabilities,
    InputError,
    Model,
    Part,
    PieceType,
    Region,
    Register,
    Split,
    SplitTooLarge,
    TilingProblem,
    hookimpl,
)


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


class AnyVariant(Protocol):
    """What ``part_key`` and ``VariantParts`` read of a variant (this split's, or the k-colour split's)."""

    @property
    def name(self) -> str: ...

    @property
    def piece(self) -> PieceType: ...

    @property
    def placements(self) -> tuple[Cells, ...]: ...


def part_key(variants: Sequence[AnyVariant], counts: tuple[int, ...]) -> str:
    """A stable name for a subproblem: every variant with its count."""
    return " ".join(f"{variant.name}={count}" for variant, count in zip(variants, counts, strict=True))


class VariantParts:
    """What every subproblem reuses: the whole model, and which variant each of its
    placement variables is.  Any variants with a ``name``, a ``piece`` and their
    ``placements`` will do (the k-colour split's too)."""

    def __init__(self, variants: Sequence[AnyVariant], region: Region, whole: Model):
        self.variants = variants
        self.region = region
        self.whole = whole
        self.covered = [frozenset(cell for cells in v.placements for cell in cells) for v in variants]
        variant_of = {
            (variant.piece.name, cells): number
            for number, variant in enumerate(variants)
            for cells in variant.placements
        }
        self.variables: list[list[int]] = [[] for _ in variants]
        for var, placed in whole.placements.items():
            self.variables[variant_of[placed.piece, placed.cells]].append(var)
        # Rows over exactly one piece's placements (its copies): a part's variant rows fix
        # that sum, so such a row says nothing more when the part's total satisfies it.
        per_piece: dict[str, set[int]] = {}
        for number, variant in enumerate(variants):
            per_piece.setdefault(variant.piece.name, set()).update(self.variables[number])
        piece_of = {frozenset(own): piece for piece, own in per_piece.items()}
        self.piece_rows = [
            (number, piece_of[frozenset(var for var, _ in row.terms)])
            for number, row in enumerate(whole.constraints)
            if frozenset(var for var, _ in row.terms) in piece_of and all(c == 1 for _, c in row.terms)
        ]

    def why_empty(self, counts: tuple[int, ...]) -> str | None:
        """A reason the subproblem has no tiling that needs no search, or None."""
        covered: set = set()
        for variant, count, cells in zip(self.variants, counts, self.covered, strict=True):
            if count > len(variant.placements):
                return f"{variant.name} is needed {count} times but has only {len(variant.placements)} placements"
            if count:
                covered |= cells
        missing = self.region.cells - covered
        if missing:
            x, y = min(missing)
            return f"no placement of a variant in use covers cell {x},{y}"
        return None

    def part(self, counts: tuple[int, ...], details: dict[str, object]) -> Part:
        """The subproblem of ``counts``: removed before search (no model built) when
        ``why_empty`` says so, with the reason in ``Part.empty``."""
        key = part_key(self.variants, counts)
        reason = self.why_empty(counts)
        if reason:
            return Part(key, Model(name="empty"), details, empty=reason)
        return Part(key, self.model(counts), details)

    def model(self, counts: tuple[int, ...]) -> Model:
        """The whole model restricted to the variants in use, one count row per variant
        in place of the piece's own."""
        used = [number for number, count in enumerate(counts) if count]
        rows = [
            Constraint(
                tuple((var, 1) for var in self.variables[number]),
                "==",
                counts[number],
                f"variant {self.variants[number].name}",
            )
            for number in used
        ]
        copies: dict[str, int] = {}
        for variant, count in zip(self.variants, counts, strict=True):
            copies[variant.piece.name] = copies.get(variant.piece.name, 0) + count
        implied = [number for number, piece in self.piece_rows if self.whole.constraints[number].holds(copies[piece])]
        keep = (var for number in used for var in self.variables[number])
        return self.whole.restricted(keep, rows, drop=implied)


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

    def split(
        self,
        problem: TilingProblem,
        model: Model,
        build: BuildModel,
        options: CheckerboardOptions | None = None,
        *,
        jobs: int = 1,  # the split's parts are what the colouring gives, however many jobs
    ) -> Split:
        options = options or CheckerboardOptions()
        if problem.region is None:
            raise InputError("the checkerboard split needs a region to tile", path="split.method")
        region = problem.region
        # The equations need only the variants' parities: placements come once they hold.
        variants: list[Variant] = []
        choices = []
        for piece in problem.pieces:
            own = coloured_variants(piece, region, with_placements=False)
            variants += own
            most = region.area // piece.area if piece.maximum is None else min(piece.maximum, region.area // piece.area)
            choices.append(piece_choices([variant.parity for variant in own], piece.area, piece.minimum, most))
        black, white = region_colours(region)
        try:
            equations = VariantCounts(choices, black - white, region.area)
        except TooLarge as exc:
            raise SplitTooLarge(
                f"the checkerboard split of this problem is too large to list ({exc}); use the tree split, or no split"
            ) from None
        summary = {
            "order": options.order,
            "region_parity": black - white,
            "variants": ", ".join(f"{variant.name} ({variant.parity:+d})" for variant in variants),
        }
        if not equations.feasible:
            return Split(iter(()), 0, _impossibility(variants, equations, black, white), summary)
        total = equations.total

        def parts() -> Iterator[Part]:
            # Placed only when the parts are wanted: a certificate needs none of this.
            placed = [variant for piece in problem.pieces for variant in coloured_variants(piece, region)]
            prepared = VariantParts(placed, region, model)
            for counts in equations.solutions(options.order, options.seed):
                yield prepared.part(counts, {"counts": dict(zip((v.name for v in variants), counts, strict=True))})

        return Split(parts(), total, None, summary)


@hookimpl
def polytile_register_decomposers(register: Register[Decomposer]) -> None:
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
