"""Filings and their passages: 10-K structure, ingestion records."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, Field

# --- 10-K structure -------------------------------------------------------------------------

#: Canonical 10-K Items in filing order, with their standard titles.
ITEM_TITLES: dict[str, str] = {
    "Item 1": "Business",
    "Item 1A": "Risk Factors",
    "Item 1B": "Unresolved Staff Comments",
    "Item 1C": "Cybersecurity",
    "Item 2": "Properties",
    "Item 3": "Legal Proceedings",
    "Item 4": "Mine Safety Disclosures",
    "Item 5": "Market for Registrant's Common Equity, Related Stockholder Matters and Issuer Purchases of Equity Securities",
    "Item 6": "[Reserved] / Selected Financial Data",
    "Item 7": "Management's Discussion and Analysis of Financial Condition and Results of Operations",
    "Item 7A": "Quantitative and Qualitative Disclosures About Market Risk",
    "Item 8": "Financial Statements and Supplementary Data",
    "Item 9": "Changes in and Disagreements with Accountants on Accounting and Financial Disclosure",
    "Item 9A": "Controls and Procedures",
    "Item 9B": "Other Information",
    "Item 9C": "Disclosure Regarding Foreign Jurisdictions that Prevent Inspections",
    "Item 10": "Directors, Executive Officers and Corporate Governance",
    "Item 11": "Executive Compensation",
    "Item 12": "Security Ownership of Certain Beneficial Owners and Management and Related Stockholder Matters",
    "Item 13": "Certain Relationships and Related Transactions, and Director Independence",
    "Item 14": "Principal Accountant Fees and Services",
    "Item 15": "Exhibits and Financial Statement Schedules",
    "Item 16": "Form 10-K Summary",
}


def item_label(number: str) -> str | None:
    """'7a' -> 'Item 7A' when that is a 10-K Item, else None."""
    label = f"Item {number.strip().upper()}"
    return label if label in ITEM_TITLES else None


#: Label for text before Item 1 (cover page, table of contents, forward-looking statements).
FRONT_MATTER = "Front matter"
#: Label for text outside any Item after Item 1 (e.g. signatures, exhibits pages with no heading).
UNSECTIONED = "Other"


def section_rank(section: str) -> int:
    """Sort key putting front matter first, Items in filing order, everything else last."""
    if section == FRONT_MATTER:
        return -1
    order = list(ITEM_TITLES)
    return order.index(section) if section in order else len(order)


def utc_now() -> datetime:
    """Now, in UTC (the default time stamp of every record)."""
    return datetime.now(UTC)


# --- Ingestion ------------------------------------------------------------------------------

SourceType = Literal["pdf", "html", "txt"]
#: Company label of a filing whose cover page named no company.
UNKNOWN_COMPANY = "Unknown company"


class Filing(BaseModel):
    """One ingested filing, identified by the sha256 of its bytes."""

    filing_id: str
    filename: str = Field(description="Original upload name; display only, never used as a path.")
    company: str
    form: str = "10-K"
    fiscal_year: int | None = None
    source_type: SourceType
    pages: int
    chunks: int
    facts: int = Field(default=0, description="Table rows kept as facts (index version 5 and later).")
    sections: dict[str, int] = Field(default_factory=dict, description="Item -> chunk count.")
    section_titles: dict[str, str] = Field(default_factory=dict, description="Item -> title found.")
    size_bytes: int = 0
    seconds: float = 0.0
    index_version: int = Field(
        default=1, description="How its passages were indexed (core.ingest.pipeline.INDEX_VERSION when new)."
    )
    ingested_at: datetime = Field(default_factory=utc_now)

    @property
    def label(self) -> str:
        """Short human label, e.g. 'NVIDIA Corp 10-K FY2023'."""
        year = f" FY{self.fiscal_year}" if self.fiscal_year else ""
        return f"{self.company} {self.form}{year}"


class Chunk(BaseModel):
    """A searchable passage of a filing; never crosses an Item boundary."""

    chunk_id: str
    filing_id: str
    company: str = ""
    form: str = "10-K"
    fiscal_year: int | None = None
    section: str = Field(description="'Item 1A', ..., or FRONT_MATTER / UNSECTIONED.")
    section_title: str = ""
    part: str | None = None
    page: int = Field(
        description="PDF: the page number a viewer shows (from 1); HTML: the printed page number; text: form-feed pages from 1."
    )
    chunk_index: int
    char_start: int
    char_end: int
    kind: Literal["text", "table"] = "text"
    text: str
    context: str = Field(
        default="",
        description="What the passage is about (filing, Item, page heading): indexed with it, never quoted.",
    )

    @property
    def indexed_text(self) -> str:
        """The text the embedding and the keyword index read: the context line, then the passage."""
        return f"{self.context}\n{self.text}" if self.context else self.text


class IngestProgress(BaseModel):
    """Progress of one filing through the ingestion stages, for progress bars."""

    filename: str
    stage: Literal[
        "validate", "parse", "sections", "chunk", "facts", "embed", "index", "done", "error", "duplicate"
    ]
    fraction: float = Field(ge=0.0, le=1.0, description="Overall progress of this filing.")
    message: str = ""


class IngestResult(BaseModel):
    """Outcome of ingesting one upload: a filing, or a human-readable error."""

    filename: str
    ok: bool
    filing: Filing | None = None
    duplicate: bool = False
    error: str | None = None
    stage_seconds: dict[str, float] = Field(default_factory=dict)
    reused_embeddings: int = Field(
        default=0, description="Passages whose vector came from the embedding cache."
    )
