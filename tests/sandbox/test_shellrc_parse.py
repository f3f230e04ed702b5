"""What the person's shell start-up files make every terminal read or run (``shellrc``)."""

from __future__ import annotations

from pathlib import Path

from echo_desk.sandbox import shellrc


def _loaded(home: Path, **files: str) -> set[tuple[str, bool]]:
    for name, text in files.items():
        (home / name).write_text(text)
    return {(p.removeprefix(str(home)), folder) for p, folder in shellrc.loaded(str(home))}


def test_what_installers_add_to_the_start_up_files_is_found(tmp_path: Path) -> None:
    bashrc = ('export PYENV_ROOT="$HOME/.pyenv"\n'
              '[[ -d $PYENV_ROOT/bin ]] && export PATH="$PYENV_ROOT/bin:$PATH"\n'
              'eval "$(~/.local/share/mise/mise activate bash)"\n'
              '. "$HOME/.cargo/env"\n'
              'export PATH=~/.cargo/bin:$PATH:${HOME}/go/bin\n'
              '[ -f ~/.fzf.bash ] && source ~/.fzf.bash  # fzf\n'
              'export ZSH="$HOME/.oh-my-zsh"; source $ZSH/oh-my-zsh.sh\n'
              'source .bash_aliases\n')
    assert _loaded(tmp_path, **{".bashrc": bashrc, ".config.fish": ""}) >= {
        ("/.pyenv/bin", True), ("/.local/share/mise/mise", False), ("/.cargo/env", False), ("/.cargo/bin", True),
        ("/go/bin", True), ("/.fzf.bash", False), ("/.oh-my-zsh/oh-my-zsh.sh", False), ("/.bash_aliases", False)}


def test_what_a_sourced_file_names_in_turn_is_found(tmp_path: Path) -> None:
    (tmp_path / ".cargo").mkdir()
    (tmp_path / ".cargo/env").write_text('export PATH="$HOME/.cargo/bin:$PATH"\n')
    assert ("/.cargo/bin", True) in _loaded(tmp_path, **{".profile": '. "$HOME/.cargo/env"\n'})


def test_the_folder_a_file_pattern_names_is_found(tmp_path: Path) -> None:
    """Fedora's own .bashrc sources every file of ``~/.bashrc.d``."""
    bashrc = 'for rc in ~/.bashrc.d/*; do\n  . "$rc"\ndone\nfor f in $HOME/.config/bash/*.sh; do source $f; done\n'
    assert _loaded(tmp_path, **{".bashrc": bashrc}) == {("/.bashrc.d", True), ("/.config/bash", True)}


def test_what_is_built_at_run_time_is_left_out(tmp_path: Path) -> None:
    found = _loaded(tmp_path, **{".zshrc": 'source "$UNKNOWN/x.sh"\nexport PATH="$(brew --prefix)/bin:$PATH"\n'
                                           'source $X/*.sh\nalias ll="ls -l"\nls *.txt\n'})
    assert found == set()
