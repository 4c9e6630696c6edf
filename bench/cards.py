"""A 500-card deck: harmony's card pipeline against WeasyPrint alone on the same HTML.

    PYTHONPATH=$PWD python3 bench/cards.py [--cards 500] [--repeats 3] [--size poker]

The deck is the shipped rules_data's cards of every ruleset, repeated (each copy keeps
its own text) until it holds ``--cards`` cards. Timings are wall-clock seconds
(``time.perf_counter``), the rounds interleaved so that a change of machine load hits
every column alike; the medians are reported:

* ``weasyprint alone``: ``weasyprint.HTML(string=html).write_pdf()`` on the very HTML
  harmony prints (the floor: what printing these sheets costs at all);
* ``harmony print``: :func:`harmony.cards.render.imposed_html` and
  :func:`harmony.cards.render.write_pdf` with the fonts already fitted (templates, the
  imposition, the viewer preferences);
* ``harmony fit``: :func:`harmony.cards.fit.fit` with its cache off: every card laid out
  at the first font size, and again at smaller ones only for the cards that overflow;
* ``harmony cards``: fit plus print, what ``harmony cards`` does once its cache is cold.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harmony.cards import collect  # noqa: E402
from harmony.cards.fit import fit  # noqa: E402
from harmony.cards.render import imposed_html, imposition, write_pdf  # noqa: E402
from harmony.loader import load  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def deck(count: int):
    model, report = load(ROOT / "rules_data")
    if report.errors:
        raise SystemExit(report.to_text())
    base = collect(model, list(model.sources))
    return [base[i % len(base)] for i in range(count)], len(base)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cards", type=int, default=500)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--size", default="poker")
    args = p.parse_args()
    from weasyprint import HTML

    cards, distinct = deck(args.cards)
    im = imposition(args.size)
    fonts = [r.font for r in fit(cards[:distinct], args.size, cache=False)]
    fonts = [fonts[i % distinct] for i in range(len(cards))]
    html = imposed_html(cards, fonts, im)
    times: dict[str, list[float]] = {k: [] for k in
                                     ("weasyprint alone", "harmony print", "harmony fit")}
    for _ in range(args.repeats):
        t = time.perf_counter()
        alone = HTML(string=html).write_pdf()
        times["weasyprint alone"].append(time.perf_counter() - t)
        t = time.perf_counter()
        printed = write_pdf(imposed_html(cards, fonts, im))
        times["harmony print"].append(time.perf_counter() - t)
        t = time.perf_counter()
        fit(cards, args.size, cache=False)
        times["harmony fit"].append(time.perf_counter() - t)
    med = {k: statistics.median(v) for k, v in times.items()}
    med["harmony cards"] = med["harmony print"] + med["harmony fit"]
    floor = med["weasyprint alone"]
    print(f"{len(cards)} {args.size} cards ({distinct} distinct), {im.describe()}, "
          f"{im.sheets(len(cards))} sheets; PDF {len(printed) / 1e6:.1f} MB "
          f"(WeasyPrint alone {len(alone) / 1e6:.1f} MB); median of {args.repeats}")
    print("| what | seconds | x WeasyPrint alone |")
    print("|---|---|---|")
    for k, v in med.items():
        print(f"| {k} | {v:.2f} | {v / floor:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
