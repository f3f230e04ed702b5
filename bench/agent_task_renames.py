"""A held-out set for ``bench/agent_tasks.py`` (``--set renames``), written on 2026-12-03.

Written before a move's source was held, like a file tool's path, to the file the request names
(asked to rename 旧计划.txt, the 0.5B model moved "old_plan.txt"), and run once before and once
after that change, untouched. Two jobs in each of the six languages: a file whose name is in the
language's own script (or has its letters) to rename, and a file to move into a folder. The
change gave 1 → 1 of 12 and was not kept.
"""

from __future__ import annotations

from agent_task_checks import Job, moved


def _renames_jobs() -> list[Job]:
    jobs: list[Job] = []

    def move(job_id: str, lang: str, prompt: str, files: dict[str, str], source: str, destination: str) -> None:
        jobs.append(Job(job_id, lang, "rename", prompt, files, moved(source, destination, files[source]),
                        set="renames"))

    move("r_en_rename", "en", "Rename café_menu.txt to menu.txt.", {"café_menu.txt": "tea\n"}, "café_menu.txt",
         "menu.txt")
    move("r_en_folder", "en", "Move invoice.pdf into the folder paid.", {"invoice.pdf": "%PDF\n", "paid/.keep": ""},
         "invoice.pdf", "paid/invoice.pdf")

    move("r_zh_rename", "zh", "把 会议记录.txt 重命名为 记录.txt", {"会议记录.txt": "周二\n"}, "会议记录.txt", "记录.txt")
    move("r_zh_folder", "zh", "把 照片.png 移到 相册 文件夹里", {"照片.png": "png\n", "相册/.keep": ""}, "照片.png",
         "相册/照片.png")

    move("r_fr_rename", "fr", "Renomme résumé.txt en cv.txt.", {"résumé.txt": "expérience\n"}, "résumé.txt", "cv.txt")
    move("r_fr_folder", "fr", "Range facture.txt dans le dossier compta.", {"facture.txt": "42 €\n", "compta/.keep": ""},
         "facture.txt", "compta/facture.txt")

    move("r_de_rename", "de", "Benenne übersicht.txt in liste.txt um.", {"übersicht.txt": "Punkte\n"}, "übersicht.txt",
         "liste.txt")
    move("r_de_folder", "de", "Verschiebe rechnung.txt in den Ordner belege.",
         {"rechnung.txt": "10 €\n", "belege/.keep": ""}, "rechnung.txt", "belege/rechnung.txt")

    move("r_es_rename", "es", "Renombra año.txt a historial.txt.", {"año.txt": "2024\n"}, "año.txt", "historial.txt")
    move("r_es_folder", "es", "Mueve recibo.txt a la carpeta pagos.", {"recibo.txt": "pagado\n", "pagos/.keep": ""},
         "recibo.txt", "pagos/recibo.txt")

    move("r_ja_rename", "ja", "議事録.txt の名前を メモ.txt に変えて。", {"議事録.txt": "火曜\n"}, "議事録.txt", "メモ.txt")
    move("r_ja_folder", "ja", "写真.png を アルバム フォルダに移動して。", {"写真.png": "png\n", "アルバム/.keep": ""},
         "写真.png", "アルバム/写真.png")
    return jobs


RENAMES_JOBS = _renames_jobs()
