"""The options of the programs the engine knows, as data: which take a value, which run a
program, write a file or read code. (Versions read: GNU coreutils 9, sed 4.9, tar 1.34, grep 3,
findutils 4.9, gawk 5, ripgrep 14, curl 8, rsync 3.2, GNU make 4, npm 10, pytest 8, CPython
3.12, Node 20, util-linux 2.38.) git's are in ``git_options``.

``strict`` (the default): an option not listed is not covered by a rule's ``**`` — these
programs have options that run or write, so one the engine does not know may be one of them.
"""

from __future__ import annotations

from echo_desk.agent.permissions.options import Does, OptionSet, Takes, flags, opt, values

V, OPT = Takes.VALUE, Takes.OPTIONAL
RUNS, WRITES, CODE, CONFIG, SCRIPT, SHELL = (Does.RUNS, Does.WRITES, Does.READS_CODE, Does.CONFIG, Does.SCRIPT,
                                             Does.SHELL)
HELP = flags("--help --version")

SED = OptionSet((
    opt("-n --quiet --silent"), opt("--debug"), opt("-e --expression", V, SCRIPT), opt("-f --file", V, CODE),
    opt("--follow-symlinks"), opt("-i --in-place", OPT, WRITES), opt("-l --line-length", V), opt("--posix"),
    opt("-E -r --regexp-extended"), opt("-s --separate"), opt("--sandbox"), opt("-u --unbuffered"),
    opt("-z --null-data --zero-terminated"), opt("-b --binary"), *HELP,
))

SORT = OptionSet((
    *flags("-b|--ignore-leading-blanks -d|--dictionary-order -f|--ignore-case -g|--general-numeric-sort "
           "-i|--ignore-nonprinting -M|--month-sort -h|--human-numeric-sort -n|--numeric-sort -R|--random-sort "
           "-r|--reverse -V|--version-sort --debug -m|--merge -s|--stable -u|--unique -z|--zero-terminated -c -C"),
    opt("--check", OPT), *values("--random-source --sort -k|--key -t|--field-separator -S|--buffer-size --parallel "
                               "--batch-size --files0-from"),
    opt("-o --output", V, WRITES), opt("-T --temporary-directory", V, WRITES), opt("--compress-program", V, RUNS),
    *HELP,
))

GREP = OptionSet((
    *flags("-E|--extended-regexp -F|--fixed-strings|--fixed-regexp -G|--basic-regexp -P|--perl-regexp -i|-y|--ignore-case "
           "--no-ignore-case -v|--invert-match -w|--word-regexp -x|--line-regexp -c|--count -L|--files-without-match "
           "-l|--files-with-matches -o|--only-matching -q|--quiet|--silent -s|--no-messages -b|--byte-offset "
           "-H|--with-filename -h|--no-filename -n|--line-number -T|--initial-tab -Z|--null -z|--null-data -a|--text "
           "-I -r|--recursive -R|--dereference-recursive -U|--binary -u|--unix-byte-offsets --line-buffered -V"),
    opt("--color --colour", OPT),
    *values("-e|--regexp -f|--file -m|--max-count --label -A|--after-context -B|--before-context -C|--context "
            "--binary-files -D|--devices -d|--directories --exclude --exclude-from --exclude-dir --include "
            "--group-separator"),
    *flags("--no-group-separator"),
    *HELP,
), strict=False, numbers=True)

#: GNU head and tail (coreutils 9.1, ``--help`` and info). ``-n``/``-c`` take a count in every
#: getopt form (``-n3``, ``-n 3``, ``--lines=3``, ``--lines 3``, ``--li 3``). tail's follow
#: options keep reading by name after the line has been judged (``-F`` reopens a name that has
#: become another file).
HEAD = OptionSet((
    *values("-c|--bytes -n|--lines"), *flags("-q|--quiet|--silent -v|--verbose -z|--zero-terminated"), *HELP,
))
TAIL = OptionSet((
    *values("-c|--bytes -n|--lines -s|--sleep-interval --max-unchanged-stats --pid"),
    opt("--follow", OPT), *flags("-f -F --retry -q|--quiet|--silent -v|--verbose -z|--zero-terminated"), *HELP,
))

RG = OptionSet((
    *flags("--binary --no-binary --block-buffered --no-block-buffered -b|--byte-offset --no-byte-offset "
           "-s|--case-sensitive --column --no-column -c|--count --count-matches --crlf --no-crlf --debug --files "
           "-l|--files-with-matches --files-without-match -F|--fixed-strings --no-fixed-strings -L|--follow "
           "--no-follow --glob-case-insensitive --no-glob-case-insensitive --heading --no-heading --hidden --no-hidden "
           "-i|--ignore-case --ignore-file-case-insensitive --include-zero -v|--invert-match --no-invert-match "
           "--json --no-json --line-buffered --no-line-buffered -n|--line-number -N|--no-line-number "
           "-x|--line-regexp --max-columns-preview --mmap --no-mmap -U|--multiline --no-multiline "
           "--multiline-dotall --no-config --no-ignore --no-ignore-dot --no-ignore-exclude --no-ignore-files "
           "--no-ignore-global --no-ignore-messages --no-ignore-parent --no-ignore-vcs --no-messages "
           "--no-require-git --no-unicode --unicode -0|--null --null-data --one-file-system "
           "-o|--only-matching --passthru -P|--pcre2 --no-pcre2 --pcre2-version -p|--pretty -q|--quiet "
           "--no-search-zip -S|--smart-case --stats --stop-on-nonmatch -a|--text --no-text --trace "
           "--trim --no-trim --type-list -u|--unrestricted -V|--version --vimgrep -H|--with-filename "
           "-I|--no-filename -w|--word-regexp --auto-hybrid-regex --no-auto-hybrid-regex -h|--help -.|--hidden"),
    *values("-A|--after-context -B|--before-context -C|--context --color --colors --context-separator "
            "--dfa-size-limit -E|--encoding --engine --field-context-separator --field-match-separator -f|--file "
            "--generate -g|--glob --iglob --ignore-file -M|--max-columns -m|--max-count -d|--max-depth "
            "--max-filesize --path-separator --pre-glob --regex-size-limit -e|--regexp -r|--replace --sort --sortr "
            "-j|--threads -t|--type -T|--type-not --type-add --type-clear --hyperlink-format"),
    opt("--pre", V, RUNS), opt("--hostname-bin", V, RUNS),
    opt("-z --search-zip", does=RUNS),  # runs gzip, xz, bzip2, zstd… (found on PATH) on compressed files
), abbreviations=False)

TAR = OptionSet((
    opt("-c --create", does=WRITES), opt("-x --extract --get", does=WRITES), opt("-r --append", does=WRITES),
    opt("-u --update", does=WRITES), opt("-A --catenate --concatenate", does=WRITES), opt("--delete", does=WRITES),
    *flags("-t|--list -d|--diff|--compare --test-label -v|--verbose -z|--gzip|--gunzip|--ungzip -j|--bzip2 -J|--xz "
           "--zstd --lzma --lzip --lzop -Z|--compress|--uncompress -a|--auto-compress -O|--to-stdout "
           "-k|--keep-old-files --keep-newer-files --skip-old-files -m|--touch -p|--preserve-permissions|"
           "--same-permissions -s|--preserve-order|--same-order -S|--sparse -h|--dereference -P|--absolute-names "
           "-B|--read-full-records -i|--ignore-zeros -l|--check-links -M|--multi-volume -R|--block-number "
           "--no-same-owner --same-owner --numeric-owner --no-same-permissions --show-transformed-names --utc "
           "--full-time -o --null --no-null --unquote --no-unquote --ignore-failed-read --one-file-system "
           "--exclude-vcs --exclude-vcs-ignores --exclude-backups --exclude-caches --exclude-caches-all "
           "--exclude-caches-under --hard-dereference --check-device --no-check-device --force-local --show-defaults "
           "--usage --restrict --delay-directory-restore --no-delay-directory-restore --seek -n --no-seek "
           "--ignore-case --no-ignore-case --wildcards --no-wildcards --wildcards-match-slash "
           "--no-wildcards-match-slash --anchored --no-anchored --recursion --no-recursion --verbatim-files-from "
           "--no-verbatim-files-from"),
    *values("-f|--file -C|--directory -T|--files-from -X|--exclude-from --exclude --exclude-tag --exclude-tag-all "
            "--exclude-tag-under -N|--newer|--after-date --newer-mtime --owner --group --mode --mtime "
            "--transform|--xform -b|--blocking-factor -L|--tape-length -H|--format -K|--starting-file "
            "--strip-components --warning -V|--label --suffix --record-size --sort --quoting-style --quote-chars "
            "--no-quote-chars --owner-map --group-map --pax-option --level --hole-detection"),
    # An optional value is glued (`--occurrence=2`): the next word is not it — read as the value,
    # it would hide an option (`--occurrence -I PROG`).
    *(opt(n, OPT) for n in ("--checkpoint", "--backup", "--atime-preserve", "--totals", "--occurrence")),
    opt("-W --verify"),
    opt("-I --use-compress-program", V, RUNS), opt("--to-command", V, RUNS), opt("--checkpoint-action", V, RUNS),
    opt("--rsh-command", V, RUNS), opt("-F --info-script --new-volume-script", V, RUNS),
    opt("--index-file", V, WRITES), opt("-g --listed-incremental", V, WRITES), opt("--volno-file", V, WRITES),
    opt("--remove-files", does=WRITES), opt("-U --unlink-first", does=WRITES), opt("--recursive-unlink", does=WRITES),
    opt("--overwrite", does=WRITES), opt("--overwrite-dir", does=WRITES), opt("-G --incremental", does=WRITES),
    *HELP,
))
#: tar's old style (``tar tvf a.tar``): the options whose letter takes the next word.
TAR_OLD_STYLE_VALUES = frozenset("fCTXbLHKNVgFI")

FIND_GLOBAL = frozenset({"-H", "-L", "-P"})
#: find's primaries by how many words they take; the ones that run or write are ``FIND_DANGEROUS``.
FIND_ONE = frozenset({
    "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-type", "-xtype",
    "-size", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin", "-newer", "-anewer", "-cnewer", "-perm",
    "-user", "-group", "-uid", "-gid", "-links", "-inum", "-samefile", "-lname", "-ilname", "-maxdepth",
    "-mindepth", "-regextype", "-used", "-fstype", "-context", "-printf", "-files0-from", "-D",
})
FIND_NONE = frozenset({
    "-print", "-print0", "-ls", "-prune", "-quit", "-true", "-false", "-empty", "-executable", "-readable",
    "-writable", "-nouser", "-nogroup", "-depth", "-d", "-follow", "-xdev", "-mount", "-noleaf", "-daystart",
    "-ignore_readdir_race", "-noignore_readdir_race", "-warn", "-nowarn", "-not", "-a", "-and", "-o", "-or",
    "-help", "--help", "-version", "--version", "!", "(", ")", ",",
})
FIND_WRITES = {"-delete": 0, "-fprint": 1, "-fprint0": 1, "-fls": 1, "-fprintf": 2}
FIND_RUNS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})

