"""The checks ``harmony check`` runs on tables and on the prose that cites them.

``table-*`` (errors): a table's own data. Its columns have unique ids, one
at most is the ``key`` column, an ``enum`` column lists its values and only
number columns carry a unit; every row fills every column that is not
``optional`` and no other, with a value of the column's type (a whole number,
text, true or false, one of the enum's values, or a ``{min, max}`` range);
key cells are unique; the table's source exists and its citation names that
source and the table's number, or, for a table the rules state in a section's
prose (no ``number``), that section and no table.

``table-mark`` (error): a ``{{ table:ID/ROW/COLUMN }}`` mark in a cell's
text, note or card names a table, row and column that exist, and the cell
cites that table (``cite: {source: CP, table: '6'}``; a table with no number
is cited by its section, ``cite: {source: CP, section: '7.10.2'}``).

``table-number`` (error), ``table-number-literal`` (warning): in the text
or card of a cell that cites a table (notes may tell worked cases), a number written with one of the tables' units
(``24 inches``, ``two shifts``, ``3 reshuffles``, ``one place``) is a value of a column in
that unit of a cited table, or the prose has drifted from the table; and
even when it is, the mark prints it from the table and cannot drift.

>>> from harmony.model import Table, TableColumn
>>> unit_numbers("lit 8 inches around it, for two reshuffles; 3 figures")
[('8 inches', 8, 'inches'), ('two reshuffles', 2, 'reshuffles')]
>>> cell_type_error(TableColumn(type="range"), {"min": 5, "max": 4})
'a range whose min (5) is above its max (4)'
>>> cell_type_error(TableColumn(type="enum", values=["day", "night"]), "dusk")
"'dusk' is not one of: day, night"
"""
from __future__ import annotations

import re
from typing import Any

from .consistency import locate, where
from .diagnostics import Report
from .markup import iter_marks, marks
from .model import UNITS, Cell, Model, Table, TableColumn
from .numbers import WORDS

TYPES = ("key", "text", "int", "range", "bool", "enum")
NUMBER_TYPES = ("int", "range")

_UNIT_WORDS = {word: unit for unit, forms in UNITS.items() for word in forms}
_UNIT_NUMBER = re.compile(r"(?<![\w.+-])(?P<n>\d+|" + "|".join(WORDS) + r")[ -](?P<u>"
                          + "|".join(sorted(_UNIT_WORDS, key=len, reverse=True)) + r")\b",
                          re.IGNORECASE)


def unit_numbers(text: str) -> list[tuple[str, int, str]]:
    """``(as written, value, unit)`` for each number written with a table unit in ``text``."""
    out = []
    for m in _UNIT_NUMBER.finditer(text):
        n = m.group("n").lower()
        out.append((m.group(0), int(n) if n.isdigit() else WORDS[n], _UNIT_WORDS[m.group("u").lower()]))
    return out


def cell_type_error(column: TableColumn, value: Any) -> str | None:
    """Why ``value`` cannot be a cell of ``column``, or None."""
    if value is None:
        return None if column.optional else "an empty cell in a column that is not optional"
    t = column.type
    if t in ("key", "text"):
        return None if isinstance(value, str) else f"{value!r} is not text"
    if t == "int":
        return None if isinstance(value, int) and not isinstance(value, bool) \
            else f"{value!r} is not a whole number"
    if t == "bool":
        return None if isinstance(value, bool) else f"{value!r} is not true or false"
    if t == "enum":
        values = column.values or []
        return None if value in values else f"{value!r} is not one of: {', '.join(values)}"
    if t == "range":
        if not isinstance(value, dict):
            return f"{value!r} is not a range ({{min: .., max: ..}})"
        lo, hi = value.get("min"), value.get("max")
        if lo is not None and hi is not None and lo > hi:
            return f"a range whose min ({lo}) is above its max ({hi})"
        return None
    return None


def check_tables(model: Model, report: Report) -> None:
    """Each table's columns, rows, cells and citation."""
    for table in model.tables.values():
        _table(model, report, table)


def _table(model: Model, report: Report, table: Table) -> None:
    if table.source not in model.sources and not report.was_left_out(table.source):
        report.error(table.pos("source"), f"table '{table.id}' names unknown source "
                     f"'{table.source}'", "table-source")
    _citation(report, table)
    seen: set[str] = set()
    for i, col in enumerate(table.columns):
        if col.id in seen:
            report.error(table.pos("columns", i, "id"), f"table '{table.id}': column "
                         f"'{col.id}' appears twice", "table-column")
        seen.add(col.id)
        if col.unit and col.type not in NUMBER_TYPES:
            report.error(table.pos("columns", i, "unit"), f"table '{table.id}': column "
                         f"'{col.id}' is {col.type}, and only number columns carry a unit",
                         "table-column")
        if col.type == "enum" and not col.values:
            report.error(table.pos("columns", i, "type"), f"table '{table.id}': enum column "
                         f"'{col.id}' lists no values", "table-column")
    keys = [c for c in table.columns if c.type == "key"]
    if len(keys) > 1:
        report.error(table.pos("columns"), f"table '{table.id}' has {len(keys)} key columns "
                     f"({', '.join(c.id for c in keys)}): one names the rows", "table-column")
    key_seen: dict[str, int] = {}
    for r, row in enumerate(table.rows):
        for name in row:
            if table.column(name) is None:
                report.error(table.pos("rows", r, name, key=True), f"table '{table.id}' row "
                             f"{r + 1}: no column '{name}' (its columns: "
                             f"{', '.join(c.id for c in table.columns)})", "table-cell")
        for col in table.columns:
            if col.id not in row:
                if not col.optional:
                    report.error(table.pos("rows", r), f"table '{table.id}' row {r + 1} has "
                                 f"no cell for column '{col.id}'", "table-cell")
                continue
            problem = cell_type_error(col, row[col.id])
            if problem:
                report.error(table.pos("rows", r, col.id), f"table '{table.id}' row {r + 1}, "
                             f"column '{col.id}' ({col.type}): {problem}", "table-cell")
        if keys and isinstance(row.get(keys[0].id), str):
            k = row[keys[0].id]
            if k in key_seen:
                report.error(table.pos("rows", r, keys[0].id), f"table '{table.id}': row "
                             f"'{k}' appears twice (rows {key_seen[k] + 1} and {r + 1})",
                             "table-cell")
            key_seen.setdefault(k, r)


