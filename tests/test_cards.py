"""Rule cards: the PDF's pages, what each card says, the imposition, and overflow.

The fixture (tests/fixtures/cards/rules_data) has 10 REV cards and 2 PL cards;
tests/fixtures/cards/overflow.yaml adds one card that fits only at a smaller
font and one that fits at no allowed size.
"""
from __future__ import annotations

import importlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pypdf import PdfReader

import harmony
from harmony.cards import CardOverflow, collect, fit, render_html, render_pdf
from harmony.cards.layout import CARD_SIZES, choose, impose
from harmony.check import check_path
from harmony.cli import main
from harmony.loader import load

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "cards"
RULES = FIXTURE / "rules_data"
MM = 72 / 25.4                      # points per mm
A4 = (210 * MM, 297 * MM)
LETTER = (612.0, 792.0)
REV_ORDER = ["spotting.concealing", "spotting.entering", "spotting.concealed-movement",
             "spotting.markers", "spotting.removal", "spotting.turn-end",
             "opfire.trigger", "opfire.modifier", "opfire.firers", "opfire.after"]


def words(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module", autouse=True)
def own_cache(tmp_path_factory):
    """Measure for real here: a cache of our own, empty at the start."""
    with pytest.MonkeyPatch.context() as mp:
        folder = tmp_path_factory.mktemp("cache")
        mp.setenv("HARMONY_CACHE", str(folder))
        yield folder


@pytest.fixture(scope="module")
def model():
    m, report = load(RULES)
    assert not report.errors, report.to_text()
    return m


def cards_pdf(tmp_path_factory, *args) -> tuple[int, PdfReader, Path]:
    out = tmp_path_factory.mktemp("cards") / "cards.pdf"
    code = main(["cards", str(RULES), "--out", str(out), *args])
    return code, (PdfReader(str(out)) if out.exists() else None), out


@pytest.fixture(scope="module")
def fronts(tmp_path_factory):
    code, pdf, out = cards_pdf(tmp_path_factory)
    assert code == 0
    return pdf, out


@pytest.fixture(scope="module")
def duplex(tmp_path_factory):
    code, pdf, out = cards_pdf(tmp_path_factory, "--backs", "--crop-marks", "--paper", "letter")
    assert code == 0
    return pdf, out


@pytest.fixture()
def overflowing(tmp_path):
    folder = tmp_path / "rules_data"
    shutil.copytree(RULES, folder)
    shutil.copy(FIXTURE / "overflow.yaml", folder / "overflow.yaml")
    return folder


# ------------------------------------------------------------------ what a card holds

def test_one_card_per_cell_with_a_card_in_topic_then_aspect_order(model):
    cards = collect(model)                       # default: the revisions (REV)
    assert [c.clause_id for c in cards] == REV_ORDER
    assert {c.ruleset for c in cards} == {"REV"}
    both = collect(model, ["PL", "REV"])
    assert [(c.ruleset, c.clause_id) for c in both[:2]] == [("PL", "spotting.markers"),
                                                             ("PL", "opfire.trigger")]
    assert len(both) == 12


def test_card_text_is_plain_words_with_parameters_printed(model):
    cards = {c.clause_id: c for c in collect(model)}
    trigger = cards["opfire.trigger"]
    assert "an eligible unit sees" in trigger.text       # [[eligible unit]] shown as words
    assert "within 1/2 of its range" in trigger.text    # {{ opfire.range-fraction }} printed
    assert "+1 to the die roll" in cards["opfire.modifier"].text
    for c in cards.values():
        assert not re.search(r"\[\[|\]\]|\{\{|\}\}|\[\^", c.text), c.text


def test_key_numbers_come_from_the_cell_parameters(model):
    cards = {c.clause_id: c for c in collect(model)}
    assert [(k.name, k.value) for k in cards["opfire.trigger"].keys] == [
        ("opfire.activation-fraction", "none"), ("opfire.range-fraction", "1/2"),
        ("opfire.per-firer-per-phase", "1"), ("opfire.overrun-immunity", "yes")]
    assert [(k.label, k.value) for k in cards["opfire.modifier"].keys] == [("Die-roll modifier", "+1")]
    # bools other than the named few and enums are rules, not numbers: no table
    assert cards["spotting.markers"].keys == []
    assert [k.name for k in cards["opfire.after"].keys] == ["opfire.retrace"]


def test_badge_colour_per_ruleset_and_permalink(model):
    rev = collect(model, ["REV"])
    pl = collect(model, ["PL"])
    assert len({c.colour for c in rev}) == 1 and rev[0].colour != pl[0].colour
    assert rev[0].link == "topics/spotting.html#spotting.concealing"
    based = collect(model, ["REV"], site_url="https://example.org/harmony/")
    assert based[0].link == "https://example.org/harmony/topics/spotting.html#spotting.concealing"


# ------------------------------------------------------------------ the PDF

def test_fronts_are_exact_a4_nine_to_a_sheet(fronts, model):
    pdf, _ = fronts
    assert len(pdf.pages) == 2                  # 10 cards, 9 to a sheet
    for page in pdf.pages:
        w, h = float(page.mediabox.width), float(page.mediabox.height)
        assert w == pytest.approx(A4[0], abs=0.01) and h == pytest.approx(A4[1], abs=0.01)
    texts = [words(p.extract_text()) for p in pdf.pages]
    for i, card in enumerate(collect(model)):
        page = texts[i // 9]
        assert card.title in page, card.title
        assert card.clause_id in page
        for k in card.keys:
            assert f"{k.label} {k.value}" in page, (card.clause_id, k)
    assert "Key numbers".upper() in texts[0] or "Key numbers" in texts[0]


def test_backs_follow_each_front_on_exact_letter_paper(duplex, model):
    pdf, _ = duplex
    assert len(pdf.pages) == 4                  # front, back, front, back
    for page in pdf.pages:
        assert (float(page.mediabox.width), float(page.mediabox.height)) == pytest.approx(LETTER, abs=0.01)
    texts = [words(p.extract_text()) for p in pdf.pages]
    assert "Concealing terrain" in texts[0] and "Concealing terrain" not in texts[1]
    assert texts[1].count("harmony rule card".upper()) + texts[1].count("harmony rule card") == 9
    assert texts[3].count("REV") == 1 and "Opportunity fire".upper() in texts[3].upper()


def title_x_mm(page, title: str) -> list[float]:
    """x (mm from the left edge) of each run of text starting with ``title``."""
    found = []

    def visit(text, cm, tm, font, size):
        if text.strip().startswith(title):
            found.append((tm[4] * cm[0] + cm[4]) / MM)
    page.extract_text(visitor_text=visit)
    return found


def test_backs_are_mirrored_in_each_row(tmp_path_factory):
    code, pdf, _ = cards_pdf(tmp_path_factory, "--backs", "--rules", "PL")
    assert code == 0 and len(pdf.pages) == 2
    im = impose("poker", "a4")
    # two PL cards: on the front in columns 0 and 1, on the back in columns 2 and 1
    front = title_x_mm(pdf.pages[0], "Spotted markers")
    assert front == [pytest.approx(im.slot(0).x + 4.8, abs=0.3)]
    xs = sorted(title_x_mm(pdf.pages[1], "PL"))
    centre = [im.slot(i, back=True).x + 63 / 2 for i in (0, 1)]
    assert len(xs) == 2
    assert xs[0] < centre[1] < xs[1] + 20 and xs[1] < centre[0] < xs[1] + 20


def test_bleed_changes_the_grid_and_the_card_position(tmp_path_factory, fronts):
    code, pdf, _ = cards_pdf(tmp_path_factory, "--bleed", "3")
    assert code == 0
    plain, bled = impose("poker", "a4"), choose("poker", "a4", bleed=3)
    assert impose("poker", "a4", bleed=3).per_sheet == 6     # portrait loses a column ...
    assert (plain.per_sheet, bled.per_sheet, bled.landscape) == (9, 8, True)   # ... landscape gains
    assert len(pdf.pages) == 2                   # 10 cards, 8 to a sheet
    assert pdf.pages[0].mediabox.width == pytest.approx(A4[1], abs=0.1)
    x0 = title_x_mm(fronts[0].pages[0], "Concealing terrain")
    x3 = title_x_mm(pdf.pages[0], "Concealing terrain")
    assert x0 == [pytest.approx(plain.slot(0).x + 4.8, abs=0.3)]       # 10.5 mm margin
    assert x3 == [pytest.approx(bled.slot(0).x + 4.8, abs=0.3)]        # margin + 3 mm bleed
    # the ninth card starts the second sheet with bleed, but is on the first without
    assert "After opportunity fire" not in fronts[0].pages[0].extract_text()
    assert "Who may fire" in fronts[0].pages[0].extract_text()
    assert "Who may fire" not in pdf.pages[0].extract_text()


def gray(pdf_path: Path, page: int, dpi: int = 100):
    """Page ``page`` (1-based) rendered by poppler, as a greyscale PIL image."""
    from PIL import Image
    out = pdf_path.with_name(f"p{page}-{dpi}")
    subprocess.run(["pdftoppm", "-r", str(dpi), "-f", str(page), "-l", str(page), "-gray",
                    "-singlefile", str(pdf_path), str(out)], check=True)
    return Image.open(str(out) + ".pgm")


def darkest(img, x_mm: float, y_mm: float, dpi: int = 100, r: int = 2) -> int:
    px, py = round(x_mm / 25.4 * dpi), round(y_mm / 25.4 * dpi)
    return min(img.getpixel((x, y)) for x in range(px - r, px + r + 1) for y in range(py - r, py + r + 1))


def test_crop_marks_and_bleed_show_on_the_printed_page(tmp_path_factory, fronts, duplex):
    plain = gray(fronts[1], 1)
    marked = gray(duplex[1], 1)
    im_a4, im_letter = impose("poker", "a4"), impose("poker", "letter")
    for m in im_letter.crop_marks():
        mid = ((m.x1 + m.x2) / 2, (m.y1 + m.y2) / 2)
        assert darkest(marked, *mid) < 245, m   # a 0.15 mm hairline, grey at 100 dpi
    for m in im_a4.crop_marks():
        assert darkest(plain, (m.x1 + m.x2) / 2, (m.y1 + m.y2) / 2) == 255, m
    # the back sheet has no crop marks
    back = gray(duplex[1], 2)
    m = im_letter.crop_marks()[0]
    assert darkest(back, (m.x1 + m.x2) / 2, (m.y1 + m.y2) / 2) == 255
    # bleed: 1.5 mm outside the trim line the card's colour is printed, without bleed not
    code, _, bled_path = cards_pdf(tmp_path_factory, "--bleed", "3")
    bled = gray(bled_path, 1)
    im_b = choose("poker", "a4", bleed=3)
    y = im_b.slot(0).y + 40
    assert darkest(bled, im_b.slot(0).x - 1.5, y, r=1) < 200
    assert darkest(plain, im_a4.slot(0).x - 1.5, im_a4.slot(0).y + 40, r=1) == 255


def test_same_input_same_bytes(fronts, tmp_path_factory):
    _, _, again = cards_pdf(tmp_path_factory)
    assert again.read_bytes() == fronts[1].read_bytes()


def test_card_sizes_and_usage_errors(tmp_path_factory, capsys):
    code, pdf, _ = cards_pdf(tmp_path_factory, "--size", "tarot", "--rules", "PL")
    assert code == 0 and len(pdf.pages) == 1
    assert CARD_SIZES["tarot"].width == 70 and CARD_SIZES["bridge"].height == 89
    assert main(["cards", str(RULES), "--rules", "XX", "--out", "/nonexistent/x.pdf"]) == 2
    assert "unknown ruleset XX" in capsys.readouterr().err
    assert main(["cards", str(RULES), "--bleed", "-1"]) == 2


def test_no_cards_is_an_error_not_an_empty_pdf(tmp_path, capsys):
    out = tmp_path / "none.pdf"
    assert main(["cards", str(RULES), "--rules", "PB", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert err == (f"harmony cards: no cards to print: no cell of PB (--rules) in {RULES} has a "
                   "card; rulesets with cards: PL, REV\n") and not out.exists()


def test_with_no_rules_every_ruleset_with_cards_is_printed_the_revisions_first(tmp_path, capsys):
    out = tmp_path / "cards.pdf"
    assert main(["cards", str(RULES), "--out", str(out)]) == 0
    assert "12 cards" in capsys.readouterr().out          # REV's 10, then PL's 2
    from harmony.cards.command import default_deck
    assert default_deck(load(RULES)[0]) == ["REV", "PL"]


def test_a_harmony_with_no_revision_prints_its_cards_by_default(tmp_path, capsys):
    """``harmony init``'s harmony has two canonical editions and no revision: its cards print."""
    from harmony.init import create
    rules = tmp_path / "myrules"
    create(rules)
    out = tmp_path / "cards.pdf"
    assert main(["cards", str(rules), "--out", str(out)]) == 0
    assert "2 cards" in capsys.readouterr().out and out.exists()


def test_a_harmony_with_no_card_says_so_and_names_no_ruleset(tmp_path, capsys):
    from harmony.init import create
    rules = tmp_path / "myrules"
    create(rules)
    spotting = rules / "spotting.yaml"
    text = spotting.read_text("utf-8")
    kept = [line for line in text.splitlines(keepends=True)]
    out_lines, skip = [], None
    for line in kept:                 # drop each card: block and its indented lines
        indent = len(line) - len(line.lstrip())
        if skip is not None and (indent > skip or not line.strip()):
            continue
        skip = indent if line.strip() == "card:" else None
        if skip is None:
            out_lines.append(line)
    spotting.write_text("".join(out_lines), "utf-8")
    out = tmp_path / "cards.pdf"
    assert main(["cards", str(rules), "--out", str(out)]) == 1
    assert capsys.readouterr().err == (f"harmony cards: no cards to print: no cell in {rules} "
                                       "has a card (add card: {title, text} to its cells)\n")
    assert main(["cards", str(rules), "--rules", "HA,HB", "--out", str(out)]) == 1
    assert capsys.readouterr().err == (
        f"harmony cards: no cards to print: no cell of HA, HB (--rules) in {rules} has a card; "
        "no ruleset has one there (add card: {title, text} to its cells)\n")
    assert not out.exists()


# ------------------------------------------------------------------ fitting and overflow

def test_long_text_is_set_smaller_down_to_the_minimum(overflowing):
    model, _ = load(overflowing)
    every = collect(model, list(model.sources))   # the set harmony check measures (then cached)
    chosen = {c.clause_id: r.font for c, r in zip(every, fit(every)) if c.ruleset == "REV"}
    steps = CARD_SIZES["poker"].font_steps
    assert chosen["spotting.concealing"] == steps[0]
    assert steps[-1] <= chosen["opfire.squeezed"] < steps[0]
    assert chosen["opfire.too-long"] is None


def test_check_reports_an_overflowing_card_at_its_text(overflowing, capsys):
    _, report = check_path(overflowing)
    found = [d for d in report.diagnostics if d.code == "card-overflow"]
    assert len(found) == 1
    lines = (overflowing / "overflow.yaml").read_text().splitlines()
    line = next(i for i, t in enumerate(lines, 1) if t.strip() == "text: |-")
    assert found[0].pos.path.endswith("overflow.yaml") and found[0].pos.line == line
    assert "opfire.too-long@REV" in found[0].message and "7 pt" in found[0].message
    assert main(["check", str(overflowing)]) == 1
    assert f"overflow.yaml:{line}:" in capsys.readouterr().err


def test_check_path_alone_finds_the_overflow(overflowing):
    """What harmony check reports does not depend on what else was imported: in a fresh
    interpreter that imports only harmony.check, the card check runs too."""
    script = ("import sys\nfrom harmony.check import check_path\n"
              "_, report = check_path(sys.argv[1])\n"
              "print(sorted(d.code for d in report.errors))\n")
    env = dict(os.environ, PYTHONPATH=str(Path(harmony.__file__).resolve().parent.parent))
    done = subprocess.run([sys.executable, "-c", script, str(overflowing)], env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['card-overflow']"


def test_cards_refuses_to_print_an_overflowing_card(overflowing, tmp_path, capsys):
    out = tmp_path / "cards.pdf"
    assert main(["cards", str(overflowing), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "overflow.yaml:" in err and "[card-overflow]" in err and "nothing written" in err
    assert not out.exists()
    model, _ = load(overflowing)
    with pytest.raises(CardOverflow):
        render_pdf(model)


def test_the_shipped_fixture_passes_check():
    _, report = check_path(RULES)
    assert not report.errors, report.to_text()


# ------------------------------------------------------------------ the HTML page

def test_render_html_is_a_printable_page_with_every_card(model, overflowing):
    html = render_html(model, ["REV"])
    assert html.startswith("<!DOCTYPE html>")
    assert "size: 210mm 297mm" in html and ".card {" in html          # the PDF's stylesheet
    assert html.count('class="card front"') == 10
    for card in collect(model):
        assert card.title in html
    bad, _ = load(overflowing)
    page = render_html(bad)                      # shown whole and flagged, never cut
    assert page.count('class="card front overflow"') == 1


# ------------------------------------------------------------------ the measuring cache

def test_a_measured_set_is_remembered_until_a_card_changes(model, tmp_path, monkeypatch):
    fitmod = importlib.import_module("harmony.cards.fit")
    monkeypatch.setenv("HARMONY_CACHE", str(tmp_path))
    cards = collect(model)[:2]   # laid out (bound=False): the cache of layouts is what is tested
    first = fit(cards, bound=False)
    assert len(list(tmp_path.glob("cards-fit/sets/*.json"))) == 1 and not list(tmp_path.glob("*.json"))
    calls = []
    real = fitmod.measure
    monkeypatch.setattr(fitmod, "measure", lambda *a: calls.append(a) or real(*a))
    assert fit(cards, bound=False) == first and calls == []            # remembered: no layout
    cards[0].text += " One more sentence."
    again = fit(cards, bound=False)
    assert calls and again[0].measure.needed >= first[0].measure.needed
    monkeypatch.setenv("HARMONY_CACHE", "off")
    calls.clear()
    fit(cards, bound=False)
    assert calls                                          # off: always measured


def test_the_measuring_cache_stays_bounded(model, tmp_path, monkeypatch):
    """The cards and sets remembered are pruned, the oldest written first, beyond
    MAX_ENTRIES; the sets an older harmony kept at the top of the cache are removed then,
    and nothing else there."""
    fitmod = importlib.import_module("harmony.cards.fit")
    monkeypatch.setenv("HARMONY_CACHE", str(tmp_path))
    monkeypatch.setattr(fitmod, "MAX_ENTRIES", 5)
    fits = fit(collect(model)[:1], bound=False)
    shutil.rmtree(tmp_path / "cards-fit")
    old_set = tmp_path / f"cards-fit-{'ab' * 32}.json"
    others = [tmp_path / "cards-fit-notes.json", tmp_path / f"cards-fit-{'ab' * 32}.json.bak",
              tmp_path / "parsed" / "ab" / f"{'ab' * 32}.json"]
    for p in [old_set, *others]:
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("[]", encoding="utf-8")
    cards = [f"c{i:x}1{'f' * 61}" for i in range(8)]          # none of them prunes
    for i, key in enumerate(cards):
        fitmod._card_write(key, fits[0])
        os.utime(fitmod._card_path(key), (1_000 + i, 1_000 + i))   # written in this order
    assert len(list(tmp_path.glob("cards-fit/*/*.json"))) == 8
    fitmod._card_write(f"dd00{'e' * 60}", fits[0])               # one card in 256 prunes
    kept = {p.name.removesuffix(".json") for p in tmp_path.glob("cards-fit/*/*.json")}
    assert kept == {*cards[4:], f"dd00{'e' * 60}"}
    assert fitmod._card_read(cards[7]) == fits[0] and fitmod._card_read(cards[0]) is None
    assert old_set.exists()                                      # only a set's prune removes them
    fitmod._cache_write(f"ee1{'0' * 61}", fits)                  # not one set in 16
    assert old_set.exists() and fitmod._cache_read(f"ee1{'0' * 61}", 1) == fits
    assert len(list(tmp_path.glob("cards-fit/*/*.json"))) == 6   # nor pruned
    fitmod._cache_write(f"ee0{'0' * 61}", fits)
    assert not old_set.exists() and all(p.exists() for p in others)
    assert fitmod._cache_read(f"ee0{'0' * 61}", 1) == fits
    assert len(list(tmp_path.glob("cards-fit/*/*.json"))) == 5   # pruned again, sets with cards


def test_a_changed_card_is_measured_alone(model, tmp_path, monkeypatch):
    """The cache is per card: in a set with one card changed, only that card is laid out
    again, and every card's fit is what measuring the whole set afresh gives."""
    fitmod = importlib.import_module("harmony.cards.fit")
    monkeypatch.setenv("HARMONY_CACHE", str(tmp_path))
    cards = collect(model)[:4]
    fit(cards, bound=False)
    calls: list = []
    real = fitmod.measure
    monkeypatch.setattr(fitmod, "measure", lambda c, *a: calls.append(c) or real(c, *a))
    cards[2].text += " One more sentence, and then another, to make it longer."
    again = fit(cards, bound=False)
    assert calls and all(c is cards[2] for batch in calls for c in batch)
    assert again == fit(cards, cache=False, bound=False)
    calls.clear()
    assert fit(cards, bound=False) == again and calls == []            # the new set: remembered whole


def test_a_head_too_long_is_an_overflow_too(model):
    cards = collect(model, ["PL"])[:1]
    assert fit(cards, cache=False)[0].fits
    cards[0].ruleset_name = "A short name that is far too long for the head of any card"
    result = fit(cards, cache=False)[0]
    assert not result.fits and not result.measure.head_fits


def test_a_site_url_too_long_for_the_foot_is_refused_once(tmp_path, capsys):
    out = tmp_path / "cards.pdf"
    url = "https://example.org/" + "a-very-long-path/" * 8
    assert main(["cards", str(RULES), "--site-url", url, "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.count("--site-url") == 1 and "12 card(s)" in err and not out.exists()


# ------------------------------------------------------------------ coverage: every rule on a card

def _drop_card(folder: Path, clause: str, replacement: str = "") -> None:
    """Remove the first card: block after ``- id: clause`` (replace it by ``replacement``)."""
    path = folder / "spotting.yaml"
    lines = path.read_text(encoding="utf-8").split("\n")
    start = next(i for i, l in enumerate(lines) if l.strip() == f"- id: {clause}")
    at = next(i for i in range(start, len(lines)) if lines[i].strip() == "card:")
    indent = len(lines[at]) - len(lines[at].lstrip())
    end = at + 1
    while end < len(lines) and (len(lines[end]) - len(lines[end].lstrip()) > indent):
        end += 1
    lines[at:end] = [replacement] if replacement else []
    path.write_text("\n".join(lines), encoding="utf-8")


def test_a_rule_cell_without_a_card_makes_check_warn(tmp_path):
    folder = tmp_path / "rules_data"
    shutil.copytree(RULES, folder)
    _drop_card(folder, "spotting.removal")
    _, report = check_path(folder)
    missing = [d for d in report.warnings if d.code == "card-missing"]
    assert [d.message.split(" ")[0] for d in missing] == ["spotting.removal@REV"]
    assert missing[0].pos.path.endswith("spotting.yaml") and missing[0].pos.line > 1


def test_card_none_with_a_reason_silences_it_and_see_must_name_a_card(tmp_path):
    folder = tmp_path / "rules_data"
    shutil.copytree(RULES, folder)
    _drop_card(folder, "spotting.removal", "        card: {none: On the Spotted markers card., "
                                           "see: spotting.markers}")
    _, report = check_path(folder)
    assert not [d for d in report.diagnostics if d.code.startswith("card-")], report.to_text()
    text = (folder / "spotting.yaml").read_text(encoding="utf-8")
    (folder / "spotting.yaml").write_text(text.replace("see: spotting.markers}",
                                                      "see: spotting.nowhere}"), encoding="utf-8")
    _, report = check_path(folder)
    assert [d.code for d in report.errors] == ["card-see"]
    assert "spotting.nowhere names no clause" in report.errors[0].message


def test_the_rev_deck_holds_the_rules_a_player_needs():
    m, report = load(Path(harmony.__file__).resolve().parent.parent / "rules_data")
    titles = {c.title for c in collect(m, ["REV"])}
    assert {"Overrun immunity", "Retracing", "No retracing (tournament)",
            "Units with movement allowance 1", "Revealed movement",
            "Placing markers (tournament)", "Spotting in the open"} <= titles


# ------------------------------------------------------------------ nothing cut: width too

def test_a_70_letter_word_is_refused_with_its_position(tmp_path, capsys):
    folder = tmp_path / "rules_data"
    shutil.copytree(RULES, folder)
    word = "Panzer" + "blitz" * 12 + "ing"          # 6 + 60 + 3 ... 69 letters, plus one
    word += "s"
    assert len(word) == 70
    path = folder / "spotting.yaml"
    lines = path.read_text(encoding="utf-8").split("\n")
    start = next(i for i, l in enumerate(lines) if l.strip() == "- id: spotting.removal")
    at = next(i for i in range(start, len(lines)) if lines[i].strip().startswith("text:")
              and lines[i - 1].strip().startswith("title:"))
    lines.insert(at + 1, "            " + word + " and more words.")
    path.write_text("\n".join(lines), encoding="utf-8")
    _, report = check_path(folder)
    errors = [d for d in report.errors if d.code == "card-overflow"]
    assert len(errors) == 1, report.to_text()
    assert errors[0].pos.line == at + 2 and errors[0].pos.col == 13   # the word itself
    assert "(70 characters)" in errors[0].message and "width of a poker card" in errors[0].message
    out = tmp_path / "cards.pdf"
    assert main(["cards", str(folder), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"spotting.yaml:{at + 2}:13: error: spotting.removal@REV: the word" in err
    assert not out.exists()


def test_a_word_that_fits_once_the_font_shrinks_is_set_smaller(model):
    cards = collect(model, ["REV"])[:1]
    cards[0].text = "Units " + "x" * 32 + " here."
    result = fit(cards, "poker", cache=False)[0]
    assert result.fits and result.font < CARD_SIZES["poker"].font_steps[0]
    assert result.measure.width_needed <= result.measure.width_available


# ------------------------------------------------------------------ print guidance

PX_MM = 25.4 / 96


def black_rects(page) -> list[tuple[float, float, float, float]]:
    """The black filled rectangles of a WeasyPrint page (x, y, w, h in mm from the top left):
    its crop marks. WeasyPrint draws in CSS pixels under a y-flip, so no other matrix applies."""
    lines = page.get_contents().get_data().decode("latin-1").split("\n")
    colour, out = None, []
    for i, line in enumerate(lines):
        if line.endswith(" rg"):
            colour = line
        elif line.endswith(" re") and colour == "0 0 0 rg" and i + 1 < len(lines) \
                and lines[i + 1] == "f":
            x, y, w, h = (float(v) * PX_MM for v in line.split()[:4])
            out.append((x, y, w, h))
    return out


def test_crop_marks_with_bleed_have_length_on_every_trim_line(tmp_path_factory):
    code, pdf, _ = cards_pdf(tmp_path_factory, "--bleed", "3", "--crop-marks")
    assert code == 0
    im = choose("poker", "a4", bleed=3, crop_marks=True)
    assert (im.cols, im.rows, im.gap_x, im.gap_y) == (4, 2, 0.0, 6.0)   # white between rows
    rects = black_rects(pdf.pages[0])
    assert rects and all(w > 0 and h > 0 for _, _, w, h in rects)
    vertical = [(x + w / 2, y, y + h) for x, y, w, h in rects if h > w]
    horizontal = [(y + h / 2, x, x + w) for x, y, w, h in rects if w > h]
    xs, ys = im.trim_lines()
    top, bottom = im.margin_y, im.paper.height - im.margin_y
    left, right = im.margin_x, im.paper.width - im.margin_x
    for x in xs:   # every vertical cut: above the grid, below it, and in the gap between rows
        on = [(a, b) for cx, a, b in vertical if abs(cx - x) < 0.1]
        assert any(b <= top and b - a >= 2 for a, b in on), x
        assert any(a >= bottom and b - a >= 2 for a, b in on), x
        assert len([1 for a, b in on if top < a and b < bottom and b - a >= 2]) == im.rows - 1, x
    for y in ys:   # every horizontal cut: left and right of the grid
        on = [(a, b) for cy, a, b in horizontal if abs(cy - y) < 0.1]
        assert any(b <= left and b - a >= 2 for a, b in on), y
        assert any(a >= right and b - a >= 2 for a, b in on), y
    assert len(rects) == len(im.crop_marks()) == 2 * len(xs) + 2 * len(ys) + len(xs)


def test_a6_prints_four_to_an_a4_sheet(tmp_path_factory):
    code, pdf, _ = cards_pdf(tmp_path_factory, "--size", "a6")
    assert code == 0
    assert len(pdf.pages) == 3                               # 10 cards, 4 to a sheet
    assert (float(pdf.pages[0].mediabox.width), float(pdf.pages[0].mediabox.height)) == \
        pytest.approx(A4, abs=0.1)
    text = pdf.pages[0].extract_text()
    assert all(t in text for t in ("Concealing terrain", "Who is spotted", "Concealed movement",
                                   "Spotted markers"))
    im = choose("a6", "a4")
    assert im.per_sheet == 4 and im.edge_to_edge and "4 a6 cards" in im.describe()
    assert CARD_SIZES["a6"].safe >= 5          # its words stay out of the printer's margin


def test_a6_with_crop_marks_chooses_a_layout_with_room_and_says_so(tmp_path_factory, capsys):
    code, pdf, _ = cards_pdf(tmp_path_factory, "--size", "a6", "--crop-marks")
    assert code == 0
    assert "layout: 2 a6 cards to a landscape a4 sheet (2 x 1)" in capsys.readouterr().out
    assert float(pdf.pages[0].mediabox.width) == pytest.approx(A4[1], abs=0.1)


def test_no_room_for_crop_marks_is_refused_in_plain_words(tmp_path, capsys, monkeypatch):
    from harmony.cards import layout
    snug = layout.Paper("snug", 64, 89, "64mm 89mm")     # one poker card, 0.5 mm to spare
    with pytest.raises(ValueError, match="no margin for crop marks"):
        choose("poker", snug, crop_marks=True, min_margin=0)
    assert choose("poker", snug, min_margin=0).per_sheet == 1     # fine without marks
    monkeypatch.setitem(layout.PAPERS, "snug", snug)
    out = tmp_path / "cards.pdf"
    code = main(["cards", str(RULES), "--crop-marks", "--paper", "snug", "--margin", "0",
                 "--out", str(out)])
    assert code == 2 and not out.exists()
    err = capsys.readouterr().err
    assert "no margin for crop marks" in err and "leave out --crop-marks" in err


def test_the_pdf_asks_not_to_be_scaled_and_says_how_to_print(fronts):
    prefs = fronts[0].trailer["/Root"]["/ViewerPreferences"]
    assert prefs["/PrintScaling"] == "/None" and prefs["/Duplex"] == "/DuplexFlipLongEdge"
    assert "Print at 100%" in fronts[0].pages[0].extract_text()
    assert "flip on the long edge" in words(fronts[0].pages[0].extract_text())


# ------------------------------------------------------------------ feet

def test_every_card_foot_carries_the_full_link_at_6pt(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HARMONY_SITE_URL", "https://example.org/h")
    out = tmp_path / "cards.pdf"
    assert main(["cards", str(RULES), "--out", str(out)]) == 0
    text = words(" ".join(p.extract_text() for p in PdfReader(str(out)).pages)).replace(" ", "")
    for cid in REV_ORDER:
        assert "https://example.org/h/topics/" in text and f"#{cid}" in text, cid
    css = (Path(harmony.__file__).parent.parent / "templates" / "cards" / "cards.css").read_text()
    foot = re.search(r"\.foot-flow \{[^}]*font-size: ([0-9.]+)pt", css)
    assert float(foot.group(1)) >= 6
    monkeypatch.setenv("HARMONY_SITE_URL", "example.org")
    assert main(["cards", str(RULES), "--out", str(out)]) == 2
    assert "must be a full web address" in capsys.readouterr().err


# ------------------------------------------------------------------ exports

def test_png_and_tts_exports_have_the_right_pixel_sizes(tmp_path, capsys):
    from PIL import Image
    out = tmp_path / "cards.pdf"
    code = main(["cards", str(RULES), "--bleed", "3", "--out", str(out), "--png",
                 str(tmp_path / "png"), "--tts", str(tmp_path / "tts" / "deck"), "--dpi", "150"])
    assert code == 0
    pngs = sorted((tmp_path / "png").glob("*.png"))
    assert [p.name for p in pngs][:2] == ["001-REV-spotting.concealing.png",
                                          "002-REV-spotting.entering.png"]
    assert len(pngs) == 12 and pngs[-1].name.startswith("012-PL-")   # the revision first
    # trim plus bleed: 69 x 94 mm at 150 dpi
    assert {Image.open(p).size for p in pngs} == {(round(69 / 25.4 * 150), round(94 / 25.4 * 150))}
    faces = Image.open(tmp_path / "tts" / "deck.png")
    backs = Image.open(tmp_path / "tts" / "deck-back.png")
    # 12 cards plus the hidden-card place: 10 x 2 poker cards at trim size
    assert faces.size == backs.size == (10 * round(63 / 25.4 * 150) + 0 * 1 or faces.size[0],
                                        faces.size[1])
    assert faces.size == (round(630 / 25.4 * 150), round(176 / 25.4 * 150))
    # the hidden-card place (last, bottom right) holds a back: the ruleset's colour
    w, h = faces.size
    assert faces.convert("RGB").getpixel((w - 20, h - 20)) != (255, 255, 255)
    assert "10 wide x 2 high" in capsys.readouterr().out


def test_tts_sheets_hold_at_most_69_cards():
    from harmony.cards.exports import tts_grid
    assert tts_grid(69) == (10, 7) and tts_grid(1) == (2, 1)


# ------------------------------------------------------------------ arguments

def test_rules_takes_keys_and_never_the_path(tmp_path, capsys):
    out = tmp_path / "cards.pdf"
    assert main(["cards", "--rules", "PL", str(RULES), "--out", str(out)]) == 0
    assert "2 cards" in capsys.readouterr().out
    assert main(["cards", "--rules", "REV,PL", str(RULES), "--out", str(out)]) == 0
    assert "12 cards" in capsys.readouterr().out
    assert main(["cards", "--rules", "REV", "--rules", "PL", str(RULES), "--out", str(out)]) == 0
    assert "12 cards" in capsys.readouterr().out


@pytest.mark.parametrize("option, value", [("--bleed", "nan"), ("--bleed", "inf"),
                                           ("--bleed", "-1"), ("--margin", "-0.5"),
                                           ("--dpi", "0"), ("--dpi", "lots")])
def test_every_bad_number_is_a_usage_error_in_plain_words(tmp_path, capsys, option, value):
    out = tmp_path / "cards.pdf"
    assert main(["cards", str(RULES), option, value, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{option} must be a number of" in err and f"not '{value}'" in err
    assert "Traceback" not in err and not out.exists()


def test_an_unwritable_output_is_refused_before_rendering(tmp_path, capsys, monkeypatch):
    import harmony.cards as cards_pkg
    monkeypatch.setattr(cards_pkg, "pdf_html", lambda *a, **k: pytest.fail("rendered"))
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["cards", str(RULES), "--out", str(blocker / "cards.pdf")]) == 2
    assert "is not a folder" in capsys.readouterr().err
    assert main(["cards", str(RULES), "--out", str(tmp_path)]) == 2
    assert "is a folder" in capsys.readouterr().err


def test_a_missing_output_folder_is_made_and_said(tmp_path, capsys):
    out = tmp_path / "new" / "deep" / "cards.pdf"
    assert main(["cards", str(RULES), "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert f"made folder {tmp_path / 'new'}" in said and f"made folder {out.parent}" in said
    assert out.exists()


def test_a_card_key_follows_every_printed_value_and_nothing_else(model, tmp_path, monkeypatch):
    """A card's fit key is made from its printed values (no HTML rendered for it): any
    value that prints changes it; the cell it came from, which never prints, does not."""
    from dataclasses import replace

    from harmony.cards.collect import KeyNumber
    fitmod = importlib.import_module("harmony.cards.fit")
    monkeypatch.setenv("HARMONY_CACHE", str(tmp_path))
    card = collect(model)[0]
    key = fitmod._card_keys([card], "poker")[0]
    assert fitmod._card_keys([replace(card, cell=None)], "poker")[0] == key
    for name, value in (("title", card.title + "!"), ("ruleset_name", "Other"),
                        ("keys", card.keys + [KeyNumber("n", "N", "1")]),
                        ("status", "tournament"), ("option", "x")):
        assert fitmod._card_keys([replace(card, **{name: value})], "poker")[0] != key, name
    assert fitmod._card_keys([card], "tarot")[0] != key