AWK = OptionSet((
    opt("-f --file", V, CODE), opt("-F --field-separator", V), opt("-v --assign", V), opt("-e --source", V, SCRIPT),
    opt("-E --exec", V, CODE), opt("-i --include", V, CODE), opt("-l --load", V, RUNS),
    opt("-d --dump-variables", OPT, WRITES), opt("-D --debug", OPT, CODE), opt("-o --pretty-print", OPT, WRITES),
    opt("-p --profile", OPT, WRITES), opt("-L --lint", OPT),
    *flags("-b|--characters-as-bytes -c|--traditional -C|--copyright -g|--gen-pot -h|--help -I|--trace -M|--bignum "
           "-N|--use-lc-numeric -n|--non-decimal-data -O|--optimize -P|--posix -r|--re-interval -s|--no-optimize "
           "-S|--sandbox -t|--lint-old -V|--version"),
), permute=False)

#: curl 7.88/8 (strict: an option not listed asks, ``--next`` and ``--proto-default`` among
#: them). The options writing a file are named by a rule; their files are judged by the write
#: rules (``downloads.curl_output``). The files it reads and sends — a plain value (``--cert``,
#: ``-b FILE``, ``-T``), one inside a value (``-d @F``, ``-F a=<F``, ``--data-urlencode k@F``),
#: a ``file:`` address, ~/.netrc for ``-n`` — are judged by the read rules
#: (``download_reads``); ``-T`` to a ``file:`` address writes it. ``-K`` reads options.
CURL = OptionSet((
    *flags("-s|--silent -S|--show-error -L|--location -f|--fail --fail-with-body -i|--include -I|--head -v|--verbose "
           "-k|--insecure --compressed -G|--get -J|--remote-header-name --create-dirs -4|--ipv4 -6|--ipv6 "
           "-Z|--parallel --no-progress-meter -#|--progress-bar -N|--no-buffer --basic --digest --ntlm --negotiate "
           "--anyauth --tlsv1.2 --tlsv1.3 --http1.0 --http1.1 --http2 --http3 -n|--netrc --netrc-optional "
           "-g|--globoff --path-as-is --raw --tr-encoding -j|--junk-session-cookies --location-trusted --post301 "
           "--post302 --post303 --fail-early --retry-all-errors --retry-connrefused -q|--disable --no-keepalive "
           "--ssl --ssl-reqd --no-sessionid --styled-output --no-styled-output --show-headers"),
    *values("-X|--request -H|--header -A|--user-agent -e|--referer -u|--user -m|--max-time --connect-timeout "
            "--retry --retry-delay --retry-max-time -x|--proxy --noproxy --resolve --connect-to --url -r|--range "
            "-C|--continue-at -z|--time-cond --max-filesize --limit-rate --cacert --capath -E|--cert --key "
            "--pinnedpubkey --oauth2-bearer --netrc-file --url-query --max-redirs --request-target "
            "--proxy-user -U --interface --dns-servers --data-urlencode -w|--write-out "
            "-d|--data --data-raw --data-ascii --data-binary -F|--form --form-string --json --variable "
            "-b|--cookie --etag-compare -Y|--speed-limit -y|--speed-time --keepalive-time --expect100-timeout"),
    opt("-o --output", V, WRITES), opt("-O --remote-name", does=WRITES), opt("--remote-name-all", does=WRITES),
    opt("--output-dir", V, WRITES), opt("-K --config", V, CODE), opt("-D --dump-header", V, WRITES),
    opt("-c --cookie-jar", V, WRITES), opt("--trace --trace-ascii", V, WRITES), opt("--stderr", V, WRITES),
    opt("--libcurl", V, WRITES), opt("--etag-save", V, WRITES), opt("-T --upload-file", V),
    opt("--hsts --alt-svc", V, WRITES),
    # A local socket instead of the network: the service there acts on the request (docker's
    # /var/run/docker.sock creates and starts a container that runs any program; proven with
    # a listener on a socket receiving `POST /containers/create`).
    opt("--unix-socket", V, CONFIG), opt("--abstract-unix-socket", V, CONFIG),
    *HELP,
))
#: scp and sftp (OpenSSH 9.2) run ssh, which runs what its settings say: ``-o`` sets any of
#: them (``ProxyCommand``, ``LocalCommand``, ``KnownHostsCommand`` run a local command), ``-F``
#: names the settings file (its ``Include`` lines, ``Match exec``), ``-J`` a host to jump
#: through, ``-S`` and ``-D`` a local program to run instead of ssh or the server; sftp's ``-b``
#: reads its commands from a file (``!cmd`` runs a local shell command). All proven with
#: ``ProxyCommand touch PWNED`` and a host that does not exist. The user's and the system's
#: settings, with what they include: ``ssh_config``.
SSH_CLIENTS = frozenset({"scp", "sftp"})
_SSH_CLIENT = (opt("-o", V, CONFIG), opt("-F", V, CONFIG), opt("-J", V, CONFIG), opt("-S", V, RUNS),
               opt("-D", V, RUNS))
SCP = OptionSet((*flags("-3 -4 -6 -A -B -C -O -p -q -R -r -s -T -v"), *values("-c -i -l -P -X"), *_SSH_CLIENT),
                permute=False, abbreviations=False)
SFTP = OptionSet((*flags("-4 -6 -A -a -C -f -N -p -q -r -v"), *values("-B -c -i -l -P -R -s -X"), *_SSH_CLIENT,
                  opt("-b", V, CODE)), permute=False, abbreviations=False)
#: wget 1.21 (getopt_long: unique prefixes of long options; ``-nc``/``-nd``/``-nH``/``-np``/``-nv``
#: are ``-n`` with a value). Where it writes (``-O``, ``-P``, its logs, cookies, WARC files, and
#: every file it downloads, named by the address or the server) is judged by the write rules
#: (``downloads.wget_written``): the options naming a place are plain values here. ``-e`` runs a
#: wgetrc command (``-e output_document=…``, ``dir_prefix``), ``--config`` reads a wgetrc,
#: ``--use-askpass`` runs a program; ``--post-file``/``--body-file`` send a local file.
WGET = OptionSet((
    *flags("-V|--version -h|--help -b|--background -d|--debug -q|--quiet -v|--verbose --no-config "
           "--retry-connrefused -c|--continue --show-progress -N|--timestamping --no-if-modified-since "
           "--no-use-server-timestamps -S|--server-response --spider --random-wait --no-proxy --no-dns-cache "
           "--ignore-case -4|--inet4-only -6|--inet6-only --ask-password --no-iri --unlink --xattr "
           "-x|--force-directories --protocol-directories --no-cache -E|--adjust-extension --ignore-length "
           "--save-headers --no-http-keep-alive --no-cookies --keep-session-cookies --content-disposition "
           "--content-on-error --auth-no-challenge --https-only --no-check-certificate --no-hsts "
           "--no-remove-listing --no-glob --no-passive-ftp --preserve-permissions --retr-symlinks "
           "--ftps-implicit --ftps-resume-ssl --ftps-clear-data-connection --ftps-fallback-to-ftp --warc-cdx "
           "--no-warc-compression --no-warc-digests --no-warc-keep-log -r|--recursive --delete-after "
           "-k|--convert-links --convert-file-only -K|--backup-converted -m|--mirror -p|--page-requisites "
           "--strict-comments --follow-ftp -H|--span-hosts -L|--relative --trust-server-names -F|--force-html "
           "--no-parent --no-clobber --no-directories --no-host-directories --no-verbose --no-netrc"),
    *values("--report-speed -i|--input-file -B|--base --rejected-log -t|--tries --retry-on-http-error --start-pos "
            "--progress -T|--timeout --dns-timeout --connect-timeout --read-timeout -w|--wait --waitretry "
            "-Q|--quota --bind-address --limit-rate --restrict-file-names --prefer-family --user --password "
            "--local-encoding --remote-encoding -P|--directory-prefix --cut-dirs --http-user --http-password "
            "--default-page --header --compression --max-redirect --proxy-user --proxy-password --referer "
            "-U|--user-agent --load-cookies --save-cookies --method --post-data --body-data --secure-protocol "
            "--certificate --certificate-type --private-key --private-key-type --ca-certificate --ca-directory "
            "--crl-file --pinnedpubkey --ciphers --hsts-file --ftp-user --ftp-password --warc-file --warc-header "
            "--warc-max-size --warc-dedup --warc-tempdir --backups -l|--level -A|--accept -R|--reject "
            "--accept-regex --reject-regex --regex-type -D|--domains --exclude-domains --follow-tags "
            "--ignore-tags -I|--include-directories -X|--exclude-directories -n -o|--output-file "
            "-a|--append-output -O|--output-document"),
    opt("-e --execute", V, CONFIG), opt("--config", V, CODE), opt("--use-askpass", V, RUNS),
    opt("--post-file --body-file", V, CONFIG),
), strict=True)

RSYNC = OptionSet((
    *flags("-v|--verbose -q|--quiet -c|--checksum -a|--archive -r|--recursive -R|--relative -b|--backup "
           "-u|--update -l|--links -L|--copy-links -k|--copy-dirlinks -K|--keep-dirlinks -H|--hard-links "
           "-p|--perms -E|--executability -A|--acls -X|--xattrs -o|--owner -g|--group -D --devices --specials "
           "-t|--times -U|--atimes -N|--crtimes -O|--omit-dir-times -J|--omit-link-times -S|--sparse -n|--dry-run "
           "-W|--whole-file -x|--one-file-system -z|--compress -h|--human-readable -P --progress --partial --stats "
           "-i|--itemize-changes -8|--8-bit-output -C|--cvs-exclude -y|--fuzzy -0|--from0 -m|--prune-empty-dirs "
           "-d|--dirs --mkpath --list-only --no-motd --numeric-ids --ignore-existing -I|--ignore-times --size-only "
           "--existing --inplace --append --append-verify --safe-links --copy-unsafe-links --munge-links --super "
           "--fake-super --preallocate --no-implied-dirs --force --ignore-errors --blocking-io --ipv4 --ipv6 -4 -6 "
           "-F --delay-updates --no-inc-recursive --copy-as --trust-sender -s|--secluded-args|--protect-args"),
    *values("--exclude --include --exclude-from --include-from --files-from -f|--filter --suffix --info --debug "
            "--port --bwlimit --timeout --contimeout --min-size --max-size --checksum-choice --compress-choice "
            "--compress-level --out-format --log-file-format --max-delete --modify-window --usermap --groupmap "
            "--chown --chmod --iconv --protocol --address --password-file --outbuf --block-size -B"),
    *(opt(n, does=WRITES) for n in ("--delete", "--delete-before", "--delete-during", "--delete-delay",
                                    "--delete-after", "--delete-excluded", "--delete-missing-args",
                                    "--remove-source-files")),
    opt("-e --rsh", V, RUNS), opt("--rsync-path", V, RUNS), opt("--log-file", V, WRITES),
    opt("--write-batch --only-write-batch", V, WRITES), opt("--read-batch", V, CODE),
    opt("-T --temp-dir --partial-dir --backup-dir --compare-dest --copy-dest --link-dest", V, WRITES),
    opt("--daemon", does=RUNS), opt("--config", V, CODE), opt("--early-input", V, CODE),
    *HELP,
))

