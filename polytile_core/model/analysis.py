"""Size measures of a model and of a split, without solving (Garvie & Burkardt 2022, §5).

For a model with constraint matrix A (m rows, n variables) and right-hand side b the
paper reports m, n and f = n − rank([A|b]), the number of free variables.  The rank is
computed exactly, not with floating point: rank([A|b]) = rank(G) over the rationals for
the Gram matrix G = [A|b][A|b]ᵀ (m × m, small even when n is large), and the rank of G
is found by Gaussian elimination modulo two large primes.  A rank modulo p is never
more than the rational rank and equals it unless p divides all its nonzero maximal
minors, so the larger of the two is the rank for all practical purposes.
"""

from __future__ import annotations

import itertools
import time
from typing import Any

import attrs

from polytile_core.model.parts import Split
from polytile_core.model.zero_one import Model

PRIMES = (2_147_483_647, 2_147_483_629)  # below 2^31, so products fit in 64 bits
# f is computed for models of at most this many rows (the elimination grows as rows³).
RANK_ROWS = 600
# Seconds spent looking at parts; a split of many large parts is judged from the first ones.
SCAN_SECONDS = 2.0
# Placements a model may have for ``polytile analyze`` to build it (about 1.5 s of building).
ANALYSE_AT_MOST = 250_000


@attrs.frozen
class ModelSize:
    """m rows, n variables, f = n − rank([A|b]) free variables."""

    m: int
    n: int
    f: int | None = None


@attrs.frozen
class PartSize:
    """One subproblem: its key, size, and why it was removed before search (if it was)."""

    key: str
    size: ModelSize | None
    removed: str | None = None


@attrs.frozen
class SplitAnalysis:
    total: int | None
    impossible: str | None
    original: ModelSize
    first: tuple[PartSize, ...]
    scanned: int  # parts looked at for removals and sizes
    removed: int  # of the scanned parts
    classification: str
    summary: dict


def gram_matrix(model: Model) -> Any:
    """G = [A|b][A|b]ᵀ as a numpy int64 array (entries are small counts)."""
    import numpy as np

    rows = len(model.constraints)
    gram = np.zeros((rows, rows), dtype=np.int64)
    entries: dict[int, list[tuple[int, int]]] = {}
    for row, constraint in enumerate(model.constraints):
        for var, coefficient in constraint.terms:
            entries.setdefault(var, []).append((row, coefficient))
    by_support: dict[int, list[list[tuple[int, int]]]] = {}
    for column in entries.values():
        by_support.setdefault(len(column), []).append(column)
    for size, columns in by_support.items():
        table = np.array(columns, dtype=np.int64)  # (columns, size, 2)
        for i, j in itertools.product(range(size), repeat=2):
            np.add.at(gram, (table[:, i, 0], table[:, j, 0]), table[:, i, 1] * table[:, j, 1])
    rhs = np.array([constraint.rhs for constraint in model.constraints], dtype=np.int64)
    gram += np.outer(rhs, rhs)
    # Long rows (a piece's count row meets every cell) go last: eliminated first they
    # would fill the whole matrix; the cell rows, in board order, keep it banded.
    lengths = np.array([len(constraint.terms) for constraint in model.constraints])
    order = np.argsort(lengths > 4 * np.median(lengths), kind="stable")
    return gram[np.ix_(order, order)]


