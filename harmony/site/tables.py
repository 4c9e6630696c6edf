"""The site's views of tables: a table as rows of words, and the values table marks print.

:func:`table_view` is the data of one ``harmony-datatable`` directive;
:func:`mark_values` gives the words of the ``{{ table:ID/ROW/COLUMN }}`` marks
of some texts, so the text directives print them as they print parameters.

>>> from harmony.model import Table, TableColumn, Citation
>>> t = Table(id="t", source="CP", number="8", title="Bands", cite=Citation(source="CP", section="7.12.1"),
...           columns=[TableColumn(id="spotter", title="Spotter", type="key"),
...                    TableColumn(id="long", title="Long", type="int", unit="inches")],
...           rows=[{"spotter": "on-foot", "long": 80}])
>>> v = table_view(t)
>>> v["caption"], v["header"], v["rows"]
('Table 8: Bands', ['Spotter', 'Long (inches)'], [['On foot', '80']])

A table the rules state in a section's text has no number: its title is its caption.

>>> table_view(Table(id="h", source="CP", title="Horse or rider", columns=t.columns))["caption"]
'Horse or rider'
"""
from __future__ import annotations

from ..markup import marks, table_cell
from ..model import Model, Table, show_cell


def table_view(table: Table, cite: dict | None = None) -> dict:
    """One table as the site shows it: caption, column headings (with units), cells in words
    (units in the heading, not repeated in every cell), notes and its citation's view."""
    def words(value, col) -> str:
        shown = show_cell(value, col)
        if col.unit and value is not None:   # the heading carries the unit
            shown = show_cell(value, type(col)(type=col.type))
        return shown

    return {
        "id": table.id,
        "anchor": f"table-{table.id}",
        "caption": table.caption,
        "summary": table.summary,
        "header": [c.title + (f" ({c.unit})" if c.unit else "") for c in table.columns],
        "rows": [[words(row.get(c.id), c) for c in table.columns] for row in table.rows],
        "notes": list(table.notes),
        "cite": cite,
    }


def cited_tables(model: Model, clauses) -> list[Table]:
    """The tables the cells of ``clauses`` cite, in order of first citation."""
    return model.cited_tables([c for clause in clauses for cell in clause.cells.values()
                               for c in cell.cites])


def mark_values(model: Model, *texts: str | None) -> dict[str, str]:
    """``{"table:ID/ROW/COLUMN"-target: words}`` for the table marks in ``texts``."""
    out = {}
    for text in texts:
        for m in marks(text):
            if m.kind == "table":
                shown = table_cell(m.target, model.tables)
                if shown is not None:
                    out[m.target] = shown
    return dict(sorted(out.items()))
