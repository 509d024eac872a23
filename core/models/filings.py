"""Filings and their passages: 10-K structure, ingestion records."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Literal

from pydantic import BaseModel, Field

from core.text.periods import FiscalCalendar

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


#: A 10-Q's Parts and Items, in filing order, with their standard titles. Item numbers restart in Part II,
#: so a 10-Q's section is named with its Part.
QUARTERLY_SECTION_TITLES: dict[str, str] = {
    "Part I Item 1": "Financial Statements",
    "Part I Item 2": "Management's Discussion and Analysis of Financial Condition and Results of Operations",
    "Part I Item 3": "Quantitative and Qualitative Disclosures About Market Risk",
    "Part I Item 4": "Controls and Procedures",
    "Part II Item 1": "Legal Proceedings",
    "Part II Item 1A": "Risk Factors",
    "Part II Item 2": "Unregistered Sales of Equity Securities and Use of Proceeds",
    "Part II Item 3": "Defaults Upon Senior Securities",
    "Part II Item 4": "Mine Safety Disclosures",
    "Part II Item 5": "Other Information",
    "Part II Item 6": "Exhibits",
}
#: An 8-K's Items (the ones companies file most), in number order, then the exhibits it furnishes.
CURRENT_REPORT_SECTION_TITLES: dict[str, str] = {
    "Item 1.01": "Entry into a Material Definitive Agreement",
    "Item 1.02": "Termination of a Material Definitive Agreement",
    "Item 2.01": "Completion of Acquisition or Disposition of Assets",
    "Item 2.02": "Results of Operations and Financial Condition",
    "Item 2.03": "Creation of a Direct Financial Obligation",
    "Item 2.05": "Costs Associated with Exit or Disposal Activities",
    "Item 2.06": "Material Impairments",
    "Item 3.01": "Notice of Delisting or Failure to Satisfy a Continued Listing Rule",
    "Item 3.02": "Unregistered Sales of Equity Securities",
    "Item 3.03": "Material Modification to Rights of Security Holders",
    "Item 4.01": "Changes in Registrant's Certifying Accountant",
    "Item 4.02": "Non-Reliance on Previously Issued Financial Statements",
    "Item 5.01": "Changes in Control of Registrant",
    "Item 5.02": "Departure of Directors or Certain Officers; Election of Directors; Appointment of Certain Officers",
    "Item 5.03": "Amendments to Articles of Incorporation or Bylaws; Change in Fiscal Year",
    "Item 5.07": "Submission of Matters to a Vote of Security Holders",
    "Item 7.01": "Regulation FD Disclosure",
    "Item 8.01": "Other Events",
    "Item 9.01": "Financial Statements and Exhibits",
    "Exhibit 99": "Press release and other exhibits",
}
#: The form name of a results announcement with no SEC cover (a press release, standalone or furnished).
EARNINGS_RELEASE = "Earnings release"
#: An earnings release's parts, as its headings name them.
RELEASE_SECTION_TITLES: dict[str, str] = {
    "Highlights": "Highlights and results",
    "Outlook": "Outlook and guidance",
    "Statements": "Financial statements",
    "Non-GAAP": "Non-GAAP reconciliations",
    "Forward-looking": "Forward-looking statements",
}
#: The sections each form has, by the form's name (10-K/A and 20-F/40-F are read with the 10-K's Items).
SECTION_TITLES_BY_FORM: dict[str, dict[str, str]] = {
    "10-K": ITEM_TITLES,
    "10-Q": QUARTERLY_SECTION_TITLES,
    "8-K": CURRENT_REPORT_SECTION_TITLES,
    EARNINGS_RELEASE: RELEASE_SECTION_TITLES,
}
#: Where another form keeps what a 10-K Item holds (the planner names topics by 10-K Item): results and
#: statements, risk factors (in a 10-Q often only the changes since the 10-K), legal proceedings, buybacks.
_ANNUAL_ITEM_IN_FORM: dict[str, dict[str, str]] = {
    "10-Q": {
        "Item 8": "Part I Item 1",
        "Item 7": "Part I Item 2",
        "Item 7A": "Part I Item 3",
        "Item 9A": "Part I Item 4",
        "Item 3": "Part II Item 1",
        "Item 1A": "Part II Item 1A",
        "Item 5": "Part II Item 2",
        "Item 9B": "Part II Item 5",
        "Item 15": "Part II Item 6",
    },
    "8-K": {"Item 8": "Exhibit 99", "Item 15": "Item 9.01"},
    EARNINGS_RELEASE: {"Item 8": "Statements", "Item 7": "Highlights"},
}


def section_titles(form: str) -> dict[str, str]:
    """The sections a filing of this form has, with their standard titles."""
    return SECTION_TITLES_BY_FORM.get(form.removesuffix("/A"), ITEM_TITLES)


def section_in_form(section: str, form: str) -> str | None:
    """The section of a filing of this form that holds what `section` (a 10-K Item, or the form's own
    section) holds; None when the form has no such section (then the whole filing is searched)."""
    if section in section_titles(form):
        return section
    return _ANNUAL_ITEM_IN_FORM.get(form.removesuffix("/A"), {}).get(section)


def section_choices(forms: list[str]) -> list[str]:
    """The sections a plan step may be limited to for a library of these forms: a 10-K's Items always (the
    plan's common names, searched in each filing's own section for them), then each other form's own."""
    present = {form.removesuffix("/A") for form in forms}
    keys = list(ITEM_TITLES)
    for form, titles in SECTION_TITLES_BY_FORM.items():
        if form in present:
            keys.extend(k for k in titles if k not in keys)
    return keys