def rank_mod(matrix: Any, prime: int) -> int:
    """Rank of an integer matrix modulo a prime below 2^31 (sparse-aware elimination)."""
    import numpy as np

    work = np.mod(matrix, prime)
    rows, columns = work.shape
    rank = 0
    for column in range(columns):
        if rank == rows:
            break
        candidates = np.flatnonzero(work[rank:, column])
        if candidates.size == 0:
            continue
        pivot = rank + int(candidates[0])
        if pivot != rank:
            work[[rank, pivot]] = work[[pivot, rank]]
        inverse = pow(int(work[rank, column]), prime - 2, prime)
        work[rank] = (work[rank] * inverse) % prime
        below = rank + 1 + np.flatnonzero(work[rank + 1 :, column])
        if below.size:
            # Only rows and columns with nonzeros change.  For a tiling (cells in board
            # order, long rows last) they form a band plus a few far ones: update each
            # run of them as a block of slices (views, no copies).
            used = np.flatnonzero(work[rank])
            pivot_row = work[rank].copy()
            for rows_ in _runs(below):
                factors = work[rows_, column][:, None].copy()
                for columns_ in _runs(used):
                    block = work[rows_, columns_]
                    work[rows_, columns_] = (block - factors * pivot_row[columns_][None, :]) % prime
        rank += 1
    return rank


def _runs(indices: Any, gap: int = 64) -> list[slice]:
    """Sorted indices as slices, cut where two neighbours are more than ``gap`` apart."""
    import numpy as np

    cuts = np.flatnonzero(np.diff(indices) > gap) + 1
    starts = [0, *cuts.tolist()]
    ends = [*cuts.tolist(), len(indices)]
    return [slice(int(indices[start]), int(indices[end - 1]) + 1) for start, end in zip(starts, ends, strict=True)]


def augmented_rank(model: Model) -> int:
    """rank([A|b]) over the rationals (see the module docstring)."""
    if not model.constraints:
        return 0
    gram = gram_matrix(model)
    return max(rank_mod(gram, prime) for prime in PRIMES)


def model_size(model: Model, *, with_rank: bool = True) -> ModelSize:
    m, n = len(model.constraints), model.num_variables
    return ModelSize(m, n, n - augmented_rank(model) if with_rank else None)


def classify(
    total: int | None, impossible: str | None, original: ModelSize, parts: list[PartSize], scanned_all: bool
) -> str:
    """The paper's kinds of split, judged on the parts that reach the search."""
    if total == 0 or impossible:
        return "impossible: no subproblem"
    # A part kept for the search is one that was measured.
    searched = [part.size for part in parts if part.removed is None and part.size is not None]
    if scanned_all and not searched:
        return "impossible: every subproblem is removed before search"
    if total == 1:
        if searched and searched[0].n == original.n:
            return "one subproblem, identical to the original"
        return "one smaller subproblem"
    sizes = {(size.m, size.n) for size in searched}
    kind = "several subproblems of equal size" if len(sizes) <= 1 else "several subproblems of different sizes"
    return kind if scanned_all else f"{kind} (judged from the first {len(parts)})"


def analyze_split(
    split: Split, original: Model, *, first: int = 5, scan: int = 1000, seconds: float = SCAN_SECONDS
) -> SplitAnalysis:
    """Measure a split: the first ``first`` parts in full (with f), and up to ``scan``
    parts for removals and sizes (all of them when there are no more than that); past
    ``seconds``, the scan ends with the parts looked at so far."""
    parts: list[PartSize] = []
    detailed: list[PartSize] = []
    removed = 0
    deadline = time.perf_counter() + seconds
    for index, part in enumerate(itertools.islice(split.parts, max(first, scan))):
        if index >= first and time.perf_counter() > deadline:
            break
        reason = part.empty
        removed += reason is not None
        if reason is not None:
            size = None
        else:
            model = part.model if part.fixed is None else part.model.pinned(part.fixed)
            size = model_size(model, with_rank=index < first and len(model.constraints) <= RANK_ROWS)
        entry = PartSize(part.key, size, reason)
        parts.append(entry)
        if index < first:
            detailed.append(entry)
    scanned_all = split.total is not None and len(parts) >= split.total
    original_size = model_size(original, with_rank=len(original.constraints) <= RANK_ROWS)
    return SplitAnalysis(
        total=split.total,
        impossible=split.impossible,
        original=original_size,
        first=tuple(detailed),
        scanned=len(parts),
        removed=removed,
        classification=classify(split.total, split.impossible, original_size, parts, scanned_all),
        summary=dict(split.summary),
    )
