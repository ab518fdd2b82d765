"""The worker-side cache that makes parts with fixed variables cheap to send.

A part of the search-tree split is the whole model with a few placements fixed.  The
whole model travels to a worker once or so (``ModelParcel``); after that a part is its
model's key and the fixed variable indices, which the worker pins (``Model.pinned``).
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import attrs

from polytile_core.model.zero_one import Model

# Whole models a worker keeps (one per split run; a long-lived Dask worker serves many runs).
CACHED_MODELS = 4


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
