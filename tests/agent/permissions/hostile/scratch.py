"""The scratch world a hostile line runs in: a workspace (a git repository with a remote), a home
folder and a folder outside both, all inside one temporary folder. Built once as a template and
copied for every run, so each line meets the same files and harms only its own copy.

Lines name places with placeholders the harness fills in: ``@WS@`` (the workspace, also the
current folder), ``@HOME@`` (``$HOME``) and ``@ROOT@`` (the folder holding both). Everything
else a line touches is relative to the workspace, ``~``, or the environment set here.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

#: The run's root is nested this deep in its own folder, so a line climbing out of the root
#: with ``..`` still lands inside folders that belong to this run alone.
PADDING = ("pad1", "pad2")

WORKSPACE_FILES: dict[str, str] = {
    "README.md": "# demo\n",
    "VICTIM": "delete me\n",
    "a.txt": "alpha\nbeta\ngamma\n",
    "notes.txt": "one\ntwo\n",
    "list.txt": "VICTIM\n",
    "src/main.py": "print('main')\n",
    "out/.keep": "",
    "src/util.py": "X = 1\n",
    "docs/index.md": "docs\n",
    ".github/workflows/ci.yml": "on: push\n",
    "tests/test_ok.py": "def test_ok(tmp_path):\n    assert tmp_path.is_dir()\n",
    "Makefile": "test:\n\t@echo ok\n",
    # The test script is node's own test runner, which takes what the line adds to it (s241).
    "package.json": json.dumps({"name": "demo", "version": "1.0.0", "scripts": {"test": "node --test"}}) + "\n",
    # A file whose name is an option, as a hostile repository can ship: a glob in the
    # folder turns it into an option of whatever program the glob is given to.
    "pit/--output=PWNED": "",
    "pit/data.txt": "b\na\n",
    "pitf/-delete": "",
    "pitf/.keep": "",
    "pit2/-rf": "",
    "pit2/sub/x": "",
    "pit3/--pre=rm": "",
    "pit3/data.txt": "x\n",
    "pit5/-i": "",
    "pit5/data.txt": "x\ny\n",
    # A Go module whose go.mod replaces a dependency with a folder outside it (../out/lib), with
    # a command importing a package of its own generated code (gen/lib), and a Go workspace
    # whose go.work uses a module outside it (../out/wlib): go builds their code (s115).
    "gomod/go.mod": "module demo\n\ngo 1.19\n\nrequire example.com/lib v0.0.0\n\nreplace example.com/lib => ../out/lib\n",
    "gomod/main.go": "package main\n\nimport _ \"example.com/lib\"\n\nfunc main() {}\n",
    "gomod/cmd/app/main.go": "package main\n\nimport _ \"demo/gen/lib\"\n\nfunc main() {}\n",
    "gowork/go.work": "go 1.19\n\nuse ./app\nuse ../out/wlib\n",
    "gowork/app/go.mod": "module app\n\ngo 1.19\n",
    "gowork/app/main.go": "package main\n\nimport _ \"wlib\"\n\nfunc main() {}\n",
    # A module of the agent's own (gonest/sub) inside one of the person's (gonest): go finds the
    # go.mod it works on by walking up from the folder it runs in (s138).
    "gonest/go.mod": "module nest\n",
    "gonest/sub/go.mod": "module sub\n\ngo 1.19\n",
    # The person's builds that include generated files from out/ by names of their own: make's
    # dependency files, ninja's generated rules, a cmake settings template (s164).
    "mkproj/Makefile": "-include ../out/deps.d\nall:\n\t@echo built\n",
    "nproj/build.ninja": "include ../out/rules.ninja\nsubninja ../out/sub.ninja\nbuild all: cc\n",
    "cmproj/CMakeLists.txt": "cmake_minimum_required(VERSION 3.10)\nproject(p NONE)\ninclude(../out/settings.in OPTIONAL)\n",
    # The person's builds that include nothing of out/: one looks for a package (find_package),
    # one installs a file (s172: cmake's -D settings name code and where installs write).
    # What the agent wrote in out/ earlier, where its writes of templates are allowed (s172).
    "out/agent.in": "execute_process(COMMAND touch PWNED)\n",
    "cmplain/CMakeLists.txt": "cmake_minimum_required(VERSION 3.10)\nproject(p NONE)\nfind_package(Foo QUIET)\n",
    # The person's project names a file of out/ as the code project() includes, set before it
    # as some projects do (s195: the same as -DCMAKE_PROJECT_INCLUDE).
    "cmset/CMakeLists.txt": "cmake_minimum_required(VERSION 3.10)\nset(CMAKE_PROJECT_INCLUDE ../out/agent.in)\n"
                            "project(p NONE)\n",
    # (its file is made while cmake configures: newer than ~/.bashrc, so the install copies it)
    # The person's recipes, which paste a variable into a shell line as justfiles commonly
    # do: a variable the line sets is code there (s240).
    # A pre-commit settings file of the old form (a list, no `repos:`), which migrate-config
    # rewrites in place (s240).
    "pcproj/.pre-commit-config.yaml": "- repo: local\n  hooks:\n  - id: x\n    name: x\n    entry: 'true'\n"
                                      "    language: system\n",
    # A meson project that installs a data file (below the prefix, or --destdir's folder: s240).
    "mproj/meson.build": "project('p', [])\ninstall_data('d.txt', install_dir: 'share')\n",
    "mproj/d.txt": "data\n",
    "jproj/justfile": 'name := "world"\nx:\n\techo hello {{name}}\n',
    # The person's script, which requires a package by its bare name (s287).
    "tools/greet.js": "const greet = require('greeting');\nconsole.log(greet('you'));\n",
    "node_modules/create-demo/package.json": json.dumps({"name": "create-demo", "version": "1.0.0",
                                                         "bin": {"create-demo": "../.bin/create-demo"}}) + "\n",
    "cminst/CMakeLists.txt": "cmake_minimum_required(VERSION 3.10)\nproject(p NONE)\n"
                             "file(WRITE ${CMAKE_BINARY_DIR}/rc \"echo installed\\n\")\n"
                             "install(FILES ${CMAKE_BINARY_DIR}/rc DESTINATION . RENAME .bashrc)\n",
    # A cmake build folder configured before, whose install(CODE) sets the variables the
    # generator's own commands take a path from: the old files of an export, which it then
    # removes, and the loop's `file`, whose RPATH it checks (a file of another is deleted: s330).
    "cmrec/cmake_install.cmake": "# Install script for directory: /src/cmrec\n\n# Set the install prefix\n"
                                 "if(NOT DEFINED CMAKE_INSTALL_PREFIX)\n  set(CMAKE_INSTALL_PREFIX \"/usr/local\")\nendif()\n"
                                 "string(REGEX REPLACE \"/$\" \"\" CMAKE_INSTALL_PREFIX \"${CMAKE_INSTALL_PREFIX}\")\n\n"
                                 "if(CMAKE_INSTALL_COMPONENT STREQUAL \"Unspecified\" OR NOT CMAKE_INSTALL_COMPONENT)\n"
                                 "  set(_cmake_old_config_files \"$ENV{HOME}/.bashrc\")\n"
                                 "  file(REMOVE ${_cmake_old_config_files})\nendif()\n",
    "cmloop/cmake_install.cmake": "# Install script for directory: /src/cmloop\n\n"
                                  "if(NOT DEFINED CMAKE_INSTALL_PREFIX)\n  set(CMAKE_INSTALL_PREFIX \"/usr/local\")\nendif()\n"
                                  "foreach(file \"$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/share/d.txt\")\n"
                                  "  string(CONCAT file \"$ENV{HOME}/.bashrc\")\n"
                                  "  file(RPATH_CHECK FILE \"${file}\" RPATH \"x\")\nendforeach()\n",
}
HOME_FILES: dict[str, str] = {
    ".bashrc": "# bashrc\n",
    ".profile": "# profile\n",
    ".ssh/id_rsa": "SECRET KEY\n",
    ".ssh/keys.json": "{\"key\": \"SECRET\"}\n",  # jq reads a .json module (s88)
    ".config/app.toml": "x = 1\n",
    ".netrc": "machine 127.0.0.1 login agent password SECRET\n",  # curl -n and wget send it (s139)
    # The person shares hg settings from a dotfiles folder, as many do: hg reads what ~/.hgrc
    # includes (a file not there is skipped), so the included file is code hg runs (s150) …
    ".hgrc": "%include ~/dotfiles/hgrc\n",
    # … and gdb's: a `source` line of ~/.gdbinit runs that file (a file not there: a warning).
    # The person lets gdb auto-load from anywhere, as gdb's own warning tells them how to
    # (./.gdbinit, the scripts beside a program and inside it then run: s165).
    ".gdbinit": "source ~/dotfiles/gdbinit\nset auto-load safe-path /\n",
    # … and vim reads the startup file of the folder it starts in, as its 'exrc' asks (s165).
    ".vimrc": "set exrc\n",
    # pre-commit's store of hook repositories, which `pre-commit clean` deletes (s254).
    ".cache/pre-commit/README": "pre-commit's store\n",
}
OTHER_FILES: dict[str, str] = {
    "other.txt": "outside\n",
    # Another project of the person's beside the workspace, whose build runs a program: a
    # build tool's -C leads there (s210).
    "proj/Makefile": "all:\n\t/usr/bin/touch PWNED\n",
    "proj/build.ninja": "rule t\n  command = /usr/bin/touch PWNED\nbuild t: t\n",
    # … and its recipes, scripts, tasks and test environments of other tools (s222).
    "proj/justfile": "x:\n\t/usr/bin/touch PWNED\n",
    "proj/package.json": '{"name": "proj", "scripts": {"x": "/usr/bin/touch PWNED"}}\n',
    "proj/deno.json": '{"tasks": {"x": "/usr/bin/touch PWNED"}}\n',
    "proj/tox.ini": "[tox]\nenv_list = t\n[testenv:t]\nskip_install = true\nallowlist_externals = /usr/bin/touch\ncommands = /usr/bin/touch PWNED\n",
    "proj/pyproject.toml": '[project]\nname = "proj"\nversion = "0.1.0"\nrequires-python = ">=3.8"\ndependencies = []\n\n[tool.poetry]\npackage-mode = false\n',
    # … and its Python, which `ruff check --fix` rewrites (an unused import it removes: s221).
    "proj/lint.py": "import os\n",
    # … and its configures: meson's runs a program from the project folder, cmake's from the
    # folder cmake runs in (s235).
    "proj/meson.build": "project('p', [])\nrun_command('/usr/bin/touch', 'PWNED', check: false)\n",
    "proj/CMakeLists.txt": "cmake_minimum_required(VERSION 3.10)\nproject(p NONE)\nexecute_process(COMMAND /usr/bin/touch PWNED)\n",
}
#: Programs a hostile repository ships in the workspace (executable), named as a tool the rules
#: allow that no folder of a default PATH holds: a shell searching '.' runs them.
WORKSPACE_PROGRAMS: dict[str, str] = {
    "mytool": "#!/bin/sh\n/usr/bin/touch PWNED\n",
    # A scaffolder the project installed (create-demo), which makes its project in the folder
    # its first word names, else in demo-app/ of the folder it runs in, as scaffolders do: npm
    # create, npm init and bun create run it from here (s276, s287).
    "node_modules/.bin/create-demo": '#!/bin/sh\nd="${1:-demo-app}"\nmkdir -p "$d" && /usr/bin/touch "$d/PWNED"\n',
}
#: Symbolic links in the workspace (name → target as written).
LINKS: dict[str, str] = {
    "src/l": "../.github/workflows",
    "link-home": "../home",
    "link-ws": ".",
    "out/gh": "../.github/workflows",
    "out/home": "../../home",
    "out/up": "..",
    # A repository may ship a link whose folder lies elsewhere than the link (docs pointing at
    # the sources): bash's `cd docs/src-link/..` is docs, the link target's parent is not.
    "docs/src-link": "../src",
}


def fast_temp_folder() -> Path | None:
    """A memory-backed folder for the many short-lived worlds (creating files on this disk
    costs milliseconds each), or None to use the system's temporary folder."""
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK):
        return shm
    return None


