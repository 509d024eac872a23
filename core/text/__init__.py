"""Text helpers every layer uses: sentences and terms, figures in prose, escaping document text for display."""
