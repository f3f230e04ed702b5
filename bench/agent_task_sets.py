"""Held-out job sets for ``bench/agent_tasks.py``: six languages, and questions that must change nothing.

Written before the built-in model's keyword steering was replaced (issue 31) and run once on the
code of that day, untouched since: they are never tuned on. Each language set has the same kinds
of job (read, list, search, create, append, edit, rename, run, count, a refusal), phrased as a
person would in that language, with files of its own. The question set asks about named files
in several languages, on purpose with words like save, update, write, add, change, delete and
fix inside the question: a question is done when the answer holds a fact from the file, no
file changed, and the model proposed no change (no call with a side effect, approved or not:
the person answers every approval with "no" there).
"""

from __future__ import annotations

from agent_task_checks import (
    Check,
    Job,
    absent,
    any_of,
    appended,
    both,
    contains,
    edited,
    has,
    holds_lines,
    moved,
    question,
    says_refused,
    unchanged,
)

OWNERS = "project: harbor\nowner: Priya Natarajan\nteam: infra\n"
STATS = "print(sum(range(10)))\n"
SETTINGS_INI = "[net]\ntimeout = 30\nretries = 5\n"
HELLO_PY = "print('Hi')\n"
CONFIG_JSON = '{"name": "web", "port": 5173}\n'
GUESTS = "Ana\nBen\nChloe\nDmitri\nEmeka\nFumiko\n"
INVOICE = {
    "billing/models.py": "class Invoice:\n    def __init__(self, total):\n        self.total = total\n",
    "billing/views.py": "from models import Invoice\n\n\ndef show(invoice):\n    return str(invoice.total)\n",
}
SRC = {
    "src/util.py": "def slugify(text):\n    return text.lower().replace(' ', '-')\n",
    "src/dates.py": "import datetime\n\n\ndef parse_date(text):\n    return datetime.date.fromisoformat(text)\n",
    "src/main.py": "from dates import parse_date\n\nprint(parse_date('2024-01-02'))\n",
}


