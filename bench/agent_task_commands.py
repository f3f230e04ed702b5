"""A held-out set for ``bench/agent_tasks.py`` (``--set commands``), written on 2026-12-03.

Written after the command was offered after a look and before anything else changed; run once
before and once after the next change, untouched. Two jobs in each of the six languages: one asks
to run a command (a script, a one-line program or a tool with a file) and say what it printed,
one asks a question about a script that must run nothing and change nothing. The next change
(a script named by a command read before it is run) gave 6 → 4 of 12 and was not kept.
"""

from __future__ import annotations

from agent_task_checks import Check, Job, any_of, command, has, question

NOTES_TXT = "".join(f"note {n}\n" for n in range(1, 8))
WORDS_TXT = "one two three four five six seven eight nine ten eleven\n"
BUILD_SH = "#!/bin/sh\necho build-$(( 40 + 2 ))\n"
GREET_SH = 'printf "%s-%s\\n" Hallo $(( 9 * 9 ))\n'
MIX_PY = 'print("".join(sorted("banana")))\n'
RESET_SH = "#!/bin/sh\nrm -f state.db\ntouch state.db\n"
BACKUP_SH = "#!/bin/sh\nsh ./reset.sh\ntar czf out.tgz data\n"


def _commands_jobs() -> list[Job]:
    jobs: list[Job] = []

    def run(job_id: str, lang: str, prompt: str, files: dict[str, str], printed: str) -> None:
        jobs.append(command(job_id, lang, prompt, files, printed, set="commands"))

    def ask(job_id: str, lang: str, prompt: str, files: dict[str, str], fact: Check) -> None:
        jobs.append(question(job_id, lang, prompt, files, fact, set="commands"))

    run("c_en_run", "en", "Run wc -l notes.txt and tell me what it says.", {"notes.txt": NOTES_TXT}, "7")
    ask("c_en_q_twice", "en", "What would happen if I ran reset.sh twice?", {"reset.sh": RESET_SH}, has("state.db"))

    run("c_zh_run", "zh", "运行 sh build.sh，告诉我它打印了什么。", {"build.sh": BUILD_SH}, "build-42")
    ask("c_zh_q_echo", "zh", "build.sh 里用了哪个命令来输出？", {"build.sh": BUILD_SH}, has("echo"))

    run("c_fr_run", "fr", "Lance python3 -c 'print(2**10)' et dis-moi le résultat.", {}, "1024")
    ask("c_fr_q_reset", "fr", "Quel fichier le script reset.sh supprime-t-il ?", {"reset.sh": RESET_SH}, has("state.db"))

    run("c_de_run", "de", "Führe sh greet.sh aus. Was gibt es aus?", {"greet.sh": GREET_SH}, "Hallo-81")
    ask("c_de_q_calls", "de", "Startet backup.sh irgendwelche anderen Skripte?",
        {"backup.sh": BACKUP_SH, "reset.sh": RESET_SH}, has("reset.sh"))

    run("c_es_run", "es", "Ejecuta python3 mix.py y dime la salida.", {"mix.py": MIX_PY}, "aaabnn")
    ask("c_es_q_sorted", "es", "¿Para qué sirve sorted en mix.py?", {"mix.py": MIX_PY}, any_of("orden", "sort"))

    run("c_ja_run", "ja", "wc -w words.txt を実行して単語数を教えて。", {"words.txt": WORDS_TXT}, "11")
    ask("c_ja_q_printf", "ja", "greet.sh はどのコマンドで文字を出力していますか？", {"greet.sh": GREET_SH}, has("printf"))
    return jobs


COMMANDS_JOBS = _commands_jobs()
