"""Reference-based metrics, after RAGAS's definitions, computed without an LLM.

RAGAS (Es et al., 2023; docs.ragas.io) defines context precision as the mean of precision@k over the
ranks k that hold a relevant context, context recall as the share of the reference that the contexts
support, faithfulness as the share of the answer's claims that the contexts support, and answer
correctness as agreement with the reference. Here "relevant" and "supported" are decided by the ground
truth itself: a context is relevant when it sits on a gold evidence page or repeats gold evidence text; a
claim is supported when the passages it cites contain its figures and most of its words. Every value says
which variant produced it ("reference" here, "llm" in core.evaluation.judge).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from core.citations import CITATION_MARK, answer_body, cited_numbers, quote_in_text
from core.evaluation.numbers import (
    Quantity,
    figures_stated,
    quantities,
    same_quantity,
    stated_unit,
    without_workings,
)
from core.finance.compute import FALLBACK_REASON_RE
from core.models import Citation, EvalContext, EvalPart, EvalQuestion, MetricValue, SystemAnswer
from core.text.sentences import split_sentences
from core.text.tokens import content_terms

#: Every metric an evaluation reports, in table order: (name, variant, label). Variants say who judged:
#: "reference" (against the ground truth, no LLM) or "llm" (core.evaluation.judge).
TABLE_METRICS: list[tuple[str, str, str]] = [
    ("gold_evidence_hit", "reference", "gold evidence among the evidence"),
    ("document_coverage", "reference", "cited documents among the evidence (multi-document questions)"),
    ("context_recall", "reference", "context recall"),
    ("context_precision", "reference", "context precision"),
    ("faithfulness", "reference", "faithfulness (claim support)"),
    ("answer_correctness", "reference", "answer correctness"),
    ("number_match", "reference", "asked figures stated first (numeric questions)"),
    ("number_anywhere", "reference", "asked figures anywhere in the answer"),
    ("parts_answered", "reference", "parts of the question answered"),
    ("parts_accounted", "reference", "parts answered or declared unanswered"),
    ("token_f1", "reference", "token F1"),
    ("answer_similarity", "reference", "answer similarity (embeddings)"),
    ("citation_validity", "reference", "citations valid"),
    ("refusal", "reference", "refusals"),
    ("faithfulness", "llm", "faithfulness (LLM judge)"),
    ("answer_correctness", "llm", "answer correctness (LLM judge)"),
    ("context_precision", "llm", "context precision (LLM judge)"),
    ("context_recall", "llm", "context recall (LLM judge)"),
    ("steps", "reference", "steps"),
    ("seconds", "reference", "seconds (mean)"),
]
#: The ones an analyst reads first (the Evaluate page's table and chart).
KEY_METRICS = [
    m
    for m in TABLE_METRICS
    if m[0] not in ("number_anywhere", "token_f1", "answer_similarity", "steps", "seconds")
]

#: A context "repeats" gold evidence when this share of the shorter one's words is in the other.
TEXT_MATCH = 0.6
#: A claim is supported when this share of its content words is in the passages it cites.
CLAIM_SUPPORT = 0.5
_REFUSAL_RE = re.compile(
    r"\b(not (found|reported|disclosed|stated)|no supporting passage|nothing in .* answered|cannot be (determined|found))\b",
    re.I,
)


def _terms(text: str) -> set[str]:
    return set(content_terms(text))


def _overlap(a: set[str], b: set[str]) -> float:
    """Share of the smaller set's terms found in the other."""
    if not a or not b:
        return 0.0
    return len(a & b) / min(len(a), len(b))


def context_relevant(context: EvalContext, question: EvalQuestion, filing_id: str | None) -> bool:
    """On a gold page of the question's filing, or repeating gold evidence text."""
    same_filing = filing_id is None or context.filing_id == filing_id
    if question.evidence_pages and context.page in question.evidence_pages and same_filing:
        return True
    terms = _terms(context.text)
    return any(_overlap(terms, _terms(ev)) >= TEXT_MATCH for ev in question.evidence_texts if ev.strip())


def evidence_found(question: EvalQuestion, contexts: list[EvalContext], filing_id: str | None) -> list[bool]:
    """For each gold evidence item (page, or text when no page is known): is it among the contexts?"""
    found: list[bool] = []
    items = max(len(question.evidence_pages), len(question.evidence_texts))
    for i in range(items):
        page = question.evidence_pages[i] if i < len(question.evidence_pages) else None
        text = question.evidence_texts[i] if i < len(question.evidence_texts) else ""
        hit = False
        for ctx in contexts:
            if filing_id is not None and ctx.filing_id != filing_id:
                continue
            if page is not None and ctx.page == page:
                hit = True
                break
            if text.strip() and _overlap(_terms(ctx.text), _terms(text)) >= TEXT_MATCH:
                hit = True
                break
        found.append(hit)
    return found


