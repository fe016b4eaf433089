"""The OpenAPI schema's error answers (a drf-spectacular post-processing hook).

Every operation may answer errors the views do not name themselves: 400 (a NUL byte in the URL,
an unreadable body), 401 (a wrong token, wherever a token is read), 403 (not allowed, or a
session without its CSRF token), 404 (no such season, pool or round), 413 and 415 (a body too
large, or of a type the API does not read), 429 (too many requests, with ``Retry-After``), 503
(the database out of reach for a moment, with ``Retry-After``).
Their bodies are ``shared/API.md``'s two shapes: :data:`ERROR` ``{"detail": "…"}`` and
:data:`FIELD_ERRORS` ``{"field": ["message", …]}``. A 400 an operation documents itself keeps its
own shape and gains these two.
"""

from __future__ import annotations

from typing import Any

ERROR = "Error"
FIELD_ERRORS = "FieldErrors"

_COMPONENTS: dict[str, dict[str, Any]] = {
    ERROR: {
        "type": "object",
        "description": "An error: what went wrong, in the caller's language.",
        "properties": {"detail": {"type": "string"}},
        "required": ["detail"],
    },
    FIELD_ERRORS: {
        "type": "object",
        "description": "A refused body: for each field (or non_field_errors), what is wrong.",
        "additionalProperties": {"type": "array", "items": {"type": "string"}},
        "minProperties": 1,
    },
}

_DESCRIPTIONS = {
    "400": "Bad request: a body that cannot be read or is refused, or a NUL byte in the URL.",
    "401": "The token sent is not valid, or none was sent where one is needed.",
    "403": "Not allowed for the caller (or a session request without its CSRF token).",
    "404": "Not found.",
    "413": "The body is larger than the server accepts.",
    "415": "The body's media type is not one the API reads (send application/json).",
    "429": "Too many requests: wait the number of seconds in Retry-After.",
    "503": "The database cannot be reached for a moment: ask again after Retry-After seconds.",
}

_METHODS = {"get", "put", "post", "patch", "delete"}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: dict[str, Any]) -> dict[str, Any]:
    return {"application/json": {"schema": schema}}


def _answer(code: str, schema: dict[str, Any]) -> dict[str, Any]:
    answer: dict[str, Any] = {"description": _DESCRIPTIONS[code], "content": _json(schema)}
    if code in ("429", "503"):
        answer["headers"] = {
            "Retry-After": {
                "schema": {"type": "integer"},
                "description": "Seconds to wait before asking again.",
            }
        }
    return answer


def _bad_request(documented: dict[str, Any] | None) -> dict[str, Any]:
    shapes = [_ref(ERROR), _ref(FIELD_ERRORS)]
    if documented is None:
        return _answer("400", {"anyOf": shapes})
    content = documented.get("content", {}).get("application/json", {})
    own = content.get("schema")
    if own is not None and own not in shapes:
        shapes = [own, *shapes]
    return {**documented, "content": _json({"anyOf": shapes})}


def _needs_authentication(operation: dict[str, Any]) -> bool:
    security = operation.get("security")
    return bool(security and {} not in security)


def _reads_tokens(operation: dict[str, Any]) -> bool:
    return any(requirement for requirement in operation.get("security", []))


def error_responses(result: dict[str, Any], **_: Any) -> dict[str, Any]:
    """Add the error answers of the module's docstring to every operation of ``result``."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    for name, schema in _COMPONENTS.items():
        schemas.setdefault(name, schema)
    for operations in result.get("paths", {}).values():
        for method, operation in operations.items():
            if method not in _METHODS:
                continue
            responses = operation.setdefault("responses", {})
            responses["400"] = _bad_request(responses.get("400"))
            codes = ["404", "429", "503"]
            if _reads_tokens(operation):
                codes.append("401")
            if _needs_authentication(operation) or method != "get":
                codes.append("403")
            if "requestBody" in operation:
                codes += ["413", "415"]
            for code in codes:
                responses.setdefault(code, _answer(code, _ref(ERROR)))
    return result
