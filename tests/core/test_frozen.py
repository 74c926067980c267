"""pbem.core.frozen.replace builds what dataclasses.replace builds, or calls it."""

from __future__ import annotations

import dataclasses
import functools
import inspect
from dataclasses import InitVar, dataclass, field
from typing import Any

import pytest

from pbem.core.frozen import quick_init, quick_replace
from pbem.core.game import Rules
from pbem.games import GAMES


@dataclass(frozen=True)
class Plain:
    x: int
    items: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class WithInitVar:
    x: int
    seed: InitVar[int] = 0


@dataclass(frozen=True)
class WithDerived:
    x: int
    double: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        object.__setattr__(self, "double", 2 * self.x)


@dataclass(frozen=True, slots=True)
class Slotted:
    x: int


@dataclass(frozen=True)
class Cached:
    x: int

    @functools.cached_property
    def double(self) -> int:
        return 2 * self.x


def test_a_plain_dataclass_is_copied_with_its_changes() -> None:
    old = Plain(1, [7])
    new = quick_replace(old, x=2)
    assert new == dataclasses.replace(old, x=2) and type(new) is Plain
    assert old == Plain(1, [7]) and new.items is old.items  # unchanged fields: the same objects
    with pytest.raises(dataclasses.FrozenInstanceError):
        new.x = 3  # type: ignore[misc]


def test_other_classes_go_through_dataclasses_replace() -> None:
    assert quick_replace(WithInitVar(1), x=2) == WithInitVar(2)
    assert quick_replace(WithDerived(1), x=2).double == 4  # __post_init__ ran
    assert quick_replace(Slotted(1), x=2) == Slotted(2)
    cached = Cached(1)
    assert cached.double == 2
    assert quick_replace(cached, x=5).double == 10  # the cached value is not carried over


def test_an_unknown_field_is_refused_as_dataclasses_replace_refuses_it() -> None:
    with pytest.raises(TypeError):
        quick_replace(Plain(1), y=2)


@pytest.mark.parametrize("rules", GAMES, ids=lambda r: r.id)
def test_every_games_state_is_copied_as_dataclasses_replace_builds_it(
    rules: type[Rules[Any]],
) -> None:
    state = rules().new_state()
    name = dataclasses.fields(state)[0].name
    value = getattr(state, name)
    assert quick_replace(state, **{name: value}) == dataclasses.replace(state, **{name: value})
    assert quick_replace(state) is not state


def _twins() -> tuple[type[Any], type[Any]]:
    """Two copies of one frozen dataclass with every kind of field, the second quick."""

    def build() -> type[Any]:
        @dataclass(frozen=True)
        class Every:
            x: int
            items: list[int] = field(default_factory=list)
            name: str = "q"
            after: int = field(default=3, kw_only=True)
            more: dict[str, int] = field(default_factory=dict, kw_only=True)

        return Every

    return build(), quick_init(build())


def test_a_quick_init_builds_what_the_dataclass_init_builds() -> None:
    slow, quick = _twins()
    assert inspect.signature(quick.__init__).parameters.keys() == (
        inspect.signature(slow.__init__).parameters.keys()
    )
    for args, kwargs in [((1,), {}), ((1, [2], "r"), {"after": 4, "more": {"a": 1}})]:
        a, b = slow(*args, **kwargs), quick(*args, **kwargs)
        assert vars(a) == vars(b) and repr(a).partition("(")[2] == repr(b).partition("(")[2]
    assert quick(1).items is not quick(1).items  # each instance its own default
    with pytest.raises(TypeError):
        quick(1, 2, 3, 4)  # the kw_only fields stay keyword-only
    with pytest.raises(dataclasses.FrozenInstanceError):
        quick(1).x = 2


@dataclass(frozen=True)
class HandInit:
    x: int

    def __init__(self, x: int) -> None:
        object.__setattr__(self, "x", x + 1)


def test_a_class_quick_replace_would_not_copy_keeps_its_init() -> None:
    for cls in (WithInitVar, WithDerived, Slotted, HandInit):
        init = cls.__init__
        assert quick_init(cls) is cls and cls.__init__ is init


def test_a_compact_instance_equals_the_quick_one_and_takes_less_memory() -> None:
    """``compact`` (a loaded game's log: issue 23, 10,000 games loaded) builds what the
    quick ``__init__`` builds, its fields inline in the object rather than in a dict of its
    own: less memory, even with quick instances made first (a daemon loads a new game after
    playing others; without the class's primer, such instances took more than quick ones)."""
    import tracemalloc

    from pbem.core.events import Notice
    from pbem.core.frozen import compact

    def made(build: Any) -> int:
        tracemalloc.start()
        kept = [build(n) for n in range(2000)]
        size = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        assert len(kept) == 2000
        return size

    def args(n: int) -> dict[str, Any]:
        return {"template": "lupus/dawn", "to": ("Alice",), "public": False, "params": {"n": n}}

    @quick_init
    @dataclass(frozen=True)
    class Said:  # a class no instance of which was made yet
        template: str
        to: tuple[str, ...]
        public: bool
        params: dict[str, Any]

    quick_size = made(lambda n: Said(**args(n)))  # quick instances first
    compact_size = made(lambda n: compact(Said, args(n)))
    assert compact_size < 0.85 * quick_size, (compact_size, quick_size)
    assert compact(Said, args(1)) == Said(**args(1)) and type(compact(Said, args(1))) is Said
    assert compact(Notice, args(1)) == Notice(**args(1))  # the events are quick_init's
    assert compact(Plain, {"x": 1}) == Plain(1)  # a class quick_init never saw: its own init
