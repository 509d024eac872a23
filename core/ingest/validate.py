"""Check an upload before parsing: size, and its real type sniffed from the bytes (never the extension)."""

from __future__ import annotations

import io
import re
import zipfile

from core.ingest.errors import IngestError
from core.ingest.loaders.txt import control_char_ratio, decode_text
from core.models import SourceType

_IMAGES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"BM", "a BMP image"),
    (b"II*\x00", "a TIFF image"),
    (b"MM\x00*", "a TIFF image"),
)
_OTHER_BINARIES: tuple[tuple[bytes, str], ...] = (
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old Microsoft Office document (.doc/.xls)"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"Rar!", "a RAR archive"),
    (b"\x7fELF", "a program file"),
    (b"MZ", "a Windows program file"),
    (b"{\\rtf", "an RTF document"),
)
_HTML_START = re.compile(
    r"^\s*(?:<\?xml[^>]*>\s*)?(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body)\b", re.I | re.S
)
_HTML_TAGS = re.compile(r"<(?:html|body|div|p|table|span|font)\b[^>]*>", re.IGNORECASE)
_ACCEPTED = "Upload the filing as PDF, HTML (as saved from EDGAR) or plain text."


def _zip_kind(data: bytes) -> str:
    """Describe a ZIP container: Word, Excel, PowerPoint or a plain archive."""
    try:
        names = zipfile.ZipFile(io.BytesIO(data)).namelist()
    except (zipfile.BadZipFile, ValueError, OSError):
        return "a ZIP archive"
    if any(n.startswith("word/") for n in names):
        return "a Word document (.docx)"
    if any(n.startswith("xl/") for n in names):
        return "an Excel workbook (.xlsx)"
    if any(n.startswith("ppt/") for n in names):
        return "a PowerPoint file (.pptx)"
    return "a ZIP archive"


def _wrong_type(kind: str, filename: str) -> IngestError:
    ext = filename.rsplit(".", 1)[-1].lower() if "." in filename else ""
    renamed = f" renamed to .{ext}" if ext in {"pdf", "htm", "html", "txt"} else ""
    return IngestError(f"This file is {kind}{renamed}, not a filing. {_ACCEPTED}")


#: Longest file name kept for display (longer ones are shortened, keeping the extension).
MAX_FILENAME_CHARS = 120
_UNSAFE_NAME_CHARS = re.compile(r"[\x00-\x1f\x7f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


def display_filename(name: str) -> str:
    """The name an upload is listed under: its last path component, without control or bidi characters,
    at most MAX_FILENAME_CHARS long. The stored original is named by its content hash, never by this."""
    name = _UNSAFE_NAME_CHARS.sub("", re.split(r"[\\/]", name or "")[-1])
    name = " ".join(name.split()).strip(" .") or "upload"
    if len(name) > MAX_FILENAME_CHARS:
        stem, dot, ext = name.rpartition(".")
        ext = f".{ext}" if dot and 0 < len(ext) <= 8 else ""
        name = (stem if ext else name)[: MAX_FILENAME_CHARS - len(ext) - 1].rstrip() + "…" + ext
    return name


def check_upload(data: bytes, filename: str, max_bytes: int) -> SourceType:
    """Return "pdf", "html" or "txt" judged from the bytes; raise IngestError with a readable reason."""
    if not data or not data.strip():
        raise IngestError("The file is empty.")
    if len(data) > max_bytes:
        size_mb, limit_mb = len(data) / 1024 / 1024, max_bytes / 1024 / 1024
        raise IngestError(f"The file is {size_mb:.1f} MB, over the {limit_mb:g} MB upload limit.")
    head = data[:1024]
    if b"%PDF-" in head:
        return "pdf"
    for magic, kind in _IMAGES:
        if data.startswith(magic):
            raise _wrong_type(kind, filename)
    if data.startswith(b"PK\x03\x04"):
        raise _wrong_type(_zip_kind(data), filename)
    for magic, kind in _OTHER_BINARIES:
        if data.startswith(magic):
            raise _wrong_type(kind, filename)
    text = decode_text(data)
    if control_char_ratio(text) > 0.02:
        raise IngestError(f"This file cannot be decoded as text; it looks like binary data. {_ACCEPTED}")
    if _HTML_START.match(text[:4096]) or len(_HTML_TAGS.findall(text[:20000])) >= 5:
        return "html"
    return "txt"
