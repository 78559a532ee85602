"""Fit estimator: hand-computed KV arithmetic (GQA vs MLA) and calibration against published facts."""

import pytest

from selector.api import run_fit
from selector.fit import estimate, kv_bytes_per_token
from selector.inputs import InputError

GIB = 2**30 / 1e9  # one GiB in decimal GB


def test_gqa_kv_bytes_by_hand(catalog):
    # Llama 3.1 8B: 32 layers x 8 KV heads x 128 dims x 2 (K and V) x 2 bytes (BF16)
    assert kv_bytes_per_token(catalog.models["llama-3.1-8b"]) == 2 * 32 * 8 * 128 * 2 == 131072
    # Llama 3.1 70B: 80 layers, same 8 x 128 KV layout
    assert kv_bytes_per_token(catalog.models["llama-3.1-70b"]) == 2 * 80 * 8 * 128 * 2 == 327680


def test_mla_kv_bytes_by_hand(catalog):
    # DeepSeek-V3: 61 layers x (512 latent + 64 RoPE) x 2 bytes, no separate K and V
    assert kv_bytes_per_token(catalog.models["deepseek-v3"]) == 61 * (512 + 64) * 2 == 70272


def test_mla_is_far_smaller_per_token_than_gqa_of_a_smaller_model(catalog):
    assert kv_bytes_per_token(catalog.models["deepseek-v3"]) < kv_bytes_per_token(catalog.models["llama-3.1-70b"]) / 4


def test_kv_scales_with_context_and_concurrency(catalog):
    one = estimate(catalog, "llama-3.1-8b", "bf16", 1, 80, context_tokens=8192, concurrency=1)
    many = estimate(catalog, "llama-3.1-8b", "bf16", 1, 80, context_tokens=8192, concurrency=16)
    assert one["kv_cache_gb"] == pytest.approx(131072 * 8192 / 1e9, abs=0.01)
    assert many["kv_cache_gb"] == pytest.approx(16 * one["kv_cache_gb"], rel=0.01)


def test_kv_quantization_halves_kv(catalog):
    full = estimate(catalog, "llama-3.1-8b", "bf16", 1, 80, context_tokens=32768)
    half = estimate(catalog, "llama-3.1-8b", "bf16", 1, 80, context_tokens=32768, kv_quantization="kv-fp8")
    assert half["kv_cache_gb"] == pytest.approx(full["kv_cache_gb"] / 2, rel=0.01)


def test_moe_counts_every_expert(catalog):
    fit = estimate(catalog, "qwen3-30b-a3b", "bf16", 1, 80)
    assert fit["weights_gb"] == pytest.approx(catalog.models["qwen3-30b-a3b"]["total_params_b"] * 2, rel=0.01)


def test_gpt_oss_120b_mxfp4_fits_one_80gb_card(catalog):
    """NVIDIA and OpenAI: gpt-oss-120b in MXFP4 runs on a single 80 GB GPU, even at full 128K context."""
    for context in (8192, 131072):
        fit = estimate(catalog, "gpt-oss-120b", "mxfp4", 1, 80, context_tokens=context)
        assert fit["fits_gpu"], fit
    assert 55 < fit["weights_gb"] < 70


def test_gpt_oss_120b_bf16_does_not_fit_one_card(catalog):
    fit = estimate(catalog, "gpt-oss-120b", "bf16", 1, 80)
    assert not fit["fits_gpu"] and fit["required_gb"] > 200


def test_deepseek_r1_on_one_24gb_gpu_with_ktransformers_ram(catalog):
    """KTransformers tutorial: full DeepSeek-R1 Q4_K_M on one 24 GB GPU with 382 G of DRAM (read as GiB)."""
    fit = estimate(catalog, "deepseek-r1", "gguf-q4-k-m", 1, 24, ram_gb=382 * GIB)
    assert not fit["fits_gpu"]
    assert fit["fits_with_offload"], fit
    assert fit["offload"]["gpu_gb"] < 24 and fit["offload"]["gpu_gb"] > 8


def test_deepseek_r1_offload_fails_without_enough_ram(catalog):
    fit = estimate(catalog, "deepseek-r1", "gguf-q4-k-m", 1, 24, ram_gb=256)
    assert not fit["fits_gpu"] and not fit["fits_with_offload"]
    assert any("host RAM needs" in n for n in fit["notes"])


def test_deepseek_v3_fp8_needs_a_node_of_h200s(catalog):
    assert not estimate(catalog, "deepseek-v3", "fp8", 8, 80)["fits_gpu"]     # 8 x H100 80 GB: 640 GB < 671 GB weights
    assert estimate(catalog, "deepseek-v3", "fp8", 8, 141)["fits_gpu"]        # 8 x H200 141 GB


def test_dense_partial_offload(catalog):
    fit = estimate(catalog, "llama-3.1-70b", "gguf-q4-k-m", 1, 24, ram_gb=64)
    assert not fit["fits_gpu"] and fit["fits_with_offload"]


def test_output_shape(catalog):
    fit = estimate(catalog, "qwen3-8b", None, 1, 24)
    for key in ("weights_gb", "kv_cache_gb", "overhead_gb", "required_gb", "available_gb", "fits_gpu", "fits_with_offload", "notes"):
        assert key in fit
    assert fit["quantization"] == "bf16"  # the model's native precision by default
    assert fit["required_gb"] == pytest.approx(fit["weights_gb"] + fit["kv_cache_gb"] + fit["overhead_gb"], abs=0.02)


@pytest.mark.parametrize("answers,key", [
    ({"quantization": "bf16", "gpu_memory_gb": 80}, "model"),
    ({"model": "qwen3-8b"}, "gpu_memory_gb"),
    ({"model": "qwen3-9b", "gpu_memory_gb": 80}, "model"),
    ({"model": "qwen3-8b", "gpu_memory_gb": -1}, "gpu_memory_gb"),
    ({"model": "qwen3-8b", "gpu_memory_gb": 80, "scale": "local"}, "scale"),
])
def test_fit_input_errors(catalog, answers, key):
    with pytest.raises(InputError) as info:
        run_fit(catalog, answers)
    assert info.value.key == key
