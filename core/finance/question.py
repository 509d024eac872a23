"""How a question reads: its information need apart from instructions, and the words that say what kind of
answer it wants — a change, a comparison, a reason, a yes or no, a ranking, a share, a unit.

The one home of question wording: query analysis, the planner's clauses, figure requests, the calculator
step, reflection and contradiction checks read these patterns instead of spelling their own. Directions
("increased", "fell") are read the same way in questions and in filing text.
"""

from __future__ import annotations

import re

from core.finance.vocabulary import STATEMENT_NAME_RE
from core.text.periods import QUARTER_ORDINAL
from core.text.reasons import REASON_RE
from core.text.sentences import split_sentences

# --- what kind of answer ----------------------------------------------------------------------

#: A figure moving up / down, in a question ("Did it grow?") or a filing ("revenue rose 12%").
UP_RE = re.compile(
    r"\b(?:increas\w*|grow(?:s|th|ing)?|grew|rais\w*|rose|ris(?:e|es|en|ing)|improv\w*|expand\w*|higher"
    r"|gain(?:ed|s)?|up)\b",
    re.I,
)
DOWN_RE = re.compile(
    r"\b(?:decreas\w*|declin\w*|fall(?:s|en|ing)?|fell|drop(?:s|ped|ping)?|shr[ia]nk\w*|reduc\w*|lower(?:ed|ing|s)?"
    r"|down|contract(?:ed|s|ing)?)\b",
    re.I,
)
#: A figure per share ("per diluted share", "EPS"): not an amount of the line item it names.
PER_SHARE_RE = re.compile(r"\bper (?:diluted |basic |common )?share\b|\beps\b", re.I)
#: How a figure changed over periods: "change", "growth", "year-over-year", "improving", "trend".
CHANGE_RE = re.compile(
    r"\b(?:year[- ]over[- ]year|yoy|chang\w*|growth|grow\w*|grew|increas\w*|decreas\w*|improv\w*|declin\w*"
    r"|deteriorat\w*|profile|trajector\w*|trends?|fluctuat\w*|shift(?:s|ed|ing)?|variations?|var(?:y|ied|ies)"
    r"|evolv\w*|evolution|movements?|moved|patterns?|swings?|alter(?:s|ed|ing|ations?)?"
    r"|rose|rise[sn]?|rising|fell|fall(?:s|en|ing)?|jump(?:s|ed)?|drop(?:s|ped|ping)?|surged?|soared?|climbed"
    r"|shr[aiu]nk\w*|slump\w*|plung\w*|tumbl\w*|dipped|slid)\b",
    re.I,
)
#: Two periods compared: a change, or "compared with", "versus", "between", "from … to".
_COMPARE_RE = re.compile(
    r"\b(?:compared?|versus|vs\.?|from .* to|between|expand\w*|contract\w*|widen\w*|narrow\w*)", re.I
)
#: The history of a figure rather than one change: "historically", "consistent", "over time".
HISTORY_RE = re.compile(r"\b(historical(ly)?|consistent(ly)?|over time|trend|past (three|3) years)\b", re.I)
#: Reasons asked for: "why", "what drove", "factors", "due to what" ("risk factors" names a section, not a why).
WHY_RE = re.compile(
    r"\b(why|drove|drive[sn]?|driver|drivers|driving|reasons?|explain|caus\w*|(?<!risk )factors?|led to|contribut\w*"
    r"|attribut\w*|impact\w*|affect\w*|relate|dragged|behind)\b",
    re.I,
)
#: "Which of them brought in the most?": the figures named are compared, each stated.
RANKING_RE = re.compile(
    r"\b(which|what)\b[^?]*?\b(most|least|largest|highest|lowest|smallest|biggest|greatest)\b", re.I
)
FEWEST_RE = re.compile(r"\b(least|lowest|smallest)\b", re.I)
#: An average over several years, a compound annual growth rate, a hypothetical sensitivity.
AVERAGE_OVER_RE = re.compile(r"\b(\d+|two|three|four|five)[- ]year average\b|\baverage (of|over)\b", re.I)
CAGR_RE = re.compile(r"\bcagr\b|compound(ed)? annual growth", re.I)
HYPOTHETICAL_RE = re.compile(r"\b(would|hypothetical(ly)?|sensitivity|basis points?|bps)\b", re.I)
#: A share or a percentage asked for.
PERCENT_RE = re.compile(r"\bpercent|%|\bpercentage\b|\bas a share\b", re.I)
#: A ratio of two figures: "as a share of", "to", "divided by", "over".
RATIO_RE = re.compile(r"\b(ratio|as a (percentage|percent|share|proportion) of|share of|per)\b", re.I)
#: A difference between two figures.
DIFFERENCE_RE = re.compile(r"\b(difference|how much (more|less|higher|lower)|gap|exceed)\b", re.I)
#: An amount asked for ("how much", "what was", "in USD millions").
AMOUNT_RE = re.compile(
    r"\b(how much|how many|what (is|was|were|are)|amount|figure|value|total|levels?|balance|spend|spent|compar\w*"
    r"|bring in|brought in|earn(ed|s)?"
    r"|in (usd|us\$|\$|dollars)|(usd|us\$|\$) ?(millions|billions|thousands))\b",
    re.I,
)
_UNIT_ASKED_RE = re.compile(r"\b(?:usd|us\$|\$|dollars)?\s*(thousands|millions|billions)\b", re.I)
#: The verbs a question is asked with ("Has it …", "what does it …", "could they …").
AUXILIARY_VERBS = r"(?:does|do|did|has|have|had|is|are|was|were|will|would|can|could|should|may|might)"
_YES_NO_RE = re.compile(r"^\s*(has|have|had|did|does|do|is|are|was|were|can|will)\b", re.I)
_DID_RE = re.compile(r"^\s*(has|have|had|did|does|do)\b", re.I)
_SIGN_RE = re.compile(r"\b(positive|negative)\b", re.I)
#: "a high growth company?", "a healthy liquidity profile?": a judgement of size, not of sign.
JUDGEMENT_RE = re.compile(
    r"\b(high|low|strong|weak|significant\w*|substantial\w*|healthy|reasonabl\w*|material\w*|consistent\w*"
    r"|stable|sharp\w*|intensive)\b",
    re.I,
)
#: A part of the company rather than the whole: a segment, product line, region.
PART_OF_COMPANY_RE = re.compile(
    r"\b(segments?|divisions?|business(es)? units?|product (lines?|categor(y|ies))|brands?|regions?|geograph\w*)\b",
    re.I,
)
#: Recent events, which no filing holds: "latest news", "currently", "since the filing".
TIME_SENSITIVE_RE = re.compile(
    r"\b(latest|recent(ly)?|news|currently|current (events|news|price|valuation|market)|today"
    r"|this (year|quarter|month)|upcoming|announce(d|ments?)?|since the filing|after the filing)\b",
    re.I,
)
#: Words that point back at an earlier part of the question.
PRONOUN_RE = re.compile(r"\b(it|its|they|them|their|this|that|these|those)\b", re.I)
#: Words that start a question or a request, for splitting a question into its parts.
QUESTION_WORDS = (
    r"by how much|how|what|why|which|where|when|whether|who|assess|compare|find|list|describe|explain"
    r"|evaluate|calculate|compute|identify|summari[sz]e|check|determine|estimate"
)
#: Imperatives among the question words ("List …", "Calculate …"): a request, not a question.
IMPERATIVE_RE = re.compile(
    r"^(list|find|describe|explain|assess|compare|evaluate|calculate|compute|identify|summari[sz]e|check"
    r"|determine|estimate)\b",
    re.I,
)


