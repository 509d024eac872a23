"""Sentences of a filing that explain a figure's change: "R&D expense increased 18% … primarily driven by …".

One home for what the writer quotes as the filing's explanation and what reflection checks before it searches
for one.
"""

from __future__ import annotations

import re

from core.text.sentences import located, sentence_after, sentence_before, split_sentences
from core.text.tokens import content_terms

#: Where a sentence gives a reason ("driven by", "due to", "reflecting", "as a result of").
REASON_RE = re.compile(
    r"\b(?:driven|led by|due (?:\w+ )?to|primarily (?:by|from|as)|reflect\w*|as a result of|attributable to|because|offset by"
    r"|result(?:ed|ing)? from)\b",
    re.I,
)
#: A sentence that explains "the increase" without naming what increased: the sentence before it does. "The
#: decrease in our effective tax rate …" names its own figure, whatever the sentence before it is about.
_THE_CHANGE_RE = re.compile(
    r"^(?:the|this|that)\s+(?:year-(?:on|over)-year\s+)?(?:increase|decrease|improvement|decline|change|growth|rise)\b"
    r"(?!\s+(?:in|of)\b)",
    re.I,
)


#: A change stated ("increased", "was up 171%", "lower", "declined"): what a reason explains. A sentence that
#: gives a cause without one allots ("revenue … attributable to the Compute & Networking segment").
_CHANGE_RE = re.compile(
    r"\b(?:increas|decreas|grew|grow|rose|rise|rising|fell|fall|declin|drop|jump|higher|lower|improv|reduc"
    r"|up \d|down \d)\w*",
    re.I,
)


def reason_score(sentence: str, passage: str, subject: set[str]) -> float:
    """How surely `sentence` (of `passage`) explains the change of the figure whose content words are
    `subject`: the number of them it names before its reason ("Research and development expense increased …
    primarily due to"); for "The increase was due primarily to …", those the sentence before it names, plus a
    half (the figure's own explanation, in full), or a half when only the passage names them all. 0 when it
    states no change, gives no reason or names none of the figure."""
    because = REASON_RE.search(sentence)
    if because is None or not subject or not _CHANGE_RE.search(sentence):
        return 0.0
    score: float = len(subject & set(content_terms(sentence[: because.start()])))
    if score or not _THE_CHANGE_RE.match(sentence):
        return score
    named = subject & set(content_terms(sentence_before(sentence, passage)))
    if len(named) * 2 >= len(subject):
        return len(named) + 0.5
    return 0.5 if subject <= set(content_terms(passage)) else 0.0


def what_changed(sentence: str, passage: str) -> str:
    """The words of a reason sentence that name what changed: those before its reason ("Cost of revenue
    increased … due primarily to"), or for "The increase was due to …", the sentence before it."""
    because = REASON_RE.search(sentence)
    before = sentence[: because.start()] if because else sentence
    if _THE_CHANGE_RE.match(sentence):
        return f"{sentence_before(sentence, passage)} {before}".strip()
    return before


#: A sentence that weighs what offset the change the sentence before it explains ("These increases were
#: partially offset by …", "This was partly offset by …", "Partially offsetting the increase …").
_OFFSETS_THE_CHANGE_RE = re.compile(
    r"^(?:(?:the|this|these|that|those)\b[^.]{0,40}?\b(?:was|were|is|are)\s+(?:\w+\s+)?offset\b"
    r"|(?:partially|partly)\s+offset(?:ting|s)?\b|offsetting\b)",
    re.I,
)


def explanation_with_continuation(sentence: str, passage: str) -> str:
    """`sentence` and, when the sentence after it in `passage` carries the explanation on, that one too, as
    the passage prints them: it gives a reason and states no change of its own ("Data Center revenue was up
    171% …, led by CSPs …. Strong demand for the HGX platform … was primarily driven by …"), or it says what
    offset the change ("These increases were offset by …": its own change is part of the explanation)."""
    following = sentence_after(sentence, passage)
    carries_on = REASON_RE.search(following) is not None and not _CHANGE_RE.search(following)
    if not following.endswith(".") or not (carries_on or _OFFSETS_THE_CHANGE_RE.match(following)):
        return sentence
    return f"{sentence.rstrip()} {following}"


def offset_after_the_break(sentence: str, passage: str, following: str) -> str:
    """The sentence of `following` (the passage after `passage`) that says what offset the change `sentence`
    explains, when the explanation runs on past the passage's end: `sentence` is the passage's last whole
    sentence, or the next one is cut there (by a page break: "… beginning in the" / "second quarter of 2021.
    These increases were offset by …"); '' otherwise."""
    sentences, at = located(sentence, passage)
    if at is None:
        return ""
    rest = sentences[at + 1 :]
    if len(rest) > 1 or (rest and rest[0].rstrip().endswith(".")):
        return ""  # the passage carries on after the explanation, or the next sentence is whole
    following_sentences = split_sentences(following)[:2]
    if rest and following_sentences and following_sentences[0][:1].islower():
        following_sentences = following_sentences[1:]  # the cut sentence's end
    first = following_sentences[0] if following_sentences else ""
    return first if first.endswith(".") and _OFFSETS_THE_CHANGE_RE.match(first) else ""
