"""Sentence splitting and boilerplate detection for extractive reading of filings."""

from __future__ import annotations

import re

# Sentences that carry no facts about the business: legal disclaimers, navigation, headings.
_BOILERPLATE_PATTERNS = [
    r"forward-looking statements?",
    r"private securities litigation reform act",
    r"undue reliance",
    r"table of contents",
    r"incorporated (herein )?by reference",
    r"see (the )?(accompanying )?notes? to (the )?(consolidated )?financial statements",
    r"refer to [\"“']?(item|part|note)",
    r"^\s*(part|item)\s+[0-9ivx]+[a-c]?\b[.:]?\s*[\w\s,'’&-]{0,80}$",
    r"securities and exchange commission",
    r"(?:annual|quarterly) report on form 10-[kq]",
    r"readers are (?:urged|cautioned)",
    r"(?:undertakes?|assumes?) no (?:obligation|duty)|disclaims? any (?:duty|obligation)",
    r"\bpage\s+\d+\b",
    r"check mark",
    r"indicate by check",
    r"involves? (investment |a high degree of )?risks?",
    r"(the )?risks? (factors )?described below",
    r"you should carefully consider",
    r"not presently known to us",
    r"any (one )?of the following risks",
    r"if any of (these|the following) risks",
    # A pointer to another part of the filing ("See further discussion of fixed-price contracts in Note 13 …",
    # "For additional information, see Item 7"), not what it says there.
    r"^(?:see|refer to|for (?:a )?(?:further|more|additional) (?:discussion|information|details?))\b[^.]{0,150}?"
    r"\b(?:item|part|note)s?\s+[0-9ivx]",
    r"could be materially and adversely affected",
    # A report's definitions and certifications, not its findings.
    r"as used herein",
    r"based on my knowledge",
    r"should be read in conjunction with",
]
_BOILERPLATE_RE = re.compile("|".join(_BOILERPLATE_PATTERNS), re.IGNORECASE)
#: A sentence ends at . ! ? (maybe followed by a closing quote or bracket) before whitespace and a capital,
#: a digit, an opening quote or bracket, or a bullet. Chunks are cut and overlapped at these ends.
_SENTENCE_END = r"(?:(?<=[.!?])|(?<=[.!?][\"”’)\]])|(?<=[.!?][\"”’)\]]{2}))\s+(?=[\"“(\[•A-Z0-9])"
_SENTENCE_END_RE = re.compile(_SENTENCE_END)
#: Where split_sentences breaks: a sentence end, a semicolon before a capital, a blank line or a bullet.
_CLAUSE_END_RE = re.compile(rf"{_SENTENCE_END}|(?<=;)\s+(?=[\"'“(]?[A-Z0-9•])|\n{{2,}}|\s*•\s+")
_ABBREVIATIONS = re.compile(
    # A capital letter alone is an initial ("Mr. Y. Aslam", "J. Smith").
    r"\b(?:Inc|Corp|Co|Ltd|No|U\.S|e\.g|i\.e|vs|Mr|Ms|Dr|approx|Fig|St|(?-i:[A-Z]))\.$",
    re.IGNORECASE,
)


def sentence_starts(text: str) -> list[int]:
    """Offsets where sentences begin in text (0 included)."""
    return [0, *(m.end() for m in _SENTENCE_END_RE.finditer(text))]


def split_sentences(text: str) -> list[str]:
    """Split text into sentences (and clauses, at semicolons and bullets), abbreviations such as 'Inc.' or
    'U.S.' kept inside; each returned sentence is a verbatim substring of `text`."""
    pieces: list[str] = []
    start = 0
    for m in _CLAUSE_END_RE.finditer(text):
        candidate = text[start : m.start()]
        # Do not break after abbreviations such as "Inc." or "U.S.", unless a blank line follows: a heading
        # ending "... outside of the U.S." is a paragraph of its own.
        if "\n\n" not in m.group() and _ABBREVIATIONS.search(candidate.rstrip()):
            continue
        pieces.append(candidate)
        start = m.end()
    pieces.append(text[start:])
    out = []
    for piece in pieces:
        sentence = piece.strip().strip("•").strip()
        if sentence:
            out.append(sentence)
    return out