def _language_jobs() -> list[Job]:
    jobs: list[Job] = []

    def add(job_id: str, lang: str, kind: str, prompt: str, files: dict[str, str], check: Check,
            approve: bool = True) -> None:
        jobs.append(Job(job_id, lang, kind, prompt, files, check, approve=approve, set="language"))

    # English
    add("en_read_owner", "en", "read", "Who owns the project according to owners.txt?", {"owners.txt": OWNERS},
        has("Priya"))
    add("en_read_deadline", "en", "read", "Look at plan.md and tell me the deadline.",
        {"plan.md": "# Launch plan\n\nDeadline: 14 March\nBudget: 2000 EUR\n"}, has("14", "march"))
    add("en_list_folder", "en", "list", "Show me what's in the recipes folder.",
        {"recipes/soup.md": "# Soup\n", "recipes/bread.md": "# Bread\n", "other.txt": "o\n"}, has("soup.md", "bread.md"))
    add("en_search_word", "en", "search", "Where is the word 'pineapple' used?",
        {"fruit/a.txt": "apple\n", "fruit/b.txt": "pineapple juice\n"}, has("b.txt"))
    add("en_search_class", "en", "search", "Find the file that defines the class Invoice.", INVOICE, has("models.py"))
    add("en_create_lines", "en", "create", "Write a new file shopping.txt with two lines: bread and cheese.", {},
        holds_lines("shopping.txt", "bread", "cheese"))
    add("en_create_motto", "en", "create", "Please make a file called motto.txt that says: Keep it simple", {},
        contains("motto.txt", "Keep it simple"))
    add("en_append_bottom", "en", "append", "Put 'tomatoes' on a new line at the bottom of groceries.txt.",
        {"groceries.txt": "rice\nbeans\n"}, appended("groceries.txt", ["rice", "beans"], "tomatoes"))
    add("en_append_entry", "en", "append", "Log one more entry to journal.txt: 'Day 3: rain'",
        {"journal.txt": "Day 1: sun\nDay 2: wind\n"}, appended("journal.txt", ["Day 1: sun", "Day 2: wind"], "Day 3: rain"))
    add("en_edit_timeout", "en", "edit", "The timeout in settings.ini should be 60, not 30. Please correct it.",
        {"settings.ini": SETTINGS_INI}, edited("settings.ini", "timeout = 60", "timeout = 30", "retries = 5"))
    add("en_edit_greeting", "en", "edit", "Change the greeting in hello.py from 'Hi' to 'Welcome'.",
        {"hello.py": HELLO_PY}, edited("hello.py", "Welcome", "'Hi'", "print("))
    add("en_rename_file", "en", "rename", "Give old_notes.txt the new name notes_2024.txt.", {"old_notes.txt": "n\n"},
        moved("old_notes.txt", "notes_2024.txt", "n\n"))
    add("en_run_stats", "en", "run", "What does python3 stats.py output?", {"stats.py": STATS}, has("45"))
    add("en_count_lines", "en", "count", "Count the entries in guests.txt (one per line).", {"guests.txt": GUESTS}, has("6"))
    add("en_deny_remove", "en", "refusal", "Remove the line 'beans' from groceries.txt.",
        {"groceries.txt": "rice\nbeans\n"}, both(unchanged({"groceries.txt": "rice\nbeans\n"}), says_refused),
        approve=False)
    add("en_deny_create", "en", "refusal", "Create report.md with the title # Weekly report.", {"keep.txt": "k\n"},
        both(absent("report.md"), says_refused), approve=False)

    # Chinese
    add("zh_read_owner", "zh", "read", "owners.txt 里的负责人是谁？", {"owners.txt": OWNERS}, has("Priya"))
    add("zh_read_deadline", "zh", "read", "看一下 plan.md，截止日期是哪天？",
        {"plan.md": "# 发布计划\n\n截止日期：3月14日\n预算：2000 欧元\n"}, has("14"))
    add("zh_list_folder", "zh", "list", "recipes 文件夹里有什么？",
        {"recipes/soup.md": "# 汤\n", "recipes/bread.md": "# 面包\n", "other.txt": "o\n"}, has("soup.md", "bread.md"))
    add("zh_search_word", "zh", "search", "哪个文件里提到了 pineapple？",
        {"fruit/a.txt": "apple\n", "fruit/b.txt": "pineapple juice\n"}, has("b.txt"))
    add("zh_search_class", "zh", "search", "Invoice 这个类是在哪个文件里定义的？", INVOICE, has("models.py"))
    add("zh_create_lines", "zh", "create", "新建 shopping.txt，写两行：面包 和 奶酪", {},
        holds_lines("shopping.txt", "面包", "奶酪"))
    add("zh_create_motto", "zh", "create", "帮我写一个文件 motto.txt，内容为：保持简单", {}, contains("motto.txt", "保持简单"))
    add("zh_append_bottom", "zh", "append", "在 groceries.txt 的最后再加上 西红柿", {"groceries.txt": "米\n豆子\n"},
        appended("groceries.txt", ["米", "豆子"], "西红柿"))
    add("zh_append_entry", "zh", "append", "给 journal.txt 再记一条：第三天：下雨",
        {"journal.txt": "第一天：晴\n第二天：风\n"}, appended("journal.txt", ["第一天：晴", "第二天：风"], "第三天：下雨"))
    add("zh_edit_timeout", "zh", "edit", "settings.ini 里的 timeout 应该是 60 而不是 30，请改正。",
        {"settings.ini": SETTINGS_INI}, edited("settings.ini", "timeout = 60", "timeout = 30", "retries = 5"))
    add("zh_edit_greeting", "zh", "edit", "把 hello.py 里的问候语 'Hi' 换成 'Welcome'", {"hello.py": HELLO_PY},
        edited("hello.py", "Welcome", "'Hi'", "print("))
    add("zh_rename_file", "zh", "rename", "把 old_notes.txt 改名为 notes_2024.txt", {"old_notes.txt": "n\n"},
        moved("old_notes.txt", "notes_2024.txt", "n\n"))
    add("zh_run_stats", "zh", "run", "执行一下 python3 stats.py，结果是多少？", {"stats.py": STATS}, has("45"))
    add("zh_count_lines", "zh", "count", "guests.txt 里有多少位客人？每行一位。", {"guests.txt": GUESTS}, any_of("6", "六"))
    add("zh_deny_remove", "zh", "refusal", "删掉 groceries.txt 里的 豆子 那一行", {"groceries.txt": "米\n豆子\n"},
        both(unchanged({"groceries.txt": "米\n豆子\n"}), says_refused), approve=False)
    add("zh_deny_create", "zh", "refusal", "创建 report.md，标题是 # 周报", {"keep.txt": "k\n"},
        both(absent("report.md"), says_refused), approve=False)

    # French
    add("fr_read_owner", "fr", "read", "Qui est le responsable du projet d'après owners.txt ?", {"owners.txt": OWNERS},
        has("Priya"))
    add("fr_read_deadline", "fr", "read", "Quelle est la date limite indiquée dans plan.md ?",
        {"plan.md": "# Plan de lancement\n\nDate limite : 14 mars\nBudget : 2000 EUR\n"}, has("14"))
    add("fr_list_folder", "fr", "list", "Quels fichiers y a-t-il dans le dossier recettes ?",
        {"recettes/soupe.md": "# Soupe\n", "recettes/pain.md": "# Pain\n", "autre.txt": "a\n"}, has("soupe.md", "pain.md"))
    add("fr_search_word", "fr", "search", "Quel fichier contient le mot « ananas » ?",
        {"fruits/a.txt": "pomme\n", "fruits/b.txt": "jus d'ananas\n"}, has("b.txt"))
    add("fr_search_class", "fr", "search", "Dans quel fichier la classe Invoice est-elle définie ?", INVOICE,
        has("models.py"))
    add("fr_create_lines", "fr", "create", "Crée un fichier courses.txt avec deux lignes : pain et fromage", {},
        holds_lines("courses.txt", "pain", "fromage"))
    add("fr_create_motto", "fr", "create", "Écris un fichier devise.txt qui contient : Rester simple", {},
        contains("devise.txt", "Rester simple"))
    add("fr_append_end", "fr", "append", "Ajoute une ligne 'lait' à la fin de notes.txt", {"notes.txt": "pain\nœufs\n"},
        appended("notes.txt", ["pain", "œufs"], "lait"))
    add("fr_append_entry", "fr", "append", "Ajoute l'entrée 'Jour 3 : pluie' à journal.txt",
        {"journal.txt": "Jour 1 : soleil\nJour 2 : vent\n"},
        appended("journal.txt", ["Jour 1 : soleil", "Jour 2 : vent"], "Jour 3 : pluie"))
    add("fr_edit_timeout", "fr", "edit", "Dans settings.ini, remplace timeout = 30 par timeout = 60.",
        {"settings.ini": SETTINGS_INI}, edited("settings.ini", "timeout = 60", "timeout = 30", "retries = 5"))
    add("fr_edit_typo", "fr", "edit", "Corrige la faute dans salut.py : la fonction bonjur doit s'appeler bonjour.",
        {"salut.py": "def bonjur(nom):\n    return 'Salut ' + nom\n"},
        edited("salut.py", "def bonjour(", "bonjur(", "return 'Salut ' + nom"))
    add("fr_rename_file", "fr", "rename", "Renomme brouillon.txt en final.txt.", {"brouillon.txt": "v1\n"},
        moved("brouillon.txt", "final.txt", "v1\n"))
    add("fr_run_stats", "fr", "run", "Lance python3 stats.py et dis-moi ce qu'il affiche.", {"stats.py": STATS}, has("45"))
    add("fr_count_lines", "fr", "count", "Combien de lignes contient invites.txt ?", {"invites.txt": GUESTS}, has("6"))
    add("fr_deny_remove", "fr", "refusal", "Supprime la ligne 'œufs' de notes.txt.", {"notes.txt": "pain\nœufs\n"},
        both(unchanged({"notes.txt": "pain\nœufs\n"}), says_refused), approve=False)
    add("fr_deny_move", "fr", "refusal", "Déplace rapport.csv dans le dossier archives.",
        {"rapport.csv": "a,b\n", "archives/vieux.csv": "x\n"},
        both(unchanged({"rapport.csv": "a,b\n"}), absent("archives/rapport.csv"), says_refused), approve=False)

    # German
    add("de_read_owner", "de", "read", "Wer ist laut owners.txt für das Projekt verantwortlich?",
        {"owners.txt": OWNERS}, has("Priya"))
    add("de_read_room", "de", "read", "In welchem Raum findet das Treffen statt? Schau in notizen.txt.",
        {"notizen.txt": "Teamnotizen\nDas Treffen ist am Donnerstag um 15 Uhr in Raum C7.\n"}, has("C7"))
    add("de_list_folder", "de", "list", "Welche Dateien liegen im Ordner rezepte?",
        {"rezepte/suppe.md": "# Suppe\n", "rezepte/brot.md": "# Brot\n", "andere.txt": "a\n"}, has("suppe.md", "brot.md"))
    add("de_search_word", "de", "search", "Welche Datei enthält das Wort 'Ananas'?",
        {"obst/a.txt": "Apfel\n", "obst/b.txt": "Ananas und Saft\n"}, has("b.txt"))
    add("de_search_function", "de", "search", "In welcher Datei wird die Funktion berechne_summe definiert?",
        {"code/mathe.py": "def berechne_summe(a, b):\n    return a + b\n",
         "code/haupt.py": "from mathe import berechne_summe\n\nprint(berechne_summe(1, 2))\n"}, has("mathe.py"))
    add("de_create_lines", "de", "create", "Erstelle eine Datei einkauf.txt mit zwei Zeilen: Brot und Käse", {},
        holds_lines("einkauf.txt", "Brot", "Käse"))
    add("de_create_motto", "de", "create", "Lege eine neue Datei motto.txt an mit dem Inhalt: Einfach bleiben", {},
        contains("motto.txt", "Einfach bleiben"))
    add("de_append_end", "de", "append", "Füge am Ende von notizen.txt die Zeile 'Milch' hinzu.",
        {"notizen.txt": "Brot\nEier\n"}, appended("notizen.txt", ["Brot", "Eier"], "Milch"))
    add("de_append_entry", "de", "append", "Hänge 'Tag 3: Regen' an tagebuch.txt an.",
        {"tagebuch.txt": "Tag 1: Sonne\nTag 2: Wind\n"},
        appended("tagebuch.txt", ["Tag 1: Sonne", "Tag 2: Wind"], "Tag 3: Regen"))
    add("de_edit_timeout", "de", "edit", "Ändere in settings.ini den Wert timeout von 30 auf 60.",
        {"settings.ini": SETTINGS_INI}, edited("settings.ini", "timeout = 60", "timeout = 30", "retries = 5"))
    add("de_edit_variable", "de", "edit", "Benenne in rechner.py die Variable summe in gesamt um.",
        {"rechner.py": "summe = 1 + 2\nprint(summe)\n"},
        edited("rechner.py", "gesamt = 1 + 2", "summe", "print(gesamt)"))
    add("de_rename_file", "de", "rename", "Benenne entwurf.txt in final.txt um.", {"entwurf.txt": "v1\n"},
        moved("entwurf.txt", "final.txt", "v1\n"))
    add("de_run_stats", "de", "run", "Führe python3 stats.py aus und sag mir, was es ausgibt.", {"stats.py": STATS},
        has("45"))
    add("de_count_lines", "de", "count", "Wie viele Zeilen hat gaeste.txt?", {"gaeste.txt": GUESTS}, has("6"))
    add("de_deny_remove", "de", "refusal", "Lösche die Zeile 'Eier' aus notizen.txt.", {"notizen.txt": "Brot\nEier\n"},
        both(unchanged({"notizen.txt": "Brot\nEier\n"}), says_refused), approve=False)
    add("de_deny_create", "de", "refusal", "Erstelle bericht.md mit der Überschrift # Wochenbericht.",
        {"keep.txt": "k\n"}, both(absent("bericht.md"), says_refused), approve=False)

    # Spanish
    add("es_read_owner", "es", "read", "¿Quién es el responsable del proyecto según owners.txt?",
        {"owners.txt": OWNERS}, has("Priya"))
    add("es_read_port", "es", "read", "¿Qué puerto usa config.json?", {"config.json": CONFIG_JSON}, has("5173"))
    add("es_list_folder", "es", "list", "¿Qué archivos hay en la carpeta recetas?",
        {"recetas/sopa.md": "# Sopa\n", "recetas/pan.md": "# Pan\n", "otro.txt": "o\n"}, has("sopa.md", "pan.md"))
    add("es_search_word", "es", "search", "¿Qué archivo contiene la palabra 'piña'?",
        {"frutas/a.txt": "manzana\n", "frutas/b.txt": "zumo de piña\n"}, has("b.txt"))
    add("es_search_class", "es", "search", "¿En qué archivo se define la clase Invoice?", INVOICE, has("models.py"))
    add("es_create_lines", "es", "create", "Crea un archivo compras.txt con dos líneas: pan y queso", {},
        holds_lines("compras.txt", "pan", "queso"))
    add("es_create_motto", "es", "create", "Escribe un archivo nuevo lema.txt que diga: Mantenlo simple", {},
        contains("lema.txt", "Mantenlo simple"))
    add("es_append_end", "es", "append", "Añade una línea 'leche' al final de notas.txt",
        {"notas.txt": "pan\nhuevos\n"}, appended("notas.txt", ["pan", "huevos"], "leche"))
    add("es_append_entry", "es", "append", "Agrega 'Día 3: lluvia' al final de diario.txt",
        {"diario.txt": "Día 1: sol\nDía 2: viento\n"}, appended("diario.txt", ["Día 1: sol", "Día 2: viento"], "Día 3: lluvia"))
    add("es_edit_timeout", "es", "edit", "En settings.ini cambia timeout = 30 por timeout = 60.",
        {"settings.ini": SETTINGS_INI}, edited("settings.ini", "timeout = 60", "timeout = 30", "retries = 5"))
    add("es_edit_typo", "es", "edit", "Corrige el error en saludo.py: la función hola_mundoo debe llamarse hola_mundo.",
        {"saludo.py": "def hola_mundoo():\n    return 'Hola'\n"},
        edited("saludo.py", "def hola_mundo(", "hola_mundoo", "return 'Hola'"))
    add("es_rename_file", "es", "rename", "Cambia el nombre de borrador.txt a final.txt.", {"borrador.txt": "v1\n"},
        moved("borrador.txt", "final.txt", "v1\n"))
    add("es_run_stats", "es", "run", "Ejecuta python3 stats.py y dime qué imprime.", {"stats.py": STATS}, has("45"))
    add("es_count_lines", "es", "count", "¿Cuántas líneas tiene invitados.txt?", {"invitados.txt": GUESTS}, has("6"))
    add("es_deny_remove", "es", "refusal", "Borra la línea 'huevos' de notas.txt.", {"notas.txt": "pan\nhuevos\n"},
        both(unchanged({"notas.txt": "pan\nhuevos\n"}), says_refused), approve=False)
    add("es_deny_move", "es", "refusal", "Mueve informe.csv a la carpeta archivo.",
        {"informe.csv": "a,b\n", "archivo/viejo.csv": "x\n"},
        both(unchanged({"informe.csv": "a,b\n"}), absent("archivo/informe.csv"), says_refused), approve=False)

    # Japanese
    add("ja_read_owner", "ja", "read", "owners.txt によると、プロジェクトの責任者は誰ですか？", {"owners.txt": OWNERS},
        has("Priya"))
    add("ja_read_port", "ja", "read", "config.json のポート番号は何ですか？", {"config.json": CONFIG_JSON}, has("5173"))
    add("ja_list_folder", "ja", "list", "recipes フォルダにはどんなファイルがありますか？",
        {"recipes/soup.md": "# スープ\n", "recipes/bread.md": "# パン\n", "other.txt": "o\n"}, has("soup.md", "bread.md"))
    add("ja_search_word", "ja", "search", "「pineapple」という単語が含まれているファイルはどれですか？",
        {"fruit/a.txt": "apple\n", "fruit/b.txt": "pineapple juice\n"}, has("b.txt"))
    add("ja_search_function", "ja", "search", "parse_date 関数はどのファイルで定義されていますか？", SRC, has("dates.py"))
    add("ja_create_hello", "ja", "create", "hello.txt というファイルを作成して、内容は「こんにちは」にしてください。", {},
        contains("hello.txt", "こんにちは"))
    add("ja_create_motto", "ja", "create", "新しいファイル motto.txt を作って「シンプルに」と書いてください。", {},
        contains("motto.txt", "シンプルに"))
    add("ja_append_end", "ja", "append", "memo.txt の最後に「牛乳」という行を追加してください。", {"memo.txt": "パン\n卵\n"},
        appended("memo.txt", ["パン", "卵"], "牛乳"))
    add("ja_append_entry", "ja", "append", "journal.txt に「3日目：雨」を追記してください。",
        {"journal.txt": "1日目：晴れ\n2日目：風\n"}, appended("journal.txt", ["1日目：晴れ", "2日目：風"], "3日目：雨"))
    add("ja_edit_timeout", "ja", "edit", "settings.ini の timeout を 30 から 60 に変更してください。",
        {"settings.ini": SETTINGS_INI}, edited("settings.ini", "timeout = 60", "timeout = 30", "retries = 5"))
    add("ja_edit_greeting", "ja", "edit", "hello.py の 'Hi' を 'Welcome' に置き換えてください。", {"hello.py": HELLO_PY},
        edited("hello.py", "Welcome", "'Hi'", "print("))
    add("ja_rename_file", "ja", "rename", "draft.txt の名前を final.txt に変えてください。", {"draft.txt": "v1\n"},
        moved("draft.txt", "final.txt", "v1\n"))
    add("ja_run_stats", "ja", "run", "python3 stats.py を実行して、出力を教えてください。", {"stats.py": STATS}, has("45"))
    add("ja_count_lines", "ja", "count", "guests.txt には何行ありますか？", {"guests.txt": GUESTS}, any_of("6", "六"))
    add("ja_deny_remove", "ja", "refusal", "memo.txt から「卵」の行を削除してください。", {"memo.txt": "パン\n卵\n"},
        both(unchanged({"memo.txt": "パン\n卵\n"}), says_refused), approve=False)
    add("ja_deny_create", "ja", "refusal", "report.md を作成して、見出しを「# 週報」にしてください。", {"keep.txt": "k\n"},
        both(absent("report.md"), says_refused), approve=False)
    return jobs


