"""The files a C compiler writes without being told where, for the write rules to judge
(``Reading.written``). ``-o`` and ``-MF`` name theirs (``build_tools`` judges those words); without
them gcc still writes: ``gcc src/a.c`` links ``a.out`` in the folder it runs in, ``-c``/``-S``
write ``a.o``/``a.s`` there, ``-MD``/``-MMD`` a ``.d`` beside the output (``a.d`` there without
``-o``), and a header compiles to ``src/x.h.gch`` beside itself. Proven with strace, gcc 12 under
bash and dash. A rule naming the compiler (``gcc **``) trusts it to build, not to write where the
write rules do not let the agent write (``gcc -c src/a.c`` where only ``out/**`` may be written).
"""

from __future__ import annotations

import posixpath

from echo_desk.agent.permissions.reading import Argv

__all__ = ["implicit_outputs", "preprocessor_outputs"]

#: Options after which it writes nothing of its own: it prints, or only checks.
_PRINTS_ONLY = frozenset({"-###", "--version", "--help", "-dumpversion", "-dumpfullversion", "-dumpmachine",
                          "-print-search-dirs", "-print-libgcc-file-name", "-print-multiarch", "-print-sysroot",
                          "-fsyntax-only"})
#: Suffixes gcc compiles as headers (to a precompiled ``.gch``).
_HEADER_SUFFIXES = frozenset({".h", ".hh", ".H", ".hp", ".hxx", ".hpp", ".HPP", ".h++", ".tcc"})
#: Suffixes it only passes to the linker: nothing is written for them before it links.
_LINKER_INPUTS = frozenset({".o", ".a", ".so", ".obj", ".lo"})


def implicit_outputs(argv: Argv, options: list[int], files: list[int], writes: list[int]) -> tuple[str, ...]:
    """The paths (relative to the folder it runs in, or as the line gives them) that the compiler
    in ``argv`` writes beyond the words naming them. ``options``: indices of the words read as
    options; ``files``: of the files it compiles; ``writes``: of the words ``-o``/``-MF`` name."""
    said = {argv[k] for k in options}
    if said & _PRINTS_ONLY or not files:
        return ()
    named = {argv[k - 1]: argv[k] for k in writes if argv[k] is not None}
    output = named.get("-o")
    to_stdout = "-E" in said or ("-M" in said or "-MM" in said)
    stops = "-c" in said or "-S" in said or to_stdout
    headers = _header_files(argv, options, files)
    written: list[str] = []
    if output is None and not to_stdout:
        suffix = ".s" if "-S" in said else ".o"
        for k in files:
            word = str(argv[k])
            if k in headers:
                written.append(word + ".gch")  # beside the header, wherever that is
            elif stops and posixpath.splitext(word)[1] not in _LINKER_INPUTS:
                written.append(_stem(word) + suffix)
        if not stops and len(headers) < len(files):
            written.append("a.out")
    if ("-MD" in said or "-MMD" in said) and "-MF" not in named:
        written += _dependency_files(argv, files, output, linking=not stops)
    return tuple(written)


def preprocessor_outputs(argv: Argv, options: list[int], files: list[int], writes: list[int]) -> tuple[str, ...]:
    """What cpp writes beyond the words naming them: ``-MD``/``-MMD`` without ``-MF`` write a
    ``.d`` beside its output (``-o OUT`` or ``cpp IN OUT``), or in the folder it runs in."""
    said = {argv[k] for k in options}
    named = {argv[k - 1]: argv[k] for k in writes if argv[k] is not None}
    if not files or not ({"-MD", "-MMD"} & said) or "-MF" in named:
        return ()
    output = named.get("-o") or next((str(argv[k]) for k in files[1:]), None)  # `-`: `-.d` (gcc 12)
    return tuple(_dependency_files(argv, files[:1], output, linking=False))


def _header_files(argv: Argv, options: list[int], files: list[int]) -> set[int]:
    """The file words it compiles as headers: by suffix, or after ``-x c-header`` (and the like)
    until ``-x`` says otherwise."""
    languages: list[tuple[int, str]] = []
    for k in options:
        word = str(argv[k])
        if word == "-x" and k + 1 < len(argv):
            languages.append((k, str(argv[k + 1])))
        elif word.startswith("-x") and len(word) > 2:
            languages.append((k, word[2:]))
    headers: set[int] = set()
    for k in files:
        language = next((name for at, name in reversed(languages) if at < k), "none")
        if language.endswith("-header") or (language == "none" and
                                            posixpath.splitext(str(argv[k]))[1] in _HEADER_SUFFIXES):
            headers.add(k)
    return headers


def _dependency_files(argv: Argv, files: list[int], output: str | None, *, linking: bool) -> list[str]:
    """Where ``-MD``/``-MMD`` write without ``-MF``: the output's name with ``.d`` for its suffix;
    without ``-o``, each file's stem with ``.d`` in the folder it runs in (``a-STEM.d`` too when it
    links: gcc 12 names them after ``a.out``)."""
    if output is not None:
        return [_stem(output, keep_folder=True) + ".d"]
    found: list[str] = []
    for k in files:
        stem = _stem(str(argv[k]))
        found += [stem + ".d", f"a-{stem}.d"] if linking else [stem + ".d"]
    return found


def _stem(path: str, *, keep_folder: bool = False) -> str:
    """``src/a.c`` → ``a`` (``src/a`` with ``keep_folder``): the name gcc gives what it makes."""
    folder, name = posixpath.split(path)
    stem = posixpath.splitext(name)[0] or name
    return posixpath.join(folder, stem) if keep_folder else stem