_PREAMBLE_RE = re.compile(
    r"^\s*(?:from|in|according to|based on|using|per)\s+[^,?]{0,80}?(?:10-?k|filing|annual report|report)\b[^,?]*,\s*",
    re.I,
)
#: A preposition a question word may follow ("…, and on what factors does it compete?").
ASKING_PREPOSITION = r"(?:(?:on|in|for|from|to|with|at|against|under|through)\s+)?"
_SPLIT_RE = re.compile(
    rf";|\?\s+|(?<!\.[A-Za-z])(?<!\b[A-Z])\.\s+(?=[A-Z])|\bthen\b"
    rf"|,\s*(?:and\s+)?(?={ASKING_PREPOSITION}(?:{QUESTION_WORDS})\b)"
    rf"|\s+and\s+(?={ASKING_PREPOSITION}(?:{QUESTION_WORDS})\b)"
    # A yes-or-no part with its own named subject: "…, and has NVIDIA accrued anything for it?"
    rf"|,\s*and\s+(?={AUXILIARY_VERBS}\s+(?:the company\b|(?-i:[A-Z])))",
    re.I,
)
_LEADING_JUNK_RE = re.compile(r"^(?:\s|,|and\b|then\b|also\b|finally\b|next\b|first\b|second\b)+", re.I)


