"""The cited report as Markdown and as a self-contained HTML document (no scripts, no remote assets)."""

from __future__ import annotations

from collections.abc import Sequence

from core.models import RunRecord
from core.report.answer_markup import Run, flat, one_line, parse_answer
from core.report.labels import REPORT_TITLE, ref_anchor, safe_url
from core.report.outline import compose_report
from core.text.escape import escape_html, escape_markdown


def _md(text: str) -> str:
    return escape_markdown(flat(text))


def _md_emphasis(text: str, marker: str) -> str:
    # Emphasis markers must touch the text, so surrounding spaces move outside them.
    core = flat(text).strip()
    if not core:
        return _md(text)
    lead = " " if text[:1].isspace() else ""
    trail = " " if text[-1:].isspace() else ""
    return f"{lead}{marker}{escape_markdown(core)}{marker}{trail}"


class MarkdownWriter:
    """Writes report blocks as Markdown; every piece of text is escaped, links are built here."""

    def __init__(self, html_anchors: bool = True) -> None:
        self.html_anchors = html_anchors
        self.lines: list[str] = []

    def _block(self, *lines: str) -> None:
        self.lines.extend([*lines, ""])

    def runs(self, runs: Sequence[Run]) -> str:
        """Inline Markdown for runs: escaped text, `[n](#ref-n)` citations, http(s) links only."""
        out: list[str] = []
        for run in runs:
            if run.cite is not None:
                out.append(f"[\\[{run.cite}\\]](#{ref_anchor(run.cite)})")
            elif run.url and (url := safe_url(run.url)):
                out.append(f"[{_md(run.text)}](<{url}>)")
            elif run.style == "strong":
                out.append(_md_emphasis(run.text, "**"))
            elif run.style == "em":
                out.append(_md_emphasis(run.text, "*"))
            else:
                out.append(_md(run.text))
        return "".join(out)

    def heading(self, text: str, level: int, anchor: str | None = None) -> None:
        prefix = f'<a id="{anchor}"></a>' if anchor and self.html_anchors else ""
        self._block(f"{'#' * level} {prefix}{_md(text)}")

    def paragraph(self, runs: Sequence[Run]) -> None:
        self._block(self.runs(runs))

    def items(self, items: Sequence[Sequence[Run]], ordered: bool = False) -> None:
        marker = "1." if ordered else "-"
        self._block(*(f"{marker} {self.runs(item)}" for item in items))

    def fields(self, rows: Sequence[tuple[str, str]]) -> None:
        self._block(*(f"- **{_md(label)}:** {_md(value)}" for label, value in rows))

    def quote(self, text: str) -> None:
        self._block(f"> {_md(text)}")

    def table(self, header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
        def line(cells: Sequence[str]) -> str:
            return "| " + " | ".join(_md(cell) or " " for cell in cells) + " |"

        self._block(line(header), "|" + "|".join("---" for _ in header) + "|", *(line(row) for row in rows))

    def reference(self, number: int, runs: Sequence[Run], quote: str | None) -> None:
        anchor = f'<a id="{ref_anchor(number)}"></a>' if self.html_anchors else ""
        self._block(f"{anchor}**\\[{number}\\]** {self.runs(runs)}")
        if quote:
            self.quote(quote)

    def text(self) -> str:
        """The document written so far."""
        return "\n".join(self.lines).rstrip() + "\n"


def report_markdown(record: RunRecord, *, html_anchors: bool = True) -> str:
    """The cited report as Markdown; `html_anchors=False` drops the `<a id>` targets for renderers without HTML."""
    writer = MarkdownWriter(html_anchors=html_anchors)
    compose_report(record, writer)
    return writer.text()


def _h(text: str) -> str:
    return escape_html(text)


class HtmlWriter:
    """Writes report blocks as HTML elements; every piece of text goes through `escape_html`."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def runs(self, runs: Sequence[Run]) -> str:
        """Inline HTML for runs: escaped text, `#ref-n` citation links, http(s) links only."""
        out: list[str] = []
        for run in runs:
            if run.cite is not None:
                out.append(f'<a class="cite" href="#{ref_anchor(run.cite)}">[{run.cite}]</a>')
            elif run.url and (url := safe_url(run.url)):
                out.append(f'<a href="{_h(url)}" rel="noopener noreferrer nofollow">{_h(run.text)}</a>')
            elif run.style in ("strong", "em"):
                tag = run.style
                out.append(f"<{tag}>{_h(flat(run.text))}</{tag}>")
            else:
                out.append(_h(flat(run.text)))
        return "".join(out)

    def heading(self, text: str, level: int, anchor: str | None = None) -> None:
        ident = f' id="{_h(anchor)}"' if anchor else ""
        self.parts.append(f"<h{level}{ident}>{_h(one_line(text))}</h{level}>")

    def paragraph(self, runs: Sequence[Run]) -> None:
        self.parts.append(f"<p>{self.runs(runs)}</p>")

    def items(self, items: Sequence[Sequence[Run]], ordered: bool = False) -> None:
        tag = "ol" if ordered else "ul"
        body = "".join(f"<li>{self.runs(item)}</li>" for item in items)
        self.parts.append(f"<{tag}>{body}</{tag}>")

    def fields(self, rows: Sequence[tuple[str, str]]) -> None:
        body = "".join(f"<dt>{_h(label)}</dt><dd>{_h(value)}</dd>" for label, value in rows)
        self.parts.append(f'<dl class="fields">{body}</dl>')

    def quote(self, text: str) -> None:
        self.parts.append(f"<blockquote>{_h(text)}</blockquote>")

    def table(self, header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
        head = "".join(f"<th>{_h(cell)}</th>" for cell in header)
        body = "".join("<tr>" + "".join(f"<td>{_h(cell)}</td>" for cell in row) + "</tr>" for row in rows)
        self.parts.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")

    def reference(self, number: int, runs: Sequence[Run], quote: str | None) -> None:
        quoted = f"<blockquote>{_h(quote)}</blockquote>" if quote else ""
        self.parts.append(
            f'<div class="ref" id="{ref_anchor(number)}"><span class="num">[{number}]</span> '
            f"{self.runs(runs)}{quoted}</div>"
        )


# Scripts, frames and remote fetches are refused by the page itself, whatever ends up inside it.
_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"

_CSS = """
body{font-family:-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;color:#1f2328;max-width:58rem;
margin:2rem auto;padding:0 1.25rem;line-height:1.55;font-size:15px}
h1{font-size:1.7rem;border-bottom:2px solid #1f4e79;padding-bottom:.3rem;color:#1f4e79}
h2{font-size:1.3rem;margin-top:2rem;border-bottom:1px solid #d0d7de;padding-bottom:.2rem}
h3{font-size:1.1rem;margin-top:1.5rem}h4{font-size:1rem;margin-top:1.2rem}
a{color:#0b62c4}a.cite{text-decoration:none;font-size:.85em;vertical-align:super}
dl.fields{display:grid;grid-template-columns:max-content 1fr;gap:.15rem 1rem;margin:.5rem 0 1rem}
dl.fields dt{font-weight:600;color:#57606a}dl.fields dd{margin:0;overflow-wrap:anywhere}
blockquote{margin:.4rem 0 .9rem;padding:.4rem .9rem;border-left:4px solid #8fb3d9;background:#f6f8fa;
color:#333;white-space:pre-wrap;overflow-wrap:anywhere}
.ref{margin:.8rem 0;padding:.2rem 0;overflow-wrap:anywhere}.ref:target{background:#fff8c5}
.ref .num{font-weight:700;color:#1f4e79}
table{border-collapse:collapse;width:100%;margin:.5rem 0 1rem;font-size:.86rem}
th,td{border:1px solid #d0d7de;padding:.3rem .5rem;text-align:left;vertical-align:top;overflow-wrap:break-word}
th{background:#f0f3f6}
@media print{a.cite{color:#000}.ref:target{background:none}}
"""


def report_html(record: RunRecord) -> str:
    """The cited report as one self-contained HTML document: inline CSS, no scripts, no external resources."""
    writer = HtmlWriter()
    compose_report(record, writer)
    title = _h(f"{REPORT_TITLE}: {one_line(record.question)[:120]}")
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta name="referrer" content="no-referrer"><title>{title}</title><style>{_CSS}</style></head>\n'
        "<body>\n" + "\n".join(writer.parts) + "\n</body></html>\n"
    )


def answer_html(answer: str) -> str:
    """An answer's Markdown as escaped HTML (without its own Answer heading), citations shown as plain
    numbers: for showing answers side by side outside a report."""
    writer = HtmlWriter()
    blocks = parse_answer(answer)
    if (
        blocks
        and blocks[0].kind == "heading"
        and "".join(r.text for r in blocks[0].runs).strip().lower() == "answer"
    ):
        blocks = blocks[1:]
    for block in blocks:
        runs = [Run(run.text, run.style) if run.cite is None else Run(f"[{run.cite}]") for run in block.runs]
        if block.kind == "heading":
            writer.heading("".join(r.text for r in runs), min(block.level + 2, 5))
        elif block.kind == "paragraph":
            writer.paragraph(runs)
        else:
            writer.items([runs], ordered=block.kind == "ordered")
    return "".join(writer.parts)
