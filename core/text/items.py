"""How a filing's Items are numbered in text ("Item 7", "Item 1A", "item 7a")."""

import re

#: How an Item's number is written ("7", "7A", "7a"): every pattern for Items (headings, references in
#: questions, plan steps, search tokens) is built from it.
ITEM_NUMBER = r"\d{1,2}[A-Ca-c]?"
#: "Item 7", "item 1a" named in a text (group 1: the number).
ITEM_REF_RE = re.compile(rf"\bitem\s+({ITEM_NUMBER})\b", re.IGNORECASE)
