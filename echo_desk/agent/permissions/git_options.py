"""git's options as data: the global ones (before the subcommand) and those of the subcommands
people allow most (read commands, add, commit). A subcommand not listed here has no known
options: every option it is given must be named by the rule.

git's own parser takes a unique prefix of a long option for most commands; the engine assumes it
always does (a prefix of a dangerous option is never covered).
"""

from __future__ import annotations

from echo_desk.agent.permissions.options import Does, OptionSet, Takes, flags, opt, values

V, OPT = Takes.VALUE, Takes.OPTIONAL

GLOBAL = OptionSet((
    opt("-C", V), opt("--git-dir --work-tree --namespace --super-prefix --list-cmds --attr-source", V),
    opt("-c", V, Does.CONFIG), opt("--config-env", V, Does.CONFIG), opt("--exec-path", OPT, Does.RUNS),
    *flags("--html-path --man-path --info-path -p|--paginate -P|--no-pager --no-replace-objects --no-lazy-fetch "
           "--no-optional-locks --no-advice --bare --literal-pathspecs --glob-pathspecs --noglob-pathspecs "
           "--icase-pathspecs --version -v --help -h"),
), permute=False, abbreviations=False)
#: Global options that change neither which repository is used nor what runs: dropped before an
#: allow rule is matched (``git --no-pager log`` is ``git log``).
HARMLESS_GLOBAL = frozenset({"-p", "--paginate", "-P", "--no-pager", "--no-replace-objects", "--no-lazy-fetch",
                             "--no-optional-locks", "--no-advice", "--literal-pathspecs", "--glob-pathspecs",
                             "--noglob-pathspecs", "--icase-pathspecs"})

_DIFF = (
    *flags("-p|-u|--patch -s|--no-patch --raw --patch-with-raw --numstat --shortstat --cumulative --summary "
           "--name-only --name-status --compact-summary --patch-with-stat -z --full-index --binary --no-color "
           "--no-renames --find-copies-harder -D|--irreversible-delete --pickaxe-all --pickaxe-regex -R "
           "--no-relative -a|--text --ignore-space-at-eol -b|--ignore-space-change -w|--ignore-all-space "
           "--ignore-blank-lines --ignore-cr-at-eol -W|--function-context --exit-code --quiet --no-ext-diff "
           "--no-textconv --no-prefix --default-prefix --ita-invisible-in-index --ita-visible-in-index --histogram "
           "--patience --minimal --indent-heuristic --no-indent-heuristic --no-color-moved --check --merge-base "
           "--cached --staged --no-index --base -1 -2 -3 --ours --theirs -0 --follow --full-diff --renames "
           "--rename-empty --no-rename-empty --no-stat"),
    *(opt(n, OPT) for n in ("--stat", "--dirstat", "--abbrev", "--color", "--color-moved", "--color-words",
                          "--word-diff", "--relative", "--ignore-submodules", "--submodule", "-M", "--find-renames",
                          "-C", "--find-copies", "-B", "--break-rewrites", "--diff-merges")),
    *values("--word-diff-regex -l --diff-filter -S -G -O -I --ignore-matching-lines --inter-hunk-context "
            "--src-prefix --dst-prefix --line-prefix --diff-algorithm --anchored -U|--unified --output-indicator-new "
            "--output-indicator-old --output-indicator-context --color-moved-ws --stat-width --stat-name-width "
            "--stat-count --stat-graph-width --skip-to --rotate-to --find-object"),
    opt("--ext-diff", does=Does.RUNS), opt("--textconv", does=Does.RUNS), opt("--output", V, Does.WRITES),
)
_LOG = (
    *flags("--oneline --graph --no-decorate --all --all-match --invert-grep -i|--regexp-ignore-case "
           "-E|--extended-regexp -F|--fixed-strings -P|--perl-regexp --basic-regexp --merges --no-merges "
           "--first-parent --not --reverse --walk-reflogs -g --left-right --left-only --right-only --cherry-pick "
           "--cherry-mark --cherry --boundary --topo-order --date-order --author-date-order --relative-date "
           "--abbrev-commit --no-abbrev-commit --no-expand-tabs --no-notes --no-show-signature --parents --children "
           "--source --use-mailmap --mailmap --no-mailmap --no-use-mailmap --full-history --simplify-merges "
           "--ancestry-path --simplify-by-decoration --show-pulls --dense --sparse --do-walk --log-size --count "
           "--bisect --remove-empty --clear-decorations --single-worktree --reflog --alternate-refs "
           "--ignore-missing -m --no-diff-merges --combined-all-paths --cc -c --standard-notes --no-standard-notes "
           "--no-max-parents --no-min-parents --exclude-first-parent-only --stdin --no-walk --no-abbrev "
           "--show-linear-break --date=relative --name-only --in-commit-order --dd --remerge-diff"),
    *(opt(n, OPT) for n in ("--decorate", "--branches", "--tags", "--remotes", "--pretty", "--expand-tabs", "--notes",
                          "--show-notes", "--no-walk", "--show-linear-break")),
    *values("--glob --exclude -n|--max-count --skip --since --after --until --before --author --committer --grep "
            "--grep-reflog --min-parents --max-parents --date --format --encoding -L --decorate-refs "
            "--decorate-refs-exclude --exclude-hidden --since-as-filter"),
    # verifying a signature runs gpg (gpgsm, ssh-keygen: gpg.format, gpg.program), which also
    # creates ~/.gnupg and its key box; so does a format's %G placeholder (``signature_formats``)
    opt("--show-signature", does=Does.RUNS),
)
_GREP = (
    *flags("-i|--ignore-case -I -w|--word-regexp -v|--invert-match -h -H --full-name -E|--extended-regexp "
           "-G|--basic-regexp -F|--fixed-strings -P|--perl-regexp -n|--line-number --column -l|--files-with-matches "
           "--name-only -L|--files-without-match -z|--null -o|--only-matching -c|--count --no-color --break "
           "--heading -p|--show-function -W|--function-context --and --or --not --all-match -q|--quiet "
           "-r|--recursive --no-recursive --cached --untracked --no-index --exclude-standard --no-exclude-standard "
           "--recurse-submodules -a|--text --no-textconv"),
    opt("--textconv", does=Does.RUNS),  # the textconv filter is a program, as for diff
    opt("--color", OPT),
    *values("-e -A|--after-context -B|--before-context -C|--context --threads -f --max-depth -m|--max-count"),
    opt("-O --open-files-in-pager", OPT, Does.RUNS),
)

