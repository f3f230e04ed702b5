"""What a build file takes in by another name: make's ``include``/``-include``/``sinclude``,
ninja's ``include``/``subninja``, cmake's ``include()`` and ``add_subdirectory()``, SCons'
``SConscript()`` and the modules its build files import (s172; read from its manual and source:
scons is not installed here). The
included file is as much the build's code as the build file itself: a person's Makefile
holding ``-include ../out/deps.d`` runs whatever the agent writes into out/deps.d
(``$(shell …)`` runs while make reads it), whatever the build file's own name says (s164,
proven with make 4.3, ninja 1.11 and cmake 3.25 under bash and dash).

``included`` reads the build files a command reads and follows what they include, each
included file in turn, the makefiles make's ``MAKEFILES`` names first (``build_variables``). It fails closed: a path the engine cannot read the way the tool does
(a variable, a wildcard, a generator expression), a build file it cannot open, a construct
that turns text into build code (make's ``$(eval …)``, cmake's ``cmake_language()``, a module
path the project sets) or too many files make ``unknown`` true: any file may then be included.

What this is not: a build's recipes run programs, and those may read any file
(``python gen.py``, a tool the build made earlier); that is the build tool's trust, which a
rule naming it grants, not something the engine reads here.
"""

from __future__ import annotations

import ast
import importlib.machinery
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Included", "included"]

#: The most build files followed for one command: a build that includes more is not read to
#: its end, so any file counts (a large cmake project asks while a file is writable).
_MOST_FILES = 200
#: Where make looks for a relative included file it does not find in the folder it runs in
#: (GNU make 4: its compiled-in include folders), besides the folders of ``-I``, which a rule
#: covers only by naming them (``program_options.MAKE``).
_MAKE_INCLUDE_FOLDERS = (Path("/usr/local/include"), Path("/usr/gnu/include"), Path("/usr/include"))
#: make's names of its build files (``program_options.FOLDER_SETTINGS``).
_MAKEFILES = frozenset({"GNUmakefile", "makefile", "Makefile"})


@dataclass
class Included:
    """The files the build files include (``files``), and whether some inclusion was not read
    (``unknown``: any file may be one)."""

    files: list[Path] = field(default_factory=list)
    unknown: bool = False


def included(program: str, starts: Iterable[Path], code_files: Iterable[Path],
             include_folders: Sequence[Path] = (), makefiles: Sequence[str] = ()) -> Included:
    """What the build files of ``program`` include, run from the folders ``starts`` (each
    folder's own build files) with the code files its options name (``ninja -f F``, ``cmake
    -P F``, ``make -f F``, read as if in the first start), the folders its options add to
    where a relative inclusion is looked for (``make -I D``) and the makefiles make reads
    first as ``-include`` would (``MAKEFILES``: ``build_variables``), the files themselves
    among ``files``."""
    result = Included()
    seen: set[Path] = set()
    starts = list(starts)
    queue: list[tuple[Path, Path, _Reader]] = []
    make = _make_reader((*include_folders, *_MAKE_INCLUDE_FOLDERS))
    for start in starts:
        queue += [(start / name, start, reader) for name, reader in _build_files(program, make)]
    reader = {"ninja": _ninja, "cmake": _cmake, "make": make, "scons": _scons_reader(())}.get(program)
    for path in code_files:
        queue += [(path, s, reader) for s in starts[:1]] if reader is not None else []
    if makefiles:
        # (cmake --build runs make in the build folder: each start is read as make's folder)
        for start in starts:
            first = make("-include " + " ".join(makefiles), start, start)
            if first is None:
                result.unknown = True
                break
            _take(first, result, queue)
    while queue:
        path, base, reader = queue.pop()
        key = Path(os.path.normpath(path))
        if key in seen or not os.path.lexists(key):
            continue
        seen.add(key)
        if len(seen) > _MOST_FILES:
            result.unknown = True
            break
        try:
            text = key.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            result.unknown = True  # (a folder, or a file not read: what it includes is not known)
            continue
        found = reader(text, key, base)
        if found is None:
            result.unknown = True
            continue
        _take(found, result, queue)
    result.files = list(dict.fromkeys(result.files))
    return result