#: A clause that says how a figure is computed ("X is defined as …"): nothing to search for or answer.
DEFINITION_RE = re.compile(r"\b(defined|define|calculated|computed) as\b", re.I)


def clause_texts(question: str) -> list[str]:
    """The question's clauses as written: split on ';', '?', 'then', and ', and how/what/…'; a preamble
    naming the filing ("From the 10-K, …") dropped."""
    body = _PREAMBLE_RE.sub("", question.strip())
    return [_LEADING_JUNK_RE.sub("", p or "").strip(" ,.?!") for p in _SPLIT_RE.split(body)]


def asks_for_change(text: str) -> bool:
    """True when the wording compares periods ("improving", "change", "year-over-year", "compared with")."""
    return bool(CHANGE_RE.search(text) or _COMPARE_RE.search(text))


def asks_why(text: str) -> bool:
    """True when the question asks for reasons or drivers ("what drove", "why", "factors"), not only a figure."""
    return bool(WHY_RE.search(text))


#: What drove a figure's move: "why did it …", "… and why?", "what drove", "drivers of", "what caused", "the
#: reasons for", "what was behind" (not "attributable to", "how do they relate", nor an instruction to "explain
#: why" an answer is given).
_WHY_MOVED_RE = re.compile(
    r"(?<!explain )\bwhy\b|\bdr(?:ove|ivers?|iving|ives)\b|\bbehind\b|\bcaus(?:ed|es|ing)\b|\breasons?\b",
    re.I,
)


def asks_why_it_moved(text: str) -> bool:
    """True when the question asks what drove a figure's change ("What drove the increase in R&D?", "Why
    did the effective tax rate jump?"), not only how it relates or whether it is useful."""
    return bool(_WHY_MOVED_RE.search(text)) and (
        asks_for_change(text) or bool(re.search(r"\bwhy\b", text, re.I))
    )


def asks_for_reason(text: str) -> bool:
    """True when the question asks what moved a figure, in a question's words ("What drove the increase?")
    or a filing's (reflection's "R&D expense increased or decreased primarily due to")."""
    return asks_why_it_moved(text) or bool(REASON_RE.search(text))


#: Where a matter stands now: "What's the status of …", "Where does the class action stand", "the latest on".
_CURRENT_STATUS_RE = re.compile(
    r"(?<!-)\bstatus\b|\bwhere\b.{0,120}\bstand(?:s|ing)?\b|\bstand(?:s)? (?:now|today)\b|\blatest (?:on|developments?)\b"
    r"|\bso far\b|\bto date\b|\bcurrently\b|\bpending\b",
    re.I,
)


def asks_current_status(text: str) -> bool:
    """True when the question asks where a matter stands ("What's the status of the IPO litigation?",
    "Where does the class action stand?"): its newest development answers it, not its history. A status in a
    name ("the driver-status case") asks nothing of the kind."""
    return bool(_CURRENT_STATUS_RE.search(text))


def asks_yes_no(text: str) -> bool:
    """True for a question answered yes or no ("Has it paid dividends…?", "Is it capital-intensive?")."""
    return bool(_YES_NO_RE.match(text))


def asks_did(text: str) -> bool:
    """True for a yes-or-no question about something done ("Has it paid…?", "Did it buy back…?")."""
    return bool(_DID_RE.match(text))


def direction(text: str) -> int:
    """+1 when `text` says a figure went up, -1 when down, 0 when neither or both."""
    up, down = bool(UP_RE.search(text)), bool(DOWN_RE.search(text))
    return 1 if up and not down else -1 if down and not up else 0