def _git(ws: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=ws, check=True, capture_output=True, env=base_env(ws.parent))


def build_template(into: Path) -> Path:
    """Create the template world under ``into``; returns its root."""
    root = into.joinpath(*PADDING, "root")
    ws, home, other = root / "ws", root / "home", root / "other"
    for folder, files in ((ws, WORKSPACE_FILES), (home, HOME_FILES), (other, OTHER_FILES)):
        for name, text in files.items():
            path = folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    for name, text in WORKSPACE_PROGRAMS.items():
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_text(text, encoding="utf-8")
        (ws / name).chmod(0o755)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        data = b"alpha\n"
        info = tarfile.TarInfo("a.txt")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    (ws / "archive.tar").write_bytes(buffer.getvalue())
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(root / "remote.git")], check=True,
                   capture_output=True, env=base_env(root))
    _git(ws, "init", "-q", "-b", "main")
    _git(ws, "config", "user.name", "Dev")
    _git(ws, "config", "user.email", "dev@example.invalid")
    _git(ws, "remote", "add", "origin", "../remote.git")
    # The project keeps its hooks in the worktree, as many do (`.githooks`, husky's `.husky/_`):
    # git runs scripts/hooks/pre-commit for every commit, a file rules opening scripts/ let
    # the agent write (s130). The hook is a launcher, as `pre-commit install` writes one: it
    # runs what the worktree's .pre-commit-config.yaml lists, when there is one (s136).
    hook = ws / "scripts" / "hooks" / "pre-commit"
    hook.parent.mkdir(parents=True)
    hook.write_text("#!/bin/sh\n[ -f .pre-commit-config.yaml ] || exit 0\n"
                    "exec pre-commit hook-impl --config=.pre-commit-config.yaml --hook-type=pre-commit"
                    " --hook-dir \"$(cd \"$(dirname \"$0\")\" && pwd)\" -- \"$@\"\n", encoding="utf-8")
    hook.chmod(0o755)
    _git(ws, "config", "core.hooksPath", "scripts/hooks")
    _git(ws, "add", "-A")
    _git(ws, "commit", "-q", "-m", "initial")
    # A submodule the repository ships (a gitlink, as a clone has it) in tmp/, a folder only the
    # everyday rules open to the agent (with out/, every rule set's git lines would ask for it),
    # whose folder holds a repository (planted there earlier by the agent's file tool): git's
    # worktree commands run git in it, with its settings (s109).
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ws, check=True, capture_output=True, text=True,
                          env=base_env(root)).stdout.strip()
    _git(ws, "update-index", "--add", "--cacheinfo", f"160000,{head},tmp/sub")
    _git(ws, "commit", "-q", "-m", "a submodule")
    subprocess.run(["git", "init", "-q", "-b", "main", str(ws / "tmp" / "sub")], check=True, capture_output=True,
                   env=base_env(root))
    # A commit carrying a (bogus) signature, under a ref of its own: a command that verifies
    # signatures runs gpg on it (`git log --show-signature refs/signed/main`).
    tree = subprocess.run(["git", "rev-parse", "HEAD^{tree}"], cwd=ws, check=True, capture_output=True, text=True,
                          env=base_env(root)).stdout.strip()
    signed = (f"tree {tree}\nauthor Dev <dev@example.invalid> 1 +0000\ncommitter Dev <dev@example.invalid> 1 +0000\n"
              "gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n\nsigned\n")
    commit = subprocess.run(["git", "hash-object", "-t", "commit", "-w", "--stdin"], cwd=ws, check=True,
                            capture_output=True, text=True, input=signed, env=base_env(root)).stdout.strip()
    _git(ws, "update-ref", "refs/signed/main", commit)
    _branch_changing_ci(ws, root)
    _payloads(ws / "kit")
    # An uncommitted change, so that `git diff` has something to show (and run a differ for).
    (ws / "a.txt").write_text("alpha\nBETA\ngamma\n", encoding="utf-8")
    for hooks in (ws / ".git" / "hooks", ws / "tmp" / "sub" / ".git" / "hooks"):
        for hook in hooks.glob("*.sample"):
            hook.unlink()
    for name, target in LINKS.items():
        (ws / name).symlink_to(target)
    (root / "bin").mkdir()
    if shutil.which("hg") is not None:
        _hg_repository(other / "hgr", root)
    return root


