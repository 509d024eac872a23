"""Read financial table rows out of filing text: label, values, the fiscal year of each value, unit.

Text extracted from PDFs lays tables out in many ways: one cell per line, a row per line, or values that
run on into the next row's label. The reader therefore treats a page as a stream of words and numbers: a
run of numbers that ends a line (or is followed by the next capitalised label) closes a row whose label is
the words just before it. Column periods come from the nearest year header above the row ("2019 2018
2017", "At December 31, 2019 At December 31, 2018"); values are tied to years only when their count
matches the header, because a guess would misstate a figure. Markdown tables (from HTML filings) are read
cell by cell.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, replace

from core.finance.vocabulary.statements import TITLE_RE, statement_kind, title_kind
from core.text.figures import Figure, find_figures
from core.text.markdown_table import is_table_line, table_lines
from core.text.periods import (
    YEAR,
    ColumnHeader,
    ColumnPeriod,
    FiscalCalendar,
    as_of_years,
    column_headers,
    column_periods,
    column_year,
    date_year,
    of_length,
    without_period,
)

# The unit opens a parenthesis or a line ("(In millions, except ...)", "Dollars in millions"), possibly after the
# one or two words it measures ("(net income in millions and shares in thousands)"), or follows a
# dollar sign anywhere ("Statements of Cash Flows $ in millions"); "shares in
# thousands" later in the same parenthesis is the unit of a count, not of the table's amounts.
_UNIT_RE = re.compile(
    r"\(\s*(?:\$|usd|us\$|dollars|amounts|dollar amounts|(?!shares\b)[a-z]+(?:\s+(?!shares\b)[a-z]+)?(?=\s+in\s))?"
    r"\s*(?:in\s+)?(?P<a>millions|thousands|billions)\b"
    r"|(?:(?:^|\n)[ \t]*(?:amounts |dollars )?|\$[ \t]+)in\s+(?P<b>millions|thousands|billions)\b",
    re.I,
)
_SCALE = {"thousands": 1e3, "millions": 1e6, "billions": 1e9}
# The unit of share counts where it differs from the amounts': "(In millions, except number of shares, which
# are reflected in thousands, ...)", "(in millions, shares in thousands)".
_SHARES_UNIT_RE = re.compile(r"\bshares\b[^)\n]{0,40}?\bin\s+(?P<u>millions|thousands|billions)\b", re.I)
#: A row that counts shares ("Shares used in computing earnings per share", "Weighted-average diluted shares",
#: "Effect of dilutive share-based awards").
_SHARE_COUNT_RE = re.compile(
    r"^shares\b|\bshares (?:used|outstanding|issued)\b|\bnumber of shares\b"
    r"|\bweighted[- ]average\b.*\bshares\b|\bdilutive\b.*\b(?:shares|awards|securities|options)\b",
    re.I,
)
#: A label has a word: two letters in a row, or an abbreviation ("U.S.", "U.K.").
_WORDY_RE = re.compile(r"[A-Za-z]{2}|\b[A-Za-z]\.[A-Za-z]\.")
_PAR_VALUE_RE = re.compile(r"\bpar value\b", re.I)
#: The clause of a label that names what a row goes into ("... excluded from diluted net income per share").
_FEEDS_RE = re.compile(r"\b(?:from|in comput\w*|in calculat\w*|used in)\b.*", re.I)
#: A column of per-share figures ("Weighted-Average Grant Date Fair Value Per RSU"); "(In millions, except
#: per share amounts)" makes no column per share.
_PER_SHARE_COLUMN_RE = re.compile(
    r"(?<!except )\bper\s+(?:common\s+|ordinary\s+)?(?:share|rsu|psu|unit|option|award)s?\b"
    # An award table's price columns are per share whether or not they say so ("Weighted Average Grant-Date
    # Fair Value", "Weighted Average Exercise Price").
    r"|\bweighted[- ]average\s+(?:grant[- ]date\s+)?(?:fair\s+value|exercise\s+price|purchase\s+price)\b",
    re.I,
)
_PER_SHARE_WORDS_RE = re.compile(r"\bper\s+(?:common\s+|ordinary\s+)?share\b", re.I)
_NUM_TOKEN = re.compile(r"^\(?-?\$?\(?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\)?%?\)?$")
_DASH_TOKEN = re.compile(r"^[—–-]{1,3}$")
_CONTINUES = re.compile(r"^[a-z(&,]")


@dataclass(frozen=True)
class FigureRow:
    """One table row: its label, its values (None for a dash), each value's fiscal year where known."""

    label: str
    values: tuple[Figure | None, ...]
    years: tuple[int | None, ...]
    start: int
    end: int
    text: str  # the row as it appears in the source, whitespace collapsed
    scale: float | None = None  # 1e6 when the table is "(in millions)"
    statement: str | None = None  # "income" | "balance" | "cash_flow" when under a statement title
    caption: str = ""
    group: str = ""  # the heading of the group of rows it belongs to ("Diluted earnings per share:")
    columns: tuple[str, ...] = ()  # each value's column header as printed, where the table gives one
    share_scale: float | None = None  # the unit of share counts when the table states one of its own
    # Each value's own unit where the table states units per column: (scale, per share) of its header cell.
    column_units: tuple[tuple[float | None, bool], ...] = ()
    # Each value's period where the header says it: three or six months, or a balance; the date it ends.
    periods: tuple[ColumnPeriod, ...] = ()
    # Each value that is a dash printed as a percentage ("—%"): nothing reported, in a column of percentages.
    percent_dashes: tuple[bool, ...] = ()

    def months_of(self, k: int) -> int | None:
        """The length in months of column `k`'s period (None: a balance, or the header does not say)."""
        return self.periods[k].months if k < len(self.periods) else None

    @property
    def share_count(self) -> bool:
        """A count of shares ("Shares used in computing earnings per share: Basic"), not a per-share figure.
        A label stating a par value is the stock's amount, whatever shares it describes ("Common stock, $0.00001
        par value: 50,400,000 shares authorized; 15,550,061 shares issued and outstanding")."""
        if _PAR_VALUE_RE.search(self.label):
            return False
        return any(_SHARE_COUNT_RE.search(text) for text in (self.group, self.label))

    @property
    def per_share(self) -> bool:
        """A per-share figure (earnings or dividends per share), not an amount of the line item. A note in
        brackets ("Cash dividends declared ($0.16 per common share)") does not make the amount per share."""
        if self.share_count:
            return False
        # "Equity awards excluded from diluted net income per share": what the row feeds, not what it is; such
        # a label says its own unit, whatever heading it sits under ("Net income per share").
        feeds = _FEEDS_RE.search(self.label)
        if feeds and _PER_SHARE_WORDS_RE.search(feeds.group()):
            return False
        plain = " ".join(_FEEDS_RE.sub(" ", re.sub(r"\([^)]*\)", " ", t)) for t in (self.group, self.label))
        squashed = re.sub(r"\s+", "", plain).lower()
        # "(in millions, except per share amounts)" heads a whole statement; it makes no row per-share.
        return bool(re.search(r"(?<!except)per(common|ordinary|diluted|basic)?share", squashed))

    @property
    def unit_scale(self) -> float | None:
        """The scale of the row's values: the share counts' own unit for a count of shares, else the table's."""
        if self.share_count and self.share_scale is not None:
            return self.share_scale
        return self.scale

    def value_for(self, year: int, months: int | None = None) -> Figure | None:
        """The value printed in `year`'s column (None when the row has no such column or it is blank).
        Columns of the same year that cover periods of different lengths (a quarter and the year to date)
        are told apart by `months`: the length asked for, else the shortest. When several columns share the
        year otherwise (a block of segment columns under one year), the one headed "Total"; without one the
        period does not say which value is meant, so none."""
        column = self.column_for(year, months)
        return None if column is None else self.values[column]

    def column_for(self, year: int, months: int | None = None) -> int | None:
        """Which column `value_for` reads (None: none); `months_of` it says how long a period it covers."""
        found = [k for k, y in enumerate(self.years) if y == year]
        found = [found[n] for n in of_length([self.months_of(k) for k in found], months)]
        if len(found) > 1:
            totals = [
                k for k in found if k < len(self.columns) and re.match(r"total\b", self.columns[k], re.I)
            ]
            found = totals if len(totals) == 1 else []
        return found[0] if found else None


