"""The learned second look at what the finder reads as a plan (memory/plans/gate.py), on the
packaged MiniLM."""

from __future__ import annotations

from datetime import date

import pytest

from memory.embeddings.onnx_minilm import OnnxMiniLM
from memory.embeddings.packaged import minilm_tokenizer_file
from memory.embeddings.requantize import requantized_minilm_file
from memory.plans.finder import FoundPlan, PlanFinder
from memory.plans.gate import GateWeights, PlanGate

MONDAY = date(2026, 3, 9)


@pytest.fixture(scope="module")
def minilm() -> OnnxMiniLM:
    return OnnxMiniLM(requantized_minilm_file(), minilm_tokenizer_file())


@pytest.fixture(scope="module")
def finder() -> PlanFinder:
    return PlanFinder()


def _found(text: str) -> FoundPlan:
    return FoundPlan(text, date(2026, 3, 13), date(2026, 3, 13))


async def test_the_gate_keeps_a_sentence_near_what_its_weights_point_at(
        minilm: OnnxMiniLM) -> None:
    [direction] = await minilm.embed(["my dentist appointment is on Friday"])
    weights = GateWeights(minilm.name, tuple(10 * x for x in direction), bias=-5.0,
                          threshold=0.5)
    near, far = _found("dentist appointment on friday"), _found("the stock market fell again")
    assert await PlanGate(minilm, weights).plans_among([near, far]) == [near]


async def test_the_gate_refuses_vectors_it_was_not_trained_on(minilm: OnnxMiniLM) -> None:
    with pytest.raises(ValueError, match="reads other-model vectors"):
        PlanGate(minilm, GateWeights("other-model", (0.0,) * 384, bias=0.0, threshold=0.1))
    assert PlanGate.fits(minilm)


@pytest.mark.parametrize("text", [
    "my driving test is on Wednesday",
    "dentist tmrw at 3, pray for me",
    "we fly to Rome on the 12th",
    "my sister's wedding is next Saturday",
    "they moved my surgery to the 20th",
    "moving flat this weekend, boxes everywhere",
    "my brother lands from Sydney on Thursday",
])
async def test_the_packaged_gate_keeps_everyday_plans(
        minilm: OnnxMiniLM, finder: PlanFinder, text: str) -> None:
    found = finder.find(text, MONDAY)
    assert found
    assert await PlanGate(minilm).plans_among(found) == found


@pytest.mark.parametrize("text", [
    "the weather on Saturday looks grim",
    "shops are closed on Sunday here",
])
async def test_the_packaged_gate_rules_out_dates_that_are_nobodys_plan(
        minilm: OnnxMiniLM, finder: PlanFinder, text: str) -> None:
    found = finder.find(text, MONDAY)
    assert found  # the rules alone take it for a plan
    assert await PlanGate(minilm).plans_among(found) == []