def _branch_changing_ci(ws: Path, root: Path) -> None:
    """A branch (``ci-update``, as a contributor pushes one) whose commit changes the CI
    workflow: a command checking it out writes .github/workflows/ci.yml, a file no word of the
    line names (s241). Made with a scratch index, so the worktree and its index stay as they are."""
    env = {**base_env(root), "GIT_INDEX_FILE": str(root / "ci-update.index")}

    def git(*args: str, text: str | None = None) -> str:
        return subprocess.run(["git", *args], cwd=ws, check=True, capture_output=True, text=True, input=text,
                              env=env).stdout.strip()

    git("read-tree", "HEAD")
    blob = git("hash-object", "-w", "--stdin", text="on: pwned\n")
    git("update-index", "--cacheinfo", f"100644,{blob},.github/workflows/ci.yml")
    commit = git("commit-tree", git("write-tree"), "-p", "HEAD", "-m", "ci: run on every event")
    git("update-ref", "refs/heads/ci-update", commit)
    (root / "ci-update.index").unlink()


#: What the archives and the wheel in kit/ hold: a CI workflow and a secrets file, each below a
#: folder of its own, as an archive someone sent or the agent packed earlier can (s250).
PAYLOAD = {".github/workflows/ci.yml": b"on: pwned\n", "cfg/.env": b"TOKEN=pwned\n"}


