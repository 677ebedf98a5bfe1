"""The LLM judge's adapter: the site's one OpenAI-compatible chat client (scoring.core.chat_client), named "the
judge" in its errors, at temperature 0. Retries with backoff on 429, 5xx, timeouts and connection errors (honouring
Retry-After); errors never raise: the caller leaves such items undecided.
"""
from __future__ import annotations

from typing import Any

from scoring.core.chat_client import ChatReply, Messages, OpenAIChatClient

JudgeReply = ChatReply

__all__ = ["JudgeReply", "Messages", "OpenAIJudgeClient"]


class OpenAIJudgeClient(OpenAIChatClient):
    def __init__(self, **kwargs: Any):
        kwargs.setdefault("who", "the judge")
        super().__init__(**kwargs)
