"""Whether the install step of a Makefile automake generated runs automake's own install code
alone (``autotools_records``, s330), so that the folders its variables name are all it writes.

automake copies the project's own rules from Makefile.am into the Makefile as they are, after its
own rules (the last of which is its ``.PRECIOUS: Makefile``) and before its footer. Its install
hooks (``install-exec-hook``, ``install-data-local``, ``uninstall-local``…) are such rules, and so is
a rule of the project's for one of automake's own install targets (``install-data-am: x``), which
automake then leaves out: ``make install`` ran each (automake 1.16.5, make 4.3, bash and dash:
``touch ~/HOOKED`` ran from an ``install-data-hook``). The variables automake's install recipes
run their programs through may be set in Makefile.am too (``INSTALL = touch ~/x;`` ran instead of
install), and a ``DESTDIR`` set there moves every install folder (the data went below
``~/.config/autostart``). So only the forms configure and automake write are read here: a rule of
the project's whose target may be part of an install, any other line there (an ``include``, a
variable, a directive), a program variable of another value (a ``transform`` whose sed program
does more than ``s``: ``s,x,x,w ~/TW`` wrote ~/TW), ``MAKE`` or ``DESTDIR`` set in the Makefile
make the record unread, and the line asks.

automake's own helper variables (``am__base_list``…) are read for where they stand: Makefile.am's
come after the variables configure substitutes (``am__base_list = cat; touch ~/AMB`` ran).

Not read: the dependency files an automake Makefile includes (``./$(DEPDIR)/*.Po``, in the build
folder), and what an automake helper set before configure's variables says (automake's own).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["only_automake_install"]

#: The line that closes automake's own rules, and the first line of its footer.
_OWN_RULES_END = ".PRECIOUS:"
_FOOTER = ("# Tell versions [3.59,3.63) of GNU make to not export all variables.",
           "# Otherwise a system limit (for SysV at least) may be exceeded.", ".NOEXPORT:")
#: A rule: its targets, then ``:`` or ``::`` (not ``:=`` or ``::=``, assignments), then the rest.
_RULE = re.compile(r"(?P<targets>[^:=#;]+?)\s*::?(?!=)(?P<rest>.*)")
#: Targets an install step may run: automake's (``install-data-am``, ``installdirs``,
#: ``uninstall-am``…) and its hooks (``install-exec-hook``, ``install-data-local``, ``uninstall-local``).
_INSTALL_TARGET = re.compile(r"(?:un)?install.*")
#: make's special targets that change nothing of how an install runs.
_PLAIN_SPECIAL = frozenset({".PHONY", ".PRECIOUS", ".SECONDARY", ".INTERMEDIATE", ".NOTPARALLEL", ".SUFFIXES",
                            ".DELETE_ON_ERROR"})
_SPECIAL = re.compile(r"\.[A-Z_]+")
#: The shells configure writes for SHELL (and runs install-sh with).
_SHELLS = r"(?:\$\{SHELL\}|\$\(SHELL\)|(?:/usr)?/bin/(?:ba|da|k|z)?sh)"
_ABSOLUTE = r"(?:/[\w.+@-]+)+"
#: The values configure (AC_PROG_INSTALL, AC_PROG_MKDIR_P…) and automake write for the variables
#: automake's install recipes run their programs through.
_PROGRAMS = {
    "SHELL": re.compile(r"(?:/usr)?/bin/(?:ba|da|k|z)?sh"),
    "INSTALL": re.compile(rf"{_ABSOLUTE}/(?:g|bsd)?install -c|{_SHELLS} {_ABSOLUTE}/install-sh -c"),
    "INSTALL_DATA": re.compile(r"(?:\$\{INSTALL\}|\$\(INSTALL\)) -m 644"),
    "INSTALL_PROGRAM": re.compile(r"\$\{INSTALL\}|\$\(INSTALL\)"),
    "INSTALL_SCRIPT": re.compile(r"\$\{INSTALL\}|\$\(INSTALL\)"),
    "INSTALL_HEADER": re.compile(r"\$\(INSTALL_DATA\)"),
    "INSTALL_STRIP_PROGRAM": re.compile(r"\$\(install_sh\) -c -s"),
    "install_sh": re.compile(rf"{_SHELLS} {_ABSOLUTE}/install-sh"),
    "MKDIR_P": re.compile(rf"{_ABSOLUTE}/mkdir -p|{_SHELLS} {_ABSOLUTE}/install-sh -c -d|\$\(install_sh\) -d"),
    "mkdir_p": re.compile(r"\$\(MKDIR_P\)"),
    "mkinstalldirs": re.compile(r"\$\(install_sh\) -d"),
    "STRIP": re.compile(rf"(?:{_ABSOLUTE}/)?(?:[\w.-]+-)?strip|"),
    "LIBTOOL": re.compile(r"\$\(SHELL\) \$\(top_builddir\)/libtool"),
    "RANLIB": re.compile(rf"(?:{_ABSOLUTE}/)?(?:[\w.-]+-)?ranlib|:"),
    "INSTALL_INFO": re.compile(rf"(?:{_ABSOLUTE}/)?install-info"),
    "PYTHON": re.compile(rf"{_ABSOLUTE}/python[\d.]*|:"),
    "py_compile": re.compile(r"\$\(top_srcdir\)/(?:build-aux/)?py-compile"),
    # (the sed program that renames installed programs, scripts and manual pages: its `s`
    # commands alone, no flags, since `s,x,x,w ~/TW` wrote ~/TW)
    "transform": re.compile(r"\$\(program_transform_name\)"),
    "program_transform_name": re.compile(r"(?:s([^\w\s\\;])(?:(?!\1)[^\\]|\\.)*\1(?:(?!\1)[^\\]|\\.)*\1;?)+"),
    "AM_MAKEFLAGS": re.compile(r"(?:(?:--no-print-directory|-s|--silent|-w)\s*)*"),
    **{f"{when}_{what}": re.compile(":") for when in ("NORMAL", "PRE", "POST") for what in ("INSTALL", "UNINSTALL")},
}
#: make's own variables, and DESTDIR: set in the Makefile, they change what every install recipe
#: runs (``MAKE``: the recursive steps), how (``MAKEFLAGS``), or where (``DESTDIR``).
_NOT_SET = frozenset({"MAKE", "MAKEFLAGS", "MFLAGS", "GNUMAKEFLAGS", "MAKEOVERRIDES", "MAKEFILES", "MAKESHELL",
                      "DESTDIR"})
#: An assignment, also to make's special variables (``.SHELLFLAGS``, ``.RECIPEPREFIX``).
_SPECIAL_ASSIGNMENT = re.compile(r"(?:override\s+|export\s+)?\.[A-Z_]+\s*[:+?!]*=")
#: automake's own helper variables, which its install recipes run (``$(am__base_list)``…), and
#: the first variable configure substitutes: automake writes its own helpers before it, and
#: Makefile.am's after the substituted ones (``am__base_list = cat; touch ~/AMB`` ran there).
_HELPER = re.compile(r"(am__\w+|install_sh_\w+|RECURSIVE_TARGETS)\s*=")
_SUBSTITUTED_FIRST = "ACLOCAL ="
#: The helpers configure substitutes itself (automake's AM_INIT_AUTOMAKE, AM_DEP_TRACK).
_SUBSTITUTED_HELPERS = frozenset({"am__include", "am__leading_dot", "am__quote", "am__tar", "am__untar", "am__isrc",
                                  "am__nodep"})


def only_automake_install(text: str, variables: Mapping[str, str]) -> bool:
    """Whether the automake Makefile ``text``, with ``variables`` (its own, and make's on the
    line on top), installs with automake's own rules and programs alone."""
    for name, value in variables.items():
        if name in _NOT_SET or (name in _PROGRAMS and not _PROGRAMS[name].fullmatch(value.strip())):
            return False
    lines = text.replace("\\\n", " ").splitlines()
    end = next((k for k, line in enumerate(lines) if line.startswith(_OWN_RULES_END)), None)
    if end is None or any(_SPECIAL_ASSIGNMENT.match(line) for line in lines[:end]):
        return False
    if not _own_helpers(lines[:end], variables):
        return False
    footer = next((k for k in range(end + 1, len(lines)) if lines[k] == _FOOTER[0]), None)
    if footer is None or [line for line in lines[footer:] if line.strip()] != list(_FOOTER):
        return False
    return all(_harmless(line) for line in lines[end + 1:footer])