def document_coverage(
    question: EvalQuestion, contexts: list[EvalContext], names: dict[str, str]
) -> float | None:
    """Share of the documents the reference cites (all the question's, when it cites none) that some
    context comes from; `names` maps filing ids to file names. None for a question about one document."""
    if len(question.filings) < 2:
        return None
    wanted = {n.lower() for n in question.cited_filings or question.filings}
    covered = {names.get(c.filing_id, "").lower() for c in contexts}
    return len(wanted & covered) / len(wanted)


def context_precision(
    question: EvalQuestion, contexts: list[EvalContext], filing_id: str | None
) -> float | None:
    """RAGAS context precision: mean over relevant ranks k of precision@k (None without ground truth)."""
    if not question.evidence_pages and not question.evidence_texts:
        return None
    relevant = [context_relevant(c, question, filing_id) for c in contexts]
    if not any(relevant):
        return 0.0
    total, hits = 0.0, 0
    for k, rel in enumerate(relevant, start=1):
        if rel:
            hits += 1
            total += hits / k
    return total / hits


def context_recall(
    question: EvalQuestion, contexts: list[EvalContext], filing_id: str | None
) -> float | None:
    """Share of the gold evidence items found among the contexts (None without ground truth)."""
    found = evidence_found(question, contexts, filing_id)
    return sum(found) / len(found) if found else None


def gold_page_hit(question: EvalQuestion, contexts: list[EvalContext], filing_id: str | None) -> float | None:
    """1 when any gold evidence page (or text) is among the contexts."""
    found = evidence_found(question, contexts, filing_id)
    return float(any(found)) if found else None


def headline(answer: str) -> str:
    """The answer stated first: what comes before the first section heading (or the first paragraph)."""
    body = re.sub(r"^#{1,6}\s+Answer\s*\n", "", answer_body(answer).strip())
    m = re.search(r"^#{1,6}\s", body, re.M)
    return body[: m.start()] if m else body.split("\n\n", 1)[0]


#: A quotation in an answer's paragraph: one claim, with the citation after it, whatever it quotes.
_QUOTATION_RE = re.compile(r"“[^”]*”|\"[^\"\n]*\"")


def _paragraph_sentences(text: str) -> list[str]:
    """A paragraph's sentences, a quotation kept whole ("The filing states: “Cell: 1; cell: 2” [1]." is one
    sentence, not one per quoted clause)."""
    quotations: list[str] = []

    def hold(match: re.Match[str]) -> str:
        quotations.append(match.group(0))
        return f"\x00{len(quotations) - 1}\x00"

    held = _QUOTATION_RE.sub(hold, text)
    return [
        re.sub(r"\x00(\d+)\x00", lambda m: quotations[int(m.group(1))], sentence)
        for sentence in split_sentences(held) or [held]
    ]


def claims(answer: str) -> list[tuple[str, list[int]]]:
    """(claim text, citation numbers) for each claim of the answer: each bullet, and each sentence of a
    paragraph (with the citations it carries; a quotation is not split)."""
    out: list[tuple[str, list[int]]] = []
    for line in answer_body(answer).splitlines():
        text = line.strip()
        if not text or text.startswith("#") or (text.startswith("_") and text.endswith("_")):
            continue
        parts = [text] if text.startswith(("-", "*")) else _paragraph_sentences(text)
        out += [(CITATION_MARK.sub("", p).strip("-* ").strip(), cited_numbers(p)) for p in parts]
    return out


#: A formula's constant in a working, not a figure read: a bare small whole number it divides or multiplies by
#: ("/ 2" of an average, "× 4" of a quarter), or the days of a year or the hundred it multiplies ("365 × …").
_FORMULA_CONSTANT_RE = re.compile(r"(?<=[/×*])\s*\d{1,2}\b(?![.,]\d)|(?<![\d,.])\b(?:365|360|100)\s*(?=[×*])")