def _take(found: list[tuple[Path, Path, _Reader]], result: Included, queue: list[tuple[Path, Path, _Reader]]) -> None:
    """Count the files a build file includes, each by its path and the file it is (a link
    elsewhere), and read them in turn."""
    for child, child_base, child_reader in found:
        for each in dict.fromkeys((Path(os.path.normpath(child)), Path(os.path.realpath(child)))):
            result.files.append(each)
            queue.append((each, child_base, child_reader))


#: A reader: the text of one build file, its path and the folder its relative inclusions start
#: from, giving each included file with its own base and reader (``None``: not read to its end).
_Reader = Callable[[str, Path, Path], "list[tuple[Path, Path, _Reader]] | None"]


def _make_reader(folders: Sequence[Path]) -> _Reader:
    """The reader of makefiles for a make that looks in ``folders`` for a relative included file
    not in the folder it runs in."""
    def read(text: str, path: Path, base: Path) -> list[tuple[Path, Path, _Reader]] | None:
        return _make(text, base, folders, read)
    return read


def _make(text: str, base: Path, folders: Sequence[Path], reader: _Reader) -> list[tuple[Path, Path, _Reader]] | None:
    """make's inclusions: relative to the folder make runs in, then its include folders."""
    logical = re.sub(r"\\\n", " ", text)
    if re.search(r"[$][({]\s*eval\b", logical):
        return None  # `$(eval include $(X))` includes what only make knows
    found: list[tuple[Path, Path, _Reader]] = []
    for line in logical.splitlines():
        words = _make_uncomment(line).split()
        if not words or words[0] not in ("include", "-include", "sinclude"):
            continue
        for word in words[1:]:
            if "$" in word or any(c in word for c in "*?[\\~"):
                return None  # a variable, a wildcard or a quoted name: only make knows the files
            if os.path.isabs(word):
                found.append((Path(word), base, reader))
            else:
                found += [(folder / word, base, reader) for folder in (base, *folders)]
    return found


def _make_uncomment(line: str) -> str:
    """A makefile line without its comment (``#`` not escaped)."""
    match = re.search(r"(?<!\\)#", line)
    return line[:match.start()] if match else line


_NINJA_INCLUDE = re.compile(r"^[ \t]*(include|subninja)[ \t]+(.*?)[ \t]*$")


def _ninja(text: str, path: Path, base: Path) -> list[tuple[Path, Path, _Reader]] | None:
    """ninja's ``include`` and ``subninja``: a path relative to the folder ninja runs in."""
    found: list[tuple[Path, Path, _Reader]] = []
    for line in text.replace("$\n", " ").splitlines():
        match = _NINJA_INCLUDE.match(line)
        if match is None:
            continue
        word = match.group(2)
        if not word or "$" in word:
            return None  # a variable or an escape: the path ninja reads is not this text
        found.append((base / word, base, _ninja))
    return found


#: cmake commands whose first argument names build code: a file (or module) ``include()`` reads,
#: a folder whose CMakeLists.txt ``add_subdirectory()`` reads; any other spelled in any case.
_CMAKE_LOADS = re.compile(r"\b(include|add_subdirectory)\s*\(", re.IGNORECASE)
#: What makes the files cmake reads not known from the text: code made from text
#: (``cmake_language(EVAL …)``), a module path the project sets (``include(Name)`` and
#: ``find_package`` then read ``Name.cmake`` there), a cache another build wrote, and the
#: variables naming code cmake runs that a project may set before ``project()`` as ``-D``
#: does (s195, proven: ``set(CMAKE_PROJECT_INCLUDE out/inc.cmake)`` ran out/inc.cmake): the
#: files ``project()`` includes, the toolchain file, the rules override, the compilers and their
#: launchers, the emulator (a value's ``${…}`` reads of them do not count).
_CMAKE_UNREAD = re.compile(
    r"\b(cmake_language|load_cache)\s*\(|\bCMAKE_MODULE_PATH\b"
    r"|(?<![{\w])(CMAKE_PROJECT_\w*INCLUDE\w*|CMAKE_TOOLCHAIN_FILE|CMAKE_USER_MAKE_RULES_OVERRIDE\w*"
    r"|CMAKE_\w+?_COMPILER(_LAUNCHER)?|CMAKE_\w+?_LINKER_LAUNCHER|CMAKE_CROSSCOMPILING_EMULATOR)\b", re.IGNORECASE)