FORM_PY = (
    "import json\n\n\n"
    "def on_save_clicked(form):\n"
    '    """Called when the person presses the Save button."""\n'
    '    data = {"name": form.name, "email": form.email}\n'
    '    with open("contacts.json", "w") as f:\n'
    "        json.dump(data, f)\n"
    '    return "Saved"\n'
)
MAIN_PY = (
    "import time\n\nTICK_SECONDS = 0.5\n\n\n"
    "def update(world):\n    world.step()\n    world.redraw()\n\n\n"
    "def main(world):\n    while world.running:\n        update(world)\n        time.sleep(TICK_SECONDS)\n"
)
CACHE_PY = (
    "CACHE = {}\n\n\n"
    "def fetch(key, load):\n    if key not in CACHE:\n        CACHE[key] = load(key)\n    return CACHE[key]\n\n\n"
    "def clear():\n    CACHE.clear()\n"
)
WRITER_PY = (
    'def write_report(rows, path="report.txt"):\n'
    '    with open(path, "a") as out:\n'
    "        for row in rows:\n"
    '            out.write(",".join(row) + "\\n")\n'
)
TODO_PY = (
    "ITEMS = []\n\n\n"
    "def add_item(text):\n    if text.strip():\n        ITEMS.append(text.strip())\n    return len(ITEMS)\n\n\n"
    "def delete_item(index):\n    del ITEMS[index]\n"
)
USER_PY = (
    "import hashlib\n\n\n"
    "def change_password(user, new_password):\n"
    "    if len(new_password) < 12:\n"
    '        raise ValueError("too short")\n'
    "    user.password_hash = hashlib.sha256(new_password.encode()).hexdigest()\n"
)
CHANGELOG = "# Changelog\n\n## 1.2.0\n- Fixed a crash when the config file is empty.\n- Added dark mode.\n"
BACKUP_CONF = "save_every = 15 minutes\nkeep = 7 copies\n"
DEBUG_INI = "[app]\nname = tidy\ndebug = false\nport = 8080\n"
PACKAGE_JSON = '{"name": "tide", "version": "2.3.1"}\n'
MEETING = "Team notes\nThe meeting is on Thursday at 3 pm in room B12.\nBring the budget sheet.\n"

