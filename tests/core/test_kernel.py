"""The kernel: name matching, command grammar, event codec, resolution loop, options."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Literal

import pytest

from pbem.core.commands import CommandSpec, Player, Players, Text, Word, parse_line
from pbem.core.errors import (
    AmbiguousTarget,
    IllegalNow,
    InvalidSyntax,
    SetupError,
    UnknownCommand,
    UnknownTarget,
)
from pbem.core.events import COMMON_EVENTS, EventCodec, Notice, PhaseStarted, PlayerDied, private
from pbem.core.match import fold, match_name
from pbem.core.options import options_to_json, parse_duration, parse_options
from pbem.core.resolve import Intent, Veto, resolve

NAMES = ["Élodie", "Eloise", "bob", "Bobby", "carol"]


def test_fold_removes_accents_and_case() -> None:
    assert fold("ÉlOdIe") == "elodie"
    assert fold("Gaëlle") == "gaelle"


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("elodie", "Élodie"),
        ("ELOD", "Élodie"),
        ("eloi", "Eloise"),
        ("bob", "bob"),
        ("**carol**,", "carol"),
    ],
)
def test_match_exact_then_unique_prefix(typed: str, expected: str) -> None:
    assert match_name(typed, NAMES) == expected


def test_match_ambiguous_prefix_lists_candidates() -> None:
    with pytest.raises(AmbiguousTarget) as err:
        match_name("elo", NAMES)
    assert err.value.candidates == ("Élodie", "Eloise")


def test_match_unknown_suggests_close_names() -> None:
    with pytest.raises(UnknownTarget) as err:
        match_name("karol", NAMES)
    assert err.value.suggestions == ("carol",)


SPECS = (
    CommandSpec("kill", ("TUER",), ("KILL",), (Player(),)),
    CommandSpec("lovers", ("AMOUREUX",), ("LOVERS",), (Players(2),)),
    CommandSpec(
        "ask",
        ("QUESTION",),
        ("ASK",),
        (
            Word({"wolves": ("LOUPS", "WOLVES"), "ballroom": ("SALLE DE BAL", "BALLROOM")}),
            Player(optional=True),
        ),
    ),
    CommandSpec("pack", ("LOUPS",), ("PACK",), (Text(),)),
    CommandSpec("vote", ("VOTE",), ("VOTE",), (Player(),), public=True),
)


def test_parse_line_resolves_names_and_keywords_in_both_languages() -> None:
    assert parse_line("Tuer bob", SPECS, NAMES).targets == ("bob",)
    assert parse_line("kill CAR", SPECS, NAMES).targets == ("carol",)
    assert parse_line("LOVERS bob et carol", SPECS, NAMES).targets == ("bob", "carol")
    cmd = parse_line("question salle de bal", SPECS, NAMES)
    assert cmd is not None and cmd.word == "ballroom" and cmd.targets == ()
    assert parse_line("PACK  on mange bob ?", SPECS, NAMES).text == "on mange bob ?"


def test_parse_line_free_text_is_none_and_typos_are_unknown_commands() -> None:
    assert parse_line("I think bob is lying", SPECS, NAMES) is None
    with pytest.raises(UnknownCommand) as err:
        parse_line("TUEER bob", SPECS, NAMES)
    assert err.value.params["suggestions"] == ["TUER"]


def test_parse_line_syntax_errors() -> None:
    with pytest.raises(InvalidSyntax):
        parse_line("KILL", SPECS, NAMES)
    with pytest.raises(InvalidSyntax):
        parse_line("LOVERS bob bob", SPECS, NAMES)
    with pytest.raises(InvalidSyntax):
        parse_line("KILL bob carol", SPECS, NAMES)
    # A public post may comment its vote on the same line.
    assert parse_line("VOTE bob because he lies", SPECS, NAMES) is not None


def test_codec_round_trips_every_common_event() -> None:
    codec = EventCodec(COMMON_EVENTS)
    moment = datetime(2026, 1, 1, tzinfo=UTC)
    for event in (
        PhaseStarted("night", 1, {"night": moment}),
        PlayerDied("bob", "wolves"),
        private("x/y", ["bob"], "t", names=["a"], n=1),
    ):
        data = codec.encode(event)
        assert codec.decode(data) == event


def test_resolution_loop_runs_by_priority_and_records_vetoes() -> None:
    @dataclass(frozen=True)
    class S:
        dead: tuple[str, ...] = ()
        charges: int = 1

    def evolve(s: S, e: object) -> S:
        if isinstance(e, PlayerDied):
            return replace(s, dead=(*s.dead, e.player))
        if isinstance(e, Notice) and e.template == "used":
            return replace(s, charges=s.charges - 1)
        return s

    def shield(s: S, i: Intent) -> Veto | None:
        return Veto("shield", (Notice("used"),)) if i.target == "bob" and s.charges else None

    intents = [
        Intent("kill", "bob", "wolves", 3),
        Intent("kill", "bob", "poison", 5),
        Intent("kill", "carol", "probe", 1),
    ]
    result = resolve(
        S(), "night", intents, [shield], lambda s, i: [PlayerDied(i.target, i.cause)], evolve
    )
    assert result.state.dead == ("carol", "bob")  # priority order; the shield held once
    assert result.vetoed == {intents[0]: "shield"}
    trace = result.events[-1]
    assert [t["vetoed_by"] for t in trace.trace] == [None, "shield", None]  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Opts:
    mode: Literal["a", "b"] = "a"
    flag: bool = False
    wait: timedelta = timedelta(hours=1)


def test_options_defaults_validation_and_durations() -> None:
    assert parse_options(Opts, None) == Opts()
    assert parse_options(Opts, {"mode": "b", "wait": "90min"}) == Opts(
        "b", False, timedelta(minutes=90)
    )
    for bad in ({"mode": "c"}, {"flag": "yes"}, {"nope": 1}, {"wait": "soon"}):
        with pytest.raises(SetupError):
            parse_options(Opts, bad)
    assert parse_duration(30) == timedelta(seconds=30)
    assert parse_duration("2d") == timedelta(days=2)


@pytest.mark.parametrize(
    "game", ["lupus-in-tabula", "loup-garou", "chasse-aux-sorcieres", "dracula"]
)
def test_options_are_written_field_by_field_as_the_dataclass_declares_them(game: str) -> None:
    """Every game's setup writes its options (``GameCreated``): the field names are read once
    per options class (issue 23), and give what ``dataclasses.fields`` gives, in its order."""
    import dataclasses

    from pbem.games import rules_for

    cls = rules_for(game).options_type
    options = parse_options(cls, None)
    written = options_to_json(options)
    assert list(written) == [f.name for f in dataclasses.fields(cls)]
    for name, value in written.items():
        fresh = getattr(options, name)
        if isinstance(fresh, timedelta):
            fresh = fresh.total_seconds()
        assert value == (list(fresh) if isinstance(fresh, tuple) else fresh)


@dataclass(frozen=True)
class Weights:
    factor: float = 1.0
    names: tuple[str, ...] = ()
    extra: object = None


@dataclass
class Mutable:
    flag: bool = False


def test_options_are_parsed_once_for_the_same_values() -> None:
    """Issue 23: a game created parsed its options three times; the same values give the same
    (frozen) options, told apart by type and digits, never a shared mutable value."""
    assert parse_options(Opts, {"mode": "b"}) is parse_options(Opts, {"mode": "b"})
    assert parse_options(Opts, {"flag": True}).flag is True
    with pytest.raises(SetupError, match="not true or false"):
        parse_options(Opts, {"flag": 1})  # 1 == True, yet not an option a bool takes
    assert str(parse_options(Weights, {"factor": -0.0}).factor) == "-0.0"
    assert str(parse_options(Weights, {"factor": 0.0}).factor) == "0.0"
    names = parse_options(Weights, {"names": ["a", "b"]})
    assert names.names == ("a", "b") and names is parse_options(Weights, {"names": ["a", "b"]})
    given: list[str] = ["x"]
    assert parse_options(Weights, {"extra": given}).extra is given  # not kept, not shared
    assert parse_options(Mutable, {}) is not parse_options(Mutable, {})


def test_errors_carry_reason_and_params() -> None:
    err = IllegalNow("target_not_living", name="bob")
    assert err.reason == "target_not_living" and err.params == {"name": "bob"}