def _tokens(text: str) -> list[tuple[str, int, int]]:
    out = []
    for m in re.finditer(r"[^\s|]+", text):
        token = m.group()
        # "(expense)(665" and "income(1)" glue words and figures together: split them.
        parts = re.split(r"(?<=[A-Za-z)])(?=\(\d)|(?<=\))(?=\()", token)
        pos = m.start()
        for part in parts:
            out.append((part, pos, pos + len(part)))
            pos += len(part)
    return out


def _merge_cells(tokens: list[tuple[str, int, int]]) -> list[tuple[str, int, int, str]]:
    """Tokens classified as NUM / DASH / WORD, with '$' and a detached ')' folded into their figure."""
    merged: list[tuple[str, int, int, str]] = []
    i = 0
    while i < len(tokens):
        cell, start, end = tokens[i]
        if cell in ("$", "(", "($") and i + 1 < len(tokens) and _NUM_TOKEN.match(tokens[i + 1][0]):
            nxt = tokens[i + 1]
            cell, end = (cell if cell != "$" else "") + nxt[0], nxt[2]
            i += 1
        if cell in (")", "%") and merged and merged[-1][3] == "NUM":
            prev = merged.pop()
            merged.append((prev[0] + cell, prev[1], end, "NUM"))
            i += 1
            continue
        if cell.endswith(",") and _NUM_TOKEN.match(cell[:-1]):
            kind = "NUMC"  # "31," of a date, "$190," of prose
        elif _NUM_TOKEN.match(cell):
            kind = "NUM"
        elif _DASH_TOKEN.match(cell):
            kind = "DASH"
        else:
            kind = "WORD"
        merged.append((cell, start, end, kind))
        i += 1
    return merged


