"""Find where a text names vocabulary entries (line items, metrics): one scanner for every kind."""

from __future__ import annotations

import re
from typing import Generic, NamedTuple, TypeVar

T = TypeVar("T")


class Mention(NamedTuple, Generic[T]):
    """Where `entry` is named in a text: text[start:end]."""

    start: int
    end: int
    entry: T


def pattern_of(alternatives: list[str], *, closed: bool) -> re.Pattern[str]:
    """One case-insensitive pattern for an entry's wordings, starting at a word start; `closed` also
    requires a word end (a metric's name may run on: "gross margin" in "gross margins")."""
    end = r"(?![\w-])" if closed else ""
    return re.compile(rf"(?<![\w-])(?:{'|'.join(alternatives)}){end}", re.I)


def all_hits(text: str, patterns: list[tuple[T, re.Pattern[str]]]) -> list[Mention[T]]:
    """Every match of every entry's pattern, overlapping ones included."""
    return [Mention(m.start(), m.end(), entry) for entry, rx in patterns for m in rx.finditer(text)]


def scan(text: str, patterns: list[tuple[T, re.Pattern[str]]]) -> list[Mention[T]]:
    """The entries `text` names, in order: at each position the longest wording wins, and a mention inside
    one already found is not another mention ("capital expenditure as a share of revenue" is one metric)."""
    kept: list[Mention[T]] = []
    for hit in sorted(all_hits(text, patterns), key=lambda h: (h.start, -(h.end - h.start))):
        if any(k.start <= hit.start < k.end for k in kept):
            continue
        kept.append(hit)
    return kept
