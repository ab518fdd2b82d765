"""The plugin host: one object that knows every installed plugin and what it provides.

Nothing is loaded at import time.  ``Host()`` builds a pluggy plugin manager, registers
the core's own built-ins, loads third-party plugins from the ``polytile`` entry-point
group (unless ``autoload=False``), and collects what each plugin registers.
"""

from __future__ import annotations

import functools
import importlib.metadata
from collections.abc import Iterable
from typing import Any

import attrs
import pluggy

from polytile_core.errors import InputError
from polytile_core.host import builtin, hookspecs
from polytile_core.host.capabilities import AUTO, BackendCapabilities, BuilderCapabilities, DecomposerCapabilities
from polytile_core.output import notebook

CAPABILITIES = ("families", "builders", "decomposers", "backends", "renderers", "executors", "tilers", "flags")
# What each kind of plugin may declare when it registers (``capabilities=``).
CAPABILITY_TYPES: dict[str, type] = {
    "backends": BackendCapabilities,
    "builders": BuilderCapabilities,
    "decomposers": DecomposerCapabilities,
}
SINGULAR = {
    "families": "piece family",
    "builders": "problem kind",
    "decomposers": "split method",
    "backends": "backend",
    "renderers": "render format",
    "executors": "executor",
    "tilers": "large-region tiler",
    "flags": "command-line flag",
}


@attrs.frozen
class Registration:
    """One thing a plugin provides: its name, the object, its options class, a help line,
    and what it declared it can do (``polytile_core.host.capabilities``; backends, builders and splits)."""

    name: str
    provides: Any
    plugin: str
    options: type | None = None
    help: str = ""
    # Builders only: the backend a pipeline of this problem kind uses when it names none.
    backend: str | None = None
    capabilities: Any = None


class Host:
    """The registry of plugins.  Build one per program (or per thread); they share nothing."""

    def __init__(self, *, autoload: bool = True, plugins: Iterable[object] = ()):
        self.manager = pluggy.PluginManager("polytile")
        self.manager.add_hookspecs(hookspecs)
        self._distributions: dict[str, str] = {}
        self.manager.register(builtin, name="core")
        for plugin in plugins:
            self.manager.register(plugin)
        if autoload:
            self._load_entry_points()
        self._refuse_unknown_hooks()
        self.registry: dict[str, dict[str, Registration]] = {}
        for capability in CAPABILITIES:
            self.registry[capability] = self._collect(capability)

    def _load_entry_points(self) -> None:
        """Register every plugin of the ``polytile`` entry-point group; a plugin that fails
        to import is an error naming it and its distribution, not a traceback."""
        for entry in importlib.metadata.entry_points(group="polytile"):
            if self.manager.get_plugin(entry.name) is not None or self.manager.is_blocked(entry.name):
                continue
            try:
                plugin = entry.load()
            except Exception as exc:  # any import failure of a third-party plugin
                origin = entry.dist.name if entry.dist else entry.value
                raise InputError(f"plugin {entry.name!r} from {origin} failed to load: {exc}") from None
            self.manager.register(plugin, name=entry.name)
            self._distributions[entry.name] = f"{entry.dist.name} {entry.dist.version}" if entry.dist else entry.value

    def _refuse_unknown_hooks(self) -> None:
        """A hook implementation whose name matches no hook spec (a misspelling) would never
        be called: say so instead of registering nothing."""
        try:
            self.manager.check_pending()
        except pluggy.PluginValidationError as exc:
            known = ", ".join(f"polytile_register_{capability}" for capability in CAPABILITIES)
            raise InputError(f"{exc} (the hooks are {known})") from None

    def _collect(self, capability: str) -> dict[str, Registration]:
        found: dict[str, Registration] = {}
        hook = getattr(self.manager.hook, f"polytile_register_{capability}")
        for impl in hook.get_hookimpls():
            plugin_name = self.manager.get_name(impl.plugin) or repr(impl.plugin)

            def register(
                name: str,
                provides: object,
                *,
                options: type | None = None,
                help: str = "",
                backend: str | None = None,
                capabilities: object | None = None,
                _plugin: str = plugin_name,
            ) -> None:
                if name in found:
                    raise InputError(
                        f"{SINGULAR[capability]} {name!r} is registered by both {found[name].plugin!r} and {_plugin!r}"
                    )
                if capability in ("backends", "executors") and name == AUTO:
                    raise InputError(
                        f"plugin {_plugin!r} registers {SINGULAR[capability]} {AUTO!r}, a name polytile keeps for itself"
                    )
                expected = CAPABILITY_TYPES.get(capability)
                if capabilities is not None and (expected is None or not isinstance(capabilities, expected)):
                    wanted = f"a {expected.__name__}" if expected else "none"
                    raise InputError(
                        f"plugin {_plugin!r} declares capabilities of {SINGULAR[capability]} {name!r} as "
                        f"{type(capabilities).__name__}; expected {wanted}"
                    )
                if capabilities is None and capability == "decomposers":
                    capabilities = DecomposerCapabilities()  # serves every mode; auto never picks it
                found[name] = Registration(name, provides, _plugin, options, help, backend, capabilities)

            impl.function(register)
        return found

    def get(self, capability: str, name: str) -> Registration:
        """The registration called ``name``, or an error listing what is installed."""
        available = self.registry[capability]
        if name not in available:
            known = ", ".join(sorted(available)) or "none"
            raise InputError(f"no {SINGULAR[capability]} called {name!r} is installed (installed: {known})")
        return available[name]

    def plugin_origins(self) -> dict[str, str]:
        """Plugin name → where it comes from (distribution and version, or 'built in')."""
        origins = {name: "registered in code" for name, _ in self.manager.list_name_plugin()}
        origins["core"] = "built in (polytile)"
        return origins | self._distributions


@functools.cache
def _installed_svg_renderer() -> Registration | None:
    """The registration of the ``svg`` render format, or None.  Looked up once: a notebook
    shows many pictures, and plugins are not installed while it runs."""
    try:
        return Host().registry["renderers"].get("svg")
    except InputError:  # a plugin that fails to load: pictures fall back to text
        return None


# Notebook pictures (output/notebook.py, a room below) find the svg renderer through this
# lookup: the one thing the host hands down, here, once, so that every program that has a
# host draws its Results with the installed renderer.
notebook.use_svg_renderer(_installed_svg_renderer)
