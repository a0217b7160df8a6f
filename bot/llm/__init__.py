"""Chat models: any OpenAI-compatible endpoint, or the packaged demo model in-process."""
