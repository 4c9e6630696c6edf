"""A harmony's identity is its own: the title, authors, copyright, address and language
of its ``harmony:`` section reach the site's configuration, its front page, its cards and
``harmony --help``; a site built from ``harmony init`` holds no word of the shipped
harmony, and the shipped harmony keeps its own."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from pypdf import PdfReader

from harmony.init import create
from harmony.loader import load
from harmony.site.build import build_site
from harmony.site.generate import conf_overrides, hand_pages
from harmony.usage import default_rules_data

ROOT = Path(__file__).resolve().parent.parent
#: the shipped harmony's words, none of which a new harmony's site may hold
SHIPPED_WORDS = ("PanzerBlitz", "Panzer Leader", "Arab-Israeli", "Combat Patrol", "PanzerBitz",
                 "Avalon Hill", "Dunnigan")


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    env.pop("HARMONY_DEBUG", None)
    return subprocess.run([sys.executable, "-m", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)


def every_text(folder: Path) -> dict[str, str]:
    """Every file of a built site as text: HTML, JS, CSS and the rest as UTF-8 (bytes
    that are not are dropped), the PDFs by their extracted text and metadata."""
    out = {}
    for p in sorted(folder.rglob("*")):
        if not p.is_file():
            continue
        if p.suffix == ".pdf":
            reader = PdfReader(p)
            meta = " ".join(str(v) for v in (reader.metadata or {}).values())
            out[str(p)] = meta + "\n" + "\n".join(page.extract_text() or "" for page in reader.pages)
        else:
            out[str(p)] = p.read_bytes().decode("utf-8", "ignore")
    return out


@pytest.fixture(scope="module")
def new_site(tmp_path_factory) -> Path:
    """The site of a harmony just made by ``harmony init`` (the hex starter)."""
    work = tmp_path_factory.mktemp("identity")
    create(work / "mine")
    build_site(work / "mine", work / "site")
    return work / "site"


def test_a_new_harmony_s_site_holds_no_word_of_the_shipped_harmony(new_site):
    texts = every_text(new_site)
    assert any(name.endswith(".pdf") for name in texts), "the cards' PDF was not built"
    shipped_title = load(default_rules_data())[0].identity.title
    found = {(Path(name).relative_to(new_site).as_posix(), word)
             for name, text in texts.items()
             for word in SHIPPED_WORDS + (shipped_title,) if word in text}
    assert not found, sorted(found)


def test_a_new_harmony_s_site_carries_its_own_identity(new_site):
    index = (new_site / "index.html").read_text("utf-8")
    assert "<title>Hedgerow rules harmony</title>" in index
    assert "The two editions of an invented game, side by side." in index
    assert "Copyright &#169; The harmony&#39;s authors" in index
    cards = (new_site / "print" / "cards.html").read_text("utf-8")
    assert "<title>Hedgerow rules harmony: rule cards</title>" in cards
    pdf = PdfReader(new_site / "print" / "harmony-cards.pdf")
    assert pdf.metadata is not None and pdf.metadata.title == "Hedgerow rules harmony: rule cards"
    # the generator's manuals are the shipped harmony's pages, not every harmony's
    assert not (new_site / "authoring.html").exists()
    assert (new_site / "explorer.html").exists()   # its game (the hex wargame) offers one


def test_the_shipped_harmony_keeps_its_words():
    model = load(default_rules_data())[0]
    assert model.identity.title == "PanzerBlitz rules harmony"
    conf = conf_overrides(model)
    assert conf["project"] == conf["html_title"] == "PanzerBlitz rules harmony"
    assert conf["copyright"] == "the harmony contributors"
    pages = hand_pages(model)
    assert pages["index.rst"].resolve() == (default_rules_data() / "pages" / "index.rst").resolve()
    assert {"authoring.rst", "scenarios.rst", "sources.rst", "explorer.rst"} <= set(pages)
    # the generator's own sources name no harmony
    for p in (ROOT / "site").rglob("*"):
        if p.is_file() and p.suffix in (".py", ".rst", ".js", ".css", ".html"):
            text = p.read_text("utf-8")
            assert not [w for w in SHIPPED_WORDS if w in text], p
    for p in (ROOT / "templates").rglob("*.j2"):
        assert not [w for w in SHIPPED_WORDS if w in p.read_text("utf-8")], p


def test_identity_reaches_the_configuration_and_the_pages(tmp_path):
    rules = tmp_path / "dice"
    create(rules)
    src = rules / "sources.yaml"
    text = src.read_text("utf-8")
    text = re.sub(r"harmony:\n(  .*\n)+", "harmony:\n  title: Les dés\n  subtitle: Deux éditions.\n"
                  "  authors: [Ann, Bo]\n  url: https://example.org/des\n"
                  "  repository: https://example.org/des.git\n  language: fr\n", text)
    src.write_text(text, "utf-8")
    (rules / "pages").mkdir()
    (rules / "pages" / "about.rst").write_text("About us\n========\n\nA page of our own.\n\n"
                                               "See :doc:`nowhere`.\n", "utf-8")
    res = build_site(rules, tmp_path / "site")
    # a warning in a page of its own names that page, not its staged copy
    assert [w for w in res.warnings if w.startswith(f"{rules / 'pages' / 'about.rst'}:6: WARNING: "
                                                     "unknown document")], res.warnings
    index = (tmp_path / "site" / "index.html").read_text("utf-8")
    assert ' lang="fr"' in index.split(">", 2)[1]    # <html ... lang="fr">
    assert "<title>Les dés</title>" in index
    assert "Deux éditions." in index
    assert 'href="https://example.org/des.git"' in index
    assert 'rel="canonical" href="https://example.org/des/index.html"' in index
    assert "&#169; Ann, Bo" in index
    about = (tmp_path / "site" / "about.html").read_text("utf-8")
    assert "A page of our own." in about
    assert 'href="about.html"' in index          # listed in the contents


def test_a_second_identity_is_an_error(tmp_path):
    create(tmp_path / "h")
    (tmp_path / "h" / "more.yaml").write_text("harmony: {title: Another}\n", "utf-8")
    res = run("harmony", "check", "h", cwd=tmp_path)
    assert res.returncode == 1
    # files are read in path order: more.yaml's comes first
    assert re.search(r"h/sources\.yaml:\d+:3: error: a second harmony: mapping \(the first is "
                     r"at h/more\.yaml:1:10\): a harmony has one identity; merge them "
                     r"\[duplicate-id\]", res.stderr), res.stderr


def test_help_speaks_of_the_generator_and_of_the_harmony_here(tmp_path):
    (tmp_path / "empty").mkdir()
    res = run("harmony", "--help", cwd=tmp_path / "empty")
    assert res.returncode == 0
    assert "A generator of rules harmonies" in res.stdout
    assert not [w for w in SHIPPED_WORDS if w in res.stdout], res.stdout
    assert "No harmony in this folder" in res.stdout
    create(tmp_path / "mine")
    res = run("harmony", "--help", cwd=tmp_path / "mine")
    assert "In this folder: Hedgerow rules harmony (rules in this folder)" in " ".join(res.stdout.split())
    assert not [w for w in SHIPPED_WORDS if w in res.stdout]