def claim_supported(claim: str, cited: list[str], computed: list[Quantity] | None = None) -> bool:
    """The cited passages hold the claim's figures (its inputs, for a computed figure) and most of its words.
    `computed`: figures the answer computed with a supported working; a sentence restating one is supported by
    the same passages."""
    passages = " ".join(cited)
    if not passages.strip():
        return False
    if " = " in claim:
        # A computed figure: its inputs (left of each "=" in the working after "—") must be in the passages.
        # A step's summary prints the same figure with its dashes made plain ("… +44.0% - FY2024: …").
        working = re.split(r" [—-] ", claim, maxsplit=1)[-1]
        claim = " ".join(part.split(" = ")[0] for part in working.split(";"))
        # The formula's own constants are no inputs: "/ 2" of an average of two balances, "× 4" of a quarter.
        claim = _FORMULA_CONSTANT_RE.sub(" ", claim)
    stated = quantities(claim)
    # A table's cell is in the unit its title states ("in millions"): "26.974 billion" is its "26,974".
    available = [
        q for text in cited for q in quantities(text, include_years=True, default_scale=stated_unit(text))
    ] + list(computed or [])
    if stated and not all(any(same_quantity(q, a, 0.001) for a in available) for q in stated):
        return False
    return _overlap(_terms(re.sub(r"[\d.,$%()]+", " ", claim)), _terms(passages)) >= CLAIM_SUPPORT or bool(
        stated
    )


def faithfulness(answer: SystemAnswer, chunk_text: dict[str, str]) -> float | None:
    """Share of the answer's cited claims that their passages support; uncited statements count against."""
    by_number = {c.number: c for c in answer.citations}
    cited_claims = [(t, ns) for t, ns in claims(answer.answer) if ns or quantities(t)]
    if not cited_claims:
        return None

    def passages(numbers: list[int]) -> list[str]:
        return [
            chunk_text.get(by_number[n].chunk_id or "", by_number[n].quote) for n in numbers if n in by_number
        ]

    # The figures worked out from supported inputs ("Margin (FY2023): 27.2% — 7,339 / 26,974 = 27.2%").
    computed = [
        q
        for text, numbers in cited_claims
        if " = " in text and claim_supported(text, passages(numbers))
        for q in quantities(re.split(r" [—-] ", text, maxsplit=1)[0])
    ]
    supported = sum(claim_supported(text, passages(numbers), computed) for text, numbers in cited_claims)
    return supported / len(cited_claims)


def citation_validity(citations: list[Citation], chunk_text: dict[str, str]) -> float | None:
    """Share of citations whose quote is found, verbatim, in the passage they cite."""
    if not citations:
        return None
    valid = sum(
        1 for c in citations if c.chunk_id in chunk_text and quote_in_text(c.quote, chunk_text[c.chunk_id])
    )
    return valid / len(citations)


def token_f1(reference: str, answer: str) -> float:
    """F1 of content words between the reference and the answer."""
    ref, ans = content_terms(reference), content_terms(answer)
    if not ref or not ans:
        return 0.0
    common = 0
    pool = list(ans)
    for term in ref:
        if term in pool:
            pool.remove(term)
            common += 1
    if common == 0:
        return 0.0
    precision, recall = common / len(ans), common / len(ref)
    return 2 * precision * recall / (precision + recall)


def is_numeric(question: EvalQuestion) -> bool:
    """True when a figure answers the question: its set names one, or (when the set does not say) its
    reference states one (years aside)."""
    if question.figures is not None:
        return bool(question.figures)
    return bool(quantities(question.answer))


def refused(answer: SystemAnswer) -> bool:
    """The answer cites nothing, or its first statement says the filings did not answer."""
    # A figure computed by another textbook definition says which input it lacked: not a refusal.
    first = FALLBACK_REASON_RE.sub(")", headline(answer.answer))[:400]
    return not answer.citations or bool(_REFUSAL_RE.search(first))


#: A part whose answer is words is answered when the answer uses this share of its key phrases (or of the
#: content words of its evidence sentence).
PART_PHRASES = 0.5


def part_answered(part: EvalPart, question: EvalQuestion, answer: str) -> bool | None:
    """Whether the answer states what answers one part: each of its figures, or most of its key phrases (or
    of its evidence sentence's words); None when the set says neither."""
    if part.figures:
        hits, total = figures_stated(question.answer, question.question, answer, part.figures)
        return total > 0 and hits == total
    # A line saying what was not found ("Not found in the evidence: accrued") answers nothing.
    terms = set(
        content_terms("\n".join(line for line in answer.splitlines() if not _DECLARED_RE.search(line)))
    )
    if part.key_phrases:
        found = [set(content_terms(k)) <= terms for k in part.key_phrases if content_terms(k)]
        return bool(found) and sum(found) / len(found) >= PART_PHRASES
    if part.evidence:
        wanted = set(content_terms(part.evidence))
        return bool(wanted) and len(wanted & terms) / len(wanted) >= PART_PHRASES
    return None


def parts_answered(question: EvalQuestion, answer: str) -> float | None:
    """Share of the question's listed parts the answer answers (None when the set lists no parts)."""
    judged = [j for j in (part_answered(p, question, answer) for p in question.parts) if j is not None]
    return sum(judged) / len(judged) if judged else None


