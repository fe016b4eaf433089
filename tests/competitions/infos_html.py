"""« Infos équipes » read back from its HTML, the way a person (or a screen reader) reads the
grid: each table by its region's id (``infos-grid``, and ``infos-out`` for the KDH's teams put
out), its row groups, each row's header and cells, their visible and visually hidden text."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser


@dataclass
class Cell:
    """One ``<td>``: its classes, the text shown (``✓``, ``✗``, a count) and the text only a
    screen reader reads (``playable``, ``used``…)."""

    classes: set[str]
    shown: str = ""
    hidden: str = ""
    worth: int | None = None
    """R25: a playable column's value in the coming round's row (``data-worth``)."""

    @property
    def playable(self) -> bool:
        return "yes" in self.classes


@dataclass
class Row:
    """One team's ``<tr>``: its id, classes, row group (``opponents``, ``others``, ``all``,
    ``out``), the text of its row header and its cells."""

    id: str
    classes: set[str]
    section: str
    header: str = ""
    badges: list[str] = field(default_factory=list)
    """The shown text of the row header's badges (« you », « R4 »)."""
    cells: list[Cell] = field(default_factory=list)


@dataclass
class Grid:
    """One grid: its caption, its column headers (the second header row) and its rows, in
    order; ``group_headers``: the texts of its ``scope="rowgroup"`` headers."""

    caption: str = ""
    headers: list[str] = field(default_factory=list)
    worths: dict[str, int] = field(default_factory=dict)
    """R25: each column header's value in the coming round's row, by column."""
    rows: list[Row] = field(default_factory=list)
    group_headers: list[str] = field(default_factory=list)

    def row(self, slug: str) -> Row:
        found = [row for row in self.rows if row.id == f"team-{slug}"]
        assert found, f"no row for {slug}"
        return found[0]

    @property
    def slugs(self) -> list[str]:
        return [row.id.removeprefix("team-") for row in self.rows]


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.grids: dict[str, Grid] = {}
        self.grid: Grid | None = None
        self.section = ""
        self.row: Row | None = None
        self.cell: Cell | None = None
        self.in_header = False
        self.in_caption = False
        self.in_col_header = False
        self.in_group_header = False
        self.header_rows = 0
        self.hidden_depth = 0
        self.span_depth = 0
        self.hidden_at: list[int] = []
        self.badge_at: list[int] = []
        self.worth_at: list[int] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {key: value or "" for key, value in attrs}
        classes = set(a.get("class", "").split())
        if tag == "div" and "infos-scroll" in classes:
            self.grid = self.grids.setdefault(a["id"], Grid())
        if self.grid is None:
            return
        if tag == "caption":
            self.in_caption = True
        elif tag == "thead":
            self.header_rows = 0
        elif tag == "tr" and self.row is None and self.section == "":
            self.header_rows += 1
        elif tag == "tbody":
            self.section = a.get("class", "").removeprefix("infos-")
        elif tag == "tr" and self.section and "rowgroup" not in classes:
            self.row = Row(id=a.get("id", ""), classes=classes, section=self.section)
            self.grid.rows.append(self.row)
        elif tag == "th" and a.get("scope") == "row" and self.row is not None:
            self.in_header = True
        elif tag == "th" and a.get("scope") == "rowgroup":
            self.in_group_header = True
            self.grid.group_headers.append("")
        elif tag == "th" and a.get("scope") == "col" and self.header_rows == 2:
            self.in_col_header = True
            self.grid.headers.append("")
        elif tag == "td" and self.row is not None:
            worth = a.get("data-worth")
            self.cell = Cell(classes=classes, worth=int(worth) if worth else None)
            self.row.cells.append(self.cell)
        elif tag == "span":
            self.span_depth += 1
            if "visually-hidden" in classes:
                self.hidden_at.append(self.span_depth)
            if "worth" in classes and self.in_col_header:
                self.worth_at.append(self.span_depth)
                self.grid.worths[self.grid.headers[-1]] = int(a["data-worth"])
            if "badge" in classes and self.in_header and self.row is not None:
                self.badge_at.append(self.span_depth)
                self.row.badges.append("")

    def handle_endtag(self, tag: str) -> None:
        if self.grid is None:
            return
        if tag == "caption":
            self.in_caption = False
        elif tag == "table":
            self.grid, self.section = None, ""
        elif tag == "tbody":
            self.section = ""
        elif tag == "tr":
            self.row = None
        elif tag == "th":
            self.in_header = self.in_col_header = self.in_group_header = False
        elif tag == "td":
            self.cell = None
        elif tag == "span":
            if self.hidden_at and self.hidden_at[-1] == self.span_depth:
                self.hidden_at.pop()
            if self.badge_at and self.badge_at[-1] == self.span_depth:
                self.badge_at.pop()
            if self.worth_at and self.worth_at[-1] == self.span_depth:
                self.worth_at.pop()
            self.span_depth -= 1

    def handle_data(self, data: str) -> None:
        if self.grid is None:
            return
        if self.in_caption:
            self.grid.caption += data
        elif self.in_col_header:
            if not self.worth_at:
                self.grid.headers[-1] += data.strip()
        elif self.in_group_header:
            self.grid.group_headers[-1] += data.strip()
        elif self.in_header and self.row is not None:
            self.row.header += data
            if self.badge_at and not self.hidden_at:
                self.row.badges[-1] += data.strip()
        elif self.cell is not None:
            if self.hidden_at:
                self.cell.hidden += data
            else:
                self.cell.shown += data.strip()


def grids(html: str) -> dict[str, Grid]:
    """Every grid of the page, by its region's id."""
    reader = _Reader()
    reader.feed(html)
    return reader.grids


def grid(html: str, region: str = "infos-grid") -> Grid:
    """The page's grid ``region`` (the main one by default)."""
    found = grids(html)
    assert region in found, f"no grid {region} (found {sorted(found)})"
    return found[region]