#: man (man-db 2.9-2.12, argp: unique prefixes of long options). ``-P``/``--pager`` and
#: ``-H``/``--html`` run the program they name (``man -P 'sh -c …' ls`` ran it, where there is a
#: terminal), ``-X`` runs gxditview, ``-C`` reads a settings file (its ``DEFINE pager``, ``DEFINE
#: browser`` name programs), ``-c``/``-u`` write man's caches. An option not listed asks.
MAN = OptionSet((
    *flags("-d|--debug -D|--default -f|--whatis -k|--apropos -K|--global-apropos -l|--local-file "
           "-w|--where|--path|--location -W|--where-cat|--location-cat -i|--ignore-case -I|--match-case --regex "
           "--wildcard --names-only -a|--all --no-subpages -7|--ascii --no-hyphenation|--nh "
           "--no-justification|--nj -t|--troff -Z|--ditroff -?|--help --usage -V|--version"),
    opt("--warnings", OPT), opt("-T --troff-device", OPT),
    *values("-R|--recode -L|--locale -m|--systems -M|--manpath -S|-s|--sections -e|--extension -r|--prompt "
            "-E|--encoding -p|--preprocessor"),
    opt("-P --pager", V, RUNS), opt("-H --html", OPT, RUNS), opt("-X --gxditview", OPT, RUNS),
    opt("-C --config-file", V, CODE), opt("-c --catman", does=WRITES), opt("-u --update", does=WRITES),
))

#: sdiff and diff3 (GNU diffutils 3.x) run the program ``--diff-program`` names to compare the
#: files (``sdiff --diff-program=./mytool a b`` ran it); ``sdiff -o`` writes the merged file.
SDIFF = OptionSet((
    *flags("-i|--ignore-case -E|--ignore-tab-expansion -Z|--ignore-trailing-space -b|--ignore-space-change "
           "-W|--ignore-all-space -B|--ignore-blank-lines --strip-trailing-cr -a|--text -l|--left-column "
           "-s|--suppress-common-lines -t|--expand-tabs -d|--minimal -H|--speed-large-files -v|--version"),
    *values("-I|--ignore-matching-lines -w|--width --tabsize"),
    opt("-o --output", V, WRITES), opt("--diff-program", V, RUNS), *HELP,
))
DIFF3 = OptionSet((
    *flags("-A|--show-all -e|--ed -E|--show-overlap -3|--easy-only -x|--overlap-only -X -i -m|--merge -a|--text "
           "--strip-trailing-cr -T|--initial-tab -v|--version"),
    opt("-L --label", V), opt("--diff-program", V, RUNS), *HELP,
))

TEE = OptionSet((*flags("-a|--append -i|--ignore-interrupts -p"), opt("--output-error", OPT), *HELP))

MAKE = OptionSet((
    *flags("-b -m -B|--always-make -d -e|--environment-overrides -h|--help -i|--ignore-errors -k|--keep-going "
           "-L|--check-symlink-times -n|--just-print|--dry-run|--recon -p|--print-data-base -q|--question "
           "-r|--no-builtin-rules -R|--no-builtin-variables -s|--silent|--quiet --no-silent "
           "-S|--no-keep-going|--stop --trace -v|--version -w|--print-directory --no-print-directory "
           "--warn-undefined-variables"),
    opt("--debug", OPT), opt("-j --jobs", OPT), opt("-l --load-average --max-load", OPT), opt("-O --output-sync", OPT),
    opt("--shuffle", OPT), *values("--jobserver-style -o|--old-file|--assume-old -W|--what-if|--new-file|--assume-new"),
    opt("-C --directory", V, CODE), opt("-f --file --makefile", V, CODE), opt("-I --include-dir", V, CODE),
    opt("-E --eval", V, RUNS), opt("-t --touch", does=WRITES),
))

#: rake 13's options. Those that name code it loads are covered only by naming them, as make's
#: are: -C (the Rakefile of that folder), -f, -R/--rakelibdir (every .rake there), -r, -I;
#: -e/-E/-p run the Ruby code they are given. (Each proven with rake 13.0.6: `rake -C out -T`,
#: `rake --dir out -T`, `rake -R lib2 -T` ran the agent's code.) -C, -f and the task listers
#: take an optional value only when it is the next word that is no option: read here as glued
#: only, so such a word is one more task, which asks unless named.
RAKE = OptionSet((
    *flags("--comments --rules -A|--all -B|--build-all -G|--no-system|--nosystem -g|--system -m|--multitask "
           "-n|--dry-run -N|--no-search|--nosearch -P|--prereqs -q|--quiet -s|--silent -v|--verbose -V|--version "
           "-X|--no-deprecation-warnings -h|-H|--help"),
    opt("--backtrace", OPT), opt("-t --trace", OPT), opt("--job-stats", OPT), opt("-j --jobs", OPT),
    opt("-D --describe", OPT), opt("-T --tasks", OPT), opt("-W --where", OPT), *values("--suppress-backtrace"),
    opt("-C --directory", OPT, CODE), opt("-f --rakefile", OPT, CODE), opt("-I --libdir", V, CODE),
    opt("-r --require", V, CODE), opt("-R --rakelibdir --rakelib", V, CODE),
    opt("-e --execute -E --execute-continue -p --execute-print", V, RUNS),
))

NPM = OptionSet((
    *flags("-s|--silent -q|--quiet -d -dd --verbose --json --parseable --long --no-color --if-present "
           "--ignore-scripts --production --dry-run --all -a "
           "--prefer-offline --offline --no-audit --no-fund --audit --fund --foreground-scripts --no-progress "
           "--progress --save-dev -D --save -S --save-exact -E --no-save --legacy-peer-deps --strict-peer-deps "
           "-y|--yes --no -v|--version -h|--help --fix --force -f"),
    *values("--loglevel --color --omit --include --depth --tag --otp --access"),
    opt("--script-shell", V, RUNS), opt("--prefix -C --dir", V, WRITES), opt("--userconfig --globalconfig", V, CODE),
    opt("--node-options", V, RUNS), opt("--shell", V, RUNS), opt("-c --call", V, SHELL), opt("--cache", V, WRITES),
    opt("--registry", V, CONFIG), opt("--git", V, RUNS), opt("--editor --browser --viewer", V, RUNS),
    opt("--init-module --onload-script", V, RUNS), opt("-g --global", does=WRITES), opt("--location", V),
    # Another folder's package.json, whose scripts run (`npm test -w out` runs out's test
    # script when the project declares its workspaces): not the project the rule trusts.
    opt("-w --workspace", V, CONFIG), opt("--workspaces -ws --include-workspace-root", OPT, CONFIG),
    # pnpm's --filter/-F and -r/--recursive run the scripts of the workspace's other package.json
    # files (`pnpm --filter out test` runs out/package.json's test script: proven with pnpm 10).
    opt("--filter -F --filter-prod", V, CONFIG), opt("-r --recursive", does=CONFIG),
))

PYTHON = OptionSet((
    *flags("-b -B -d -E -h -i -I -O -OO -P -q -s -S -u -v -V -x -R --help --version --help-env --help-xoptions "
           "--help-all"),
    opt("--check-hash-based-pycs", V), opt("-W", V), opt("-X", V),
    opt("-c", V, RUNS), opt("-m", V, RUNS),
), permute=False, abbreviations=False)
#: ``python -X`` values that load or run nothing and write nothing.
PYTHON_X_SAFE = frozenset({"dev", "utf8", "utf8=0", "utf8=1", "importtime", "faulthandler", "tracemalloc",
                           "showrefcount", "warn_default_encoding", "no_debug_ranges", "frozen_modules=on",
                           "frozen_modules=off", "perf", "int_max_str_digits", "gil=0", "gil=1"})

PYTEST = OptionSet((
    *flags("-x|--exitfirst --strict-config --strict-markers --strict --markers --continue-on-collection-errors "
           "--fixtures|--funcargs --fixtures-per-test --pdb --trace -s --runxfail --lf|--last-failed "
           "--ff|--failed-first --nf|--new-first --sw|--stepwise --sw-skip|--stepwise-skip -v|--verbose "
           "--no-header --no-summary -q|--quiet --disable-warnings|--disable-pytest-warnings -l|--showlocals "
           "--no-showlocals --full-trace --collect-only|--co --noconftest --keep-duplicates "
           "--collect-in-virtualenv --doctest-modules --doctest-ignore-import-errors --doctest-continue-on-failure "
           "-V|--version -h|--help --trace-config --setup-only --setup-show --setup-plan --no-cov "
           "--ignore-flaky --force-sugar --instafail"),
    opt("--cache-show", OPT), opt("--cov", OPT),
    *values("-k -m --maxfail --capture --last-failed-no-failures|--lfnf --durations --durations-min --verbosity -r "
            "--tb --show-capture --color --code-highlight --junit-prefix --log-level --log-format --log-date-format "
            "--log-cli-level --log-cli-format --log-cli-date-format --log-file-level --log-file-format "
            "--log-file-date-format --log-auto-indent --log-disable --ignore --ignore-glob --deselect --import-mode "
            "--doctest-report --assert -n|--numprocesses --dist --timeout --maxprocesses --reruns "
            "--cov-config --randomly-seed --cov-fail-under -p"),
    opt("--basetemp", V, WRITES), opt("-c --config-file", V, CODE), opt("--rootdir", V, CONFIG),
    opt("--confcutdir", V, CONFIG), opt("-o --override-ini", V, CONFIG), opt("--pdbcls", V, RUNS),
    # --pyargs: the operands are module names, found through sys.path (the current folder first for
    # `python -m pytest`): `--pyargs out.test_x` runs out/test_x.py, a folder the rules may let the
    # agent write, which no path on the line names.
    opt("--pyargs", does=CONFIG),
    # --doctest-glob: which files it runs as doctests (`--doctest-glob='*.log'` runs the log files
    # the rules let the agent write as code).
    opt("--doctest-glob", V, CONFIG),
    opt("--junit-xml --junitxml --result-log --report-log --log-file", V, WRITES), opt("--debug", OPT, WRITES),
    opt("--pastebin", V, WRITES), opt("--cache-clear", does=WRITES), opt("--cov-report", V, WRITES),
    opt("-W --pythonwarnings", V),
), abbreviations=False)

