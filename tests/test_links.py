"""No broken links: every internal href and #anchor of the built site resolves (the crawler is
:mod:`harmony.site.links`, which ``harmony build --check-links`` runs too)."""
from __future__ import annotations

import shutil

from harmony.cli import main
from harmony.site.build import CACHE
from harmony.site.links import Page, check_links
from harmony.site.testing import shipped_site


def test_every_internal_link_and_anchor_resolves():
    result = check_links(shipped_site().out, skip=(CACHE,))
    assert result.checked > 200
    assert result.broken == []


def test_the_link_checker_sees_a_broken_anchor(tmp_path):
    """The checker itself: a page with one good and one bad anchor."""
    page = Page()
    page.feed('<p id="a">x</p><a href="#a">ok</a><a href="#b">bad</a>')
    assert [link for link in page.links if link[1:] not in page.ids] == ["#b"]
    (tmp_path / "p.html").write_text('<p id="a">x</p><a href="#a">ok</a><a href="#b">bad</a>'
                                     '<a href="q.html#a">no file</a><img src="i.png">')
    assert check_links(tmp_path).broken == ["p.html: #b (no anchor)", "p.html: q.html#a (no file)",
                                            "p.html: i.png (no file)"]


def test_build_check_links_names_the_broken_links(tmp_path, capsys, monkeypatch):
    """``harmony build --check-links``: clean on the shipped site; a page broken after the build is
    named, with its link, and the exit code is 1."""
    out = tmp_path / "site"
    shutil.copytree(shipped_site().out, out)
    monkeypatch.chdir(tmp_path)
    assert main(["build", "--out", "site", "--check-links"]) == 0
    said = capsys.readouterr().out
    assert "internal link(s)" in said and "none broken" in said
    page = out / "glossary.html"
    page.write_text(page.read_text("utf-8").replace("</body>",
                    '<a href="topics/spotting.html#no-such-row">x</a><a href="nowhere.html">y</a></body>'),
                    "utf-8")
    from harmony.site.command import _report_links
    assert _report_links(out) == 1
    err = capsys.readouterr().err
    assert f"{out}/glossary.html: topics/spotting.html#no-such-row (no anchor)" in err
    assert f"{out}/glossary.html: nowhere.html (no file)" in err
    assert "2 broken link(s)" in err
