# Sphinx configuration of the harmony site, built by `harmony build`
# (harmony.site.build stages the generated pages beside the hand-written ones).
# Everything here is fixed so the same rules_data gives the same bytes. It names no
# harmony: the title, authors, copyright, language and address come from the harmony's
# own `harmony:` metadata, which harmony.site.build passes as configuration overrides
# (harmony.site.generate.conf_overrides); the values below are only their defaults.
project = "Rules harmony"
author = "the harmony's authors"
copyright = "the harmony's authors"
version = release = ""
extensions = ["harmony.site"]
root_doc = "index"
exclude_patterns = ["_generated"]
# Furo with two small overrides (site/_templates: the side panels named, the search page's heading)
templates_path = ["_templates"]
language = "en"
today = "unspecified"
today_fmt = "%Y-%m-%d"
# clause text is shown exactly as written: no curly quotes or dashes made from it
smartquotes = False

# Furo: a responsive theme (a menu button and search at the top on a phone, the page's
# contents beside it or behind a button, dark mode that follows the system and can be
# switched); harmony's own styles (_static/harmony.css) stay small on top of it
html_theme = "furo"
html_theme_options = {"top_of_page_buttons": []}
# code in colours that keep a 4.5:1 contrast, light and dark (accessible-pygments, with Furo)
pygments_style = "a11y-light"
pygments_dark_style = "a11y-dark"
html_title = "Rules harmony"
html_static_path = ["_static"]
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
# search ranks rows and topic pages first (an absolute path: Sphinx reads it from the
# staged source folder otherwise)
html_search_scorer = str(__import__("pathlib").Path(__file__).resolve().parent / "_static"
                         / "harmony-search.js")
