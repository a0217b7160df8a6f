"""The MiniLM the product runs: the packaged int8 model requantized for int8 arithmetic, built
once into the user's cache.

The packaged file stores int8 weights that are cast back to float32 when onnxruntime loads it
(its constant folding), so a session holds 157 MB and multiplies in float32. Requantized with
onnxruntime's own dynamic quantization (per output channel, as the packaged weights were), it
holds 67 MB and embeds in about half the CPU; its vectors are within cosine 0.985 of the packaged
model's (0.993 on average over 400 chat lines). See docs/pages/performance.md.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from pathlib import Path

from platformdirs import user_cache_path

from memory.embeddings.packaged import packaged_minilm_file

log = logging.getLogger(__name__)

# Changes whenever the recipe below changes, so an older build is never used by mistake.
RECIPE = "qint8-per-channel-1"


def requantized_minilm_file(cache_dir: Path | None = None) -> Path:
    """The requantized model's file, built from the packaged one the first time (4 s)."""
    source = packaged_minilm_file()
    folder = cache_dir if cache_dir is not None else user_cache_path("companion") / "models"
    target = folder / f"minilm-l6-qint8-{_build_key(source)}.onnx"
    if not target.exists():
        log.warning("Preparing the embedding model for this machine (once, a few seconds)")
        _build(source, target)
    return target


def _build_key(source: Path) -> str:
    """Names a build after its source, the recipe and onnxruntime's version."""
    import onnxruntime

    digest = hashlib.sha256(source.read_bytes())
    digest.update(f"{RECIPE} {onnxruntime.__version__}".encode())
    return digest.hexdigest()[:16]


def _build(source: Path, target: Path) -> None:
    """Writes the model under a temporary name and renames it: two processes building at once
    each write their own file, and a reader never sees half of one."""
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.quantization.shape_inference import quant_pre_process

    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".build-") as work:
        folded, quantized = Path(work) / "folded.onnx", Path(work) / "model.onnx"
        # Folds the weights' casts into float32 constants the quantizer can read. Symbolic
        # shape inference does not finish on this graph and is not needed for weights.
        quant_pre_process(str(source), str(folded), skip_symbolic_shape=True)
        quantize_dynamic(folded, quantized, weight_type=QuantType.QInt8, per_channel=True,
                         extra_options={"MatMulConstBOnly": True})
        os.replace(quantized, target)
