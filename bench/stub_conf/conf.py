# The plain-Sphinx anchor of bench/run.py: harmony's site/conf.py with the stub extension.
# Sphinx configuration of the harmony site, built by `harmony build`
# (harmony.site.build stages the generated pages beside the hand-written ones).
# Everything here is fixed so the same rules_data gives the same bytes.
project = "PanzerBlitz rules harmony"
author = "the harmony contributors"
copyright = "the harmony contributors"
version = release = ""
import os  # noqa: E402
import sys  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
extensions = ["sphinx_stub"]
root_doc = "index"
exclude_patterns = ["_generated"]
templates_path = []
language = "en"
today = "unspecified"
today_fmt = "%Y-%m-%d"
# clause text is shown exactly as written: no curly quotes or dashes made from it
smartquotes = False

html_theme = "alabaster"
html_theme_options = {
    "page_width": "1260px",
    "sidebar_width": "190px",
    "fixed_sidebar": False,
    "show_powered_by": False,
    "show_relbars": True,
}
html_title = "PanzerBlitz rules harmony"
html_static_path = []
html_css_files = ["harmony.css"]
html_js_files = ["harmony.js"]
html_last_updated_fmt = None
html_copy_source = False
html_show_sourcelink = False
html_show_sphinx = False
html_use_index = True
html_domain_indices = False
html_permalinks = True
html_search_language = "en"
