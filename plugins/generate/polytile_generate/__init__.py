"""polytile plugin: the ``n-ominoes`` piece family, every polyomino of n cells.

In a pipeline: ``family = "n-ominoes"``, ``n = 6`` and the piece table's ``kind``
(free, one-sided or fixed) decides which pieces there are: the 35 free hexominoes, the
60 one-sided ones or the 216 fixed ones.  Names are explained in ``names.py``.
"""

from __future__ import annotations

from polytile_core import hookimpl

from polytile_generate.enumerate import count
from polytile_generate.names import n_ominoes

__all__ = ["NOminoes", "count", "n_ominoes"]


class NOminoes:
    """The family's ``make``; it also offers ``count`` so `polytile pieces --count-only`
    need not build millions of shapes."""

    def __call__(self, n=None, kind="free"):
        return n_ominoes(n, kind)

    def count(self, n=None, kind="free") -> int:
        return count(n, kind)


@hookimpl
def polytile_register_families(register):
    register(
        "n-ominoes",
        NOminoes(),
        help="every polyomino of n cells (n = ...), free, one-sided or fixed as the piece's kind says",
    )
