"""A site ready to publish (issue 31): with the address of the harmony's ``harmony: url``, every
page has its canonical link and link preview, ``sitemap.xml`` lists every page, and the
page for "not found" works at any address; each diagram is also a file of its own. The same
rules give the same bytes. Built from ``harmony init``'s hex starter (small and quick)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from harmony.init import create
from harmony.site.build import build_site
from harmony.site.links import check_links

URL = "https://example.org/rules/"


def with_url(rules: Path, url: str) -> None:
    src = rules / "sources.yaml"
    text = src.read_text("utf-8")
    src.write_text(re.sub(r"(harmony:\n)", rf"\1  url: {url}\n", text, count=1), "utf-8")


@pytest.fixture(scope="module")
def published(tmp_path_factory) -> tuple[Path, Path]:
    """The starter's site built twice, from two copies of the same rules, with an address."""
    work = tmp_path_factory.mktemp("publish")
    sites = []
    for n in (1, 2):
        create(work / f"rules{n}")
        with_url(work / f"rules{n}", URL.rstrip("/"))
        res = build_site(work / f"rules{n}", work / f"site{n}")
        sites.append(res.out)
    return sites[0], sites[1]


def pages(site: Path) -> list[str]:
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html")
                  if not p.relative_to(site).as_posix().startswith(("_", "print/")))


def meta(html: str, prop: str) -> str | None:
    m = re.search(rf'<meta (?:property|name)="{re.escape(prop)}" content="([^"]*)"', html)
    return m.group(1) if m else None


def test_every_page_has_its_canonical_link_and_a_preview(published):
    site, _ = published
    for rel in pages(site):
        html = (site / rel).read_text("utf-8")
        if rel == "404.html":
            assert 'rel="canonical"' not in html or URL + "404.html" in html
            continue
        assert f'<link rel="canonical" href="{URL}{rel}"' in html, rel
        assert meta(html, "og:url") == URL + rel, rel
        assert meta(html, "og:title"), rel
        assert meta(html, "og:site_name"), rel
    topic = (site / "topics" / "spotting.html").read_text("utf-8")
    description = meta(topic, "og:description")
    assert description and len(description) <= 200
    assert meta(topic, "description") == description
    assert description.split()[0] in re.sub(r"<[^>]+>", " ", topic.split('role="main"', 1)[1])


def test_a_page_with_a_diagram_shows_it_in_its_preview(published):
    site, _ = published
    shown = []
    for rel in pages(site):
        html = (site / rel).read_text("utf-8")
        image = meta(html, "og:image")
        figures = re.findall(r'<p class="hm-full-size"><a class="[^"]*" href="([^"]+)"', html)
        if image is None:
            assert not figures, rel
            continue
        assert image.startswith(URL + "_figures/") and image.endswith(".svg")
        assert (site / image[len(URL):]).is_file()
        # the preview is the page's first diagram, the one its first figure opens full size
        assert (site / rel).parent.joinpath(figures[0]).resolve() == (site / image[len(URL):]).resolve()
        shown.append(rel)
    # the worked examples have diagrams, and so has a topic whose clauses carry examples
    assert any(r.startswith("examples/") for r in shown), shown
    assert "topics/spotting.html" in shown, shown


def test_the_sitemap_lists_every_page_and_robots_names_it(published):
    site, _ = published
    listed = re.findall(r"<loc>([^<]+)</loc>", (site / "sitemap.xml").read_text("utf-8"))
    assert listed == sorted(listed)
    expected = {URL + rel for rel in pages(site)} - {URL + "404.html", URL + "search.html", URL + "genindex.html"}
    assert set(listed) == expected
    assert f"Sitemap: {URL}sitemap.xml" in (site / "robots.txt").read_text("utf-8")


def test_the_not_found_page_reads_from_the_root_wherever_it_is_shown(published):
    site, _ = published
    html = (site / "404.html").read_text("utf-8")
    assert f'<base href="{URL}" />' in html
    assert '<meta name="robots" content="noindex" />' in html
    assert "Page not found" in html
    assert 'href="index.html"' in html and 'href="search.html"' in html
    # it is in no contents list
    assert "404.html" not in (site / "index.html").read_text("utf-8")
    assert check_links(site).broken == []


def test_the_same_rules_give_the_same_bytes(published):
    one, two = published
    files = sorted(p.relative_to(one).as_posix() for p in one.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(two).as_posix() for p in two.rglob("*") if p.is_file())
    for rel in files:
        if rel.endswith((".html", ".xml", ".txt", ".svg")):
            assert (one / rel).read_bytes() == (two / rel).read_bytes(), rel


def test_without_an_address_nothing_claims_one(tmp_path):
    create(tmp_path / "rules")
    site = build_site(tmp_path / "rules", tmp_path / "site").out
    assert not (site / "sitemap.xml").exists() and not (site / "robots.txt").exists()
    html = (site / "404.html").read_text("utf-8")
    assert "<base " not in html
    index = (site / "index.html").read_text("utf-8")
    assert 'rel="canonical"' not in index and meta(index, "og:url") is None and meta(index, "og:title")
    # a site that had an address and lost it keeps no stale sitemap
    with_url(tmp_path / "rules", URL)
    build_site(tmp_path / "rules", tmp_path / "site")
    assert (site / "sitemap.xml").is_file()
    (tmp_path / "rules" / "sources.yaml").write_text(
        re.sub(r"  url: .*\n", "", (tmp_path / "rules" / "sources.yaml").read_text("utf-8"), count=1), "utf-8")
    build_site(tmp_path / "rules", tmp_path / "site")
    assert not (site / "sitemap.xml").exists()
