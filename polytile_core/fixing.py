"""A model with some of its variables fixed to 1, and the worker-side cache that makes
such parts cheap to send.

A part of the search-tree split is the whole model with a few placements fixed.  The
whole model travels to a worker once (``ModelParcel``); after that a part is its model's
key and the fixed variable indices.  The worker pins them (``pinned``): one row
``x == 1`` per fixed variable, added to the whole model without copying it.  Any backend
solves that; exact cover takes a pinned row first (it has one candidate), and a MIP
presolve removes it.  Solutions come back in the whole model's variables.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import attrs

from polytile_core.model import Constraint, Model

# Whole models a worker keeps (one per split run; a long-lived Dask worker serves many runs).
CACHED_MODELS = 4


def pinned(model: Model, fixed: tuple[int, ...]) -> Model:
    """``model`` with the ``fixed`` variables pinned to 1 (the model's lists are shared, not copied)."""
    pins = [Constraint(((var, 1),), "==", 1, f"fixed {model.labels[var]}") for var in fixed]
    return attrs.evolve(model, constraints=model.constraints + pins, symmetries=[])


@attrs.frozen(eq=False)
class ModelParcel:
    """A whole model under a key; ``model`` is None when the worker is expected to have it."""

    key: str
    model: Model | None = None


@attrs.frozen
class ModelNeeded:
    """A worker's answer when it has no model under the parcel's key: send the part again
    with the model."""

    worker: str


_cache: OrderedDict[str, Model] = OrderedDict()
_cache_lock = threading.Lock()


def model_of(parcel: ModelParcel) -> Model | None:
    """The parcel's model: the one it carries (kept for the next parts), the one kept, or None."""
    with _cache_lock:
        if parcel.model is not None:
            _cache[parcel.key] = parcel.model
            while len(_cache) > CACHED_MODELS:
                _cache.popitem(last=False)
            return parcel.model
        model = _cache.get(parcel.key)
        if model is not None:
            _cache.move_to_end(parcel.key)
        return model


def forget(key: str) -> None:
    with _cache_lock:
        _cache.pop(key, None)
