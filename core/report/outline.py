"""The cited report's structure, written once and rendered by every format through `ReportWriter`.

`compose_report` walks a RunRecord and emits headings, paragraphs, lists, quotes and tables as
plain text runs. Writers (Markdown, HTML, PDF, DOCX) only decide how each primitive looks and
escape text for their own syntax, so all four exports carry exactly the same content.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from core.citations import cited_numbers
from core.models import Evidence, RunRecord, StepRecord
from core.report.answer_markup import AnswerBlock, Run, one_line, parse_answer
from core.report.labels import (
    EMPTY,
    REPORT_TITLE,
    clip,
    item_label,
    metadata_rows,
    page_label,
    reference_runs,
    score_label,
)


class ReportWriter(Protocol):
    """The block primitives a report format implements."""

    def heading(self, text: str, level: int, anchor: str | None = None) -> None: ...

    def paragraph(self, runs: Sequence[Run]) -> None: ...

    def items(self, items: Sequence[Sequence[Run]], ordered: bool = False) -> None: ...

    def fields(self, rows: Sequence[tuple[str, str]]) -> None: ...

    def quote(self, text: str) -> None: ...

    def table(self, header: Sequence[str], rows: Sequence[Sequence[str]]) -> None: ...

    def reference(self, number: int, runs: Sequence[Run], quote: str | None) -> None: ...


def _heading_text(block: AnswerBlock) -> str:
    return "".join(run.text for run in block.runs).strip().lower() if block.kind == "heading" else ""


def answer_body(answer: str, known: set[int]) -> list[AnswerBlock]:
    """The answer's blocks without its own 'Answer' heading or a fully resolvable trailing 'Sources' list."""
    # The report prints both itself (heading and References); repeating them only adds noise.
    blocks = parse_answer(answer)
    if blocks and _heading_text(blocks[0]) == "answer":
        blocks = blocks[1:]
    for index, block in enumerate(blocks):
        if _heading_text(block) in {"sources", "references"}:
            tail = blocks[index + 1 :]
            if tail and all(
                b.kind in {"bullet", "ordered"} and b.runs[0].cite is not None and b.runs[0].cite in known
                for b in tail
            ):
                return blocks[:index]
    return blocks


def _answer_blocks(writer: ReportWriter, blocks: list[AnswerBlock], known: set[int]) -> None:
    # Citations without a reference stay literal text; they are listed as flagged below.
    runs = [
        [run if run.cite is None or run.cite in known else Run(run.text) for run in b.runs] for b in blocks
    ]
    kind = blocks[0].kind
    if kind == "table" and blocks[0].cells:
        # A table of figures: its cells as text, citation marks kept as printed ("$1,210 million [1]").
        header, *rows = [["".join(run.text for run in cell) for cell in row] for row in blocks[0].cells]
        writer.table(header, rows)
    elif kind == "heading":
        writer.heading("".join(run.text for run in runs[0]), min(blocks[0].level + 2, 4))
    elif kind == "paragraph":
        writer.paragraph(runs[0])
    else:
        writer.items(runs, ordered=kind == "ordered")


def _flagged(record: RunRecord, known: set[int]) -> list[str]:
    flagged = [f"Unsupported: {claim}" for claim in record.unsupported_claims]
    flagged += [
        f"Citation [{n}] appears in the answer but resolves to no reference."
        for n in dict.fromkeys(cited_numbers(record.answer))
        if n not in known
    ]
    for step in record.steps:
        for card in step.cards:
            if card.contradiction or card.contradicting_evidence_ids:
                against = ", ".join(card.contradicting_evidence_ids) or "unspecified evidence"
                detail = card.contradiction or "contradicting evidence found"
                flagged.append(f"Conflict (step {step.index + 1}): {card.claim} — {detail} [{against}]")
    return flagged


def _plan_history(writer: ReportWriter, record: RunRecord) -> None:
    writer.heading("Plan history", 3)
    if not record.plan_history:
        writer.paragraph([Run("No plan versions were recorded.")])
    for version in record.plan_history:
        stamp = version.created_at.strftime("%Y-%m-%d %H:%M UTC")
        writer.heading(f"Version {version.version} — by the {version.author} ({stamp})", 4)
        changes = version.changes or (
            ["Initial plan."] if version.author == "planner" else ["No change listed."]
        )
        writer.items([[Run(change)] for change in changes])
        rows = [
            [str(i + 1), clip(step.sub_question), step.tool, step.document_section or EMPTY]
            for i, step in enumerate(version.plan.steps)
        ]
        writer.table(["#", "Sub-question", "Tool", "Item"], rows)


def _evidence_row(evidence: Evidence) -> list[str]:
    if evidence.kind == "note":
        return [evidence.evidence_id, clip(evidence.title or evidence.text, 80), EMPTY, EMPTY, EMPTY]
    if evidence.kind == "web":
        source = clip(evidence.title or evidence.url or "Web result", 80)
        return [evidence.evidence_id, source, EMPTY, evidence.date or EMPTY, score_label(evidence.score)]
    rerank = evidence.scores.rerank if evidence.scores and evidence.scores.rerank is not None else None
    return [
        evidence.evidence_id,
        clip(evidence.filing_label or evidence.kind, 80),
        evidence.section or EMPTY,
        page_label(evidence.page),
        score_label(rerank if rerank is not None else evidence.score),
    ]