NODE = OptionSet((
    *flags("-v|--version -h|--help -c|--check --test --watch --enable-source-maps --trace-warnings "
           "--no-warnings --no-deprecation --trace-deprecation --throw-deprecation --pending-deprecation "
           "--abort-on-uncaught-exception --preserve-symlinks --experimental-vm-modules --expose-gc --no-addons "
           "--frozen-intrinsics --test-only"),
    *values("--input-type --max-old-space-size --stack-size --unhandled-rejections --conditions|-C --title "
            "--test-reporter --test-name-pattern"),
    opt("-e --eval", V, RUNS), opt("-p --print", V, RUNS), opt("-r --require", V, RUNS), opt("--import", V, RUNS),
    opt("--loader --experimental-loader", V, RUNS), opt("--env-file", V, CODE), opt("-i --interactive", does=CODE),
    opt("--inspect --inspect-brk --inspect-wait", OPT, RUNS), opt("--test-reporter-destination", V, WRITES),
), permute=False, abbreviations=False)

PERL = OptionSet((
    *flags("-n -p -a -c -w -W -X -s -T -t -U -u -v -V -S -h"),
    opt("-e -E", V, RUNS), opt("-M -m", V, RUNS), opt("-I", V), opt("-i", OPT, WRITES), opt("-l", OPT), opt("-F", V),
    opt("-0", OPT), opt("-x", OPT), opt("-C", OPT), opt("-d", OPT, RUNS), opt("-D", OPT),
), permute=False, abbreviations=False)

RUBY = OptionSet((
    *flags("-n -p -a -l -c -w -v -d -s -S --verbose --version -h --help --jit --yjit"),
    opt("-e", V, RUNS), opt("-r", V, RUNS), opt("-I", V), opt("-i", OPT, WRITES), opt("-x", OPT), opt("-C", V, CONFIG),
    opt("-F", V), opt("-0", OPT), opt("-W", OPT), opt("-E --encoding", V), opt("--disable --enable --dump", V),
), permute=False, abbreviations=False)

RM = OptionSet((
    *flags("-f|--force -i -I -r|-R|--recursive -d|--dir -v|--verbose --one-file-system --no-preserve-root"),
    opt("--interactive", OPT), opt("--preserve-root", OPT), *HELP,
), strict=False)

#: ``set`` (bash): the flags that change nothing about how later commands are found or read.
SET_SAFE = frozenset("euxvfCE")
SET_SAFE_NAMES = frozenset({"errexit", "nounset", "xtrace", "verbose", "pipefail", "noclobber", "noglob", "errtrace"})
#: Shell flags (``bash -x -c``) that are harmless; ``c`` means the command is the first operand.
SHELL_SAFE_FLAGS = frozenset("ceuxvfCEnirlsp")
SHELL_SAFE_LONG = frozenset({"--norc", "--noprofile", "--login", "--noediting", "--posix", "--verbose", "--version",
                             "--help", "--restricted", "--debugger", "--dump-strings", "--dump-po-strings"})

#: Programs that only read what they are given (with no option that runs or writes): naming a
#: folder above a path a write rule denies is harmless for them.
READS_ONLY = frozenset({
    "ls", "cat", "head", "tail", "wc", "grep", "rg", "find", "du", "df", "stat", "file", "tree",
    "diff", "cmp", "jq", "less", "more", "sort", "uniq", "cut", "tr", "nl", "column", "comm", "md5sum", "sha1sum",
    "sha256sum", "sha512sum", "basename", "dirname", "realpath", "readlink", "pwd", "echo", "printf", "test",
    "true", "false", "which", "type", "date", "mypy", "tac", "od", "hexdump", "xxd", "strings",
    "awk", "sed",
})

#: less 590-668. A lesskey file sets environment variables for less itself (``#env`` section):
#: ``LESSOPEN=|cmd %s`` runs cmd on every file, with or without a terminal. Log files write;
#: tag files may run ``global``. An option not listed asks (less has many, and grows).
LESS = OptionSet((
    *flags("-? --help -a --search-skip-screen -A --SEARCH-SKIP-SCREEN -B --auto-buffers -c --clear-screen -d --dumb "
           "-e --quit-at-eof -E --QUIT-AT-EOF -f --force -F --quit-if-one-screen -g --hilite-search "
           "-G --HILITE-SEARCH -i --ignore-case -I --IGNORE-CASE -J --status-column -K --quit-on-intr "
           "-L --no-lessopen -m --long-prompt -M --LONG-PROMPT -n --line-numbers -N --LINE-NUMBERS -q --quiet "
           "--silent -Q --QUIET --SILENT -r --raw-control-chars -R --RAW-CONTROL-CHARS -s --squeeze-blank-lines "
           "-S --chop-long-lines -u --underline-special -U --UNDERLINE-SPECIAL -V --version -w --hilite-unread "
           "-W --HILITE-UNREAD -X --no-init -~ --tilde --file-size --follow-name --incsearch --mouse --no-keypad "
           "--no-histdups --save-marks --use-backslash --use-color --no-number-headers --no-search-headers "
           "--no-vbell --redraw-on-quit --show-preproc-errors --exit-follow-on-close --form-feed --search-options"),
    *values("-b --buffers -D --color -h --max-back-scroll -j --jump-target -p --pattern -P --prompt -x --tabs "
            "-y --max-forw-scroll -z --window -# --shift --line-num-width --rscroll --status-col-width "
            "--wheel-lines --header --intr"),
    opt('-" --quotes', Takes.VALUE),
    opt("-k --lesskey-file --lesskey-src --lesskey-content", Takes.VALUE, Does.READS_CODE),
    opt("-o --log-file -O --LOG-FILE", Takes.VALUE, Does.WRITES),
    opt("-t --tag -T --tag-file", Takes.VALUE, Does.CONFIG),
))

#: vim 9 (``vim --help``; vi, view, ex, rvim, vimdiff… are vim under other names) and nvim 0.9+.
#: Vim's own words are a command language: ``-c``/``--cmd`` (``!cmd`` runs a shell command, ``w
#: FILE`` writes anywhere), ``-S`` and ``-u``/``-U`` source a script, ``-s`` reads keys from a
#: file (``-s`` is silent mode in Ex mode: named by the rule either way), ``-q``/``-t`` follow an
#: error or tag file (a tag's address is an Ex command), ``--remote-send``/``--remote-expr`` run
#: keys or an expression in another vim; ``-w``/``-W``, ``-V…FILE``, ``-i``, ``--log`` and
#: ``--startuptime`` write. ``-S``, ``-s``, ``-q`` take their file as the next word only when it
#: is not an option: read here as taking none, so an option after them is read as one. Long
#: options are matched exactly (vim takes odd spellings: any other is unknown, and asks).
_VIM = (
    *flags("-v -e -E -d -y -R -Z -m -M -b -C -N -D -n -r -L -A -H -F -x -X -f -g -h -? --help --version "
           "--not-a-term --ttyfail --noplugin --clean --literal --nofork --echo-wid"),
    opt("-o", OPT), opt("-O", OPT), opt("-p", OPT), *values("-T --servername --socketid --windowid"),
    opt("-c --cmd", V, RUNS), opt("--remote-send --remote-expr", V, RUNS),
    opt("-S", OPT, CODE), opt("-s", OPT, CODE), opt("-u -U", V, CODE), opt("-q", OPT, CONFIG), opt("-t", V, CONFIG),
    opt("-w -W -i --startuptime --log", V, WRITES), opt("-V", OPT, WRITES),
)
VIM = OptionSet((*_VIM, opt("-l")), abbreviations=False)
#: nvim: ``-l SCRIPT`` runs a Lua script, ``--listen`` serves its commands on a socket,
#: ``--embed`` reads them from its input.
NVIM = OptionSet((*_VIM, opt("-l", V, CODE), opt("--headless"), opt("--listen", V, CONFIG), opt("--embed", does=CONFIG)),
                 abbreviations=False)
#: The names vim and nvim run under.
VIM_NAMES = frozenset({"vim", "vi", "view", "ex", "rvim", "rview", "vimdiff", "gvim", "gview", "gvimdiff", "evim",
                       "eview", "vim.basic", "vim.tiny", "vim.nox", "vim.gtk3"})
NVIM_NAMES = frozenset({"nvim"})
#: GNU ed 1.19 (and red). Its commands come from its input; a file operand starting with ``!``
#: is a shell command whose output it reads (``ed '!touch PWNED'`` runs it).
ED = OptionSet((
    *flags("-h|--help -V|--version -E|--extended-regexp -G|--traditional -l|--loose-exit-status "
           "-q|--quiet|--silent -r|--restricted -s|--script -v|--verbose --strip-trailing-cr --unsafe-names"),
    opt("-p --prompt", V),
))
ED_NAMES = frozenset({"ed", "red"})

UNIQ = OptionSet((
    *flags("-c|--count -d|--repeated -D -i|--ignore-case -u|--unique -z|--zero-terminated"),
    opt("--all-repeated", OPT), opt("--group", OPT), *values("-f|--skip-fields -s|--skip-chars -w|--check-chars"),
    *HELP,
), numbers=True)
FILE = OptionSet((
    *flags("-b|--brief -E -h|--no-dereference -L|--dereference -i|--mime -k|--keep-going -l|--list -N|--no-pad "
           "-n|--no-buffer -p|--preserve-date -r|--raw -s|--special-files -S|--no-sandbox -z|--uncompress "
           "-Z|--uncompress-noreport -0|--print0 --apple --extension --mime-type --mime-encoding -v|--version"),
    *values("-e|--exclude --exclude-quiet -f|--files-from -F|--separator -m|--magic-file -P|--parameter"),
    opt("-C --compile", does=WRITES), *HELP,
))
DATE = OptionSet((
    *flags("-u|--utc|--universal -R|--rfc-email --debug"),
    *values("-d|--date -f|--file -r|--reference --rfc-3339"), opt("-I --iso-8601", OPT),
    opt("-s --set", V, WRITES), *HELP,
))
#: bash builtins that take variable names (or arithmetic): an array subscript in such a word is
#: evaluated, expansions included (`printf -v 'a[$(cmd)]' x` runs cmd).
NAME_BUILTINS = frozenset({"printf", "read", "mapfile", "readarray", "getopts", "wait", "test", "[", "let"})
#: Wrappers read leniently: their options are many; one not listed makes the command unreadable.
PRLIMIT = OptionSet((
    *(opt(f"-{short} --{name}", OPT) for short, name in (
        ("c", "core"), ("d", "data"), ("e", "nice"), ("f", "fsize"), ("i", "sigpending"), ("l", "memlock"),
        ("m", "rss"), ("n", "nofile"), ("q", "msgqueue"), ("r", "rtprio"), ("s", "stack"), ("t", "cpu"),
        ("u", "nproc"), ("v", "as"), ("x", "locks"), ("y", "rttime"))),
    *flags("--noheadings --raw --verbose"), *values("-o|--output -p|--pid"), *HELP,
), permute=False)
SETPRIV = OptionSet((
    *flags("-d|--dump --clear-groups --keep-groups --init-groups --nnp|--no-new-privs --reset-env"),
    *values("--ambient-caps --bounding-set --groups --inh-caps --rgid --egid --regid --ruid --euid --reuid "
            "--securebits --pdeathsig --selinux-label --apparmor-profile --landlock-access --landlock-rule"),
    *HELP,
), permute=False)