def _figure(token: str) -> Figure | None:
    figures = find_figures(token.replace(" ", ""), include_years=True)
    return figures[0] if figures else None


def _scale_before(text: str, pos: int) -> float | None:
    found = None
    for m in _UNIT_RE.finditer(text, 0, pos):
        found = _SCALE[(m.group("a") or m.group("b")).lower()]
    return found


def _share_scale_before(text: str, pos: int) -> float | None:
    """The unit of share counts stated by the last unit line before `pos` ("... shares in thousands")."""
    last = None
    for m in _UNIT_RE.finditer(text, 0, pos):
        last = m
    if last is None:
        return None
    found = _SHARES_UNIT_RE.search(text, last.start(), min(len(text), last.end() + 120))
    return _SCALE[found.group("u").lower()] if found else None


def _statement_before(text: str, pos: int) -> tuple[str | None, str]:
    """The primary statement whose title (a line that starts with it) last precedes `pos`; a mention of a
    statement inside a sentence ("included in the statements of income") titles nothing."""
    found: tuple[str | None, str] = (None, "")
    for m in TITLE_RE.finditer(text, 0, pos):
        title = m.group("title")
        found = (title_kind(title), " ".join(title.split()))
    return found


def _header_before(headers: list[ColumnHeader], pos: int) -> ColumnHeader | None:
    best = None
    for header in headers:
        if header.end <= pos:
            best = header
    return best


#: How far above its years a header's words about the periods may start ("Three Months Ended ... April 1,").
_HEADER_WORDS_CHARS = 240


def _header_text(text: str, header: ColumnHeader | None, rows: list[FigureRow], offset: int) -> str:
    """The words heading a table's columns: its years and the text just above them, back to the row before."""
    if header is None:
        return ""
    above = next((row.end - offset for row in reversed(rows) if row.end - offset <= header.start), 0)
    return text[max(header.start - _HEADER_WORDS_CHARS, above, 0) : header.end]


def _years_for(values: list[Figure | None], header: ColumnHeader | None) -> tuple[int | None, ...]:
    if header is None:
        return tuple(None for _ in values)
    n = len(header.years)
    if len(values) == n:
        return header.years
    # Extra trailing columns of percentages ("% change") follow the period columns.
    if len(values) > n and all(v is not None and v.is_percent for v in values[n:]):
        return (*header.years, *(None for _ in values[n:]))
    return tuple(None for _ in values)


def _label(words: list[tuple[str, int, int, str]], text: str) -> tuple[str, int, str]:
    """The row label (the last line of words, joined with earlier lines it continues), where it starts, and
    the line of words before it, which heads a group of rows ("Earnings per share:")."""
    if not words:
        return "", -1, ""
    lines: list[list[tuple[str, int, int, str]]] = [[words[0]]]
    for prev, cur in itertools.pairwise(words):
        if "\n" in text[prev[2] : cur[1]]:
            lines.append([cur])
        else:
            lines[-1].append(cur)
    chosen = [lines[-1]]
    for line in reversed(lines[:-1]):
        if len(chosen) >= 3 or not _CONTINUES.match(chosen[0][0][0]):
            break
        chosen.insert(0, line)
    flat = [w for line in chosen for w in line]
    heading = " ".join(w[0] for w in (lines[-len(chosen) - 1] if len(lines) > len(chosen) else []))
    # "Adjustments to reconcile net income ...: Depreciation and amortization": a heading ending in a
    # colon, run together with the row's label by the extraction; the label is what follows it.
    for k, word in enumerate(flat[:-1]):
        if word[0].endswith(":") and any(c.isalpha() for w in flat[k + 1 :] for c in w[0]):
            heading = " ".join(w[0] for w in flat[: k + 1])
            flat = flat[k + 1 :]
            break
    return " ".join(w[0] for w in flat), flat[0][1], heading