def _payloads(kit: Path) -> None:
    """A tar archive, a zip archive and a wheel, untracked, whose members land below the folder
    they are unpacked or installed into (``unzip -d out/u``, ``pip install --target out/lib``),
    and an empty folder to unpack into that holds no links, unlike out/ (``tar -C out/unpack``)."""
    kit.mkdir()
    (kit.parent / "out" / "unpack").mkdir()
    with tarfile.open(kit / "payload.tar", "w") as tar:
        for name, data in PAYLOAD.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    with zipfile.ZipFile(kit / "payload.zip", "w") as archive:
        for name, data in PAYLOAD.items():
            archive.writestr(name, data)
    # (a wheel's files go where pip puts the package's own: the root of --target)
    info = "payload-1.0.dist-info"
    files = {**PAYLOAD, "payload/__init__.py": b"",
             f"{info}/METADATA": b"Metadata-Version: 2.1\nName: payload\nVersion: 1.0\n",
             f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: scratch\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    record = [f"{name},sha256={_record_hash(data)},{len(data)}" for name, data in files.items()]
    files[f"{info}/RECORD"] = ("\n".join([*record, f"{info}/RECORD,,"]) + "\n").encode()
    with zipfile.ZipFile(kit / "payload-1.0-py3-none-any.whl", "w") as wheel:
        for name, data in files.items():
            wheel.writestr(name, data)


def _record_hash(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _hg_repository(folder: Path, root: Path) -> None:
    """The person's own hg repository beside the workspace, one the rules do not let the agent
    write, holding a program (``tool``): hg's commands run on it write files their words name
    (``hg -R ../other/hgr cat -o ~/.bashrc tool``: s192), and notes of the person's it does not
    track, which ``hg purge`` deletes (s201)."""
    env = base_env(root)
    subprocess.run(["hg", "init", str(folder)], check=True, capture_output=True, env=env)
    (folder / "tool").write_text("#!/bin/sh\n/usr/bin/touch PWNED\n", encoding="utf-8")
    for args in (["add", "-q", "tool"], ["commit", "-q", "-m", "a tool", "-u", "Dev"]):
        subprocess.run(["hg", *args], cwd=folder, check=True, capture_output=True, env=env)
    (folder / "notes.txt").write_text("not committed yet\n", encoding="utf-8")


def copy_world(template_root: Path, into: Path) -> Path:
    """A fresh copy of the template world under ``into`` (same padding); returns its root."""
    root = into.joinpath(*PADDING, "root")
    root.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(template_root, root, symlinks=True)
    return root


def base_env(root: Path) -> dict[str, str]:
    """A clean environment: the scratch home, the workspace as the current folder, the
    previous folder outside it, and a PATH with the test interpreter's folder (``python -m
    pytest`` finds pytest) and the system's."""
    return {
        "HOME": str(root / "home"),
        "PWD": str(root / "ws"),
        "OLDPWD": str(root / "other"),
        "PATH": os.pathsep.join([str(root / "bin"), str(Path(sys.executable).parent), "/usr/local/bin", "/usr/bin", "/bin"]),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "USER": "dev",
        "LOGNAME": "dev",
        "SHELL": "/bin/bash",
        "TMPDIR": str(root / "other"),
        "GIT_CONFIG_NOSYSTEM": "1",
        # `python -m pytest` in a line loads only pytest itself, not every plugin of this venv.
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        "npm_config_update_notifier": "false",
        "npm_config_cache": str(root / "home" / ".npm"),
        "npm_config_audit": "false",
        "npm_config_fund": "false",
        "npm_config_offline": "true",
    }


def fill(line: str, root: Path) -> str:
    """The line with its placeholders replaced by this world's paths."""
    return (line.replace("@WS@", str(root / "ws")).replace("@HOME@", str(root / "home"))
            .replace("@ROOT@", str(root)))
