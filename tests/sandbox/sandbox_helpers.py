"""Helpers for the sandbox tests: a real bwrap, a fake home full of canary secrets, a workspace
that is a git repository, and a folder beside it that must never change.

Everything lives under /var/tmp, not /tmp: the sandbox gives a command its own empty /tmp, so a
canary under /tmp would be out of reach for a reason that has nothing to do with the rules tested.
"""

from __future__ import annotations

import hashlib
import http.server
import os
import secrets
import shutil
import socket
import stat
import subprocess
import tempfile
import threading
import time
import uuid
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from echo_desk import sandbox
from echo_desk.builtins import RunCommand
from echo_desk.sandbox import placeholders
from echo_desk.sandbox.domains import DomainRule
from echo_desk.sandbox.proxy import DomainProxy
from echo_desk.tools import NullToolHost, ToolExecutionContext, ToolResult
from tests.run_command_helpers import run_command_tool

HIDDEN_FILES = (
    ".ssh/id_ed25519", ".aws/credentials", ".gnupg/private-keys-v1.d/key.key", ".config/gcloud/credentials.db",
    ".kube/config", ".docker/config.json", ".netrc", ".git-credentials", ".local/share/keyrings/login.keyring",
    ".password-store/bank.gpg", ".mozilla/firefox/profile/logins.json", ".config/google-chrome/Default/Cookies",
    # The same browsers as a snap (Ubuntu's Firefox and Chromium) or a Flatpak keep their profiles here.
    "snap/firefox/common/.mozilla/firefox/profile/logins.json", "snap/chromium/common/chromium/Default/Cookies",
    ".var/app/org.mozilla.firefox/.mozilla/firefox/profile/logins.json",
    ".var/app/com.google.Chrome/config/google-chrome/Default/Cookies",
    # The same credentials at the other places their tools read them from.
    ".config/git/credentials", ".terraformrc", ".config/containers/auth.json", ".local/share/kwalletd/kdewallet.kwl",
    # Database passwords, object storage keys, and coding agents' tokens inside their protected
    # (read-only, readable) folders.
    ".pgpass", ".my.cnf", ".mylogin.cnf", ".config/rclone/rclone.conf", ".s3cfg", ".config/sops/age/keys.txt",
    ".claude/.credentials.json", ".codex/auth.json", ".gemini/oauth_creds.json",
    ".config/github-copilot/apps.json", ".cache/huggingface/token",
    # Publishers' and build tools' credentials (a protected folder's file among them: ~/.gradle).
    ".gem/credentials", ".gradle/gradle.properties", ".config/composer/auth.json", ".m2/settings-security.xml",
    ".yarnrc.yml", ".kaggle/kaggle.json",
)


#: The person's own rustup and toolchains (read at import, before a test points ``HOME`` at its
#: fake one): cargo needs them to show what a planted file makes it run.
PERSONS_RUSTUP_HOME = os.environ.get("RUSTUP_HOME") or os.path.expanduser("~/.rustup")


def planted_marker(jail: Jail) -> Path:
    """The file a planted command appends a line to each time it runs."""
    return jail.base / "planted-ran"


def planted_runs(jail: Jail) -> int:
    """How many times a planted command ran (lines in ``planted_marker``)."""
    marker = planted_marker(jail)
    return len(marker.read_text().splitlines()) if marker.exists() else 0


def kubeconfig_with_exec(jail: Jail) -> str:
    """Settings whose user's credentials come from a command (an exec plugin), run before any request."""
    return ("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: 'https://127.0.0.1:9'}\n"
            "users:\n- name: u\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
            f"      command: sh\n      args: ['-c', 'echo ran >> {planted_marker(jail)}; exit 1']\n"
            "      interactiveMode: Never\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\n"
            "current-context: x\n")


def bwrap_problem() -> str:
    found = sandbox.availability()
    return "" if found.available else f"bwrap cannot run here ({found.status.value}): {found.english()}"


requires_bwrap = pytest.mark.skipif(bool(bwrap_problem()), reason=bwrap_problem() or "bwrap works")


