"""Solutions up to symmetry, compared as pictures.

A symmetry of the region counts when it carries the piece set onto itself: every piece
lands in an allowed orientation of a piece with the same multiplicity bounds
(``piece_renaming``), so a reflection counts for one-sided P and Q pentominoes used
equally often, though it turns each P into a Q.  This is the rule of the published
counts of one-sided sets.

A tiling model carries its symmetries as permutations of its variables
(``Model.symmetries``, filled by the tiling builder).  With them any backend can count
up to symmetry by Burnside's lemma, without listing: the number of classes is the
average, over the group, of the number of solutions each symmetry leaves unchanged,
and the solutions fixed by ``g`` are exactly the solutions of ``fixed_model(model, g)``,
an ordinary (smaller) model.  Listing up to symmetry needs no memory either: a solution
is kept when it is the smallest of its images (``solve.distinct.is_canonical``).
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Mapping, Sequence

import attrs

from polytile_core.model.geometry import SQUARE_SYMMETRIES, Region, normalise
from polytile_core.model.problem import PieceType
from polytile_core.model.zero_one import Model, check_build_limits

Permutation = tuple[int, ...]
# Steps between looks at the run's time limit and stop event (``check_build_limits``).
CHECK_EVERY = 4096


# A symmetry of a tiling problem: a region symmetry (an index into SQUARE_SYMMETRIES) and
# the piece each piece turns into under it.
ProblemSymmetry = tuple[int, Mapping[str, str]]


def piece_renaming(pieces: Sequence[PieceType], symmetry: int) -> dict[str, str] | None:
    """What each piece turns into under a symmetry of the square, or None when the
    symmetry does not carry the piece set onto itself.

    The rule of the published counts (pictures up to symmetry): every piece must land in
    an allowed orientation of a piece with the same multiplicity bounds, so the image of
    a tiling is again a tiling by the same pieces.  A reflection turns one-sided P
    pentominoes into Q pentominoes: it counts when Q is in the set as often as P.
    Pieces alike in orientations and bounds keep their order (the first goes to the first).
    """
    transform = SQUARE_SYMMETRIES[symmetry]
    alike: dict[tuple, list[str]] = {}
    for piece in pieces:
        alike.setdefault((frozenset(piece.orientations()), piece.minimum, piece.maximum), []).append(piece.name)
    renaming: dict[str, str] = {}
    for (shapes, minimum, maximum), names in alike.items():
        images = frozenset(normalise(transform(x, y) for x, y in shape) for shape in shapes)
        partners = alike.get((images, minimum, maximum), [])
        if len(partners) != len(names):  # two P and one Q: a reflection would make one P and two Q
            return None
        renaming.update(zip(names, partners, strict=True))
    return renaming


def _placement_maps(
    model: Model, region: Region, pieces: Sequence[PieceType] | None
) -> list[tuple[ProblemSymmetry, Permutation]]:
    """The problem's symmetries, each with the permutation of placement variables it
    induces: the region's symmetries that carry the piece set onto itself (``piece_renaming``),
    or with ``pieces`` None, those that carry each placement onto one of the same piece.
    Cells are numbered, so a placement is its piece and a set of numbers."""
    number = {cell: index for index, cell in enumerate(sorted(region.cells))}
    # Each variable's placement as (piece, cell numbers); None when it is no placement in the region.
    cells_of: list[tuple[str, tuple[int, ...]] | None] = [None] * model.num_variables
    where: dict[tuple[str, frozenset[int]], int] = {}  # a placement's variable, by its piece and cells
    for var, placement in model.placements.items():
        if not var % CHECK_EVERY:
            check_build_limits()  # 60×60 with the pentominoes: 0.4 s before any symmetry is tried
        if all(cell in number for cell in placement.cells):
            numbers = tuple(number[cell] for cell in placement.cells)
            cells_of[var] = (placement.piece, numbers)
            where[placement.piece, frozenset(numbers)] = var
    check_build_limits()
    names = {placement.piece: placement.piece for placement in model.placements.values()}
    check_build_limits()
    found: list[tuple[ProblemSymmetry, Permutation]] = []
    for symmetry in region.symmetries():
        renaming = names if pieces is None else piece_renaming(pieces, symmetry)
        if renaming is None:
            continue
        moved = _moved_numbers(region, symmetry, number)
        image: list[int] = []
        for position, entry in enumerate(cells_of):
            if not position % CHECK_EVERY:
                check_build_limits()  # a large board takes seconds per symmetry
            # A piece the renaming does not know (not among ``pieces``) has no image.
            target = None
            if entry is not None and (piece := renaming.get(entry[0])) is not None:
                target = where.get((piece, frozenset([moved[index] for index in entry[1]])))
            if target is None:
                break  # a variable with no image: this symmetry does not map the problem onto itself
            image.append(target)
        else:
            found.append(((symmetry, renaming), tuple(image)))
    return found


def _moved_numbers(region: Region, symmetry: int, number: Mapping[tuple[int, int], int]) -> list[int]:
    """The number of the cell that ``symmetry`` (keeping the region in place) takes each
    numbered cell to."""
    transform = SQUARE_SYMMETRIES[symmetry]
    moved = [transform(x, y) for x, y in region.cells]
    dx = min(x for x, _ in region.cells) - min(x for x, _ in moved)
    dy = min(y for _, y in region.cells) - min(y for _, y in moved)
    to = [0] * len(number)
    for (x, y), index in number.items():
        tx, ty = transform(x, y)
        to[index] = number[(tx + dx, ty + dy)]
    return to


def placement_symmetries(model: Model, region: Region, pieces: Sequence[PieceType]) -> list[Permutation]:
    """The problem's symmetries as permutations of a tiling model's variables, identity first."""
    return [permutation for _, permutation in _placement_maps(model, region, pieces)]


def problem_symmetries(model: Model, region: Region, pieces: Sequence[PieceType]) -> list[ProblemSymmetry]:
    """The problem's symmetries (region symmetry, piece renaming), identity first."""
    return [symmetry for symmetry, _ in _placement_maps(model, region, pieces)]


