"""A step that reads on past earlier hits ranks what continues their topic, not what repeats a question word."""

from __future__ import annotations

from core.agents.base import AgentDeps
from core.agents.contracts import DistilInput
from core.agents.distiller import offline_distil
from core.config import Settings
from core.graph.nodes_reason import _read_on_topic
from core.models import Evidence, KnowledgeCard, StepRecord

LAWSUIT = (
    "Beginning in April 2019, multiple putative class actions have been filed against the Company alleging "
    "violation of securities laws in connection with the IPO."
)
SETTLED = (
    "On February 8, 2022, the parties informed the court they had reached an agreement in principle to settle "
    "the class actions on a class-wide basis."
)
CHARTER = "Our status as a Delaware corporation may discourage, delay or prevent a change in control of us."
QUESTION = "What's the status of the IPO-related securities litigation?"


def _ev(eid: str, chunk: str, text: str) -> Evidence:
    return Evidence(evidence_id=eid, chunk_id=chunk, text=text, section="Item 8", page=110, score=1.0)


def test_the_topic_of_a_read_on_is_the_claims_drawn_from_the_passages_it_starts_from() -> None:
    search = StepRecord(
        index=0,
        step_id="s0",
        sub_question=QUESTION,
        tool="search_10k",
        evidence=[_ev("S1-E1", "c-729", LAWSUIT), _ev("S1-E2", "c-400", "Another passage.")],
        cards=[
            KnowledgeCard(claim=LAWSUIT, evidence_ids=["S1-E1"]),
            KnowledgeCard(claim="A claim from another passage.", evidence_ids=["S1-E2"]),
        ],
    )
    read_on = StepRecord(
        index=1, step_id="s1", sub_question=QUESTION, tool="search_10k", reads_on_from=["c-729"]
    )
    assert _read_on_topic(read_on, [search]) == [LAWSUIT]
    assert _read_on_topic(search, []) == []  # a search has no topic but its question


def test_the_lawsuit_s_later_history_outranks_a_sentence_that_only_shares_a_question_word() -> None:
    evidence = [_ev("S2-E1", "c-730", CHARTER), _ev("S2-E2", "c-731", SETTLED)]
    deps = AgentDeps(settings=Settings())
    alone = offline_distil(DistilInput(sub_question=QUESTION, evidence=evidence), deps).cards
    assert alone[0].claim == CHARTER  # "status" is the only word the question shares with either
    read_on = offline_distil(DistilInput(sub_question=QUESTION, keywords=[LAWSUIT], evidence=evidence), deps)
    assert read_on.cards[0].claim == SETTLED
