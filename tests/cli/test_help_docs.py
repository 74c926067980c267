"""The command line's documentation stays in step with the parser (issue 12): the shipped man
page and bash completion are the generators' output, `pbem games` lists every game's options,
`pbem --help` names the games, and `-c` goes before or after the verb."""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from pbem.cli.completion import bash_completion
from pbem.cli.main import build_parser, main
from pbem.cli.manpage import manpage, roff
from pbem.games import GAMES

ROOT = Path(__file__).resolve().parents[2]


def test_shipped_man_page_is_up_to_date_with_the_parser() -> None:
    shipped = (ROOT / "docs" / "pbem.1").read_text()
    assert shipped == manpage(build_parser()), "run `make man` (python -m pbem.cli.manpage)"
    for needle in ("\\fB\\-c\\fR", "shunt list", "RestartPreventExitStatus", ".SH EXIT STATUS"):
        assert needle in shipped


def test_shipped_bash_completion_is_up_to_date_with_the_parser() -> None:
    shipped = (ROOT / "completion" / "pbem.bash").read_text()
    assert shipped == bash_completion(build_parser()), "run `make man` (pbem completion bash)"


def _complete(*words: str) -> list[str]:
    script = (
        f"source {ROOT / 'completion' / 'pbem.bash'}\n"
        'COMP_WORDS=("$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); _pbem\n'
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    out = subprocess.run(
        ["bash", "-c", script, "bash", *words], capture_output=True, text=True, check=True
    )
    assert out.stderr == ""
    return out.stdout.split()


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is what the script completes")
def test_bash_completion_completes_verbs_options_and_choices() -> None:
    assert "shunt" in _complete("pbem", "")
    assert _complete("pbem", "sh") == ["shunt"]
    assert _complete("pbem", "-c", "x.toml", "shunt", "") == ["list", "show", "retry"]
    assert _complete("pbem", "shunt", "list", "--c") == ["--config"]
    assert _complete("pbem", "new-game", "--lang", "") == ["fr", "en"]
    assert _complete("pbem", "status", "-c", "/etc/x", "--j") == ["--json"]


def test_games_lists_every_game_with_its_options_defaults_and_allowed_values(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["games", "--json"]) == 0
    data = {g["id"]: g for g in json.loads(capsys.readouterr().out)}
    assert set(data) == {g.id for g in GAMES}
    lupus = {o["name"]: o for o in data["lupus-in-tabula"]["options"]}
    assert lupus["night_duration"]["default"] == "18h"
    assert lupus["wolves_tie"] == {
        "name": "wolves_tie",
        "type": "choice",
        "default": "random",
        "allowed": ["random", "no_victim"],
    }
    assert lupus["early_close"]["default"] is False
    assert main(["games", "dracula"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("dracula  (Dracula)\n") and "{" not in text
    assert main(["games", "nope"]) == 2


def test_help_names_the_games_and_pbem_games(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert all(g.id in out for g in GAMES) and "pbem games" in out


CONFIG_COMMANDS = (
    ["serve"],
    ["check-config"],
    ["new-game"],
    ["status"],
    ["deadline", "list"],
    ["deadline", "retry", "g1"],
    ["shunt", "list"],
    ["shunt", "show", "k"],
    ["shunt", "retry", "k"],
    ["reachable", "g1", "Alice"],
    ["admin", "g1", "PAUSE"],
    ["seat", "replace", "g1", "Alice", "new@example.test"],
    ["open-game", "--seats", "8"],
    ["archive", "g1"],
    ["stats"],
)


@pytest.mark.parametrize("verb", CONFIG_COMMANDS, ids=" ".join)
def test_config_option_before_and_after_the_verb(verb: list[str]) -> None:
    parser = build_parser()
    assert parser.parse_args(["-c", "X", *verb]).config == "X"
    assert parser.parse_args([*verb, "-c", "X"]).config == "X"
    assert parser.parse_args([*verb, "--config=X"]).config == "X"
    assert parser.parse_args([*verb]).config == "/etc/pbem/pbem.toml"
    if len(verb) > 1:  # `pbem shunt -c X list`, `pbem seat -c X replace ...` too (issue 21)
        assert parser.parse_args([verb[0], "-c", "X", *verb[1:]]).config == "X"


NO_CONFIG = {"simulate", "demo", "games", "completion", "verify", "balance"}


def test_every_verb_and_sub_verb_reading_the_config_takes_c() -> None:
    """The rule is made in one place (pbem.cli.common.config_everywhere): a verb added later,
    or a verb group's own parser (``pbem seat``), gets ``-c`` without asking."""
    from pbem.cli.completion import walk

    for path, p in walk(build_parser()):
        options = {o for a in p._actions for o in a.option_strings}
        assert ("--config" in options) == (not NO_CONFIG & set(path[:1])), path


def test_no_help_text_shows_a_doubled_percent_sign() -> None:
    """argparse %-formats an argument's help but prints a description as written: a « %% »
    meant for the one shows doubled in the other (it did in ``pbem balance --help``)."""
    parser = build_parser()
    subparsers = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    for action in subparsers:
        for name, sub in action.choices.items():
            assert "%%" not in sub.format_help(), name
    assert "%%" not in manpage(parser)


#: The verbs a sysadmin or an operator runs (docs/install-debian.md, docs/season.md): each
#: `--help` says what the verb does and shows how it is typed.
OPERATOR_VERBS = (
    ("serve",),
    ("check-config",),
    ("new-game",),
    ("open-game",),
    ("status",),
    ("shunt",),
    ("deadline",),
    ("reachable",),
    ("archive",),
    ("export",),
    ("verify",),
    ("simulate",),
    ("admin",),
    ("seat", "replace"),
    ("stats",),
    ("balance",),
    ("install-files",),
    ("games",),
    ("demo",),
    ("completion",),
)


def test_every_verb_s_help_is_checked_for_what_it_does_and_its_examples() -> None:
    """`pbem admin --help` showed no example of how a command of several words is typed, nor
    did `seat replace`, `stats`, `balance` (--vary's form), `install-files`, `games`, `demo`:
    every verb that does something is now in OPERATOR_VERBS."""
    from pbem.cli.completion import walk

    verbs = {tuple(p[1:]) for p, _ in walk(build_parser(), ("pbem",)) if len(p) == 2}
    # shunt's and deadline's examples show their sub-verbs; seat's lone sub-verb has its own
    verbs = verbs - {("seat",)} | {("seat", "replace")}
    assert verbs <= set(OPERATOR_VERBS), sorted(verbs - set(OPERATOR_VERBS))


@pytest.mark.parametrize("path", OPERATOR_VERBS, ids=" ".join)
def test_an_operator_verb_s_help_says_what_it_does_with_examples_that_parse(
    path: tuple[str, ...],
) -> None:
    """The sysadmin's day after: `pbem serve --help`, `check-config --help`, `new-game --help`
    and `status --help` printed their options and nothing else. The examples are parsed by the
    parser itself, so one cannot go stale."""
    import shlex

    from pbem.cli.completion import walk

    parser = build_parser()
    verbs = {tuple(p[1:]): sub for p, sub in walk(parser, ("pbem",))}
    sub = verbs[path]
    text = sub.format_help()
    assert sub.description and len(sub.description) > 80, text
    assert "examples:\n" in text, text
    commands = text.split("examples:\n", 1)[1].strip().splitlines()
    for line in commands:
        argv = shlex.split(line.split("  #", 1)[0])
        argv = argv[: argv.index(">")] if ">" in argv else argv  # the shell's redirection
        assert argv[: 1 + len(path)] == ["pbem", *path], line
        parser.parse_args(argv[1:])
    page = manpage(parser)
    section = page.split(f".SS {roff(' '.join(path))}\n")[1]
    assert roff(commands[0].split("  #", 1)[0].strip()) in section
