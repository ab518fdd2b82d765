"""Solving up to symmetry, with the symmetry broken inside the search.

Take an *anchor*: a row that every solution covers exactly once (a piece used once, or
a cell every symmetry fixes) and that the symmetry group G maps onto itself.  Its
placements fall into orbits under G; keep one representative p per orbit.

* If no symmetry but the identity fixes p, every solution with the anchor at p has a
  trivial stabiliser, and each class of |G| solutions has exactly one member with the
  anchor on a representative: searching only those gives each class once, and
  |G| × that many raw solutions.
* If a subgroup K ≠ 1 fixes p, the solutions with the anchor at p are N_p, of which
  (1/|K|) Σ_k Fix_k are distinct (Burnside over K; Fix_k counts, through a smaller
  model, the ones k leaves unchanged), and they stand for |G|/|K| × N_p raw solutions.
  Listing keeps those that are the smallest of their images under K.

The anchor is the row with the fewest representatives fixed by a symmetry, then the
fewest representatives (the X pentomino in 6×10: 8 placements, none fixed).  Without an
anchor (one piece kind used many times), counting uses Burnside over all of G and
listing keeps the smallest image of each class.

Listing *all* solutions uses the same anchor (``list_all``): search only the solutions
with the anchor on a representative p, and hand on each one's images under one symmetry
per coset of p's stabiliser.  Every solution arises exactly once (the symmetries taking
p to where a solution has its anchor form one coset), and 6×10 costs the search a
quarter of the whole tree.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from polytile_core.plugin import (
    Anchor,
    InputError,
    Model,
    OnSolution,
    Permutation,
    Termination,
    burnside,
    checked_symmetries,
    choose_anchor,
    fixed_model,
    is_smallest_image,
    may_have_symmetries,
    movers,
    search_symmetries,
)
from polytile_exactcover.count import count_covers
from polytile_exactcover.cover import CoverProblem, cover_problem
from polytile_exactcover.options import ExactCoverOptions
from polytile_exactcover.outcome import Limits, SearchReport
from polytile_exactcover.search import Listing, enumerate_covers


def restricted(problem: CoverProblem, leave_out: set[int]) -> CoverProblem:
    """The same exact cover without the options of the variables ``leave_out`` (its
    shapes and fixed options numbered again)."""
    keep = [k for k, var in enumerate(problem.variables) if var not in leave_out]
    place = {k: new for new, k in enumerate(keep)}
    return attrs.evolve(
        problem,
        options=tuple(problem.options[k] for k in keep),
        variables=tuple(problem.variables[k] for k in keep),
        shapes=tuple(problem.shapes[k] for k in keep),
        fixed=tuple(place[k] for k in problem.fixed),  # a fixed option is never left out
    )


def count_fixed(
    model: Model, permutation: Permutation, keep: set[int] | None, options: ExactCoverOptions, limits: Limits
) -> SearchReport:
    """Solutions left unchanged by ``permutation`` (among those using only ``keep``)."""
    fixed, merged = fixed_model(model, permutation)
    allowed = None if keep is None else {new for new, cycle in enumerate(merged) if set(cycle) <= keep}
    return count_covers(cover_problem(fixed, allowed=allowed), options, limits)


def solve_distinct(
    model: Model, problem: CoverProblem, mode: str, report: OnSolution, limits: Limits, options: ExactCoverOptions
) -> tuple[SearchReport, int | None]:
    """(raw outcome, distinct count) in mode ``all`` (listing one tiling per class) or ``count``."""
    try:
        group = checked_symmetries(model)
    except ValueError as exc:
        raise InputError(f"cannot solve up to symmetry: {exc}", path="solve.distinct") from None
    if not group:
        plain = (
            count_covers(problem, options, limits)
            if mode == "count"
            else enumerate_covers(problem, report, limits, kernel=options.kernel)
        )
        return plain, None
    anchor = (
        choose_anchor(model, problem.rows, group, set(problem.variables))
        if options.symmetry == "search" and len(group) > 1
        else None
    )
    if anchor is None:
        return _whole_group(model, problem, mode, report, limits, options, group)
    return _anchored(model, problem, mode, report, limits, options, group, anchor)


def _whole_group(
    model: Model,
    problem: CoverProblem,
    mode: str,
    report: OnSolution,
    limits: Limits,
    options: ExactCoverOptions,
    group: list[Permutation],
) -> tuple[SearchReport, int | None]:
    others = group[1:]
    if mode == "count":
        raw = count_covers(problem, options, limits)
        fixes = [raw.count]
        for permutation in others:
            if raw.status != Termination.COMPLETED:
                return raw, None
            fixed = count_fixed(model, permutation, None, options, limits)
            raw.add(SearchReport(fixed.status, 0, fixed.how, fixed.details))
            fixes.append(fixed.count)
        raw.how += "+burnside"
        return raw, burnside(fixes) if raw.status == Termination.COMPLETED else None
    kept = [0]

    def keep_smallest(ones: list[int]) -> None:
        if is_smallest_image(ones, others):
            kept[0] += 1
            report(ones)

    outcome = enumerate_covers(problem, keep_smallest, limits, kernel=options.kernel)
    outcome.how += "+smallest-image"
    return outcome, kept[0]


def _anchored(
    model: Model,
    problem: CoverProblem,
    mode: str,
    report: OnSolution,
    limits: Limits,
    options: ExactCoverOptions,
    group: list[Permutation],
    anchor: Anchor,
) -> tuple[SearchReport, int | None]:
    order = len(group)
    total = SearchReport(Termination.COMPLETED, 0, "anchor")
    distinct = 0
    free_part = restricted(problem, set(anchor.variables) - set(anchor.free))
    if mode == "count":
        part = count_covers(free_part, options, limits)
    else:
        part = enumerate_covers(free_part, report, limits, kernel=options.kernel)
    total.add(part, order)
    distinct += part.count
    for placement in anchor.fixed:
        if total.status != Termination.COMPLETED:
            break
        stabiliser = [g for g in group if g[placement] == placement]
        at_placement = restricted(problem, set(anchor.variables) - {placement})
        if mode == "count":
            part = count_covers(at_placement, options, limits)
            fixes = [part.count]
            keep = set(at_placement.variables)
            for permutation in stabiliser[1:]:
                fixed = count_fixed(model, permutation, keep, options, limits)
                if fixed.status != Termination.COMPLETED:
                    part.status = fixed.status
                    break
                fixes.append(fixed.count)
            else:
                distinct += burnside(fixes)
        else:
            kept = [0]

            def keep_smallest(
                ones: list[int], others: list[Permutation] = stabiliser[1:], kept: list[int] = kept
            ) -> None:
                if is_smallest_image(ones, others):
                    kept[0] += 1
                    report(ones)

            part = enumerate_covers(at_placement, keep_smallest, limits, kernel=options.kernel)
            distinct += kept[0]
        total.add(part, order // len(stabiliser))
    return total, distinct if total.status == Termination.COMPLETED else None


@attrs.frozen
class Images:
    """How to search a symmetric model for one member of each orbit: each part keeps the
    anchor on ``placements`` and hands every solution on under each of ``movers``."""

    parts: tuple[tuple[frozenset[int], tuple[Permutation, ...]], ...]
    anchor: Anchor
    note: str


def may_search_by_images(model: Model, options: ExactCoverOptions) -> bool:
    """Whether ``images_of`` may find an image search: asked first where a count would
    wait for one (on an asymmetric board, a frontier scan held to a trial's budget in
    case an image search counts it faster)."""
    return _images_allowed(model, options) and may_have_symmetries(model)


def _images_allowed(model: Model, options: ExactCoverOptions) -> bool:
    """The options ask for the search by images, and the model is no part of the tree
    split (``Model.pinned``: its symmetries would have to fix the pins, and finding them
    costs what reading the whole model does, which the part is spared)."""
    return options.symmetry == "search" and model.pinned_on() is None


def images_of(model: Model, problem: CoverProblem, options: ExactCoverOptions) -> Images | None:
    """The image search of ``model`` (module docstring), or None when the model has no
    symmetry or no anchor, or images are not allowed (``_images_allowed``).  It does not
    ask ``may_have_symmetries`` again: finding the symmetries reads the same cells."""
    if not _images_allowed(model, options):
        return None
    group = search_symmetries(model)
    anchor = choose_anchor(model, problem.rows, group, set(problem.variables)) if len(group) > 1 else None
    if anchor is None or not (anchor.free or anchor.fixed):
        return None
    parts: list[tuple[frozenset[int], tuple[Permutation, ...]]] = []
    if anchor.free:
        parts.append((frozenset(anchor.free), tuple(group)))
    for placement in anchor.fixed:
        parts.append((frozenset({placement}), movers(group, placement)))
    note = f"{len(group)} symmetries, {len(anchor.free) + len(anchor.fixed)} anchor placements"
    return Images(tuple(parts), anchor, note)


def search_by_images(
    images: Images,
    problem: CoverProblem,
    report: OnSolution | Listing | None,
    limits: Limits,
    options: ExactCoverOptions,
) -> SearchReport:
    """Every solution, each handed to ``report`` once (or counted, ``report`` None),
    searched with the anchor on one placement per orbit and the others made as images."""

    def with_images(report: OnSolution | Listing, symmetries: Sequence[Permutation]) -> OnSolution | Listing:
        if isinstance(report, Listing):
            return attrs.evolve(report, movers=tuple(symmetries))

        def emit(ones: list[int]) -> None:
            for mover in symmetries:
                report(sorted(map(mover.__getitem__, ones)))

        return emit

    total = SearchReport(Termination.COMPLETED, 0, "images")
    total.details["images"] = images.note
    kernel: str = options.kernel
    for placements, symmetries in images.parts:
        if total.status != Termination.COMPLETED:
            break
        part = restricted(problem, set(images.anchor.variables) - placements)
        found = enumerate_covers(
            part, None if report is None else with_images(report, symmetries), limits, kernel=kernel
        )
        kernel = found.how  # the first part's choice (auto probes once) serves the others
        total.add(found, len(symmetries))
    return total


def list_all(
    model: Model,
    problem: CoverProblem,
    report: OnSolution | Listing | None,
    limits: Limits,
    options: ExactCoverOptions,
    *,
    by_images: bool = True,
) -> SearchReport:
    """Every solution, each handed to ``report`` once (or counted, ``report`` None): by
    images when the model has them (``images_of``) and ``by_images``, else plainly."""
    images = images_of(model, problem, options) if by_images else None
    if images is None:
        return enumerate_covers(problem, report, limits, kernel=options.kernel)
    return search_by_images(images, problem, report, limits, options)
