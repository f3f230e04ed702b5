"""The built-in local model: llama.cpp run by Echo Desk itself on loopback, and its model files."""
