"""Stemming: PyStemmer (Snowball in C) and snowballstemmer's pure Python give the same stems."""

# ruff: noqa: RUF001  (sample sentences in their own scripts and punctuation)

from __future__ import annotations

import importlib

import pytest
import Stemmer
from hypothesis import given, settings
from hypothesis import strategies as st

from skills_core.context._words import LANGUAGES, search_tokens
from tests.support.examples import examples

SAMPLES = """
The deployments were running; forms, forming, queries and generously relational nationalities.
Die Übersetzungen der Rechnungen wurden geprüft; Beträge, Fälligkeiten, Straße, Häuser.
Les factures des fournisseurs ont été vérifiées ; réunions, décisions, échéances, responsables.
Las facturas fueron revisadas por los proveedores; reuniones, decisiones y responsabilidades.
Le fatture dei fornitori sono state controllate; riunioni, decisioni, responsabilità.
As faturas dos fornecedores foram verificadas; reuniões, decisões e responsabilidades.
De facturen van de leveranciers zijn gecontroleerd; vergaderingen, beslissingen.
Fakturorna från leverantörerna har kontrollerats; möten, beslut och ansvariga.
Счета поставщиков были проверены; совещания, решения, ответственные лица.
Οι λογαριασμοί των προμηθευτών ελέγχθηκαν· συναντήσεις, αποφάσεις, υπεύθυνοι.
Tedarikçilerin faturaları kontrol edildi; toplantılar, kararlar, sorumlular, İstanbul'da.
تم التحقق من فواتير الموردين؛ الاجتماعات والقرارات والمسؤولون.
आपूर्तिकर्ताओं के चालानों की जाँच की गई; बैठकें, निर्णय और जिम्मेदार लोग।
Faktury dostawców zostały sprawdzone; spotkania, decyzje, odpowiedzialni.
Toimittajien laskut tarkistettiin; kokoukset, päätökset ja vastuuhenkilöt.
Szállítói számlák ellenőrizve; értekezletek, döntések, felelősök.
Faktury dodavatelů byly zkontrolovány; schůzky, rozhodnutí, odpovědní.
Hankijate arved kontrolliti; koosolekud, otsused ja vastutajad.
Tiekėjų sąskaitos patikrintos; susitikimai, sprendimai, atsakingi asmenys.
Պատասխանատուները ստուգեցին մատակարարների հաշիվները։
Hornitzaileen fakturak egiaztatu dira; bilerak, erabakiak, arduradunak.
சப்ளையர்களின் விலைப்பட்டியல்கள் சரிபார்க்கப்பட்டன; கூட்டங்கள், முடிவுகள்.
בוודאי יידישע ווערטער און זאַכן.
Rachunki i fakturi dobavljača su provereni; sastanci, odluke, odgovorni.
"""
WORDS = sorted(set(search_tokens(SAMPLES)))


def pure(language: str) -> object:
    """snowballstemmer's pure-Python stemmer of ``language`` (what runs without PyStemmer)."""
    module = importlib.import_module(f"snowballstemmer.{language}_stemmer")
    return getattr(module, language.title().replace("_", "") + "Stemmer")()


@pytest.mark.parametrize("language", sorted(set(LANGUAGES.values())))
def test_both_stemmers_give_the_same_stems(language: str) -> None:
    stems = pure(language).stemWords(WORDS)  # type: ignore[attr-defined]
    assert stems == Stemmer.Stemmer(language).stemWords(WORDS)
    assert len(set(stems)) > len(WORDS) // 2  # most words are stems of their own


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.text(st.sampled_from(SAMPLES), min_size=1, max_size=14), max_size=20))
def test_both_stemmers_agree_on_generated_words(words: list[str]) -> None:
    tokens = search_tokens(" ".join(words))
    for language in sorted(set(LANGUAGES.values())):
        assert pure(language).stemWords(tokens) == Stemmer.Stemmer(language).stemWords(tokens)
