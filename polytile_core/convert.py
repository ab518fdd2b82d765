"""The one cattrs converter: strict structuring with messages that name the key path.

cattrs would quietly turn ``"2"`` into ``2`` or a string into a list of letters; the
hooks here refuse anything that is not already of the declared type, so a typo is an
error, never a silent wrong answer.
"""

from __future__ import annotations

import enum
import json
import types
import typing
from collections.abc import Callable
from typing import Any, TypeVar

import attrs
import cattrs
from cattrs.errors import (
    AttributeValidationNote,
    ClassValidationError,
    ForbiddenExtraKeysError,
    IterableValidationError,
    IterableValidationNote,
)
from cattrs.gen import make_dict_structure_fn

from polytile_core.errors import InputError

T = TypeVar("T")
# A structure hook: (the value read, the type asked for) -> the value as that type.
Hook = Callable[[Any, Any], object]

_TYPE_WORDS: dict[type, str] = {int: "an integer", float: "a number", str: "a string", bool: "true or false"}


def _show(value: object) -> str:
    try:
        return json.dumps(value)
    except TypeError:
        return repr(value)


def _strict(kind: type) -> Hook:
    def structure(value: Any, cl: Any) -> object:
        if cl is not kind and issubclass(cl, enum.Enum):  # a str enum such as Termination
            return _member(value, cl)
        ok = isinstance(value, kind) and not (kind in (int, float) and isinstance(value, bool))
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        if not ok:
            raise ValueError(f"expected {_TYPE_WORDS[kind]}, got {_show(value)}")
        return value

    return structure


def _member(value: object, cl: type[enum.Enum]) -> enum.Enum:
    for member in cl:
        if value == member.value and type(value) is type(member.value):
            return member
    choices = ", ".join(repr(member.value) for member in cl)
    raise ValueError(f"expected one of {choices}, got {_show(value)}")


def _is_list(cl: Any) -> bool:
    return typing.get_origin(cl) in (list, tuple)


def _is_literal(cl: Any) -> bool:
    return typing.get_origin(cl) is typing.Literal


def _is_dict(cl: Any) -> bool:
    return cl is dict or typing.get_origin(cl) is dict


def _is_plain_union(cl: Any) -> bool:
    """A union of plain scalar types only, such as ``bool | int | float | str``."""
    return typing.get_origin(cl) in (typing.Union, types.UnionType) and all(
        arg in _TYPE_WORDS for arg in typing.get_args(cl)
    )