def _own_helpers(lines: list[str], variables: Mapping[str, str]) -> bool:
    """Whether automake's helper variables are its own: set before the substituted variables,
    and not by make's line (its value there differs from the Makefile's)."""
    substituted = next((k for k, line in enumerate(lines) if line.startswith(_SUBSTITUTED_FIRST)), None)
    if substituted is None:
        return False
    seen: dict[str, str] = {}
    for k, line in enumerate(lines):
        helper = _HELPER.match(line)
        if helper is None:
            continue
        name = helper.group(1)
        if k > substituted and name not in _SUBSTITUTED_HELPERS:
            return False
        seen[name] = line[helper.end():].strip()
    return all(variables[name].strip() == value for name, value in seen.items() if name in variables) and \
        not any(_HELPER.match(f"{name}=") and name not in seen for name in variables)


def _harmless(line: str) -> bool:
    """Whether a line of the project's own part is a recipe, a comment, or a rule no install
    step runs (the recipes under it then run only for the build)."""
    if line.startswith("\t") or not line.strip() or line.lstrip().startswith("#"):
        return True
    rule = _RULE.fullmatch(line)
    if rule is None or "=" in rule.group("rest").partition(";")[0]:
        return False  # (a directive, a variable, a target's own variable)
    for target in rule.group("targets").split():
        if "$" in target or "%" in target or _INSTALL_TARGET.match(target):
            return False
        if _SPECIAL.fullmatch(target) and target not in _PLAIN_SPECIAL:
            return False  # (.ONESHELL, .DEFAULT, .POSIX… change how the recipes run)
    return True
