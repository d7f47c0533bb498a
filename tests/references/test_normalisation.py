"""The normalisation tables: names as sources and records write them -> the canonical key values."""

from __future__ import annotations

import pytest

from evaluator import RULE_CATALOG_VERSION
from evaluator.references import tables


@pytest.mark.parametrize(
    "name",
    ["DeepSeek-R1", "deepseek-ai/DeepSeek-R1-0528", "DeepSeek-R1-0528", "dsr1", "nvidia/DeepSeek-R1-FP4", " deepseek-ai/deepseek-r1 "],
)
def test_deepseek_r1_names_are_one_model(name):
    assert tables.model_id(name) == "deepseek-r1"


def test_an_unknown_model_matches_only_itself():
    assert tables.model_id("Qwen/Qwen3-235B A22B") == "qwen/qwen3-235b-a22b"
    assert tables.model_id("deepseek-ai/DeepSeek-V3") == "deepseek-v3" != tables.model_id("DeepSeek-R1")
    assert tables.model_id(None) is None and tables.model_id("  ") is None


@pytest.mark.parametrize(
    ("name", "sku"),
    [
        ("NVIDIA B200", "b200"),
        ("NVIDIA B200-SXM-180GB", "b200"),
        ("b200", "b200"),
        ("NVIDIA GB200", "gb200"),
        ("NVIDIA GB300", "gb300"),
        ("NVIDIA B300 (SM100)", "b300"),
        ("NVIDIA H100 SXM 80GB", "h100"),
        ("NVIDIA H200", "h200"),
        ("AMD Instinct MI355X 288GB HBM3e", "mi355x"),
        ("mi300x", "mi300x"),
        ("NVIDIA GB10", "gb10"),
    ],
)
def test_accelerator_skus(name, sku):
    assert tables.accelerator_sku(name) == sku


def test_gb200_is_not_b200_nor_h20_h200():
    assert tables.accelerator_sku("GB200 NVL72") == "gb200"
    assert tables.accelerator_sku("NVIDIA H20") == "h20"
    assert tables.accelerator_sku("NVIDIA H200 141GB") == "h200"


@pytest.mark.parametrize(
    ("name", "canonical"),
    [
        ("TensorRT-LLM", "trt"),
        ("trt", "trt"),
        ("vLLM", "vllm"),
        ("SGLang", "sglang"),
        ("dynamo-trt", "dynamo-trt"),
        ("dynamo-sglang", "dynamo-sglang"),
    ],
)
def test_frameworks(name, canonical):
    assert tables.framework(name) == canonical


def test_disaggregated_serving_is_another_framework():
    assert tables.framework("dynamo-trt") != tables.framework("TensorRT-LLM")


@pytest.mark.parametrize(("name", "canonical"), [("fp4", "fp4"), ("NVFP4", "fp4"), ("mxfp4", "fp4"), ("FP8", "fp8"), ("bfloat16", "bf16")])
def test_precisions(name, canonical):
    assert tables.precision(name) == canonical


@pytest.mark.parametrize(("name", "canonical"), [("mtp", "mtp"), ("eagle-3", "eagle-3"), ("EAGLE3", "eagle-3"), ("none", "none"), ("eagle", "eagle")])
def test_spec_methods(name, canonical):
    assert tables.spec_method(name) == canonical


def test_tables_are_versioned_with_the_rule_catalog():
    assert tables.TABLES_VERSION == RULE_CATALOG_VERSION