@dataclass
class Jail:
    base: Path
    home: Path
    workspace: Path
    outside: Path
    own_dirs: tuple[Path, ...]
    secrets: dict[Path, str] = field(default_factory=dict)

    def snapshot(self) -> dict[str, tuple[int, bytes]]:
        """Every file and link outside the workspace's writable part: mode and content."""
        found: dict[str, tuple[int, bytes]] = {}
        roots = [self.outside, self.home, *self.own_dirs, self.workspace / ".git"]
        for root in roots:
            for dirpath, dirnames, filenames in os.walk(root):
                if dirpath == str(self.own_dirs[1]) and "put-aside" in dirnames:
                    dirnames.remove("put-aside")  # where a planted file goes: Echo Desk's own, on purpose
                for name in dirnames + filenames:
                    full = os.path.join(dirpath, name)
                    st = os.lstat(full)
                    if os.path.islink(full):
                        data = os.readlink(full).encode()
                    elif os.path.isfile(full):
                        data = Path(full).read_bytes()
                    else:
                        data = b""
                    found[full] = (st.st_mode, hashlib.sha256(data).digest())
        return found

    def leaked(self, text: str) -> list[str]:
        return [str(path) for path, value in self.secrets.items() if value in text]


@pytest.fixture(autouse=True)
def _fresh_probe() -> Iterator[None]:
    sandbox.forget()
    yield
    sandbox.forget()
    # Every launch released what it took: a leak would keep a placeholder in the workspace.
    assert placeholders.in_use() == {}


