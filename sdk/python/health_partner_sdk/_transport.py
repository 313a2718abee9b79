"""HTTP for the generated client: urllib only, bearer or OAuth 2.0 client_credentials auth, and
bounded retries of 429 and 503 that honour Retry-After."""

from __future__ import annotations

import base64
import email.utils
import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Mapping, Optional, Tuple

from .errors import ApiError

#: Statuses that mean "not done, try again later": rate limited, or shedding load / a dependency down.
RETRY_STATUSES = (429, 503)


@dataclass
class Response:
    """One HTTP answer: its status, headers (lower-case names) and decoded body."""

    status: int
    headers: Dict[str, str] = field(default_factory=dict)
    body: Any = None


class Transport:
    """Sends requests for the client. Not meant to be used directly; see ``Client``."""

    def __init__(
        self,
        base_url: str,
        *,
        token: Optional[str] = None,
        client_id: Optional[str] = None,
        client_secret: Optional[str] = None,
        scope: Optional[str] = None,
        token_path: Optional[str] = None,
        timeout: float = 30.0,
        max_retries: int = 3,
        max_retry_wait: float = 60.0,
        user_agent: str = "health-partner-sdk",
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if token and client_id:
            raise ValueError("pass either token or client_id/client_secret, not both")
        if client_id and not (client_secret and token_path):
            raise ValueError("client_id needs client_secret (and an API with an OAuth token endpoint)")
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.max_retries = max(0, max_retries)
        self.max_retry_wait = max_retry_wait
        self.user_agent = user_agent
        self._sleep = sleep
        self._token = token
        self._client = (client_id, client_secret) if client_id and client_secret else None
        self._scope = scope
        self._token_path = token_path
        self._access_token: Optional[Tuple[str, float]] = None
        self._token_lock = threading.Lock()

    def send(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Mapping[str, Any]] = None,
        body: Any = None,
        content_type: Optional[str] = None,
        headers: Optional[Mapping[str, str]] = None,
        authenticated: bool = True,
    ) -> Response:
        """Send one request; retry 429 and 503 at most ``max_retries`` times; raise ``ApiError`` on an error."""
        url = self.base_url + path
        encoded_query = _encode_query(query or {})
        if encoded_query:
            url += "?" + encoded_query
        data = _encode_body(body, content_type)
        retried_auth = False
        attempt = 0
        while True:
            request_headers = {"Accept": "application/json, application/problem+json, */*;q=0.5", "User-Agent": self.user_agent}
            if data is not None:
                request_headers["Content-Type"] = content_type or "application/json"
            bearer = self._bearer() if authenticated else None
            if bearer:
                request_headers["Authorization"] = "Bearer " + bearer
            request_headers.update(headers or {})
            status, response_headers, raw = self._exchange(method, url, data, request_headers)
            if status in RETRY_STATUSES and attempt < self.max_retries:
                wait = _retry_delay(response_headers.get("retry-after"), attempt)
                if wait <= self.max_retry_wait:
                    self._sleep(wait)
                    attempt += 1
                    continue
            if status == 401 and authenticated and self._client and not retried_auth:
                # The access token expired or was revoked early: get a new one, once.
                self._access_token = None
                retried_auth = True
                continue
            if status >= 400:
                raise ApiError.from_response(status, response_headers, raw)
            return Response(status, response_headers, _decode_body(response_headers, raw))

    def _exchange(self, method: str, url: str, data: Optional[bytes], headers: Mapping[str, str]) -> Tuple[int, Dict[str, str], bytes]:
        request = urllib.request.Request(url, data=data, headers=dict(headers), method=method)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as answer:
                return answer.status, _lower(answer.headers.items()), answer.read()
        except urllib.error.HTTPError as error:
            return error.code, _lower(error.headers.items()), error.read()

    def _bearer(self) -> Optional[str]:
        if self._client is None:
            return self._token
        with self._token_lock:
            if self._access_token is None or self._access_token[1] <= time.monotonic():
                self._access_token = self._fetch_access_token()
            return self._access_token[0]

    def _fetch_access_token(self) -> Tuple[str, float]:
        assert self._client is not None and self._token_path is not None
        client_id, client_secret = self._client
        # RFC 6749 section 2.3.1: client_secret_basic, both parts form-encoded first.
        credentials = urllib.parse.quote_plus(client_id) + ":" + urllib.parse.quote_plus(client_secret)
        form: Dict[str, str] = {"grant_type": "client_credentials"}
        if self._scope:
            form["scope"] = self._scope
        answer = self.send(
            "POST", self._token_path, body=form, content_type="application/x-www-form-urlencoded",
            headers={"Authorization": "Basic " + base64.b64encode(credentials.encode("utf-8")).decode("ascii")},
            authenticated=False,
        )
        document = answer.body if isinstance(answer.body, dict) else {}
        expires_in = float(document.get("expires_in") or 300)
        # Renew a little early, so a token does not expire on its way to the server.
        return str(document["access_token"]), time.monotonic() + max(expires_in - 30, expires_in / 2)


def _lower(items: Any) -> Dict[str, str]:
    return {str(name).lower(): str(value) for name, value in items}


def _retry_delay(retry_after: Optional[str], attempt: int) -> float:
    """Seconds to wait: Retry-After (seconds or an HTTP-date) if given, else 0.5 s doubling."""
    if retry_after:
        value = retry_after.strip()
        if value.isdigit():
            return float(value)
        try:
            moment = email.utils.parsedate_to_datetime(value)
            return max(0.0, moment.timestamp() - time.time())
        except (TypeError, ValueError):
            pass
    return 0.5 * (2 ** attempt)


def _encode_query(query: Mapping[str, Any]) -> str:
    pairs = []
    for name, value in query.items():
        if value is None:
            continue
        for item in value if isinstance(value, (list, tuple)) else [value]:
            pairs.append((name, "true" if item is True else "false" if item is False else str(item)))
    return urllib.parse.urlencode(pairs)


def _encode_body(body: Any, content_type: Optional[str]) -> Optional[bytes]:
    if body is None:
        return None
    if isinstance(body, bytes):
        return body
    if isinstance(body, str):
        return body.encode("utf-8")
    if content_type == "application/x-www-form-urlencoded":
        return urllib.parse.urlencode(body, doseq=True).encode("utf-8")
    return json.dumps(body).encode("utf-8")


def _decode_body(headers: Mapping[str, str], raw: bytes) -> Any:
    if not raw:
        return None
    media_type = headers.get("content-type", "").split(";")[0].strip().lower()
    text = raw.decode("utf-8", errors="replace")
    if media_type == "application/json" or media_type.endswith("+json"):
        return json.loads(text)
    return text


def path_segment(value: Any) -> str:
    """A path parameter, percent-encoded so that it stays one segment."""
    return urllib.parse.quote(str(value), safe="")