SUBCOMMANDS: dict[str, OptionSet] = {
    "status": OptionSet((
        *flags("-s|--short -b|--branch --show-stash --long -v|--verbose -z --no-column --ahead-behind "
               "--no-ahead-behind --renames --no-renames"),
        *(opt(n, OPT) for n in ("--porcelain", "-u", "--untracked-files", "--ignore-submodules", "--ignored",
                              "--column", "--find-renames")),
    ), numbers=True),
    "log": OptionSet((*_DIFF, *_LOG), numbers=True),
    "show": OptionSet((*_DIFF, *_LOG), numbers=True),
    "whatchanged": OptionSet((*_DIFF, *_LOG), numbers=True),
    "diff": OptionSet(_DIFF, numbers=True),
    "diff-tree": OptionSet((*_DIFF, *flags("-r -t --root --no-commit-id --stdin")), numbers=True),
    "diff-files": OptionSet(_DIFF),
    "diff-index": OptionSet(_DIFF),
    "shortlog": OptionSet((*_LOG, *flags("-n|--numbered -s|--summary -e|--email --committer"),
                           *values("--group"), opt("-w", OPT)), numbers=True),
    "reflog": OptionSet((*_DIFF, *_LOG), numbers=True),
    "branch": OptionSet((
        *flags("-a|--all -r|--remotes -v|-vv|--verbose -l|--list --show-current --no-column --no-color "
               "-i|--ignore-case --no-abbrev -d|--delete -D -m|--move -M -c|--copy -C -f|--force --track "
               "--no-track --unset-upstream --create-reflog -q|--quiet --omit-empty --recurse-submodules"),
        *(opt(n, OPT) for n in ("--contains", "--no-contains", "--merged", "--no-merged", "--column", "--color",
                              "--track")),
        opt("--abbrev", OPT),  # `--abbrev=N` only: `--abbrev --edit-description` is two options
        *values("--points-at --sort --format -u|--set-upstream-to"),
        opt("--edit-description", does=Does.RUNS),  # opens the editor
    )),
    "tag": OptionSet((
        *flags("-l|--list --no-column --no-color -i|--ignore-case --create-reflog -a|--annotate -f|--force "
               "-d|--delete --no-sign --omit-empty"),
        opt("-v --verify", does=Does.RUNS),  # runs gpg on the tag's signature
        *(opt(n, OPT) for n in ("-n", "--contains", "--no-contains", "--merged", "--no-merged", "--column", "--color")),
        *values("--sort --points-at --format -m|--message -F|--file --cleanup --trailer"),
        opt("-s --sign -u --local-user -e --edit", OPT, Does.RUNS),  # signing and the editor run programs
    )),
    "describe": OptionSet((
        *flags("--tags --all --contains --exact-match --debug --long --always --first-parent"),
        *values("--candidates --match --exclude"), opt("--abbrev", OPT), opt("--dirty", OPT), opt("--broken", OPT),
    )),
    "rev-parse": OptionSet((
        *flags("--show-toplevel --show-prefix --show-cdup --git-dir --git-common-dir --absolute-git-dir "
               "--is-inside-work-tree --is-inside-git-dir --is-bare-repository --is-shallow-repository --verify "
               "-q|--quiet --symbolic --symbolic-full-name --all --revs-only --no-revs --flags --no-flags --sq "
               "--sq-quote --not --local-env-vars --show-superproject-working-tree --shared-index-path "
               "--show-ref-format --keep-dashdash --stop-at-non-option --stuck-long"),
        *(opt(n, OPT) for n in ("--abbrev-ref", "--short", "--branches", "--tags", "--remotes", "--show-object-format")),
        *values("--glob --exclude --disambiguate --since --after --until --before --default --resolve-git-dir "
                "--git-path --path-format --prefix"),
    )),
    "ls-files": OptionSet((
        *flags("-c|--cached -d|--deleted -m|--modified -o|--others -i|--ignored -s|--stage -u|--unmerged "
               "-k|--killed -z -t -v -f --directory --no-empty-directory --eol --exclude-standard --error-unmatch "
               "--full-name --recurse-submodules --debug --deduplicate --sparse --resolve-undo"),
        opt("--abbrev", OPT), *values("-x|--exclude -X|--exclude-from --exclude-per-directory --with-tree --format"),
    )),
    "ls-tree": OptionSet((
        *flags("-d -r -t -l|--long -z --name-only --name-status --object-only --full-name --full-tree"),
        opt("--abbrev", OPT), *values("--format"),
    )),
    "blame": OptionSet((
        *flags("-b --root --show-stats -f|--show-name -n|--show-number -s -e|--show-email -w --incremental "
               "--porcelain --line-porcelain -p -t -l --first-parent --color-lines --color-by-age --progress "
               "--no-progress -c --score-debug --minimal"),
        opt("-M", OPT), opt("-C", OPT),
        *values("-L --date --reverse --encoding --contents -S --ignore-rev --ignore-revs-file"), opt("--abbrev", OPT),
    )),
    "grep": OptionSet(_GREP, numbers=True),
    "remote": OptionSet((*flags("-v|--verbose"),)),
    "stash": OptionSet((*_DIFF, *_LOG, *flags("-k|--keep-index --no-keep-index -u|--include-untracked -a|--all -q|"
                                             "--quiet --staged -S --index --pathspec-file-nul"),
                        *values("-m|--message --pathspec-from-file")), numbers=True),
    "show-ref": OptionSet((*flags("--head --tags --branches --heads -d|--dereference -s|--hash --verify -q|--quiet "
                                  "--exists --exclude-existing"), opt("--abbrev", OPT))),
    "cat-file": OptionSet((*flags("-t -s -e -p --batch-all-objects --buffer --unordered --follow-symlinks "
                                  "--allow-unknown-type -Z"), *(opt(n, OPT) for n in ("--batch", "--batch-check",
                                                                                    "--batch-command")),
                           opt("--textconv --filters", does=Does.RUNS), *values("--path"))),
    # (what a writing form writes is judged by the write rules: ``git_settings_writes``)
    "config": OptionSet((*flags("--get --get-all --get-regexp --get-urlmatch --get-color --get-colorbool --list -l "
                                "--show-origin --show-scope --name-only -z --null --local --global --system "
                                "--worktree --includes --no-includes --bool --int --bool-or-int --path --expiry-date "
                                "--add --unset --unset-all --replace-all --rename-section --remove-section "
                                "--fixed-value"), *values("--type --default -f|--file --blob --comment"),
                         opt("-e --edit", does=Does.RUNS))),
    # (-n/--dry-run lists what it would delete and deletes nothing: strace, git 2.39, bash and
    # dash, s254; without it what it deletes is judged by ``git_worktree_updates``. -f and -i
    # delete: a rule covers them only by naming them.)
    "clean": OptionSet((*flags("-n|--dry-run -q|--quiet -d -x -X"), *values("-e|--exclude"),
                        opt("-f --force -i --interactive", does=Does.WRITES))),
    "add": OptionSet((
        *flags("-n|--dry-run -v|--verbose -f|--force -u|--update -A|--all --no-all --ignore-removal "
               "--no-ignore-removal -N|--intent-to-add --refresh --ignore-errors --ignore-missing "
               "--no-warn-embedded-repo --renormalize --pathspec-file-nul --sparse"),
        *values("--chmod --pathspec-from-file"),
        opt("-i --interactive -p --patch -e --edit", does=Does.RUNS),  # an editor or a prompt
    )),
    "commit": OptionSet((
        *flags("-a|--all --amend --no-edit -s|--signoff --no-signoff -n|--no-verify --verify -q|--quiet "
               "-v|--verbose --dry-run --short --branch --porcelain --long -z --allow-empty --allow-empty-message "
               "-i|--include -o|--only --pathspec-file-nul --no-gpg-sign --status --no-status --reset-author"),
        *values("-m|--message -F|--file -C|--reuse-message --fixup --squash --cleanup -t|--template --author --date "
                "--pathspec-from-file --trailer"),
        opt("-u --untracked-files", OPT),
        opt("-c --reedit-message", V, Does.RUNS), opt("-e --edit -p --patch --interactive", does=Does.RUNS),
        opt("-S --gpg-sign", OPT, Does.RUNS),
    )),
}
#: Subcommands that run a command given in their arguments (unwrapped for deny rules).
RUNS_A_COMMAND_LINE = {("submodule", "foreach")}
RUNS_A_COMMAND = {("bisect", "run")}
#: Subcommands that run a program whatever their options (git 2.39, bash and dash, strace):
#: ``git bugreport`` opens the editor on the report it wrote (vim with the person's ``set
#: exrc`` then reads the folder's ``.exrc``), ``git merge-index PROGRAM FILE`` runs PROGRAM for
#: an unmerged FILE (the agent can make one with ``git update-index --index-info``), ``git
#: remote-ext REMOTE COMMAND`` runs COMMAND (git refuses ``ext::`` URLs, not the helper run by
#: hand). ``git difftool`` and ``git mergetool`` run the diff or merge tool the settings name or
#: git guesses (vimdiff, which reads its keys from the line's input: ``git difftool -y --no-index
#: a.txt b.txt <<EOF`` holding ``:!touch PWNED`` ran touch, and so did ``git mergetool`` on a
#: conflict; ``-x``/``--extcmd`` runs any command). A rule covers them only by naming them
#: (``runs_a_program``).
RUNS_A_PROGRAM = frozenset({"bugreport", "merge-index", "remote-ext", "difftool", "mergetool"})


