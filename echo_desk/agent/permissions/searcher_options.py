"""The options of ag, ack and fd, read from their own ``--help`` (ag 2.2.0, ack 3.6.0, fd 8.6.0):
which take a value, and which run a program or read options from a file. With these the engine
tells the pattern from the paths (``default_folders``) and never lets a rule's ``ag **`` cover
``ag --pager CMD``, ``ack --pager=CMD`` or ``fd -x CMD``: each ran its command (s282).

The tables are strict: an option not listed asks. Left out on purpose, so they ask: options whose
value is optional yet taken from the next word when it is a number (ack's ``-C``/``--context``,
``-p``/``--proximate``: ``ack -C 3 out`` searches ``.`` for ``out``), those naming a list of
files to read (ack's ``--files-from``, ``-x``), those changing the folder the paths are found
from (fd's ``--base-directory``), and the ones their ``--help`` does not show.
"""

from __future__ import annotations

from echo_desk.agent.permissions.options import Does, OptionSet, Takes, flags, opt, values

__all__ = ["ACK", "ACK_PATHS_ONLY", "AG", "AG_PATTERN", "FD", "FD_SEARCH_PATH"]

V, OPT = Takes.VALUE, Takes.OPTIONAL

#: ag's file types (``ag --list-file-types``): ``--python`` searches only Python files.
_AG_TYPES = (
    "actionscript ada asciidoc apl asm asp aspx batch bazel bitbake cc cfmx chpl clojure coffee config coq cpp "
    "crystal csharp cshtml css cython delphi dlang dot dts ebuild elisp elixir elm erlang factor fortran fsharp "
    "gettext glsl go gradle groovy haml handlebars haskell haxe hh html idris ini ipython isabelle j jade java "
    "jinja2 js json jsp julia kotlin less liquid lisp log lua m4 make mako markdown mason matlab mathematica md "
    "mercury naccess nim nix objc objcpp ocaml octave org parrot pdb perl php pike plist plone powershell proto "
    "ps1 pug puppet python qml racket rake razor restructuredtext rs r rdoc ruby rust salt sass scala scheme "
    "shell smalltalk sml sql stata stylus swift tcl terraform tex thrift tla tt toml ts twig vala vb velocity "
    "verilog vhdl vim vue wix wsdl wadl xml yaml zeek zephir"
).split()

#: ag (getopt_long: long options abbreviate; ``-A 3`` takes the next word, ``--after`` only
#: ``--after=3``). ``-g PATTERN`` gives the pattern: every operand is then a path.
AG = OptionSet((
    *flags("--ackmate --break --nobreak --no-break -c|--count --color --nocolor --no-color --column --filename "
           "--nofilename --no-filename -H|--heading --noheading --no-heading --group --nogroup --no-group "
           "-l|--files-with-matches -L|--files-without-matches --print-all-files --numbers --nonumbers "
           "--no-numbers -o|--only-matching --print-long-lines --passthrough --silent --stats --stats-only "
           "--vimgrep -0|--null|--print0 -a|--all-types -D|--debug -f|--follow -F|--fixed-strings --hidden "
           "-i|--ignore-case --one-device -Q|--literal -s|--case-sensitive -S|--smart-case --search-binary "
           "-t|--all-text -u|--unrestricted -U|--skip-vcs-ignores -v|--invert-match -w|--word-regexp "
           "-z|--search-zip -r|-R|--recurse -n|--norecurse --nopager --no-pager --help --version"),
    *values("-A -B -C --color-line-number --color-match --color-path --depth -G|--file-search-regex --ignore "
            "--ignore-dir -m|--max-count -p|--path-to-ignore -W|--width -g|--filename-pattern"),
    *(opt(name, OPT) for name in ("--after", "--before", "--context")),
    *flags(" ".join(f"--{name}" for name in _AG_TYPES)),
    opt("--pager", V, Does.RUNS),  # (not in its --help: `ag --pager CMD` runs CMD through sh)
))
#: The ag options giving the pattern.
AG_PATTERN = frozenset({"-g", "--filename-pattern"})

