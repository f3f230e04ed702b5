"""A held-out set for ``bench/agent_tasks.py`` (``--set scripts``), written on 2026-12-03.

Written before the small model was offered the command after looking at a script (an exchange it
said asks to run something), and run once before and once after that change, untouched. Two jobs
in each of the six languages on scripts of their own: one asks to run a script and say what it
printed (a number the 0.5B model does not get right by reading the code), one asks a question
about a script that must run nothing and change nothing (a command is a proposal there too).
The change gave 8 → 8 of 12 and was not kept.
"""

from __future__ import annotations

from agent_task_checks import Check, Job, any_of, command, has, question

TALLY_PY = 'words = ["pear", "fig", "plum", "kiwi", "lime"]\nprint(sum(len(w) for w in words) * 3)\n'
CALC_PY = "x = 7\nfor _ in range(3):\n    x = x * 2 + 1\nprint(x)\n"
COUNT_SH = "echo $(( 6 * 7 + 8 ))\n"
DEPLOY_SH = "#!/bin/sh\nmake test\nrsync -a build/ server:/www\n"
CLEANUP_SH = "#!/bin/sh\nrm -rf ./cache\n"


def _scripts_jobs() -> list[Job]:
    jobs: list[Job] = []

    def run(job_id: str, lang: str, prompt: str, files: dict[str, str], printed: str) -> None:
        jobs.append(command(job_id, lang, prompt, files, printed, set="scripts"))

    def ask(job_id: str, lang: str, prompt: str, files: dict[str, str], fact: Check) -> None:
        jobs.append(question(job_id, lang, prompt, files, fact, set="scripts"))

    run("s_en_run", "en", "Run python3 tally.py and tell me the number it prints.", {"tally.py": TALLY_PY}, "57")
    ask("s_en_q_tests", "en", "Does deploy.sh run the tests before it uploads anything?", {"deploy.sh": DEPLOY_SH},
        any_of("yes", "make test"))

    run("s_zh_run", "zh", "用 python3 运行 calc.py，告诉我输出是什么。", {"calc.py": CALC_PY}, "63")
    ask("s_zh_q_cleanup", "zh", "cleanup.sh 会删除哪个文件夹？", {"cleanup.sh": CLEANUP_SH}, has("cache"))

    run("s_fr_run", "fr", "Exécute bash count.sh et donne-moi le résultat.", {"count.sh": COUNT_SH}, "50")
    ask("s_fr_q_loop", "fr", "Combien de fois la boucle de calc.py tourne-t-elle ?", {"calc.py": CALC_PY},
        any_of("3", "trois"))

    run("s_de_run", "de", "Starte python3 calc.py und sag mir die Ausgabe.", {"calc.py": CALC_PY}, "63")
    ask("s_de_q_words", "de", "Welche Wörter stehen in der Liste in tally.py?", {"tally.py": TALLY_PY},
        has("pear"))

    run("s_es_run", "es", "¿Qué número imprime python3 tally.py? Ejecútalo para saberlo.", {"tally.py": TALLY_PY},
        "57")
    ask("s_es_q_first", "es", "¿Qué comando ejecuta deploy.sh primero?", {"deploy.sh": DEPLOY_SH}, has("make test"))

    run("s_ja_run", "ja", "bash count.sh を実行して結果を教えて。", {"count.sh": COUNT_SH}, "50")
    ask("s_ja_q_cleanup", "ja", "cleanup.sh を実行すると何が消えますか？", {"cleanup.sh": CLEANUP_SH}, has("cache"))
    return jobs


SCRIPTS_JOBS = _scripts_jobs()
