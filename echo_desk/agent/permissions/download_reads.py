"""What the downloaders read and send, for the read rules to judge (``Reading.values``: words a
read or write deny rule is checked against). A rule naming the program (``curl **``) trusts it
to fetch and send, not to read every file: ``curl file:///home/me/.ssh/id_rsa`` prints the
key, ``curl --data-urlencode k@~/.ssh/id_rsa URL`` and ``curl -n URL`` send a secret file's
content to the server.

A file curl reads is named inside an option's value (``-d @FILE``, ``-F name=<FILE``,
``--variable name@FILE``) or by a ``file:`` address; each is judged as the read it is. A value
whose file cannot be told from its text (a glob in an address, a form field with quotes or many
files) is ``None``: no rule covers it, so it asks. Versions read: curl 7.88 and 8, wget 1.21.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

#: The netrc file curl's ``-n``/``--netrc-optional`` and wget (always, unless ``--no-netrc``)
#: read: the passwords in it are sent to the server (``curl -v`` prints them back).
NETRC = "~/.netrc"

#: curl options whose value, starting with '@', names a file whose content is sent (``-H``: the
#: headers; ``-w``: printed; ``--url``: the addresses, curl 8.13).
_AT_FILE = frozenset({"--data", "--data-ascii", "--data-binary", "--json", "--header", "--write-out", "--url"})
#: curl options whose value is ``[name]@file`` when an '@' comes before any '=' (``--url-query``:
#: unless it starts with '+', which sends the rest as it is).
_NAME_AT_FILE = frozenset({"--data-urlencode", "--url-query", "--variable"})
_FORM = frozenset({"--form"})
#: A form field ``name=@file`` or ``name=<file``, with plain ``;type=``/``;filename=`` settings
#: after it; anything else holding '@' or '<' (quotes, ``a,b`` file lists, ``headers=@file``)
#: is not read here.
_FORM_FILE = re.compile(r"[^=@<;\"]*=[@<]([^;\",@<]+)((;(type|filename|encoder)=[^;\"@<]*)*)")
#: Characters curl globs in an address or an upload file (``{a,b}``, ``[1-9]``).
_GLOB = re.compile(r"[{}\[\]]")
_FILE_SCHEME = re.compile(r"(?i)file:")
#: The hosts a file: address may name (any other fails); empty is this machine.
_LOCAL_HOSTS = frozenset({"", "localhost", "127.0.0.1"})
#: Values naming standard input, not a file.
_STDIN = frozenset({"", "-"})


def curl_value_reads(names: tuple[str, ...], value: str) -> list[str | None]:
    """The files curl reads for an option's ``value`` (``None``: one it reads that cannot be told)."""
    found: list[str | None] = []
    if set(names) & _AT_FILE and value.startswith("@"):
        found.append(value[1:])
    elif set(names) & _NAME_AT_FILE:
        if "--url-query" in names and value.startswith("+"):
            return []
        cut = re.search(r"[=@]", value)
        if cut is not None and cut.group() == "@":
            found.append(value[cut.end():])
    elif set(names) & _FORM and ("@" in value or "<" in value):
        matched = _FORM_FILE.fullmatch(value)
        if matched is None:
            return [None]
        found.append(matched.group(1))
    return [f for f in found if f not in _STDIN]


def file_url_path(url: str) -> tuple[bool, str | None]:
    """Whether ``url`` is a ``file:`` address, and the path it reads (or an upload writes):
    percent-decoded (``%2essh`` is ``.ssh``), without the query and fragment curl drops.
    ``None``: only known when it runs (a glob), or not a plain local path."""
    url = url.lstrip()  # (curl 7.88 refuses leading blanks; a later one may not)
    if not _FILE_SCHEME.match(url):
        return False, None
    if _GLOB.search(url):
        return True, None
    rest = re.split(r"[?#]", url[5:], maxsplit=1)[0]
    if rest.startswith("//"):
        host, slash, path = rest[2:].partition("/")
        if host.lower() not in _LOCAL_HOSTS:
            return True, None
        rest = slash + path
    path = unquote(rest)
    if not path.startswith("/") or "\x00" in path:
        return True, None
    return True, path


def upload_globbed(value: str) -> bool:
    """Whether curl globs ``-T``'s value (``-T '{a,b}'``: each file, names only known when it runs)."""
    return bool(_GLOB.search(value))