def sign_words(text: str) -> int:
    """+1 for "positive", -1 for "negative", 0 when neither is asked."""
    m = _SIGN_RE.search(text)
    return 0 if m is None else (1 if m.group(1).lower() == "positive" else -1)


def unit_asked(question: str) -> str | None:
    """'millions' / 'billions' / 'thousands' when the question asks for its answer in that unit."""
    m = _UNIT_ASKED_RE.search(question)
    return m.group(1).lower() if m else None


# --- instructions apart from the information need ---------------------------------------------

# A clause is an instruction (how to answer, not what to find) when it matches any of these.
_INSTRUCTION_RES = [
    re.compile(p, re.IGNORECASE)
    for p in [
        r"^(please\s+)?(round|answer|respond|address|approach|utili[sz]e|base|assume|assuming)\b",
        # "Give a solution …", "Provide your answer …"; not "Give SBC as a % of revenue" (a figure asked).
        r"^(please\s+)?(give|provide)\s+(me\s+)?(your|the|an?|a)\s+(final\s+|short\s+|brief\s+)?"
        r"(answer|response|solution|explanation|reasoning|result|justification)",
        r"^(please\s+)?(compute|calculate)\s+(\(or extract\)|or extract|what was asked|the answer"
        r"|your answer)",
        r"^(please\s+)?use\s+(the|only|information|details|data)\b",
        r"\bround(ed|ing)?\s+(your\s+|the\s+|final\s+)*(answer|result|response)\b|\bround to\b",
        r"\banswer in\b|\bin units of\b|\bexpressed in\b|\bto (one|two|three|\d) decimal",
        r"\bas if you (are|were)\b|\b(perspective|standpoint|role) of an?\b|\bassum(e|ing) (that )?you\b",
        r"\byou are an?\b|\bact as\b",
        r"\bif\b.*\bnot\b.*\b(useful|relevant|meaningful|applicable|explicitly|available|outlined)\b"
        r".*\b(state|explain|say|answer)\b",
        r"\bthen (please\s+)?state\b|\bstate that and explain\b",
        r"\bwe (want|need|would like) to (calculate|compute|know|find)\b|\bplease help\b",
        r"\bhere'?s the question\b|\bthe question is\b",
        r"\b(relying|rely|based|basing|focusing|focus)\s+(your \w+\s+)?(on|by|upon)\s+(the\s+)?"
        r"(details|information|data|line items|figures)\b",
        r"\b(only|primarily) (have access|has access|use|using|utili[sz]ing|rely)\b",
        r"\blost (your )?internet\b|\bmetric providers\b",
        r"\b(details|information|data|line items)\s+(clearly\s+|plainly\s+)?"
        r"(shown|outlined|provided|displayed|presented|stated)\b",
    ]
]

# Parentheticals about units or rounding, e.g. "(in USD millions)".
_UNIT_PARENS = re.compile(
    r"\(\s*(?:in\s+(?:usd|us\$|\$|dollars|units|millions|billions|thousands|percent)|round|as a %|in %)"
    r"[^()]*\)",
    re.IGNORECASE,
)
_QUESTION_START = (
    r"(?:what|which|who|how|when|where|why|is|are|does|did|do|has|have|was|were|can|could|list|describe"
    r"|explain|identify)\b"
)
_COLON_QUESTION = re.compile(rf"^(?P<lead>.+?):\s*(?P<rest>{_QUESTION_START}.*)$", re.IGNORECASE | re.DOTALL)
_LEAD_CLAUSE = re.compile(
    rf"^(?P<lead>[^,?]{{8,}}),\s*(?P<rest>{_QUESTION_START}.*)$", re.IGNORECASE | re.DOTALL
)


def is_instruction(clause: str) -> bool:
    """True when a clause tells how to answer rather than what to find."""
    text = clause.strip()
    return any(rx.search(text) for rx in _INSTRUCTION_RES)


