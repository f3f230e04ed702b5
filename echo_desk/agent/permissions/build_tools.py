"""How build tools read their arguments: cargo, the C compilers (gcc, cc, clang…), javac and
java. A rule naming one (``cargo build **``, ``gcc **``) trusts it to build the project in
front of it; the options read here make it run another program, write outside, or read its
options or settings from a file the rule cannot see, so a rule's ``**`` does not cover them.
(Versions read: cargo 1.8x, GCC 12-14, clang 14-18, JDK 17-21.)
"""

from __future__ import annotations

import re

from echo_desk.agent.permissions.options import Does
from echo_desk.agent.permissions.reading import Argv, Flag, Reading

__all__ = ["COMPILER", "cargo_reading", "compiler_reading", "java_reading", "javac_reading"]


def _flag(word: str, does: Does | None) -> Flag:
    return Flag(frozenset({word}), word, does)


_UNKNOWN = Flag(frozenset(), "", None)  # a word only known when the line runs

# -- cargo ------------------------------------------------------------------------------------------
#: cargo's options (any subcommand, before it too) that a rule's ``**`` never covers:
#: ``--config`` (``build.rustc-wrapper``, ``target.<triple>.runner``, ``target.<triple>.linker``
#: run programs; a path reads a settings file), ``--target-dir``/``--artifact-dir``/``--out-dir``
#: (write where they say), ``--manifest-path``/``--lockfile-path`` (another project: its build.rs
#: runs), ``-Z`` (unstable features) and ``-C`` (another folder). cargo takes no prefixes of
#: long options (``--target-d`` is an error).
_CARGO_DANGEROUS = {"--config": Does.CONFIG, "--target-dir": Does.WRITES, "--artifact-dir": Does.WRITES,
                    "--out-dir": Does.WRITES, "--manifest-path": Does.CONFIG, "--lockfile-path": Does.WRITES,
                    "-Z": Does.CONFIG, "-C": Does.CONFIG}
#: cargo's short options that take a value (the rest of the word, or the next word).
_CARGO_SHORT_VALUES = frozenset("pjFe")
#: Subcommands whose words after ``--`` are options of the compiler they run (``cargo rustc --
#: -C linker=./x`` runs a program), not of the program built.
_CARGO_COMPILER_ARGS = frozenset({"rustc", "rustdoc"})


def cargo_reading(argv: Argv, program: str) -> Reading:
    """``cargo [+toolchain] [options] SUBCOMMAND [options] [-- args]``: the options in
    ``_CARGO_DANGEROUS`` wherever they stand before ``--``, ``--target`` naming a target
    description file (``--target out/t.json``: its ``linker`` runs), a ``+toolchain`` that is a
    path, and the words after ``--`` of ``cargo rustc``/``cargo rustdoc``."""
    found: list[Flag] = []
    subcommand: str | None = None
    words = argv[1:]
    for k, word in enumerate(words):
        if word is None:
            found.append(_UNKNOWN)
            continue
        if word == "--":
            if subcommand in _CARGO_COMPILER_ARGS and words[k + 1:]:
                found.append(_flag(word, Does.RUNS))
            break
        if word.startswith("--"):
            found += _cargo_long(word, words[k + 1] if k + 1 < len(words) else "")
        elif word.startswith("-") and len(word) > 1:
            for letter in word[1:]:
                if f"-{letter}" in _CARGO_DANGEROUS:
                    found.append(_flag(word, _CARGO_DANGEROUS[f"-{letter}"]))
                    break
                if letter in _CARGO_SHORT_VALUES:
                    break
        elif word.startswith("+") and subcommand is None:
            if "/" in word or word.startswith("+."):
                found.append(_flag(word, Does.RUNS))
        elif subcommand is None:
            subcommand = word
    return Reading(program, flags=tuple(found))


def _cargo_long(word: str, following: str | None) -> list[Flag]:
    """A long option of cargo's (``following``: the next word, its value if it takes one)."""
    name, eq, value = word.partition("=")
    if name in _CARGO_DANGEROUS:
        return [_flag(word, _CARGO_DANGEROUS[name])]
    if name == "--target":
        target = value if eq else following
        if target is None or "/" in target or target.endswith(".json"):
            return [_flag(word, Does.CONFIG)]
    return []


# -- C compilers ----------------------------------------------------------------------------------
#: gcc, cc, c++, g++, clang, clang++, with a target prefix or a version (``x86_64-linux-gnu-gcc-12``).
COMPILER = re.compile(r"(?:[\w.-]+-)?(?:gcc|g\+\+|cc|c\+\+|clang|clang\+\+)(?:-\d+(?:\.\d+)*)?")
#: Options whose value is the next word (or glued), harmless.
_CC_VALUES = frozenset({"-I", "-L", "-D", "-U", "-l", "-x", "-iquote", "-isystem", "-idirafter", "-include",
                        "-imacros", "-MT", "-MQ", "-u", "-std", "-z"})
