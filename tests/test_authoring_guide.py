"""The authoring guide and the JSON Schema describe the same format."""
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GUIDE = (ROOT / "rules_data" / "pages" / "authoring.rst").read_text(encoding="utf-8")
SCHEMA = json.loads((ROOT / "harmony" / "schema" / "harmony.schema.json").read_text(encoding="utf-8"))
#: defined on their own pages
ELSEWHERE = {"scenario", "cp-scenario"}


def object_defs():
    for name, d in SCHEMA["$defs"].items():
        if name in ELSEWHERE:
            continue
        for branch in d.get("oneOf", [d]):
            if "properties" in branch:
                yield name, branch


def section(name: str) -> str:
    start = GUIDE.index(f".. _schema-{name}:")
    nxt = GUIDE.find(".. _schema-", start + 1)
    return GUIDE[start: nxt if nxt > 0 else len(GUIDE)]


@pytest.mark.parametrize("name,definition", list(object_defs()), ids=lambda x: x if isinstance(x, str) else "")
def test_every_schema_field_is_documented(name, definition):
    text = section(name)
    missing = [p for p in definition["properties"] if f"``{p}``" not in text]
    assert not missing, f"the guide's section on {name} does not describe {missing}"


@pytest.mark.parametrize("name,definition", list(object_defs()), ids=lambda x: x if isinstance(x, str) else "")
def test_every_documented_field_is_in_the_schema(name, definition):
    table_fields = re.findall(r"^``([a-z-]+)``\s{2,}", section(name), flags=re.M)
    unknown = [f for f in table_fields if f not in definition["properties"]]
    assert not unknown, f"the guide documents {unknown} for {name}, which the schema does not accept"


@pytest.mark.parametrize("name,definition", list(object_defs()), ids=lambda x: x if isinstance(x, str) else "")
def test_required_fields_are_marked_required(name, definition):
    rows = dict(re.findall(r"^``([a-z-]+)``\s{2,}(\S+)?", section(name), flags=re.M))
    for field in definition.get("required", []):
        if field in rows:
            assert rows[field] in ("yes", "rules", "opt.", "rev."), f"{name}.{field} is required"


def test_top_level_sections_are_documented():
    for key in SCHEMA["properties"]:
        assert f"``{key}``" in GUIDE
