"""Embedders: the packaged MiniLM on onnxruntime (offline default) or an OpenAI-compatible API."""
