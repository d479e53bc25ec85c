"""Where each provider's server is: Ollama's (OLLAMA_HOST, else its own default address) and an OpenAI-compatible
one's (--base-url, else OPENAI_BASE_URL). Read by the readiness check, the providers and the prompt's counting; a
module of its own so that each imports it at module level (the package's __init__ imports the providers)."""

from __future__ import annotations

import os
from typing import Optional

OLLAMA_DEFAULT_HOST = "127.0.0.1:11434"  # where `ollama serve` listens unless told otherwise


def ollama_host() -> str:
    """OLLAMA_HOST as a URL, else Ollama's own default address (what the manual's model providers page promises)."""
    host = os.environ.get("OLLAMA_HOST", "").strip() or OLLAMA_DEFAULT_HOST
    return host if "://" in host else f"http://{host}"


def openai_base_url(base_url: Optional[str] = None) -> Optional[str]:
    """The OpenAI-compatible server's API: --base-url, else OPENAI_BASE_URL; None when neither is set."""
    return (base_url or os.environ.get("OPENAI_BASE_URL", "")).strip() or None
