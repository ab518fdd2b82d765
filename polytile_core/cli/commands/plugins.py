"""``polytile plugins``: each plugin, what it provides, where it comes from."""

from __future__ import annotations

from polytile_core.host.registry import CAPABILITIES, SINGULAR, Host


def add(subparsers):
    command = subparsers.add_parser("plugins", help="list installed plugins and what they provide")
    command.set_defaults(func=show_plugins)


def show_plugins(arguments) -> int:
    host = Host(autoload=not arguments.no_autoload)
    origins = host.plugin_origins()
    for plugin in sorted(origins):
        print(f"{plugin}  ({origins[plugin]})")
        for capability in CAPABILITIES:
            for registration in host.registry[capability].values():
                if registration.plugin == plugin:
                    print(f"  {SINGULAR[capability]} {registration.name}: {registration.help}")
    return 0
