"""Ranked search in every language: look-alike skills written in German, French, Japanese,
Chinese and English, on the same jobs, each found by a request in its own language."""

# ruff: noqa: RUF001  (the skills are written with their languages' own punctuation)
from __future__ import annotations

import pytest

from skills_core.context import rank_skills
from skills_core.context._words import LANGUAGES, Languages, search_terms, skill_language
from skills_core.tools import SkillTools
from tests.context.catalogs import Skills, catalog_of, skill


def written(name: str, language: str, description: str, body: str) -> str:
    return skill(name, description, body, frontmatter=f"metadata:\n  language: {language}")


SKILLS = {
    "rechnungen-pruefen": written(
        "rechnungen-pruefen",
        "de",
        "Prüft eingehende Rechnungen auf Beträge, Steuersätze und Fälligkeiten und erstellt "
        "eine Zusammenfassung für die Buchhaltung.",
        "Lies jede Rechnung vollständig. Vergleiche den Nettobetrag mit der Bestellung, "
        "prüfe den Umsatzsteuersatz (19 % oder 7 %) und das Zahlungsziel. Melde Abweichungen "
        "mit Rechnungsnummer und Lieferant.",
    ),
    "besprechungsprotokoll": written(
        "besprechungsprotokoll",
        "de",
        "Schreibt aus den Notizen einer Besprechung ein Protokoll mit Beschlüssen und Aufgaben.",
        "Gliedere das Protokoll nach Tagesordnungspunkten. Jede Aufgabe bekommt einen "
        "Verantwortlichen und ein Datum; Beschlüsse stehen wörtlich da.",
    ),
    "factures-fournisseurs": written(
        "factures-fournisseurs",
        "fr",
        "Vérifie les factures des fournisseurs : montants, TVA et échéances, puis prépare un "
        "résumé pour la comptabilité.",
        "Lis chaque facture en entier. Compare le montant hors taxes avec le bon de commande, "
        "contrôle le taux de TVA et la date d'échéance. Signale les écarts au fournisseur.",
    ),
    "compte-rendu-reunion": written(
        "compte-rendu-reunion",
        "fr",
        "Rédige le compte rendu d'une réunion à partir des notes : décisions, tâches et "
        "responsables.",
        "Classe les points par ordre du jour. Chaque tâche a un responsable et une échéance ; "
        "les décisions sont citées telles quelles.",
    ),
    "seikyusho-check": written(
        "seikyusho-check",
        "ja",
        "受け取った請求書の金額、消費税、支払期日を確認し、経理向けの要約を作成します。",
        "請求書を最後まで読み、発注書の金額と照合します。消費税率（10％または8％）と"
        "支払期日を確認し、差異があれば請求書番号と取引先を報告します。",
    ),
    "gijiroku": written(
        "gijiroku",
        "ja",
        "会議のメモから、決定事項と担当者付きの議事録を作成します。",
        "議題ごとに整理し、各タスクに担当者と期限を付けます。決定事項はそのまま記載します。",
    ),
    "fapiao-check": written(
        "fapiao-check",
        "zh",
        "核对供应商发票的金额、增值税和付款期限，并为财务部门生成摘要。",
        "完整阅读每张发票，将金额与采购订单核对，检查增值税税率和付款期限，"
        "发现差异时注明发票号码和供应商。",
    ),
    "huiyi-jiyao": written(
        "huiyi-jiyao",
        "zh",
        "根据会议笔记整理会议纪要，列出决定事项、任务和负责人。",
        "按议程整理内容，每项任务注明负责人和截止日期，决定事项照原文记录。",
    ),
    "invoice-review": skill(
        "invoice-review",
        "Checks incoming invoices for amounts, tax rates and due dates and writes a summary "
        "for accounting.",
        "Read every invoice in full. Compare the net amount with the purchase order, check the "
        "VAT rate and the payment terms. Report differences with invoice number and supplier.",
    ),
    "meeting-minutes": skill(
        "meeting-minutes",
        "Turns meeting notes into minutes with decisions, action items and owners.",
        "Group the notes by agenda item. Every action item gets an owner and a date; decisions "
        "are quoted as they were taken.",
    ),
}

REQUESTS = [
    ("Kannst du diese Rechnung prüfen? Der Steuersatz scheint falsch.", "rechnungen-pruefen"),
    ("Bitte ein Protokoll der Besprechung von heute, mit allen Aufgaben", "besprechungsprotokoll"),
    ("Vérifie cette facture, le taux de TVA me paraît faux", "factures-fournisseurs"),
    ("Rédiger le compte rendu de la réunion d'hier", "compte-rendu-reunion"),
    ("この請求書の消費税を確認してください", "seikyusho-check"),
    ("昨日の会議の議事録を作って", "gijiroku"),
    ("帮我核对这张发票的增值税", "fapiao-check"),
    ("整理今天的会议纪要", "huiyi-jiyao"),
    ("check the VAT rate on this invoice", "invoice-review"),
    ("write up the minutes of our meeting with the action items", "meeting-minutes"),
]


@pytest.mark.parametrize(("request_text", "expected"), REQUESTS)
async def test_a_request_finds_the_skill_of_its_language(request_text: str, expected: str) -> None:
    catalog = await catalog_of(SKILLS)
    assert rank_skills(catalog, request_text)[0].name == expected
    found = await SkillTools(catalog).search_skills(request_text)
    assert found["skills"][0]["name"] == expected


async def test_a_declared_language_stems_the_skills_words() -> None:
    """German "Betrag" meets "Beträge" by the German stem, which English lacks."""
    german = SKILLS["rechnungen-pruefen"]
    undeclared = german.replace("metadata:\n  language: de\n", "")
    for text, found in ((german, ["rechnungen-pruefen"]), (undeclared, [])):
        catalog = await catalog_of({"rechnungen-pruefen": text, "other": SKILLS["gijiroku"]})
        assert [match.name for match in rank_skills(catalog, "Betrag")] == found


async def test_an_edit_that_changes_the_language_reindexes_its_words() -> None:
    skills = Skills({"rechnungen-pruefen": SKILLS["rechnungen-pruefen"]})
    await skills.catalog.refresh()
    assert [m.name for m in rank_skills(skills.catalog, "Betrag")] == ["rechnungen-pruefen"]
    skills.put("rechnungen-pruefen", SKILLS["rechnungen-pruefen"].replace(": de", ": fr"))
    await skills.catalog.refresh()
    assert rank_skills(skills.catalog, "Betrag") == []  # French stems keep "beträg"


@pytest.mark.parametrize(
    ("metadata", "language"),
    [
        ({}, "english"),
        ({"language": "de"}, "german"),
        ({"language": " DE-at "}, "german"),
        ({"language": "pt_BR"}, "portuguese"),
        ({"language": "ja"}, "english"),  # no Snowball stemmer: bigrams pass unstemmed
        ({"language": "german"}, "english"),  # a code, not a name
    ],
)
def test_the_language_is_an_iso_639_1_code(metadata: dict[str, str], language: str) -> None:
    assert skill_language(metadata) == language


def test_an_english_catalog_stems_requests_as_before() -> None:
    """One language: a request's terms are exactly its English terms (ranking unchanged)."""
    languages = Languages()
    languages.add("english", [])
    text = "Forms, forming and deployments: please deploy the PDF forms"
    assert languages.query_terms(text, held=pytest.fail) == search_terms(text)


def test_every_language_code_names_a_snowball_stemmer() -> None:
    import snowballstemmer

    assert set(LANGUAGES.values()) <= set(snowballstemmer.algorithms())
