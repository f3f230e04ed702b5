"""What makes a program run code later, outside the sandbox: the one list, each entry with why.

Used by the sandbox (read-only while a command runs, put back after it: ``guard``) and by the
file tools (writing one always asks the person). The person extends it in Settings › Sandbox.
Each ``why`` is a message id (translated where it is shown); docs/sandbox.md lists the same.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

from echo_desk.tools import N_


@dataclass(frozen=True)
class Entry:
    """A path relative to a workspace (``/``-separated) and why a program runs code from it."""

    path: str
    folder: bool
    why: str
    #: Only when the workspace is the home folder: elsewhere the name is ordinary project content
    #: (a project's ``bin/``), which a command must be able to write.
    home_only: bool = False
    #: Read from every folder, not only the workspace's top (a program looks for it from the
    #: current folder up): found by the walk for repositories at any depth (``IN_EVERY_FOLDER``),
    #: watched there too. A path of several parts is found in the folder holding its last one.
    every_folder: bool = False
    #: The last part of ``path`` is a pattern (``fnmatch``) of names in its folder
    #: (``.psqlrc-*``): every name that matches is the entry, one that does not exist yet too.
    pattern: bool = False

    @property
    def shown(self) -> str:
        """How the entry is written for the person (a folder ends with ``/``)."""
        return self.path + "/" if self.folder else self.path


_LEFTHOOK = N_("the lefthook git hooks run the commands it lists")
_MISE = N_("mise runs the hooks and sources the scripts its settings name at your next prompt, in a folder "
           "you trusted once (it remembers the folder, not what is in it); and, without asking, puts the folder a "
           "tool's version names (path:) first on PATH, in this folder and every one below it: a planted git "
           "there runs when you type it")
_PRY = N_("Ruby's pry prompt runs it, Ruby included, when it starts in this folder or your home folder")
_GHCI = N_("GHCi runs the commands in it when it starts in this folder or your home folder (:! runs a shell command)")
_YARN = N_("yarn runs the file its settings name (yarnPath) in place of itself for every yarn command of every "
           "project, and installs from the registry they name")
_GRADLE_INIT = N_("Gradle runs these init scripts before every build of every project")
_MAVEN = N_("Maven takes every build's plugins and dependencies from the repositories and mirrors its settings name, "
            "and the JDK from the toolchains they name: what it downloads or names runs")
_CONDA = N_("conda installs packages from the channels its settings name: what it installs runs")
_RUSTUP = N_("rustup runs the cargo, rustc and rustfmt of the toolchain folder it names (path), in this folder "
             "and every one below it, without asking: even cargo --version, or your editor formatting a file")
_OPENCODE = N_("opencode starts the MCP servers its settings name")
_SHELL = N_("your shell runs it when it starts (in your home folder, or linked there from a dotfiles folder)")
_SESSION = N_("your desktop session runs it when you log in")
_GIT_GLOBAL = N_("git reads it in every repository (hooks path, aliases, filters, pager)")
_EDITOR = N_("your editor runs it when it starts")
_VIMRC = N_("your editor runs it when it starts; with Vim's exrc option on, the one of the folder you start Vim "
            "in too, shell commands included")
_GDB = N_("gdb runs the commands in it when it starts")
_LESSFILTER = N_("lesspipe runs it for every file you open with less (Ubuntu's start-up file sets less up so)")
_LESSKEY = N_("less sets the variables of its #env section, LESSOPEN among them: a command it runs for every file "
              "you open with less, and for what it shows from git log or man")
_PIP = N_("pip installs packages from the index and folders its settings name: what it installs runs")
_CARGO = N_("cargo runs the programs it names (a compiler wrapper, a runner) in this folder and every one below it: "
            "the wrapper even for cargo metadata and cargo tree, which build nothing (your editor runs cargo metadata "
            "when it opens a Rust project)")
_PSQL = N_("psql runs the commands in it when it starts (\\! runs a shell command)")
_SQLITE = N_("sqlite3 runs the commands in it every time it starts (.system runs a shell command)")
_SYSTEMD = N_("systemd starts the services it holds for you")
_TMPFILES = N_("systemd creates, overwrites and deletes the files it lists, anywhere you may write, when you log in")
_DBUS = N_("D-Bus starts the program a service file in it names, in place of the system's, when a program asks "
           "for that service (notifications, …)")
_TERMINAL = N_("your terminal runs the shell or program its settings name every time you open it")
_VSCODE = N_("VS Code runs its tasks, launch configurations and the programs its settings name")
_CLAUDE = N_("Claude Code runs the hooks and starts the MCP servers its settings name")
_ZED = N_("Zed starts the language servers and MCP servers its settings name")
_HELIX = N_("Helix starts the language servers its settings name when you open a file")
_RUNTIME = N_("a language's versions or a tool installed in your home folder: what is planted in it runs whenever you "
              "use that language or tool, in any folder (a .pth file at every python, a replaced node or cargo)")
_CACHE = N_("a cache of downloaded or built packages in your home folder: later builds and installs, in every "
            "project, use what is in it without checking it again (a crate's build.rs, a Go module, a Maven or Gradle "
            "jar, a pip wheel, npx's packages), and run it")
_VERSION_FILE = N_("a version manager runs the programs of the folder a version in it names, in this folder "
                   "and every one below it, without asking: rbenv before 1.2 takes a version with ../ as a folder, "
                   "mise (its idiomatic version files on) a path: version; a planted ruby or git there runs when "
                   "you type it")
#: The version files of version managers (rbenv, pyenv, nodenv, nvm, sdkman, ...) that mise reads too.
VERSION_FILES = (".ruby-version", ".python-version", ".python-versions", ".nvmrc", ".node-version", ".go-version",
                 ".java-version", ".sdkmanrc", ".bun-version", ".deno-version", ".yvmrc", ".zig-version",
                 ".swift-version")
_ON_PATH = N_("your shell finds programs in it before the system's (it is on PATH): a planted git or ls runs "
              "when you type it")

#: Inside a workspace (and, for the start-up files, when the workspace is the home folder).
ENTRIES: tuple[Entry, ...] = (
    Entry(".echo-desk", True, N_("Echo Desk's own rules for this workspace: a planted rule file would grant "
                                 "the agent what you did not"), every_folder=True),
    Entry(".vscode", True, _VSCODE, every_folder=True),
    Entry(".idea", True, N_("JetBrains IDEs run its run configurations, start-up tasks and external tools"),
          every_folder=True),
    # Trusted once, by folder: in a project the person already works on, these run without asking.
    # All in every folder: an editor or agent opened on a sub-folder (a package of a monorepo)
    # reads that folder's own, and VS Code trusts every folder below one the person trusted.
    Entry(".zed", True, _ZED, every_folder=True),
    Entry(".helix", True, _HELIX, every_folder=True),
    Entry(".devcontainer", True, N_("VS Code's Dev Containers run its initializeCommand on your machine"),
          every_folder=True),
    Entry(".devcontainer.json", False, N_("VS Code's Dev Containers run its initializeCommand on your machine"),
          every_folder=True),
    Entry(".cursor", True, N_("Cursor starts the MCP servers and runs the hooks configured in it"), every_folder=True),
    Entry(".claude", True, _CLAUDE, every_folder=True),
    Entry(".mcp.json", False, N_("MCP clients (Claude Code, Cursor, …) start the servers it lists"), every_folder=True),
    Entry(".gemini", True, N_("Gemini CLI starts the MCP servers its settings name"), every_folder=True),
    Entry(".codex", True, N_("Codex starts the MCP servers its settings name"), every_folder=True),
    Entry(".opencode", True, _OPENCODE, every_folder=True),
    Entry("opencode.json", False, _OPENCODE, every_folder=True),
    Entry("opencode.jsonc", False, _OPENCODE, every_folder=True),
    Entry(".aider.conf.yml", False, N_("aider runs the lint and test commands it names after every edit it makes"),
          every_folder=True),
    # In every folder: direnv loads the nearest .envrc from the folder you are in up, and a
    # ``[whitelist] prefix`` in its settings (a projects folder the person trusts) lets any
    # .envrc below it run without ``direnv allow``: a planted ``src/.envrc`` runs at ``cd src``.
    Entry(".envrc", False, N_("direnv runs it when you enter the folder"), every_folder=True),
    # No trust asked, in every folder: ``node path:./tools`` puts ``tools/bin`` first on PATH.
    Entry(".tool-versions", False, N_("mise and asdf put the folder a path: version names first on PATH, in this "
                                      "folder and every one below it, without asking: a planted git there runs "
                                      "when you type it"), every_folder=True),
    # Version managers' own version files, read from the current folder up, no trust asked:
    # mise (idiomatic version files on for that tool) takes ``path:./tools`` as in
    # .tool-versions, and rbenv before 1.2 (Debian 12's, Ubuntu 24.04's 1.1.2) a version with
    # ``../`` as a folder of ``versions/``: its ``ruby`` shim then runs ``tools/bin/ruby``.
    *(Entry(name, False, _VERSION_FILE, every_folder=True) for name in VERSION_FILES),
    Entry(".gitmodules", False, N_("git clones and checks out the submodules it lists")),
    Entry(".git/info/attributes", False, N_("git picks filter and diff programs by it")),
    # Mercurial runs the hooks and extensions of a repository's settings without asking when
    # its owner (the sandbox writes as the person) made them: ``hg status`` is enough. In every
    # folder: a nested repository is one hg uses there.
    Entry(".hg/hgrc", False, N_("Mercurial runs the hooks and loads the extensions its settings name"),
          every_folder=True),
    Entry(".hg/hgrc-not-shared", False, N_("Mercurial reads more settings (hooks, extensions) from it"),
          every_folder=True),
    Entry(".hg/sharedpath", False, N_("Mercurial reads the settings, hooks included, of the repository it names"),
          every_folder=True),
    # The hook tools' settings, in every folder: each repository's own (a nested one's too) is
    # what its installed hook runs, and the command can stage a changed one itself (the index is
    # ordinary work), so the person's next commit there runs it.
    Entry(".husky", True, N_("husky keeps the repository's git hooks here"), every_folder=True),
    Entry(".pre-commit-config.yaml", False, N_("the pre-commit hook runs the commands it lists"), every_folder=True),
    Entry("lefthook.yml", False, _LEFTHOOK, every_folder=True),
    Entry(".lefthook.yml", False, _LEFTHOOK, every_folder=True),
    # Every other name lefthook reads its settings by (https://lefthook.dev/configuration): the
    # -local one is merged over the main one, and the folders hold the scripts they name.
    *(Entry(f"{where}lefthook{local}.{kind}", False, _LEFTHOOK, every_folder=True)
      for local in ("", "-local") for where in ("", ".", ".config/")
      for kind in ("yml", "yaml", "toml", "json", "jsonc")
      if (where, local, kind) not in (("", "", "yml"), (".", "", "yml"))),
    Entry(".lefthook", True, _LEFTHOOK, every_folder=True),
    Entry(".lefthook-local", True, _LEFTHOOK, every_folder=True),
    # Every name mise reads a project's settings by (https://mise.jdx.dev/configuration.html), in
    # every folder from the current one up: a tool's version ``path:`` there asks no trust.
    *(Entry(f"{where}{name}", False, _MISE, every_folder=True) for where in ("", ".", ".config/")
      for name in ("mise.toml", "mise.local.toml")),
    *(Entry(f"{where}mise/{name}", name == "conf.d", _MISE, every_folder=True) for where in ("", ".")
      for name in ("config.toml", "config.local.toml", "conf.d")),
    Entry(".config/mise", True, _MISE, every_folder=True),
    # rustup reads them from the current folder up (https://rust-lang.github.io/rustup/overrides.html);
    # ``path`` takes a toolchain of any folder, the workspace's too.
    Entry("rust-toolchain.toml", False, _RUSTUP, every_folder=True),
    Entry("rust-toolchain", False, _RUSTUP, every_folder=True),
    # Maven's launcher (bin/mvn) takes the nearest folder with a ``.mvn`` from the current one up
    # and passes this file's lines to Java for every mvn, ``mvn -v`` too: ``-agentpath`` loads a
    # library of the workspace (https://maven.apache.org/configure.html).
    Entry(".mvn/jvm.config", False, N_("Maven's mvn passes the Java options in it to Java every time it runs in this "
                                       "folder or one below it, even mvn -v: one can load a library of its choice"),
          every_folder=True),
    # Read by every mvn there too: maven.config's lines are added to its command line (the local
    # repository, settings, -f another pom), and extensions.xml makes it load a jar, by those, into
    # its own core before any project is read (with no pom.xml at all, for any goal).
    Entry(".mvn/maven.config", False, N_("Maven's mvn adds the options in it to every command it runs in this folder "
                                         "or one below it: which repository and settings it uses, which project it "
                                         "builds"), every_folder=True),
    Entry(".mvn/extensions.xml", False, N_("Maven's mvn loads the extensions it lists into itself for every build in "
                                           "this folder or one below it, even where no pom.xml names them"),
          every_folder=True),
    Entry(".bashrc", False, _SHELL),
    Entry(".bash_profile", False, _SHELL),
    Entry(".bash_login", False, _SHELL),
    Entry(".bash_logout", False, _SHELL),
    Entry(".bash_aliases", False, _SHELL),
    Entry(".profile", False, _SHELL),
    Entry(".zshrc", False, _SHELL),
    Entry(".zshenv", False, _SHELL),
    Entry(".zprofile", False, _SHELL),
    Entry(".zlogin", False, _SHELL),
    # zsh runs it when a login shell exits, as bash does .bash_logout.
    Entry(".zlogout", False, _SHELL),
    Entry(".config/fish", True, _SHELL),
    Entry(".inputrc", False, N_("readline (bash, Python's prompt, psql, …) reads it when a program asks you for a "
                                "line: a macro on Enter can add a command to every line you type")),
    Entry(".bash_completion", False, N_("bash-completion runs it in every interactive bash (Debian's and Ubuntu's "
                                        "start-up file loads bash-completion)")),
    Entry(".local/share/bash-completion", True, N_("bash-completion runs the completion of a command from it, "
                                                   "before the system's, when you press Tab after that command")),
    Entry(".xprofile", False, _SESSION),
    Entry(".xsessionrc", False, _SESSION),
    Entry(".xinitrc", False, _SESSION),
    # Debian's Xsession runs them when the display manager names no session (allow-user-xsession).
    Entry(".xsession", False, _SESSION),
    Entry(".Xsession", False, _SESSION),
    Entry(".config/autostart", True, N_("your desktop starts the programs it lists when you log in")),
    # KDE Plasma 5 runs the scripts of autostart-scripts/ at login.
    Entry(".config/autostart-scripts", True, _SESSION),
    # user/ and user.control/ (systemctl --user set-property), both before the system's; in
    # ~/.local/share/systemd/user a unit stands in for the system's of the same name (pipewire,
    # dbus…), which runs at the next login without being enabled again.
    Entry(".config/systemd", True, _SYSTEMD),
    Entry(".local/share/systemd", True, _SYSTEMD),
    # systemd-tmpfiles --user --create (systemd-tmpfiles-setup.service, at every login).
    Entry(".config/user-tmpfiles.d", True, _TMPFILES),
    Entry(".local/share/user-tmpfiles.d", True, _TMPFILES),
    # The session bus reads $XDG_DATA_HOME/dbus-1/services before the system's folders.
    Entry(".local/share/dbus-1", True, _DBUS),
    # The first extension of a name found wins, and the user's folder is read first.
    Entry(".local/share/gnome-shell", True, N_("GNOME Shell runs the extensions in it when you log in: one can "
                                               "stand in for an extension of the system's that is switched on")),
    # Debian's and Ubuntu's im-config sources it from their Xsession (70im-config_launch).
    Entry(".xinputrc", False, _SESSION),
    # Window managers and compositors start the programs their settings name (exec, autostart)
    # at login; PipeWire's context.exec and WirePlumber's scripts run at login too.
    *(Entry(name, True, _SESSION) for name in (
        ".config/i3", ".i3", ".config/sway", ".config/hypr", ".config/openbox", ".config/labwc", ".config/niri",
        ".config/awesome", ".config/qtile", ".xmonad", ".config/bspwm", ".config/sxhkd", ".config/river",
        ".config/pipewire", ".config/wireplumber")),
    # A terminal runs the shell (or program) its settings name every time it opens; wezterm's
    # settings are a Lua program.
    *(Entry(name, folder, _TERMINAL) for name, folder in (
        (".config/kitty", True), (".config/alacritty", True), (".alacritty.toml", False), (".alacritty.yml", False),
        (".config/wezterm", True), (".wezterm.lua", False), (".config/foot", True), (".config/ghostty", True))),
    Entry(".config/user-dirs.dirs", False, N_("xdg-user-dir runs it as a shell script (programs and scripts call it "
                                              "to find your Desktop or Downloads folder)")),
    Entry(".config/environment.d", True, N_("systemd sets these variables (LD_PRELOAD, PATH, …) for every program "
                                            "of your session")),
    Entry(".gitconfig", False, _GIT_GLOBAL),
    Entry(".config/git", True, _GIT_GLOBAL),
    # Vim reads ~/.exrc when there is no vimrc (vi always); gvim its gvimrc; Vim 9.1 ~/.config/vim.
    # In every folder: with its exrc option on (the person's own vimrc), Vim also runs the .vimrc,
    # .exrc and .gvimrc of the folder it starts in, shell commands included, the person owning them
    # (and, on Unix too, its _vimrc: tested with Vim 9.0, s165).
    *(Entry(name, False, _VIMRC, every_folder=True) for name in (".vimrc", "_vimrc", ".exrc", ".gvimrc")),
    Entry(".config/vim", True, _EDITOR),
    Entry(".vim", True, N_("Vim runs the plugins in it (and its vimrc) every time it starts")),
    Entry(".config/nvim", True, _EDITOR),
    # Neovim's plugins: site/ is on its runtimepath (site/pack/*/start/* load at every start),
    # and plugin managers (lazy.nvim) keep theirs beside it.
    Entry(".local/share/nvim", True, _EDITOR),
    Entry(".emacs", False, _EDITOR),
    Entry(".emacs.d", True, _EDITOR),
    # Editors' and agents' own settings in the home folder, for every project. Only the files
    # that name programs: the rest of those folders is state they write all the time.
    *(Entry(f".config/{app}/User/{name}", False, _VSCODE) for app in ("Code", "Code - OSS", "VSCodium", "Cursor")
      for name in ("settings.json", "tasks.json", "mcp.json")),
    Entry(".claude.json", False, _CLAUDE),
    Entry(".config/zed", True, _ZED),
    Entry(".config/helix", True, _HELIX),
    Entry(".config/opencode", True, _OPENCODE),
    Entry(".local/bin", True, _ON_PATH),
    Entry("bin", True, _ON_PATH, home_only=True),
    # Languages' versions and tools installed in the home folder, used from every folder: pyenv's
    # shim runs ~/.pyenv/versions/<v>/bin/python for every python (a .pth file planted in its
    # site-packages runs at each start, as one in ~/.local/lib does), uv's and pipx's tools are an
    # environment each, cargo's proxies run the toolchains of ~/.rustup, every gem command loads the
    # plugins of RubyGems' user folder (first on its gem path).
    *(Entry(name, True, _RUNTIME, home_only=True) for name in (
        ".pyenv", ".rbenv", ".nodenv", ".nvm", ".volta", ".asdf", ".local/share/mise", ".local/share/fnm", ".rustup",
        ".cargo/bin", ".local/share/uv", ".local/share/pipx", ".sdkman", ".bun", ".deno", "go/bin", "miniconda3",
        "anaconda3", "miniforge3", ".gem", ".local/share/gem",
        # local::lib's modules (its line in ~/.bashrc puts ~/perl5/lib/perl5 first on PERL5LIB: a
        # planted strict.pm runs at every perl that uses strict); GHC's package databases and ghci.conf.
        "perl5", ".ghc",
        # Haskell's cabal and stack, Julia (config/startup.jl runs at every julia) and OCaml's opam
        # keep compilers, packages and their programs here.
        ".cabal", ".stack", ".julia", ".opam",
        # PHP's composer global packages (their vendor/bin is on PATH) and settings; Flatpak's
        # installation for you: its apps, its exports (launchers and D-Bus services, read before
        # the system's: first on XDG_DATA_DIRS) and the permission overrides of each app.
        ".config/composer", ".composer", ".local/share/flatpak")),
    # Package managers' and build tools' caches: once downloaded (checked then, if at all) and
    # unpacked, nothing checks them again. cargo builds ~/.cargo/registry/src/*/<crate> as it finds
    # it (a changed build.rs runs at the next cargo build, --offline too), go builds
    # ~/go/pkg/mod/<module>@<version> though go.sum names it, mvn -o loads the jars of
    # ~/.m2/repository. The whole of ~/.cache: what the tools keep there (pip's wheels, uv's
    # environments, Go's build cache, pre-commit's hook repositories, Playwright's browsers) is
    # of the same kind. A command in any other workspace cannot write them either.
    *(Entry(name, True, _CACHE, home_only=True) for name in (
        ".cache", ".m2/repository", ".gradle/caches", ".gradle/wrapper", ".cargo/registry", ".cargo/git", ".npm",
        "go/pkg", ".local/share/pnpm", ".yarn/berry", ".ivy2", ".sbt", ".nuget/packages", ".pub-cache",
        # virtualenv copies the pip, setuptools and wheel it unpacked here into every new environment.
        ".local/share/virtualenv")),
    # ccache's settings (prefix_command, compiler_check: programs it runs for every compile) and,
    # once ~/.ccache exists, its cache too (ccache 4 then keeps both there): what it holds is
    # linked into the programs you build.
    Entry(".config/ccache", True, N_("ccache runs the programs its settings name (prefix_command, compiler_check) "
                                     "every time it compiles, in every project")),
    Entry(".ccache", True, N_("ccache runs the programs its settings in it name every time it compiles, and takes "
                              "compiled files from it without compiling again, in every project"), home_only=True),
    # CPAN's settings (CPAN/MyConfig.pm) are Perl code that every cpan command loads; the rest is
    # its build folder and downloads, a cache.
    Entry(".cpan", True, N_("every cpan command runs its settings, which are Perl code (CPAN/MyConfig.pm), and "
                            "builds the modules it downloaded there"), home_only=True),
    # CMake's user package registry: find_package, in every project, reads the folders its entries
    # name (after the project's own places, before the system's) and runs the package's settings
    # there, CMake code, when it finds them.
    Entry(".cmake/packages", True, N_("CMake's find_package, in every project you configure, runs the settings "
                                      "(CMake code) of the packages in the folders its entries name"),
          home_only=True),
    # Terraform's implied local mirror ($XDG_DATA_HOME/terraform/plugins; ~/.terraform.d is hidden
    # whole): terraform init in any project takes a provider found there before the registry's.
    Entry(".local/share/terraform", True, N_("terraform init takes the providers in it before the registry's, in "
                                             "every project without a lock file naming them, and Terraform runs "
                                             "them at every plan or apply")),
    Entry(".local/share/applications", True, N_("your desktop starts programs by the launchers in it (one can "
                                                "stand in for an application's own)")),
    Entry(".local/lib", True, N_("Python runs the .pth files of your own site-packages in it every time it starts")),
    Entry(".config/plasma-workspace", True, _SESSION),  # env/ at login, shutdown/ at logout
    Entry(".config/direnv", True, N_("direnv runs its direnvrc before every .envrc, and its settings can allow "
                                     "any .envrc without asking")),
    Entry(".hgrc", False, N_("Mercurial runs the hooks and loads the extensions its settings name, in every "
                             "repository")),
    Entry(".config/hg", True, N_("Mercurial runs the hooks and loads the extensions its settings name, in every "
                                 "repository")),
    Entry(".lessfilter", False, _LESSFILTER),
    Entry(".config/lessfilter", False, _LESSFILTER),
    # Source (less 582 and later) and compiled; the .config ones when XDG_CONFIG_HOME is set.
    *(Entry(name, False, _LESSKEY) for name in (".lesskey", ".less", ".config/lesskey", ".config/less")),
    Entry(".curlrc", False, N_("curl adds its options to every download you make: one can fetch a file of its "
                               "choice into any of yours (~/.bashrc)")),
    Entry(".wgetrc", False, N_("wget applies it to every download you make: one setting writes every download "
                               "over a file of its choice (~/.bashrc)")),
    Entry(".mavenrc", False, N_("Maven's mvn runs it as a shell script every time it starts")),
    Entry(".selected_editor", False, N_("sensible-editor (crontab -e, mutt, …) runs it as a shell script to pick "
                                        "your editor")),
    Entry(".config/pip", True, _PIP),
    Entry(".pip", True, _PIP),
    # RubyGems reads only the home folder's (and /etc/gemrc): its sources replace rubygems.org.
    Entry(".gemrc", False, N_("RubyGems installs gems from the sources its settings name: what it installs runs "
                              "(a gem's extension is built when it is installed)")),
    Entry(".tmux.conf", False, N_("tmux runs the commands in it when it starts")),
    Entry(".config/tmux", True, N_("tmux runs the commands in it when it starts")),
    Entry(".config/starship.toml", False, N_("starship runs the commands of its custom modules at every prompt")),
    # In every folder too: gdb runs the .gdbinit of the folder it starts in when the person's
    # auto-load safe-path lets it (`set auto-load safe-path /`, as gdb's own warning suggests:
    # tested with gdb 13, s165).
    Entry(".gdbinit", False, _GDB, every_folder=True),
    # gdb 11 and later read it before anything else (tested with gdb 13: ``shell`` runs).
    Entry(".gdbearlyinit", False, _GDB),
    # lldb reads ~/.lldbinit and ~/.lldbinit-<program> (lldb's own: -lldb) at every start.
    *(Entry(name, False, N_("lldb runs the commands in it when it starts (platform shell runs a shell command)"))
      for name in (".lldbinit", ".lldbinit-lldb")),
    Entry(".config/gdb", True, _GDB),
    Entry(".psqlrc", False, _PSQL),
    # psql 15.18 reads ~/.psqlrc-15.18 (the full version string), else ~/.psqlrc-15, and only
    # then ~/.psqlrc (tested: a ~/.psqlrc-15 ran its \! in place of ~/.psqlrc).
    Entry(".psqlrc-*", False, _PSQL, pattern=True),
    Entry(".sqliterc", False, _SQLITE),
    Entry(".config/sqlite3/sqliterc", False, _SQLITE),
    # Both read from the folder you start them in and the home folder (pry: ~/.pryrc or
    # ~/.config/pry/pryrc, then ./.pryrc; ghci: ./.ghci, then ~/.ghci and ~/.config/ghc/ghci.conf).
    Entry(".pryrc", False, _PRY, every_folder=True),
    Entry(".config/pry", True, _PRY),
    Entry(".ghci", False, _GHCI, every_folder=True),
    Entry(".config/ghc", True, _GHCI),
    Entry(".octaverc", False, N_("Octave runs it when it starts in this folder or your home folder (system runs a "
                                 "shell command)"), every_folder=True),
    Entry(".ipython", True, N_("IPython runs the scripts of its start-up folder when it starts")),
    # Both read from the folder you start them in (and, without one there, the home folder's).
    Entry(".Rprofile", False, N_("R runs it when it starts"), every_folder=True),
    # The same folder's (https://stat.ethz.ch/R-manual/R-devel/library/base/html/Startup.html):
    # .Renviron's R_PROFILE_USER names another profile to run (any file, not only an .Rprofile),
    # and R (RStudio too) restores .RData, then calls the .First function saved in it.
    Entry(".Renviron", False, N_("R sets the variables in it when it starts: R_PROFILE_USER names a file of R code "
                                 "it then runs"), every_folder=True),
    Entry(".RData", False, N_("R loads this saved session when it starts in this folder and runs the .First "
                              "function saved in it"), every_folder=True),
    Entry(".pdbrc", False, N_("Python's debugger runs the lines in it, Python included, when it starts in this "
                              "folder: a breakpoint() in your own code, python -m pdb, pytest --pdb"),
          every_folder=True),
    # Read from the folder they start in, as .pdbrc is: perl -d runs .perldb as Perl (perl5db.pl,
    # when the person owns it, as the sandbox writes); irb the first of ~/.irbrc, ./.irbrc,
    # ./irb.rc, ./_irbrc and ./$irbrc that exists (irb 1.4, Ruby 3.1), as Ruby.
    Entry(".perldb", False, N_("Perl's debugger runs it, Perl included, when it starts in this folder (perl -d)"),
          every_folder=True),
    *(Entry(name, False, N_("Ruby's irb prompt runs it, Ruby included, when it starts in this folder and your "
                            "home folder has no .irbrc"), every_folder=True)
      for name in (".irbrc", "irb.rc", "_irbrc", "$irbrc")),
    # cargo reads them from the current folder up (https://doc.rust-lang.org/cargo/reference/config.html),
    # the home folder's for every project: a ``build.rustc-wrapper`` runs at ``cargo metadata``
    # (``rustc -vV``), which builds nothing and which an editor's rust-analyzer runs on opening.
    Entry(".cargo/config.toml", False, _CARGO, every_folder=True),
    Entry(".cargo/config", False, _CARGO, every_folder=True),
    # Hidden too when it exists (it holds tokens); a project's own .npmrc is its content.
    # Other package managers' settings in the home folder, read for every project: where what
    # they install comes from, and what they run to build it.
    Entry(".yarnrc", False, _YARN, home_only=True),
    Entry(".yarnrc.yml", False, _YARN, home_only=True),
    Entry(".gradle/init.d", True, _GRADLE_INIT, home_only=True),
    Entry(".gradle/init.gradle", False, _GRADLE_INIT, home_only=True),
    Entry(".gradle/init.gradle.kts", False, _GRADLE_INIT, home_only=True),
    Entry(".gradle/gradle.properties", False, N_("Gradle passes the Java options in it (org.gradle.jvmargs) to every "
                                                 "build of every project: one can load a library of its choice"),
          home_only=True),
    *(Entry(f".m2/{name}", False, _MAVEN, home_only=True) for name in ("settings.xml", "toolchains.xml",
                                                                       "extensions.xml")),
    Entry(".config/uv", True, N_("uv installs packages and Pythons from the indexes and mirrors its settings name: "
                                 "what it installs runs")),
    *(Entry(name, folder, _CONDA) for name, folder in ((".condarc", False), (".conda/condarc", False),
                                                       (".config/conda", True))),
    Entry(".bundle/config", False, N_("Bundler installs gems from the mirrors and with the build options its settings "
                                      "name, for every project: what it installs runs"), home_only=True),
    Entry(".config/go/env", False, N_("go runs the program GOFLAGS' -toolexec names at every build, and downloads "
                                      "modules from the proxy it names")),
    Entry(".npmrc", False, N_("npm runs every script of every project through the shell it names (script-shell), "
                              "with the Node options it names, and installs from the registry it names"),
          home_only=True),
)

#: The entries read from every folder.
EVERY_FOLDER = tuple(e for e in ENTRIES if e.every_folder)
#: The last names of those entries (the walk for repositories looks for them in every folder it
#: reads; ``in_every_folder`` says whether the rest of the path matches too).
IN_EVERY_FOLDER = frozenset(e.path.rsplit("/", 1)[-1].casefold() for e in EVERY_FOLDER)
_EVERY_FOLDER_PATHS = tuple("/" + e.path.casefold() for e in EVERY_FOLDER)


def in_every_folder(path: str) -> bool:
    """Whether the absolute ``path`` ends with an entry read from every folder (case-folded, as
    ``.git`` is: a file system may fold case): ``…/src/.config/mise.toml``, not ``…/src/x/mise.toml``
    under another name than an entry's."""
    folded = path.casefold()
    return folded.endswith(_EVERY_FOLDER_PATHS)

