"""Read a neutral ``Model`` as an exact cover with multiplicities.

The tiling builder writes one ``== 1`` row per cell and one count row per piece
(``==``, ``<=`` or ``>=``), every coefficient 1 and every variable 0-1.  Here every
``== 1`` row with coefficients 1 becomes a *primary item* (covered exactly once) and
every other row a *group*: a weighted count that must end within bounds (rows on the
same variables, such as a piece's ``>= min`` and ``<= max``, merge into one group).
Positive weights other than 1 are accepted in groups, which is what the models of
tilings fixed by a symmetry need (a merged variable stands for several copies).
"""

from __future__ import annotations

import attrs

from polytile_core.errors import InputError
from polytile_core.model.zero_one import Model

UNBOUNDED = 1 << 62


@attrs.frozen
class CoverProblem:
    """Items are numbered 1..n_items; ``options[k]`` is (items, [(group, weight)]) of the
    model variable ``variables[k]``; ``rows[i - 1]`` is the constraint of item i."""

    n_items: int
    options: tuple[tuple[tuple[int, ...], tuple[tuple[int, int], ...]], ...]
    variables: tuple[int, ...]
    groups: tuple[tuple[int, int], ...]
    rows: tuple[int, ...]

    def option_of(self) -> dict[int, int]:
        return {var: k for k, var in enumerate(self.variables)}


def _refuse(reason: str) -> InputError:
    return InputError(
        f"the exactcover backend solves exact covers only (cells '== 1', piece counts): {reason}",
        path="solve.backend",
    )


def cover_problem(model: Model, *, allowed: set[int] | None = None) -> CoverProblem:
    """The exact cover of ``model``; variables outside ``allowed`` (when given) are left out.

    Refuses (``InputError``) a model with an objective, a non-positive or fractional
    coefficient, or a variable that covers no ``== 1`` row.
    """
    if model.objective is not None:
        raise _refuse(f"model {model.name!r} has an objective (use cpsat or scip to optimise)")
    items_of: dict[int, list[int]] = {}
    rows: list[int] = []
    bounds: dict[tuple, list[int]] = {}
    for index, constraint in enumerate(model.constraints):
        terms = [(var, coefficient) for var, coefficient in constraint.terms if coefficient != 0]
        for var, coefficient in terms:
            if not isinstance(coefficient, int) or coefficient < 0:
                raise _refuse(f"constraint {constraint.name!r} has the coefficient {coefficient!r}")
        if constraint.sense == "==" and constraint.rhs == 1 and all(c == 1 for _, c in terms):
            rows.append(index)
            for var, _ in terms:
                items_of.setdefault(var, []).append(len(rows))
            continue
        key = tuple(sorted(terms))
        lo, hi = bounds.setdefault(key, [0, UNBOUNDED])
        if constraint.sense in ("==", ">="):
            lo = max(lo, constraint.rhs)
        if constraint.sense in ("==", "<="):
            hi = min(hi, constraint.rhs)
        bounds[key] = [lo, hi]
    for var in range(model.num_variables):
        if var not in items_of:
            raise _refuse(f"variable {model.labels[var]!r} covers no '== 1' row")
    groups: list[tuple[int, int]] = []
    member_of: dict[int, list[tuple[int, int]]] = {}
    forbidden: set[int] = set()
    for key, (lo, hi) in bounds.items():
        for var, weight in key:
            if weight > hi:
                forbidden.add(var)
        if lo <= 0 and hi >= sum(weight for _, weight in key):
            continue  # never binding
        for var, weight in key:
            member_of.setdefault(var, []).append((len(groups), weight))
        groups.append((lo, hi))
    options, variables = [], []
    for var in range(model.num_variables):
        if var in forbidden or (allowed is not None and var not in allowed):
            continue
        options.append((tuple(items_of[var]), tuple(member_of.get(var, ()))))
        variables.append(var)
    return CoverProblem(len(rows), tuple(options), tuple(variables), tuple(groups), tuple(rows))
