"""Metrics computed from line items: each a formula in the calculator's notation, the textbook definition
(with the fallbacks a filing may force), and how analysts name it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from core.finance.vocabulary.mentions import Mention, pattern_of, scan


@dataclass(frozen=True)
class Metric:
    """A metric computed from line items: a formula in the calculator's notation and how to show it."""

    key: str
    name: str
    aliases: tuple[str, ...]
    formula: str
    kind: str = "ratio"  # "percent" | "ratio" | "amount" | "days"
    needs_prior_year: bool = False
    fallbacks: tuple[str, ...] = field(default_factory=tuple)


METRICS: list[Metric] = [
    Metric(
        "gross_margin",
        "gross margin",
        (r"gross (profit )?margin", r"gross (profit|income)? ?%? ?margin"),
        "gross profit / revenue",
        "percent",
        fallbacks=(
            "(revenue - cost of revenue) / revenue",
            "(revenue - cost of products - cost of services) / revenue",
        ),
    ),
    Metric(
        "operating_margin",
        "operating margin",
        (r"operating (profit )?margin", r"ebit margin", r"operating (income|profit) ?%? ?margin"),
        "operating income / revenue",
        "percent",
    ),
    Metric(
        "net_margin",
        "net profit margin",
        (r"net (profit |income )?margin", r"profit margin", r"net (income|profit|earnings) ?%? ?margin"),
        "net income / revenue",
        "percent",
    ),
    Metric(
        "effective_tax_rate",
        "effective tax rate",
        (r"effective (income )?tax rate", r"\betr\b"),
        "income tax expense / income before income taxes",
        "percent",
    ),
    Metric(
        "current_ratio",
        "current ratio",
        (r"current ratio",),
        "total current assets / total current liabilities",
    ),
    Metric(
        "quick_ratio",
        "quick ratio",
        (r"quick ratio", r"acid[- ]test"),
        "(cash and cash equivalents + short-term investments + accounts receivable) / total current liabilities",
        # Without a short-term investments row, dropping that one term keeps closest to the definition;
        # current assets less inventories also counts prepaid and other current assets.
        fallbacks=(
            "(cash and cash equivalents + accounts receivable) / total current liabilities",
            "(total current assets - inventories) / total current liabilities",
        ),
    ),
    Metric(
        "cash_ratio",
        "cash ratio",
        (r"\bcash ratio",),
        "cash and cash equivalents / total current liabilities",
    ),
    Metric(
        "working_capital",
        "working capital",
        (r"working capital",),
        "total current assets - total current liabilities",
        "amount",
    ),
    Metric(
        "operating_cash_flow_ratio",
        "operating cash flow ratio",
        (r"operating cash flow ratio",),
        "cash from operations / total current liabilities",
    ),
    Metric(
        "total_debt",
        "total debt",
        (
            r"total debt",
            r"(its|their|the company'?s|overall) (total )?debt(?![- ]to)(?! securities)",
            r"debt (on|in) (the |its )?balance sheet",
            r"debt (level|load|burden|balance)s?",
            # A company's debt ("NVIDIA's debt"), and how it changed ("changes in debt and interest expense").
            r"[a-z][\w.&-]*['’]s (total )?debt(?![- ]to)(?! (securities|issuance|covenants?)\b)",
            r"changes? in (its |their |the )?debt\b(?![- ]to)(?! (securities|issuance|covenants?)\b)",
            r"indebtedness",
        ),
        "short-term borrowings + current portion of long-term debt + long-term debt",
        "amount",
        fallbacks=(
            "current portion of long-term debt + long-term debt",
            "short-term borrowings + long-term debt",
        ),
    ),
    Metric(
        "debt_to_equity",
        "debt-to-equity ratio",
        (r"debt[- ]to[- ]equity", r"d/e ratio"),
        "total liabilities / total shareholders' equity",
    ),
    Metric(
        "roa",
        "return on assets",
        (r"return on (total )?assets", r"\broa\b"),
        "net income / (average total assets between prior year and year)",
        "percent",
        needs_prior_year=True,
    ),
    Metric(
        "roe",
        "return on equity",
        (r"return on (shareholders'? |stockholders'? )?equity", r"\broe\b"),
        "net income / (average total shareholders' equity between prior year and year)",
        "percent",
        needs_prior_year=True,
    ),
    Metric(
        "asset_turnover",
        "asset turnover ratio",
        (r"(total )?asset turnover",),
        "revenue / (average total assets between prior year and year)",
        needs_prior_year=True,
    ),
    Metric(
        "fixed_asset_turnover",
        "fixed asset turnover ratio",
        (r"fixed asset turnover",),
        "revenue / (average property, plant and equipment between prior year and year)",
        needs_prior_year=True,
    ),
    Metric(
        "inventory_turnover",
        "inventory turnover ratio",
        (r"inventory turnover",),
        "cost of revenue / (average inventories between prior year and year)",
        needs_prior_year=True,
    ),
    Metric(
        "dpo",
        "days payable outstanding",
        (r"days payables? outstanding", r"\bdpo\b"),
        "365 * (average accounts payable between prior year and year) / (cost of revenue + change in inventories between prior year and year)",
        "days",
        needs_prior_year=True,
    ),
    Metric(
        "dso",
        "days sales outstanding",
        (r"days sales outstanding", r"\bdso\b"),
        "365 * (average accounts receivable between prior year and year) / revenue",
        "days",
        needs_prior_year=True,
    ),
    Metric(
        "dio",
        "days inventory outstanding",
        (r"days inventory outstanding", r"\bdio\b", r"days in inventory"),
        "365 * (average inventories between prior year and year) / cost of revenue",
        "days",
        needs_prior_year=True,
    ),
    Metric(
        "capex_to_revenue",
        "capital expenditure as a share of revenue",
        (
            r"cap(ital )?ex(penditures?)? (as a (%|percent(age)?) of|to|/|over) (total )?revenues?",
            r"capex/revenue",
            r"capital[- ]intensi(ve|ty)",
        ),
        "capital expenditure / revenue",
        "percent",
    ),
    Metric(
        "da_to_revenue",
        "depreciation and amortization as a share of revenue",
        (
            r"(d&a|depreciation (and|&) amortization) (margin|(as a (%|percent(age)?) of|to|/) (total )?revenues?)",
            r"(d&a|depreciation (and|&) amortization)\b[^.?]{0,40}?(%|percent(age)?) (margin|of (total )?revenues?)",
        ),
        "depreciation and amortization / revenue",
        "percent",
    ),
    Metric(
        "free_cash_flow",
        "free cash flow",
        (r"free cash ?flow(?! conversion)", r"\bfcf\b(?! conversion)"),
        "cash from operations - capital expenditure",
        "amount",
    ),
    Metric(
        "fcf_conversion",
        "free cash flow conversion",
        (r"(free cash ?flow|fcf) conversion",),
        "(cash from operations - capital expenditure) / net income",
        "percent",
    ),
    Metric(
        "dividend_payout",
        "dividend payout ratio",
        (r"(dividend )?payout ratio",),
        "dividends paid / net income",
        "percent",
    ),
    Metric(
        "interest_coverage",
        "interest coverage ratio",
        (r"interest coverage", r"times interest earned"),
        "operating income / interest expense",
    ),
    Metric(
        "ebitda",
        "EBITDA",
        (r"\bebitda\b(?! ?%? ?margin)",),
        "operating income + depreciation and amortization",
        "amount",
    ),
    Metric(
        "ebitda_margin",
        "EBITDA margin",
        (r"ebitda ?%? ?margin",),
        "(operating income + depreciation and amortization) / revenue",
        "percent",
    ),
]

_METRIC_RES = [(m, pattern_of([*m.aliases, re.escape(m.name)], closed=False)) for m in METRICS]


def metric_mentions(text: str) -> list[Mention[Metric]]:
    """Each metric `text` names, in order (a longer name beats one it contains)."""
    return scan(text, _METRIC_RES)


def metrics_in(text: str) -> list[Metric]:
    """Metrics a question names, in order of mention."""
    return list(dict.fromkeys(m.entry for m in metric_mentions(text)))