#: A sentence saying the filings did not answer something ("do not state", "No supporting passage found").
_DECLARED_RE = re.compile(
    r"\b(?:do(?:es)? not state|not found|no supporting passage|not computed|gives? no reason|nothing new)\b",
    re.I,
)
#: What a declaration quotes of the search it ran ("query “…”"): the search's words, not the part's.
_QUOTED_QUERY_RE = re.compile(r"query\s+“[^”]*”")


def _declarations(answer: str) -> list[set[str]]:
    """The content words of each declaration that something was not answered, the searched query aside; in
    a section that states nothing, with its heading (the sub-question it declares unanswered)."""
    found: list[set[str]] = []
    for section in re.split(r"^(?=#{1,6}\s)", answer, flags=re.M):
        heading, _, body = section.partition("\n")
        states_something = any(line.lstrip().startswith(("-", "*")) for line in body.splitlines())
        for line in body.splitlines():
            if _DECLARED_RE.search(line):
                words = _QUOTED_QUERY_RE.sub(" ", line)
                about = words if states_something else f"{heading.lstrip('# ')} {words}"
                found.append(set(content_terms(about)))
    return found


def parts_accounted(question: EvalQuestion, answer: str) -> float | None:
    """Share of the question's listed parts the answer either answers or declares unanswered: a sentence
    saying the filings did not state it that names most of the part's words (with its section's heading)."""
    declarations = _declarations(answer)
    judged: list[bool] = []
    for part in question.parts:
        answered = part_answered(part, question, answer)
        if answered is None:
            continue
        wanted = set(content_terms(part.ask or " ".join(part.key_phrases)))
        declared = bool(wanted) and any(
            len(wanted & words) / len(wanted) >= PART_PHRASES for words in declarations
        )
        judged.append(answered or declared)
    return sum(judged) / len(judged) if judged else None


def reference_metrics(
    question: EvalQuestion,
    answer: SystemAnswer,
    chunk_text: dict[str, str],
    filing_id: str | None,
    similarity: Callable[[str, str], float] | None = None,
    filing_names: dict[str, str] | None = None,
) -> list[MetricValue]:
    """Every reference-based metric of one answer; `filing_names` (filing id -> file name) for the document
    coverage of a question about several filings."""
    contexts = answer.contexts
    numeric = is_numeric(question)
    # The figures that answer the question, stated in the answer's lead (a working's inputs do not count).
    lead = without_workings(headline(answer.answer))
    asked = (question.answer, question.question)
    head_hits, gold_n = figures_stated(*asked, lead, question.figures)
    all_hits, _ = figures_stated(*asked, answer_body(answer.answer), question.figures)
    number_match = head_hits / gold_n if numeric and gold_n else (0.0 if numeric else None)
    f1 = token_f1(question.answer, answer_body(answer.answer))
    values = [
        (
            "context_precision",
            context_precision(question, contexts, filing_id),
            "gold pages and evidence text",
        ),
        ("context_recall", context_recall(question, contexts, filing_id), "gold evidence items found"),
        (
            "gold_evidence_hit",
            gold_page_hit(question, contexts, filing_id),
            "any gold page among the evidence",
        ),
        (
            "document_coverage",
            document_coverage(question, contexts, filing_names or {}),
            "documents the reference cites that the evidence comes from",
        ),
        ("faithfulness", faithfulness(answer, chunk_text), "claims whose cited passages hold them"),
        (
            "answer_correctness",
            number_match if numeric else f1,
            "share of the asked figures stated first" if numeric else "token F1 with the reference",
        ),
        ("number_match", number_match, f"asked figures stated first ({head_hits}/{gold_n})"),
        (
            "number_anywhere",
            all_hits / gold_n if numeric and gold_n else (0.0 if numeric else None),
            "share of the asked figures anywhere in the answer",
        ),
        (
            "parts_answered",
            parts_answered(question, answer_body(answer.answer)),
            "listed parts whose figures or key phrases the answer states",
        ),
        (
            "parts_accounted",
            parts_accounted(question, answer_body(answer.answer)),
            "listed parts the answer answers or declares the filings did not answer",
        ),
        ("token_f1", f1, "content-word F1 with the reference"),
        (
            "citation_validity",
            citation_validity(answer.citations, chunk_text),
            "quotes found in the cited passage",
        ),
        ("refusal", float(refused(answer)), "cites nothing or says nothing was found"),
        ("steps", float(answer.steps), "research steps run"),
        ("seconds", answer.seconds, "wall-clock seconds"),
    ]
    if similarity is not None and answer.answer.strip():
        values.append(
            (
                "answer_similarity",
                similarity(question.answer, headline(answer.answer) or answer.answer),
                "embedding cosine",
            )
        )
    return [MetricValue(name=n, value=v, variant="reference", detail=d) for n, v, d in values]
