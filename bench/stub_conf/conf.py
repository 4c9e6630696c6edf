# The plain-Sphinx anchor of bench/run.py: harmony's own site/conf.py, read as it is, with
# the stub extension in place of harmony's and no static files. Reading the real
# configuration (not a copy) keeps the anchor in step with the site.
import os
import sys
from pathlib import Path

_site_conf = Path(__file__).resolve().parents[2] / "site" / "conf.py"
exec(compile(_site_conf.read_text(encoding="utf-8"), str(_site_conf), "exec"),
     dict(globals(), __file__=str(_site_conf)), _conf := {})
globals().update({k: v for k, v in _conf.items() if not k.startswith("__")})

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
extensions = ["sphinx_stub"]
html_static_path: list = []