#: ack's file types (``ack --help-types``): ``--python`` searches them, ``--nopython`` skips them.
_ACK_TYPES = (
    "ada asm asp aspx batch bazel cc cfmx clojure cmake coffeescript cpp crystal csharp css dart delphi elisp "
    "elixir elm erlang fortran go groovy gsp haskell hh hpp html jade java js json jsp kotlin less lisp lua make "
    "markdown matlab objc objcpp ocaml perl perltest php plone pod purescript python rake rr rst ruby rust sass "
    "scala scheme shell smalltalk smarty sql stylus svg swift tcl tex toml ts ttml vb verilog vhdl vim xml yaml"
).split()

#: ack (Perl's Getopt::Long with bundling: long options abbreviate, ``--noX`` and ``--no-X``
#: negate). ``-f`` lists the files it would search and ``--match`` gives the pattern: every
#: operand is then a path. ``--ackrc`` reads options, ``--pager`` among them, from a file.
ACK = OptionSet((
    *flags("-f -g -l|--files-with-matches -L|--files-without-matches -c|--count -i|--ignore-case "
           "-S|--smart-case --nosmart-case --no-smart-case -I|--no-ignore-case -v|--invert-match -w|--word-regexp "
           "-Q|--literal -o --passthru -1 -H|--with-filename -h|--no-filename --column --nocolumn --no-column "
           "--print0 -s --nopager --no-pager --heading --noheading --no-heading --break --nobreak --no-break "
           "--group --nogroup --no-group -P --underline --nounderline --no-underline --color --nocolor --no-color "
           "--colour --nocolour --no-colour --flush --sort-files --show-types -r|-R|--recurse -n|--no-recurse "
           "--follow --nofollow --no-follow -k|--known-types --env --noenv --no-env --ignore-ack-defaults "
           "--filter --nofilter --no-filter --help --version"),
    *values("--range-start --range-end --match -m|--max-count -A|--after-context -B|--before-context "
            "--color-filename --color-match --color-colno --color-lineno --ignore-dir --noignore-dir "
            "--no-ignore-dir --ignore-directory --noignore-directory --no-ignore-directory --ignore-file "
            "-t|-T|--type --type-set --type-add --type-del"),
    *flags(" ".join(f"--{prefix}{name}" for name in _ACK_TYPES for prefix in ("", "no", "no-"))),
    opt("--pager", V, Does.RUNS), opt("--ackrc", V, Does.READS_CODE),
))
#: The ack options after which every operand is a path.
ACK_PATHS_ONLY = frozenset({"-f", "--match"})

#: fd (clap: long options never abbreviate; options go before or after the operands).
#: ``-x``/``-X`` run a command on what it finds; ``-l`` runs ``ls`` found on the PATH.
FD = OptionSet((
    *flags("-H|--hidden -I|--no-ignore --no-ignore-vcs --no-ignore-parent -u|--unrestricted -s|--case-sensitive "
           "-i|--ignore-case -g|--glob --regex -F|--fixed-strings -a|--absolute-path -L|--follow -p|--full-path "
           "-0|--print0 --prune -1 -q|--quiet --show-errors --strip-cwd-prefix --one-file-system "
           "-h|--help -V|--version"),
    *values("--and -d|--max-depth --min-depth --exact-depth -E|--exclude -t|--type -e|--extension -S|--size "
            "--changed-within --changed-before -o|--owner --batch-size --ignore-file -c|--color -j|--threads "
            "--max-results --path-separator --search-path"),
    opt("-x --exec", V, Does.RUNS), opt("-X --exec-batch", V, Does.RUNS), opt("-l --list-details", does=Does.RUNS),
), abbreviations=False)
#: The fd option naming where it searches instead of its operands.
FD_SEARCH_PATH = "--search-path"