def may_have_symmetries(model: Model) -> bool:
    """Whether ``search_symmetries`` may find more than the identity: the model declares
    symmetries, or it is placements only and the cells they cover have a symmetry.  It
    costs a read of the placements' cells, not the search's map of every placement
    under every symmetry: a caller that would look for symmetries only in case asks
    this first (an asymmetric board's count need not wait for it)."""
    if model.symmetries:
        return len(model.symmetries) > 1
    if not _placed_only(model):
        return False
    covered = _covered(model)
    check_build_limits()  # the cells of a 100×100 board's 606,000 placements: 0.2 s
    return len(covered.symmetries()) > 1


def _placed_only(model: Model) -> bool:
    """A model of placements only (every variable places a piece) and no objective."""
    return model.objective is None and bool(model.placements) and len(model.placements) == model.num_variables


def _covered(model: Model) -> Region:
    """The cells the model's placements cover (one C loop over them: a 100×100 board has
    606,000 placements)."""
    return Region(set().union(*(placement.cells for placement in model.placements.values())))


def search_symmetries(model: Model, pieces: Sequence[PieceType] | None = None) -> list[Permutation]:
    """The symmetries a search may use on ``model``, identity first, each checked on its
    rows: those it declares if they hold, else the symmetries of its cells that carry
    every placement onto a placement of the piece it turns into (``piece_renaming``, when
    the problem's ``pieces`` are known), or of the same piece (a subgroup: a reflection
    that turns P into Q is left out).  Empty when there are none or they cannot be had."""
    if model.symmetries:
        try:
            return checked_symmetries(model)
        except ValueError:
            pass  # declared for the model this one was copied from (a part of a split): find its own
    if not _placed_only(model):
        return []
    found = [permutation for _, permutation in _placement_maps(model, _covered(model), pieces)]
    try:
        return checked_symmetries(attrs.evolve(model, symmetries=found))
    except ValueError:
        return []


@attrs.frozen
class Anchor:
    """A row that every solution covers exactly once and every symmetry maps onto itself,
    with one of its placements per orbit: ``free`` ones, that no symmetry but the identity
    fixes, and ``fixed`` ones (in the order of the variables)."""

    row: int
    variables: frozenset[int]
    free: tuple[int, ...]
    fixed: tuple[int, ...]

    @property
    def representatives(self) -> tuple[int, ...]:
        return tuple(sorted(self.free + self.fixed))


def choose_anchor(
    model: Model, rows: Iterable[int], group: Sequence[Permutation], usable: Container[int] | None = None
) -> Anchor | None:
    """The anchor among ``rows`` (rows every solution covers exactly once): the one with
    the fewest representatives a symmetry fixes, then the fewest representatives; the
    placements outside ``usable`` (that no solution can use) are no representatives.
    None when no row is mapped onto itself by every symmetry of ``group``."""
    best = None
    for row in rows:
        check_build_limits()
        variables = frozenset(var for var, _ in model.constraints[row].terms)
        if any(frozenset(g[var] for var in variables) != variables for g in group):
            continue
        free: list[int] = []
        fixed: list[int] = []
        seen: set[int] = set()
        for var in sorted(variables):
            if var in seen:
                continue
            orbit = {g[var] for g in group}
            seen |= orbit
            if usable is None or var in usable:
                (free if len(orbit) == len(group) else fixed).append(var)
        if best is None or (len(fixed), len(free) + len(fixed)) < (len(best.fixed), len(best.free) + len(best.fixed)):
            best = Anchor(row, variables, tuple(free), tuple(fixed))
    return best