#: Start-up files that a shell reads only in the home folder: a placeholder for a missing one is
#: made only there (an empty file elsewhere would show up in ``git status``).
HOME_PLACEHOLDERS = frozenset({
    ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zshenv", ".zprofile",
    ".zlogin", ".config/fish",
})

#: In every git folder: what makes git run code or read configuration (never writable in the sandbox).
GIT_PARTS: tuple[Entry, ...] = (
    Entry("config", False, N_("git's settings for the repository: hooks path, aliases, filters, fsmonitor, pager")),
    Entry("config.worktree", False, N_("more settings for one worktree")),
    Entry("commondir", False, N_("where git finds the rest of the repository, settings and hooks included")),
    Entry("gitdir", False, N_("which work tree a linked worktree belongs to")),
    Entry("hooks", True, N_("programs git runs on commit, checkout, merge, push, …")),
    Entry("info", True, N_("attributes (which filter programs run) and exclusions")),
)

#: An entry the person added in Settings › Sandbox.
ADDED_BY_YOU = N_("you added it in Settings › Sandbox")
#: Watched in every repository besides its git folder's parts (``inventory``).
GIT_FILE = N_("it says which git folder, and so which hooks and settings, git uses here")
HOOKS_PATH = N_("git runs the hooks in it (core.hooksPath names it)")
HIDDEN_SECRET = N_("a place the sandbox hides when it exists (keys, credentials): the programs that read it run "
                   "the commands its settings name (ssh's ProxyCommand, kubectl's and aws's credential commands)")