_CMAKE_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"|\[(=*)\[.*?\]\1\]', re.DOTALL)
_CMAKE_ARGUMENT = re.compile(r'\s*(?:"((?:[^"\\]|\\.)*)"|\[(=*)\[(.*?)\]\2\]|([^\s()"#]+))', re.DOTALL)


def _cmake(text: str, path: Path, base: Path) -> list[tuple[Path, Path, _Reader]] | None:
    """cmake's ``include()`` (a path relative to the current source folder, the folder of the
    CMakeLists.txt being read) and ``add_subdirectory()`` (that folder's CMakeLists.txt, which
    is the current source folder while it is read)."""
    code = _cmake_uncomment(text)
    # (a command's name inside a quoted or bracket argument is text: `message("include(x)")`)
    masked = _CMAKE_QUOTED.sub(lambda m: " " * len(m.group(0)), code)
    if _CMAKE_UNREAD.search(masked):
        return None
    found: list[tuple[Path, Path, _Reader]] = []
    for call in _CMAKE_LOADS.finditer(masked):
        argument = _CMAKE_ARGUMENT.match(code, call.end())
        if argument is None:
            return None
        quoted, _, bracket, plain = argument.groups()
        word = quoted if quoted is not None else bracket if bracket is not None else plain
        if not word or "$" in word or "\\" in word or ";" in word:
            return None  # a variable, a generator expression, an escape, a list
        target = Path(word) if os.path.isabs(word) else None
        if call.group(1).lower() == "include":
            # Relative: the current source folder's file (an included file keeps the includer's
            # folder); its own folder too, which may differ (more files, never fewer).
            for each in [target] if target else [base / word, path.parent / word]:
                found.append((each, base, _cmake))
        else:
            folder = target or base / word
            found.append((folder / "CMakeLists.txt", folder, _cmake))
    return found


def _cmake_uncomment(text: str) -> str:
    """cmake code without its comments (``#[[ … ]]`` and ``#`` to the end of the line; a ``#``
    inside a quoted argument stays)."""
    out: list[str] = []
    for match in re.finditer(r'"(?:[^"\\]|\\.)*"|#\[(=*)\[.*?\]\1\]|#[^\n]*|[^"#]+|.', text, re.DOTALL):
        piece = match.group(0)
        out.append(" " if piece.startswith("#") else piece)
    return "".join(out)


#: Python calls that turn text into code: what they run is not read here.
_PYTHON_EVALS = frozenset({"exec", "eval", "compile", "execfile", "__import__", "run_path", "import_module"})
#: SCons' own names of its top build file (``program_options.FOLDER_SETTINGS``).
_SCONSTRUCTS = ("SConstruct", "Sconstruct", "sconstruct", "SConstruct.py", "Sconstruct.py", "sconstruct.py")


def _scons_reader(outer: Sequence[Path]) -> _Reader:
    """The reader of SCons' build files called from files in the folders ``outer`` (the
    SConscripts that called them, innermost first)."""
    def read(text: str, path: Path, base: Path) -> list[tuple[Path, Path, _Reader]] | None:
        return _scons(text, path, base, (path.parent, *outer))
    return read


def _scons(text: str, path: Path, base: Path, folders: Sequence[Path]) -> list[tuple[Path, Path, _Reader]] | None:
    """SCons' ``SConscript()`` (``env.SConscript()`` too): the scripts it names, by any name,
    relative to the folder of the file calling it, or ``dirs=[…]``'s ``SConscript`` (``name=``);
    and the modules it imports, looked for in ``folders``: while SCons runs a SConscript it puts
    its folder first on ``sys.path``, before those of the SConscripts that called it (and
    site_scons/, counted whole as ``FOLDER_CODE``), so ``import helper`` runs helper.py beside
    it. An imported module sees the same ``sys.path``. The build files are Python: a call whose
    files are not plain strings, or code made from text (``exec``, ``eval``…), is not read.
    (scons is not installed here: read from its manual and its SConscript.py.)"""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    found: list[tuple[Path, Path, _Reader]] = []

    def module_reader(text: str, path: Path, base: Path) -> list[tuple[Path, Path, _Reader]] | None:
        return _scons(text, path, base, folders)

    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found += [(each, base, module_reader) for each in _module_files(node, path, folders)]
            continue
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        if name in _PYTHON_EVALS:
            return None
        if name != "SConscript":
            continue
        keywords = {k.arg: k.value for k in node.keywords}
        if None in keywords:
            return None  # (**kwargs: not known here)
        scripts = _python_strings(node.args[0]) if node.args else _python_strings(keywords.get("dirs"))
        script_name = _python_strings(keywords["name"]) if "name" in keywords else ["SConscript"]
        if scripts is None or script_name is None or len(script_name) != 1:
            return None
        if node.args and "dirs" in keywords:
            return None  # (both given: which one SCons reads is not read here)
        for word in scripts:
            target = path.parent / word
            found.append(((target if node.args else target / script_name[0]), base, _scons_reader(folders)))
    return found


