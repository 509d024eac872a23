"""The one tokenizer: search tokens for the BM25 index and keyword queries, and the content terms every
extractive reader compares (claims, passages, table labels). Finance-aware, dependency-free."""

from __future__ import annotations

import re

from core.text.items import ITEM_NUMBER

_STOPWORD_TEXT = """
    a about above after again against all also am an and any are as at be because been before being
    below between both but by can could did do does doing down during each either else etc few for from
    further had has have having he her here hers herself him himself his how however i if in into is it
    its itself just may me might more most much must my myself neither no nor not now of off on once only
    or other otherwise our ours ourselves out over own per same shall she should so some such than that
    the their theirs them themselves then there these they this those through thus to too under until up
    upon us very via was we were what when where whether which while who whom whose why will with within
    without would yet you your yours yourself yourselves
"""
#: English function words that carry no topical signal.
STOPWORDS: frozenset[str] = frozenset(_STOPWORD_TEXT.split())
#: Words that frame a question about a filing rather than name what to find in it ("list", "company",
#: "10-K", "fiscal year"): not content terms, although a search may still match them.
FRAMING_WORDS: frozenset[str] = frozenset(
    [
        "10-k",
        "according",
        "based",
        "company",
        "describe",
        "explain",
        "filing",
        "find",
        "fiscal",
        "form",
        "give",
        "list",
        "please",
        "regarding",
        "relate",
        "related",
        "relates",
        "relation",
        "report",
        "show",
        "tell",
        "using",
        "what's",
        "year",
        "years",
    ]
)

# One pass over the lower-cased text; the alternation order matters: the most specific forms first.
_TOKEN_RE = re.compile(
    rf"(?P<item>\bitem\s+{ITEM_NUMBER}\b)"  # "Item 1A" -> item_1a
    r"""
    | (?P<form>\b(?:10-k|10-q|8-k|20-f|40-f|s-1|def\s?14a)\b) # SEC form types stay whole
    | (?P<fy>\bfy\s?'?(?:\d{4}|\d{2})\b)                      # FY2023, FY23, FY'23 -> fy2023 + 2023
    | (?P<alnum>\b\d+[a-z][a-z0-9]*\b)                         # "3m", "1st", "2h"
    | (?P<num>\$?\(?\d[\d,]*(?:\.\d+)?%?)                      # $1,577.00  12.5%  (1,234)
    | (?P<word>[a-z][a-z0-9]*(?:[-'’&][a-z0-9]+)*)            # words, compounds ("r&d", "year-end"), possessives
    """,
    re.VERBOSE,
)

_THOUSANDS_RE = re.compile(r"^\d{1,3}(?:,\d{3})+(?:\.\d+)?$")


def normalize_number(raw: str) -> str | None:
    """Canonical numeric token: no $, %, parentheses, thousands commas or trailing zero decimals."""
    text = raw.strip("$()%")
    if not text or not text[0].isdigit():
        return None
    if "," in text:
        # Only a well-formed thousands grouping is one number; "2021,2022" is two years glued by a comma.
        if not _THOUSANDS_RE.match(text):
            return None
        text = text.replace(",", "")
    if "." in text:
        whole, _, frac = text.partition(".")
        frac = frac.rstrip("0")
        text = f"{whole}.{frac}" if frac else whole
    # Leading zeros carry no meaning except for a lone zero ("0.5" keeps its 0).
    if len(text) > 1 and text[0] == "0" and text[1] != ".":
        text = text.lstrip("0") or "0"
    return text


def fold_plural(word: str) -> str:
    """Cheap plural folding ("liabilities" -> "liability", "revenues" -> "revenue"); leaves short words."""
    if len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ss", "us", "is", "ous")):
        return word
    if word.endswith("s"):
        return word[:-1]
    return word


def tokenize(text: str, *, keep_stopwords: bool = False, fold_plurals: bool = True) -> list[str]:
    """Lower-cased BM25 tokens: numbers normalised, Items and form types kept whole, stop-words dropped."""
    tokens: list[str] = []
    for match in _TOKEN_RE.finditer(text.lower()):
        kind = match.lastgroup
        value = match.group()
        if kind == "item":
            tokens.append("item_" + value.split()[-1])
        elif kind == "form":
            tokens.append(value.replace(" ", ""))
        elif kind == "fy":
            digits = re.sub(r"\D", "", value)
            year = digits if len(digits) == 4 else "20" + digits
            tokens.extend(["fy" + year, year])
        elif kind == "alnum":
            tokens.append(value)
        elif kind == "num":
            value = value.rstrip(",")
            if "," in value.strip("$()%") and not _THOUSANDS_RE.match(value.strip("$()%")):
                # A comma list of numbers ("2021,2022"): tokenize each part on its own.
                tokens.extend(t for part in value.split(",") if (t := normalize_number(part)))
            elif (number := normalize_number(value)) is not None:
                tokens.append(number)
        else:
            tokens.extend(_word_tokens(value, keep_stopwords=keep_stopwords, fold_plurals=fold_plurals))
    return tokens


def _word_tokens(value: str, *, keep_stopwords: bool, fold_plurals: bool) -> list[str]:
    """Tokens of one word match: possessive dropped; a compound ("year-end", "R&D") gives itself and its
    parts."""
    value = re.sub(r"['’]s$", "", value).replace("’", "'")
    parts = [p for p in re.split(r"[-'&]", value) if p]
    out: list[str] = []
    if len(parts) > 1 and ("-" in value or "&" in value):
        out.append(value.replace("'", ""))
    for part in parts:
        if not keep_stopwords and (part in STOPWORDS or len(part) == 1):
            continue
        out.append(fold_plural(part) if fold_plurals else part)
    return out


def stem(token: str) -> str:
    """A crude suffix-stripping stem so that 'risks'/'risk' and 'competitors'/'competitor' meet."""
    # "accrual(s)" meets "accrued" and "accrue" at "accru"; "contractual" at "contractu" meets nothing else.
    for suffix, keep in (("ations", "at"), ("ation", "at"), ("ities", ""), ("ity", ""), ("ings", ""),
                         ("ing", ""), ("uals", "u"), ("ual", "u"), ("ies", ""), ("es", ""), ("ed", ""),
                         ("s", "")):  # fmt: skip
        if len(token) > len(suffix) + 3 and token.endswith(suffix):
            # "operations", "operating" and "operated" meet at "operat".
            return token[: -len(suffix)] + keep
    # "expense"/"expenses" and "revenue"/"revenues" must meet after "es" was stripped from the plural.
    if len(token) > 4 and token.endswith("e"):
        return token[:-1]
    return token


def content_terms(text: str) -> list[str]:
    """Stemmed content words of `text` (stop-words and framing words removed), in order, without repeats."""
    terms = [stem(t) for t in tokenize(text, fold_plurals=False) if t not in FRAMING_WORDS and len(t) > 1]
    return list(dict.fromkeys(terms))
