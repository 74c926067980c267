"""Tests for pbem.mail.mime.raw_headers: a header's raw values, unfolded."""

from __future__ import annotations

import re
from email.message import Message

from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.mail.mime import raw_headers

SPACES = re.compile(r"\s+")


def test_folded_and_unusual_whitespace_become_one_space() -> None:
    msg = Message()
    msg["Subject"] = "a\r\n\tb  c\xa0\xa0d\u2003e"
    msg["subject"] = "  plain value  "
    assert raw_headers(msg, "SUBJECT") == ["a b c d e", "plain value"]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=40))
def test_a_value_reads_as_the_whitespace_regex_unfolds_it(value: str) -> None:
    # issue 23: the regex is spared on printable values; the reading stays the same
    msg = Message()
    msg._headers.append(("From", value))  # as a parser stores it, unchecked
    assert raw_headers(msg, "from") == [SPACES.sub(" ", value).strip()]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(["From", "FROM", "from", "Fröm", "Message-ID", "\u212aey", "İd", "To"])
        | st.text(alphabet=st.characters(codec="utf-8"), max_size=12),
        max_size=6,
    ),
    st.sampled_from(["from", "From", "message-id", "key", "id", "to"]),
)
def test_a_header_is_found_by_its_lowered_name_whatever_its_width(
    names: list[str], wanted: str
) -> None:
    # issue 23: a name of another width is not lowered; the headers found are the same
    msg = Message()
    for at, name in enumerate(names):
        msg._headers.append((name, f"v{at}"))
    found = [f"v{at}" for at, name in enumerate(names) if name.lower() == wanted.lower()]
    assert raw_headers(msg, wanted) == found
