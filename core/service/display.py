"""What pages need to show runs and reports, in one place: pages import the service and the models only.

Each helper lives with its kind (escaping in core.text, rendering and exports in core.report, metric names in
core.evaluation); this module is the page-facing door to them.
"""

from core.evaluation.metrics import KEY_METRICS
from core.report.answer_markup import Run
from core.report.charts import (
    evidence_coverage_figure,
    node_timing_figure,
    rerank_score_figure,
    strategy_mix_figure,
)
from core.report.evidence_graph import evidence_graph_html
from core.report.export import EXPORT_MIME, ExportFormat, export_filename, export_report
from core.report.labels import citation_place, library_row, safe_url
from core.report.outline import compose_report
from core.report.render import HtmlWriter, answer_html
from core.text.escape import escape_html, escape_markdown
from core.text.tokens import STOPWORDS

__all__ = [
    "EXPORT_MIME",
    "KEY_METRICS",
    "STOPWORDS",
    "ExportFormat",
    "HtmlWriter",
    "Run",
    "answer_html",
    "citation_place",
    "compose_report",
    "escape_html",
    "escape_markdown",
    "evidence_coverage_figure",
    "evidence_graph_html",
    "export_filename",
    "export_report",
    "library_row",
    "node_timing_figure",
    "rerank_score_figure",
    "safe_url",
    "strategy_mix_figure",
]