#: Options that write the file their value names (next word, or glued): judged by the write rules.
_CC_WRITES = frozenset({"-o", "-MF"})
#: Options with no value, harmless.
_CC_FLAGS = frozenset({"-c", "-S", "-E", "-w", "-v", "-s", "-P", "-C", "-H", "-M", "-MM", "-MD", "-MMD", "-MP", "-MG",
                       "-ansi", "-pedantic", "-pedantic-errors", "-shared", "-static", "-pthread", "-pie", "-no-pie",
                       "-rdynamic", "-pipe", "-nostdlib", "-nostdinc", "-nostartfiles", "-nodefaultlibs",
                       "-static-libgcc", "-static-libstdc++", "-dumpversion", "-dumpfullversion", "-dumpmachine",
                       "--version", "--help", "-###", "-print-search-dirs", "-print-libgcc-file-name",
                       "-print-multiarch", "-print-sysroot", "-undef", "-trigraphs", "-traditional-cpp", "-dD", "-dM"})
#: Harmless words by shape: -O, -g, warnings (not -Wl, -Wa, -Wp, which pass options to the
#: linker, assembler or preprocessor), -std=, -m (machine), -D/-I/-L/-l glued.
_CC_HARMLESS = re.compile(r"-O[0-3sgz]?|-Ofast|-g[\w:=-]*|-W(?![lap],)[\w+=,.-]*|-std=[\w+]+|-m[\w=.,+-]+|"
                          r"-[DUIL].+|-l[\w.+-]+|-x\w[\w+-]*|--?print-(?:file|prog)-name=[\w.+-]+")
#: ``-f`` options that load, run or write nothing (``-fplugin``, ``-fdump-*``, ``-fprofile-*``,
#: ``-fstack-usage``, ``-fcallgraph-info`` do, and ``-fuse-ld`` picks the linker: not listed).
_CC_F_HARMLESS = re.compile(
    r"-f(?:no-)?(?:PIC|pic|PIE|pie|common|omit-frame-pointer|strict-aliasing|strict-overflow|exceptions|rtti|"
    r"stack-protector(?:-all|-strong|-explicit)?|stack-clash-protection|sanitize=[\w,-]+|sanitize-recover(?:=[\w,-]+)?|"
    r"visibility=\w+|visibility-inlines-hidden|diagnostics-color(?:=\w+)?|color-diagnostics|openmp|inline[\w-]*|"
    r"builtin|unroll-loops|lto(?:=\w+)?|signed-char|unsigned-char|short-enums|data-sections|function-sections|"
    r"asynchronous-unwind-tables|unwind-tables|trapv|wrapv|max-errors=\d+|message-length=\d+|permissive|"
    r"ms-extensions|fast-math|math-errno|tree-vectorize|vectorize|semantic-interposition|plt|cf-protection(?:=\w+)?|"
    r"delete-null-pointer-checks|syntax-only|show-column|caret-diagnostics|diagnostics-show-option|"
    r"asm|gnu89-inline|threadsafe-statics|exceptions|non-call-exceptions|char8_t|coroutines|concepts|modules-ts|"
    r"debug-types-section|var-tracking|strict-enums|keep-inline-functions|implicit-templates|operator-names|"
    r"elide-constructors|freestanding|hosted|ident|zero-initialized-in-bss)")


def compiler_reading(argv: Argv, program: str) -> Reading:
    """A C compiler's words, read strictly: ``@file`` reads more options from a file;
    ``-wrapper``, ``-B``, ``-specs``, ``-fplugin``, ``-Wl,``/``-Xlinker`` (and the assembler's and
    preprocessor's) run or steer other programs; ``-o``/``-MF`` write the file they name (the
    write rules judge it when it is a word of its own); any option not known here counts too."""
    found: list[Flag] = []
    writes: list[int] = []
    i, n = 1, len(argv)
    while i < n:
        word = argv[i]
        i += 1
        if word is None:
            found.append(_UNKNOWN)
        elif word.startswith("@"):
            found.append(_flag(word, Does.READS_CODE))
        elif not word.startswith("-") or word == "-":
            continue  # a file it compiles (read), or standard input
        elif word in _CC_WRITES:
            if i < n and argv[i] is not None:
                writes.append(i)
            else:
                found.append(_flag(word, Does.WRITES))
            i += 1
        elif word in _CC_VALUES:
            if i < n and argv[i] is None:
                found.append(_UNKNOWN)
            i += 1
        elif word in _CC_FLAGS or _CC_HARMLESS.fullmatch(word) or _CC_F_HARMLESS.fullmatch(word):
            continue
        elif word.startswith(("-o", "-MF")):
            found.append(_flag(word, Does.WRITES))  # glued: `-o../home/.bashrc`
        else:
            found.append(_flag(word, Does.RUNS if word.startswith(("-wrapper", "-B", "-specs", "--specs", "-fplugin",
                                                                    "-Wl,", "-Wa,", "-Wp,", "-X", "-fuse-ld"))
                               else None))
            if word in ("-wrapper", "-B", "-Xlinker", "-Xassembler", "-Xpreprocessor", "-Xclang", "-specs", "-T",
                        "--sysroot", "-isysroot", "-aux-info", "-dumpdir", "-dumpbase", "--config"):
                i += 1
    return Reading(program, flags=tuple(found), writes=tuple(writes))