def make_converter() -> cattrs.Converter:
    converter = cattrs.Converter(forbid_extra_keys=True)
    for kind in _TYPE_WORDS:
        converter.register_structure_hook(kind, _strict(kind))

    def list_hook_factory(cl: Any) -> Hook:
        (item_type, *rest) = typing.get_args(cl) or (typing.Any,)

        def structure(value: Any, _: object) -> object:
            if not isinstance(value, (list, tuple)):
                raise ValueError(f"expected a list, got {_show(value)}")
            if typing.get_origin(cl) is tuple and rest and rest[0] is not Ellipsis:
                if len(value) != len(rest) + 1:
                    raise ValueError(f"expected {len(rest) + 1} items, got {_show(value)}")
                return tuple(converter.structure(item, t) for item, t in zip(value, (item_type, *rest), strict=True))
            errors, items = [], []
            for index, item in enumerate(value):
                try:
                    items.append(converter.structure(item, item_type))
                except Exception as exc:  # collected into one group, like cattrs does
                    exc.__notes__ = [
                        *getattr(exc, "__notes__", []),
                        IterableValidationNote(f"Structuring {cl} @ index {index}", index, item_type),
                    ]
                    errors.append(exc)
            if errors:
                raise IterableValidationError(f"While structuring {cl}", errors, cl)
            return typing.get_origin(cl)(items)

        return structure

    def dict_hook_factory(cl: Any) -> Hook:
        value_type = (typing.get_args(cl) or (str, typing.Any))[1]

        def structure(value: Any, _: object) -> object:
            if not isinstance(value, dict):
                raise ValueError(f"expected a table, got {_show(value)}")
            if value_type is typing.Any:
                return dict(value)
            errors, items = [], {}
            for key, item in value.items():
                try:
                    items[key] = converter.structure(item, value_type)
                except Exception as exc:  # collected into one group, like cattrs does
                    exc.__notes__ = [*getattr(exc, "__notes__", []), AttributeValidationNote(key, key, value_type)]
                    errors.append(exc)
            if errors:
                raise ClassValidationError(f"While structuring {cl}", errors, cl)
            return items

        return structure

    def literal_hook_factory(cl: Any) -> Hook:
        allowed = typing.get_args(cl)

        def structure(value: Any, _: object) -> object:
            if not any(value == choice and type(value) is type(choice) for choice in allowed):
                choices = ", ".join(repr(a) for a in allowed)
                raise ValueError(f"expected one of {choices}, got {_show(value)}")
            return value

        return structure

    def union_hook_factory(cl: Any) -> Hook:
        members = typing.get_args(cl)

        def structure(value: Any, _: object) -> object:
            # exact types: a bool is not an integer here, and 1 is not the string "1"
            if type(value) in members:
                return value
            if float in members and type(value) is int:
                return float(value)
            words = [_TYPE_WORDS[member] for member in members]
            raise ValueError(f"expected {', '.join(words[:-1])} or {words[-1]}, got {_show(value)}")

        return structure

    def attrs_hook_factory(cl: Any) -> Hook:
        fields_of = make_dict_structure_fn(cl, converter)

        def structure(value: Any, _: object) -> object:
            if not isinstance(value, dict):
                raise ValueError(f"expected a table, got {_show(value)}")
            return fields_of(value, cl)

        return structure

    converter.register_structure_hook_factory(attrs.has, attrs_hook_factory)
    converter.register_structure_hook_factory(_is_plain_union, union_hook_factory)
    converter.register_structure_hook_factory(_is_list, list_hook_factory)
    converter.register_structure_hook_factory(_is_dict, dict_hook_factory)
    converter.register_structure_hook_factory(_is_literal, literal_hook_factory)
    converter.register_unstructure_hook(enum.Enum, lambda member: member.value)
    return converter


CONVERTER = make_converter()


def _messages(exc: BaseException, path: str) -> list[tuple[str, str]]:
    """Flatten cattrs' exception groups into ``(key.path, message)`` pairs."""
    if isinstance(exc, (ClassValidationError, IterableValidationError)):
        lines = []
        with_notes, without_notes = exc.group_exceptions()
        for inner, note in with_notes:
            if isinstance(note, IterableValidationNote):
                lines += _messages(inner, f"{path}[{note.index}]")
            elif isinstance(note, AttributeValidationNote):
                lines += _messages(inner, f"{path}.{note.name}" if path else note.name)
            else:
                lines += _messages(inner, path)
        for inner in without_notes:
            lines += _messages(inner, path)
        return lines
    if isinstance(exc, ForbiddenExtraKeysError):
        keys = ", ".join(sorted(exc.extra_fields))
        return [(path, f"unknown key{'s' if len(exc.extra_fields) > 1 else ''} {keys}")]
    if isinstance(exc, KeyError):
        return [(path, "required key is missing")]
    if isinstance(exc, InputError):  # raised by an options class's own check, with a path inside it
        inner_path = ".".join(part for part in (path, exc.path) if part)
        return [(inner_path, exc.message)]
    return [(path, str(exc))]


def structure(data: object, cls: type[T], *, path: str = "", source: str | None = None) -> T:
    """Structure ``data`` as ``cls`` or raise one ``InputError`` naming the first bad key."""
    try:
        return CONVERTER.structure(data, cls)
    except Exception as exc:  # every structuring failure becomes an InputError
        lines = _messages(exc, path)
        key, message = lines[0] if lines else (path, str(exc))
        more = f" (and {len(lines) - 1} more problem{'s' if len(lines) > 2 else ''})" if len(lines) > 1 else ""
        raise InputError(message + more, source=source, path=key or None) from None
