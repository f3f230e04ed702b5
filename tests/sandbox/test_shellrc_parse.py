"""What the person's shell start-up files make every terminal read or run (``shellrc``)."""

from __future__ import annotations

from pathlib import Path

from echo_desk.sandbox import shellrc


def _loaded(home: Path, **files: str) -> set[tuple[str, bool]]:
    return {(p, folder) for p, folder, pattern in _named(home, **files) if not pattern}


def _named(home: Path, **files: str) -> set[tuple[str, bool, str]]:
    for name, text in files.items():
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text(text)
    return {(n.path.removeprefix(str(home)), n.folder, n.pattern) for n in shellrc.loaded(str(home))}


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
    assert _named(tmp_path, **{".bashrc": bashrc}) == {("/.bashrc.d", False, "*"), ("/.config/bash", False, "*.sh")}


def test_what_is_built_at_run_time_with_no_folder_known_names_nothing(tmp_path: Path) -> None:
    found = _named(tmp_path, **{".zshrc": 'source "$UNKNOWN/x.sh"\nexport PATH="$(brew --prefix)/bin:$PATH"\n'
                                          'source $X/*.sh\nalias ll="ls -l"\nls *.txt\n'})
    assert found == set()


def test_what_is_built_at_run_time_in_a_known_folder_names_every_name_it_could_be(tmp_path: Path) -> None:
    """Fail closed: a part built at run time (``$(…)``, backticks, a variable no file sets) stands
    for any name in the last folder that is known, or for that folder whole when it is a folder."""
    bashrc = ('source ~/.bashrc.$(hostname)\n. "$HOME/.rc.`hostname -s`"\nsource "$HOME/.config/$UNSET/env.sh"\n'
              'export PATH="$HOME/.tools/$(uname -m)/bin:$PATH"\nfor f in ~/.*.sh; do . "$f"; done\n')
    assert _named(tmp_path, **{".bashrc": bashrc}) == {
        ("", False, ".bashrc.*"), ("", False, ".rc.*"), ("/.config", True, ""), ("/.tools", True, ""),
        ("", False, ".*.sh")}


def test_a_variable_set_in_a_file_read_later_names_what_an_earlier_one_sources(tmp_path: Path) -> None:
    """Bash reads ``~/.profile`` (which sets ``MYRC``, then sources ``~/.bashrc``) at login; the
    files are read here in another order, so what a variable names is read again until known."""
    found = _loaded(tmp_path, **{".bashrc": 'source "$MYRC"\n', ".profile": 'export MYRC=~/.myrc\n. ~/.bashrc\n'})
    assert ("/.myrc", False) in found


def test_variables_that_name_what_programs_read_or_run_are_followed(tmp_path: Path) -> None:
    """``BASH_ENV`` (every bash script), ``ENV`` (dash), ``ZDOTDIR`` (zsh's start-up files),
    ``PERL5LIB``/``PYTHONPATH`` (modules), ``PYTHONSTARTUP``, ``LD_PRELOAD``, an ``EDITOR`` by path."""
    zshenv = 'export ZDOTDIR="$HOME/.config/zsh"\n'
    bashrc = ('export BASH_ENV=~/.bash_env ENV=$HOME/.shinit\nexport PERL5LIB="$HOME/perl5/lib/perl5${PERL5LIB:+:}"\n'
              'export PYTHONPATH=~/pylib:$PYTHONPATH PYTHONSTARTUP=~/.pythonrc\nexport LD_PRELOAD="$HOME/a.so"\n'
              'export EDITOR="$HOME/bin/vi -f"\n')
    found = _loaded(tmp_path, **{".zshenv": zshenv, ".bashrc": bashrc, ".bash_env": "source ~/.more\n"})
    assert found >= {
        ("/.config/zsh/.zshrc", False), ("/.config/zsh/.zprofile", False), ("/.config/zsh/.zlogin", False),
        ("/.bash_env", False), ("/.shinit", False), ("/perl5/lib/perl5", True), ("/pylib", True),
        ("/.pythonrc", False), ("/a.so", False), ("/bin/vi", False), ("/.more", False)}


def test_zsh_start_up_files_of_zdotdir_are_read_in_turn(tmp_path: Path) -> None:
    found = _loaded(tmp_path, **{".zshenv": "ZDOTDIR=~/.zsh\n", ".zsh/.zshrc": "source ~/.zsh/plugins.zsh\n"})
    assert ("/.zsh/plugins.zsh", False) in found


def test_what_readlines_settings_include_is_found(tmp_path: Path) -> None:
    found = _loaded(tmp_path, **{".inputrc": "$include /etc/inputrc\n$include ~/.inputrc.local\n",
                                 ".inputrc.local": "$include .config/readline/more\n"})
    assert found >= {("/.inputrc.local", False), ("/.config/readline/more", False)}


def test_a_variable_partly_built_at_run_time_names_every_name_it_could_be(tmp_path: Path) -> None:
    found = _named(tmp_path, **{".bashrc": 'HOST_RC=~/.config/hosts/$(hostname)\nsource "$HOST_RC"\n'
                                           'DOTS="$HOME/dots"; . "$DOTS/rc.$(uname)"\n'})
    assert found == {("/.config/hosts", False, "*"), ("/dots", False, "rc.*")}