def _step_audit(writer: ReportWriter, step: StepRecord) -> None:
    writer.heading(f"Step {step.index + 1}: {one_line(step.sub_question)}", 4)
    strategy = step.strategy or EMPTY
    if step.decided_by:
        strategy += f" (decided by {step.decided_by})"
    origin = {
        "anchor": "anchor: the question as asked",
        "reflection": one_line(step.reason or "added by reflection"),
        "analyst": "added by the analyst",
    }.get(step.origin, "planner")
    rows = [
        ("Tool", step.tool),
        ("Origin", origin),
        ("Item filter", item_label(step.document_section)),
        ("Query searched", one_line(step.rewritten_query) or EMPTY),
        ("Strategy", strategy),
        ("Reason", one_line(step.justification) or EMPTY),
    ]
    if step.strategy_override:
        rows.append(("Analyst override", step.strategy_override))
    if step.route_note:
        rows.append(("Filings searched", one_line(step.route_note)))
    if step.widened or step.widen_note:
        rows.append(("Filter widened", one_line(step.widen_note or "yes")))
    rows.append(("Reranker", step.reranker or EMPTY))
    rows.append(("Candidates before rerank", str(len(step.candidates))))
    if step.evidence_note:
        rows.append(("Evidence note", one_line(step.evidence_note)))
    if step.missing:
        rows.append(("Not found", one_line("; ".join(step.missing))))
    if step.note and step.note.gaps:
        rows.append(("Gaps found", one_line("; ".join(g.description for g in step.note.gaps))))
    if step.decision:
        rows.append(("Next", f"{step.decision.action}: {one_line(step.decision.reason)}"))
    if step.timings:
        rows.append(("Time", ", ".join(f"{node} {sec:.2f} s" for node, sec in step.timings.items())))
    rows += [("Error", one_line(error)) for error in step.errors]
    writer.fields(rows)
    if step.evidence:
        writer.table(
            ["Evidence", "Source", "Item", "Page / date", "Score"], [_evidence_row(e) for e in step.evidence]
        )
    else:
        writer.paragraph([Run("No evidence was kept for this step.")])
    if step.cards:
        writer.items(
            [
                [
                    Run(
                        f"{card.claim} (confidence {card.confidence:.2f}; evidence {', '.join(card.evidence_ids) or EMPTY})"
                    )
                ]
                for card in step.cards
            ]
        )


def _run_costs(writer: ReportWriter, record: RunRecord) -> None:
    writer.heading("Fallbacks", 3)
    if record.fallbacks:
        rows = [
            [
                fb.component,
                fb.used,
                clip(fb.reason),
                EMPTY if fb.step_index is None else str(fb.step_index + 1),
            ]
            for fb in record.fallbacks
        ]
        writer.table(["Component", "Ran instead", "Why", "Step"], rows)
    else:
        writer.paragraph([Run("Every component ran as configured; no fallback was used.")])
    writer.heading("Timings", 3)
    timing_rows = [[node, f"{sec:.2f}"] for node, sec in record.timings.items()]
    timing_rows += [
        [f"step {s.index + 1} (all nodes)", f"{sum(s.timings.values()):.2f}"]
        for s in record.steps
        if s.timings
    ]
    if timing_rows:
        writer.table(["Stage", "Seconds (run total)"], timing_rows)
    else:
        writer.paragraph([Run("No timings were recorded.")])
    writer.heading("Settings used", 3)
    if record.settings:
        writer.table(["Setting", "Value"], [[name, _setting_value(v)] for name, v in record.settings.items()])
    else:
        writer.paragraph([Run("This run did not record its settings (it predates settings records).")])
    writer.heading("Token usage", 3)
    usage = record.token_usage
    writer.fields(
        [
            ("LLM calls", str(usage.calls)),
            (
                "Tokens (input / output / total)",
                f"{usage.input_tokens} / {usage.output_tokens} / {usage.total_tokens}",
            ),
            ("Estimated cost", f"${usage.cost_usd:.4f}"),
            ("Cache hits", str(usage.cache_hits)),
            *(("Note", one_line(note)) for note in usage.notes),
        ]
    )


def _setting_value(value: object) -> str:
    if value is None:
        return EMPTY
    if isinstance(value, bool):
        return "on" if value else "off"
    return one_line(str(value))


def compose_report(record: RunRecord, writer: ReportWriter) -> None:
    """Emit the whole cited report (question, answer, references, flags, audit appendix) to `writer`."""
    known = {citation.number for citation in record.citations}
    writer.heading(REPORT_TITLE, 1)
    writer.paragraph([Run("Question: ", "strong"), Run(one_line(record.question))])
    writer.fields(metadata_rows(record))

    writer.heading("Answer", 2)
    blocks = answer_body(record.answer, known)
    if not blocks:
        writer.paragraph([Run(f"No answer has been written yet (run status: {record.status}).")])
    pending: list[AnswerBlock] = []
    for block in blocks:
        # Consecutive list items of one kind form one list, as they did in the answer.
        if pending and (block.kind != pending[-1].kind or block.kind not in {"bullet", "ordered"}):
            _answer_blocks(writer, pending, known)
            pending = []
        pending.append(block)
    if pending:
        _answer_blocks(writer, pending, known)

    writer.heading("References", 2)
    if not record.citations:
        writer.paragraph([Run("The answer cites no sources.")])
    for citation in sorted(record.citations, key=lambda c: c.number):
        writer.reference(citation.number, reference_runs(citation), one_line(citation.quote) or None)

    flagged = _flagged(record, known)
    if flagged:
        writer.heading("Unsupported or flagged claims", 2)
        writer.items([[Run(line)] for line in flagged])

    writer.heading("Audit appendix", 2)
    _plan_history(writer, record)
    writer.heading("Steps: strategy, filters and evidence", 3)
    if not record.steps:
        writer.paragraph([Run("No step was executed.")])
    for step in record.steps:
        _step_audit(writer, step)
    _run_costs(writer, record)
