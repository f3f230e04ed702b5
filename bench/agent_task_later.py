"""A held-out set for ``bench/agent_tasks.py`` (``--set later``), written on 2026-12-03.

Written after the small model was first offered basic parameters only and its searches held to
what it said it looks for, and before anything else changed; run once at the end of that work,
untouched. Four jobs in each of the six languages on files and phrasings of their own: a search
for a word, a question about what one named file says, a change, and a question about a named
file that must change nothing.
"""

from __future__ import annotations

from agent_task_checks import Check, Job, any_of, appended, contains, edited, has, moved, question

GARDEN = "tomatoes: water daily\nbasil: water every 2 days\ncactus: water monthly\n"
QUEUE_PY = (
    "JOBS = []\n\n\n"
    "def push(job):\n"
    "    JOBS.append(job)\n\n\n"
    "def pop_oldest():\n"
    "    return JOBS.pop(0)\n"
)
BACKUP_CFG = "[backup]\ntarget = /srv/backup\nkeep_days = 30\ncompress = yes\n"


def _later_jobs() -> list[Job]:
    jobs: list[Job] = []

    def add(job_id: str, lang: str, kind: str, prompt: str, files: dict[str, str], check: Check) -> None:
        jobs.append(Job(job_id, lang, kind, prompt, files, check, set="later"))

    def ask(job_id: str, lang: str, prompt: str, files: dict[str, str], fact: Check) -> None:
        jobs.append(question(job_id, lang, prompt, files, fact, set="later"))

    add("l_en_search", "en", "search", "Which note mentions the word 'lighthouse'?",
        {"notes/trip.txt": "we walked to the lighthouse\n", "notes/food.txt": "soup and bread\n"}, has("trip.txt"))
    add("l_en_read", "en", "read", "According to garden.txt, how often does the basil need water?",
        {"garden.txt": GARDEN}, has("2"))
    add("l_en_append", "en", "append", "Put 'mint: water weekly' as a new last line of garden.txt.",
        {"garden.txt": GARDEN},
        appended("garden.txt", ["tomatoes: water daily", "basil: water every 2 days", "cactus: water monthly"],
                 "mint: water weekly"))
    ask("l_en_q_pop", "en", "Which job does pop_oldest in queue.py remove?", {"queue.py": QUEUE_PY},
        any_of("first", "oldest", "0"))

    add("l_zh_search", "zh", "search", "哪个文件里提到了“灯塔”？",
        {"日记/周一.txt": "今天去看了灯塔\n", "日记/周二.txt": "下雨，在家看书\n"}, has("周一.txt"))
    add("l_zh_read", "zh", "read", "backup.cfg 里备份保留多少天？", {"backup.cfg": BACKUP_CFG}, has("30"))
    add("l_zh_edit", "zh", "edit", "把 backup.cfg 里的 keep_days 改成 14", {"backup.cfg": BACKUP_CFG},
        edited("backup.cfg", "keep_days = 14", "keep_days = 30", "compress = yes"))
    ask("l_zh_q_push", "zh", "queue.py 里的 push 会把任务加到列表的哪一端？", {"queue.py": QUEUE_PY},
        any_of("append", "末尾", "末端", "最后", "后面", "尾"))

    add("l_fr_search", "fr", "search", "Dans quel fichier trouve-t-on le mot 'phare' ?",
        {"carnet/lundi.txt": "visite du phare\n", "carnet/mardi.txt": "marché le matin\n"}, has("lundi.txt"))
    add("l_fr_read", "fr", "read", "Où backup.cfg enregistre-t-il les sauvegardes ?", {"backup.cfg": BACKUP_CFG},
        has("/srv/backup"))
    add("l_fr_create", "fr", "create", "Crée le fichier rappel.txt avec le texte : appeler Paul", {},
        contains("rappel.txt", "appeler Paul"))
    ask("l_fr_q_delete", "fr", "Est-ce que pop_oldest dans queue.py supprime le premier ou le dernier élément ?",
        {"queue.py": QUEUE_PY}, any_of("premier", "first", "0"))

    add("l_de_search", "de", "search", "In welcher Notiz steht das Wort 'Leuchtturm'?",
        {"notizen/montag.txt": "Ausflug zum Leuchtturm\n", "notizen/dienstag.txt": "Einkaufen\n"},
        has("montag.txt"))
    add("l_de_read", "de", "read", "Wie oft braucht der Kaktus laut garden.txt Wasser?", {"garden.txt": GARDEN},
        any_of("month", "Monat"))
    add("l_de_move", "de", "rename", "Benenne notizen.txt in archiv.txt um.", {"notizen.txt": "alt\n"},
        moved("notizen.txt", "archiv.txt", "alt\n"))
    ask("l_de_q_compress", "de", "Wird laut backup.cfg beim Sichern komprimiert, und was müsste ich ändern, um es "
        "abzuschalten?", {"backup.cfg": BACKUP_CFG}, any_of("compress", "no"))

    add("l_es_search", "es", "search", "¿Qué nota menciona la palabra 'faro'?",
        {"notas/lunes.txt": "paseo hasta el faro\n", "notas/martes.txt": "compras\n"}, has("lunes.txt"))
    add("l_es_read", "es", "read", "¿Cada cuánto hay que regar los tomates según garden.txt?",
        {"garden.txt": GARDEN}, any_of("daily", "diari", "todos los días", "cada día"))
    add("l_es_edit", "es", "edit", "En backup.cfg cambia compress = yes por compress = no.",
        {"backup.cfg": BACKUP_CFG}, edited("backup.cfg", "compress = no", "compress = yes", "keep_days = 30"))
    ask("l_es_q_update", "es", "¿push en queue.py actualiza la lista JOBS o crea una nueva?", {"queue.py": QUEUE_PY},
        has("JOBS"))

    add("l_ja_search", "ja", "search", "「灯台」という言葉が出てくるメモはどれ？",
        {"メモ/月曜.txt": "灯台まで散歩した\n", "メモ/火曜.txt": "買い物\n"}, has("月曜.txt"))
    add("l_ja_read", "ja", "read", "backup.cfg ではバックアップを何日間保存しますか？", {"backup.cfg": BACKUP_CFG},
        has("30"))
    add("l_ja_append", "ja", "append", "garden.txt の最後に「mint: water weekly」という行を足して。",
        {"garden.txt": GARDEN},
        appended("garden.txt", ["tomatoes: water daily", "basil: water every 2 days", "cactus: water monthly"],
                 "mint: water weekly"))
    ask("l_ja_q_delete", "ja", "queue.py の pop_oldest を消したら何が困りますか？", {"queue.py": QUEUE_PY},
        has("pop_oldest"))
    return jobs


LATER_JOBS = _later_jobs()
