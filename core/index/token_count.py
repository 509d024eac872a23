"""Token counts for chunking, word by word where the tokenizer allows it."""

from __future__ import annotations

import json
import re
import threading

#: Characters every BERT tokenizer splits words at (its normalizer keeps them as spaces, its pre-tokenizer
#: splits there); splitting at fewer characters than the tokenizer does never changes a count.
_WORD_SEPARATORS = re.compile(r"[ \t\n\r]+")
#: Distinct words whose counts are kept before the memo starts over (a filing has tens of thousands).
_WORD_MEMO_LIMIT = 500_000


class TokenCounter:
    """Counts a text's tokens without special tokens, word by word when that is exact.

    Chunking a filing counts many overlapping slices of the same text (a 160-page 10-K: about 3.5 million
    characters in 7,000 counts, 4 s of tokenizing). A BERT WordPiece tokenizer cuts text into words at
    whitespace before anything else, so a text's count is the sum of its words' counts: each distinct word
    is tokenized once and remembered. Any other tokenizer counts the whole text every time."""

    def __init__(self, tokenizer) -> None:
        self._tokenizer = tokenizer
        config = json.loads(tokenizer.to_str())
        self._by_word = (
            (config.get("normalizer") or {}).get("type") == "BertNormalizer"
            and (config.get("pre_tokenizer") or {}).get("type") == "BertPreTokenizer"
            and (config.get("model") or {}).get("type") == "WordPiece"
        )
        self._words: dict[str, int] = {}
        self._lock = threading.Lock()

    def __call__(self, text: str) -> int:
        if not self._by_word:
            return len(self._tokenizer.encode(text, add_special_tokens=False).ids)
        words = [w for w in _WORD_SEPARATORS.split(text) if w]
        known = self._words
        counts: dict[str, int] = {}
        unseen: list[str] = []
        for word in set(words):
            count = known.get(word)
            if count is None:
                unseen.append(word)
            else:
                counts[word] = count
        if unseen:
            fresh = [len(e.ids) for e in self._tokenizer.encode_batch(unseen, add_special_tokens=False)]
            counts.update(zip(unseen, fresh, strict=True))
            with self._lock:
                if len(self._words) + len(unseen) > _WORD_MEMO_LIMIT:
                    self._words = {}
                self._words.update(zip(unseen, fresh, strict=True))
        return sum(counts[w] for w in words)
