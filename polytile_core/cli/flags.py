"""Flags that plugins add to the command line (``polytile_register_flags``): each goes
to its command's ``--help`` under "flags of plugins", and its value comes back as the
option it sets (``polytile_core.host.flags.Flag``)."""

from __future__ import annotations

import argparse

from polytile_core.errors import InputError
from polytile_core.host.flags import Flag
from polytile_core.host.registry import Host, Registration


def _flags(host: Host, *, command: str) -> list[Registration]:
    return [
        registration for registration in host.registry["flags"].values() if registration.provides.command == command
    ]


def _destination(registration: Registration) -> str:
    """Where argparse keeps the value: a name no core flag can have."""
    return f"plugin flag {registration.name}"


def add_plugin_flags(parser: argparse.ArgumentParser, host: Host, *, command: str) -> None:
    """Add the plugins' flags of ``command`` to its parser; a flag the command has already
    is an error naming the plugin, not a traceback."""
    registrations = _flags(host, command=command)
    if not registrations:
        return
    group = parser.add_argument_group("flags of plugins")
    for registration in registrations:
        flag: Flag = registration.provides
        destination = _destination(registration)
        try:
            if flag.switch:
                group.add_argument(
                    registration.name, dest=destination, action="store_true", default=None, help=registration.help
                )
            else:
                group.add_argument(
                    registration.name, dest=destination, type=flag.value, metavar=flag.metavar, help=registration.help
                )
        except (argparse.ArgumentError, ValueError) as exc:
            raise InputError(
                f"plugin {registration.plugin!r} adds the flag {registration.name!r} to `polytile {command}`, "
                f"which cannot take it ({exc})"
            ) from None


def given_flags(arguments: argparse.Namespace, host: Host, *, command: str) -> list[tuple[Registration, object]]:
    """The plugins' flags given on the command line, each with its value."""
    return [
        (registration, value)
        for registration in _flags(host, command=command)
        if (value := getattr(arguments, _destination(registration), None)) is not None
    ]
