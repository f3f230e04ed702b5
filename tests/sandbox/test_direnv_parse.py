"""Which files and folders an ``.envrc`` makes direnv load (``sandbox.direnv``), and that the
inventory the sandbox and the file tools share watches them (``sandbox.inventory``)."""

from __future__ import annotations

from pathlib import Path

from echo_desk.builtins.files import runs_later
from echo_desk.sandbox import direnv, inventory, runs_code


def _loaded(tmp_path: Path, text: str) -> list[tuple[str, bool]]:
    (tmp_path / ".envrc").write_text(text)
    return [(str(Path(p).relative_to(tmp_path)), folder) for p, folder in direnv.loaded(str(tmp_path / ".envrc"))]


def test_the_files_and_folders_an_envrc_loads(tmp_path: Path) -> None:
    text = ("source_env_if_exists .envrc.local  # the person's own overrides\n"
            "dotenv\n"
            "[ -f .env.local ] && dotenv_if_exists .env.local\n"
            "PATH_add bin $PWD/tools\n"
            "path_add PYTHONPATH \"$(pwd)/lib\"\n"
            "source ./scripts/env.sh; use nix\n"
            "source_env \"$HOME/shared\"\n"  # built at run time: cannot be known
            "export FOO=dotenv\n")
    assert _loaded(tmp_path, text) == [
        (".envrc.local", False), (".envrc.local/.envrc", False), (".env", False), (".env.local", False),
        ("bin", True), ("tools", True), ("lib", True), ("scripts/env.sh", False), ("scripts/env.sh/.envrc", False),
        ("shell.nix", False), ("default.nix", False)]


def test_an_unreadable_or_odd_envrc_names_nothing_and_raises_nothing(tmp_path: Path) -> None:
    assert direnv.loaded(str(tmp_path / "missing")) == []
    assert _loaded(tmp_path, "source_env 'unclosed\n\x00\xff ;;; && ||\n") == [("'unclosed", False),
                                                                            ("'unclosed/.envrc", False)]


def test_the_inventory_watches_them_in_every_folder_and_from_above(tmp_path: Path) -> None:
    (tmp_path / ".envrc").write_text("dotenv_if_exists ws/.env.above\n")  # above the workspace
    ws = tmp_path / "ws"
    (ws / "app" / "sub").mkdir(parents=True)
    (ws / ".envrc").write_text("source_env_if_exists .envrc.local\nsource_env app\n")
    (ws / "app" / ".envrc").write_text("PATH_add bin\nsource_env ..\nsource_env /etc/outside\n")
    (ws / ".envrc.local").write_text("dotenv sub/.env\n")  # sourced in turn
    watched = {w.path: w for w in inventory.take(ws, home=tmp_path / "home").watched}
    for name, folder in ((".envrc.local", False), ("app/bin", True), ("sub/.env", False), (".env.above", False)):
        item = watched[f"{ws}/{name}"]
        assert (item.folder, item.why) == (folder, runs_code.DIRENV_LOADS)
    assert f"{ws}/app" not in watched and "/etc/outside" not in watched  # a folder; outside the workspace
    assert runs_later.watched_in(ws, ()) and any(w.path == f"{ws}/.envrc.local" for w in runs_later.watched_in(ws, ()))