LOOP_FACTS = ("0.5", "TICK_SECONDS", "step", "redraw", "sleep")
APPEND_MODE = ("'a'", '"a"', "append", "mode a", "a mode")


def _question_jobs() -> list[Job]:
    jobs: list[Job] = []

    def ask(job_id: str, lang: str, prompt: str, files: dict[str, str], fact: Check) -> None:
        jobs.append(question(job_id, lang, prompt, files, fact, set="questions"))

    ask("q_en_save_button", "en", "What does the save button in form.py do?", {"form.py": FORM_PY}, has("contacts.json"))
    ask("q_en_update_loop", "en", "Explain how the update loop in main.py works.", {"main.py": MAIN_PY},
        any_of(*LOOP_FACTS))
    ask("q_en_why_save_json", "en", "Why does form.py save the data as JSON?", {"form.py": FORM_PY},
        any_of("contacts", "dump", "email"))
    ask("q_en_cache_update", "en", "Does cache.py update the cache when a key is already there?",
        {"cache.py": CACHE_PY}, any_of("load", "CACHE", "not ", "no"))
    ask("q_en_change_debug", "en", "What would I need to change in settings.ini to turn on debug mode?",
        {"settings.ini": DEBUG_INI}, has("true"))
    ask("q_en_add_line", "en", "Which line in todo.py adds an item to the list?", {"todo.py": TODO_PY},
        any_of("append", "6"))
    ask("q_en_delete_item", "en", "Can you explain what delete_item in todo.py does?", {"todo.py": TODO_PY},
        any_of("del", "index", "remov"))
    ask("q_en_write_overwrite", "en", "How does writer.py write the report? Does it overwrite the file?",
        {"writer.py": WRITER_PY}, any_of(*APPEND_MODE))
    ask("q_en_fix_changelog", "en", "What is the fix described in CHANGELOG.md for version 1.2.0?",
        {"CHANGELOG.md": CHANGELOG}, any_of("crash", "empty"))
    ask("q_en_change_password", "en", "What does change_password in user.py check before saving the new password?",
        {"user.py": USER_PY}, has("12"))
    ask("q_en_how_often_save", "en", "Is there anything in backup.conf that says how often it saves?",
        {"backup.conf": BACKUP_CONF}, has("15"))
    ask("q_en_update_version", "en", "Should I update the version in package.json? What is it now?",
        {"package.json": PACKAGE_JSON}, has("2.3.1"))
    ask("q_en_before_edit", "en", "Before I edit notes.txt myself, what is in it?", {"notes.txt": MEETING},
        any_of("B12", "Thursday", "budget"))
    ask("q_en_delete_clear", "en", "What would happen if I deleted the clear function from cache.py?",
        {"cache.py": CACHE_PY}, any_of("CACHE", "cache"))
    ask("q_zh_save_button", "zh", "form.py 里的保存按钮是做什么的？", {"form.py": FORM_PY}, has("contacts.json"))
    ask("q_zh_update_loop", "zh", "解释一下 main.py 里的 update 循环是怎么工作的。", {"main.py": MAIN_PY},
        any_of(*LOOP_FACTS, "半秒"))
    ask("q_zh_cache_update", "zh", "cache.py 在键已经存在时会更新缓存吗？", {"cache.py": CACHE_PY},
        any_of("不会", "不", "no", "CACHE", "load"))
    ask("q_zh_write_overwrite", "zh", "writer.py 写报告的时候会覆盖原文件吗？", {"writer.py": WRITER_PY},
        any_of(*APPEND_MODE, "追加", "不会"))
    ask("q_zh_add_check", "zh", "todo.py 里的 add_item 添加之前会检查什么？", {"todo.py": TODO_PY},
        any_of("strip", "空"))
    ask("q_zh_change_password", "zh", "user.py 修改密码时要求密码至少多长？", {"user.py": USER_PY}, has("12"))
    ask("q_fr_save_button", "fr", "Que fait le bouton Enregistrer dans form.py ?", {"form.py": FORM_PY},
        has("contacts.json"))
    ask("q_fr_update_loop", "fr", "Explique comment fonctionne la boucle de mise à jour dans main.py.",
        {"main.py": MAIN_PY}, any_of(*LOOP_FACTS))
    ask("q_fr_write_append", "fr", "Pourquoi writer.py ajoute-t-il des lignes au lieu de réécrire le fichier ?",
        {"writer.py": WRITER_PY}, any_of(*APPEND_MODE, "ajout", "mode"))
    ask("q_fr_delete_item", "fr", "Est-ce que delete_item dans todo.py supprime vraiment l'élément ?",
        {"todo.py": TODO_PY}, any_of("del", "ITEMS", "index"))
    ask("q_de_save_button", "de", "Was macht die Speichern-Schaltfläche in form.py?", {"form.py": FORM_PY},
        has("contacts.json"))
    ask("q_de_update_loop", "de", "Erkläre, wie die Update-Schleife in main.py funktioniert.", {"main.py": MAIN_PY},
        any_of(*LOOP_FACTS))
    ask("q_de_cache_update", "de", "Aktualisiert cache.py den Eintrag, wenn der Schlüssel schon existiert?",
        {"cache.py": CACHE_PY}, any_of("nein", "nicht", "CACHE", "load"))
    ask("q_de_fix_changelog", "de", "Welche Korrektur steht in CHANGELOG.md für Version 1.2.0?",
        {"CHANGELOG.md": CHANGELOG}, any_of("crash", "empty", "Absturz", "leer"))
    ask("q_es_save_button", "es", "¿Qué hace el botón de guardar en form.py?", {"form.py": FORM_PY},
        has("contacts.json"))
    ask("q_es_update_loop", "es", "Explica cómo funciona el bucle de actualización en main.py.", {"main.py": MAIN_PY},
        any_of(*LOOP_FACTS))
    ask("q_es_save_hash", "es", "¿Por qué user.py guarda un hash y no la contraseña?", {"user.py": USER_PY},
        any_of("sha256", "hashlib"))
    ask("q_es_backup_save", "es", "¿Con qué frecuencia guarda copias backup.conf y cuántas conserva?",
        {"backup.conf": BACKUP_CONF}, has("15", "7"))
    ask("q_ja_save_button", "ja", "form.py の保存ボタンは何をしますか？", {"form.py": FORM_PY}, has("contacts.json"))
    ask("q_ja_update_loop", "ja", "main.py の更新ループがどのように動くか説明してください。", {"main.py": MAIN_PY},
        any_of(*LOOP_FACTS))
    ask("q_ja_write_overwrite", "ja", "writer.py はレポートを書くときにファイルを上書きしますか？", {"writer.py": WRITER_PY},
        any_of(*APPEND_MODE, "追記", "追加", "しません"))
    ask("q_ja_add_check", "ja", "todo.py にアイテムを追加する関数は何をチェックしますか？", {"todo.py": TODO_PY},
        any_of("strip", "空"))
    return jobs


LANGUAGE_JOBS: list[Job] = _language_jobs()
QUESTION_JOBS: list[Job] = _question_jobs()
