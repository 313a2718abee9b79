"""Errors of the API as Python exceptions."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Mapping, Optional


class ApiError(Exception):
    """An error answer of the API.

    Most routes answer RFC 9457 problem documents (``application/problem+json``) with a stable
    ``code`` (``NOT_FOUND``, ``VALIDATION_ERROR``, ``RATE_LIMITED``...) and, for invalid input,
    ``errors``: one ``{"field": ..., "message": ...}`` per field. The OAuth token endpoint answers
    RFC 6749 errors (``code`` is then ``error``, e.g. ``invalid_client``) and FHIR routes answer an
    OperationOutcome (``code`` is the first issue's code, e.g. ``not-found``).

    Attributes:
        status: The HTTP status.
        code: The stable error code.
        detail: A human-readable explanation.
        errors: Field errors, each a dict with ``field`` and ``message``.
        request_id: The ``X-Request-Id`` of the answer, for support requests.
        body: The decoded error body (dict), or its text when it was not JSON.
        headers: The response headers.
    """

    def __init__(
        self,
        status: int,
        code: str,
        detail: str,
        errors: Optional[List[Dict[str, Any]]] = None,
        *,
        request_id: Optional[str] = None,
        body: Any = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> None:
        super().__init__(f"{status} {code}: {detail}")
        self.status = status
        self.code = code
        self.detail = detail
        self.errors: List[Dict[str, Any]] = list(errors or [])
        self.request_id = request_id
        self.body = body
        self.headers: Dict[str, str] = dict(headers or {})

    @property
    def fields(self) -> List[str]:
        """The names of the fields the API refused (``errors[].field``)."""
        return [str(error.get("field")) for error in self.errors if "field" in error]

    @classmethod
    def from_response(cls, status: int, headers: Mapping[str, str], raw: bytes) -> "ApiError":
        """Read an error answer: a problem document, an OAuth error, an OperationOutcome or text."""
        text = raw.decode("utf-8", errors="replace")
        request_id = headers.get("x-request-id")
        try:
            document = json.loads(text) if text else None
        except ValueError:
            document = None
        if isinstance(document, dict):
            if "code" in document:
                return cls(status, str(document["code"]), str(document.get("detail") or document.get("title") or ""),
                           _field_errors(document.get("errors")), request_id=request_id, body=document, headers=headers)
            if "error" in document:
                return cls(status, str(document["error"]), str(document.get("error_description") or ""),
                           request_id=request_id, body=document, headers=headers)
            if document.get("resourceType") == "OperationOutcome":
                issues = [issue for issue in document.get("issue") or [] if isinstance(issue, dict)]
                first = issues[0] if issues else {}
                errors = [{"field": ", ".join(issue.get("expression") or []), "message": issue.get("diagnostics", "")}
                          for issue in issues if issue.get("expression")]
                return cls(status, str(first.get("code") or f"HTTP_{status}"), str(first.get("diagnostics") or ""),
                           errors, request_id=request_id, body=document, headers=headers)
        return cls(status, f"HTTP_{status}", text[:500], request_id=request_id, body=document if document is not None else text, headers=headers)


def _field_errors(value: Any) -> List[Dict[str, Any]]:
    return [error for error in value if isinstance(error, dict)] if isinstance(value, list) else []