DIRENV_LOADS = N_("an .envrc of the workspace makes direnv load it (a file it sources, a .env, a folder it puts "
                  "first on PATH) every time you enter that folder, without asking again")
SHELL_LOADS = N_("your shell's start-up file makes every terminal you open load it (a file it sources, a folder it "
                 "puts first on PATH, a program it runs), without asking")
CONFIG_PROGRAM = N_("git runs it, or takes code from it, because a repository's or your own git settings name it "
                    "(fsmonitor, an editor or pager, a filter, an alias, the templates of new repositories)")
INCLUDED_CONFIG = N_("git reads it as part of a repository's settings (include.path names it)")


def added(paths: Iterable[str]) -> tuple[Entry, ...]:
    """The person's own entries (already checked by ``problem``; bad ones are left out)."""
    found: list[Entry] = []
    for raw in paths:
        if problem(raw):
            continue
        folder = raw.strip().endswith("/")
        found.append(Entry(str(PurePosixPath(raw.strip())), folder, ADDED_BY_YOU))
    return tuple(found)


def problem(raw: str) -> str:
    """Why ``raw`` cannot be an entry ('' when it can): a path inside the workspace, no ``..``."""
    text = raw.strip()
    if not text:
        return "empty"
    if text.startswith(("/", "~")) or "\\" in text:
        return "not a path inside the workspace"
    if any(ord(c) < 32 or ord(c) == 127 for c in text):
        return "has a control character"
    parts = PurePosixPath(text).parts
    if not parts or any(p in ("..", ".") for p in parts):
        return "not a path inside the workspace"
    return ""


