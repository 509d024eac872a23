"""A deliberately tiny reading of the answer's Markdown: structure and citations, never raw markup.

The answer is written from document sentences, so it is untrusted text. Instead of handing it to a
Markdown or HTML renderer, it is read here into blocks of plain-text runs; each output format then
escapes the text itself and turns only the citation markers `[n]` into links.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from core.citations import CITATION_MARK, mark_numbers
from core.text.markdown_table import is_separator, is_table_line, row_cells

RunStyle = Literal["plain", "strong", "em"]
BlockKind = Literal["heading", "paragraph", "bullet", "ordered", "table"]

# Emphasis the writer may use: **strong**, _em_ or *em*; escaped markers (\*, \_) never count.
_EMPHASIS = re.compile(
    r"(?<!\\)\*\*(?P<strong>.+?)(?<!\\)\*\*"
    r"|(?<![\\\w])_(?P<em_u>[^_]+?)(?<!\\)_(?!\w)"
    r"|(?<![\\*])\*(?P<em_s>[^*\s][^*]*?)(?<!\\)\*(?!\*)"
)
# CommonMark: a backslash before ASCII punctuation makes that character literal.
_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_BULLET = re.compile(r"^[-*+]\s+(.*)$")
_ORDERED = re.compile(r"^\d{1,3}[.)]\s+(.*)$")
# Control characters other than tab/newline break DOCX XML and some PDF viewers.
_SPACE = re.compile(r"\s+")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")


def clean_text(text: str) -> str:
    """Text without control characters or lone surrogates, safe for every output format."""
    return _CONTROL.sub("", text)


def one_line(text: str) -> str:
    """Text with all whitespace runs collapsed to single spaces and trimmed (quotes, table cells)."""
    return " ".join(clean_text(text).split())


def flat(text: str) -> str:
    """Text on one line with whitespace runs collapsed but not trimmed (inline runs keep their spacing)."""
    return _SPACE.sub(" ", clean_text(text))


@dataclass(frozen=True)
class Run:
    """A piece of inline text: plain, bold, a citation marker or a link; the text is never markup."""

    text: str
    style: RunStyle = "plain"
    cite: int | None = None
    url: str | None = None


@dataclass
class AnswerBlock:
    """One block of the answer: a heading, a paragraph or a list item, as runs."""

    kind: BlockKind
    runs: list[Run] = field(default_factory=list)
    level: int = 0
    cells: list[list[list[Run]]] = field(default_factory=list)  # a table: rows of cells, header first


def unescape_markdown(text: str) -> str:
    """Text with Markdown backslash escapes resolved (the answer's `\\$` is a plain `$`)."""
    return _ESCAPED.sub(r"\1", text)


def _cited(piece: str, style: RunStyle) -> list[Run]:
    runs: list[Run] = []
    cursor = 0
    for match in CITATION_MARK.finditer(piece):
        if match.start() > cursor:
            runs.append(Run(unescape_markdown(piece[cursor : match.start()]), style))
        runs += [Run(f"[{n}]", cite=n) for n in mark_numbers(match)]
        cursor = match.end()
    if cursor < len(piece):
        runs.append(Run(unescape_markdown(piece[cursor:]), style))
    return runs


def inline_runs(text: str) -> list[Run]:
    """Split one line into plain/strong/em text runs and citation runs (one run per cited number)."""
    runs: list[Run] = []
    cursor = 0
    for match in _EMPHASIS.finditer(text):
        runs += _cited(text[cursor : match.start()], "plain")
        strong = match.group("strong")
        inner = strong if strong is not None else (match.group("em_u") or match.group("em_s") or "")
        runs += _cited(inner, "strong" if strong is not None else "em")
        cursor = match.end()
    runs += _cited(text[cursor:], "plain")
    return [run for run in runs if run.text]


def parse_answer(answer: str) -> list[AnswerBlock]:
    """Read the answer into headings, paragraphs and list items; all other syntax stays literal text."""
    blocks: list[AnswerBlock] = []
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph:
            blocks.append(AnswerBlock("paragraph", inline_runs(" ".join(paragraph))))
            paragraph.clear()

    for raw in clean_text(answer).splitlines():
        line = raw.strip()
        if not line:
            flush()
            continue
        if is_table_line(line) and line.endswith("|"):
            # A table of figures (rows of "| … |"): header, separator, rows; cells read like a line.
            flush()
            if not (blocks and blocks[-1].kind == "table"):
                blocks.append(AnswerBlock("table", [Run("")]))
            if not is_separator(row_cells(line)):
                blocks[-1].cells.append([inline_runs(cell) for cell in row_cells(line)])
            continue
        if heading := _HEADING.match(line):
            flush()
            text = heading.group(2).strip().strip("#").strip()
            blocks.append(AnswerBlock("heading", inline_runs(text), level=len(heading.group(1))))
        elif bullet := _BULLET.match(line):
            flush()
            blocks.append(AnswerBlock("bullet", inline_runs(bullet.group(1))))
        elif ordered := _ORDERED.match(line):
            flush()
            blocks.append(AnswerBlock("ordered", inline_runs(ordered.group(1))))
        else:
            paragraph.append(line)
    flush()
    return [block for block in blocks if block.runs]


def answer_plain_text(answer: str) -> str:
    """The answer as plain text, no markup and no escapes (for JSON and text exports): headings and
    paragraphs as lines, list items after "- " (numbered ones after their number), table rows with their
    cells joined by " | "; citation markers stay "[n]"."""

    def text(runs: list[Run]) -> str:
        return "".join(run.text for run in runs).strip()

    lines: list[str] = []
    number = 0
    for block in parse_answer(answer):
        number = number + 1 if block.kind == "ordered" else 0
        if block.kind == "table":
            lines += [" | ".join(text(cell) for cell in row) for row in block.cells]
        elif block.kind == "bullet":
            lines.append(f"- {text(block.runs)}")
        elif block.kind == "ordered":
            lines.append(f"{number}. {text(block.runs)}")
        else:
            lines.append(text(block.runs))
    return "\n".join(lines)
