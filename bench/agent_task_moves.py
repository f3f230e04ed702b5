"""A held-out set for ``bench/agent_tasks.py`` (``--set moves``), written on 2026-12-03.

Written before a change to a file that could not be read was also offered the tools that move
one (a file that is not there may be the new name of one that is), and run once before and once
after that change, untouched. Two jobs in each of the six languages: a file to give a new name,
and a new file to make (its first look fails too: the change must not turn makings into moves).
The change gave 6 → 6 of 12 and was not kept.
"""

from __future__ import annotations

from agent_task_checks import Job, contains, moved


def _moves_jobs() -> list[Job]:
    jobs: list[Job] = []

    def rename(job_id: str, lang: str, prompt: str, source: str, destination: str, text: str) -> None:
        jobs.append(Job(job_id, lang, "rename", prompt, {source: text}, moved(source, destination, text), set="moves"))

    def make(job_id: str, lang: str, prompt: str, name: str, text: str) -> None:
        jobs.append(Job(job_id, lang, "create", prompt, {}, contains(name, text), set="moves"))

    rename("m_en_rename", "en", "Change the name of summary_old.md to summary.md.", "summary_old.md", "summary.md",
           "# Summary\n")
    make("m_en_make", "en", "Write 'remember the milk' into a new file reminder.txt.", "reminder.txt", "remember the milk")

    rename("m_zh_rename", "zh", "将 旧计划.txt 改名成 新计划.txt", "旧计划.txt", "新计划.txt", "周一开会\n")
    make("m_zh_make", "zh", "新建 待办.txt，内容是“买菜”", "待办.txt", "买菜")

    rename("m_fr_rename", "fr", "Je voudrais que rapport1.txt s'appelle rapport_final.txt.", "rapport1.txt",
           "rapport_final.txt", "chiffres\n")
    make("m_fr_make", "fr", "Écris « bonjour » dans un nouveau fichier salut.txt.", "salut.txt", "bonjour")

    rename("m_de_rename", "de", "Ändere den Dateinamen von alt.csv zu daten.csv.", "alt.csv", "daten.csv", "a,b\n")
    make("m_de_make", "de", "Leg die Datei aufgaben.txt an und schreib 'Müll rausbringen' hinein.", "aufgaben.txt",
         "Müll rausbringen")

    rename("m_es_rename", "es", "Ponle a notas_viejas.txt el nombre notas.txt.", "notas_viejas.txt", "notas.txt",
           "idea\n")
    make("m_es_make", "es", "Guarda 'hola mundo' en un archivo nuevo saludo.txt.", "saludo.txt", "hola mundo")

    rename("m_ja_rename", "ja", "log_old.txt を log_2025.txt にリネームして。", "log_old.txt", "log_2025.txt", "ok\n")
    make("m_ja_make", "ja", "todo.txt を新規作成して「買い物」と書いて。", "todo.txt", "買い物")
    return jobs


MOVES_JOBS = _moves_jobs()
