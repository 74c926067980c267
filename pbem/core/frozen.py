"""A quick ``dataclasses.replace`` for the games' states: a state is folded event by event
into a new frozen dataclass, thousands of times a game.

``dataclasses.replace`` reads every field and calls the class's ``__init__``, which sets every
field again through ``object.__setattr__``: for a state of thirty fields, about ten times the
work of copying the instance's ``__dict__`` with the changes. The copy is the same object
``__init__`` would build whenever ``__init__`` does nothing else: a dataclass with no
``__post_init__``, no ``InitVar``, no field left out of ``__init__`` and no ``__slots__``;
any other class goes through ``dataclasses.replace`` itself.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

T = TypeVar("T")


def quick_replace(obj: T, /, **changes: Any) -> T:
    """``obj`` with ``changes``: what ``dataclasses.replace(obj, **changes)`` returns."""
    cls = type(obj)
    size = _SIZES.get(cls)
    if size is None:
        size = _SIZES[cls] = len(_copied_fields(cls))
    if size:
        fields = obj.__dict__.copy()
        if len(fields) == size:
            fields.update(changes)
            if len(fields) == size:  # every change names a field (cheaper than a subset test)
                new: T = _new(cls)
                _set(new, "__dict__", fields)
                return new
    # any other class, an instance holding more than its fields (a cached property), or an
    # unknown name (dataclasses.replace raises its TypeError)
    return dataclasses.replace(obj, **changes)  # type: ignore[type-var]


_new = object.__new__
_set = object.__setattr__


if TYPE_CHECKING:  # mypy checks the changes' names and types as dataclasses.replace's
    from dataclasses import replace as replace
else:
    replace = quick_replace


_SIZES: dict[type, int] = {}
"""Class -> how many :func:`_copied_fields` it has, 0 if none (a few state classes: asked at
every event)."""


def _copied_fields(cls: type) -> frozenset[str]:
    """The fields of ``cls`` when copying its instance's ``__dict__`` is what its
    ``__init__`` does, else none."""
    if not dataclasses.is_dataclass(cls) or hasattr(cls, "__post_init__"):
        return frozenset()
    if any("__slots__" in c.__dict__ for c in cls.__mro__):
        return frozenset()
    names = frozenset(f.name for f in dataclasses.fields(cls))
    # the generated __init__ takes exactly the fields: no InitVar, no init=False field
    taken = set(inspect.signature(cls.__init__).parameters) - {"self"}
    return names if taken == names else frozenset()


C = TypeVar("C", bound=type)


def quick_init(cls: C) -> C:
    """``cls`` (a frozen dataclass) with a quicker ``__init__`` that builds the same instance.

    The generated ``__init__`` of a frozen dataclass sets each field through
    ``object.__setattr__``; this one sets the instance's ``__dict__`` once, with the same
    arguments, defaults and default factories: for the events, commands and moves a game
    builds thousands of times (issue 23), about a third of their construction. A class
    :func:`quick_replace` would not copy (a ``__post_init__``, an ``InitVar``, a field left
    out of ``__init__``, ``__slots__``) keeps its own ``__init__``."""
    code = getattr(cls.__dict__.get("__init__"), "__code__", None)
    if not _copied_fields(cls) or code is None or code.co_filename != "<string>":
        return cls  # an __init__ written by hand stays
    params: list[str] = []
    body: list[str] = []
    scope: dict[str, Any] = {"_set": object.__setattr__, "_NOTHING": _NOTHING}
    fields = dataclasses.fields(cls)
    ordered = [f for f in fields if not f.kw_only] + [f for f in fields if f.kw_only]
    for f in ordered:
        if f.kw_only and "*" not in params:
            params.append("*")
        if f.default is not dataclasses.MISSING:
            scope[f"_d_{f.name}"] = f.default
            params.append(f"{f.name}=_d_{f.name}")
        elif f.default_factory is not dataclasses.MISSING:
            scope[f"_f_{f.name}"] = f.default_factory
            params.append(f"{f.name}=_NOTHING")
            body.append(f"    if {f.name} is _NOTHING: {f.name} = _f_{f.name}()")
        else:
            params.append(f.name)
    names = [f.name for f in fields]
    fill = ", ".join(f"{n!r}: {n}" for n in names)
    source = "\n".join(
        [
            f"def __init__(self, {', '.join(params)}):",
            *body,
            f"    _set(self, '__dict__', {{{fill}}})",
        ]
    )
    exec(source, scope)  # the source is built from the class's own field names
    # A first instance, discarded, sets the fields in their order: Python 3.11 then keeps the
    # fields of every instance :func:`compact` builds inline, even once quick instances (each
    # with a dict of its own) exist; without it, compact instances built after quick ones
    # took a fifth more memory than quick ones (tests/core/test_frozen.py).
    primer: object = _new(cls)
    for f in fields:
        _set(primer, f.name, None)
    init = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    _DATACLASS_INITS[cls] = cls.__dict__["__init__"]
    setattr(cls, "__init__", init)  # noqa: B010 (mypy refuses an assignment to __init__)
    return cls


_DATACLASS_INITS: dict[type, Callable[..., None]] = {}
"""The ``__init__`` the dataclass made for each class :func:`quick_init` gave a quicker one
(:func:`compact`)."""


def compact(cls: type[T], kwargs: Mapping[str, Any]) -> T:
    """``cls(**kwargs)``, built by the dataclass's own ``__init__`` where :func:`quick_init`
    replaced it: that one sets each field through ``object.__setattr__``, and Python 3.11
    keeps such fields inline in the object, where the quicker ``__init__`` gives every
    instance a dict of its own (about 130 bytes more an object). For what stays in memory
    and is built once: a loaded game's log and seats (10,000 games loaded: 30 MB, issue 23)."""
    init = _DATACLASS_INITS.get(cls)
    if init is None:
        return cls(**kwargs)
    made: T = _new(cls)
    init(made, **kwargs)
    return made


class _Nothing:
    """The default of a field with a default factory: the factory is called."""

    def __repr__(self) -> str:
        return "<factory default>"


_NOTHING = _Nothing()


class reading(Generic[T]):  # lower case: a decorator, like cached_property
    """A ``functools.cached_property`` without its lock (Python 3.11 takes one at every first
    reading), for what is read many times from a frozen state: the value is kept in the
    instance's ``__dict__``, which the next readings find first (a state's copy may keep it,
    Dracula's :func:`pbem.games.dracula.state._quick_next`)."""

    def __init__(self, read: Callable[[Any], T]) -> None:
        self.read = read
        self.name = read.__name__
        self.__doc__ = read.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> reading[T]: ...
    @overload
    def __get__(self, obj: object, owner: type | None = None) -> T: ...
    def __get__(self, obj: object | None, owner: type | None = None) -> T | reading[T]:
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.read(obj)
        return value