def _stream_rows(text: str, offset: int = 0) -> list[FigureRow]:
    headers = column_headers(text)
    masked = [(h.start, h.end) for h in headers]
    cells = [c for c in _merge_cells(_tokens(text)) if not any(s <= c[1] < e for s, e in masked)]
    rows: list[FigureRow] = []
    words: list[tuple[str, int, int, str]] = []
    group = ""  # the heading over the current group of rows
    i = 0
    while i < len(cells):
        if cells[i][3] == "WORD":
            words.append(cells[i])
            i += 1
            continue
        j = i
        while j < len(cells) and cells[j][3] in ("NUM", "DASH", "NUMC"):
            j += 1
        run = cells[i:j]
        after = cells[j] if j < len(cells) else None
        ends_line = (
            after is None or "\n" in text[run[-1][2] : after[1]] or bool(re.match(r"[A-Z(]", after[0]))
        )
        header_between = any(run[-1][2] <= h.start and (after is None or h.end <= after[1]) for h in headers)
        is_row = (
            (ends_line or header_between)
            and words
            and all(c[3] != "NUMC" for c in run)
            and any(c[3] == "NUM" for c in run)
        )
        if not is_row:
            words.extend(run)  # numbers inside prose or a label ("net of allowances of $132 and $190")
            i = j
            continue
        label, label_start, heading = _label(words, text)
        if heading:
            group = heading
        values = [None if c[3] == "DASH" else _figure(c[0]) for c in run]
        if label and _WORDY_RE.search(label) and len(label) <= 300:
            start, end = label_start, run[-1][2]
            statement, caption = _statement_before(text, start)
            header = _header_before(headers, start)
            years = _years_for(values, header)
            rows.append(
                FigureRow(
                    label=label.strip(" :"),
                    values=tuple(values),
                    years=years,
                    periods=column_periods(_header_text(text, header, rows, offset), years),
                    start=offset + start,
                    end=offset + end,
                    text=" ".join(text[start:end].split()),
                    scale=_scale_before(text, start),
                    statement=statement,
                    caption=caption,
                    group=group,
                    share_scale=_share_scale_before(text, start),
                )
            )
        words = []
        i = j
    return rows


