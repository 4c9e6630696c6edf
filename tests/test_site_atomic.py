"""Builds that cannot be stale or torn: the cache beside the output, one build at a time,
the site swapped in whole, a killed build leaving the previous site as it was."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harmony.site import build as build_module
from harmony.site.build import cache_dir, publish, recover

ROOT = Path(__file__).resolve().parent.parent


def snapshot(out: Path) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file()}


def run_build(rules: Path, out: Path, **kw) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.Popen([sys.executable, "-m", "harmony", "build", str(rules), "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, **kw)


def retitle(rules: Path, title: str) -> None:
    topics = rules / "topics.yaml"
    text = topics.read_text("utf-8")
    topics.write_text(text.replace("title: Spotting\n", f"title: {title}\n", 1), encoding="utf-8")


@pytest.fixture(scope="session")    # (each worker's own copy: its tests may run on any worker)
def rules(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("atomic") / "rules_data"
    shutil.copytree(ROOT / "rules_data", dest)
    return dest


@pytest.fixture(scope="module")    # (so its tests run on one worker, which builds it once)
def clean_site(rules, tmp_path_factory) -> Path:
    """The site of one build of :func:`rules` as shipped, by itself, into a folder of its own
    (``build/site``): what the tests below look into or compare with."""
    out = tmp_path_factory.mktemp("clean") / "build" / "site"
    p = run_build(rules, out)
    _, err = p.communicate(timeout=600)
    assert p.returncode == 0, err
    return out


def test_the_output_holds_the_site_and_no_cache(clean_site):
    names = {part for rel in snapshot(clean_site) for part in rel.split("/")}
    assert "index.html" in names
    assert not names & {".harmony-cache", "doctrees", "src", "lock", "src-hashes.json"}
    assert (cache_dir(clean_site) / "doctrees").is_dir() and cache_dir(clean_site).parent == clean_site.parent


def test_two_builds_started_together_leave_the_site_of_a_clean_build(rules, tmp_path, clean_site):
    out = tmp_path / "shared"
    a, b = run_build(rules, out), run_build(rules, out)
    (_, err_a), (_, err_b) = a.communicate(timeout=900), b.communicate(timeout=900)
    assert (a.returncode, b.returncode) == (0, 0), err_a + err_b
    assert "another build is writing" in err_a + err_b   # the second one waited, and said so
    assert snapshot(out) == snapshot(clean_site)


def test_a_build_killed_at_any_moment_leaves_the_previous_site_whole(rules, tmp_path):
    out = tmp_path / "site"
    assert run_build(rules, out).wait(timeout=600) == 0
    before = snapshot(out)
    retitle(rules, "Spotting (killed build)")
    unfinished = cache_dir(out) / build_module.UNFINISHED
    try:
        # killed while loading, while Sphinx writes, and a little later
        for wait_for_sphinx, delay in ((False, 0.5), (True, 0.0), (True, 1.5)):
            p = run_build(rules, out)
            deadline = time.monotonic() + 300
            while wait_for_sphinx and not unfinished.exists() and p.poll() is None \
                    and time.monotonic() < deadline:
                time.sleep(0.05)
            time.sleep(delay)
            p.send_signal(signal.SIGKILL)
            p.wait(timeout=60)
            now = snapshot(out)
            assert now == before or "Spotting (killed build)" in now["topics/spotting.html"].decode()
        # and the next build is whole and fresh, as a clean build of the same rules is
        assert run_build(rules, out).wait(timeout=600) == 0
        clean = tmp_path / "clean"
        assert run_build(rules, clean).wait(timeout=600) == 0
        assert snapshot(out) == snapshot(clean)
        assert "Spotting (killed build)" in snapshot(out)["topics/spotting.html"].decode()
    finally:
        retitle(rules, "Spotting")


def test_a_swap_cut_off_half_way_gives_back_the_old_site(tmp_path):
    html, out = tmp_path / "html", tmp_path / "site"
    html.mkdir(), out.mkdir()
    (html / "index.html").write_text("new"), (out / "index.html").write_text("old")
    os.rename(out, tmp_path / ".site.old-123")          # the first rename of a swap, then killed
    recover(out)
    assert (out / "index.html").read_text() == "old"
    publish(html, out)
    assert (out / "index.html").read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["html", "site"]


def test_the_cache_may_not_be_inside_the_output(rules, tmp_path):
    from harmony.site.build import BuildError, build_site
    with pytest.raises(BuildError, match="may not be inside the output"):
        build_site(rules, tmp_path / "site", cache=tmp_path / "site" / "cache")
