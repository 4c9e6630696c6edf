"""Where WeasyPrint's time goes in the rulebooks: every rulebook printed as it is, with its
drawings inline in the HTML (as before session 14), without its figures, with figures that
hold no text, and with the footnotes left in the text.

    PYTHONPATH=$PWD python3 bench/rulebook_layout.py [RULES_DATA] [--repeats 2]

The CPU seconds (``time.process_time``) of laying out and writing all the rulebooks in this
process, per variant of their HTML; the variants alternate round by round, and the means are
reported. A benchmark, not a test: the variants are only for measuring, never printed for use.
"""
from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harmony.loader import load  # noqa: E402
from harmony.rulebook import pdf_html, rulesets  # noqa: E402
from harmony.rulebook.render import TEMPLATES, drawings_as_images  # noqa: E402

VARIANTS: dict[str, Callable[[str], str]] = {
    "as printed": drawings_as_images,
    "drawings inline in the HTML": lambda h: h,
    "without the figures": lambda h: re.sub(r"<svg.*?</svg>", "", h, flags=re.S),
    "figures without their text": lambda h: drawings_as_images(re.sub(r"<text.*?</text>", "", h, flags=re.S)),
    "footnotes left in the text": lambda h: drawings_as_images(h.replace('class="fn', 'class="not-fn')),
}


def main(argv: list[str]) -> int:
    from harmony.htmlcache import document
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("rules", nargs="?", default=str(ROOT / "rules_data"))
    p.add_argument("--repeats", type=int, default=2)
    args = p.parse_args(argv[1:])
    model, _ = load(args.rules)
    books = {key: pdf_html(model, key) for key in rulesets(model)}
    document(next(iter(books.values())), base_url=str(TEMPLATES)).render()   # warm up
    spent = {name: [0.0, 0.0] for name in VARIANTS}
    names = list(VARIANTS)
    for n in range(args.repeats):
        for name in (names if n % 2 == 0 else names[::-1]):
            for html in books.values():
                start = time.process_time()
                laid_out = document(VARIANTS[name](html), base_url=str(TEMPLATES)).render()
                laid = time.process_time()
                laid_out.write_pdf()
                spent[name][0] += laid - start
                spent[name][1] += time.process_time() - laid
    full = sum(spent["as printed"]) / args.repeats
    print(f"the {len(books)} rulebooks of {args.rules}, CPU seconds, mean of {args.repeats} rounds:")
    print("| variant | parse and lay out | write | total | of the rulebooks as printed |")
    print("|---|---|---|---|---|")
    for name, (lay, write) in spent.items():
        total = (lay + write) / args.repeats
        print(f"| {name} | {lay / args.repeats:.1f} | {write / args.repeats:.1f} | {total:.1f} | "
              f"{100 * total / full:.0f}% |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