# -- checkers that look read-only but write where an option says (mypy 1.x-2.x, ruff 0.x) ----------
#: mypy (argparse: unique prefixes of long options are taken; ``@file`` reads more arguments).
#: Its hidden options (debug dumps, ``--cache-map``, ``-a``) are left out: not known, they ask.
MYPY = OptionSet((
    *flags("-h|--help -v|--verbose -V|--version --warn-unused-configs --no-warn-unused-configs --namespace-packages "
           "--no-namespace-packages --ignore-missing-imports --follow-untyped-imports --no-site-packages "
           "--no-silence-site-packages --disallow-any-expr --disallow-any-decorated --disallow-any-explicit "
           "--disallow-any-generics --allow-any-generics --disallow-any-unimported --allow-any-unimported "
           "--disallow-subclassing-any --allow-subclassing-any --disallow-untyped-calls --allow-untyped-calls "
           "--disallow-untyped-defs --allow-untyped-defs --disallow-incomplete-defs --allow-incomplete-defs "
           "--check-untyped-defs --no-check-untyped-defs --disallow-untyped-decorators --allow-untyped-decorators "
           "--implicit-optional --no-implicit-optional --strict-optional --no-strict-optional --warn-redundant-casts "
           "--no-warn-redundant-casts --warn-unused-ignores --no-warn-unused-ignores --warn-no-return "
           "--no-warn-no-return --warn-return-any --no-warn-return-any --warn-unreachable --no-warn-unreachable "
           "--report-deprecated-as-note --allow-untyped-globals --disallow-untyped-globals --allow-redefinition "
           "--disallow-redefinition --allow-redefinition-new --implicit-reexport --no-implicit-reexport "
           "--strict-equality --no-strict-equality --strict-bytes --no-strict-bytes --extra-checks --no-extra-checks "
           "--strict --show-error-context --hide-error-context --show-column-numbers --hide-column-numbers "
           "--show-error-end --hide-error-end --show-error-codes --hide-error-codes --show-error-code-links "
           "--pretty --no-pretty --color-output --no-color-output --error-summary --no-error-summary "
           "--show-absolute-path --hide-absolute-path -i|--incremental --no-incremental --sqlite-cache "
           "--no-sqlite-cache --cache-fine-grained --skip-version-check --skip-cache-mtime-checks "
           "--show-traceback|--tb --raise-exceptions --warn-incomplete-stub --scripts-are-modules "
           "--non-interactive --explicit-package-bases --no-explicit-package-bases --exclude-gitignore "
           "--local-partial-types --no-local-partial-types --allow-empty-bodies --fast-module-lookup"),
    *values("-O|--output --follow-imports --python-version --platform --always-true --always-false "
            "--untyped-calls-exclude --deprecated-calls-exclude --disable-error-code --enable-error-code "
            "--custom-typing-module --enable-incomplete-feature --custom-typeshed-dir -n|--num-workers "
            "--junit-format --find-occurrences --exclude -m|--module -p|--package -c|--command"),
    opt("--config-file", V, CODE),  # a configuration may load plugins: code
    opt("--python-executable", V, RUNS), opt("--install-types", does=RUNS),  # pip install
    opt("--pdb", does=RUNS),  # a debugger reading commands from the input
    *(opt(name, V, WRITES) for name in (
        "--cache-dir", "--junit-xml", "--timing-stats", "--line-checking-stats", "--any-exprs-report",
        "--cobertura-xml-report", "--html-report", "--linecount-report", "--linecoverage-report",
        "--lineprecision-report", "--txt-report", "--xml-report", "--xslt-html-report", "--xslt-txt-report")),
))

#: ``ruff check`` (clap: long options exact, global options anywhere). ``--fix`` rewrites the
#: files it checks, which is what people allow ``ruff check **`` for; a file it is told to write
#: its output or cache to is not.
RUFF_CHECK = OptionSet((
    *flags("--fix --no-fix --unsafe-fixes --no-unsafe-fixes --show-fixes --no-show-fixes --diff -w|--watch "
           "--fix-only --no-fix-only --ignore-noqa --preview --no-preview --statistics --show-files --show-settings "
           "-e|--exit-zero --exit-non-zero-on-fix --respect-gitignore --no-respect-gitignore --force-exclude "
           "--no-force-exclude -n|--no-cache -h|--help -v|--verbose -q|--quiet -s|--silent --isolated"),
    *values("--output-format --target-version --extension --select --ignore --extend-select --extend-ignore "
            "--per-file-ignores --extend-per-file-ignores --fixable --unfixable --extend-fixable --extend-unfixable "
            "--exclude --extend-exclude --line-length --dummy-variable-rgx --stdin-filename"),
    opt("-o --output-file", V, WRITES), opt("--cache-dir", V, WRITES), opt("--add-noqa", does=WRITES),
    opt("--config", V, CONFIG),  # a file, or settings inline (cache-dir = …)
), abbreviations=False)
#: ruff's options before its subcommand.
RUFF_GLOBAL = OptionSet((*flags("-h|--help -V|--version -v|--verbose -q|--quiet -s|--silent --isolated"),
                         opt("--config", V, CONFIG)), abbreviations=False, permute=False)

#: pip 22-26 (optparse: options anywhere after the subcommand, unique prefixes of long options).
#: Its general options go with every subcommand: ``--log`` writes (appends) its log where it
#: says (``pip list --log ~/.bashrc``), ``--cache-dir`` writes, ``--python`` runs another
#: interpreter with pip's arguments, ``--keyring-provider subprocess`` runs ``keyring``,
#: ``--cert``/``--client-cert`` read a file as a key.
_PIP_GENERAL = (
    *flags("-h|--help --debug --isolated --require-virtualenv|--require-venv -v|--verbose -q|--quiet --no-input "
           "--no-proxy-env --no-cache-dir --disable-pip-version-check --no-color --no-python-version-warning"),
    *values("--proxy --retries --timeout|--default-timeout --exists-action --trusted-host --use-feature "
            "--use-deprecated --resume-retries"),
    opt("--python", V, RUNS), opt("--keyring-provider", V, RUNS), opt("--log --log-file --local-log", V, WRITES),
    opt("--cache-dir", V, WRITES), opt("--cert --client-cert", V, CONFIG),
)
_PIP_INDEX = (*flags("--no-index"), *values("-i|--index-url|--pypi-url --extra-index-url -f|--find-links "
                                            "--refresh-package --uploaded-prior-to"))
#: pip's general options alone (before the subcommand, and with a subcommand not listed below,
#: whose own options are left to the rule).
PIP_GENERAL = OptionSet(_PIP_GENERAL, strict=False)
PIP_BEFORE = OptionSet(_PIP_GENERAL, strict=False, permute=False)
#: The subcommands that only read the environment, with their options (one not listed asks).
PIP_READERS: dict[str, OptionSet] = {
    "list": OptionSet((*_PIP_GENERAL, *_PIP_INDEX, *flags(
        "-o|--outdated -u|--uptodate -e|--editable -l|--local --user --pre --not-required --exclude-editable "
        "--include-editable"), *values("--format --path --exclude"))),
    "freeze": OptionSet((*_PIP_GENERAL, *flags("-l|--local --user --all --exclude-editable"),
                         *values("--path --exclude"), opt("-r --requirement", V, CONFIG))),
    "show": OptionSet((*_PIP_GENERAL, *flags("-f|--files"))),
    "check": OptionSet(_PIP_GENERAL),
}
#: The subcommands that install or fetch, with the options that choose where they write: the
#: folder they write below (``--target``, ``--prefix``, ``--root``, ``--src``, ``-d``, ``-w``;
#: ``install --target ~/lib`` writes there), a report file (``--report``, ``lock --output``), or
#: the user's site-packages (``--user``: ~/.local, whose ``.pth`` files every python runs at its
#: start). Their other options are listed so a short cluster or a long prefix reads as pip reads
#: it (``-Ut DIR`` is ``-U -t DIR``, ``--tar`` is ``--target``); one not listed is left to the rule.
_PIP_FETCH = (*_PIP_GENERAL, *_PIP_INDEX, *flags(
    "--pre --no-deps --prefer-binary --require-hashes --no-build-isolation --use-pep517 --no-use-pep517 "
    "--check-build-dependencies --no-clean --ignore-requires-python --dry-run --no-warn-script-location "
    "--no-warn-conflicts --compile --no-compile --force-reinstall -I|--ignore-installed -U|--upgrade --no-user"),
    *values("-r|--requirement -c|--constraint -e|--editable -C|--config-settings|--config-setting --no-binary "
            "--only-binary --progress-bar --platform --python-version --implementation --abi --global-option "
            "--build-option --upgrade-strategy --root-user-action --group"),
    opt("--src --source --source-dir --source-directory", V, WRITES),
)
PIP_WRITERS: dict[str, OptionSet] = {
    "install": OptionSet((*_PIP_FETCH, opt("-t --target", V, WRITES), opt("--prefix", V, WRITES),
                          opt("--root", V, WRITES), opt("--report", V, WRITES), opt("--user", does=WRITES),
                          *flags("--break-system-packages")),
                         strict=False),
    "download": OptionSet((*_PIP_FETCH, opt("-d --dest --destination-dir --destination-directory", V, WRITES)),
                          strict=False),
    "wheel": OptionSet((*_PIP_FETCH, opt("-w --wheel-dir", V, WRITES)), strict=False),
    "lock": OptionSet((*_PIP_FETCH, opt("-o --output", V, WRITES)), strict=False),
}
#: Of those, the options naming a folder pip writes anywhere below (the rest name a file).
PIP_FOLDERS = frozenset({"--target", "--prefix", "--root", "--src", "--dest", "--wheel-dir"})
#: Where ``pip install --user`` writes (the user's site-packages and scripts).
PIP_USER_BASE = "~/.local"

#: tree (2.x): ``-o FILE`` writes the listing to FILE, ``-R`` writes 00Tree.html into every folder.
TREE = OptionSet((
    *flags("-a -d -l -f -x -i -s -h -u -g -D -F -q -N -Q -p -v -t -c -r -U -S -n -C -A -J -X --du --si --prune "
           "--noreport --dirsfirst --filesfirst --inodes --device --gitignore --metafirst --info --matchdirs "
           "--ignore-case --nolinks --fromfile --fromtabfile --help --version"),
    *values("-L -P -I -H -T --charset --filelimit --timefmt --sort --gitfile --infofile --hintro --houtro"),
    opt("-o", V, WRITES), opt("-R", does=WRITES),
), abbreviations=False)
#: tsc (TypeScript 5.x): an option is ``-name`` or ``--name`` in any letter case (``-OUTFILE``),
#: its value the next word; ``@file`` reads more arguments from a file. These choose where it
#: writes (``--outFile ~/.bashrc`` writes there what it compiled) or which project file it reads
#: (``-p out``: out/tsconfig.json names where to write), so a rule covers them only by naming them.
TSC_WRITES = frozenset({"outdir", "outfile", "out", "declarationdir", "tsbuildinfofile", "generatetrace",
                        "generatecpuprofile", "init"})
