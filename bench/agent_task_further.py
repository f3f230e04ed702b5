"""A further held-out set for ``bench/agent_tasks.py`` (``--set further``).

Written after the keyword steering was replaced (issue 31), when the intent step and the role
steering were finished and no longer changed, and run once at the end, untouched: it checks
that the figures of the sets written before the change were not fitted to those sets. Three
jobs in each of the six languages — a job that looks, a job that changes something, and a
question about a named file that must change nothing (with a word of change inside it) — on
files and phrasings of its own.
"""

from __future__ import annotations

from agent_task_checks import Check, Job, any_of, appended, contains, edited, has, moved, question

RECIPE = "Pancakes\nflour: 200 g\nmilk: 300 ml\neggs: 2\n"
SERVER_PY = (
    "import json\n\n\n"
    "def save_state(state, path='state.json'):\n"
    "    with open(path, 'w') as f:\n"
    "        json.dump(state, f)\n\n\n"
    "def update_counter(state):\n"
    "    state['count'] = state.get('count', 0) + 1\n"
    "    return state\n"
)
CLEANUP_SH = "#!/bin/sh\n# removes build files older than 7 days\nfind build -mtime +7 -delete\n"
LIMITS_TOML = "[upload]\nmax_size_mb = 25\nretries = 2\n"


def _further_jobs() -> list[Job]:
    jobs: list[Job] = []

    def add(job_id: str, lang: str, kind: str, prompt: str, files: dict[str, str], check: Check) -> None:
        jobs.append(Job(job_id, lang, kind, prompt, files, check, set="further"))

    def ask(job_id: str, lang: str, prompt: str, files: dict[str, str], fact: Check) -> None:
        jobs.append(question(job_id, lang, prompt, files, fact, set="further"))

    add("f_en_read_milk", "en", "read", "How much milk goes into the pancakes? It's in recipe.txt.",
        {"recipe.txt": RECIPE}, has("300"))
    add("f_en_edit_retries", "en", "edit", "Set retries to 4 in limits.toml.", {"limits.toml": LIMITS_TOML},
        edited("limits.toml", "retries = 4", "retries = 2", "max_size_mb = 25"))
    ask("f_en_q_save_state", "en", "Where does save_state in server.py store the state?", {"server.py": SERVER_PY},
        has("state.json"))

    add("f_zh_list_photos", "zh", "list", "照片文件夹里有哪些文件？",
        {"照片/海边.jpg": "x\n", "照片/山顶.jpg": "y\n", "说明.txt": "z\n"}, has("海边.jpg", "山顶.jpg"))
    add("f_zh_create_plan", "zh", "create", "新建一个 plan.txt，内容写：周五交报告", {}, contains("plan.txt", "周五交报告"))
    ask("f_zh_q_update_counter", "zh", "server.py 里的 update_counter 每次把计数加多少？", {"server.py": SERVER_PY},
        any_of("1", "加一"))

    add("f_fr_search_word", "fr", "search", "Quel fichier parle de 'myrtilles' ?",
        {"desserts/tarte.txt": "tarte aux myrtilles\n", "desserts/flan.txt": "flan vanille\n"}, has("tarte.txt"))
    add("f_fr_append_line", "fr", "append", "Ajoute 'beurre' à la fin de courses.txt.",
        {"courses.txt": "farine\nsucre\n"}, appended("courses.txt", ["farine", "sucre"], "beurre"))
    ask("f_fr_q_delete_files", "fr", "Quels fichiers cleanup.sh supprime-t-il ?", {"cleanup.sh": CLEANUP_SH},
        any_of("build", "7"))

    add("f_de_read_size", "de", "read", "Wie groß darf ein Upload laut limits.toml höchstens sein?",
        {"limits.toml": LIMITS_TOML}, has("25"))
    add("f_de_rename", "de", "rename", "Benenne entwurf.md in bericht.md um.", {"entwurf.md": "# Bericht\n"},
        moved("entwurf.md", "bericht.md", "# Bericht\n"))
    ask("f_de_q_save_format", "de", "In welchem Format speichert save_state in server.py den Zustand?",
        {"server.py": SERVER_PY}, any_of("json", "JSON"))

    add("f_es_count", "es", "count", "¿Cuántos ingredientes hay en receta.txt? Hay uno por línea.",
        {"receta.txt": "harina\nleche\nhuevos\nazúcar\n"}, has("4"))
    add("f_es_edit_word", "es", "edit", "En saludo.txt cambia 'hola' por 'buenos días'.",
        {"saludo.txt": "hola, equipo\nhasta luego\n"},
        edited("saludo.txt", "buenos días", "hola", "hasta luego"))
    ask("f_es_q_change_retries", "es", "¿Qué pasa si cambio retries en limits.toml? ¿Cuánto vale ahora?",
        {"limits.toml": LIMITS_TOML}, has("2"))

    add("f_ja_run", "ja", "run", "python3 total.py を実行して結果を教えて。",
        {"total.py": "print(7 * 6)\n"}, has("42"))
    add("f_ja_create", "ja", "create", "memo.md というファイルを作って「会議は月曜」と書いて。", {},
        contains("memo.md", "会議は月曜"))
    ask("f_ja_q_cleanup", "ja", "cleanup.sh は何日より古いファイルを削除しますか？", {"cleanup.sh": CLEANUP_SH}, has("7"))
    return jobs


FURTHER_JOBS: list[Job] = _further_jobs()
