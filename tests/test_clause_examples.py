"""Each clause's examples on its topic page (issue 31): its prose, its doctest lines with
the output they are checked against, a diagram of each position they set up, folded
under the clause's row; run only when the folder is trusted, and saying so when not.

What the page must show is read here from the YAML by a scan of its own (prose lines,
``>>>`` and ``...`` lines, the output lines under them), not from the code under test.
"""
from __future__ import annotations

import html
import re
from collections import Counter
from pathlib import Path

import pytest

from harmony.init import create
from harmony.site import generate, views
from harmony.site.build import build_site
from harmony.site.testing import shipped_site
from harmony.trust import ENV, Trust

ADJACENT = "An adjacent enemy unit spots a unit in woods under every rulebook."
UNTRUSTED = Trust(False, "--untrusted")


@pytest.fixture(autouse=True)
def _trusting(monkeypatch):
    monkeypatch.delenv(ENV, raising=False)


@pytest.fixture(scope="module")
def site():
    return shipped_site()


@pytest.fixture(scope="module")
def model(shipped_model):
    return shipped_model


def scan(examples: str) -> tuple[list[str], list[str], list[str]]:
    """(prose paragraphs, code lines with their prompts, output lines) of an ``examples:`` text."""
    prose: list[str] = []
    code: list[str] = []
    output: list[str] = []
    para: list[str] = []
    in_code = False
    for raw in examples.splitlines() + [""]:
        line = raw.strip()
        if line.startswith((">>>", "...")):
            in_code = True
            code.append(raw.rstrip())
        elif not line:
            in_code = False
        elif in_code:
            output.append(raw.rstrip())
        else:
            para.append(line)
            continue
        if para:
            prose.append(" ".join(para))
            para = []
    return prose, code, output


def test_scan_reads_prose_code_and_output():
    assert scan("One\ntwo.\n\n>>> for x in 1, 2:\n...     print(x)\n1\n2\n\nThree.\n>>> x\n") == (
        ["One two.", "Three."], [">>> for x in 1, 2:", "...     print(x)", ">>> x"], ["1", "2"])


def block(site, model, clause_id: str) -> str:
    """The HTML of a clause's folded examples on its topic page."""
    page = (site.out / f"{views.topic_doc(model.clauses[clause_id].topic)}.html").read_text("utf-8")
    start = page.index(f'<details class="hm-examples" id="examples-{clause_id}">')
    return page[start:page.index("</details>", start)]


