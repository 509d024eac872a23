"""How a filing judges where a legal matter may end: the loss-contingency language of its notes.

A note on litigation says, beside what happened, how the company judges the outcome: whether a loss is
probable, reasonably possible or remote, whether it can be estimated, what it has accrued, and whether it
believes the claims lack merit ("… the Company has accrued amounts related to such matters when a loss is
probable and reasonably estimable"). The wording follows the accounting standard for loss contingencies, so
it reads the same in every filer's notes. Where a matter stands is its newest development *and* that
judgement.
"""

from __future__ import annotations

import re

#: The accounting standard's words for a loss's likelihood and estimate, and what was accrued for it.
_JUDGEMENT_RE = re.compile(
    r"\b(?:(?:not\s+)?probable|(?:reasonably\s+)?possible|remote|(?:reasonably\s+)?estimable|accru(?:ed|al|als))\b",
    re.I,
)
#: Claims said to lack merit: a judgement on its own.
_NO_MERIT_RE = re.compile(r"\b(?:without\s+merit|lacks?\s+merit|meritless)\b", re.I)
#: A loss that cannot be estimated, or an outcome that cannot be predicted ("We cannot reasonably estimate a
#: range of loss"; "the outcome … cannot be predicted"), not any forecast ("we cannot predict demand").
_CANNOT_ESTIMATE_RE = re.compile(
    r"\b(?:cannot|unable\s+to|not\s+able\s+to)\s+(?:be\s+)?(?:reasonably\s+)?(?:estimat|predict|determin)\w*",
    re.I,
)
_OUTCOME_RE = re.compile(r"\b(?:loss(?:es)?|outcomes?|liabilit\w*|resolution)\b", re.I)


def judges_outcome(sentence: str) -> bool:
    """Whether `sentence` states the filer's judgement of how a legal matter may end: that a loss cannot be
    estimated or the claims lack merit ("We cannot reasonably estimate a range of loss …"), or two of the
    standard's terms ("has accrued amounts … when a loss is probable and reasonably estimable"; "we have not
    recorded any accrual … based on our belief that liabilities, while possible, are not probable"). One
    "possible", or an accrual alone ("the accrual of litigation costs … reduced earnings before taxes"), is
    ordinary prose."""
    if _NO_MERIT_RE.search(sentence) or (
        _CANNOT_ESTIMATE_RE.search(sentence) and _OUTCOME_RE.search(sentence)
    ):
        return True
    return len({re.sub(r"\s+", " ", m.group(0).lower()) for m in _JUDGEMENT_RE.finditer(sentence)}) >= 2
