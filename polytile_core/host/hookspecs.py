"""The hooks a polytile plugin can implement.

Every hook is a *registration* hook (in the style of simonw/llm's ``register_models``):
the host calls it once per plugin with a ``register`` callable, and the plugin calls
``register`` for each thing it provides.  All implementations are called (no
``firstresult``); registering a name twice is an error the host reports.

A plugin is a module (or object) with functions named like these, decorated with
``polytile_core.hookimpl``, and exposed through an entry point in group ``polytile``.
A decorated function whose name matches no hook here is an error when the host loads
the plugin (a misspelt hook would otherwise register nothing, silently).  The types of
what each hook registers are the Protocols in ``contracts.py``.
"""

from __future__ import annotations

import pluggy

from polytile_core.host.contracts import (
    BackendFactory,
    Builder,
    Decomposer,
    ExecutorFactory,
    Family,
    Register,
    Renderer,
    Tiler,
)
from polytile_core.host.flags import Flag

hookspec = pluggy.HookspecMarker("polytile")


@hookspec
def polytile_register_families(register: Register[Family]) -> None:
    """Register named piece families, usable as ``family = "name"`` in ``[[pieces]]``.

    ``register(name, make, *, help)`` where ``make(n=None, kind="free")`` returns a list
    of ``(piece_name, cells)``; ``n`` is the ``n`` key of the piece table, for families
    that take a size (``n-ominoes``), and ``kind`` its ``kind`` key, for families whose
    members depend on it (the fixed n-ominoes are more shapes than the free ones).
    ``make`` raises ``ValueError`` for an unusable ``n``.  It may also offer
    ``make.count(n, kind)``, for counting without building every shape
    (``polytile pieces N --count-only``).
    """


@hookspec
def polytile_register_builders(register: Register[Builder]) -> None:
    """Register model builders, one per problem kind (``problem = "tiling"`` etc.).

    ``register(kind, build, *, options=None, help, backend=None, capabilities=None)`` where
    ``build(pieces, region, options)`` returns a ``polytile_core.model.zero_one.Model``;
    ``options`` is an attrs class read from the pipeline's ``[options.<kind>]`` table (or
    ``None`` when the builder takes none); ``backend`` names the backend a pipeline of this
    kind takes with ``backend = "auto"`` (the default); without one, auto chooses from the
    backends' declared capabilities.  ``capabilities`` is a
    ``polytile_core.host.capabilities.BuilderCapabilities``: for an optimisation kind, the
    setting that lists every optimal answer, which the refusal of modes ``all`` and
    ``count`` then names.
    """


@hookspec
def polytile_register_decomposers(register: Register[Decomposer]) -> None:
    """Register decomposers, chosen by ``[split] method = "name"``.

    ``register(name, decomposer, *, options=None, help, capabilities=None)`` where
    ``decomposer`` has ``split(problem, model, build, options, *, jobs=1) -> polytile_core.model.parts.Split``
    (``jobs``: how many parts run at once) and ``capabilities`` is a
    ``polytile_core.host.capabilities.DecomposerCapabilities`` (the modes it serves, what
    its parts add, whether ``backend = "auto"`` tries it, whether its parts are subtrees
    of one search, which the backend is then told with ``SolveSettings.subtree``;
    without one the split serves every mode and ``auto`` never picks it).
    """


@hookspec
def polytile_register_backends(register: Register[BackendFactory]) -> None:
    """Register solver backends, chosen by ``[solve] backend = "name"``.

    ``register(name, factory, *, options=None, help, capabilities=None)`` where
    ``factory(options)`` returns an object following ``polytile_core.host.contracts.Backend``;
    ``options`` is an attrs class read from ``[options.<name>]`` (the factory gets an
    instance of it, or ``None``); ``capabilities`` is a
    ``polytile_core.host.capabilities.BackendCapabilities`` (modes, accepted model
    features, rank per mode): ``backend = "auto"`` chooses only among backends that declare one.
    """


@hookspec
def polytile_register_renderers(register: Register[Renderer]) -> None:
    """Register renderers by file format (``svg``, ``png``, ``txt``, ...).

    ``register(format, render, *, options=None, help)`` where
    ``render(result, path, options)`` writes the picture of a ``Result`` to ``path``.
    A renderer whose options have a ``limit`` draws at most that many solutions:
    ``polytile render`` then reads no more than that from a result file.
    """


@hookspec
def polytile_register_executors(register: Register[ExecutorFactory]) -> None:
    """Register executors that run the parts of a split run.

    ``register(name, factory, *, options=None, help)`` where ``factory(jobs, options)``
    returns a ``concurrent.futures.Executor`` usable as a context manager.  An executor
    that can ask its running parts to stop declares it by ``stop_parts()``
    (``contracts.StopsItsParts``): a run ended early then keeps what they found.
    """


@hookspec
def polytile_register_tilers(register: Register[Tiler]) -> None:
    """Register large-region tilers: mode ``one`` on regions too large for a whole model.

    ``register(name, tiler, *, options=None, help)`` where ``tiler`` follows
    ``polytile_core.host.contracts.Tiler``: ``applies(problem, mode)`` (``None`` when it
    serves the problem, else why not) and ``tile(problem, *, seed, stop, deadline)`` ->
    ``LargeTiling``.  Such a tiler builds no model, so its memory grows with the part it
    works on, not with the region; ``backend = "auto"`` may call it before building one.
    """


@hookspec
def polytile_register_flags(register: Register[Flag]) -> None:
    """Register command-line flags, each a shortcut for one option of the plugin's executor
    or of a renderer (``polytile_core.host.flags.Flag``).

    ``register(name, flag, *, help)`` where ``name`` is the flag as typed (``"--scheduler"``)
    and ``help`` its line in ``--help``.  The host loads the plugins before it reads the
    command line, so a plugin flag works and shows like a core one; a name the command
    has already is an error naming the plugin.
    """
