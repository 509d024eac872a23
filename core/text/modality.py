"""Whether a sentence says something has happened, or only that it may.

Risk factors are mostly conditional ("If we overestimate demand, we may not be able to reduce our inventory"),
and now and then they say the risk has come to pass ("We have also written-down our inventory, incurred
cancellation penalties, and recorded impairments"). An analyst reads the second kind first: it is what the
risk has already cost.
"""

from __future__ import annotations

import re

#: A modal or a condition: the sentence says what may be, not what was.
_MAY_RE = re.compile(
    r"\b(?:may|might|could|would|can|cannot|will|should|if|unless|whether|potential(?:ly)?)\b", re.I
)
#: The filer as the subject ("we", "our …", "the Company"), or a risk it names just before ("This mismatch").
_FILER_RE = re.compile(
    r"^(?:(?:in the past|historically|also|in addition|further(?:more)?),?\s+)?(?:we|our|the company|this|these)\b",
    re.I,
)
#: A perfect tense ("have also written-down", "has resulted", "have experienced"): what has happened.
_PERFECT_RE = re.compile(
    r"\b(?:have|has)\s+(?:also\s+|already\s+|previously\s+|at times\s+)?(?:been\s+)?[a-z-]+(?:ed|en|wn|ne|t)\b",
    re.I,
)


def states_it_happened(sentence: str) -> bool:
    """Whether `sentence` says, with the filer or its risk as the subject and no modal or condition, that
    something has happened ("We have also written-down our inventory …"; "This mismatch has resulted in both
    product shortages and excess inventory"); not "… has led and could lead to mismatches" nor "If we
    overestimate demand, we may …"."""
    text = sentence.strip()
    return bool(_FILER_RE.match(text) and _PERFECT_RE.search(text) and not _MAY_RE.search(text))
