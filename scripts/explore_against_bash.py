"""Random exploration of the permission engine against bash itself: lines built at random from
shell constructs nested in each other, each judged by the engine; every line it allows runs under
bash in a scratch folder with every exec and every write traced (strace): each program that ran
must be one the engine saw and one a rule allows, and not a file the line could have made (a
copy planted in a folder put on PATH runs under an allowed name); each file it wrote (opened for
writing, created, renamed, linked, deleted; a renamed folder's files at both places) must lie
where the write rules allow: the workspace, but not where ``DENIED`` matches (the workspace holds
``WORLD``'s files under those patterns, for lines that move, copy or remove folders whole). A line
that breaks this is printed (as JSON, so nothing is lost) and the run ends with exit status 1.

    python scripts/explore_against_bash.py                    # a random seed, printed
    python scripts/explore_against_bash.py --seed 7 --count 20000
    python scripts/explore_against_bash.py --shell dash       # as where bash is missing
    python scripts/explore_against_bash.py --write-heavy      # most constructs write

``--shell dash`` runs the lines under dash and has the engine judge them as ``run_command`` does
on a machine without bash (it then runs lines with ``/bin/sh``, dash on Debian and Ubuntu).

The programs in the lines are harmless (echo, ls, cat, id, touch, uname…) and every line runs in a
fresh scratch folder, with a fresh scratch home beside it (nothing a line before left is seen),
so a line the engine gets wrong does no harm here: what it writes outside the workspace lands in
the home or the folder holding both. A crash prints the line it happened on. ``make test`` runs a
fixed seed of this (tests/agent/permissions/test_against_bash.py); run it without a seed to explore.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

#: Simple commands: some a rule allows, some not (id, touch, uname, whoami).
COMMANDS = ["echo hi", "true", "ls", "cat a.txt", "sed -n 1p a.txt", "sort a.txt", "head -1 a.txt", "wc -l a.txt",
            "grep a a.txt", "printf x", "id -u", "touch M", "uname", "whoami"]
#: Ways to write a program's name that bash reads as the same name.
SPELLINGS = ["{w}", "'{w}'", '"{w}"', "\\{w}", "{h}''{t}", '{h}""{t}', "{h}\\{t}", "$'{w}'", "/usr/bin/{w}",
             "${{x:-{w}}}", "$(echo {w})", "`echo {w}`", "{h}?{t}", "{h}[{t0}]{t1}", "{{{w},}}", "$x", "${{x}}",
             "command {w}", "builtin {w}", "exec {w}", "{w}"]
#: Places a line writes to: the workspace (where the write rules allow), the scratch home and the
#: folder above (where they do not), spelled in ways the shell reads as those places.
TARGETS = ["w.txt", "out/w.txt", "../w.txt", "~/w.txt", "~/.bashrc", "./../w.txt", "/dev/null", "$HOME/w.txt",
           "~+/../w.txt", "d/../../w.txt", ".//w.txt", "'../w.txt'", '"$PWD"/../w.txt', "a.txt", "..//w.txt",
           "~/../w.txt", "\\~/w.txt", "~-/w.txt", "..\\/w.txt", "$'..'/w.txt", "${HOME}/w.txt", "$PWD/../w.txt",
           "out/../../w.txt", "~/.ssh/w", "../keep.txt",
           # Where a write rule denies (``DENIED``), and names of the null device and of descriptors.
           "prod/n.py", "cfg/x.env", "src/n.env", "prod/app.py", "/dev/./null", "//dev/null", "/dev/stdout",
           "/dev/fd/1", "/dev/stderr", "/proc/self/cwd/../w.txt", "/proc/self/cwd/prod/n.py", "dev/null",
           "/dev/null/../w.txt", "/proc/self/fd/1"]
#: Folders a line writes into, as ``TARGETS``.
FOLDERS = ["..", "~", ".", "out", "~+/..", "./..", "'..'", "$HOME", "out/../..", "${HOME}", "~/.ssh", "prod", "cfg"]
#: Files the scratch workspace holds besides a.txt and a.tar: some where a write rule denies
#: (``DENIED``), some a folder moved or copied whole takes there (src to prod).
WORLD = {"prod/app.py": "app\n", "src/main.py": "main\n", "src/s.env": "S=1\n", "cfg/x.env": "X=1\n"}
#: Write rules that deny below folders the rules otherwise let the line write.
DENIED = ("@workspace/**/*.env", "@workspace/prod/*.py")
#: Folders of ``WORLD`` (and others) moved, copied or removed whole, and where they go.
MOVED = ["src", "cfg", "prod", "src/", "./cfg", "out", "~+/src"]
LANDINGS = ["prod", "prod/", "out", "cfg", "new", "../m", "~/m", "prod/src", "cfg/", "."]
#: Constructs that write files: redirections, programs and builtins that write where a word or
#: a descriptor says, links made on the line and then written through, a folder left first.
WRITES = [
    "{p} > {f}", "{p} >> {f}", "{p} &> {f}", "{p} 2> {f}", "{p} >| {f}", "{p} 1<> {f}", "cat <> {f}; {p}",
    "{p} 2>&1 > {f}", "echo x | tee {f}", "{p} | tee -a {f}", "tee -- {f} < a.txt", "cat a.txt | tee {f} >/dev/null",
    "cp a.txt {f}", "cp -t {d} a.txt", "cp a.txt {d}", "touch {f}", "touch -r a.txt -- {f}", "mkdir -p {f}",
    "ln a.txt {f}", "ln -s a.txt {f}", "ln -t {d} a.txt", "ln -s {d} up; {p} > up/w.txt", "ln -s {d} up; touch up/w.txt",
    "ln -s {f} l; {p} > l", "ln -s {f} l; cp a.txt l", "mkdir d; ln -s ../.. d/u; echo x > d/u/w.txt",
    "history -s {P}; history -w {f}", "history -s x; history -a {f}", "history -w", "history -w -- {f}",
    "history -sw {f}", "history -c; history -w {f}; {p}", "HISTFILE={f} history -w", "set -o history; history -w {f}",
    "mapfile y < a.txt; {p} > {f}", "sed -n 'w {f}' a.txt", "sed 's/a/b/w {f}' a.txt", "sed -i s/a/b/ a.txt",
    "sed -i.bak s/a/b/ a.txt", "sed -n -e p -e 'w {f}' a.txt", "sort -o {f} a.txt", "sort a.txt -o{f}",
    "find . -name a.txt -fprint {f}", "find . -name a.txt -fprintf {f} %p", "find . -name a.txt -fls {f}",
    "tar -cf {f} a.txt", "tar -xf a.tar -C {d}", "tar -cf x.tar -C {d} .", "echo {f} | xargs touch",
    "echo {f} | xargs -I{{}} cp a.txt {{}}", "find . -name a.txt -exec cp {{}} {f} \\;", "env touch {f}",
    "timeout 5 touch {f}", "nice cp a.txt {f}", "command touch {f}", "cd {d} && {p} > w.txt", "cd {d}; touch w.txt",
    "pushd {d} >/dev/null; touch w.txt", "mkdir -p out && {p} > out/w.txt", "printf x > {f}; {p}", "ls > {f}",
    "grep a a.txt > {f}", "wc -l a.txt | tee {f}", "echo x > '{f}'", "{p} > \"{f}\"", "echo x >{f}; {p}",
    "cp -r . {d}/c 2>/dev/null; {p}", "xargs -a a.txt -I{{}} touch {d}/{{}}", "echo > {f} {p}",
    # Here-documents and here-strings into a file; every redirection operator that writes;
    # descriptors duplicated onto a file; a bare redirection (no command: the file is made).
    "cat > {f} <<EOF\nx\nEOF", "cat <<'EOF' >> {f}\nx\nEOF", "cat >{f} <<-EOF\n\tx\n\tEOF\n{p}",
    "tee {f} <<< x", "{p} <<< x >{f}", "{p} &>> {f}", "{p} >& {f}", "{p} >&{f}", "{p} >|{f}", "{p} <>{f}",
    "{p} 0<>{f}", "{p} 3>{f} 1>&3", "{p} 3>&1 >{f}", "{p} 2>{f} 1>&2", "{p} 4>>{f} >&4", "{p} 5<>{f} >&5",
    "> {f}", ">> {f} {p}", "{p} > {f} 2>&1", "set -C; {p} >| {f}", "{p} >{f} >out.txt", "{p} 2>&1 >>{f}",
    # Programs that copy, move, install, make, cut or delete what a word names.
    "mv a.txt {f}", "mv -t {d} a.txt", "mv a.txt {d}", "cp a.txt b; mv b {f}", "mv -- a.txt {d}/w.txt",
    "install a.txt {f}", "install -d {f}", "install -t {d} a.txt", "install -D a.txt {f}", "install -m 644 a.txt {d}",
    "touch -- {f}", "touch a.txt {f}", "mkdir {f}", "mkdir -pv {d}/n", "mkdir -m 700 {f}", "touch {d}/w.txt",
    "sed -i -e s/a/b/ {f}", "sed --in-place=.b s/a/b/ a.txt", "sed -i'{d}/*' s/a/b/ a.txt", "sed -si s/a/b/ {f}",
    "dd if=a.txt of={f} 2>/dev/null", "dd of={f} status=none < a.txt", "truncate -s 0 {f}", "truncate -r a.txt {f}",
    "split a.txt {d}/x", "split -l 1 a.txt {f}", "rm -f {f}", "rm -rf {d}/keep.txt", "rm -f -- {d}/.bashrc",
    "cp -a a.txt {f}", "cp --target-directory={d} a.txt", "tee -a {f} < a.txt", "{p} | tee {f} out.txt",
    "echo x > {d}/w.txt", "ln -sf {d} up; cp a.txt up/", "ln -s {d} up; mv a.txt up", "ln -sT {d} up; touch up/w",
    # The folder changed first: cd and pushd chains, logical and physical, through links.
    "cd out 2>/dev/null; cd ..; cd {d}; {p} > w.txt", "mkdir -p out; cd out && cd .. && cd .. && touch w.txt",
    "pushd {d} >/dev/null && popd >/dev/null && touch w.txt", "pushd out 2>/dev/null; pushd {d}; touch w.txt",
    "cd -P {d}; touch w.txt", "cd; {p} > w.txt", "cd -; touch w.txt", "cd out 2>/dev/null || cd {d}; touch w.txt",
    "ln -s {d} up; cd up; touch w.txt", "ln -s {d} up && cd -P up && touch w.txt", "ln -s {d} up; cd up/..; touch w.txt",
    "mkdir d; cd d; ln -s ../.. u; cd u; touch w.txt", "mkdir -p d/e; cd d/e; cd ../../..; touch w.txt",
    "cd {d}/. && mkdir -p n", "pushd {d}; mkdir n", "cd {d} && mv ~+/a.txt . 2>/dev/null; {p}",
    "CDPATH={d} cd out; touch w.txt", "cd -L {d}; ln -s a.txt l", "cd {d}; cp -r ~- c 2>/dev/null",
    "ln -s {d} up; cd -P up/..; touch w.txt", "set -P; ln -s {d} up; cd up/..; touch w.txt", "CDPATH={d} cd .ssh; touch w",
    "cd {d}; cd -; cd -; touch w.txt", "cd ~-; touch w.txt", "mkdir -p out; pushd out; pushd {d}; popd; touch w.txt",
    "pushd {d}; pushd +1; touch w.txt", "mkdir -p out/x; pushd out; pushd x; popd; popd; {p} > w.txt",
    "mkdir -p out; cd out; cd ~+/..; touch w.txt", "cd out 2>/dev/null && cd -; touch w.txt",
    # Names the program builds from a word: a suffix, a backup, a transformed member, parents kept.
    "mkdir outaa; split --additional-suffix=/../../w.txt a.txt out", "split -l 1 a.txt {d}/x", "sed -n 'W {f}' a.txt",
    "cp --parents a.txt {d}", "cp -b -S /../x a.txt b.txt", "ln -sr a.txt {f}", "sort --output={f} a.txt",
    "tar -xPf a.tar --transform 's,^,{d}/,'", "find . -name a.txt -execdir cp {{}} {d}/ \\;", "mv -b a.txt {f}",
    "xargs -a a.txt -I{{}} mv {{}} {d}", "cp -s a.txt {f}", "install -b -S .x a.txt {f}", "mkdir -p {d}/x/../y",
    # Folders moved, copied or removed whole where a rule denies below (s311, s320, s326).
    "mv {m} {D}", "mv -t {D} {m}", "mv -T {m} {D}", "mv {m} {D} 2>/dev/null; {p}", "cp -r {m} {D}", "cp -R {m}/. {D}",
    "cp -a {m} {D}", "cp -rT {m} {D}", "cmake -E rename {m} {D}", "cmake -E copy_directory {m} {D}", "rm -r {m}",
    "rm -rf {m}; {p}", "mkdir -p {D}; mv {m} {D}", "mv {m} n && mv n {D}", "cd {m} && mv ../{m} {D}",
    "mv {m} {D}; mv {D} {m}", "cp -r {m} n; mv n {D}", "mkdir x; mv {m} x; mv x {D}", "mv cfg/x.env {D}",
    "mv a.txt {D}/n.py", "cp a.txt {D}/n.py", "find {m} -delete", "find . -name '*.env' -delete",
    "cmake -E rm -r {m}", "cmake -E remove_directory {m}", "cmake -E copy a.txt {D}/n.env",
    # Links made on the line and then written, or entered, through.
    "ln -s prod p; touch p/n.py", "ln -s prod p; cd p; touch n.py", "ln -s cfg/x.env l; echo x > l",
    "ln -s prod/app.py l; cp a.txt l", "ln -s {D} l; cd l && {p} > n.py", "ln -s ../ws u; cd u/prod; touch n.py",
    "ln -s {D} l; cd -P l; cp -r ~-/src .", "ln -s {d} l; cd l; mv ~-/{m} {D}", "mkdir -p x; ln -s ../prod x/p; cd x/p; touch y.py",
    "mkdir -p dev; ln -s ../../w.txt dev/null; {p} > dev/null", "ln -s {f} null; cp a.txt null",
    # Names of a descriptor the line put a file on for reading, opened again for writing (s333).
    "tee /dev/stdout < a.txt 1< {f}", "echo x 1< {f} > /dev/stdout", "{p} 2< {f}", "touch /dev/stderr 2< {f}",
    "dd if=a.txt of=/dev/stdout 3< {f} 1<&3 2>/dev/null", "echo x | tee /dev/stdout < {f} >&0", "{p} 1<<< x",
    "truncate -s 0 /dev/stdout 1< {f}", "sed -n 'w /dev/stderr' a.txt 2< {f}", "{p} > /dev/stdout 1<> {f}",
    "echo x 2< {f} >&2 | tee /dev/stderr", "cat a.txt 1< {f} 2>&1 | tee /dev/stdout", "tee /dev/stdout 1\\\n< {f}",
    "echo x | tee /dev/stdout < {f} >&\\\n0",
    # Writes the engine never allows: exec opening descriptors, a process substitution written to.
    "exec 3>{f}; echo x >&3", "exec 5<>{f}; {p} >&5", "echo x > >(tee {f})", "{p} | tee >(cat > {f})",
]
#: Constructs the engine may allow when every command in them is allowed: lists, pipes,
#: redirections, wrappers and the programs that run others (``bash -c``, ``find -exec``, ``sed e``,
#: ``tar --to-command``…). Each has a place for a list of commands ({p}), some one for another ({q}),
#: a quoted one ({P}) or a program's name ({w}).
PLAIN = [
    "{p}", "{q} && {p}", "{q}; {p}", "{q} | {p}", "{q}\n{p}", "{q} || {p}", "{p} > out.txt", "{p} 2>/dev/null",
    "{p} < a.txt", "{p} >> out.txt", "{p} 2>&1 | cat", "{p} <<< x", "cat <<'EOF' && {p}\nx\nEOF",
    "cat <<EOF | sh\n{p}\nEOF", "bash -c {P}", "sh -c {P}", "bash -c {P} x y", "env {p}", "env -i {p}",
    "env LANG=C {p}", "env -S {P}", "timeout 5 {p}", "timeout -s KILL 5 {p}", "nice {p}", "nice -n 1 {p}",
    "command {p}", "command -p {p}", "time {p}", "time -p {p}", "echo a | xargs {p}", "xargs -a a.txt {p}",
    "xargs -I{{}} {p} < a.txt", "find . -name a.txt -exec {p} \\;", "find . -name a.txt -execdir {p} {{}} +",
    "find . -name a.txt -ok {p} \\;", "LANG=C {p}", "sed -n '1e {p}' a.txt", "sed -n 's/.*/{p}/e' a.txt",
    "sed 1e{w} a.txt", "echo {P} > s.sed; sed -f s.sed a.txt", "sort --compress-program={w} -S 1 a.txt",
    "tar -tf a.tar --checkpoint=1 --checkpoint-action=exec={P}", "tar -xf a.tar --to-command={P}",
    "tar -cf x.tar -I {w} a.txt", "tar -cf x.tar --use-compress-program={w} a.txt", "grep -r a . --exclude={P}",
    "ls\n\\{p}", "echo \\\n{p}", "echo $'\\' ; {p} #'", "echo {P} > a.txt; BASH_ENV=a.txt bash -c true",
    "echo {P} > a.txt; env BASH_ENV=a.txt bash -c true", "env 'BASH_FUNC_{w}%%=() {{ {p}; }}' bash -c {w}",
    "PS4='$({p})' bash -xc true", "PROMPT_COMMAND={P} bash -ic true",
    # Arithmetic reached through a variable: `$_` (the last word before) or one `read` set.
    "echo 'a[$({w})]' >/dev/null; test -v 'b[_]'", "echo 'a[$({w})]'; test ! -v 'b[1+_]'; {p}",
    "echo 'a[$({w})]'; let _", "read y <<< 'a[$({w})]'; test -v 'b[y]'", "read y <<< 'a[$({w})]'; let y; {p}",
    "ls 'a[$({w})]' 2>/dev/null; test -v b[_]", "test -v 'b[0]' && {p}", "let 1+2; {p}",
    # A variable the shell reads (PS4 under set -x) assigned by read, its name glued to an option.
    "read -aPS4 <<< '$({w})'; set -x; {p}", "read -raPS4 <<< '$({w})'; set -x; {p}",
    "read -d x -aPS4 <<< '$({w})'; set -x; {p}", "read -a ps4 <<< x; set -x; {p}",
    # Odd whitespace and line ends: CR, VT, FF, NBSP, U+2028, a NUL-free tab.
    "{q}\r\n{p}", "{q}\r; {p}", "{q}\x0b{p}", "{q}\x0c{p}", "{q}\u00a0{p}", "{q}\u2028{p}", "{q};\t{p}",
    # Comments where they are and are not: `a#b` is a word, ` #b` a comment.
    "echo a#b; {p}", "echo a #b; {p}", "echo a#;{p}", "{p} #\\\n{q}", "echo '#' ; {p}", "echo x#\n{p}",
    # Continuations inside a word; here-documents with odd delimiters and tabs.
    "ec\\\nho hi; {p}", "{p} \\\n> out.txt", "cat <<-EOF\n\tx\n\tEOF\n{p}", "cat <<E'O'F\n$({w})\nEOF\n{p}",
    "cat <<\\EOF\n`{w}`\nEOF\n{p}", "cat << EOF\nEOF\n{p}", "cat <<EOF; {p}\nx\nEOF",
    # Tildes, braces that become options, globs that become names.
    "ls ~+ && {p}", "ls ~- ; {p}", "ls {{-a,-l}} && {p}", "ls -{{a,l}} ; {p}", "echo a.tx? && {p}",
    "time -p {p}", "{p} ; time -p {q}", "command -- {p}", "builtin echo x; {p}",
    # Globs that may or may not become options (s109): a name the folder holds is the word.
    "cat ./* >/dev/null && {p}", "ls -d */ ; {p}", "cat [-]* 2>/dev/null; {p}", "ls [!.]* && {p}",
    "echo {P} > ./-e; cat ./* ; {p}", "grep -d recurse a . ; {p}", "grep --directories=recurse a . && {p}",
    # sed scripts split over -e words, and a -e after the script (the script is then a file).
    "sed -n '1{{e {w}' -e '}}' a.txt; {p}", "sed -n -e 'a\\' -e {P} a.txt", "sed -n -e '1{{' -e 'e {w}' -e '}}' a.txt",
    "find . -name a.txt -fprint /dev/null; {p}", "xargs -I{{}} cat ./{{}} < a.txt; {p}",
    # Data that becomes a program's name: what xargs reads, what find finds, a line sed runs (s289).
    "echo {w} | xargs env", "echo {w} | xargs -I{{}} env {{}}", "echo {w} | xargs xargs", "echo {w} | xargs nice",
    "echo {w} | xargs timeout 5", "echo {w} | xargs bash -c", "echo {w} > b.txt; xargs -a b.txt env",
    "find /usr/bin -name {w} -exec env {{}} \\;", "find /usr/bin -name {w} -exec {{}} \\;", "echo {w} | sed e",
    "echo {w} > b.txt; sed -n e b.txt", "echo {w} | xargs -I% nice %",
    # Every redirection operator, and descriptors swapped, closed, opened both ways.
    "{p} &>out.txt", "{p} &>>out.txt", "{p} >|out.txt", "{p} <>a.txt", "{p} 3>&1 1>&2 2>&3", "{p} 2>&-",
    "{p} >&2", "{p} 0<a.txt", "{p} 1>out.txt", "{p} 2>>out.txt <a.txt",
    # Options of the shell's own where the line is a word away: after -c, glued to it, before it.
    "bash -c -x {P}", "sh -c -- {P}", "bash -xc {P}", "bash -ec {P}", "bash -c {P} -x", "bash -c -l {P}",
    "echo {P} > .bash_profile; bash -lc true", "echo {P} > .profile; sh -lc true", "echo {P} | bash",
    "echo {P} | sh -s", "time -p -- {p}", "time -- {p}",
    # PATH changed on the line, a program planted in a folder on it (s319, s321).
    "PATH=.:$PATH {p}", "PATH=:$PATH {p}", "PATH=$PATH: {p}", "export PATH=.:$PATH; {p}", "PATH=~:/usr/bin {p}",
    "env PATH=.:/usr/bin {p}", "cp /usr/bin/id {w}; PATH=.:$PATH {w}", "ln -s /usr/bin/id {w}; PATH=.:$PATH {p}",
    "mkdir -p bin; cp /usr/bin/id bin/{w}; PATH=$PWD/bin:$PATH {p}", "cp /usr/bin/id ~/{w}; PATH=~:$PATH {p}",
    "install /usr/bin/id {w}; export PATH=.:$PATH; {p}", "cp /usr/bin/id {w}; env PATH=. {w}",
    "cp /usr/bin/id {w}; PATH=:/usr/bin {w}", "mkdir -p out; cp /usr/bin/id out/{w}; cd out; PATH=.:/usr/bin {p}",
    "cp /usr/bin/id ../{w}; PATH=..:$PATH {p}", "cp /usr/bin/id {w}; env PATH=.:/usr/bin timeout 5 {w}",
    "cp /usr/bin/id {w}; PATH=/usr/bin:. {p}", "cp /usr/bin/id {w}; export PATH=$PWD; {w}",
    "cp /usr/bin/id {w}; PATH=. command {w}", "cp /usr/bin/id {w}; ./{w}", "cp /usr/bin/id {w}; PATH=. xargs {w} < a.txt",
    *WRITES,
]
#: Constructs the engine never allows (expansions, compound commands, builtins that run text):
#: fewer of these, to check it asks however deep they sit.
OPAQUE = [
    "echo $({p})", "echo `{p}`", "echo ${{y:-`{p}`}}", 'echo "$({p})"', "({p})", "{{ {p}; }}", "{p} &",
    "if {q}; then {p}; fi", "while false; do :; done; {p}", "[[ -n $({p}) ]]", "[ -n \"$({p})\" ]",
    "[[ 'a[$({p})]' -eq 0 ]]", "(( $({p}) ))", "cat <<EOF\n$({p})\nEOF", "cat <({p})", "echo x > >({p})",
    "eval {P}", "x=1; {p}", "f() {{ {p}; }}; f", "for i in 1; do {p}; done", "case x in x) {p};; esac", "! {p}",
    "echo x | while read l; do {p}; done", "coproc {p}", "trap {P} EXIT", "a=( $({p}) )", "declare y=$({p})",
    "printf -v y %s \"$({p})\"", ": ${{y:=$({p})}}", "y=$({p}) true", "source <(echo {P})", ". <(echo {P})",
    "x={w}; {p}", "alias {w}=ls; {p}", "set -- {w}; \"$@\"", "x=({w} -u); \"${{x[@]}}\"",
    "x='$({p})'; echo ${{x@P}}", "x='a[$({p})]'; echo $(( x ))", "x='a[$({p})]'; [[ $x -eq 0 ]]",
    "printf -v 'a[$({p})]' x", "read 'a[$({p})]' <<< x", "test -v 'a[$({p})]'", "hash -p /usr/bin/{w} echo; echo",
    "shopt -s expand_aliases; alias echo={P}; echo", "enable -n echo; echo hi; {p}", "exec -a echo {p}",
    "bash --rcfile <(echo {P}) -ic true", "function f {{ {p}; }}; f", "f() ( {p} ); f", "{{ {p}; }} > out.txt",
    "x=({w}); ${{x[0]}}", "x={w}; y=x; ${{!y}}", "declare -i y='a[$({w})]'", "local y 2>/dev/null; {p}",
    "export 'a[$({w})]=1'", "coproc {{ {p}; }}", "{p} |& cat", "shopt -s extglob; ls !(x); {p}",
    "shopt -s globstar; ls **; {p}", "enable -f x y 2>/dev/null; {p}", "ENV={P} sh -ic true",
    "SHELLOPTS=xtrace PS4='$({w})' bash -c true", "BASHOPTS=expand_aliases bash -c {P}",
    # Arithmetic expansion around a substitution; a substitution in a parameter's offset or pattern.
    "echo $(( $({p}) ))", "echo $(( 1 + `{p}` ))", "echo $[ $({p}) ]", "x=1; echo ${{x:$({p})}}",
    "x=1; echo ${{x/1/$({p})}}", "[[ -v 'a[$({p})]' ]]", "[ -v 'a[$({w})]' ] ; {p}",
    # Compound commands the list above lacks; a function named like an allowed program.
    "select x in a; do {p}; break; done <<< 1", "until {q}; do {p}; break; done", "case x in x) {q};& y) {p};; esac",
    "{w}() {{ {p}; }}; {w}", "time {{ {p}; }}", "! {{ {p}; }}", "coproc x {{ {p}; }}",
    # Process substitution as a file name handed to a program.
    "tee >({p}) < a.txt", "cat a.txt | tee >({p}) >/dev/null", "sort -o >({p}) a.txt", "diff <({p}) a.txt",
    "wc -l <({p})",
    # exec with only redirections: a descriptor named by a variable, or the shell's own output moved.
    "exec {{fd}}>out.txt; {p}", "exec 3>out.txt; {p}", "exec 3<a.txt; {p} <&3", "exec >out.txt; {p}",
    # eval spelled in other ways; a script read by the shell itself.
    "builtin eval {P}", "command eval {P}", "\\eval {P}", "'eval' {P}", "e\\val {P}", "$'eval' {P}",
    "x=eval; $x {P}", "eval -- {P}", "echo {P} > s.sh; . ./s.sh", "echo {P} > s.sh; source s.sh",
    "echo {P} > s.sh; bash s.sh", "echo {P} > s.sh; set -k; bash -c true BASH_ENV=s.sh",
    # Builtins that run a command they are given.
    "compgen -C {P} x", "mapfile -C {P} -c 1 y < a.txt", "complete -C {P} x; {p}",
    # Variables set by builtins and then read as arithmetic or a prompt.
    "shopt -s lastpipe; echo 'a[$({w})]' | read y; let y; {p}", "read <<< 'a[$({w})]'; let REPLY; {p}",
    "read <<< 'a[$({w})]'; test -v 'b[REPLY]'", "getopts a: y -a 'a[$({w})]'; let OPTARG",
    "declare -n y='a[$({w})]'; test -v y", "printf -v PS4 %s '$({w})'; set -x; {p}",
    "mapfile PS4 <<< '$({w})'; set -x; {p}", "read PS4 <<< '$({w})'; set -o xtrace; {p}",
    "read -d x -a PS4 <<< '$({w})'; set -xv; {p}", "x={w} env -S'${{x}}'", "hash -p /usr/bin/{w} ls; ls",
    "trap {P} ERR; false", "trap -- {P} DEBUG; :", "cat <<EOF\n`{w}`\nEOF\n{p}", "cat <<EOF\n\\$({w})\nEOF\n{p}",
    # Descriptors opened on a file the line names, written through later.
    "exec 3>{f}; {p} >&3", "exec 4<>{f}; {p} 1>&4", "exec >{f}; {p}", "exec {{fd}}>>{f}; {p}",
]
#: How often a construct is one of ``OPAQUE``.
OPAQUE_SHARE = 0.25
#: How often a construct is one of ``WRITES`` in the write-heavy mode (else as in the plain one):
#: there most lines write, in many ways, after many changes of folder.
WRITE_HEAVY_SHARE = 0.6
#: How long a line may run, in seconds (`tee -a a.txt < a.txt` runs for ever); what it did by then
#: is checked.
LINE_TIME = 8


def _spelled(rng: random.Random, command: str) -> str:
    word, _, rest = command.partition(" ")
    cut = rng.randint(1, max(1, len(word) - 1))
    spelling = rng.choice(SPELLINGS).format(w=word, h=word[:cut], t=word[cut:], t0=word[cut:cut + 1],
                                            t1=word[cut + 1:])
    if "$x" in spelling or "${x}" in spelling:
        spelling = f"x={word}; {spelling}"
    return f"{spelling} {rest}".rstrip()


def random_line(rng: random.Random, depth: int | None = None, *, write_heavy: bool = False) -> str:
    """A line of constructs nested up to ``depth`` deep, with commands spelled in many ways;
    ``write_heavy``: most constructs are ones that write."""
    depth = rng.randint(0, 4) if depth is None else depth
    if depth == 0:
        command = rng.choice(COMMANDS)
        return _spelled(rng, command) if rng.random() < 0.5 else command
    inner = random_line(rng, depth - 1, write_heavy=write_heavy)
    other = random_line(rng, rng.randint(0, depth - 1), write_heavy=write_heavy)
    if write_heavy and rng.random() < WRITE_HEAVY_SHARE:
        constructs = WRITES
    else:
        constructs = OPAQUE if rng.random() < OPAQUE_SHARE else PLAIN
    return rng.choice(constructs).format(p=inner, q=other, P=shlex.quote(inner),
                                         w=rng.choice(COMMANDS).partition(" ")[0], f=rng.choice(TARGETS),
                                         d=rng.choice(FOLDERS), m=rng.choice(MOVED), D=rng.choice(LANDINGS))


@contextmanager
def _judged_as_run_by(shell: str) -> Iterator[None]:
    """The engine reads lines in the grammar of ``shell``: run_command's own choice is bash, and
    ``/bin/sh`` only where there is no bash (so, for dash, as if there were none)."""
    from echo_desk.sandbox import shell as command_shell

    if shell == "bash":
        yield
        return
    find_bash = command_shell.find_bash
    command_shell.find_bash = lambda: None
    command_shell.command_shell.cache_clear()
    try:
        yield
    finally:
        command_shell.find_bash = find_bash
        command_shell.command_shell.cache_clear()


def main(argv: list[str] | None = None) -> int:
    from tests.agent.permissions.bash_trace import SHELLS

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=None, help="a fixed seed (default: a random one, printed)")
    ap.add_argument("--count", type=int, default=5000, help="how many lines")
    ap.add_argument("--shell", choices=sorted(SHELLS), default="bash", help="the shell that runs the lines")
    ap.add_argument("--write-heavy", action="store_true",
                    help="most constructs write: redirections, tee, cp/mv/ln/install, sed -i, cd chains…")
    ap.add_argument("--keep-going", action="store_true", help="after a line the engine gets wrong, go on")
    args = ap.parse_args(argv)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    with _judged_as_run_by(args.shell):
        return _explore(seed, args.count, args.shell, write_heavy=args.write_heavy, keep_going=args.keep_going)


def _fresh_box(box: Path) -> tuple[Path, Path]:
    """``box`` made anew for one line: the workspace and the home in it, nothing a line before
    left, and a file in the home and one beside the workspace for lines that change or delete
    what is outside."""
    from tests.agent.permissions.bash_trace import NOBODY

    if box.exists():
        shutil.rmtree(box)
    workspace, home = box / "ws", box / "home"
    for folder in (workspace, home / ".ssh"):
        folder.mkdir(parents=True)
    (home / ".bashrc").write_text("# home\n", encoding="utf-8")
    (box / "keep.txt").write_text("keep\n", encoding="utf-8")
    if os.geteuid() == 0:
        # The lines run as nobody (see run_traced): the box is theirs, the folder above it
        # only passed through.
        box.parent.chmod(0o711)
        for path in (box, *box.rglob("*")):
            os.chown(path, NOBODY, NOBODY)
    return workspace, home


def denied(written: list[str], workspace: Path) -> list[str]:
    """What of ``written`` lies in ``workspace`` where a pattern of ``DENIED`` denies: any
    ``*.env`` below it, a ``*.py`` right in its prod folder (its links resolved as the kernel did)."""
    top = os.path.realpath(workspace)
    hits = []
    for path in written:
        real = os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))
        if not real.startswith(top + os.sep):
            continue
        parts = os.path.relpath(real, top).split(os.sep)
        if parts[-1].endswith(".env") or (len(parts) == 2 and parts[0] == "prod" and parts[1].endswith(".py")):
            hits.append(path)
    return hits


def planted(executed: tuple[str, ...], box: Path) -> list[str]:
    """The programs a line executed from a file the line could have made: a path relative to its
    folder, or one in the scratch box. The rules allow a program by name, judged as the one PATH
    finds on the machine; a copy planted on the line and found first is another program."""
    top = os.path.realpath(box)
    return [path for path in executed
            if not os.path.isabs(path) or os.path.realpath(path) == top or os.path.realpath(path).startswith(top + os.sep)]


def _explore(seed: int, count: int, shell: str, *, write_heavy: bool, keep_going: bool) -> int:
    from echo_desk.agent.permissions import Effect, PermissionEngine
    from echo_desk.agent.permissions.floor import Where
    from echo_desk.store.grants import GrantStore
    from tests.agent.permissions.bash_trace import (
        NOBODY,
        RULES,
        SHELLS,
        run_traced,
        strace_problem,
        unexpected,
    )
    from tests.agent.permissions.written_files import not_allowed

    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="explore-bash-") as tmp:
        top = Path(tmp)
        why = strace_problem(top)
        if why is not None:
            print(why, file=sys.stderr)
            return 2
        config, box = top / "config", top / "box"
        config.mkdir()
        workspace, home = _fresh_box(box)
        denying = "".join(f'\n[[rule]]\neffect = "deny"\ntool = "write"\npattern = "{p}"\n' for p in DENIED)
        (config / "permissions.toml").write_text(RULES + denying, encoding="utf-8")
        grants = GrantStore(top / "grants.sqlite3")
        engine = PermissionEngine(config_dir=config, grants=grants, home=home)
        where = Where(cwd=workspace, home=home, workspaces=(workspace,), protected=())
        mode = ", write-heavy" if write_heavy else ""
        print(f"seed {seed}, {count} lines, run by {shell}{mode}", flush=True)
        allowed = writing = wrong = 0
        line = ""
        try:
            for n in range(count):
                line = random_line(rng, write_heavy=write_heavy)
                if engine.check_command(line, workspace=workspace).effect is not Effect.ALLOW:
                    continue
                allowed += 1
                _fresh_box(box)
                trace = run_traced(line, workspace, home=home, shell=shell, timeout=LINE_TIME, user=NOBODY,
                                   world=WORLD)
                ran = [*unexpected(line, trace.programs, where, SHELLS[shell]), *planted(trace.executed, box)]
                wrote = [*not_allowed(trace.written, workspace), *denied(trace.written, workspace)]
                writing += bool(not_allowed(trace.written, Path("/nowhere")))
                if not ran and not wrote:
                    continue
                wrong += 1
                print(f"WRONG at line {n}: allowed {json.dumps(line)}; it ran {trace.programs}, "
                      f"wrote {[os.path.relpath(w, box) for w in wrote]} where the write rules do not allow", flush=True)
                if not keep_going:
                    return 1
        except BaseException:
            # The line that broke the engine or the harness, so that it can be run again.
            print(f"CRASHED on {json.dumps(line)}", file=sys.stderr, flush=True)
            raise
        finally:
            grants.close()
    print(f"{allowed} of {count} lines allowed and run ({writing} wrote files); {wrong} ran a program the engine did not see or allow "
          "or wrote where the write rules do not allow")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
