"""Loaders turn the bytes of one source type into page-tagged blocks of normalised text."""

from core.ingest.loaders.html import load_html
from core.ingest.loaders.pdf import extract_pdf_pages, load_pdf
from core.ingest.loaders.txt import decode_text, load_txt

__all__ = ["decode_text", "extract_pdf_pages", "load_html", "load_pdf", "load_txt"]
