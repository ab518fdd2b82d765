"""Plugins add their own flags to the command line (``polytile_register_flags``)."""

from __future__ import annotations

import pytest

from polytile_core.cli.flags import given_flags
from polytile_core.cli.main import main, parser
from polytile_core.errors import InputError
from polytile_core.host.registry import Host
from polytile_core.plugin import Flag, Register, hookimpl


class _Shading:
    @hookimpl
    def polytile_register_flags(self, register: Register[Flag]) -> None:
        register("--shade", Flag(of="renderer", option="shade", value=float, metavar="F"), help="how dark")
        register("--outline", Flag(of="renderer", option="outline", switch=True), help="draw outlines")


class _Clash:
    @hookimpl
    def polytile_register_flags(self, register: Register[Flag]) -> None:
        register("--mode", Flag(of="executor", option="mode"), help="takes the core's own flag")


def test_a_plugin_flag_is_read_as_the_option_it_sets(capsys):
    host = Host(autoload=False, plugins=[_Shading()])
    with pytest.raises(SystemExit):
        parser(host).parse_args(["render", "--help"])
    assert "--shade F" in capsys.readouterr().out
    arguments = parser(host).parse_args(["render", "r.json", "-o", "x.svg", "--shade", "0.5", "--outline"])
    given = {
        registration.provides.option: value for registration, value in given_flags(arguments, host, command="render")
    }
    assert given == {"shade": 0.5, "outline": True}
    quiet = parser(host).parse_args(["render", "r.json", "-o", "x.svg"])
    assert given_flags(quiet, host, command="render") == []


def test_a_plugin_flag_the_command_has_already_is_one_error_naming_the_plugin():
    with pytest.raises(InputError, match=r"plugin '.+' adds the flag '--mode' to `polytile solve`"):
        parser(Host(autoload=False, plugins=[_Clash()]))


def test_without_the_installed_plugins_their_flags_are_unknown(tmp_path, capsys):
    picture = tmp_path / "x.svg"
    with pytest.raises(SystemExit) as stopped:
        main(["--no-autoload", "render", str(tmp_path / "r.json"), "-o", str(picture), "--limit", "3"])
    assert stopped.value.code == 2
    assert "unrecognized arguments: --limit 3" in capsys.readouterr().err


def test_the_version_is_answered_before_any_plugin_is_loaded(monkeypatch, capsys):
    """Plugins load before the command line is read (they add flags to it); a plugin that
    fails to load must still not hide ``polytile --version``."""

    def broken(**_: object) -> Host:
        raise InputError("plugin 'broken' from broken 1.0 failed to load: ImportError")

    monkeypatch.setattr("polytile_core.cli.main.Host", broken)
    with pytest.raises(SystemExit) as stopped:
        main(["--version"])
    assert stopped.value.code == 0 and capsys.readouterr().out.startswith("polytile ")
    assert main(["plugins"]) == 2
    assert "failed to load" in capsys.readouterr().err