TSC_CONFIG = frozenset({"p", "project", "b", "build"})
#: xxd's options that take the next word (``-c 16``). xxd also reads long spellings (``-cols 16``)
#: by its own prefix rules; those are left out on purpose: a word read as an operand when xxd
#: takes it as a value only makes more words look written (see ``programs._xxd``).
XXD_VALUES = frozenset({"-c", "-g", "-n", "-o", "-s", "-l", "-R"})

#: Settings files a program finds itself in the folder it runs in and every folder above it:
#: mypy 1-2 (``plugins`` load code, ``junit_xml``, ``cache_dir`` and reports write), ruff 0.x
#: (``cache-dir`` writes, ``extend`` reads a file and prints what it cannot parse), git (the
#: repository's own settings run programs: ``core.fsmonitor``, ``diff.external``), npm (the
#: scripts of the nearest package.json, ``script-shell`` in .npmrc), pytest (``addopts`` of its
#: settings file, ``conftest.py``), make (the makefile whose recipes it runs).
FOLDER_SETTINGS: dict[str, tuple[str, ...]] = {
    "mypy": ("mypy.ini", ".mypy.ini", "pyproject.toml", "setup.cfg"),
    "ruff": ("pyproject.toml", "ruff.toml", ".ruff.toml"),
    "git": (".git", ".git/config"),
    # tsc without files to compile reads the nearest tsconfig.json (its outFile writes anywhere).
    "tsc": ("tsconfig.json",),
    # npx (npm exec) runs the bin of that name in the nearest package.json before any other:
    # `cd out && npx tsc` runs out/package.json's "tsc"; pnpm and yarn run its scripts too.
    **dict.fromkeys(("npm", "npx"), ("package.json", ".npmrc")),
    "pnpm": ("package.json", ".npmrc", "pnpm-workspace.yaml"),
    "yarn": ("package.json", ".npmrc", ".yarnrc", ".yarnrc.yml"),
    # bun runs the scripts of the nearest package.json as npm does (`cd out && bun run x` ran
    # out/package.json's), and the `preload` modules bunfig.toml names before any file it runs
    # (`cd out && bun ../a.ts` ran out/bunfig.toml's; both proven, bun 1.4.5, s240).
    # bunx (and `bun x`) runs the bin of that name from node_modules/.bin of the folder it runs
    # in (`cd out && bunx tsc` ran out/node_modules/.bin/tsc), and `bun install --cwd out` read
    # out/.npmrc (bun 1.4.5, s255).
    **dict.fromkeys(("bun", "bunx"), ("package.json", "bunfig.toml", ".npmrc")),
    # mocha's and jest's settings, found by walking up from the folder they run in: .mocharc.js
    # and jest.config.js are modules they load, package.json's "mocha" and "jest" keys name
    # modules to load (`require`, `setupFiles`, `globalSetup`; s255, see script_words).
    "mocha": (".mocharc.js", ".mocharc.cjs", ".mocharc.mjs", ".mocharc.yaml", ".mocharc.yml", ".mocharc.jsonc",
              ".mocharc.json", "package.json"),
    "jest": ("jest.config.js", "jest.config.ts", "jest.config.mjs", "jest.config.cjs", "jest.config.mts",
             "jest.config.cts", "jest.config.json", "package.json"),
    # vitest's, ava's and tap's, found the same way (s270): vitest.config.* and vite.config.* are
    # modules vitest loads (vitest 4, even from a folder below), ava.config.* modules ava loads
    # (ava 7; its .json and package.json's "ava" name modules to `require`), .taprc and
    # package.json's "tap" name modules tap runs first (`before`; tap 21).
    "vitest": tuple(f"{name}.{suffix}" for name in ("vitest.config", "vite.config")
                    for suffix in ("ts", "mts", "cts", "js", "mjs", "cjs")),
    "ava": ("ava.config.js", "ava.config.cjs", "ava.config.mjs", "ava.config.json", "package.json"),
    "tap": (".taprc", "package.json", "config/taprc"),
    # uv takes its settings from the nearest uv.toml or pyproject.toml (``[tool.uv]``), found by
    # walking up: ``[pip] python = "./py"`` in out/uv.toml made ``uv --directory out pip list`` run
    # out/py to ask what it is, and ``cache-dir`` or ``index-url`` there choose where it writes
    # and what it builds (proven, uv 0.13.9 under bash and dash, s255).
    **dict.fromkeys(("uv", "uvx"), ("uv.toml", "pyproject.toml")),
    # (the Makefile cmake generates runs cmake: its install target cmake_install.cmake, which
    # a planted one ran a command under `cd out/m && make install`, cmake 3.25, bash and dash,
    # s273; its check of the build system CMakeCache.txt)
    "make": ("GNUmakefile", "makefile", "Makefile", "cmake_install.cmake", "CMakeCache.txt"),
    # ack takes options from the nearest .ackrc (or _ackrc) above the folder it runs in: a planted
    # `--files-from=LIST` there made `cd out && ack -h . .keep` read the files LIST names, none
    # of them a word of the line (ack 3.6, bash and dash, s282; ack refuses a pager there).
    "ack": (".ackrc", "_ackrc"),
    # cargo builds the nearest Cargo.toml's package and runs its build.rs; .cargo/config.toml
    # (every folder above too: `build.rustc-wrapper`, a target's `runner`) and rust-toolchain
    # (a toolchain that is a path) run programs.
    "cargo": ("Cargo.toml", "build.rs", ".cargo/config.toml", ".cargo/config", "rust-toolchain.toml",
              "rust-toolchain"),
    # mvn (3.x) builds the pom.xml of the folder it runs in (its plugins run), and takes JVM and
    # mvn options from .mvn/ of the project's top folder, found by walking up: a jvm.config
    # holding `-Xlog:gc:file=../home/.bashrc` makes any mvn, even `mvn -v`, overwrite that file.
    "mvn": ("pom.xml", ".mvn/jvm.config", ".mvn/maven.config", ".mvn/extensions.xml"),
    # javac runs the annotation processors it finds on its class path, "." when none is given.
    "javac": ("META-INF/services/javax.annotation.processing.Processor",),
    **dict.fromkeys(("pytest", "py.test"), ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg",
                                             "conftest.py")),
    # Programs whose settings file is code they run (s140, each proven): hg runs the hooks of
    # the repository's .hg/hgrc (`[hooks] pre-status = touch PWNED` under a plain `hg status`);
    # .hg/sharedpath and .hg/requires (`share-safe`) make it read another repository's hgrc,
    # .hgsub makes it run hg in the subrepositories it names, and .hg itself may be a
    # repository the agent makes. pdb (`python -m pdb`, pdb3) runs ./.pdbrc as debugger
    # commands (`import os; os.system(…)`), irb runs the first of its rc files in the folder
    # it runs in, rake loads the nearest Rakefile (and the rakelib/*.rake beside it, see
    # FOLDER_CODE), gdb runs ./.gdbinit when the person's own auto-load safe-path lets it
    # (`set auto-load safe-path /`, common advice: Echo Desk does not read it, so it counts;
    # so do the program gdb loads and the scripts that come with it: gdb_init.loaded).
    "hg": (".hg", ".hg/hgrc", ".hg/hgrc-not-shared", ".hg/sharedpath", ".hg/requires", ".hgsub"),
    # vim runs the first of these in the folder it starts in when the person's vimrc sets
    # 'exrc' (`call system(…)` in ./.vimrc ran under a plain `vim a.txt`, vim 9.0, s165):
    # Echo Desk does not read the person's vimrc, so they count, as ./.gdbinit does.
    **dict.fromkeys(VIM_NAMES, (".vimrc", "_vimrc", ".exrc", "_exrc", ".gvimrc", "_gvimrc")),
    **dict.fromkeys(("pdb", "pdb3"), (".pdbrc",)),
    "irb": (".irbrc", "irb.rc", "_irbrc", "$irbrc", ".config/irb/irbrc"),
    "rake": ("rakefile", "Rakefile", "rakefile.rb", "Rakefile.rb"),
    "gdb": (".gdbinit",),
    # Build tools and task runners whose build file is code they run (s148): ninja runs the
    # commands of ./build.ninja (-C: another folder's, -f: the file named), cmake runs the
    # CMakeLists.txt of the source folder it configures (``execute_process``), the toolchain
    # file a CMakePresets.json names, and, for ``cmake --build DIR``, the build files of DIR
    # (its Makefile or build.ninja, ``CMakeCache.txt`` naming the source folder); gem runs
    # a .gemspec (see SUBCOMMAND_CODE). Each proven (ninja 1.11, cmake 3.25, gem 3.3). Not
    # installed here, read from their documentation: bundle evaluates the nearest Gemfile
    # (gems.rb) as Ruby, and ``.bundle/config`` may name another (BUNDLE_GEMFILE); meson runs
    # meson.build (``run_command``); scons runs SConstruct as Python; just the recipes of the
    # nearest justfile; tox the commands of tox.ini (and builds the project: setup.py); nox
    # runs noxfile.py; gradle runs build.gradle and settings.gradle (and compiles buildSrc).
    # ninja on cmake's build folder runs cmake: its ``install`` target runs cmake_install.cmake
    # (a planted one ran a command under `ninja -C out/b install`, cmake 3.25, bash and dash,
    # s273), its regenerate step reads CMakeCache.txt (see cmake's below).
    "ninja": ("build.ninja", "cmake_install.cmake", "CMakeCache.txt"),
    "cmake": ("CMakeLists.txt", "CMakePresets.json", "CMakeUserPresets.json", "CMakeCache.txt", "Makefile",
              "build.ninja", "cmake_install.cmake"),
    "bundle": ("Gemfile", "gems.rb", ".bundle/config"),
    "meson": ("meson.build", "meson_options.txt", "meson.options", "build.ninja"),
    "scons": ("SConstruct", "Sconstruct", "sconstruct", "SConstruct.py", "Sconstruct.py", "sconstruct.py",
              "SConscript"),
    "just": ("justfile", "Justfile", "JUSTFILE", ".justfile"),
    "tox": ("tox.ini", "tox.toml", "pyproject.toml", "setup.cfg", "setup.py"),
    "nox": ("noxfile.py",),
    "gradle": ("build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts", "gradle.properties"),
    # composer 2 (s173; its documentation, not installed here) runs the `scripts` of the
    # project's composer.json as shell commands or PHP callbacks at install, update,
    # dump-autoload, run-script and a script's own name (`composer test`), as npm runs
    # package.json's; it walks up to a parent's composer.json when there is none here, and
    # loads the plugins vendor/composer/installed.json lists (composer.lock names the packages
    # install puts there, plugins among them): see FOLDER_CODE for vendor/.
    "composer": ("composer.json", "composer.lock", "vendor/composer/installed.json"),
    # pre-commit runs the hooks of the repository's .pre-commit-config.yaml; a `repo: local`
    # hook with `language: system` is any command (`entry: touch PWNED` ran under
    # `pre-commit run -a`; proven, pre-commit 3.0, s221).
    "pre-commit": (".pre-commit-config.yaml",),
}
#: A first word after which a program of FOLDER_SETTINGS reads none of those files: ``cmake -E``
#: runs one built-in command (``cmake -E echo`` opens no file of the project: strace, cmake 3.25);
#: the command ``env``, ``time`` or ``chdir`` runs is judged with its own settings.
NO_BUILD_FILE_MODES: dict[str, str] = {"cmake": "-E"}
#: hg's options that run code whatever the subcommand: ``--config`` sets any setting
#: (``hg status --config hooks.pre-status='touch PWNED'`` runs the command, so does an alias
#: ``alias.log=!…``), ``--debugger`` starts pdb, which runs ./.pdbrc (both proven, hg 6.3).
HG_RUNS = frozenset({"--config", "--debugger"})
#: The option of hg's subcommands that reach another repository (clone, pull, push, identify,
#: incoming, outgoing…) naming the command hg runs instead of ssh for an ``ssh://`` path: any
#: local command (``hg identify -e 'touch PWNED;' ssh://x/r``, ``--ss=…`` a prefix, ``-qe…`` in
#: a cluster: all proven, hg 6.3). ``-e`` is ``--edit`` elsewhere (commit, tag): counted too.
HG_SSH = ("-e", "--ssh")
#: gdb's options that run commands, whatever the rest of the line says (gdb 13): ``-ex``/
#: ``--eval-command`` and ``-iex``/``--init-eval-command`` run the command given (``shell …``),
#: ``-x``/``--command`` and ``-ix``/``--init-command`` a file of commands (proven:
#: ``gdb -batch -ex 'shell touch PWNED'``). gdb reads its options with getopt_long_only: one
#: dash or two, any unique prefix of a long name (``-comm=F``, ``-eval-c``), anywhere on the line.
#: ``-D``/``--data-directory`` names the folder gdb takes its own python package from, run at
#: every start (``gdb -batch -D out`` ran out/python/gdb/__init__.py; proven, gdb 13, s165).
GDB_RUNS = ("command", "eval-command", "init-command", "init-eval-command", "ex", "iex", "ix", "x",
            "data-directory", "D")
