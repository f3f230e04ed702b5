"""How GNU binutils' object copiers read their words: ``objcopy`` and ``strip`` rewrite the
object files they are given, wherever those are (``objcopy -I binary -O binary out/rc
~/.bashrc`` copies a file the agent wrote over your shell's start-up file; ``objcopy
src/main.py`` rewrites it in place), ``--dump-section NAME=FILE`` writes FILE, and ``@FILE``
anywhere on the line reads more options and operands from FILE (libiberty's response files:
``objcopy @out/args`` takes an output the line never shows). A rule naming the program trusts
the program, not every place it may write: the files they write are judged by the write rules,
``@FILE`` and an option not read here are never covered by ``**``, and the files options read
(``--add-section NAME=FILE``, ``--strip-symbols FILE``…) are checked against the read deny
rules. Version read: GNU binutils 2.40.
"""

from __future__ import annotations

from echo_desk.agent.permissions.options import (
    Does,
    OptionSet,
    Parsed,
    Takes,
    flags,
    opt,
    read_options,
    values,
)
from echo_desk.agent.permissions.reading import Argv, Flag, Reading, flags_of, spellings_of

__all__ = ["OBJCOPY", "STRIP", "objcopy_reading", "strip_reading"]

V, OPT = Takes.VALUE, Takes.OPTIONAL

#: Options whose value is ``NAME=FILE``: the file is read (``--add-section``) or written
#: (``--dump-section``); the section name is not a path.
_SECTION_READS = frozenset({"--add-section", "--update-section"})
_SECTION_WRITES = frozenset({"--dump-section"})
#: Options whose value is a file read (a list of symbols, the debug file linked to).
_FILE_READS = frozenset({"--add-gnu-debuglink", "--redefine-syms", "--strip-symbols", "--strip-unneeded-symbols",
                         "--keep-symbols", "--localize-symbols", "--globalize-symbols", "--keep-global-symbols",
                         "--weaken-symbols"})

_COMMON_FLAGS = ("-p|--preserve-dates -D|--enable-deterministic-archives -U|--disable-deterministic-archives "
                 "--strip-dwo --strip-unneeded --only-keep-debug -M|--merge-notes --no-merge-notes "
                 "--keep-section-symbols --keep-file-symbols -w|--wildcard -x|--discard-all -X|--discard-locals "
                 "-v|--verbose -V|--version -h|--help --info")
_COMMON_VALUES = ("-I|--input-target -O|--output-target -F|--target -R|--remove-section --remove-relocations "
                  "-N|--strip-symbol --keep-section -K|--keep-symbol")

OBJCOPY = OptionSet((
    *flags(_COMMON_FLAGS),
    *flags("--debugging -S|--strip-all -g|--strip-debug --extract-dwo --extract-symbol --localize-hidden --weaken "
           "--change-leading-char --remove-leading-char --srec-forceS3 --writable-text --readonly-text --pure "
           "--impure --decompress-debug-sections"),
    *values(_COMMON_VALUES),
    *values("-B|--binary-architecture -j|--only-section --strip-unneeded-symbol -L|--localize-symbol "
            "--globalize-symbol -G|--keep-global-symbol -W|--weaken-symbol --interleave-width -b|--byte --gap-fill "
            "--pad-to --set-start --change-section-lma --change-section-vma --set-section-flags "
            "--set-section-alignment --rename-section --long-section-names --reverse-bytes --redefine-sym "
            "--srec-len --add-symbol --alt-machine-code --prefix-symbols --prefix-sections "
            "--prefix-alloc-sections --file-alignment --heap --image-base --section-alignment --stack --subsystem "
            "--elf-stt-common --verilog-data-width"),
    *values(" ".join(sorted(_SECTION_READS | _SECTION_WRITES | _FILE_READS))),
    opt("-i --interleave", OPT), opt("--compress-debug-sections", OPT),
))

STRIP = OptionSet((
    *flags(_COMMON_FLAGS),
    *flags("-s|--strip-all -g|-S|-d|--strip-debug"),
    *values(_COMMON_VALUES),
    opt("-o", V),
))


def objcopy_reading(argv: Argv, program: str) -> Reading:
    """``objcopy [options] INFILE [OUTFILE]``: OUTFILE is written, INFILE itself when there is
    none (in place, through a temporary file beside it)."""
    parsed = read_options(argv[1:], OBJCOPY)
    operands = [1 + i for i, _ in parsed.operands]
    written = tuple(operands[1:] if len(operands) > 1 else operands)
    return _reading(argv, program, parsed, OBJCOPY, written)


def strip_reading(argv: Argv, program: str) -> Reading:
    """``strip [options] FILE…``: each FILE is rewritten in place, or the file ``-o`` names
    instead."""
    parsed = read_options(argv[1:], STRIP)
    outputs = tuple(s.value for s in parsed.seen if s.option is not None and "-o" in s.option.names)
    written = () if outputs else tuple(1 + i for i, _ in parsed.operands)
    return _reading(argv, program, parsed, STRIP, written, outputs)


def _reading(argv: Argv, program: str, parsed: Parsed, spec: OptionSet, written: tuple[int, ...],
             outputs: tuple[str | None, ...] = ()) -> Reading:
    found = flags_of(parsed, spec)
    reads: list[str] = []
    for seen in parsed.seen:
        names = set(seen.option.names) if seen.option is not None else set()
        value = seen.value
        if value is None:
            continue
        if names & _SECTION_WRITES:
            path = value.partition("=")[2] or None  # no '=': objcopy refuses it; not known here
            found.append(Flag(frozenset(names | {seen.token}), seen.token, Does.WRITES, writes_path=True, path=path))
        elif names & _SECTION_READS:
            reads.append(value.partition("=")[2])
        elif names & _FILE_READS:
            reads.append(value)
    for word in argv[1:]:
        if word is not None and word.startswith("@") and len(word) > 1:
            # libiberty reads the file's words as more arguments, before the program reads any.
            found.append(Flag(frozenset({word}), word, Does.READS_CODE))
            reads.append(word[1:])
    return Reading(program, flags=tuple(found), writes=written, written=outputs, values=tuple(r for r in reads if r),
                   spellings=spellings_of(argv, parsed))