def strip_instructions(query: str) -> tuple[str, list[str]]:
    """The information need of a query and the instruction clauses removed from it ("Using the cash flow
    statement, what was capex?" -> "What was capex?", with the statement named in what was removed)."""
    removed: list[str] = []
    kept: list[str] = []
    for sentence in split_sentences(" ".join(query.split())):
        if kept and not kept[-1].endswith((".", "?", "!", ";")):
            kept[-1] += ";"  # clauses of one sentence stay apart, so a planner can split them again
        colon = _COLON_QUESTION.match(sentence)
        if colon and (
            is_instruction(colon.group("lead")) or re.search(r"\bquestion\b", colon.group("lead"), re.I)
        ):
            removed.append(colon.group("lead"))
            sentence = colon.group("rest")
        for clause in re.split(r";\s*", sentence):
            clause = _strip_unit_parens(clause, removed)
            lead = _LEAD_CLAUSE.match(clause)
            if lead and (is_instruction(lead.group("lead")) or STATEMENT_NAME_RE.search(lead.group("lead"))):
                removed.append(lead.group("lead"))
                clause = lead.group("rest")
            if is_instruction(clause):
                removed.append(clause)
            elif clause.strip(" .;,"):
                if kept and not kept[-1].endswith((".", "?", "!", ";")):
                    kept[-1] += ";"
                kept.append(clause.strip())
    core = " ".join(kept).strip()
    if not core:  # everything looked like an instruction: better the whole query than nothing
        return " ".join(query.split()), []
    core = core[0].upper() + core[1:]
    return core, removed


def _strip_unit_parens(clause: str, removed: list[str]) -> str:
    removed.extend(m.group() for m in _UNIT_PARENS.finditer(clause))
    return re.sub(r"\s{2,}", " ", _UNIT_PARENS.sub("", clause)).replace(" ?", "?").strip()


# --- what a question is about -------------------------------------------------------------------

_INTENTS: list[tuple[str, re.Pattern[str]]] = [
    ("risk", re.compile(r"\brisks?\b|\bthreats?\b|\buncertaint|\bvulnerab|\bexposure\b", re.I)),
    (
        "comparison",
        re.compile(
            r"\bcompar|\bversus\b|\bvs\.?\b|\brelative to\b|\bdiffer|\bthan\b|\boutperform"
            r"|\bwhich\b.*\b(most|least|highest|lowest|largest|smallest|best|worst)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "trend",
        re.compile(
            r"\btrends?\b|\bover (time|the (past|last))\b|\bhistorical|\bconsistent\b|\bcagr\b|\bgrowth\b"
            r"|\bgrew\b|\bincreas|\bdecreas|\bdeclin|\bchang(e|ed|es)\b|\bfrom (fy)?\s?\d{2,4} to\b",
            re.IGNORECASE,
        ),
    ),
    (
        "numeric",
        re.compile(
            r"\bhow (much|many)\b|\bcalculat|\bcompute\b|\bratio\b|\bmargin\b|\bamount\b|\bpercent|%|\brate\b"
            r"|\btotal\b|\baverage\b|\b(usd|dollars|millions|billions)\b",
            re.IGNORECASE,
        ),
    ),
]


def classify_intent(text: str) -> str:
    """One of risk / comparison / trend / numeric / fact, the first whose cue words appear."""
    for intent, rx in _INTENTS:
        if rx.search(text):
            return intent
    return "fact"


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: Words that signal an abstract, conceptual information need (vector-friendly).
ABSTRACT_WORDS: frozenset[str] = _words(
    """
    how why impact impacts affect affects affected effect effects influence approach approaches strategy
    strategies overall describe explain discuss assess evaluate implications implication factors factor
    drivers driver drove drive driving challenges challenge outlook position positioning competitive
    landscape themes theme nature purpose role relationship view perspective sentiment concerns concern
    changing evolve evolving shift shifts dynamics environment consider considering broadly general
    """
)

#: Words that are capitalised in questions without naming anything.
NON_ENTITY_CAPS: frozenset[str] = _words(
    """
    what which who whom whose when where why how is are was were does do did has have had can could
    should would will may might the a an in on at of for from by to and or as if among between
    according based basing give provide answer round please assume assuming using use calculate compute
    we you i it this that these those there then also item items part fiscal fy q1 q2 q3 q4 total net
    from to roughly approximately given considering define defined adjusted unadjusted non excluding
    including january february march april may june july august september october november december
    does did do yes no not any all our its their year years quarter annual report compare contrast list
    describe explain summarize summarise identify find show tell assess evaluate discuss analyze analyse
    """
)


# --- the figure a question asks for ------------------------------------------------------------

#: Words that frame a figure question without naming the figure ("how much did the company have at the
#: end of fiscal 2023"): removed to leave the figure's own words. Verbs that change what the figure is
#: ("paid", "burned", "received") are kept.
_SCAFFOLD_RE = re.compile(
    r"\b(?:how much|how many|how big|how large|what|which|who|give|state|show|tell me|compare"
    r"|(?:did|does|do|has|have|had|was|were|is|are|will|would|could|can)(?:n't)?"
    r"|the company(?:'s)?|its|their|the|a|an|actually|approximately|roughly|about|totall?ed"
    r"|report(?:ed|s)?|record(?:ed|s)?|disclos(?:e|ed|es)|show(?:ed|n|s)?|book(?:ed|s)?|carry|carrying"
    r"|amount|figure|value|level|number|quantity|balance|spend|spent|spending|hold|holds|held"
    r"|(?:in|for|during|over|at|as of|by|on|of|through)?\s*(?:the\s+)?(?:end of\s+)?(?:the\s+)?"
    rf"(?:fiscal\s+)?(?:{QUARTER_ORDINAL}\s+)?(?:year|quarter|period)"
    r"(?:[- ]end(?:ed|ing)?)?(?:\s+ended)?"
    r"|(?:at|by|as of)\s+(?:the\s+)?(?:end|close|start|beginning)(?:\s+of)?"
    r"|(?:for\s+|in\s+)?(?:the\s+)?(?:three|six|nine|twelve|3|6|9|12)[- ]months?(?:\s+(?:ended|ending))?"
    r"|(?:in|for|during|at|as of|of|on|by)\s*$)\b",
    re.I,
)
_UNIT_WORDS_RE = re.compile(
    r"\(?\b(?:in\s+)?(?:usd|us\$|\$|dollars)?\s*(?:thousands|millions|billions)\b\)?", re.I
)
_DATE_RE = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2},?\s+\d{4}\b"
    r"|\b\d{1,2}/\d{1,2}/\d{2,4}\b",
    re.I,
)