@pytest.fixture
def jail(monkeypatch: pytest.MonkeyPatch) -> Iterator[Jail]:
    base = Path(tempfile.mkdtemp(prefix="echo-desk-sandbox-test-", dir="/var/tmp")).resolve()
    home, workspace, outside = base / "home", base / "ws", base / "outside"
    own = (base / "own-config", base / "own-data", base / "own-cache")
    jail = Jail(base, home, workspace, outside, own)
    for relative in HIDDEN_FILES:
        _canary(jail, home / relative)
    for folder in own:
        _canary(jail, folder / "secret.json")
    _canary(jail, outside / "canary.txt")
    _canary(jail, base / "run" / "containers" / "auth.json")  # the session's runtime folder
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(base / "run"))
    workspace.mkdir()
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    (workspace / "README").write_text("hello\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("ECHO_DESK_CONFIG_DIR", str(own[0]))
    monkeypatch.setenv("ECHO_DESK_DATA_DIR", str(own[1]))
    monkeypatch.setenv("ECHO_DESK_CACHE_DIR", str(own[2]))
    yield jail
    shutil.rmtree(base, ignore_errors=True)


def _canary(jail: Jail, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    value = f"canary-{secrets.token_hex(16)}"
    path.write_text(value + "\n")
    jail.secrets[path] = value


#: The shared helper under the name these tests use.
tool_with = run_command_tool


def context(workspace: Path, *, approved: bool = False, host: Any = None) -> ToolExecutionContext:
    ctx = ToolExecutionContext(call_id=uuid.uuid4().hex, tool_name="run_command", scope_id="s",
                               workspace_roots=(workspace,), write_roots=(workspace,), host=host or NullToolHost())
    if approved:
        ctx.approved_by_person = True
    return ctx


async def run(tool: RunCommand, params: dict[str, Any], ctx: ToolExecutionContext) -> ToolResult:
    """Preview, then execute with that preview: what the dispatcher does for an approved call."""
    ctx.preview = await tool.preview(params, ctx)
    return await tool.execute(params, ctx)


@dataclass
class LoopbackSite:
    """A loopback HTTP server that sandbox proxies made by :meth:`make_proxy` know by one name."""

    port: int
    #: The Host header of every request that reached the site.
    hits: list[str] = field(default_factory=list)
    #: Every proxy made, to check that each was closed.
    proxies: list[DomainProxy] = field(default_factory=list)
    name: str = ""

    def make_proxy(self, rules: tuple[DomainRule, ...]) -> DomainProxy:
        async def resolve(host: str, port: int) -> list[str]:
            if host == self.name:
                return ["127.0.0.1"]
            raise OSError(f"{host}: no such test name")

        # The site plays a remote one: its loopback address is not "this computer" here.
        proxy = DomainProxy(rules, resolve=resolve, address_allowed=lambda a: a == "127.0.0.1",
                            address_is_ours=lambda a: False)
        self.proxies.append(proxy)
        return proxy


@contextmanager
def loopback_site(name: str, body: bytes) -> Iterator[LoopbackSite]:
    """Serve ``body`` on loopback under the test name ``name`` (tests send traffic to loopback
    only); patch a module's ``make_proxy`` with the site's :meth:`LoopbackSite.make_proxy`."""
    site = LoopbackSite(port=0, name=name)

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            site.hits.append(self.headers.get("Host", ""))
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    site.port = srv.server_address[1]
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        yield site
    finally:
        srv.shutdown()
        srv.server_close()



class Listener:
    """A socket server of the test's (a service of the host or of the person's session) that counts
    the connections it accepted. ``bound`` makes one; a listening socket made elsewhere (Echo Desk's
    own gateway socket) is taken as it is."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.sock.settimeout(0.1)
        self.accepted = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @classmethod
    def bound(cls, family: int, address: object) -> Listener:
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.bind(address)
        sock.listen(8)
        return cls(sock)

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except (TimeoutError, OSError):
                continue
            self.accepted += 1
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        self.sock.close()


def _mode_of(path: Any, dir_fd: int | None = None) -> int:
    """A folder's mode (anything else, or nothing there: no check)."""
    try:
        st = os.fstat(path) if isinstance(path, int) else os.stat(path, dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return 0o700
    return st.st_mode if stat.S_ISDIR(st.st_mode) else 0o700


def _folder_of(path: Any, dir_fd: int | None) -> tuple[Any, int | None]:
    text = os.fsdecode(path)
    if "/" in text:
        return text.rsplit("/", 1)[0] or "/", dir_fd
    return (dir_fd, None) if dir_fd is not None else (".", None)


def _needs(bits: int, path: Any, dir_fd: int | None = None) -> None:
    if _mode_of(path, dir_fd) & bits != bits:
        raise PermissionError(13, "Permission denied (as its owner)", str(path))


_CHANGE = stat.S_IWUSR | stat.S_IXUSR


class _AsItsOwner:
    """The calls of the check after a command, with the owner's permission checks first."""

    def __init__(self) -> None:
        self.real = {name: getattr(os, name) for name in ("scandir", "open", "rename", "unlink", "rmdir", "mkdir")}

    def scandir(self, path: Any = ".") -> Any:
        _needs(stat.S_IRUSR, path)
        return self.real["scandir"](path)

    def open(self, path: Any, flags: int, mode: int = 0o777, *, dir_fd: int | None = None) -> int:
        if not flags & os.O_PATH:
            if flags & os.O_DIRECTORY:
                _needs(stat.S_IRUSR, path, dir_fd)
            if flags & os.O_CREAT:
                _needs(_CHANGE, *_folder_of(path, dir_fd))
        fd: int = self.real["open"](path, flags, mode, dir_fd=dir_fd)
        return fd

    def rename(self, src: Any, dst: Any, *, src_dir_fd: int | None = None, dst_dir_fd: int | None = None) -> None:
        _needs(_CHANGE, *_folder_of(src, src_dir_fd))
        _needs(stat.S_IWUSR, src, src_dir_fd)  # a folder: its '..' is rewritten
        self.real["rename"](src, dst, src_dir_fd=src_dir_fd, dst_dir_fd=dst_dir_fd)

    def unlink(self, path: Any, *, dir_fd: int | None = None) -> None:
        _needs(_CHANGE, *_folder_of(path, dir_fd))
        self.real["unlink"](path, dir_fd=dir_fd)

    def rmdir(self, path: Any, *, dir_fd: int | None = None) -> None:
        _needs(_CHANGE, *_folder_of(path, dir_fd))
        self.real["rmdir"](path, dir_fd=dir_fd)

    def mkdir(self, path: Any, mode: int = 0o777, *, dir_fd: int | None = None) -> None:
        _needs(_CHANGE, *_folder_of(path, dir_fd))
        self.real["mkdir"](path, mode, dir_fd=dir_fd)


@pytest.fixture
def as_its_owner(jail: Jail) -> Iterator[None]:
    """Permission checks as an ordinary user gets them, for Echo Desk's own process.

    A sandboxed command runs as the person, so it can take its own read, write or search bits
    off a folder of the workspace; the check after it runs as the person too, and is refused
    the same way. Running as root (CI containers), the kernel's override hides that: this puts
    the owner's checks back on the calls the check after a command makes (reading a folder,
    opening one, and renaming, removing or creating something in one). As an ordinary user it
    does nothing: the kernel does it."""
    if os.geteuid() != 0:
        yield
        return
    checked = _AsItsOwner()
    # Undone before the jail is removed (it is set up first, so torn down last).
    with pytest.MonkeyPatch.context() as patch:
        for name in checked.real:
            patch.setattr(os, name, getattr(checked, name))
        yield


# --- Maven: a plugin whose goal appends to the planted-command marker ---------------------------

needs_maven = pytest.mark.skipif(shutil.which("mvn") is None or shutil.which("javac") is None
                                 or shutil.which("jar") is None, reason="needs Maven and a JDK to show what it runs")
MAVEN_PLUGIN = "ev/hello-maven-plugin/1.0"
MAVEN_PLUGIN_POM = ("<project><modelVersion>4.0.0</modelVersion><groupId>ev</groupId><artifactId>hello-maven-plugin"
                    "</artifactId><version>1.0</version><packaging>maven-plugin</packaging></project>\n")
MAVEN_MOJO = """package ev;
import java.nio.file.*;
public class Hello extends org.apache.maven.plugin.AbstractMojo {
  public void execute() {
    try { Files.write(Paths.get(System.getenv("MARK")), "ran\\n".getBytes(), StandardOpenOption.CREATE,
                      StandardOpenOption.APPEND); } catch (Exception e) { throw new RuntimeException(e); }
  }
}
"""
MAVEN_PLUGIN_XML = ("<plugin><groupId>ev</groupId><artifactId>hello-maven-plugin</artifactId><version>1.0</version>"
                    "<goalPrefix>hello</goalPrefix><mojos><mojo><goal>hello</goal><requiresProject>false</requiresProject>"
                    "<implementation>ev.Hello</implementation><language>java</language>"
                    "<instantiationStrategy>per-lookup</instantiationStrategy><threadSafe>true</threadSafe>"
                    "<parameters/></mojo></mojos><dependencies/></plugin>\n")


def maven_plugin_jar(jail: Jail, repository: Path) -> Path:
    """A Maven plugin's jar whose goal appends to the marker, built outside the workspace (it is
    only data: the command could have written it as well). The person's local repository holds
    what Maven adds to every plugin of no dependencies (plexus-utils 1.1: an empty stand-in), in
    ``repository`` (where the person's Maven keeps it)."""
    build = jail.base / "plugin"
    (build / "src/ev").mkdir(parents=True)
    (build / "src/ev/Hello.java").write_text(MAVEN_MOJO)
    lib = Path(os.path.realpath(shutil.which("mvn") or "")).parents[1] / "lib"
    classpath = ":".join(str(j) for j in lib.glob("*.jar"))
    subprocess.run(["javac", "-cp", classpath, "-d", str(build / "out"), str(build / "src/ev/Hello.java")],
                   check=True, capture_output=True, timeout=300)
    (build / "out/META-INF/maven").mkdir(parents=True)
    (build / "out/META-INF/maven/plugin.xml").write_text(MAVEN_PLUGIN_XML)
    jar = jail.base / "hello-maven-plugin-1.0.jar"
    subprocess.run(["jar", "cf", str(jar), "-C", str(build / "out"), "."], check=True, capture_output=True,
                   timeout=300)
    utils = repository / "org/codehaus/plexus/plexus-utils/1.1"
    utils.mkdir(parents=True)
    with zipfile.ZipFile(utils / "plexus-utils-1.1.jar", "w") as empty:
        empty.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n")
    (utils / "plexus-utils-1.1.pom").write_text(
        "<project><modelVersion>4.0.0</modelVersion><groupId>org.codehaus.plexus</groupId>"
        "<artifactId>plexus-utils</artifactId><version>1.1</version></project>\n")
    return jar


def person_runs_maven_offline(jail: Jail) -> None:
    """``mvn -o`` with the plugin's goal (Java takes the home folder from the account, not
    ``HOME``: ``user.home`` says it)."""
    env = {"PATH": os.environ["PATH"], "HOME": str(jail.home), "MARK": str(planted_marker(jail))}
    subprocess.run(["mvn", "-o", "-B", f"-Duser.home={jail.home}", "ev:hello-maven-plugin:1.0:hello"],
                   cwd=jail.base, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)


# --- go: the person's project using a module, and a module changed to run something ------------


def run_go(jail: Jail, cwd: Path, *args: str, proxy: str = "off", cache: str = "go-build",
           gopath: Path | None = None) -> subprocess.CompletedProcess[str]:
    """go as the person runs it: no network (a module proxy of files for the first download), a
    build cache outside the home folder, and ``gopath`` as their GOPATH variable (``None``: none
    set, only what go's own settings file says)."""
    env = {"PATH": os.environ["PATH"], "HOME": str(jail.home), "GOCACHE": str(jail.base / cache), "GOPROXY": proxy,
           "GOSUMDB": "off", "GOFLAGS": "-mod=mod", "GOTOOLCHAIN": "local"}
    if gopath is not None:
        env["GOPATH"] = str(gopath)
    return subprocess.run(["go", *args], cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=300)


def go_project_using_a_module(jail: Jail, gopath: Path | None = None) -> Path:
    """The person's Go project (outside the workspace) using ``example.com/lib`` from a proxy of
    files, built once: the module is unpacked where their settings say, and named in go.sum."""
    proxy = jail.base / "proxy/example.com/lib/@v"
    proxy.mkdir(parents=True)
    go_mod = "module example.com/lib\n\ngo 1.19\n"
    with zipfile.ZipFile(proxy / "v1.0.0.zip", "w") as archive:
        archive.writestr("example.com/lib@v1.0.0/go.mod", go_mod)
        archive.writestr("example.com/lib@v1.0.0/lib.go", 'package lib\n\nfunc Hello() string { return "hi" }\n')
    (proxy / "v1.0.0.mod").write_text(go_mod)
    (proxy / "list").write_text("v1.0.0\n")
    (proxy / "v1.0.0.info").write_text('{"Version":"v1.0.0"}\n')
    project = jail.base / "app"
    project.mkdir()
    (project / "go.mod").write_text("module app\n\ngo 1.19\n\nrequire example.com/lib v1.0.0\n")
    (project / "main.go").write_text('package main\n\nimport "example.com/lib"\n\nfunc main() { println(lib.Hello()) }\n')
    built = run_go(jail, project, "build", "-o", "app", ".", proxy=f"file://{jail.base / 'proxy'}", gopath=gopath)
    assert built.returncode == 0, built.stderr
    assert "example.com/lib v1.0.0 h1:" in (project / "go.sum").read_text()
    return project


def planted_go_module(jail: Jail) -> str:
    """``example.com/lib`` changed to append to the planted-command marker when a program using it starts."""
    return ('package lib\n\nimport "os"\n\nfunc init() { f, _ := os.OpenFile("' + str(planted_marker(jail)) +
            '", os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); f.WriteString("ran\\n"); f.Close() }\n\n'
            'func Hello() string { return "hi" }\n')


def person_builds_and_runs_go(jail: Jail, project: Path, gopath: Path | None = None) -> None:
    (project / "app").unlink(missing_ok=True)
    # A build cache of its own: go 1.19 reusing the first build's fails on the module's new import.
    if run_go(jail, project, "build", "-o", "app", ".", cache="go-build-again", gopath=gopath).returncode == 0:
        subprocess.run([str(project / "app")], capture_output=True, timeout=60)


def shown_in_chinese(error: str) -> str:
    """``error`` (a refusal a tool returned) as the person sees it under zh_CN."""
    from echo_desk import i18n
    previous = i18n.current_language()
    i18n.set_language("zh_CN")
    try:
        return i18n.shown(error)
    finally:
        i18n.set_language(previous)


def wait_for(condition: Callable[[], object], what: str, seconds: float = 60.0) -> None:
    """Wait until ``condition()`` holds, at most ``seconds``; past it the test fails saying ``what``."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


def process_running(token: str) -> bool:
    """Some process's command line holds ``token`` (a sandboxed process started by a child still runs)."""
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                if token.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                    return True
            except OSError:
                continue
    return False