#: Names a program reads in place of one another, in the same folder, the first found winning:
#: the person's own entry for one of them (a ``Makefile`` they reviewed) covers the others, or a
#: command would plant a ``GNUmakefile`` beside it and ``make`` would run that instead.
STAND_INS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("GNUmakefile", "makefile", "Makefile"),
     N_("make reads it instead of the makefile you protected (it looks for GNUmakefile, makefile and Makefile, "
        "in that order)")),
)


def _stand_ins(entries: Iterable[Entry]) -> list[Entry]:
    """The names that stand in for the files among ``entries`` (``STAND_INS``), in the same folder."""
    found: list[Entry] = []
    for entry in entries:
        head, _, name = entry.path.rpartition("/")
        for names, why in STAND_INS:
            if not entry.folder and name in names:
                found += [Entry(f"{head}/{other}" if head else other, False, why) for other in names if other != name]
    return found


def all_entries(extra: Iterable[str] = (), *, in_home: bool = True) -> tuple[Entry, ...]:
    """The built-in entries, then the person's own (none twice), then what stands in for those
    (``STAND_INS``). ``in_home``: the workspace is the home folder (otherwise the entries that
    matter only there are left out)."""
    built_in = tuple(e for e in ENTRIES if in_home or not e.home_only)
    known = {e.path for e in built_in}
    own = tuple(e for e in added(extra) if e.path not in known)
    known |= {e.path for e in own}
    stand_ins: list[Entry] = []
    for entry in _stand_ins(own):
        if entry.path not in known:
            known.add(entry.path)
            stand_ins.append(entry)
    return built_in + own + tuple(stand_ins)


