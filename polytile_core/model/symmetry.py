"""Solutions up to the symmetry of the region.

A tiling model carries its symmetries as permutations of its variables
(``Model.symmetries``, filled by the tiling builder).  With them any backend can count
up to symmetry by Burnside's lemma, without listing: the number of classes is the
average, over the group, of the number of solutions each symmetry leaves unchanged,
and the solutions fixed by ``g`` are exactly the solutions of ``fixed_model(model, g)``,
an ordinary (smaller) model.  Listing up to symmetry needs no memory either: a solution
is kept when it is the smallest of its images (``solve.distinct.is_canonical``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from polytile_core.model.geometry import SQUARE_SYMMETRIES, Region
from polytile_core.model.zero_one import Model

Permutation = tuple[int, ...]


def _placement_maps(model: Model, region: Region) -> dict[int, Permutation]:
    """Region symmetry index → the permutation of placement variables it induces, for the
    symmetries that carry every placement to a placement its piece may take (a reflection
    is no symmetry of a problem with one-sided pieces)."""
    where = {(placement.piece, tuple(sorted(placement.cells))): var for var, placement in model.placements.items()}
    found = {}
    for symmetry in region.symmetries():
        move = _mover(region, symmetry)
        image = []
        for var in range(model.num_variables):
            placement = model.placements.get(var)
            image.append(None if placement is None else where.get((placement.piece, move(placement.cells))))
        if None not in image:
            found[symmetry] = tuple(image)
    return found


def _mover(region: Region, symmetry: int):
    """``region.map_onto_itself(symmetry, cells)`` with the translation worked out once."""
    transform = SQUARE_SYMMETRIES[symmetry]
    moved = [transform(x, y) for x, y in region.cells]
    dx = min(x for x, _ in region.cells) - min(x for x, _ in moved)
    dy = min(y for _, y in region.cells) - min(y for _, y in moved)

    def move(cells):
        return tuple(sorted((tx + dx, ty + dy) for tx, ty in (transform(x, y) for x, y in cells)))

    return move


def placement_symmetries(model: Model, region: Region) -> list[Permutation]:
    """The problem's symmetries as permutations of a tiling model's variables, identity first."""
    return list(_placement_maps(model, region).values())


def problem_symmetries(model: Model, region: Region) -> list[int]:
    """The region's symmetries (indices, identity first) that are symmetries of the problem."""
    return list(_placement_maps(model, region))


def checked_symmetries(model: Model) -> list[Permutation]:
    """``model.symmetries`` after checking that each one maps every constraint onto a
    constraint of the model (so solutions onto solutions); empty when none are declared.
    A model copied from another one (a part of a split) may carry symmetries it no longer
    has: that raises ``ValueError`` rather than giving a wrong count."""
    if not model.symmetries:
        return []
    rows = {(tuple(sorted(c.terms)), c.sense, c.rhs) for c in model.constraints}
    for number, permutation in enumerate(model.symmetries):
        if len(permutation) != model.num_variables or sorted(permutation) != list(range(model.num_variables)):
            raise ValueError(f"symmetry {number} is not a permutation of the {model.num_variables} variables")
        for terms, sense, rhs in rows:
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
    impossible = set()
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
        fixed.add_variable("+".join(model.labels[var] for var in cycle), decision=any(var in model.decision for var in cycle))
    seen_rows = set()
    for terms, constraint in merged_rows:
        row = tuple(sorted((renumber[number], coefficient) for number, coefficient in terms.items() if number in renumber))
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
