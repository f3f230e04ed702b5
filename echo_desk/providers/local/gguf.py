"""What a ``.gguf`` model file says about itself, read from its header (no model loaded).

A GGUF file starts with typed key/value metadata (architecture, context length, chat template,
size label, …) and then one record per tensor (name, shape, type). Only those are read here:
the tensors' data is never touched, so this takes a fraction of a second even for a large file.
Format: https://github.com/ggml-org/ggml/blob/master/docs/gguf.md (version 2 and 3).
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

MAGIC = b"GGUF"
#: Keys whose values are kept (the tokenizer's large arrays are skipped).
_KEPT_SUFFIXES = (".context_length",)
_KEPT = {"general.architecture", "general.name", "general.basename", "general.size_label",
         "general.parameter_count", "tokenizer.chat_template"}
#: value type id -> struct format (little-endian) for fixed-size scalars.
_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9
#: Sanity bounds: a damaged or hostile header must not make us allocate gigabytes.
_MAX_STRING = 16 * 1024 * 1024
_MAX_COUNT = 1 << 32
_MAX_DIMS = 8


class GgufError(ValueError):
    """The file is not a readable GGUF (wrong magic, unsupported version, cut short)."""


@dataclass(frozen=True)
class GgufInfo:
    architecture: str = ""
    name: str = ""
    size_label: str = ""
    #: The context the model was trained for (``<arch>.context_length``); 0 when not said.
    context_length: int = 0
    chat_template: str = ""
    #: Weights counted from the tensors' shapes (or ``general.parameter_count`` when given).
    parameter_count: int = 0

    @property
    def chatml(self) -> bool:
        """The chat template speaks ChatML (``<|im_start|>role``), as Qwen models do."""
        return "<|im_start|>" in self.chat_template


class _Reader:
    def __init__(self, stream: IO[bytes]) -> None:
        self.stream = stream

    def take(self, size: int) -> bytes:
        data = self.stream.read(size)
        if len(data) != size:
            raise GgufError("the file ends inside its header")
        return data

    def unpack(self, fmt: str) -> Any:
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]

    def string(self) -> str:
        size = self.unpack("<Q")
        if size > _MAX_STRING:
            raise GgufError("a string in the header is implausibly long")
        return self.take(size).decode("utf-8", errors="replace")

    def skip_string(self) -> None:
        size = self.unpack("<Q")
        if size > _MAX_STRING:
            raise GgufError("a string in the header is implausibly long")
        self.stream.seek(size, 1)

    def value(self, kind: int, keep: bool) -> Any:
        if kind in _SCALARS:
            return self.unpack(_SCALARS[kind])
        if kind == _STRING:
            if keep:
                return self.string()
            self.skip_string()
            return None
        if kind == _ARRAY:
            item_kind, count = self.unpack("<I"), self.unpack("<Q")
            if count > _MAX_COUNT:
                raise GgufError("an array in the header is implausibly long")
            if item_kind in _SCALARS:  # fixed size: jump over it
                self.stream.seek(struct.calcsize(_SCALARS[item_kind]) * count, 1)
            else:
                for _ in range(count):
                    self.value(item_kind, keep=False)
            return None
        raise GgufError(f"unknown value type {kind} in the header")


def read_gguf_info(path: Path) -> GgufInfo:
    """The metadata of the GGUF file at ``path``. Raises ``GgufError`` or ``OSError``."""
    with Path(path).open("rb") as raw:
        reader = _Reader(raw)
        if reader.take(4) != MAGIC:
            raise GgufError(f"{path} is not a GGUF file")
        version = reader.unpack("<I")
        if version not in (2, 3):
            raise GgufError(f"GGUF version {version} is not supported")
        tensors, pairs = reader.unpack("<Q"), reader.unpack("<Q")
        if tensors > _MAX_COUNT or pairs > _MAX_COUNT:
            raise GgufError("the header's counts are implausible")
        meta: dict[str, Any] = {}
        for _ in range(pairs):
            key = reader.string()
            kind = reader.unpack("<I")
            keep = key in _KEPT or key.endswith(_KEPT_SUFFIXES)
            value = reader.value(kind, keep)
            if keep:
                meta[key] = value
        counted = 0
        for _ in range(tensors):
            reader.skip_string()
            dims = reader.unpack("<I")
            if dims > _MAX_DIMS:
                raise GgufError("a tensor in the header has implausibly many dimensions")
            counted += math.prod(reader.unpack("<Q") for _ in range(dims))
            reader.take(4 + 8)  # the tensor's type and data offset
    arch = str(meta.get("general.architecture") or "")
    return GgufInfo(
        architecture=arch,
        name=str(meta.get("general.name") or meta.get("general.basename") or ""),
        size_label=str(meta.get("general.size_label") or ""),
        context_length=int(meta.get(f"{arch}.context_length") or 0),
        chat_template=str(meta.get("tokenizer.chat_template") or ""),
        parameter_count=int(meta.get("general.parameter_count") or counted),
    )
