"""Escaping for document text shown in Markdown or HTML: filing text is data, never markup."""

from __future__ import annotations

import html
import re

# Every character Markdown (CommonMark + Streamlit extensions) may treat as syntax.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~$:])")


def escape_markdown(text: str) -> str:
    """Text that renders literally in Markdown: no links, images, HTML, emphasis or math."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


def escape_html(text: str) -> str:
    """Text that renders literally inside HTML elements and attributes."""
    return html.escape(text, quote=True)