def figure_words(text: str) -> str:
    """The words of `text` that name a figure, its framing removed: "How big is the company's deferred
    revenue balance at the end of fiscal 2023?" -> "deferred revenue"."""
    from core.text.periods import find_time_expressions  # the periods reader, at the same layer

    text = _DATE_RE.sub(" ", text)
    expressions, _ = find_time_expressions(text)
    for expression in sorted(expressions, key=len, reverse=True):
        text = text.replace(expression, " ")
    text = _UNIT_WORDS_RE.sub(" ", text)
    # Where the figure is printed is not what it is: "goodwill on the balance sheet".
    text = re.sub(
        rf"\b(?:on|in|from|of|per)?\s*(?:the\s+)?(?:{STATEMENT_NAME_RE.pattern})", " ", text, flags=re.I
    )
    text = re.sub(r"[?!.;:()\"“”]", " ", text)
    previous = None
    while previous != text:  # framing words uncover others once removed ("at the end of the year")
        previous = text
        text = _SCAFFOLD_RE.sub(" ", " ".join(text.split()))
    words = text.replace(",", " ").split()
    # A preposition left next to another by the removals ("equivalents on at") belongs to nothing.
    ends = {"in", "for", "of", "on", "at", "to", "and", "or", "by", "from", "with", "into"}
    # ("and for interest" keeps its "and": the figure after it shares the head of the one before.)
    words = [
        w
        for k, w in enumerate(words)
        if not (
            w.lower() in ends
            and k + 1 < len(words)
            and words[k + 1].lower() in ends
            and not (w.lower() in ("and", "or") and k > 0 and words[k - 1].lower() not in ends)
        )
    ]
    # Keep inner connectives ("cost of revenue", "research and development"): trim only the ends.
    while words and words[0].lower() in ends:
        words = words[1:]
    while words and words[-1].lower() in ends:
        words = words[:-1]
    return " ".join(words).strip("'’")