def _citation(report: Report, table: Table) -> None:
    """A numbered table cites its source and number; one with no number (a table the
    rules state in a section's prose) cites its source and that section, and no table."""
    cite = table.cite
    if cite is None:
        return   # the schema requires it
    if table.number:
        if cite.source != table.source or str(cite.table) != table.number:
            report.error(table.pos("cite"), f"table '{table.id}' is {table.source} "
                         f"{table.label}, but its citation names {cite.source} table "
                         f"{cite.table or '(none)'}: cite the table itself", "table-cite")
    elif cite.source != table.source or not cite.section or cite.table:
        said = (f"names {cite.source} table {cite.table}" if cite.table
                else f"names {cite.source} and no section" if not cite.section
                else f"names source {cite.source}")
        report.error(table.pos("cite"), f"table '{table.id}' has no number in "
                     f"{table.source}, and its citation {said}: cite the {table.source} "
                     "section whose text states it (or give the table its number)", "table-cite")


def _cited_tables(model: Model, cell: Cell) -> list[Table]:
    return model.cited_tables(cell.cites)


def _texts(cell: Cell, notes: bool = True):
    yield ("text",), cell.text
    if notes:
        yield ("note",), cell.note
    if cell.card:
        yield ("card", "title"), cell.card.title
        yield ("card", "text"), cell.card.text


def _prose(text: str) -> str:
    """Text with every ``{{ }}`` mark blanked: a mark is exactly what we want."""
    out, last = [], 0
    for m in iter_marks(text):
        out.append(text[last:m.start])
        out.append(m.shown if m.kind == "term" else " " * (m.end - m.start))
        last = m.end
    return "".join(out) + text[last:]


def check_table_prose(model: Model, report: Report) -> None:
    """Table marks resolve and are cited; hand-written measures agree with cited tables."""
    for clause in model.clauses.values():
        for cell in clause.cells.values():
            cited = _cited_tables(model, cell)
            for path, text in _texts(cell):
                if text and "table:" in text:      # (a table mark holds these letters)
                    for m in marks(text):
                        if m.kind == "table":
                            _mark(model, report, cell, path, text, m, cited)
            if not cited:
                continue
            for path, text in _texts(cell, notes=False):   # notes tell worked cases
                if not text:
                    continue
                for written, value, unit in unit_numbers(_prose(text)):
                    held = sorted({f"{t.label} {r_id}/{c.id}" for t in cited
                                   for c in t.columns if c.unit == unit
                                   for r_id, row in zip(t.row_ids(), t.rows)
                                   if row.get(c.id) == value})
                    pos = locate(cell.pos(*path), written.split()[0])
                    field = ".".join(path)
                    if not held:
                        tables = ", ".join(t.label for t in cited)
                        report.error(pos, f"{where(cell)}: {field} says '{written}', a value "
                                     f"no {unit} column of {tables} holds: print the cell "
                                     "with {{ table:ID/ROW/COLUMN }}", "table-number")
                    else:
                        report.warning(pos, f"{where(cell)}: {field} writes '{written}' by "
                                       f"hand ({held[0]}); a {{{{ table:... }}}} mark prints it "
                                       "from the table and cannot drift", "table-number-literal")


def _mark(model, report, cell, path, text, m, cited) -> None:
    pos = locate(cell.pos(*path), "table:" + m.target.split("/")[0])
    table_id, row, column = m.target.split("/")
    table = model.tables.get(table_id)
    if table is None:
        if not report.was_left_out(table_id):
            report.error(pos, f"{where(cell)}: mark '{{{{ table:{m.target} }}}}' names unknown "
                         f"table '{table_id}' (tables: {', '.join(sorted(model.tables)) or 'none'})",
                         "table-mark")
        return
    try:
        table.value(row, column)
    except KeyError as e:
        report.error(pos, f"{where(cell)}: mark '{{{{ table:{m.target} }}}}': {e.args[0]}",
                     "table-mark")
        return
    if table not in cited:
        wanted = (f"table: '{table.number}'" if table.number
                  else f"section: '{table.cite.section if table.cite else '?'}'")
        report.error(pos, f"{where(cell)}: mark prints a cell of {table.source} {table.label} "
                     f"but the cell does not cite it: add {{source: {table.source}, {wanted}}} "
                     "to its cite", "table-mark")