def annual_item(section: str) -> str | None:
    """The 10-K Item a section of any form corresponds to ('Part I Item 2' -> 'Item 7'); None if none."""
    if section in ITEM_TITLES:
        return section
    for items in _ANNUAL_ITEM_IN_FORM.values():
        for item, own in items.items():
            if own == section:
                return item
    return None


#: Every form's sections with their titles, 10-K Items first, then a 10-Q's, an 8-K's and a release's.
ALL_SECTION_TITLES: dict[str, str] = {
    key: title for titles in SECTION_TITLES_BY_FORM.values() for key, title in titles.items()
}
_SECTION_ORDER: list[str] = list(ALL_SECTION_TITLES)


def section_rank(section: str) -> int:
    """Sort key putting front matter first, Items (of any form) in filing order, everything else last."""
    if section == FRONT_MATTER:
        return -1
    return _SECTION_ORDER.index(section) if section in _SECTION_ORDER else len(_SECTION_ORDER)


def utc_now() -> datetime:
    """Now, in UTC (the default time stamp of every record)."""
    return datetime.now(UTC)


# --- Ingestion ------------------------------------------------------------------------------

SourceType = Literal["pdf", "html", "txt"]
#: Company label of a filing whose cover page named no company.
UNKNOWN_COMPANY = "Unknown company"


def period_label(
    form: str, fiscal_year: int | None, fiscal_quarter: int | None = None, period_end: str | None = None
) -> str:
    """'FY2023' for an annual report, 'Q3 FY2022' for a quarter's, the event date for an 8-K."""
    if form.startswith("8-K") and period_end:
        return period_end
    year = f"FY{fiscal_year}" if fiscal_year else ""
    return f"Q{fiscal_quarter} {year}".strip() if fiscal_quarter else year


def filing_label(
    company: str,
    form: str,
    fiscal_year: int | None,
    fiscal_quarter: int | None = None,
    period_end: str | None = None,
) -> str:
    """'3M Company 10-K FY2018', 'Apple Inc. 10-Q Q3 FY2022': whose filing a passage comes from."""
    return " ".join(
        p for p in (company, form, period_label(form, fiscal_year, fiscal_quarter, period_end)) if p
    )


class Filing(BaseModel):
    """One ingested filing, identified by the sha256 of its bytes."""

    filing_id: str
    filename: str = Field(description="Original upload name; display only, never used as a path.")
    company: str
    form: str = Field(
        default="10-K", description="10-K, 10-K/A, 10-Q, 8-K, 20-F, 40-F or 'Earnings release'."
    )
    fiscal_year: int | None = Field(
        default=None, description="As the company names it; an 8-K: its event's year."
    )
    fiscal_quarter: int | None = Field(default=None, description="1-4 for a quarter's report or release.")
    period_end: str | None = Field(
        default=None, description="ISO date the period ends; an 8-K: its event date."
    )
    event_items: list[str] = Field(default_factory=list, description="An 8-K's Items, e.g. ['2.02', '9.01'].")
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
        """Short human label, e.g. 'NVIDIA Corp 10-K FY2023', 'Apple Inc. 10-Q Q3 FY2022'."""
        return filing_label(self.company, self.form, self.fiscal_year, self.fiscal_quarter, self.period_end)

    @property
    def period(self) -> str:
        """The period the filing covers, as an analyst says it: 'FY2023', 'Q3 FY2022', '8-K of 2022-08-19'."""
        return period_label(self.form, self.fiscal_year, self.fiscal_quarter, self.period_end)

    @property
    def calendar(self) -> FiscalCalendar | None:
        """The company's fiscal calendar as this report shows it (None without a fiscal year and period end,
        and for an 8-K, whose date is an event's, not a period's)."""
        return fiscal_calendar(self.form, self.fiscal_year, self.fiscal_quarter, self.period_end)


def fiscal_calendar(
    form: str, fiscal_year: int | None, fiscal_quarter: int | None, period_end: str | None
) -> FiscalCalendar | None:
    """The fiscal calendar a report's form, fiscal year, quarter and period end give (see Filing.calendar)."""
    if not fiscal_year or not period_end or form.startswith("8-K"):
        return None
    try:
        end = date.fromisoformat(period_end)
    except ValueError:
        return None
    return FiscalCalendar(fiscal_year, end, fiscal_quarter)


def chunk_id_for(filing_id: str, index: int) -> str:
    """A passage's id: its filing's id (the first 16 hex digits) and its place in reading order."""
    return f"{filing_id[:16]}-{index:05d}"


def following_chunk_id(chunk_id: str) -> str | None:
    """The id of the passage that follows `chunk_id` in its filing's reading order (None for another form)."""
    prefix, _, index = chunk_id.rpartition("-")
    return chunk_id_for(prefix, int(index) + 1) if prefix and index.isdigit() else None


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
