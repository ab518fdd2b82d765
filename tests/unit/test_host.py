"""Plugins are found through entry points; autoload can be switched off."""

from importlib.metadata import entry_points

import pytest

from polytile_core import hookimpl
from polytile_core.errors import InputError
from polytile_core.host.registry import Host


def test_the_built_in_plugins_come_through_entry_points():
    declared = {entry.name for entry in entry_points(group="polytile")}
    assert "cpsat" in declared
    host = Host()
    assert host.registry["backends"]["cpsat"].plugin == "cpsat"
    assert "pentominoes" in host.registry["families"]


def test_autoload_off_keeps_only_the_core():
    host = Host(autoload=False)
    assert host.registry["backends"] == {}
    assert "tiling" in host.registry["builders"]
    with pytest.raises(InputError, match=r"no backend called 'cpsat' is installed \(installed: none\)"):
        host.get("backends", "cpsat")


class _Twice:
    @hookimpl
    def polytile_register_families(self, register):
        register("pentominoes", lambda n=None, kind="free": [])


def test_a_name_registered_twice_is_an_error():
    with pytest.raises(InputError, match="registered by both"):
        Host(autoload=False, plugins=[_Twice()])


def test_hosts_are_independent():
    class Extra:
        @hookimpl
        def polytile_register_families(self, register):
            register("extra", lambda n=None, kind="free": [])

    assert "extra" in Host(autoload=False, plugins=[Extra()]).registry["families"]
    assert "extra" not in Host(autoload=False).registry["families"]


def test_a_misspelt_hook_is_an_error_not_silence():
    class Misspelt:
        @hookimpl
        def polytile_register_backend(self, register):  # the hook is polytile_register_backends
            register("never", object)

    with pytest.raises(InputError, match="unknown hook 'polytile_register_backend'"):
        Host(autoload=False, plugins=[Misspelt()])