def entry_of(relative: tuple[str, ...], entries: Iterable[Entry], *, fold: bool = False) -> Entry | None:
    """The entry that covers the workspace-relative path ``relative`` (itself, or inside a folder
    entry); ``fold`` compares names case-insensitively (a file system that folds case)."""
    def norm(parts: Iterable[str]) -> tuple[str, ...]:
        return tuple(p.casefold() for p in parts) if fold else tuple(parts)

    wanted = norm(relative)
    below: Entry | None = None
    longest = 0
    for entry in entries:
        parts = norm(PurePosixPath(entry.path).parts)
        if entry.pattern:
            if len(wanted) == len(parts) and wanted[:-1] == parts[:-1] and fnmatch.fnmatchcase(wanted[-1], parts[-1]):
                return entry
            continue
        if wanted == parts or (entry.folder and wanted[: len(parts)] == parts):
            return entry
        # Below the top: the entry of the most parts (``src/.config/mise.toml`` is that one, not
        # ``mise.toml``), whichever comes first in the list.
        if entry.every_folder and len(parts) > longest and _holds(wanted, parts, inside=entry.folder):
            below, longest = entry, len(parts)
    return below


def _holds(wanted: tuple[str, ...], parts: tuple[str, ...], *, inside: bool) -> bool:
    """``wanted`` ends with ``parts`` (or, ``inside`` a folder entry, has them anywhere in a row)."""
    if not inside:
        return len(wanted) >= len(parts) and wanted[-len(parts):] == parts
    return any(wanted[i:i + len(parts)] == parts for i in range(len(wanted) - len(parts) + 1))
