"""The built-in model's intent step alone: what it states for requests whose intent is known.

    python bench/intent_probe.py [--threads N] [--only LANG,LANG] [--held-out [guide|belief|after]]

Each request goes through the same step an exchange starts with (``providers/local/intent``:
the system prompt and tool list of a fresh workspace, the request, the question), and the
stated intent is compared with the expected one. Printed: each request with what was stated
and the seconds it took, then the share right per language and the confusions. The requests
are the tuning set of the step: the base jobs of ``agent_tasks.py`` and requests of its own in
French, German, Spanish and Japanese — never the held-out sets (``agent_task_sets.py``).
``--held-out`` probes the step's own held-out requests (``HELD_OUT``) instead; ``--held-out belief``
the second held-out set (``HELD_OUT_BELIEF``), ``--held-out after`` the third (``HELD_OUT_AFTER``).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from echo_desk.agent.model import ChatMessage
from echo_desk.agent.prompts import system_message
from echo_desk.agent.scope import Scope
from echo_desk.runtime import Runtime
from echo_desk.store.settings import SettingsStore

#: What each kind of base job asks for (the kinds "multi" and "refusal" are read per job).
KIND_INTENT = {"read": "question", "list": "question", "search": "question", "count": "question", "question": "question",
               "summarise": "question", "create": "create", "append": "append", "edit": "edit",
               "rename": "move", "run": "run"}
JOB_INTENT = {"bump_version": "edit", "greet_name": "create", "deny_edit": "edit", "deny_create": "create",
              "zh_deny": "edit", "ho_deny_append": "append", "ho2_deny_rename": "move", "ho3_deny_write": "create"}

#: Requests of the tuning set in the languages the base jobs do not have.
OWN = [
    ("fr", "question", "Que contient le fichier budget.md ?"),
    ("fr", "question", "Explique ce que fait la fonction enregistrer dans app.py."),
    ("fr", "edit", "Dans app.cfg, mets le niveau de log à debug."),
    ("fr", "append", "Rajoute 'beurre' tout en bas de liste.txt"),
    ("fr", "create", "Crée un fichier bonjour.txt qui contient Bonjour"),
    ("fr", "move", "Déplace photo.png dans le dossier images."),
    ("fr", "run", "Exécute ls et dis-moi ce qui s'affiche."),
    ("de", "question", "Was steht in der Datei budget.md?"),
    ("de", "question", "Warum speichert app.py die Daten zweimal?"),
    ("de", "edit", "Ersetze in app.cfg den Port 80 durch 8080."),
    ("de", "append", "Schreib 'Butter' ans Ende von liste.txt"),
    ("de", "create", "Mach eine neue Datei hallo.txt mit dem Text Hallo"),
    ("de", "move", "Verschiebe foto.png in den Ordner bilder."),
    ("de", "run", "Starte python3 app.py und zeig mir die Ausgabe."),
    ("es", "question", "¿Qué dice el archivo presupuesto.md?"),
    ("es", "question", "¿Actualiza app.py la caché al guardar?"),
    ("es", "edit", "En app.cfg pon el nivel de log en debug."),
    ("es", "append", "Pon 'mantequilla' al final de lista.txt"),
    ("es", "create", "Haz un archivo hola.txt que diga Hola"),
    ("es", "move", "Pasa foto.png a la carpeta imagenes."),
    ("es", "run", "Corre ls y dime qué muestra."),
    ("ja", "question", "budget.md には何が書いてありますか？"),
    ("ja", "question", "app.py の保存処理はなぜ二回書き込むのですか？"),
    ("ja", "edit", "app.cfg のポートを 80 から 8080 に直してください。"),
    ("ja", "append", "list.txt の末尾に「バター」を足してください。"),
    ("ja", "create", "hello.txt を新しく作って「やあ」と書いてください。"),
    ("ja", "move", "photo.png を images フォルダに移してください。"),
    ("ja", "run", "ls を実行して結果を見せてください。"),
]

#: A held-out set of the step (``--held-out``), written on 2026-12-03 before the step's guide was
#: changed to tell questions about a script from requests to run it and a file's new name from an
#: edit; run before and after that change, never tuned on. In each language: two questions about
#: what a script or program does (in words of running, saving, deleting), a request to run one,
#: a file to rename, a question about a settings file and an edit of it.
HELD_OUT = [
    ("en", "question", "Does cleanup.py delete the log files or just move them?"),
    ("en", "question", "What happens when I run setup.sh without arguments?"),
    ("en", "run", "Please execute ./check.sh and show me its output."),
    ("en", "move", "Call the file draft_v2.md report.md instead."),
    ("en", "question", "Which port does server.conf use?"),
    ("en", "edit", "In server.conf, switch the port from 8000 to 9000."),
    ("zh", "question", "backup.py 会覆盖旧的备份吗？"),
    ("zh", "question", "运行 install.sh 之前需要准备什么？"),
    ("zh", "run", "帮我跑一下 python3 main.py，看看输出什么。"),
    ("zh", "move", "把 草稿.md 重命名成 报告.md"),
    ("zh", "question", "config.ini 里的超时时间是多少？"),
    ("zh", "edit", "把 config.ini 里的 timeout 改成 30"),
    ("fr", "question", "Le script sauvegarde.sh écrase-t-il les anciennes copies ?"),
    ("fr", "question", "Que se passe-t-il si je lance nettoyer.py deux fois ?"),
    ("fr", "run", "Exécute python3 rapport.py, s'il te plaît."),
    ("fr", "move", "Donne à notes.md le nom journal.md."),
    ("fr", "question", "Quelle langue est définie dans reglages.json ?"),
    ("fr", "edit", "Dans reglages.json, remplace fr par en."),
    ("de", "question", "Löscht aufraeumen.sh auch versteckte Dateien?"),
    ("de", "question", "Was macht die Funktion speichern in daten.py genau?"),
    ("de", "run", "Lass bitte npm test laufen und sag mir, ob alles grün ist."),
    ("de", "move", "Nenne bericht_alt.txt um in bericht.txt."),
    ("de", "question", "Welche Version steht in paket.json?"),
    ("de", "edit", "Ändere in paket.json die Version auf 2.1.0."),
    ("es", "question", "¿Borra limpiar.sh también la carpeta tmp?"),
    ("es", "question", "¿Qué hace el bucle principal de juego.py?"),
    ("es", "run", "Corre python3 prueba.py y cuéntame qué sale."),
    ("es", "move", "Renombra viejo.txt como nuevo.txt."),
    ("es", "question", "¿Cuántas líneas tiene datos.csv?"),
    ("es", "edit", "En ajustes.ini cambia el puerto 21 por 22."),
    ("ja", "question", "cleanup.sh は隠しファイルも削除しますか？"),
    ("ja", "question", "save.py の保存処理は何をしていますか？"),
    ("ja", "run", "python3 check.py を走らせて結果を教えて。"),
    ("ja", "move", "memo.txt を notes.txt という名前にしてください。"),
    ("ja", "question", "settings.json の言語設定は何ですか？"),
    ("ja", "edit", "settings.json の language を en に変えて。"),
]

#: A second held-out set (``--held-out belief``), written on 2026-12-03 before the step read the
#: model's own probabilities of its words (a question against a change); run before and after
#: that change, never tuned on. In each language: three questions about named files in words of
#: changing (save, add, delete, fix, update, write) and three requests that change or run.
#: Run once, with the server's top-20 log-probabilities at the intent word: the step put 27 of
#: 36 on the right side (6 questions called a change, 3 changes called a question); deciding by
#: the side with more probability (the rule fixed beforehand) also put 27 there, so it was not built.
HELD_OUT_BELIEF = [
    ("en", "question", "Where does notes_app.py save the notes when I press Save?"),
    ("en", "question", "Does the fix in patch.diff touch the login code?"),
    ("en", "question", "What gets deleted when reset.py runs?"),
    ("en", "edit", "Fix the typo 'recieve' in mail.txt, it should be 'receive'."),
    ("en", "append", "Put one more line 'buy bread' under the others in list.md."),
    ("en", "delete", "Get rid of old_backup.zip, I don't need it."),
    ("zh", "question", "upload.py 是怎么把文件保存到服务器上的？"),
    ("zh", "question", "add_item 函数往 cart.py 的列表里加了什么？"),
    ("zh", "question", "为什么 sync.js 每次都会删掉缓存？"),
    ("zh", "edit", "把 readme.md 里的 2023 都换成 2024"),
    ("zh", "create", "写一个 notes.md，内容是：明天开会"),
    ("zh", "run", "执行一下 ls -la，把结果给我看"),
    ("fr", "question", "Où est-ce que editeur.py enregistre les brouillons ?"),
    ("fr", "question", "Est-ce que maj.sh met à jour la base de données ?"),
    ("fr", "question", "Qu'est-ce que la fonction supprimer dans panier.py efface ?"),
    ("fr", "edit", "Corrige la faute 'bonjour' en 'Bonjour' dans lettre.txt."),
    ("fr", "append", "Ajoute la ligne 'fromage' à la fin de courses.txt."),
    ("fr", "move", "Range facture.pdf dans le dossier compta."),
    ("de", "question", "Wohin schreibt logger.py seine Meldungen?"),
    ("de", "question", "Aktualisiert update.py auch die Versionsnummer?"),
    ("de", "question", "Was löscht die Funktion clear in speicher.py?"),
    ("de", "edit", "Korrigiere in brief.txt das Wort 'Hallo' zu 'Guten Tag'."),
    ("de", "create", "Leg eine Datei todo.md an mit dem Inhalt '- einkaufen'."),
    ("de", "run", "Führ bitte python3 zaehlen.py aus."),
    ("es", "question", "¿Dónde guarda notas.py los cambios?"),
    ("es", "question", "¿Qué añade la función agregar en tienda.py?"),
    ("es", "question", "¿Por qué borrar.sh elimina también los logs?"),
    ("es", "edit", "Corrige 'ola' por 'hola' en saludo.txt."),
    ("es", "append", "Añade 'pan' como última línea de compra.txt."),
    ("es", "delete", "Elimina el archivo viejo.log."),
    ("ja", "question", "editor.py はどこにファイルを保存しますか？"),
    ("ja", "question", "fix.py はどのバグを直していますか？"),
    ("ja", "question", "cleanup.py を実行すると何が消えますか？"),
    ("ja", "edit", "letter.txt の「こんにちわ」を「こんにちは」に直して。"),
    ("ja", "append", "shopping.txt の最後に「牛乳」を追加して。"),
    ("ja", "move", "report.pdf を archive フォルダへ移動して。"),
]


#: A third held-out set (``--held-out after``), written on 2026-12-07 before the intent step was
#: asked to restate the request before its intent (and to say whether its answer is words or a
#: file change); run once before and once after, never tuned on. In each language: three
#: questions about named files in natural phrasing (what a function is for, how something works,
#: whether a script changes things) and two requests that change or run.
#: Run once before, with the step as it was: 27 of 30 (two questions stated as a command, a rename
#: as an edit). Neither change was kept (each was worse on the tuning requests), so it was not
#: run after: it is still unseen by any change to the step.
HELD_OUT_AFTER = [
    ("en", "question", "Can you tell me what the clear_cache function in helpers.py is for?"),
    ("en", "question", "When does autosave.js write to disk?"),
    ("en", "question", "Is there anything in release.sh that removes files?"),
    ("en", "edit", "In title.txt, change 'Draft' to 'Final'."),
    ("en", "delete", "Please remove the file scratch.tmp."),
    ("zh", "question", "storage.py 里的 write_record 是干什么用的？"),
    ("zh", "question", "merge.py 合并时会改动原来的文件吗？"),
    ("zh", "question", "请解释一下 editor.js 的撤销功能是怎么实现的"),
    ("zh", "append", "在 待办.txt 最后加一行：买牛奶"),
    ("zh", "run", "运行 python3 report_gen.py 然后告诉我结果"),
    ("fr", "question", "À quoi sert la méthode sauvegarder dans compte.py ?"),
    ("fr", "question", "Comment fonctionne la mise à jour des scores dans jeu.js ?"),
    ("fr", "question", "Est-ce que purge.py supprime aussi les archives ?"),
    ("fr", "edit", "Dans carte.txt, remplace « soupe » par « salade »."),
    ("fr", "create", "Écris un fichier merci.txt avec le texte « Merci à tous »."),
    ("de", "question", "Wozu dient die Methode schreiben in notiz.py?"),
    ("de", "question", "Erklär mir, wie der Export in bericht.py funktioniert."),
    ("de", "question", "Überschreibt kopieren.sh vorhandene Dateien?"),
    ("de", "move", "Benenne skizze.txt in final.txt um."),
    ("de", "append", "Häng die Zeile 'Milch' unten an vorrat.txt an."),
    ("es", "question", "¿Para qué sirve la función guardar_todo en gestor.py?"),
    ("es", "question", "Explícame cómo se actualiza el contador en web.js."),
    ("es", "question", "¿El script respaldo.sh borra las copias antiguas?"),
    ("es", "edit", "En ajustes.yaml cambia debug: true por debug: false."),
    ("es", "delete", "Borra el archivo basura.txt, por favor."),
    ("ja", "question", "exporter.py の save_all 関数は何をするものですか？"),
    ("ja", "question", "sync.sh はサーバーのファイルを上書きしますか？"),
    ("ja", "question", "app.js の削除ボタンの処理を教えてください。"),
    ("ja", "create", "aisatsu.txt を作って「おはよう」と書いてください。"),
    ("ja", "edit", "server.toml の port を 3000 から 4000 に変えてください。"),
]


def cases(held_out: str | None = None) -> list[tuple[str, str, str]]:
    if held_out:
        return {"guide": HELD_OUT, "belief": HELD_OUT_BELIEF, "after": HELD_OUT_AFTER}[held_out]
    from agent_tasks import JOBS

    base = [(j.lang, JOB_INTENT.get(j.id) or KIND_INTENT[j.kind], j.prompt) for j in JOBS]
    return base + OWN


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--only", default="", help="comma-separated languages")
    parser.add_argument("--held-out", nargs="?", const="guide", choices=("guide", "belief", "after"), default=None,
                        help="a held-out set instead: guide (HELD_OUT, the default), belief (HELD_OUT_BELIEF) "
                             "or after (HELD_OUT_AFTER)")
    args = parser.parse_args()

    from echo_desk.providers.local.default_model import default_model_path
    from echo_desk.providers.local.intent import StatedIntent
    from echo_desk.providers.local.profiles import get_profile
    from echo_desk.providers.local.provider import LocalModel
    from echo_desk.providers.local.structured import plain_tool_results, state_intent

    chosen = [c for c in cases(args.held_out) if not args.only or c[0] in args.only.split(",")]
    with tempfile.TemporaryDirectory(prefix="intent-probe-") as home:
        runtime = Runtime.create(settings_store=SettingsStore.in_dir(Path(home) / "config"),
                                 data_dir=Path(home) / "data", with_plugins=False)
        model = LocalModel(default_model_path(), get_profile(runtime.settings.current.local_model.profile),
                           threads=args.threads)
        client = await model.ensure_started()
        scope = Scope(label="probe", workspace_roots=(Path(home),))
        tools = model.offered(runtime.schema_factory.definitions(scope))  # as the model is offered them
        right: Counter[str] = Counter()
        total: Counter[str] = Counter()
        confusions: Counter[tuple[str, str]] = Counter()
        seconds: list[float] = []
        try:
            for lang, expected, prompt in chosen:
                messages = [system_message(scope), ChatMessage(role="user", content=prompt)]
                stated: list[StatedIntent] = []
                began = time.monotonic()
                async for _event in state_intent(client, plain_tool_results(messages), tools, stated):
                    pass  # progress only
                seconds.append(time.monotonic() - began)
                # A question may be stated as any of its kinds (look, list, search, answer).
                got = "question" if stated[0].intent.is_question else stated[0].intent.value
                total[lang] += 1
                right[lang] += got == expected
                if got != expected:
                    confusions[(expected, got)] += 1
                print(f"{'ok ' if got == expected else 'BAD'} {lang} {expected:>8} -> {got:<8} "
                      f"{stated[0].target[:24]!r:<26} {seconds[-1]:4.1f}s | {prompt[:70]}", flush=True)
        finally:
            await model.aclose()
            runtime.close()
    for lang in total:
        print(f"{lang}: {right[lang]}/{total[lang]}")
    print(f"all: {sum(right.values())}/{sum(total.values())}; median {statistics.median(seconds):.1f} s per step")
    # What becomes a change proposal in an exchange: a question stated as anything but a question.
    print(f"questions stated as a change or a command: "
          f"{sum(c for (expected, _), c in confusions.items() if expected == 'question')}")
    for (expected, got), count in confusions.most_common():
        print(f"  {expected} -> {got}: {count}")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
