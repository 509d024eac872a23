"""Search scope: which (filings, Item) slices to search, and how the Item filter was widened."""

from __future__ import annotations

from dataclasses import dataclass, field

from core.index.catalog import Catalog
from core.models import section_in_form

#: (filing ids or None for every filing, section or None for every section)
ScopePart = tuple[list[str] | None, str | None]


@dataclass
class SearchScope:
    """Slices searched together (merged by score), plus whole filings to fill from when too few."""

    parts: list[ScopePart]
    fill: ScopePart | None = None
    widened: bool = False
    notes: list[str] = field(default_factory=list)

    @property
    def note(self) -> str | None:
        return " ".join(self.notes) or None


def resolve_scope(catalog: Catalog, filings: list[str] | None, section: str | None, k: int) -> SearchScope:
    """Apply the Item filter where it can work; widen to whole filings where it cannot, and say why."""
    filings = list(dict.fromkeys(filings)) if filings else None
    if not section:
        return SearchScope(parts=[(filings, None)])
    known = {f.filing_id: f for f in catalog.list_filings()}
    targets = [f for f in filings if f in known] if filings else list(known)
    if not targets:
        return SearchScope(parts=[(filings, section)])
    # Each filing's own name for the section: a 10-K's Item 7 is a 10-Q's Part I Item 2.
    own = {fid: section_in_form(section, known[fid].form) for fid in targets}
    counts = {fid: known[fid].sections.get(own[fid], 0) if own[fid] else 0 for fid in targets}
    with_section = [fid for fid in targets if counts[fid] > 0]
    without = [fid for fid in targets if counts[fid] == 0]
    scope = SearchScope(parts=[])
    if not with_section:
        scope.parts.append((filings, None))
        scope.widened = True
        scope.notes.append(
            f"No passage is labelled {section} in {_labels(known, targets)} (its Items may not have been "
            f"detected), so the whole filing{'s were' if len(targets) > 1 else ' was'} searched instead."
        )
        return scope
    by_name: dict[str, list[str]] = {}
    for fid in with_section:
        by_name.setdefault(own[fid] or section, []).append(fid)
    if not without and list(by_name) == [section]:
        # Every target has the Item under its name: keep the caller's filter (None = all filings).
        scope.parts.append((filings, section))
    else:
        scope.parts.extend((ids, name) for name, ids in by_name.items())
    if without:
        scope.parts.append((without, None))
        scope.widened = True
        undetected = [fid for fid in without if own[fid]]
        if undetected:
            scope.notes.append(
                f"No passage is labelled {section} in {_labels(known, undetected)} (its Items may not have "
                "been detected), so that filing was searched whole."
            )
        if no_such := [fid for fid in without if not own[fid]]:
            scope.notes.append(
                f"{_labels(known, no_such)} has no section for what a 10-K keeps in {section}, so it was "
                "searched whole."
            )
    total = sum(counts[fid] for fid in with_section)
    if total < k:
        scope.fill = (filings, None)
        scope.widened = True
        other_names = [name for name in by_name if name != section]
        where = f"{section} (as {', '.join(other_names)})" if other_names else section
        scope.notes.append(
            f"{where} holds only {total} passage{'s' if total != 1 else ''} in the selected filing(s), "
            f"fewer than the {k} requested, so the remaining candidates come from the whole filing(s); "
            f"passages from {section} are still kept first."
        )
    return scope


def _labels(known: dict, filing_ids: list[str]) -> str:
    names = [known[fid].label for fid in filing_ids[:3]]
    more = f" and {len(filing_ids) - 3} more" if len(filing_ids) > 3 else ""
    return ", ".join(names) + more