# -- javac and java ---------------------------------------------------------------------------------
_JAVAC_VALUES = frozenset({"-encoding", "-source", "--source", "-target", "--target", "--release", "-Xmaxerrs",
                           "-Xmaxwarns", "--limit-modules", "--add-modules", "--default-module-for-created-files"})
#: Folders javac writes into (classes, generated sources, native headers): judged by the write rules.
_JAVAC_WRITES = frozenset({"-d", "-s", "-h"})
_JAVAC_FLAGS = frozenset({"-g", "-g:none", "-nowarn", "-verbose", "-deprecation", "-Werror", "-parameters",
                          "-proc:none", "-version", "--version", "-help", "--help", "-X", "--help-extra", "-?",
                          "--enable-preview", "-Xlint", "-Xdoclint", "-Xdoclint:none"})
_JAVAC_HARMLESS = re.compile(r"-g:[\w,]+|-Xlint:[\w,-]+|-Xdoclint:[\w,/-]+|-Xdiags:\w+|-implicit:\w+|"
                             r"-Xpkginfo:\w+|--release=\d+|-encoding=\S+")


def javac_reading(argv: Argv, program: str) -> Reading:
    """javac's words, read strictly: ``@file`` reads more options from a file; ``-J`` options
    go to the JVM (``-J-Xlog:gc:file=…`` writes, ``-J-javaagent:`` runs); ``-processorpath``,
    ``-processor``, ``-Xplugin:`` and the class path (javac runs the annotation processors it
    finds there) load code; ``-d``/``-s``/``-h`` write into the folder they name (the write
    rules judge it); any option not known here counts too."""
    found: list[Flag] = []
    writes: list[int] = []
    i, n = 1, len(argv)
    while i < n:
        word = argv[i]
        i += 1
        if word is None:
            found.append(_UNKNOWN)
        elif word.startswith("@"):
            found.append(_flag(word, Does.READS_CODE))
        elif not word.startswith("-"):
            continue
        elif word in _JAVAC_WRITES:
            if i < n and argv[i] is not None:
                writes.append(i)
            else:
                found.append(_flag(word, Does.WRITES))
            i += 1
        elif word in _JAVAC_VALUES:
            if i < n and argv[i] is None:
                found.append(_UNKNOWN)
            i += 1
        elif word in _JAVAC_FLAGS or _JAVAC_HARMLESS.fullmatch(word):
            continue
        else:
            found.append(_flag(word, Does.RUNS))
    return Reading(program, flags=tuple(found), writes=tuple(writes))


#: java's own options that run or load code, or write: agents, the JVM's -XX switches
#: (``-XX:OnError=CMD`` runs a command), logs written to a file, the boot class path.
_JAVA_DANGEROUS = ("-javaagent", "-agentlib", "-agentpath", "-XX", "-Xlog", "-Xloggc", "-Xbootclasspath",
                   "--patch-module", "-Xshare", "-Xverify", "-splash", "--upgrade-module-path", "-Djava.security",
                   "-Djava.system.class.loader", "-Djava.library.path", "-Djdk.")


def java_reading(argv: Argv, program: str) -> Reading:
    """java's options before the class, jar or source file it runs: ``@file`` (more options from
    a file) and the JVM options that run, load or write (``_JAVA_DANGEROUS``). What it runs is
    the rule's to name."""
    found: list[Flag] = []
    for word in argv[1:]:
        if word is None:
            found.append(_UNKNOWN)
            break
        if word.startswith("@"):
            found.append(_flag(word, Does.READS_CODE))
        elif word.startswith(_JAVA_DANGEROUS):
            found.append(_flag(word, Does.RUNS))
        elif not word.startswith("-"):
            break
    return Reading(program, flags=tuple(found))
