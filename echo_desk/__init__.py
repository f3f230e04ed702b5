"""Echo Desk: chat with an LLM agent that uses tools on your machine, with you in charge."""

__version__ = "0.1.0"
