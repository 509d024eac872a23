"""Short labels for tables and graphs."""

from __future__ import annotations

from core.report.labels import clip


def test_clip_keeps_short_text_and_cuts_long_text_after_a_whole_word() -> None:
    assert clip("Net  sales\nrose") == "Net sales rose"
    text = "Purchases of property, plant and equipment rose in fiscal 2023 as new plants opened"
    cut = clip(text, 40)
    assert len(cut) <= 40 and cut.endswith("…")
    assert cut == "Purchases of property, plant and…"
    assert clip("x" * 50, 10) == "x" * 9 + "…", "one long word is cut where it must be"
