"""The default workspace of a first conversation."""

from __future__ import annotations

from pathlib import Path

from echo_desk.store.first_workspace import WorkspaceOrigin, default_workspace, ensure


def test_a_project_folder_it_was_started_from_is_used(tmp_path: Path) -> None:
    project = tmp_path / "home" / "code" / "app"
    project.mkdir(parents=True)
    chosen = default_workspace(start=project, home=tmp_path / "home", documents=tmp_path / "docs")
    assert chosen.path == project.resolve() and chosen.origin is WorkspaceOrigin.START_FOLDER
    assert not (tmp_path / "docs").exists()


def test_started_from_home_or_root_means_a_folder_in_documents_created_on_first_use(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    for start in (home, Path("/")):
        chosen = default_workspace(start=start, home=home, documents=tmp_path / "Documents")
        assert chosen.origin is WorkspaceOrigin.DOCUMENTS
        assert chosen.path == tmp_path / "Documents" / "Echo Desk"
    assert not chosen.path.exists()
    assert ensure(chosen).is_dir()
    assert ensure(chosen) == chosen.path.resolve()  # a second use changes nothing