def checked_symmetries(model: Model) -> list[Permutation]:
    """``model.symmetries`` after checking that each one maps every constraint onto a
    constraint of the model (so solutions onto solutions); empty when none are declared.
    A model copied from another one (a part of a split) may carry symmetries it no longer
    has: that raises ``ValueError`` rather than giving a wrong count."""
    if not model.symmetries:
        return []
    rows = set()
    for position, constraint in enumerate(model.constraints):
        if not position % 256:
            check_build_limits()  # a row of a large board's cell has hundreds of terms to sort
        rows.add((tuple(sorted(constraint.terms)), constraint.sense, constraint.rhs))
    n = model.num_variables
    for number, permutation in enumerate(model.symmetries):
        check_build_limits()
        # Each of n numbers below n, none twice (a set, not a sort: 0.5 s a symmetry on 100×100).
        if len(permutation) != n or (
            n and (min(permutation) < 0 or max(permutation) >= n or len(set(permutation)) != n)
        ):
            raise ValueError(f"symmetry {number} is not a permutation of the {n} variables")
        for position, (terms, sense, rhs) in enumerate(rows):
            if not position % 64:
                check_build_limits()  # a piece's row on 100×100 has 50,000 terms to sort
            moved = tuple(sorted((permutation[var], coefficient) for var, coefficient in terms))
            if (moved, sense, rhs) not in rows:
                raise ValueError(f"symmetry {number} does not map the model onto itself")
    if model.symmetries[0] != tuple(range(model.num_variables)):
        raise ValueError("the first symmetry must be the identity")
    return list(model.symmetries)


def cycles(permutation: Permutation) -> list[tuple[int, ...]]:
    """The cycles of a permutation, each starting at its smallest element, in order."""
    seen = [False] * len(permutation)
    found = []
    for start in range(len(permutation)):
        if seen[start]:
            continue
        cycle, var = [], start
        while not seen[var]:
            seen[var] = True
            cycle.append(var)
            var = permutation[var]
        found.append(tuple(cycle))
    return found


def fixed_model(model: Model, permutation: Permutation) -> tuple[Model, list[tuple[int, ...]]]:
    """The model whose solutions are the solutions of ``model`` that ``permutation`` leaves
    unchanged, and the variables of ``model`` each of its variables stands for.

    A fixed solution sets every cycle of the permutation all to 1 or all to 0, so each cycle
    becomes one variable whose coefficients are the sums over the cycle (a cycle of two
    placements of a piece counts two copies).  A cycle that would overfill a row with no
    negative coefficient (two of its placements overlap) can never be 1 and is left out.
    """
    merged_cycles = cycles(permutation)
    cycle_of = {var: number for number, cycle in enumerate(merged_cycles) for var in cycle}
    merged_rows = []
    impossible: set[int] = set()
    for constraint in model.constraints:
        terms: dict[int, int] = {}
        for var, coefficient in constraint.terms:
            terms[cycle_of[var]] = terms.get(cycle_of[var], 0) + coefficient
        if constraint.sense in ("==", "<=") and all(coefficient >= 0 for _, coefficient in constraint.terms):
            impossible.update(number for number, coefficient in terms.items() if coefficient > constraint.rhs)
        merged_rows.append((terms, constraint))
    kept = [number for number in range(len(merged_cycles)) if number not in impossible]
    renumber = {number: new for new, number in enumerate(kept)}
    fixed = Model(name=f"{model.name} fixed by a symmetry")
    for number in kept:
        cycle = merged_cycles[number]
        fixed.add_variable(
            "+".join(model.labels[var] for var in cycle), decision=any(var in model.decision for var in cycle)
        )
    seen_rows = set()
    for terms, constraint in merged_rows:
        row = tuple(
            sorted((renumber[number], coefficient) for number, coefficient in terms.items() if number in renumber)
        )
        if (row, constraint.sense, constraint.rhs) in seen_rows:
            continue  # the images of a row under the permutation merge into the same row
        seen_rows.add((row, constraint.sense, constraint.rhs))
        fixed.add_constraint(row, constraint.sense, constraint.rhs, constraint.name)
    if model.objective is not None:
        fixed.objective = {renumber[cycle_of[var]]: 0 for var in model.objective if cycle_of[var] in renumber}
        for var, coefficient in model.objective.items():
            if cycle_of[var] in renumber:
                fixed.objective[renumber[cycle_of[var]]] += coefficient
        fixed.maximize = model.maximize
    return fixed, [merged_cycles[number] for number in kept]


def burnside(fixed_counts: Sequence[int]) -> int:
    """Classes = the average number of solutions fixed, over the whole group."""
    total = sum(fixed_counts)
    if total % len(fixed_counts):
        raise ArithmeticError(f"fixed-solution counts {list(fixed_counts)} do not average to a whole number")
    return total // len(fixed_counts)


def is_smallest_image(ones: Sequence[int], permutations: Iterable[Permutation]) -> bool:
    """True when the sorted variables ``ones`` are no larger than any of their images."""
    own = sorted(ones)
    return all(own <= sorted(permutation[var] for var in own) for permutation in permutations)


def movers(group: Sequence[Permutation], var: int) -> tuple[Permutation, ...]:
    """One symmetry of ``group`` per variable of ``var``'s orbit, taking ``var`` there (one
    per coset of its stabiliser; the identity first when ``group`` starts with it): a
    solution with ``var`` chosen stands, under these, for one solution per place of the orbit."""
    chosen: dict[int, Permutation] = {}
    for permutation in group:
        chosen.setdefault(permutation[var], permutation)
    return tuple(chosen.values())