def _year_groups(header_years: list[int | None], header: list[str]) -> list[int | None]:
    """Each header cell's period when every year heads a group of as many columns holding the same things,
    up to the next year ("January 29, 2023 Gross | | Accumulated | Net | January 30, 2022 Gross | |
    Accumulated | Net"); columns after the last group ("$ Change", "% Change") have none. Groups of unequal
    width or of different columns ("Jan 28, 2024 | | Jan 29, 2023 | $ Change") say the header's cells do not
    line up with the values' (merged cells): then no period at all."""
    at = [k for k, year in enumerate(header_years) if year is not None]
    if len(at) < 2:
        return header_years
    widths = {b - a for a, b in itertools.pairwise(at)}
    width = widths.pop()
    if widths or len(header_years) - at[-1] < width:
        return [None for _ in header_years]
    if width > 1:
        held = [re.sub(r"\([^)]*\)", " ", without_period(cell)).strip() for cell in header]
        held += [""] * (len(header_years) - len(held))
        if len({tuple(held[a : a + width]) for a in at}) != 1:
            return [None for _ in header_years]
    end = at[-1] + width
    return [header_years[at[0] + (k - at[0]) // width * width] if at[0] <= k < end else None
            for k in range(len(header_years))]  # fmt: skip


#: A header of periods that run over time ("Year Ended", "Three Months Ended"), not balances at dates.
_DURATION_HEADER_RE = re.compile(r"\b(?:years?|months?|weeks?|quarters?)\s+end(?:ed|ing)\b", re.I)


def _leading_columns_dated(years: tuple[int | None, ...], header: str) -> tuple[int | None, ...]:
    """Columns before a table's first balance date describe each row as it stands at the latest date: a
    debt table's "Expected Remaining Term" and "Effective Interest Rate" beside the notes' carrying amounts
    "Jan 29, 2023 | Jan 30, 2022". Not in a table of periods over time, whose other columns may be anything."""
    first = next((k for k, year in enumerate(years) if year is not None), None)
    if not first or _DURATION_HEADER_RE.search(header):
        return years
    latest = max(year for year in years if year is not None)
    return tuple(latest if k < first else year for k, year in enumerate(years))


def _is_dash_cell(cell: str) -> bool:
    """A cell printing a dash for nothing reported: "—", "$ —", "—%"."""
    return bool(_DASH_TOKEN.match(re.sub(r"[$%\s()]", "", cell)))


def _amount_percent_groups(cells: list[str], periods: list[int]) -> tuple[int, ...] | None:
    """Each value cell's period when the row prints as many cells for every period, an amount and a
    percentage in the same order under each ("$ 878 | 21.0% | $ 2,088 | 21.0%", "— | —%" under "2023 |
    2022"): the layout of a rate reconciliation or a table with "% of revenue". None for any other row
    (cells all of one kind do not say how they group)."""
    n = len(periods)
    if n < 2 or len(cells) <= n or len(cells) % n:
        return None
    width = len(cells) // n
    kinds = [tuple("%" in cell for cell in cells[k : k + width]) for k in range(0, len(cells), width)]
    if len(set(kinds)) != 1 or len(set(kinds[0])) != 2:
        return None
    return tuple(year for year in periods for _ in range(width))


def _column_units(header: list[str]) -> list[tuple[float | None, bool]]:
    """Each header cell's own unit, (scale, per share), when the header states different units for different
    columns ("Number of RSUs (in thousands) | Weighted-Average Grant Date Fair Value Per RSU | Aggregate Fair
    Value (in millions)"); empty when it states one unit or none (the table's unit then holds)."""
    units: list[tuple[float | None, bool]] = []
    for cell in header:
        m = _UNIT_RE.search(cell)
        scale = _SCALE[(m.group("a") or m.group("b")).lower()] if m else None
        units.append((scale, bool(_PER_SHARE_COLUMN_RE.search(cell))))
    stated = {unit for unit in units if unit != (None, False)}
    return units if len(stated) > 1 else []


def _line_above(text: str, start: int) -> str:
    """The line of text just above a table that starts at `start` ("" when another table's row is)."""
    above = text[:start].rstrip().rpartition("\n")[2].strip()
    return "" if is_table_line(above) else above


def _table_date(above: str) -> int | None:
    """The year of the one date the line above a table states it at ("Lease liability maturities as of
    September 30, 2023, are as follows (in millions):"); None when it states none or several."""
    years = as_of_years(above)
    return years[0] if len(years) == 1 else None  # two dates: which column is which is not said


def _cell_year(cell: str) -> int | None:
    m = re.search(rf"(?<!\d)({YEAR})(?!\d)", cell)
    return int(m.group(1)) if m else None


def _group_total_label(heading: str, members: list[tuple[Figure | None, ...]], values: tuple) -> str | None:
    """'Total revenues' for an unlabelled row that sums the rows under a heading row ("Revenues"): statements
    print a group's total without a label. None unless every column adds up (to within rounding)."""
    if not heading or len(members) < 2 or any(len(m) != len(values) for m in members):
        return None
    for column, total in enumerate(values):
        parts = [m[column] for m in members]
        if total is None or any(p is None or p.is_percent for p in parts):
            return None
        added = sum(p.value for p in parts)  # type: ignore[union-attr]
        if abs(added - total.value) > max(len(parts), 1e-6 * abs(total.value)):
            return None
    name = heading.strip(" :")
    return name if name.lower().startswith("total") else f"Total {name[:1].lower()}{name[1:]}"


#: A row that closes the group of rows above it: a total, or a statement's subtotal ("Net cash provided by
#: operating activities", "Net increase in cash").
_ENDS_GROUP_RE = re.compile(r"(?:total|net cash|net (?:increase|decrease|change) in)\b", re.I)


_CONTINUED_RE = re.compile(
    r"\bcontinued\b|^\(?\s*(?:in|\$ in|dollars in)\s+(?:millions|thousands|billions)", re.I
)


def _own_context(caption: str) -> bool:
    """A table whose own caption is not a statement's title (nor a "(continued)" or unit line) is a table of
    its own: a statement titled further up does not reach it."""
    return bool(caption) and statement_kind(caption) is None and not _CONTINUED_RE.search(caption)


def _markdown_rows(text: str) -> list[FigureRow]:
    rows: list[FigureRow] = []
    parts: list[int] = []  # each row's table: a new header starts one, a repeated caption and header not
    part = 0
    header_years: list[int | None] = []
    heading = ""  # the last labelled row without figures ("Revenues"), which heads the rows after it
    members: list[tuple[Figure | None, ...]] = []  # the figures of the rows under it
    table = -1
    header_cells: list[str] = []  # the row above the |---| line
    block_year: int | None = None  # a year heading a block of rows ("| 2021 | | |"): the rows' period
    table_year: int | None = None  # the one date the line above the table states it at ("as of ...")
    last_header: tuple[str, tuple[str, ...]] | None = None  # the caption and header of the table before
    table_title = ""  # the line just above the table's header
    header_units: list[
        tuple[float | None, bool]
    ] = []  # each header cell's own unit, when units are per column
    header_text = ""  # the table's header rows as printed (periods' lengths and dates)
    for line in table_lines(text):
        if line.table != table:
            table, header_years, header_cells, header_units = line.table, [], [], []
            header_text = ""
            if not line.above_separator:
                block_year, table_year, last_header, table_title = None, None, None, ""
                part += 1
        if line.above_separator:
            if (line.caption, line.cells) != last_header:
                # A new header starts a new table, even printed right under another; a part of a long
                # table repeats its caption and header and continues the block of rows it was in.
                table_title = _line_above(text, line.start)
                block_year, table_year = None, _table_date(table_title)
                heading, members = "", []  # a heading of the table above heads none of these rows
                part += 1
            last_header = (line.caption, line.cells)
            header_cells, header_years = list(line.cells), []
            header_text = line.line
            header_units = _column_units(header_cells)
        cells = list(line.cells)
        periods = [cell for cell in cells[1:] if cell]
        if line.above_separator and periods and all(_cell_year(cell) is not None for cell in periods):
            # The header row above the |---| line names periods, even as bare years ("2018 | 2017").
            header_years = [_cell_year(cell) for cell in cells]
            continue
        dated_cells = [column_year(cell) for cell in cells[1:]]
        named = [y for y in dated_cells if y is not None]
        if line.above_separator and len(named) > 1 and len(set(named)) == len(named):
            # Periods beside categories ("Financial Statement Line Items | 2023 | 2022", "January 29, 2023
            # Amortized Cost | Estimated Fair Value | January 30, 2022 Amortized Cost | ...").
            header_years = [None, *dated_cells]
            continue
        if line.above_separator and len(periods) > 1:
            named = {_cell_year(cell) for cell in periods} - {None}
            if len(named) == 1 and sum(_cell_year(cell) is not None for cell in periods) == 1:
                # One year over columns that are categories ("2023 Adjusted Cost | Unrealized Gains | Fair
                # Value"): the year is the whole table's period, like a year heading a block of rows.
                header_years, block_year = [], named.pop()
                continue
        numeric = [
            k for k, c in enumerate(cells) if k > 0 and _NUM_TOKEN.match(c.replace("$", "").replace(" ", ""))
        ]
        if numeric:
            # A dash is a cell of the row too (nothing reported): kept, the values line up with their columns.
            numeric = [k for k, c in enumerate(cells) if k > 0 and (k in numeric or _is_dash_cell(c))]
        if not numeric:
            # A row of periods over the columns; a year a column's category names is none ("Notes due 2025").
            years = [_cell_year(cells[0]), *(column_year(cell) for cell in cells[1:])]
            if years[0] is not None and not any(years[1:]) and not any(_cell_year(c) for c in header_cells):
                block_year = years[0]  # the year heads the rows below it; the columns are not periods
            elif any(years[1:]):
                header_years = years
                header_text += f" {line.line}"
            elif _WORDY_RE.search(cells[0]):
                # A heading, even one naming years under a header of periods ("2013 – 2023 debt issuances:").
                heading, members = cells[0], []
            continue
        label = cells[0]
        values = tuple(_figure(cells[k].replace(" ", "")) for k in numeric)
        # A row labelled by a bare year in a table stated at one date is a year of a schedule ("2025 |
        # 17,316": payments due in 2025 as of the table's date); its value is dated by the table, never by
        # the label. A year not after the table's date may be the row's own period (a table of years
        # by row), so its values stay without a period.
        year_row = re.fullmatch(YEAR, label) is not None
        schedule_year = (
            table_year if year_row and table_year is not None and int(label) > table_year else None
        )
        if year_row:
            pass
        elif not _WORDY_RE.search(label):
            # Only a blank label can be a group's total; a row labelled "(1)" stays unread.
            total = None if label else _group_total_label(heading, members, values)
            heading, members = "", []
            if total is None:
                continue
            label = total
        else:
            members.append(values)
        in_header = [y for y in header_years if y is not None]
        columns = tuple(header_cells[k] if k < len(header_cells) else "" for k in numeric)
        dated = date_year(label) if not in_header else None
        if len(in_header) == len(numeric):
            # Currency signs and blanks sit in cells of their own in some tables: match values to the
            # header's periods in order when their counts agree.
            years = tuple(in_header)
        elif block_year is not None:
            years = tuple(block_year for _ in numeric)
        elif dated is not None:
            # Columns that are not periods, in a row that names its date ("Balances, January 29, 2023").
            years = tuple(dated for _ in numeric)
        elif year_row and not in_header:
            years = tuple(schedule_year for _ in numeric)
        elif not in_header and table_year is not None:
            # Columns that are not periods, in a table stated at one date ("Lease liability maturities as
            # of September 30, 2023, are as follows").
            years = tuple(table_year for _ in numeric)
        elif (grouped := _amount_percent_groups([cells[k] for k in numeric], in_header)) is not None:
            years = grouped
        else:
            spread = _year_groups(header_years, header_cells)
            years = _leading_columns_dated(
                tuple(spread[k] if k < len(spread) else None for k in numeric), header_text
            )
        own_date = date_year(label)
        if own_date is not None and years and len(set(years)) == 1 and years[0] not in (None, own_date):
            # One period column, in a row that names its own date ("Carrying amount as of Jan 29, 2023"
            # under "Year Ended Jan 28, 2024": the opening balance is the balance at that date).
            years = tuple(own_date for _ in numeric)
        statement, caption = (None, "") if _own_context(line.caption) else _statement_before(text, line.start)
        rows.append(
            FigureRow(
                label=label,
                values=values,
                years=years,
                start=line.start,
                end=line.end,
                text=line.line,
                scale=_scale_before(text, line.start),
                share_scale=_share_scale_before(text, line.start),
                statement=statement,
                caption=caption or line.caption,
                # A statement's subtotal sums its section, not the group of rows just above it.
                group=(heading or line.caption or table_title[:120])
                if year_row
                else heading
                if members and not re.match(r"net (?:cash|increase|decrease|change)\b", label, re.I)
                else "",
                columns=columns,
                periods=column_periods(
                    " ".join(dict.fromkeys(t for t in (line.caption, table_title, header_text) if t)), years
                ),
                column_units=tuple(
                    header_units[k] if k < len(header_units) else (None, False) for k in numeric
                )
                if header_units
                else (),
                percent_dashes=tuple(_is_dash_cell(cells[k]) and "%" in cells[k] for k in numeric),
            )
        )
        parts.append(part)
        if _ENDS_GROUP_RE.match(label):
            heading, members = "", []  # a group's total ends the group
    return _roll_forward(rows, parts)


def _roll_forward(rows: list[FigureRow], parts: list[int]) -> list[FigureRow]:
    """A roll-forward without period columns (a statement of equity, an award activity table) dates its
    balances in their labels ("Balances, January 30, 2022"); the rows between two dated balances of the same
    table are the activity of the period that ends at the second one, so they take its year. So do the rows
    a table opens with before its first dated balance (a statement continued from the page before: the
    activity printed above a closing balance is that period's). `parts` gives each row's table (a part
    repeating its table's caption and header continues it)."""
    out = list(rows)
    pending: list[int] = []  # rows without a year since the last dated balance of the table
    opened = False  # a dated balance of this table came before them
    first = True  # no row of this table had a year yet
    part = None
    for index, row in enumerate(rows):
        if parts[index] != part:
            pending, opened, first, part = [], False, True, parts[index]
        dated = date_year(row.label)
        if any(row.years):
            if dated is not None and dated in row.years and len(set(row.years)) == 1:
                if opened or first:
                    for k in pending:
                        out[k] = replace(rows[k], years=tuple(dated for _ in rows[k].years))
                pending, opened = [], True
            else:
                pending, opened = [], False
            first = False
        else:
            pending.append(index)
    return out


def in_fiscal_years(rows: list[FigureRow], calendar: FiscalCalendar | None) -> list[FigureRow]:
    """`rows` with each column's year read in the company's fiscal calendar: a quarterly report prints the
    calendar year its columns end in (Apple's quarter ended December 31, 2022 is fiscal 2023, the September
    24, 2022 balance beside it fiscal 2022). A report on a whole year keeps the years its statements print,
    which are the names the company gives its fiscal years."""
    if calendar is None or calendar.quarter is None:
        return rows
    out = []
    for row in rows:
        ends = [row.periods[k].end if k < len(row.periods) else None for k in range(len(row.years))]
        years = tuple(calendar.column_year(year, end) for year, end in zip(row.years, ends, strict=True))
        out.append(replace(row, years=years))
    return out


def read_rows(text: str, scale: float | None = None) -> list[FigureRow]:
    """Every labelled row of figures in `text` (a page or a passage), in order. `scale` is the unit in force
    where the text begins (a table continued from the page before), for rows no unit line of `text` precedes."""
    rows = (
        _markdown_rows(text) if any(is_table_line(line) for line in text.splitlines()) else _stream_rows(text)
    )
    if scale is None:
        return rows
    return [row if row.scale is not None else replace(row, scale=scale) for row in rows]


def scale_at_end(text: str) -> float | None:
    """The unit in force at the end of `text` (the last unit line in it), None when it states none."""
    return _scale_before(text, len(text))


@dataclass(frozen=True)
class RenderedRow:
    """A Markdown table row as a reader shows it: 'caption — label: v1 (header1); v2 (header2)'."""

    label: str
    line: str  # the row as written
    rendered: str
    values: tuple[str, ...] = ()  # the cells after the label, as printed
    caption: str = ""
    years: tuple[int | None, ...] = ()  # each value's year, when the header lines up with the values


def rendered_rows(text: str) -> list[RenderedRow]:
    """Data rows of the Markdown tables in `text` with a text label and at least one figure, each value
    named by its header cell when header and values line up one to one (a guess would misstate figures)."""
    rows: list[RenderedRow] = []
    for line in table_lines(text):
        label = line.label
        values = [c for c in line.cells[1:] if c]
        if line.is_header or not label or not line.numeric or not re.search(r"[A-Za-z]", label):
            continue
        header = [c for c in line.header if c]
        years: tuple[int | None, ...] = ()
        if header and len(header) == len(values):
            parts = [f"{v} ({h})" for v, h in zip(values, header, strict=True)]
            years = tuple(_cell_year(h) for h in header)
        else:
            parts = values
        name = f"{line.caption} — {label}" if line.caption else label
        rows.append(
            RenderedRow(
                label=label,
                line=line.line,
                rendered=f"{name}: " + "; ".join(parts),
                values=tuple(values),
                caption=line.caption,
                years=years,
            )
        )
    return rows


def cited_rows(text: str) -> list[tuple[str, str, str, str]]:
    """(claim, key, label, caption) of each row of figures in a passage, as a knowledge card cites it: a PDF
    table's line as printed (in a passage without Markdown tables), a Markdown table's row as rendered. The
    key is the same for the same row printed in two tables (segment note and MD&A)."""
    pdf_rows = read_rows(text) if "|" not in text else []
    rows = [(r.text, r.text, r.label, r.caption) for r in pdf_rows if len(r.text) <= 300]
    return rows + [
        (r.rendered, f"{r.label.lower()}|{'|'.join(r.values)}", r.label, r.caption)
        for r in rendered_rows(text)
    ]


#: A word among a row's figures: prose that reads like a row ("… increased $202.0 million, or 14%, in 2021").
_WORD_AFTER_LABEL_RE = re.compile(r"[A-Za-z]{3,}")


def prose_after_table(sentence: str) -> str:
    """A sentence of a PDF page whose table ran into it ("Comparison of Years Ended … Revenue $ 3,208,323
    $ 2,364,681 … 36 % (35) % Revenue increased $843.6 million …"): the sentence after the table's last row,
    for quoting it as an answer; the sentence as it is when no row of figures alone precedes a whole one."""
    rows = [r for r in read_rows(sentence) if not _WORD_AFTER_LABEL_RE.search(r.text[len(r.label) :])]
    # A table row prints a figure per period; a single number in a sentence is its own ("Pfizer Inc., 235
    # East 42nd Street").
    if not rows or len(rows[-1].values) < 2:
        return sentence
    tail = sentence[rows[-1].end :].strip()
    return tail if tail[:1].isupper() and len(tail.split()) >= 7 else sentence