def runs_a_program(sub: str) -> bool:
    """Whether the subcommand ``sub`` runs a program whatever its options: those above, git's
    transport helpers (``remote-ext``, ``remote-fd``…: git runs them for a URL's scheme) and its
    internal helpers (``submodule--helper``, ``bisect--helper``…, which run what their words
    say and are read by no table here)."""
    return sub in RUNS_A_PROGRAM or sub.startswith("remote-") or "--" in sub.strip("-")


#: Subcommands that only read the repository (with no option that runs or writes).
READS_ONLY = frozenset({"status", "log", "show", "whatchanged", "diff", "diff-tree", "diff-files", "diff-index",
                        "shortlog", "blame", "grep", "describe", "rev-parse", "ls-files", "ls-tree", "show-ref",
                        "cat-file"})

#: Subcommands that never add an entry to the index. Any other may (``git add out/r`` adds the
#: repository planted in out/r as a submodule, which a later ``git status`` of the same line
#: runs git in: see ``git_index``), as may a subcommand the engine does not know (an alias).
KEEPS_INDEX = READS_ONLY | frozenset({"branch", "tag", "remote", "reflog", "config", "fetch", "push", "ls-remote",
                                      "rev-list", "for-each-ref", "var", "version", "help"})

#: Subcommands whose operands (or some of whose actions) change the repository: ``git branch
#: NAME`` creates a branch, ``git remote add`` a remote. An allow's ``**`` covers them only when
#: a listing option says the operands are patterns (``git branch --list 'fix-*'``).
LISTING = {
    # (Not ``-v``: ``git branch -v NAME`` creates NAME.)
    "branch": frozenset({"-l", "--list", "-a", "--all", "-r", "--remotes", "--contains", "--no-contains",
                         "--merged", "--no-merged", "--points-at", "--show-current"}),
    "tag": frozenset({"-l", "--list", "-n", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at",
                      "-v", "--verify"}),
}
#: Options of those subcommands that change the repository whatever the operands.
CHANGING = {
    "branch": frozenset({"-d", "-D", "--delete", "-m", "-M", "--move", "-c", "-C", "--copy", "-f", "--force",
                         "--track", "--no-track", "-u", "--set-upstream-to", "--unset-upstream", "--create-reflog"}),
    "tag": frozenset({"-a", "--annotate", "-d", "--delete", "-f", "--force", "-m", "--message", "-F", "--file",
                      "--create-reflog"}),
}
#: The actions (first operand) of subcommands that only read.
READING_ACTIONS = {
    "remote": frozenset({"show", "get-url"}),
    "reflog": frozenset({"show", "exists"}),
    "stash": frozenset({"list", "show"}),
}
#: Of those, the ones that only read when given no action (``git stash`` alone stashes).
READS_WITHOUT_ACTION = frozenset({"remote", "reflog"})