#: Folders beside the settings of FOLDER_SETTINGS whose files, by suffix, a program loads as
#: code: rake imports every rakelib/*.rake of the folder it finds its Rakefile in.
FOLDER_CODE: dict[str, tuple[str, tuple[str, ...]]] = {
    "rake": ("rakelib", (".rake",)),
    # scons imports site_scons/site_init.py and the tools there; gradle compiles and runs buildSrc.
    "scons": ("site_scons", (".py",)),
    "gradle": ("buildSrc", (".gradle", ".kts", ".java", ".kt", ".groovy")),
    # composer loads its plugins' PHP from vendor/ at every command, and `composer exec` and
    # the scripts run vendor/bin's programs: every file there.
    "composer": ("vendor", ("",)),
    # meson keeps what it read at setup in its build folder as Python pickles, which load as
    # code: meson compile, test, configure and install load meson-private/*.dat (a planted
    # install.dat ran a command under `meson install -C out/b`), and ninja on meson's build
    # folder too, as its regenerate step runs meson (proven, meson 1.12, bash and dash, s273).
    **dict.fromkeys(("meson", "ninja"), ("meson-private", (".dat",))),
}
#: Programs that run the bins of node_modules/.bin, found from the folder they run in and every
#: folder above it: npx, bunx (and ``bun x``, ``npm exec``) the bin of the name they are given,
#: the scripts of npm, pnpm, yarn and bun with those folders first on PATH (``npx tsc`` ran an
#: agent's node_modules/.bin/tsc, from a folder below too; npm 11, bun 1.4.5, under bash and
#: dash, s270). A bin is most often a link to its package's code, which loads more of it: what
#: counts is a file of no suffix (a bin) and the modules node loads, below node_modules.
NODE_MODULES_RUNNERS = frozenset({"npx", "bunx", "bun", "npm", "pnpm", "yarn"})
NODE_MODULES = "node_modules"
NODE_CODE = (".js", ".cjs", ".mjs", ".json", ".node", ".ts", ".mts", ".cts", ".wasm")
#: Programs that read their build files in every folder under the one they start from too, and
#: the code files there by suffix: cmake (``add_subdirectory``: each CMakeLists.txt,
#: ``include()``: .cmake files), meson (``subdir()``: each meson.build), scons (SConscript
#: files), gradle (each subproject's build.gradle).
FOLDER_TREES: dict[str, tuple[str, ...]] = {"cmake": (".cmake",), "meson": (), "scons": (), "gradle": (".gradle", ".kts")}
#: Options naming the folder a program looks in instead of the one it runs in: hg's -R (also
#: spelled --repository, --repo: hg takes no other abbreviation of them) and --cwd; ninja's,
#: meson's and scons' -C; cmake's source and build folders (-S, -B, ``--build``, ``--install``:
#: the build folder's cmake_install.cmake runs); scons' repository; gradle's project folder and
#: the builds it includes; the project tools' (just, poetry, uv, tox, bun, deno: s222). npm's,
#: pnpm's, yarn's, cargo's and go's own ones are not here: a rule's ``**`` never covers them.
FOLDER_OPTIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "hg": (("-R",), ("--repository", "--repo", "--cwd")),
    "ninja": (("-C",), ()),
    "cmake": (("-S", "-B"), ("--build", "--install")),
    "meson": (("-C",), ("--sourcedir", "--builddir")),
    "scons": (("-C", "-Y"), ("--directory", "--repository", "--srcdir", "--site-dir")),
    "gradle": (("-p",), ("--project-dir", "--include-build")),
    # make's -C: the makefile of that folder, and what it includes (see ``build_includes``).
    "make": (("-C",), ("--directory",)),
    # gdb's -cd: it loads the program it is given, and what comes with it, from there (s165).
    "gdb": ((), ("-cd", "--cd")),
    # composer's -d/--working-dir: the project of that folder, its scripts and plugins.
    "composer": (("-d",), ("--working-dir",)),
    # just's -d: the justfile found from that folder, its recipes run there; -f: the recipes
    # run in the justfile's folder (both proven, just 1.59).
    "just": (("-d", "-f"), ("--working-directory", "--justfile")),
    # poetry's -C changes into the folder, -P takes its project from there (``poetry -C ../p
    # lock`` wrote ../p/poetry.lock; proven, poetry 2.5; the options may follow the command).
    "poetry": (("-C", "-P"), ("--directory", "--project")),
    # uv's --directory changes into the folder, --project takes its project from there (uv 0.13).
    "uv": ((), ("--directory", "--project")),
    # tox's -c: its commands run in the folder of the file (or the folder) it names (tox 4).
    "tox": (("-c",), ("--conf",)),
    # bun's and deno's --cwd: the scripts or tasks of that folder's package.json or deno.json
    # run there; deno's -c/--config: its tasks run in the file's folder (bun 1.4, deno 2).
    **dict.fromkeys(("bun", "bunx"), ((), ("--cwd",))),
    "deno": (("-c",), ("--cwd", "--config")),
}
#: Options naming the folder a program's commands run in, its settings still read from the folder
#: it runs in: tox's --root (``tox --root out`` opened ./tox.ini only, none of out's settings
#: files, and ran its commands in out: strace, tox 4, bash and dash, s235). Outside the workspace
#: it asks as FOLDER_OPTIONS do (``tox --root ../p`` wrote there); inside, no settings there count.
WORK_FOLDER_OPTIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {"tox": ((), ("--root",))}
#: Options naming a file a program runs as code instead of (or besides) its build file: ninja's
#: -f, cmake's -P (a script), -C (an initial cache, a script too) and --toolchain, scons' -f,
#: just's -f, tox's -c, nox's -f, gradle's build, settings and init scripts, bundle's --gemfile.
CODE_FILE_OPTIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "ninja": (("-f",), ()),
    "cmake": (("-P", "-C"), ("--toolchain",)),
    "scons": (("-f",), ("--file", "--makefile", "--sconstruct")),
    "just": (("-f",), ("--justfile",)),
    "tox": (("-c",), ("--conf",)),
    "nox": (("-f",), ("--noxfile",)),
    "gradle": (("-b", "-c", "-I"), ("--build-file", "--settings-file", "--init-script")),
    "bundle": ((), ("--gemfile",)),
    "make": (("-f",), ("--file", "--makefile")),
    # meson's machine files name the compilers and tools it runs (``c = '/path/cc'``).
    "meson": ((), ("--native-file", "--cross-file")),
    # pre-commit's settings file (argparse: a unique prefix of --config names it too).
    "pre-commit": (("-c",), ("--config", "--confi", "--conf", "--con")),
    # kubectl's settings file: a user's `exec` entry is a command kubectl runs for credentials
    # before it reaches any server (`kubectl get pods --kubeconfig out/k` ran it; proven,
    # kubectl 1.32, s221). kubectl has no settings in the folder it runs in.
    "kubectl": ((), ("--kubeconfig",)),
}
#: Options that make a program look for its top build file in the folder it starts from and
#: each folder above, and build from the first that holds one: scons' -u, -U and -D (its
#: manual; scons is not installed here). That folder's build files are read as a start's.
SEARCH_UP_OPTIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "scons": (("-u", "-U", "-D"), ("--up", "--search-up")),
}
#: Options naming the folders a program looks in for a relative file its build file includes
#: that is not in the folder it runs in: make's -I (``include x.mk`` reads I/x.mk).
INCLUDE_FOLDER_OPTIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "make": (("-I",), ("--include-dir",)),
}
#: Programs whose short options may be grouped (getopt, optparse, argparse, clap): ``ninja
#: -nC out`` is -n and -C out. A letter of FOLDER_OPTIONS or CODE_FILE_OPTIONS anywhere in a
#: group counts (a value that merely holds it only makes more places count).
GROUPED_SHORTS = frozenset({"ninja", "scons", "just", "tox", "nox", "make", "composer", "poetry", "deno", "pre-commit"})
#: Programs whose operands may be the folder they configure or build: ``cmake ../src``,
#: ``cmake build`` (an existing build folder), ``meson setup build src``.
OPERAND_FOLDERS = frozenset({"cmake", "meson"})
#: Environment variables naming a program's code file instead of the one it finds, in the
#: environment the commands inherit from Echo Desk or the line gives (``line_environment``).
#: ``$COMPOSER`` names the composer.json composer reads (its scripts), relative to the folder.
CODE_FILE_VARIABLES: dict[str, tuple[str, ...]] = {"bundle": ("BUNDLE_GEMFILE",), "just": ("JUST_JUSTFILE",),
                                                   "composer": ("COMPOSER",),
                                                   # kubectl's settings files (an `exec` entry runs)
                                                   "kubectl": ("KUBECONFIG",)}
