"""Escaping for document text shown in Markdown or HTML: filing text is data, never markup."""

from __future__ import annotations

import html
import re

# Characters that are Markdown syntax wherever they stand (CommonMark + Streamlit's math and strikethrough):
# escaping these is enough inside a line, since without '[' and ']' no link or image can form.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~$])")
# Syntax only where a line starts: list markers, block quotes, setext underlines, and the "." or ")" after an
# ordered-list number ("1. " would start a list).
_LINE_START_MARKER = re.compile(r"^(\s*)([-+>=])", re.M)
_LINE_START_NUMBER = re.compile(r"^(\s*\d{1,9})([.)])", re.M)


def escape_markdown(text: str) -> str:
    """Text that renders literally in Markdown (no links, images, HTML, emphasis, math or lists), with no
    more backslashes than that needs: "10-K" and "2026-12-01" stay as they are."""
    escaped = _MARKDOWN_SPECIAL.sub(r"\\\1", text)
    escaped = _LINE_START_MARKER.sub(r"\1\\\2", escaped)
    return _LINE_START_NUMBER.sub(r"\1\\\2", escaped)


def escape_markdown_inline(text: str) -> str:
    """Text that renders literally in the middle of a Markdown line (after "— ", inside a table cell): only
    the characters that are syntax anywhere are escaped, so "-362" and "1." stay as they are."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


def escape_html(text: str) -> str:
    """Text that renders literally inside HTML elements and attributes."""
    return html.escape(text, quote=True)
