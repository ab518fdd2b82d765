"""polytile plugin: the ``n-ominoes`` piece family, every polyomino of n cells.

In a pipeline: ``family = "n-ominoes"``, ``n = 6`` and the piece table's ``kind``
(free, one-sided or fixed) decides which pieces there are: the 35 free hexominoes, the
60 one-sided ones or the 216 fixed ones.  Names are explained in ``names.py``.
"""

from __future__ import annotations

from polytile_core.plugin import Cells, Family, Kind, Register, hookimpl
from polytile_generate.enumerate import count
from polytile_generate.names import n_ominoes

__all__ = ["NOminoes", "count", "n_ominoes"]


# The work grows about fourfold per cell (docs/benchmarks/generate.md: free 13-ominoes are
# built in about 13 s); these caps keep a typo in n from running for hours.
LARGEST_TO_BUILD = 13
LARGEST_TO_COUNT = 16


def _within(n: int | None, largest: int, what: str) -> None:
    if isinstance(n, int) and not isinstance(n, bool) and n > largest:
        raise ValueError(f"{what} up to n = {largest} (the work grows about fourfold with each cell), got {n}")


class NOminoes:
    """The family's ``make``; it also offers ``count`` so `polytile pieces --count-only`
    need not build millions of shapes."""

    def __call__(self, n: int | None = None, kind: Kind = "free") -> list[tuple[str, Cells]]:
        _within(n, LARGEST_TO_BUILD, "the n-ominoes family builds pieces")
        return n_ominoes(n, kind)

    def count(self, n: int | None = None, kind: Kind = "free") -> int:
        _within(n, LARGEST_TO_COUNT, "the n-ominoes family counts pieces")
        return count(n, kind)


@hookimpl
def polytile_register_families(register: Register[Family]) -> None:
    register(
        "n-ominoes",
        NOminoes(),
        help="every polyomino of n cells (n = ...), free, one-sided or fixed as the piece's kind says",
    )