def text(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def words(s: str) -> str:
    return " ".join(s.split())


def code_lines(fragment: str) -> list[str]:
    """Every line of the code blocks of a fragment, as a reader sees it."""
    return [line.rstrip() for pre in re.findall(r"<pre>(.*?)</pre>", fragment, re.S)
            for line in text(pre).splitlines()]


def with_examples(model) -> list:
    found = sorted((c for c in model.clauses.values() if c.examples), key=lambda c: c.id)
    assert len(found) > 40
    return found


# ------------------------------------------------------------------ the shipped site
def test_the_adjacent_spotter_sentence_is_under_its_row(site, model):
    page = (site.out / "topics" / "spotting.html").read_text("utf-8")
    shown = block(site, model, "spotting.spotted")
    assert ADJACENT in text(shown)
    # folded right under the clause's row, one click away
    row = page.index('<tr class="hm-row hm-aspect-spotted" id="spotting.spotted">')
    examples_row = page.index('<tr class="hm-examples-row">', row)
    assert row < examples_row < page.index(shown) < page.index("</tr>", examples_row) \
        < page.index('<tr class="hm-row', row + 1)
    assert "<summary>\nExamples: 12 lines checked, 5 diagrams</summary>" in shown


def test_every_clause_s_example_prose_is_on_its_topic_page(site, model):
    for clause in with_examples(model):
        shown = words(text(block(site, model, clause.id)))
        prose = scan(clause.examples)[0]
        assert prose, clause.id
        for para in prose:
            assert words(para) in shown, (clause.id, para)


def test_every_doctest_line_is_shown_with_the_output_it_is_checked_against(site, model):
    for clause in with_examples(model):
        shown = block(site, model, clause.id)
        lines = code_lines(shown)
        code, output = scan(clause.examples)[1:]
        assert code, clause.id
        for line in code + output:
            assert line in lines, (clause.id, line)
        assert "every line ran and printed that output" in shown, clause.id
        assert "hm-example-failed" not in shown and "not run" not in text(shown), clause.id


def test_a_position_an_example_sets_up_is_drawn_after_its_lines(site, model):
    shown = block(site, model, "spotting.spotted")
    first_code, first_svg = shown.index("<pre>"), shown.index("<svg")
    # next_to_it: the gun at B3, the tank at C3 in woods, drawn before the next prose
    assert first_code < first_svg < shown.index("A tank that fires from woods")
    figure = shown[first_svg:shown.index("</figure>", first_svg)]
    assert 'data-hex="C3" data-terrain="woods"' in figure
    assert 'data-unit="gun"' in figure and 'data-unit="tank"' in figure
    assert "The position set up: the Soviet fire phase; woods in C3." in figure
    assert re.search(r'<span class="hm-key-hex">B3</span> <span class="hm-key-kind">GUN</span> gun '
                     r"\(Soviet\)", figure)
    moving = block(site, model, "movement.spotting")
    assert "The position set up: the German movement phase; woods in C3." in moving
    # Combat Patrol's examples ask a calculator: no board is drawn
    assert "<svg" not in block(site, model, "cp-cavalry.shot-at")


def test_each_id_of_the_examples_is_once_on_its_page(site, model):
    """The drawings' ids (their title, description, arrow) are unique on the page: two
    clauses drawing the same position do not share them."""
    checked = 0
    for topic in model.topics_in_order():
        page = (site.out / f"{views.topic_doc(topic.id)}.html").read_text("utf-8")
        every = Counter(re.findall(r'\sid="([^"]+)"', page))
        for clause in (c for c in with_examples(model) if c.topic == topic.id):
            ids = re.findall(r'\sid="([^"]+)"', block(site, model, clause.id))
            checked += len(ids)
            assert [i for i in ids if every[i] != 1] == [], clause.id
    assert checked > 100


def test_the_examples_are_the_same_bytes_from_a_fresh_load(model, shipped_model):
    from harmony.loader import load
    from harmony.usage import default_rules_data
    again, _ = load(default_rules_data())
    for cid in ("spotting.spotted", "interdiction.rule", "cp-night.duration"):
        one = views.examples_view(model, model.clauses[cid], Trust())
        two = views.examples_view(again, again.clauses[cid], Trust())
        assert generate.data(one) == generate.data(two), cid


def test_untrusted_the_lines_are_shown_without_output_and_the_page_says_why(model):
    page = generate.pages(model, trust=UNTRUSTED)["topics/spotting.rst"]
    assert ADJACENT in page
    assert '>>> for rules in \\"PB\\", \\"PL\\", \\"AIW\\", \\"REV\\":' in page
    assert "PB Ruling(value=True, reasons=['spotting.spotted'])" not in page
    assert "Examples: 12 lines, not run" in page and "diagram" not in page.split("hm-examples")[0]
    assert "The examples were not run (built with --untrusted), so no output is shown" in page
    assert '"figures":[]' in page and "<svg" not in page


# ------------------------------------------------------------------ a game of its own
@pytest.fixture
def dice(tmp_path) -> Path:
    rules = tmp_path / "dice"
    create(rules, "dice")
    return rules


def test_the_dice_starter_s_site_shows_its_examples(dice, tmp_path):
    """A game with no recorder and no diagrams: prose, lines and output, no figure."""
    build_site(dice, tmp_path / "site")
    page = (tmp_path / "site" / "topics" / "scoring.html").read_text("utf-8")
    scoring = (dice / "scoring.yaml").read_text("utf-8")
    examples = re.findall(r"examples: \|\n((?:      .*\n|\n)+)", scoring)
    assert len(examples) == 4
    shown = page[page.index('class="hm-examples-row"'):]
    for ex in examples:
        prose, code, output = scan("\n".join(line[6:] for line in ex.splitlines()))
        for para in prose:
            assert words(para) in words(text(shown)), para
        for line in code + output:
            assert line in code_lines(shown), line
    assert "<svg" not in shown.split("</table>")[0]
    assert "every line ran and printed that output" in shown


def test_a_line_that_prints_something_else_is_shown_with_what_it_printed(dice, tmp_path):
    scoring = dice / "scoring.yaml"
    right = "      >>> score(rules(\"TA\"), 6, 6, 2)\n      Ruling(value=14, reasons=['scoring.pair'])\n"
    assert right in scoring.read_text("utf-8")
    scoring.write_text(scoring.read_text("utf-8").replace(right, right.replace("14", "15")), "utf-8")
    build_site(dice, tmp_path / "site")
    page = (tmp_path / "site" / "topics" / "scoring.html").read_text("utf-8")
    shown = page[page.index('id="examples-scoring.pair"'):]
    shown = text(shown[:shown.index("</details>")])
    assert "1 of them printing something else" in shown
    assert "Printed something else when the site was built: >>> score(rules(\"TA\"), 6, 6, 2)" in shown
    assert "the rules expect:\nRuling(value=15, reasons=['scoring.pair'])" in shown
    assert "it printed:\nRuling(value=14, reasons=['scoring.pair'])" in shown


def test_the_dice_site_built_untrusted_shows_no_output(dice, tmp_path):
    build_site(dice, tmp_path / "site", trust=UNTRUSTED)
    page = text((tmp_path / "site" / "topics" / "scoring.html").read_text("utf-8"))
    assert '>>> score(rules("TA"), 6, 6, 2)' in page
    assert "Ruling(value=14" not in page
    assert "The examples were not run (built with --untrusted), so no output is shown" in page


# ------------------------------------------------------------------ in a browser, on a phone
def test_on_a_phone_the_examples_open_in_one_click_and_fit(browser, site, model):
    """At 390 px: folded, the row's examples are one summary line; one click opens them,
    the diagram shows and the page is no wider than the window, with every block open."""
    pytest.importorskip("playwright.sync_api")
    from harmony.site.testing import StaticServer
    with StaticServer(site.out) as url:
        context = browser.new_context(viewport={"width": 390, "height": 800})
        page = context.new_page()
        try:
            page.goto(url + "topics/spotting.html")
            summary = page.locator("[id='examples-spotting.spotted'] > summary")
            assert summary.bounding_box()["height"] < 60
            assert not page.locator("[id='examples-spotting.spotted'] svg").first.is_visible()
            summary.click()
            drawn = page.locator("[id='examples-spotting.spotted'] svg").first
            assert drawn.is_visible()
            box = drawn.bounding_box()
            assert 200 < box["width"] <= 390 and box["height"] > 100
            assert page.get_by_text(ADJACENT).is_visible()
            for topic in model.topics_in_order():
                page.goto(url + f"{views.topic_doc(topic.id)}.html")
                page.evaluate("document.querySelectorAll('details.hm-examples')"
                              ".forEach(d => d.open = true)")
                width = page.evaluate("document.documentElement.scrollWidth")
                assert width <= 390, (topic.id, width)
        finally:
            context.close()


def test_the_recorder_finds_rulings_three_levels_down_and_no_deeper():
    """An example's value is searched for rulings through lists and mappings three levels
    deep (a game's results nest so far), never further: a mutant of the depth lived without
    this test."""
    from harmony.examplerun import Recorder
    from harmony.rulings import Ruling
    found, too_deep = Ruling(True, ["spotting.rule"]), Ruling(False, ["spotting.rule"])
    rec = Recorder()
    rec.add("PB", [{"a": (found,)}])
    rec.add("PB", [[[[too_deep]]]])
    assert rec.rulings == [("PB", found)]
    rec.add("PL", [found])                  # the same ruling is recorded once
    assert rec.rulings == [("PB", found)]


def test_a_game_with_no_recorder_has_what_its_functions_return_recorded(dice):
    """The dice game says nothing of its rulings: each function of its namespace is watched
    instead, so the rulings its examples made are known (the coverage report counts them)."""
    from harmony.examplerun import ran
    from harmony.loader import load
    scoring = dice / "scoring.yaml"
    shown = "      >>> score(rules(\"TA\"), 6, 6, 2)\n      Ruling(value=14, reasons=['scoring.pair'])\n"
    assert shown in scoring.read_text("utf-8")
    # the ruling is neither shown nor kept in a name: only watching the function finds it
    scoring.write_text(scoring.read_text("utf-8").replace(
        shown, "      >>> score(rules(\"TA\"), 6, 6, 2).value\n      14\n"), "utf-8")
    model, report = load(str(dice))
    assert not report.errors
    transcript = ran(model, model.clauses["scoring.pair"])
    assert transcript.ran and not transcript.why and not transcript.failed
    assert any(r.value == 14 and r.reasons == ["scoring.pair"] for _, r in transcript.rulings)


def test_examples_whose_game_cannot_be_loaded_say_why(dice, monkeypatch):
    from harmony import examplerun
    from harmony.loader import load
    model, _ = load(str(dice))

    def cannot(*_args, **_kwargs):
        raise ModuleNotFoundError("No module named 'tumble'")
    monkeypatch.setattr(examplerun, "_namespace", cannot)
    transcript = examplerun.ran(model, model.clauses["scoring.pair"])
    assert transcript.why == "ModuleNotFoundError: No module named 'tumble'" and not transcript.ran
