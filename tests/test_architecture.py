"""The architecture holds: layers import downward only, no import cycle, no import hidden inside
a function (but a task's of its own app's services, the HackSoft shape), no module's ``_private``
name imported by another, no Celery task looked up by a string, every module short enough
to read in one sitting, and mypy's level unrelaxed (``docs/ARCHITECTURE.md``).

The imports are read with ``ast`` from the source, so nothing is imported to check them.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ["engine", "league", "competitions", "mail"]
"""From the bottom up: a layer may import the layers before it, never those after it."""
MAX_LINES = 600
PROJECT = {*LAYERS, "matrixhockey"}


@dataclass(frozen=True)
class Import:
    module: str
    """The importing module, dotted (``competitions.services.void``)."""
    target: str
    """The imported module or name, dotted as written."""
    line: int
    in_function: str | None
    """The function whose body holds the import, or ``None`` at module level."""
    in_task: bool = False
    """Whether that function is a Celery task (decorated ``shared_task`` or ``app.task``)."""


TASK_DECORATORS = {"shared_task", "task"}


def _is_task(function: ast.AST) -> bool:
    if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    for decorator in function.decorator_list:
        called = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = called.attr if isinstance(called, ast.Attribute) else getattr(called, "id", None)
        if name in TASK_DECORATORS:
            return True
    return False


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _sources(package: str) -> Iterator[Path]:
    for path in sorted((ROOT / package).rglob("*.py")):
        if "migrations" not in path.parts:
            yield path


def _imports(path: Path) -> list[Import]:
    module = _module_name(path)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[Import] = []

    def visit(node: ast.AST, function: str | None, task: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = (
                child.name if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) else None
            )
            if isinstance(child, ast.Import):
                found.extend(
                    Import(module, alias.name, child.lineno, function, task)
                    for alias in child.names
                )
            elif isinstance(child, ast.ImportFrom) and child.level == 0 and child.module:
                found.extend(
                    Import(module, f"{child.module}.{alias.name}", child.lineno, function, task)
                    for alias in child.names
                )
            if inner is None:
                visit(child, function, task)
            else:
                visit(child, inner, _is_task(child))

    visit(tree, None, False)
    return found


def _all_imports() -> list[Import]:
    return [found for package in PROJECT for path in _sources(package) for found in _imports(path)]


def _layer(dotted: str) -> str:
    return dotted.split(".")[0]


def upward_imports(imports: list[Import]) -> list[str]:
    """Every import from a layer to a layer above it, as ``module:line -> target``."""
    return [
        f"{found.module}:{found.line} -> {found.target}"
        for found in imports
        if _layer(found.module) in LAYERS
        and _layer(found.target) in LAYERS
        and LAYERS.index(_layer(found.target)) > LAYERS.index(_layer(found.module))
    ]


def _known_modules() -> set[str]:
    return {_module_name(path) for package in PROJECT for path in _sources(package)}


def import_graph(imports: list[Import], modules: set[str]) -> dict[str, set[str]]:
    """Module → the project modules it imports (``from a.b import c`` is ``a.b.c`` when that is a
    module, else ``a.b``)."""
    graph: dict[str, set[str]] = {module: set() for module in modules}
    for found in imports:
        target = found.target
        while target and target not in modules:
            target = target.rpartition(".")[0]
        if target and target != found.module:
            graph[found.module].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle per strongly connected group of modules that import each other (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return found


def test_no_layer_imports_a_layer_above_it() -> None:
    assert upward_imports(_all_imports()) == []


def test_the_project_s_modules_import_each_other_without_a_cycle() -> None:
    imports = [found for found in _all_imports() if found.in_function is None]
    assert cycles(import_graph(imports, _known_modules())) == []


def hidden_imports(imports: list[Import]) -> list[str]:
    """Every import of the project inside a function, but ``AppConfig.ready``'s (where Django
    wants signals loaded) and a task's of its own app's services (the HackSoft shape: services
    import their tasks to queue them, so a task imports its service when it runs)."""
    return [
        f"{found.module}:{found.line} {found.target}"
        for found in imports
        if found.in_function not in (None, "ready")
        and _layer(found.target) in PROJECT
        and not (
            found.in_task
            and found.module.rpartition(".")[2] == "tasks"
            and _layer(found.target) == _layer(found.module)
        )
    ]


def test_no_import_hides_inside_a_function() -> None:
    assert hidden_imports(_all_imports()) == []


def private_imports(imports: list[Import], modules: set[str]) -> list[str]:
    """Every import of a name starting with ``_`` (not a dunder) from another module: a module's
    private names are its own."""
    found_private = []
    for found in imports:
        owner, _dot, name = found.target.rpartition(".")
        if found.target in modules or _layer(found.target) not in PROJECT:
            continue
        if name.startswith("_") and not name.startswith("__") and owner != found.module:
            found_private.append(f"{found.module}:{found.line} {found.target}")
    return found_private


def test_no_module_imports_another_s_private_names() -> None:
    assert private_imports(_all_imports(), _known_modules()) == []


def tasks_by_name(path: Path) -> list[str]:
    """Every Celery task looked up by a string: ``app.tasks[...]``, ``send_task(...)``,
    ``signature("...")``. A service imports its task and calls ``delay``/``apply_async``."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Attribute)
            and node.value.attr == "tasks"
        ):
            found.append((node.lineno, ".tasks[...]"))
        elif isinstance(node, ast.Call):
            called = node.func
            name = called.attr if isinstance(called, ast.Attribute) else getattr(called, "id", "")
            if name == "send_task" or (
                name == "signature"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                found.append((node.lineno, f"{name}(...)"))
    return [f"{path.name}:{line} {what}" for line, what in sorted(found)]


def test_no_task_is_looked_up_by_a_string() -> None:
    assert [
        where for package in PROJECT for path in _sources(package) for where in tasks_by_name(path)
    ] == []


RAW_SQL_HOME = {"matrixhockey/db.py", "competitions/hot_sql.py"}
"""The modules that hold SQL text: ``matrixhockey/db.py``, the statements the ORM cannot say
(``FOR SHARE``, ``UPDATE … RETURNING``, advisory locks, the health check's ``SELECT 1``), each
read with its ORM twin in ``tests/matrixhockey/test_db.py``; and ``competitions/hot_sql.py``,
the pick's hot reads kept written out because their ORM queries missed the picks' target, each
with its ORM twin in ``tests/competitions/test_hot_sql.py``. Migrations (not scanned) hold their
triggers."""

RAW_SQL_CALLS = {"raw", "extra"}
"""QuerySet methods that take SQL text (``Manager.raw``, ``QuerySet.extra``)."""


def raw_sql(path: Path) -> list[str]:
    """Every raw SQL statement in ``path``: a database cursor opened (``connection.cursor()``)
    or a statement executed on one (``cursor.execute``, a schema editor's), ``.raw(``,
    ``.extra(``, ``RawSQL``. A Redis pipeline's ``execute`` is not SQL."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Name | ast.Attribute):
            name = node.id if isinstance(node, ast.Name) else node.attr
            if name == "RawSQL":
                found.append((node.lineno, "RawSQL"))
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        method, receiver = node.func.attr, ast.unparse(node.func.value)
        executes = method in {"execute", "executemany"} and receiver.endswith(
            ("cursor", "schema_editor", "connection")
        )
        if method in {*RAW_SQL_CALLS, "cursor"} or executes:
            found.append((node.lineno, f"{receiver}.{method}(...)"))
    return [f"{path.name}:{line} {what}" for line, what in sorted(set(found))]


def test_raw_sql_lives_in_one_module_only() -> None:
    """The ORM is the one way to the database; a statement it cannot say goes to
    :data:`RAW_SQL_HOME`, beside its ORM twin's test."""
    assert [
        where
        for package in sorted(PROJECT)
        for path in _sources(package)
        if str(path.relative_to(ROOT)) not in RAW_SQL_HOME
        for where in raw_sql(path)
    ] == []


def test_the_shared_project_package_imports_no_app() -> None:
    """``matrixhockey/`` holds settings and helpers every app may use; it knows none of them
    (the URL configuration includes the apps' URLs by name)."""
    assert [
        f"{found.module}:{found.line} -> {found.target}"
        for found in _all_imports()
        if _layer(found.module) == "matrixhockey" and _layer(found.target) in LAYERS
    ] == []


@pytest.mark.parametrize("package", ["league", "competitions", "mail"])
def test_every_module_reads_in_one_sitting(package: str) -> None:
    long = {
        str(path.relative_to(ROOT)): lines
        for path in _sources(package)
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}


# The checks themselves, on small made-up sources, so that each can be seen to fail.


MAX_TYPE_IGNORES = 5
"""How many ``# type: ignore`` the checked code may hold, each naming its error code and saying
on its line why the stubs cannot express what the code does."""
TYPE_IGNORE = re.compile(
    r"#\s*type:\s*ignore(?P<code>\[[a-z-]+(?:,\s*[a-z-]+)*\])?(?P<why>\s*#\s*\S)?"
)

MYPY_TIGHTER = {
    "disallow_any_generics": True,
    "disallow_subclassing_any": True,
    "disallow_untyped_calls": True,
    "disallow_untyped_defs": True,
    "disallow_untyped_decorators": True,
    "warn_return_any": True,
    "implicit_reexport": False,
    "strict_equality": True,
    "extra_checks": True,
    "check_untyped_defs": True,
    "disallow_incomplete_defs": True,
    "warn_unused_ignores": True,
}
"""The flags an override of a project module may set, each tighter (``mypy --strict``'s)."""


def type_ignores(path: Path) -> list[str]:
    """Every ``# type: ignore`` comment of ``path`` (a comment token, not text in a string), as
    ``name:line``, marked ``no code`` or ``no reason`` where it lacks one."""
    found = []
    source = path.read_text(encoding="utf-8")
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        matched = TYPE_IGNORE.search(token.string) if token.type == tokenize.COMMENT else None
        if matched is None:
            continue
        lacks = [what for what in ("code", "why") if not matched.group(what)]
        marks = {"code": "no code", "why": "no reason"}
        found.append(" ".join([f"{path.name}:{token.start[0]}", *(marks[w] for w in lacks)]))
    return found


def test_the_checked_code_holds_a_handful_of_type_ignores_each_with_its_reason() -> None:
    ignores = [
        where
        for package in sorted(PROJECT)
        for path in _sources(package)
        for where in type_ignores(path)
    ]
    assert [where for where in ignores if " no " in where] == []
    assert len(ignores) <= MAX_TYPE_IGNORES, ignores


def mypy_relaxations(config: dict[str, Any]) -> list[str]:
    """What in ``[tool.mypy]`` relaxes the project's level: an error code or a module's errors
    turned off, an override of a project module that does more than tighten a flag
    (:data:`MYPY_TIGHTER`), an override of libraries that does more than skip their missing
    types."""
    found = [
        f"[tool.mypy] {key}" for key in ("disable_error_code", "ignore_errors") if key in config
    ]
    for override in config.get("overrides", []):
        modules = override["module"]
        modules = [modules] if isinstance(modules, str) else modules
        flags = {key: value for key, value in override.items() if key != "module"}
        ours = any(module.split(".")[0] in PROJECT for module in modules)
        loose = (
            [key for key, value in flags.items() if MYPY_TIGHTER.get(key, not value) != value]
            if ours
            else [key for key in flags if key != "ignore_missing_imports"]
        )
        if loose:
            found.append(f"{', '.join(modules)}: {', '.join(sorted(loose))}")
    return found


def test_no_mypy_override_relaxes_the_project_s_code() -> None:
    """``engine/`` strict, the apps at ``[tool.mypy]``'s level, every module of them."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert mypy_relaxations(config["tool"]["mypy"]) == []


def _made_up(tmp_path: Path, files: dict[str, str]) -> list[Import]:
    found: list[Import] = []
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        tree_imports = _imports_relative(path, tmp_path)
        found += tree_imports
    return found


def _imports_relative(path: Path, root: Path) -> list[Import]:
    global ROOT
    saved, ROOT = ROOT, root
    try:
        return _imports(path)
    finally:
        ROOT = saved


def test_an_upward_import_is_caught_even_inside_a_function(tmp_path: Path) -> None:
    imports = _made_up(
        tmp_path,
        {
            "league/services.py": "def f():\n    from competitions.models import Round\n",
            "competitions/views.py": "from league.models import Team\n",
        },
    )
    assert upward_imports(imports) == ["league.services:2 -> competitions.models.Round"]


def test_a_cycle_between_two_modules_is_caught(tmp_path: Path) -> None:
    imports = _made_up(
        tmp_path,
        {
            "mail/emails.py": "from mail import tasks\n",
            "mail/tasks.py": "from mail.emails import email_send\n",
            "mail/weekly.py": "from mail.emails import email_send\n",
        },
    )
    graph = import_graph(imports, {"mail.emails", "mail.tasks", "mail.weekly"})
    assert cycles(graph) == [["mail.emails", "mail.tasks"]]


def test_only_a_task_importing_its_own_app_s_service_may_import_late(tmp_path: Path) -> None:
    imports = _made_up(
        tmp_path,
        {
            "mail/tasks.py": (
                "from celery import shared_task\n"
                "@shared_task(name='mail.send')\n"
                "def send():\n    from mail import emails\n"  # the HackSoft shape: allowed
                "@shared_task\n"
                "def other():\n    from competitions import services\n"  # another app's
                "def helper():\n    from mail import emails\n"  # not a task
            ),
            "mail/emails.py": (
                "from celery import shared_task\n"
                "@shared_task\n"
                "def send():\n    from mail import news\n"  # a task outside a tasks module
            ),
            "mail/apps.py": (
                "class MailConfig:\n    def ready(self):\n        from mail import tasks\n"
            ),
        },
    )
    assert hidden_imports(imports) == [
        "mail.tasks:7 competitions.services",
        "mail.tasks:9 mail.emails",
        "mail.emails:4 mail.news",
    ]


def test_an_import_of_another_module_s_private_name_is_caught(tmp_path: Path) -> None:
    imports = _made_up(
        tmp_path,
        {
            "mail/intake.py": (
                "from competitions.services.picks import _late_check, pick_submit\n"
                "from competitions.services import _helpers\n"  # a private module: its own name
                "from mail.intake import _own\n"
                "from competitions.models import __all__\n"
            ),
        },
    )
    modules = {"mail.intake", "competitions.services.picks", "competitions.services._helpers"}
    assert private_imports(imports, modules) == [
        "mail.intake:1 competitions.services.picks._late_check"
    ]


def test_a_task_looked_up_by_its_name_is_caught(tmp_path: Path) -> None:
    path = tmp_path / "queue.py"
    path.write_text(
        "celery_app.tasks['competitions.pool_round_arbitrate'].delay(1)\n"
        "celery_app.send_task('mail.email_deliver', args=[1])\n"
        "signature('mail.email_deliver')\n"
        "tasks.pool_round_arbitrate.delay(1)\n"  # the task itself: allowed
        "ok = {'a': 1}['a']\n",
        encoding="utf-8",
    )
    assert tasks_by_name(path) == [
        "queue.py:1 .tasks[...]",
        "queue.py:2 send_task(...)",
        "queue.py:3 signature(...)",
    ]


def test_raw_sql_is_caught(tmp_path: Path) -> None:
    path = tmp_path / "reads.py"
    path.write_text(
        "with connection.cursor() as cursor:\n"
        "    cursor.execute('SELECT 1')\n"
        "Team.objects.raw('SELECT * FROM league_team')\n"
        "Team.objects.extra(where=['id = 1'])\n"
        "Team.objects.annotate(n=RawSQL('SELECT 1', []))\n"
        "pipe.execute()\n"  # a Redis pipeline: allowed
        "Team.objects.filter(name='x').first()\n",
        encoding="utf-8",
    )
    assert raw_sql(path) == [
        "reads.py:1 connection.cursor(...)",
        "reads.py:2 cursor.execute(...)",
        "reads.py:3 Team.objects.raw(...)",
        "reads.py:4 Team.objects.extra(...)",
        "reads.py:5 RawSQL",
    ]


def test_a_type_ignore_without_its_code_or_reason_is_caught(tmp_path: Path) -> None:
    path = tmp_path / "typed.py"
    path.write_text(
        "a = f(x)  # type: ignore[arg-type]  # the stubs say int; the call takes a float\n"
        "b = f(x)  # type: ignore[arg-type]\n"
        "c = f(x)  # type: ignore\n"
        "d = '# type: ignore'\n",  # text, not a comment
        encoding="utf-8",
    )
    assert type_ignores(path) == [
        "typed.py:1",
        "typed.py:2 no reason",
        "typed.py:3 no code no reason",
    ]


def test_a_mypy_relaxation_is_caught() -> None:
    config = {
        "strict": False,
        "disable_error_code": ["misc"],
        "overrides": [
            {"module": ["engine", "engine.*"], "disallow_untyped_defs": True},
            {"module": ["pygal", "pygal.*"], "ignore_missing_imports": True},
            {"module": "competitions.forms", "disable_error_code": ["attr-defined"]},
            {"module": ["league.links"], "check_untyped_defs": False},
            {"module": ["engine.game"], "implicit_reexport": True},
            {"module": ["authres"], "ignore_errors": True},
        ],
    }
    assert mypy_relaxations(config) == [
        "[tool.mypy] disable_error_code",
        "competitions.forms: disable_error_code",
        "league.links: check_untyped_defs",
        "engine.game: implicit_reexport",
        "authres: ignore_errors",
    ]