#: Characters that open a list item in extracted filing text ("•suppliers and licensors of …").
_BULLETS = "•●▪◦"


def located(sentence: str, passage: str) -> tuple[list[str], int | None]:
    """The passage's sentences and the position of `sentence` among them (None when it is not found)."""
    sentences = split_sentences(passage)
    return sentences, next((i for i, text in enumerate(sentences) if sentence[:40] in text), None)


def sentence_before(sentence: str, passage: str) -> str:
    """The sentence before `sentence` in `passage` ('' when it is the first or not found)."""
    sentences, at = located(sentence, passage)
    return sentences[at - 1] if at else ""


def sentence_after(sentence: str, passage: str) -> str:
    """The sentence after `sentence` in `passage` ('' when it is the last or not found)."""
    sentences, at = located(sentence, passage)
    return sentences[at + 1] if at is not None and at + 1 < len(sentences) else ""


#: A sentence that adds to what the one before it says: its opening clause carries on with "also" ("We have
#: also written-down our inventory …", "Reduced demand due to export controls could also lead to excess
#: inventory …"); "In addition, …" or "Also, …" starts a point of its own.
_ADDS_TO_THE_ONE_BEFORE_RE = re.compile(
    r"^[A-Z][^,.;:]{0,60}?\b(?:have|has|had|may|might|could|would|will|can|is|are|was|were)\s+also\b"
)


def sequel(sentence: str, passage: str) -> str:
    """The sentence after `sentence` in `passage` when it adds to it ("Increasing use of … export controls has
    impacted … demand for our products …" / "Reduced demand due to export controls could also lead to excess
    inventory …"); '' otherwise."""
    after = sentence_after(sentence, passage)
    return after if _ADDS_TO_THE_ONE_BEFORE_RE.match(after) and after.endswith(".") else ""


def list_item_lead_ins(text: str, sentences: list[str]) -> list[str | None]:
    """For each of `text`'s sentences (as `split_sentences` returns them), the sentence that introduces the
    list it is an item of ("Our current competitors include:"), "" for an item whose lead-in is outside the
    text (a bulleted item at a passage's start, or its lead-in cut there), None for a sentence that is no
    list's item. An item starts in lower case and is bulleted in the text or follows its lead-in or another
    item; a sentence in lower case that is neither is a fragment cut at a passage's edge."""
    out: list[str | None] = []
    lead_in: str | None = None  # the list under way, if any
    position = 0
    for sentence in sentences:
        at = text.find(sentence, position)
        position = at + len(sentence) if at >= 0 else position
        bulleted = at > 0 and text[:at].rstrip()[-1:] in _BULLETS
        if sentence[:1].islower() and (bulleted or lead_in is not None):
            out.append(lead_in or "")
            lead_in = lead_in or ""
            continue
        out.append(None)
        # A lead-in is a whole sentence: one cut at the passage's start ("customer demand …, including:")
        # leaves its items without the words that introduce them.
        lead_in = sentence if sentence.endswith(":") and sentence[:1].isupper() else None
    return out


def is_boilerplate(sentence: str) -> bool:
    """True for disclaimers, cross-references, headings and table-of-contents lines."""
    # A PDF's line breaks fall anywhere: "Quarterly Report on\nForm 10-Q".
    if _BOILERPLATE_RE.search(" ".join(sentence.split())):
        return True
    words = sentence.split()
    if len(words) < 6:
        return True
    # Table-of-contents and table rows: mostly numbers, dots or very short tokens.
    letters = sum(ch.isalpha() for ch in sentence)
    if letters < 0.45 * len(sentence):
        return True
    if re.search(r"\.{4,}|…{2,}", sentence):
        return True
    # Title-cased run-on lines are headings rather than sentences.
    capitalised = sum(1 for w in words if w[:1].isupper())
    return len(words) <= 14 and capitalised >= 0.8 * len(words) and not sentence.rstrip().endswith(".")


def jaccard(a: set[str], b: set[str]) -> float:
    """Jaccard overlap of two term sets."""
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def normalise_ws(text: str) -> str:
    """Collapse runs of whitespace and unify quotes/dashes, for verbatim comparisons."""
    text = text.replace("\u00a0", " ").replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"')
    text = text.replace("–", "-").replace("—", "-")
    return re.sub(r"\s+", " ", text).strip()