#: Those of CODE_FILE_VARIABLES holding a list of files, ``:`` between them (empty entries
#: skipped): ``KUBECONFIG=:out/k`` made ``kubectl get pods`` run out/k's credential command
#: (proven, kubectl 1.32 under bash and dash, s223).
CODE_FILE_LISTS = frozenset({"KUBECONFIG"})
#: A subcommand that runs code files it finds in the folder it runs in, by suffix, besides its
#: operands: ``gem build`` evaluates the .gemspec it is given (or finds) as Ruby (proven, gem 3.3).
SUBCOMMAND_CODE: dict[str, tuple[str, tuple[str, ...]]] = {"gem": ("build", (".gemspec",))}
#: The files of composer's home folder it reads wherever it runs ($COMPOSER_HOME, else
#: $XDG_CONFIG_HOME/composer, ~/.config/composer or ~/.composer).
COMPOSER_HOME_FILES = ("config.json", "composer.json", "vendor/composer/installed.json")
#: Settings files a program reads from the home folder wherever it runs (paths under the home
#: folder), and from the folder for settings (``$XDG_CONFIG_HOME``, else ``~/.config``): git's
#: global settings (``diff.external``, ``core.pager`` run programs), ruff's and mypy's user
#: settings (used where a project has none: ``cache-dir``, ``junit_xml`` write, ``plugins`` load
#: code), npm's user settings (``script-shell``, ``logs-dir``; npx, pnpm and yarn read them too), less's lesskey files (their
#: ``#env`` section sets ``LESSOPEN``, a command less runs on every file it shows).
HOME_SETTINGS: dict[str, tuple[str, ...]] = {
    # (git's and hg's: ~/.selected_editor, which Debian's sensible-editor sources as shell code,
    # the editor hg starts there: ``sensible_editor``)
    "git": (".gitconfig", ".selected_editor"), "sensible-editor": (".selected_editor",),
    "mypy": (".mypy.ini",), "less": (".lesskey", ".less"),
    # kubectl's settings (CODE_FILE_OPTIONS: an `exec` entry runs a command).
    "kubectl": (".kube/config",),
    # wget's user settings (``output_document``, ``dir_prefix``, ``logfile`` write anywhere).
    "wget": (".wgetrc",),
    # curl's user settings: any option (``data = "@FILE"`` sends a file, ``output`` writes one).
    "curl": (".curlrc",),
    # pip's user settings (any option: ``log``, ``cache-dir`` write).
    **dict.fromkeys(("pip", "pip3"), (".pip/pip.conf",)),
    **dict.fromkeys(("npm", "npx", "pnpm"), (".npmrc",)), "yarn": (".npmrc", ".yarnrc", ".yarnrc.yml"),
    # mvn's script sources ~/.mavenrc (shell code); ~/.m2/settings.xml sets its repositories and profiles.
    "mvn": (".mavenrc", ".m2/settings.xml"),
    # cargo's user settings ($CARGO_HOME, ~/.cargo) and rustup's (a toolchain override that is a path).
    "cargo": (".cargo/config.toml", ".cargo/config", ".rustup/settings.toml"),
    # The user's settings of the programs whose folder settings are code (see FOLDER_SETTINGS):
    # hg's hooks, pdb's and irb's rc files, gdb's init files (shell commands; gdbearlyinit too).
    "hg": (".hgrc", ".selected_editor"), **dict.fromkeys(("pdb", "pdb3"), (".pdbrc",)), "irb": (".irbrc",),
    "gdb": (".gdbinit", ".gdbearlyinit"),
    # ack's user settings (any option: `--pager=CMD` runs CMD, `--files-from` reads a list; s282).
    "ack": (".ackrc", "_ackrc"),
    # vim's own startup files (Ex commands: `call system(…)` runs a program).
    **dict.fromkeys(VIM_NAMES, (".vimrc", ".vim/vimrc", ".exrc", ".gvimrc", ".vim/gvimrc")),
    # bundle's user settings (``gemfile`` names the Gemfile it evaluates); gradle's init
    # scripts and its user properties (``org.gradle.jvmargs``: options of the JVM it starts).
    "bundle": (".bundle/config",),
    # gem's user settings (its ``:sources:`` are where ``gem install`` fetches from; see gem_config).
    "gem": (".gemrc",),
    # composer's home (~/.composer; see CONFIG_HOME_SETTINGS and settings_files for the
    # others): config.json's repositories are where packages come from, the global
    # composer.json's scripts run under `composer global`, and the global plugins its
    # installed.json lists load at every composer command.
    "composer": tuple(f".composer/{name}" for name in COMPOSER_HOME_FILES),
    "gradle": (".gradle/init.gradle", ".gradle/init.gradle.kts", ".gradle/gradle.properties"),
    # ssh's settings, which scp and sftp read (see ``ssh_config``: what they include and name).
    **dict.fromkeys(SSH_CLIENTS, (".ssh/config",)),
    # bun's user settings (the same keys as bunfig.toml and .npmrc: bun 1.4.5 read both, s255).
    **dict.fromkeys(("bun", "bunx"), (".bunfig.toml", ".npmrc")),
    # man-db's user settings: a ``DEFINE nroff …`` (tbl, the pager…) names the program man runs
    # to format every page (``man -l a.txt`` ran it, man-db 2.11).
    "man": (".manpath",),
}
#: Folders under the home folder whose files, by suffix, a program loads as code wherever it
#: runs: rake loads ~/.rake/*.rake when it finds no Rakefile (and with -g); gradle runs every
#: init script of ~/.gradle/init.d; scons runs ~/.scons/site_scons/site_init.py before any
#: build file and puts that folder on sys.path (its tools in site_tools/, its packages below:
#: the folders below count too).
HOME_CODE: dict[str, tuple[str, tuple[str, ...]]] = {"rake": (".rake", (".rake",)),
                                                     "gradle": (".gradle/init.d", (".gradle", ".kts")),
                                                     "scons": (".scons/site_scons", (".py",))}
#: pip's settings outside the home folder (pip 23, ``configuration.get_configuration_files``):
#: the site file, ``pip.conf`` in ``sys.prefix`` of the python pip runs in (a virtual
#: environment's own folder: ``.venv/pip.conf`` for ``.venv/bin/pip``), and the global files,
#: ``pip.conf`` in each folder of ``$XDG_CONFIG_DIRS`` (else ``/etc/xdg``) under ``pip/``, and
#: in ``/etc``. Any option may stand there: ``log`` writes a file even when the install fails,
#: ``find-links`` and ``index-url`` pick the archives installed, ``target`` where pip writes.
PIP_SITE_SETTINGS = "pip.conf"
PIP_GLOBAL_FOLDERS = ("/etc",)
PIP_XDG_DEFAULT = "/etc/xdg"
CONFIG_HOME_SETTINGS: dict[str, tuple[str, ...]] = {
    "git": ("git/config",), "mypy": ("mypy/config",), "less": ("lesskey",),
    # curl 7.73+ reads $XDG_CONFIG_HOME/.curlrc (the file's name keeps its dot).
    "curl": (".curlrc",),
    "ruff": ("ruff/ruff.toml", "ruff/.ruff.toml", "ruff/pyproject.toml"),
    **dict.fromkeys(("pip", "pip3"), ("pip/pip.conf",)),
    # go's env file (what `go env -w` writes): its GOFLAGS=-toolexec=… runs a program for
    # every compile of every later go build.
    "go": ("go/env",),
    "hg": ("hg/hgrc",), "irb": ("irb/irbrc",), "gdb": ("gdb/gdbinit", "gdb/gdbearlyinit"), "gem": ("gem/gemrc",),
    "composer": tuple(f"composer/{name}" for name in COMPOSER_HOME_FILES),
    # uv's user settings (the same keys as a project's uv.toml: see FOLDER_SETTINGS).
    **dict.fromkeys(("uv", "uvx"), ("uv/uv.toml",)),
}
#: Python programs: a python outside a virtual environment runs, at its start, every ``.pth``
#: file and ``usercustomize.py`` of the user's own site-packages, ``~/.local/lib/pythonX.Y/
#: site-packages`` (which python a command finds is not known here). hg and pdb3 are python
#: programs too (a .pth there ran under `hg version` and `pdb3 m.py`, s140).
PYTHON_PROGRAMS = frozenset({"mypy", "pytest", "py.test", "hg", "pdb3"})
USER_SITE = (".local/lib", ("module.pth", "usercustomize.py"))
#: Programs that also read settings in the folders they are given and every folder under them,
#: so settings anywhere under what they check count: ruff reads the nearest settings of every
#: file it checks (``ruff check .`` reads ``out/ruff.toml``); pytest imports the conftest.py of
#: every folder it collects and takes its settings file from where its operands are
#: (``pytest out``, and bare ``pytest``, which collects ``.``, run ``out/conftest.py``). The
#: number is how many words come before the options and operands (ruff's subcommand).
#: What pytest runs as code from every folder it collects, besides its settings files: test
#: modules (``test_*.py``, ``*_test.py``; any ``.py`` with ``--doctest-modules``, or one a test
#: imports: pytest puts the folder first on ``sys.path``), judged by suffix: a file the agent
#: may write with one of these under a collected folder counts; and its doctest files, judged
#: by name (``test*.txt``, or what ``--doctest-glob`` names: ``pytest_doctests``).
COLLECTED_CODE: dict[str, tuple[str, ...]] = dict.fromkeys(("pytest", "py.test"), (".py",))
#: go (``go build|test|vet|run``): the ``go.mod`` and ``go.work`` of the folder it runs in and
#: every folder above (a ``replace`` names other code to build, ``toolchain`` a go to run), and
#: the code of every package it is given (``go test ./out`` compiles and runs out/*_test.go and
#: its TestMain, ``go run`` the program; ``go build`` and ``go vet`` run cgo, whose C compiler
#: follows the ``#include`` lines of the files: their text is printed), of the folder it runs in
#: when given none, of every folder under one given as ``./out/...``, and of its vendor folder
#: and the user's GOPATH (~/go: its src and module cache). Judged by suffix: the Go, C,
#: assembler and object (``.syso``, linked in) files go builds.
GO_SETTINGS = ("go.mod", "go.work")
GO_CODE = (".go", ".c", ".h", ".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx", ".m", ".s", ".S", ".sx", ".f", ".F",
           ".for", ".f90", ".syso", ".swig", ".swigcxx")
OPERAND_SETTINGS: dict[str, tuple[int, OptionSet]] = {"ruff": (1, RUFF_CHECK), "pytest": (0, PYTEST),
                                                      "py.test": (0, PYTEST)}