#: The endings of the files Python imports a module from (source, bytecode without source,
#: compiled extensions of this Python): a compiled one that is there is not read, so any file
#: counts, and one the agent may make counts as the module.
_MODULE_SUFFIXES = tuple(dict.fromkeys((".py", *importlib.machinery.all_suffixes())))


def _module_files(node: ast.Import | ast.ImportFrom, path: Path, folders: Sequence[Path]) -> list[Path]:
    """The files an import statement may run: each package's ``__init__`` and the module, in
    each of ``folders`` (a relative import: in the package of ``path``); a name it imports
    from a package may be a module of it too."""
    if isinstance(node, ast.Import):
        dotted = [alias.name.split(".") for alias in node.names]
        roots: Sequence[Path] = folders
    else:
        module = node.module.split(".") if node.module else []
        dotted = [[*module, alias.name] for alias in node.names if alias.name != "*"] or [module]
        dotted += [module] if module else []
        roots = [Path(os.path.normpath(path.parent / ("../" * (node.level - 1))))] if node.level else folders
    files: list[Path] = []
    for parts in dotted:
        for root in roots:
            for k in range(1, len(parts) + 1):
                stem = root.joinpath(*parts[:k])
                files += [stem / f"__init__{s}" for s in _MODULE_SUFFIXES]
                files += [stem.with_name(stem.name + s) for s in _MODULE_SUFFIXES]
    if isinstance(node, ast.ImportFrom) and node.level:
        files += [roots[0] / f"__init__{s}" for s in _MODULE_SUFFIXES]
    return list(dict.fromkeys(files))


def _python_strings(node: ast.expr | None) -> list[str] | None:
    """The strings of a plain string or a list or tuple of them (``None``: anything else)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.List, ast.Tuple)):
        words = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        return words if len(words) == len(node.elts) else None
    return None


_CMAKE_HOME = re.compile(r"^CMAKE_HOME_DIRECTORY:INTERNAL=(.*)$", re.MULTILINE)


def _cmake_cache(text: str, path: Path, base: Path) -> list[tuple[Path, Path, _Reader]] | None:
    """A build folder's CMakeCache.txt names the source folder whose CMakeLists.txt ``cmake
    --build`` reads again when the build is out of date (and ``cmake -B b`` configures)."""
    match = _CMAKE_HOME.search(text)
    if match is None:
        return []
    folder = Path(match.group(1).strip())
    if not folder.is_absolute():
        return None
    return [(folder / "CMakeLists.txt", folder, _cmake)]


def _build_files(program: str, make: _Reader) -> list[tuple[str, _Reader]]:
    """The build files ``program`` reads in the folder it starts from, with their readers:
    make's makefiles, ninja's build.ninja, scons' SConstruct, cmake's CMakeLists.txt of a source folder and the
    cache and generated build of a build folder (``cmake --build``), meson's build.ninja (``meson
    compile`` runs ninja)."""
    if program == "make":
        return [(name, make) for name in sorted(_MAKEFILES)]
    if program == "scons":
        return [(name, _scons_reader(())) for name in _SCONSTRUCTS]
    if program in ("ninja", "meson"):
        return [("build.ninja", _ninja)]
    if program == "cmake":
        return [("CMakeLists.txt", _cmake), ("CMakeCache.txt", _cmake_cache), ("build.ninja", _ninja),
                *((name, make) for name in sorted(_MAKEFILES))]
    return []
