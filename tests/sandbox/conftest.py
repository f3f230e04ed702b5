"""Fixtures for the sandbox tests (the helpers live in sandbox_helpers.py)."""

from __future__ import annotations

import sys
from pathlib import Path

# importlib import mode: make the shared helpers importable as a plain module.
sys.path.insert(0, str(Path(__file__).parent))

from sandbox_helpers import _fresh_probe, as_its_owner, jail  # noqa: F401  (fixtures)
