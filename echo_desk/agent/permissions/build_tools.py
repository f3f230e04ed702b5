"""How build tools read their arguments: cargo, the C compilers (gcc, cc, clang…), javac,
java, go and mvn. A rule naming one (``cargo build **``, ``gcc **``) trusts it to build the project in
front of it; the options read here make it run another program, write outside, or read its
options or settings from a file the rule cannot see, so a rule's ``**`` does not cover them.
(Versions read: cargo 1.8x, GCC 12-14, clang 14-18, JDK 17-21, go 1.22-1.27, Maven 3.8-3.9.)
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from echo_desk.agent.permissions import line_environment
from echo_desk.agent.permissions.compiler_outputs import implicit_outputs, preprocessor_outputs
from echo_desk.agent.permissions.options import Does
from echo_desk.agent.permissions.reading import Argv, Flag, Reading

__all__ = ["COMPILER", "PREPROCESSOR", "cargo_reading", "compiler_reading", "cpp_reading", "go_packages", "go_reading", "java_reading",
           "javac_reading", "mvn_reading"]


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
#: Subcommands that write into the folder cargo installs programs to, outside the project:
#: ``--root``, else ``CARGO_INSTALL_ROOT``, else ``install.root`` of a settings file, else
#: ``~/.cargo/bin`` (``cargo install --path .`` wrote ~/.cargo/bin/NAME, a program on your
#: PATH: strace, cargo 1.95, bash and dash, s273), and ``uninstall``, which deletes from there
#: (``cargo uninstall hello`` unlinked ~/.cargo/bin/hello: strace, cargo 1.95, bash and dash,
#: s280). A rule covers them only by naming them (``cargo install **``), as ``go install``.
_CARGO_INSTALLS = frozenset({"install", "uninstall"})
#: cargo's short options that take a value (the rest of the word, or the next word).
_CARGO_SHORT_VALUES = frozenset("pjFe")
#: Subcommands whose words after ``--`` are options of the compiler they run (``cargo rustc --
#: -C linker=./x`` runs a program), not of the program built.
_CARGO_COMPILER_ARGS = frozenset({"rustc", "rustdoc"})
#: Subcommands whose words after ``--`` are options of the test harness, libtest (below).
_CARGO_TEST_HARNESS = frozenset({"test", "t", "bench"})
#: libtest's options (Rust 1.95, ``cargo test -- --help``; exact names only, no prefixes), but
#: ``--logfile``, which writes its log to the file it names: ``cargo test -- --logfile
#: ~/.bashrc`` emptied and rewrote that file (proven, s221). Any other option asks until a rule
#: names it; words that are not options are test-name filters.
_LIBTEST_FLAGS = frozenset({
    "--include-ignored", "--ignored", "--force-run-in-process", "--exclude-should-panic", "--test", "--bench",
    "--list", "--nocapture", "--no-capture", "-q", "--quiet", "--exact", "--show-output", "--report-time",
    "--ensure-time", "--shuffle", "--fail-fast", "-h", "--help",
})
_LIBTEST_VALUES = frozenset({"--test-threads", "--skip", "--color", "--format", "--shuffle-seed", "-Z"})
_LIBTEST_WRITES = "--logfile"
#: cargo's own subcommands (and those rustup ships: clippy, fmt, miri). Any other word runs
#: ``cargo-WORD`` found on the PATH or in ~/.cargo/bin (``cargo pwn`` ran a planted cargo-pwn),
#: or an alias from a settings file: not covered by a rule's ``**``.
_CARGO_SUBCOMMANDS = frozenset(
    "add b bench build c check clean clippy config d doc fetch fix fmt generate-lockfile git-checkout help info init "
    "install locate-project login logout metadata miri new owner package pkgid publish r read-manifest remove report "
    "rm run rustc rustdoc search t test tree uninstall update vendor verify-project version yank".split())


def cargo_reading(argv: Argv, program: str) -> Reading:
    """``cargo [+toolchain] [options] SUBCOMMAND [options] [-- args]``: the options in
    ``_CARGO_DANGEROUS`` wherever they stand before ``--``, ``--target`` naming a target
    description file (``--target out/t.json``: its ``linker`` runs), a ``+toolchain`` that is a
    path, a subcommand not its own (``_CARGO_SUBCOMMANDS``) and the words after ``--`` of
    ``cargo rustc``/``cargo rustdoc``, and ``cargo install`` (``_CARGO_INSTALLS``)."""
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
            if subcommand in _CARGO_TEST_HARNESS:
                found += _libtest_flags(words[k + 1:])
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
            found += _cargo_subcommand(word)
    return Reading(program, flags=tuple(found), written_below=_target_folder(subcommand, found))


#: The variables naming the folder cargo builds in instead of target/, in cargo's order (after
#: ``--target-dir``): the write rules judge them as they judge the option (s214: ``env
#: CARGO_TARGET_DIR=../other/t cargo build`` wrote there, proven with cargo 1.95 under bash and dash;
#: `cargo clean` then deleted that folder).
_CARGO_TARGET_VARIABLES = ("CARGO_TARGET_DIR", "CARGO_BUILD_TARGET_DIR")
#: The subcommands that build, run or clean in that folder.
_CARGO_TARGET_USERS = frozenset("b bench build c check clean clippy d doc fix install miri package publish r run "
                                "rustc rustdoc t test".split())


def _target_folder(subcommand: str | None, found: Sequence[Flag]) -> tuple[str | None, ...]:
    """The folder the environment makes cargo's ``subcommand`` build in (read with
    ``line_environment``; a leading ``~``, which bash expands after ``=`` and dash does not, is
    only known when it runs), unless ``--target-dir`` names one (judged as its flag)."""
    if subcommand not in _CARGO_TARGET_USERS or any("--target-dir" in f.names for f in found):
        return ()
    named = next((v for v in (line_environment.get(n) for n in _CARGO_TARGET_VARIABLES) if v), "")
    if not named:
        return ()
    return (None if named.startswith("~") else named,)


def _libtest_flags(words: Argv) -> list[Flag]:
    """What the words after ``cargo test --`` give the test harness: the file ``--logfile``
    writes (judged by the write rules), and any option not in its table."""
    found: list[Flag] = []
    takes_value = False
    for k, word in enumerate(words):
        if takes_value:
            takes_value = False
            continue
        if word is None:
            found.append(_UNKNOWN)
            continue
        if word == "--":
            break  # the rest are filters of test names
        if not word.startswith("-"):
            continue  # a filter
        name, eq, value = word.partition("=")
        if name == _LIBTEST_WRITES:
            written = value if eq else (words[k + 1] if k + 1 < len(words) else None)
            found.append(Flag(frozenset({word, name}), word, Does.WRITES, writes_path=True, path=written))
            takes_value = not eq
        elif name in _LIBTEST_VALUES:
            takes_value = not eq
        elif word.startswith("-Z") and len(word) > 2:
            continue  # -Z's value glued (`-Zunstable-options`)
        elif word not in _LIBTEST_FLAGS:
            found.append(_flag(word, Does.CONFIG))
    return found


#: cargo's options naming where it writes: a folder it writes anywhere below, or (the lock
#: file) a file. The write rules judge it even where a rule names the option.
_CARGO_WRITES_BELOW = frozenset({"--target-dir", "--artifact-dir", "--out-dir"})


def _cargo_subcommand(word: str) -> list[Flag]:
    """A subcommand a rule covers only by naming it: one not cargo's own (``cargo-WORD`` runs),
    or one that installs (``_CARGO_INSTALLS``)."""
    if word not in _CARGO_SUBCOMMANDS:
        return [_flag(word, Does.RUNS)]
    return [_flag(word, Does.WRITES)] if word in _CARGO_INSTALLS else []


def _cargo_long(word: str, following: str | None) -> list[Flag]:
    """A long option of cargo's (``following``: the next word, its value if it takes one)."""
    name, eq, value = word.partition("=")
    if _CARGO_DANGEROUS.get(name) is Does.WRITES:
        written = value if eq else following
        if name in _CARGO_WRITES_BELOW and written is not None:
            written = written.rstrip("/") + "/any-folder/any-file"  # what it builds there
        return [Flag(frozenset({word, name}), word, Does.WRITES, writes_path=True, path=written)]
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
#: cpp, the C preprocessor (``gcc -E``, the same options), with a target prefix or a version.
PREPROCESSOR = re.compile(r"(?:[\w.-]+-)?cpp(?:-\d+(?:\.\d+)*)?")
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
    write rules judge it when it is a word of its own), and what it writes where nothing names
    it too (``compiler_outputs``); any option not known here counts too."""
    found, writes, files, options = _compiler_words(argv)
    return Reading(program, flags=tuple(found), writes=tuple(writes),
                   written=implicit_outputs(argv, options, files, writes))


def cpp_reading(argv: Argv, program: str) -> Reading:
    """cpp reads as a C compiler does, and ``cpp IN OUT`` writes OUT (``cpp a.c ~/.bashrc``
    wrote there what it made of a.c): every file word after the first is judged by the write
    rules (``-``: its output), and so is the ``.d`` of ``-MD``/``-MMD`` (``compiler_outputs``)."""
    found, writes, files, options = _compiler_words(argv)
    written = preprocessor_outputs(argv, options, files, writes)
    writes += [k for k in files[1:] if argv[k] != "-"]
    return Reading(program, flags=tuple(found), writes=tuple(writes), written=written)


def _compiler_words(argv: Argv) -> tuple[list[Flag], list[int], list[int], list[int]]:
    """A C compiler's words: the options a rule must name, the words naming files an option
    writes, the file words (what it compiles, in order) and the words read as options."""
    found: list[Flag] = []
    writes: list[int] = []
    files: list[int] = []
    options: list[int] = []
    i, n = 1, len(argv)
    while i < n:
        word = argv[i]
        i += 1
        if word is None or word.startswith("@"):
            found.append(_UNKNOWN if word is None else _flag(word, Does.READS_CODE))
            continue
        if not word.startswith("-") or word == "-":
            files.append(i - 1)  # a file it compiles (read), or standard input
            continue
        options.append(i - 1)
        if word in _CC_WRITES:
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
    return found, writes, files, options


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


# -- go -----------------------------------------------------------------------------------------
#: go's build and test options that take no value and do nothing dangerous (``-flag`` or
#: ``-flag=true``; one or two dashes).
_GO_FLAGS = frozenset({"a", "n", "race", "msan", "asan", "cover", "v", "work", "x", "trimpath", "modcacherw", "json",
                       "buildvcs", "short", "failfast", "benchmem", "c", "fullpath", "m", "u", "t", "e", "deps",
                       "test", "find", "export", "compiled", "h", "help"})
#: Options whose value is harmless (the next word, or after ``=``).
_GO_VALUES = frozenset({"p", "tags", "mod", "covermode", "coverpkg", "buildmode", "installsuffix", "pgo", "run", "skip",
                        "bench", "benchtime", "count", "cpu", "parallel", "timeout", "shuffle", "list", "fuzz",
                        "fuzztime", "fuzzminimizetime", "vet", "memprofilerate", "blockprofilerate",
                        "mutexprofilefraction", "f", "go", "compat"})
#: Options that write the file or folder their value names: judged by the write rules.
_GO_WRITES = frozenset({"o", "coverprofile", "cpuprofile", "memprofile", "blockprofile", "mutexprofile", "trace",
                        "outputdir"})
#: Options that run a program (``-toolexec``, ``-exec``, ``-vettool``, gccgo), pass options to
#: the compiler, assembler or linker (``-ldflags=-extld=/tmp/x`` runs it), read the build's
#: files from elsewhere (``-overlay``, ``-modfile``), run in another folder (``-C``) or write
#: outside (``-pkgdir``).
_GO_DANGEROUS = {"toolexec": Does.RUNS, "exec": Does.RUNS, "vettool": Does.RUNS, "compiler": Does.RUNS,
                 "gccgoflags": Does.RUNS, "asmflags": Does.RUNS, "gcflags": Does.RUNS, "ldflags": Does.RUNS,
                 "overlay": Does.CONFIG, "modfile": Does.CONFIG, "C": Does.CONFIG, "pkgdir": Does.WRITES,
                 "linkshared": Does.CONFIG, "toolchain": Does.RUNS}
#: Words of -ldflags / -gcflags a rule's ``**`` covers: strip symbols, set a string (``-X``),
#: no optimisation, no inlining, print decisions.
_GO_TOOL_FLAGS = re.compile(r"-[swNlSBCe]|-m(?:=\d)?|-X(?:=\S+)?|-buildid=\S*")
#: Subcommands read here; any other (``go tool NAME``, a future one) is not covered by ``**``.
_GO_BUILDS = frozenset({"build", "install", "run", "test", "vet", "list"})
_GO_PLAIN = frozenset({"version", "fmt", "mod", "doc", "help", "env", "get", "clean", "work", "fix", "bug",
                       "telemetry"})


def go_reading(argv: Argv, program: str) -> Reading:
    """``go SUBCOMMAND [options] [packages] …`` read strictly: the options in ``_GO_DANGEROUS``
    (``go build -toolexec /tmp/x`` runs /tmp/x for every compile), ``-o`` and the test profiles
    (the write rules judge what they name), ``go generate`` (it runs the ``//go:generate``
    lines of the source files, which no rule sees: never covered), ``go env -w``/``-u`` (it
    writes your go env file, whose ``GOFLAGS`` every later go reads), ``go install`` (it writes
    into ~/go/bin), ``go run PKG@VERSION`` and ``go install PKG@VERSION`` (they download a
    module from the network, outside any go.mod, and build and run its code: a rule covers one
    only by naming it), ``go tool`` and any subcommand or option not known here. ``go run`` stops
    reading at the program it runs (its later words are the program's); ``go test``'s words
    after ``-args`` go to the test binary, whose ``-test.`` options write profiles."""
    found: list[Flag] = []
    at = 1
    while at < len(argv) and (argv[at] or "").startswith("-"):
        general = argv[at] or ""
        if general not in ("-h", "--help", "-help"):
            found.append(_flag(general, None))  # go's only general option is -C (another folder)
        at += 2 if general in ("-C", "--C") else 1
    if at >= len(argv):
        return Reading(program, flags=tuple(found))
    sub = argv[at]
    if sub is None or sub == "generate" or sub == "tool" or (sub not in _GO_BUILDS and sub not in _GO_PLAIN):
        # generate: never covered (what it runs is written in the source files)
        last = _UNKNOWN if sub is None else Flag(frozenset() if sub == "generate" else frozenset({sub}), sub,
                                                  Does.RUNS if sub in ("generate", "tool") else None)
        return Reading(program, flags=(*found, last))
    if sub == "install":
        found.append(_flag(sub, Does.WRITES))
    written, nearest = _go_module_files(sub, argv[at + 1:])
    writes: list[int] = []
    i = at + 1
    while i < len(argv):
        word = argv[i]
        if word is None:
            found.append(_UNKNOWN)
        elif word == "--" or (sub == "run" and not word.startswith("-")):
            found += _go_fetched(word) if sub == "run" else []
            break  # go run: the program's own words follow
        elif sub == "install" and not word.startswith("-"):
            found += _go_fetched(word)
        elif word in ("-args", "--args"):
            found += [_flag(word, None)] if sub != "test" else []
            found += [_flag(w or "", None) for w in argv[i + 1:] if w is None or w.lstrip("-").startswith("test.")]
            break
        elif word.startswith("-") and word != "-":
            following = argv[i + 1] if i + 1 < len(argv) else None
            flag, takes_next = _go_option(sub, word, following)
            if flag is not None:
                found.append(flag)
            elif takes_next and following is None:
                found.append(_UNKNOWN)  # a value only known when the line runs (or none)
            elif takes_next and word.lstrip("-") in _GO_WRITES:
                writes.append(i + 1)
            i += 1 if takes_next else 0
        i += 1
    return Reading(program, flags=tuple(found), writes=tuple(writes), written=written, written_nearest=nearest)


#: go's commands that change the module's own files, and the files: go finds go.mod (and
#: go.work) by walking up from the folder it runs in, so the one it changes may lie above the
#: workspace (``Reading.written_nearest``; the first name is the one go looks for).
_GO_MODULE = ("go.mod", "go.sum")
_GO_WORK = ("go.work", "go.work.sum")
_GO_CHANGES_NEAREST = {"mod": {"tidy": _GO_MODULE, "download": _GO_MODULE, "edit": _GO_MODULE},
                       "work": {"use": _GO_WORK, "edit": _GO_WORK}}
#: ... the files they create in the folder they run in ...
_GO_CREATES_HERE = {"mod": {"init": _GO_MODULE}, "work": {"init": _GO_WORK}}
#: ... and those whose files are only known when they run: ``vendor`` rewrites a folder beside
#: go.mod (or ``-o DIR``), ``work sync`` the go.mod of every module go.work uses (``use
#: ../elsewhere``).
_GO_CHANGES_UNKNOWN = {"mod": frozenset({"vendor"}), "work": frozenset({"vendor", "sync"})}


def _go_module_files(sub: str, words: Argv) -> tuple[tuple[str | None, ...], tuple[str, ...]]:
    """What ``go SUBCOMMAND words…`` writes of the module's own files: paths (``None``: only
    known when it runs) and files of the nearest module (``Reading.written_nearest``).
    ``go get`` and a build with ``-mod=mod`` change go.mod and go.sum; ``go mod edit FILE``
    and ``go work edit FILE`` change the file named (every word may be it)."""
    if sub == "get" or (sub in _GO_BUILDS and _go_mod_mod(words)):
        return (), _GO_MODULE
    action = words[0] if words else None
    if sub not in _GO_CHANGES_NEAREST:
        return (), ()
    if action is None and words:
        return (None,), ()
    if action in _GO_CHANGES_UNKNOWN[sub]:
        return (None,), ()
    if action in _GO_CREATES_HERE[sub]:
        return _GO_CREATES_HERE[sub][action], ()
    if action == "edit":
        return tuple(w for w in words[1:] if w is None or not w.startswith("-")), _GO_CHANGES_NEAREST[sub][action]
    return (), _GO_CHANGES_NEAREST[sub].get(action or "", ())


def _go_mod_mod(words: Argv) -> bool:
    """Whether a build reads ``-mod=mod`` (or ``-mod mod``): it updates go.mod and go.sum."""
    for k, word in enumerate(words):
        name, eq, value = (word or "").lstrip("-").partition("=")
        if name == "mod" and (value if eq else (words[k + 1] if k + 1 < len(words) else "")) in ("mod", None):
            return True
    return False


def _go_fetched(word: str) -> list[Flag]:
    """``PKG@VERSION``: a module go downloads (from GOPROXY, proxy.golang.org by default) and
    builds outside any go.mod; a rule covers it only by naming it."""
    return [_flag(word, Does.RUNS)] if "@" in word else []


def _go_option(sub: str, word: str, following: str | None) -> tuple[Flag | None, bool]:
    """One option of a go subcommand: the flag it raises (``None``: covered by ``**``), and
    whether its value is the next word."""
    name, eq, value = word.lstrip("-").partition("=")
    if len(word) - len(word.lstrip("-")) > 2:
        return _flag(word, None), False
    if sub == "env" and name in ("w", "u"):
        return _flag(word, Does.WRITES), False
    if name in _GO_WRITES:
        # glued (`-o=~/x`): the write rules cannot see it as a word of its own
        return (_flag(word, Does.WRITES) if eq else None), not eq
    if name in ("ldflags", "gcflags") and _go_tool_flags_harmless(value if eq else following):
        return None, not eq
    if name in _GO_DANGEROUS:
        return _flag(word, _GO_DANGEROUS[name]), not eq and name != "linkshared"
    if name in _GO_VALUES:
        return None, not eq
    if name in _GO_FLAGS and (not eq or value in ("true", "false", "1", "0")):
        return None, False
    return _flag(word, None), False


def _go_tool_flags_harmless(value: str | None) -> bool:
    """Whether a -ldflags/-gcflags value (``all=-N -l``, ``-s -w -X main.v=1``) holds only
    words that load, run and write nothing."""
    if value is None:
        return False
    pattern, eq, rest = value.partition("=")
    if eq and not pattern.startswith("-"):
        value = rest  # a package pattern first: `all=-N -l`
    words = value.split()
    k = 0
    while k < len(words):
        word = words[k]
        if word == "-X":
            k += 2
            continue
        if not _GO_TOOL_FLAGS.fullmatch(word):
            return False
        k += 1
    return True


#: Subcommands that compile the packages they are given (``go vet`` and ``go build`` run cgo, so
#: the C compiler reads the ``#include`` lines of their files), run them (``go test`` runs the
#: ``_test.go`` files and ``TestMain``, ``go run`` the program), or, for ``go list``, compile
#: them when asked to (``-export``, ``-compiled``).
_GO_COMPILES = frozenset({"build", "install", "run", "test", "vet"})
_GO_LIST_COMPILES = frozenset({"export", "compiled"})


def go_packages(argv: Sequence[str | None]) -> list[tuple[str, bool]] | None:
    """The folders whose code ``go SUBCOMMAND …`` compiles or runs, as written (``None``: a
    subcommand that compiles nothing): each with whether every folder under it counts too
    (``./out/...``, ``all``, an import path: go finds it anywhere in the module). No package
    named: the folder it runs in (``"."``). A ``.go`` file named: its folder. Words go would
    take as option values may be read as packages too: that only makes more folders count."""
    at = 1
    while at < len(argv) and (argv[at] or "").startswith("-"):
        at += 2 if argv[at] in ("-C", "--C") else 1
    if at >= len(argv):
        return None
    sub = argv[at]
    words = list(argv[at + 1:])
    options = {(w or "").lstrip("-").partition("=")[0] for w in words if (w or "").startswith("-")}
    if sub not in _GO_COMPILES and not (sub == "list" and options & _GO_LIST_COMPILES):
        return None
    found: list[tuple[str, bool]] = []
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if word is None:
            return [(".", True)]  # a word only known when the line runs: the whole module
        if word in ("-args", "--args") and sub == "test":
            break
        if word.startswith("-") and word != "-":
            name, eq, _ = word.lstrip("-").partition("=")
            i += not eq and name in (_GO_VALUES | _GO_WRITES | _GO_DANGEROUS.keys()) - {"linkshared"}
            continue
        found.append(_go_package(word))
        if sub == "run" and not word.endswith(".go"):
            break  # go run PACKAGE: the program's own words follow
    return found or [(".", False)]


def _go_package(word: str) -> tuple[str, bool]:
    """One package pattern: its folder, and whether the folders under it count."""
    if word.endswith(".go"):
        return os.path.dirname(word) or ".", False
    if "..." in word:
        head = word.partition("...")[0]
        return (head if head.endswith("/") else os.path.dirname(head)) or ".", True
    if word.startswith((".", "/")):
        return word, False
    return ".", True  # all, an import path (std and cmd too: cheaper to ask than to know GOROOT)


# -- mvn --------------------------------------------------------------------------------------------
#: mvn's options whose value names another project (``-f ~/p``: its pom's plugins run and it
#: writes ~/p/target), a settings or toolchains file (repositories, profiles), or a file it
#: writes (``-l``, its log). A rule's ``**`` does not cover them; the log is judged by the write
#: rules where a rule names it.
_MVN_DANGEROUS = {"-f": Does.CONFIG, "--file": Does.CONFIG, "-s": Does.CONFIG, "--settings": Does.CONFIG,
                  "-gs": Does.CONFIG, "--global-settings": Does.CONFIG, "-t": Does.CONFIG, "--toolchains": Does.CONFIG,
                  "-gt": Does.CONFIG, "--global-toolchains": Does.CONFIG, "-l": Does.WRITES, "--log-file": Does.WRITES}
#: mvn's flags that start with a letter of a dangerous short option (``-fae`` is not ``-f ae``).
_MVN_FLAGS = frozenset({"-fae", "--fail-at-end", "-ff", "--fail-fast", "-fn", "--fail-never", "-llr"})
#: ``-D`` properties that only skip or pick tests. Any other may set a plugin's parameter
#: (``-DoutputDirectory=~`` for dependency:copy-dependencies, ``-Dmaven.repo.local=DIR``,
#: ``-Dexec.executable=…``): what it changes is only known when it runs.
_MVN_PROPERTIES = re.compile(r"-D(?:skipTests|maven\.test\.skip|skipITs|test|it\.test)(?:=[\w.,#*-]*)?")


def mvn_reading(argv: Argv, program: str) -> Reading:
    """``mvn [options] [goals]``: the options in ``_MVN_DANGEROUS`` (value the next word, glued,
    or after ``=``) and ``-D`` properties other than those picking or skipping tests. Its
    settings in the project (pom.xml, .mvn/) are ``program_options.FOLDER_SETTINGS``'."""
    found: list[Flag] = []
    for word in argv[1:]:
        if word is None:
            found.append(_UNKNOWN)
        elif word in _MVN_FLAGS or not word.startswith("-"):
            continue
        elif word.startswith("-D"):
            if not _MVN_PROPERTIES.fullmatch(word):
                found.append(_flag(word, None))
        else:
            name = word.partition("=")[0]
            hit = next((o for o in _MVN_DANGEROUS if name == o or (not o.startswith("--") and word.startswith(o))),
                       None)
            if hit is not None:
                found.append(_flag(word, _MVN_DANGEROUS[hit]))
    return Reading(program, flags=tuple(found))
