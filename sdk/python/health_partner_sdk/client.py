"""Health Partner Platform API 2.2.0: the client, generated from the OpenAPI document.

Do not edit: run ``npm run sdk:python`` in the repository to generate it again.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence

from ._transport import Response, Transport, path_segment
from ._version import __version__

__all__ = ["Client"]


class Client:
    """Health Partner Platform API: one method per operation, named after its operationId.

    Errors are raised as ``ApiError``; 429 and 503 answers are retried (bounded) after their Retry-After.
    """

    def __init__(
        self,
        base_url: str,
        token: Optional[str] = None,
        *,
        client_id: Optional[str] = None,
        client_secret: Optional[str] = None,
        scope: Optional[str] = None,
        timeout: float = 30.0,
        max_retries: int = 3,
        max_retry_wait: float = 60.0,
    ) -> None:
        """Connect to the API at ``base_url`` (e.g. the sandbox).

        Args:
            base_url: The API's base URL, such as ``https://sandbox.example.com``.
            token: A bearer token: a partner API token or an access token you obtained.
            client_id: An OAuth 2.0 client (client_credentials): the client gets access tokens from
                ``/oauth/token`` itself and renews them before they expire.
            client_secret: That client's secret.
            scope: The scopes to ask for, space-separated (default: all the client's scopes).
            timeout: Seconds to wait for each answer.
            max_retries: How often a 429 or 503 is retried, after its Retry-After (0.5 s doubling without one).
            max_retry_wait: A Retry-After longer than this many seconds is not waited for: the ApiError is raised.
        """
        self._transport = Transport(
            base_url,
            token=token,
            client_id=client_id,
            client_secret=client_secret,
            scope=scope,
            token_path="/oauth/token",
            timeout=timeout,
            max_retries=max_retries,
            max_retry_wait=max_retry_wait,
            user_agent="health-partner-sdk/" + __version__,
        )

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
        """Send any request and get its status and headers too (e.g. a $export kick-off's Content-Location).

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(method, path, query=query, body=body, content_type=content_type, headers=headers, authenticated=authenticated)

    def partner_login(
        self,
        body: Any,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Partner authentication.

        ``POST /cms/partner-login``

        No credential needed. Rate limit: 10/min. Published latency pair: 180ms/450ms.

        Args:
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            "/cms/partner-login",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
            authenticated=False,
        ).body

    def tokens_list(
        self,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """List active tokens.

        ``GET /cms/tokens``

        Credential: bearer; one of the scopes cms.tokens.manage. Rate limit: 30/min. Published
        latency pair: 50ms/130ms.

        Args:
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            "/cms/tokens",
            query={**(params or {})},
            headers=headers,
        ).body

    def tokens_create(
        self,
        body: Any,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Create scoped token.

        ``POST /cms/tokens``

        Credential: bearer; one of the scopes cms.tokens.manage. Rate limit: 5/min. Published
        latency pair: 120ms/300ms.

        Args:
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            "/cms/tokens",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def tokens_revoke(
        self,
        body: Any = None,
        *,
        token_id: Optional[str] = None,
        reason: Optional[str] = None,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Revoke token.

        ``DELETE /cms/tokens``

        Credential: bearer; one of the scopes cms.tokens.manage. Rate limit: 10/min. Published
        latency pair: 60ms/150ms.

        Args:
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            token_id: The API token (tok_…) or OAuth client (cli_…) to revoke; or send it as
                token_id in a JSON body.
            reason: Default partner_request (admin_action for operators acting on another partner);
                admin_action is for operators. One of: partner_request, compromised, admin_action.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "DELETE",
            "/cms/tokens",
            query={"token_id": token_id, "reason": reason, **(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def oauth_register(
        self,
        body: Any,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Register OAuth client.

        ``POST /cms/oauth/register``

        Credential: bearer; one of the scopes cms.tokens.manage. Rate limit: 3/hour. Published
        latency pair: 200ms/500ms.

        Args:
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            "/cms/oauth/register",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def oauth_clients_list(
        self,
        *,
        partner_gpid: Optional[str] = None,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """List OAuth clients.

        ``GET /cms/oauth/clients``

        Credential: bearer; one of the scopes cms.tokens.manage. Rate limit: 30/min.

        Args:
            partner_gpid: Operators: the partner whose clients to list (default: the caller's).
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            "/cms/oauth/clients",
            query={"partner_gpid": partner_gpid, **(params or {})},
            headers=headers,
        ).body

    def oauth_clients_rotate_secret(
        self,
        client_id: str,
        body: Any,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Rotate an OAuth client secret.

        ``POST /cms/oauth/clients/{client_id}/secret``

        Credential: bearer; one of the scopes cms.tokens.manage. Rate limit: 10/hour.

        Args:
            client_id: The client (cli_…).
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            f"/cms/oauth/clients/{path_segment(client_id)}/secret",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def oauth_token(
        self,
        body: Any,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """OAuth token exchange.

        ``POST /oauth/token``

        No credential needed. Rate limit: 30/min. Published latency pair: 100ms/250ms.

        Args:
            body: The request body (application/x-www-form-urlencoded): a dict or list, sent as JSON
                (form fields for a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            "/oauth/token",
            query={**(params or {})},
            body=body,
            content_type="application/x-www-form-urlencoded",
            headers=headers,
            authenticated=False,
        ).body

    def oauth_jwks(
        self,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Public keys of OAuth access tokens (JWK Set).

        ``GET /.well-known/jwks.json``

        No credential needed.

        Args:
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            "/.well-known/jwks.json",
            query={**(params or {})},
            headers=headers,
            authenticated=False,
        ).body

    def oauth_metadata(
        self,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """OAuth authorization server metadata (RFC 8414).

        ``GET /.well-known/oauth-authorization-server``

        No credential needed.

        Args:
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            "/.well-known/oauth-authorization-server",
            query={**(params or {})},
            headers=headers,
            authenticated=False,
        ).body

    def pipeline_health(
        self,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Pipeline health status.

        ``GET /cms/pipeline/health``

        Credential: bearer; one of the scopes cms.pipeline.read, cms.admin. Rate limit: 60/min.
        Published latency pair: 80ms/200ms.

        Args:
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            "/cms/pipeline/health",
            query={**(params or {})},
            headers=headers,
        ).body

    def pipeline_partners(
        self,
        *,
        window: Optional[str] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Per-partner pipeline metrics.

        ``GET /cms/pipeline/partners``

        Credential: bearer; one of the scopes cms.pipeline.read, cms.admin. Rate limit: 30/min.
        Published latency pair: 120ms/350ms.

        Args:
            window: Trailing window of the metrics (jobs created in it); last_completed_at and
                last_failed_at are of all time. One of: 1h, 24h, 7d, 30d.
            limit: Operators: partners per page.
            cursor: Operators: next_cursor of the previous page.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            "/cms/pipeline/partners",
            query={"window": window, "limit": limit, "cursor": cursor, **(params or {})},
            headers=headers,
        ).body

    def partners_scopes_update(
        self,
        gpid: str,
        body: Any,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Replace a partner's granted scopes (operators).

        ``PUT /cms/partners/{gpid}/scopes``

        Credential: bearer; one of the scopes cms.admin. Rate limit: 30/min.

        Args:
            gpid: Path parameter.
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "PUT",
            f"/cms/partners/{path_segment(gpid)}/scopes",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def partners_rate_limits(
        self,
        gpid: str,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """A partner's rate-limit usage.

        ``GET /cms/partners/{gpid}/rate-limits``

        Credential: bearer; one of the scopes cms.partner.read, cms.pipeline.read,
        cms.tokens.manage, cms.admin. Rate limit: 60/min.

        Args:
            gpid: Your own GPID, or any partner's for operators.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            f"/cms/partners/{path_segment(gpid)}/rate-limits",
            query={**(params or {})},
            headers=headers,
        ).body

    def sdk_catalog(
        self,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """SDK catalog.

        ``GET /cms-ecosystem/sdk-catalog``

        Credential: bearer; one of the scopes cms.sdk.read. Rate limit: 60/min. Published latency
        pair: 30ms/80ms.

        Args:
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            "/cms-ecosystem/sdk-catalog",
            query={**(params or {})},
            headers=headers,
        ).body

    def identity_match(
        self,
        body: Any,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Match demographics; returns candidates with confidence scores and a match type.

        ``POST /api/identity/match``

        Credential: service; one of the scopes identity.match. Rate limit: 120/min. Published
        latency pair: 85ms/220ms.

        Args:
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            "/api/identity/match",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def identity_resolve(
        self,
        body: Any,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Resolve or create a GPID.

        ``POST /api/identity/resolve``

        Credential: service; one of the scopes identity.resolve. Rate limit: 60/min. Published
        latency pair: 120ms/350ms.

        Args:
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            "/api/identity/resolve",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def identity_get(
        self,
        gpid: str,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Get identity record.

        ``GET /api/identity/{gpid}``

        Credential: bearer; one of the scopes identity.read, cms.admin. Rate limit: 120/min.
        Published latency pair: 55ms/150ms.

        Args:
            gpid: Path parameter.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            f"/api/identity/{path_segment(gpid)}",
            query={**(params or {})},
            headers=headers,
        ).body

    def identity_merge(
        self,
        body: Any,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Merge GPIDs into a survivor; needs a merge reason; approval required.

        ``POST /api/identity/merge``

        Credential: bearer; one of the scopes identity.merge, identity.approve. Rate limit: 10/min.
        Published latency pair: 300ms/800ms.

        Args:
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            "/api/identity/merge",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def identity_split(
        self,
        body: Any,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Split a falsely merged GPID; needs a split reason; approval required.

        ``POST /api/identity/split``

        Credential: bearer; one of the scopes identity.split, identity.approve. Rate limit: 10/min.
        Published latency pair: 350ms/900ms.

        Args:
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            "/api/identity/split",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def identity_review_list(
        self,
        *,
        status: Optional[str] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """The review queue: records linked for review, with the candidates and the explanation.

        ``GET /api/identity/review``

        Credential: bearer; one of the scopes identity.merge, identity.approve, cms.admin. Rate
        limit: 120/min.

        Args:
            status: Open items (a candidate is undecided) or closed ones. One of: open, closed.
            limit: Items per page (a partner's page may hold fewer: follow next_cursor).
            cursor: next_cursor of the previous page.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            "/api/identity/review",
            query={"status": status, "limit": limit, "cursor": cursor, **(params or {})},
            headers=headers,
        ).body

    def identity_review_get(
        self,
        id: str,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """One review item with its candidates, scores, agreement pattern and decisions.

        ``GET /api/identity/review/{id}``

        Credential: bearer; one of the scopes identity.merge, identity.approve, cms.admin. Rate
        limit: 120/min.

        Args:
            id: Path parameter.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            f"/api/identity/review/{path_segment(id)}",
            query={**(params or {})},
            headers=headers,
        ).body

    def identity_review_decide(
        self,
        id: str,
        body: Any,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Decide one candidate of a review item: the same person (a merge request) or not (separated for good).

        ``POST /api/identity/review/{id}/decision``

        Credential: bearer; one of the scopes identity.merge. Rate limit: 30/min.

        Args:
            id: Path parameter.
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            f"/api/identity/review/{path_segment(id)}/decision",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def identity_change_requests_list(
        self,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        status: Optional[str] = None,
        kind: Optional[str] = None,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Merge and split requests, newest first (paged): every request for operators, your partner's otherwise.

        ``GET /api/identity/change-requests``

        Credential: bearer; one of the scopes identity.merge, identity.split, identity.approve,
        cms.admin. Rate limit: 120/min.

        Args:
            limit: Items per page.
            cursor: next_cursor of the previous page.
            status: Only requests in this state (any case). One of: pending, applied, rejected,
                expired.
            kind: Only merges or only splits. One of: merge, split.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            "/api/identity/change-requests",
            query={"limit": limit, "cursor": cursor, "status": status, "kind": kind, **(params or {})},
            headers=headers,
        ).body

    def identity_change_requests_get(
        self,
        request_id: str,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """One merge or split request, with its decision and how to approve it while pending.

        ``GET /api/identity/change-requests/{request_id}``

        Credential: bearer; one of the scopes identity.merge, identity.split, identity.approve,
        cms.admin. Rate limit: 120/min.

        Args:
            request_id: The request (mrg_… or spl_…), as POST /api/identity/merge|split answered it.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            f"/api/identity/change-requests/{path_segment(request_id)}",
            query={**(params or {})},
            headers=headers,
        ).body

    def identity_audit_list(
        self,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        types: Optional[str] = None,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """The hash-chained identity audit entries in order, oldest first (paged); a partner's approver reads the changes its partner requested.

        ``GET /api/identity/audit``

        Credential: bearer; one of the scopes cms.admin, identity.approve. Rate limit: 60/min.

        Args:
            limit: Items per page.
            cursor: next_cursor of the previous page.
            types: Comma-separated audit event types to keep (e.g.
                identity.merged.v1,identity.split.v1).
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            "/api/identity/audit",
            query={"limit": limit, "cursor": cursor, "types": types, **(params or {})},
            headers=headers,
        ).body

    def identity_audit_verify(
        self,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Verify the identity audit chain: walk it from its first entry, recomputing every hash (tamper evidence). Operators only: the chain holds every partner's changes.

        ``GET /api/identity/audit/verification``

        Credential: bearer; one of the scopes cms.admin. Rate limit: 10/min.

        Args:
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            "/api/identity/audit/verification",
            query={**(params or {})},
            headers=headers,
        ).body

    def identity_entity_types(
        self,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """The 22 entity types of the registry, patient first and service last.

        ``GET /api/identity/entity-types``

        Credential: bearer. Rate limit: 60/min.

        Args:
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            "/api/identity/entity-types",
            query={**(params or {})},
            headers=headers,
        ).body

    def identity_model_list(
        self,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Every version of the identity match scoring model, newest first (operators).

        ``GET /api/identity/scoring-models``

        Credential: bearer; one of the scopes cms.admin. Rate limit: 30/min.

        Args:
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            "/api/identity/scoring-models",
            query={**(params or {})},
            headers=headers,
        ).body

    def identity_model_train(
        self,
        body: Any,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Train a new version of the identity match scoring model on the registry and make it active (operators).

        ``POST /api/identity/scoring-models``

        Credential: bearer; one of the scopes cms.admin. Rate limit: 2/min.

        Args:
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            "/api/identity/scoring-models",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def identity_model_get(
        self,
        version: str,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """A version of the identity match scoring model, or the active one (operators).

        ``GET /api/identity/scoring-models/{version}``

        Credential: bearer; one of the scopes cms.admin. Rate limit: 30/min.

        Args:
            version: A version number, or active.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            f"/api/identity/scoring-models/{path_segment(version)}",
            query={**(params or {})},
            headers=headers,
        ).body

    def identity_model_activate(
        self,
        version: str,
        body: Any = None,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Make a stored version of the identity match scoring model the active one: a rollback, or forward (operators).

        ``POST /api/identity/scoring-models/{version}/activate``

        Credential: bearer; one of the scopes cms.admin. Rate limit: 10/min.

        Args:
            version: A stored version; 1 is the built-in model.
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            f"/api/identity/scoring-models/{path_segment(version)}/activate",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def fhir_metadata(
        self,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """CapabilityStatement: supported types and interactions.

        ``GET /fhir/R4/metadata``

        No credential needed.

        Args:
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            "/fhir/R4/metadata",
            query={**(params or {})},
            headers=headers,
            authenticated=False,
        ).body

    def fhir_smart_configuration(
        self,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """SMART on FHIR OAuth discovery.

        ``GET /fhir/R4/.well-known/smart-configuration``

        No credential needed.

        Args:
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            "/fhir/R4/.well-known/smart-configuration",
            query={**(params or {})},
            headers=headers,
            authenticated=False,
        ).body

    def fhir_smart_configuration_origin(
        self,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """SMART on FHIR OAuth discovery (at the origin).

        ``GET /.well-known/smart-configuration``

        No credential needed.

        Args:
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            "/.well-known/smart-configuration",
            query={**(params or {})},
            headers=headers,
            authenticated=False,
        ).body

    def fhir_export(
        self,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Bulk data export of every type, an asynchronous job (Prefer: respond-async; system/*.read scope).

        ``GET /fhir/R4/$export``

        Credential: bearer; one of the scopes system/*.read, system/Patient.read.

        Args:
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            "/fhir/R4/$export",
            query={**(params or {})},
            headers=headers,
        ).body

    def fhir_export_post(
        self,
        body: Any = None,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Bulk data export kick-off with a Parameters body (_type, _since, _outputFormat, _typeFilter).

        ``POST /fhir/R4/$export``

        Credential: bearer; one of the scopes system/*.read, system/Patient.read.

        Args:
            body: The request body (application/fhir+json): a dict or list, sent as JSON (form
                fields for a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            "/fhir/R4/$export",
            query={**(params or {})},
            body=body,
            content_type="application/fhir+json",
            headers=headers,
        ).body

    def fhir_export_patient(
        self,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Bulk data export of the Patient compartment of every patient.

        ``GET /fhir/R4/Patient/$export``

        Credential: bearer; one of the scopes system/*.read, system/Patient.read.

        Args:
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            "/fhir/R4/Patient/$export",
            query={**(params or {})},
            headers=headers,
        ).body

    def fhir_export_patient_post(
        self,
        body: Any = None,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Patient-level bulk data export kick-off with a Parameters body.

        ``POST /fhir/R4/Patient/$export``

        Credential: bearer; one of the scopes system/*.read, system/Patient.read.

        Args:
            body: The request body (application/fhir+json): a dict or list, sent as JSON (form
                fields for a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            "/fhir/R4/Patient/$export",
            query={**(params or {})},
            body=body,
            content_type="application/fhir+json",
            headers=headers,
        ).body

    def fhir_export_group(
        self,
        id: str,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Bulk data export of the Patient compartment of a Group’s patients.

        ``GET /fhir/R4/Group/{id}/$export``

        Credential: bearer; one of the scopes system/*.read, system/Patient.read.

        Args:
            id: Path parameter.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            f"/fhir/R4/Group/{path_segment(id)}/$export",
            query={**(params or {})},
            headers=headers,
        ).body

    def fhir_export_group_post(
        self,
        id: str,
        body: Any = None,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Group-level bulk data export kick-off with a Parameters body.

        ``POST /fhir/R4/Group/{id}/$export``

        Credential: bearer; one of the scopes system/*.read, system/Patient.read.

        Args:
            id: Path parameter.
            body: The request body (application/fhir+json): a dict or list, sent as JSON (form
                fields for a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            f"/fhir/R4/Group/{path_segment(id)}/$export",
            query={**(params or {})},
            body=body,
            content_type="application/fhir+json",
            headers=headers,
        ).body

    def fhir_export_status(
        self,
        job_id: str,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Poll an export: 202 with X-Progress and Retry-After, then 200 with the manifest.

        ``GET /fhir/R4/$export-status/{jobId}``

        Credential: bearer.

        Args:
            job_id: Path parameter.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            f"/fhir/R4/$export-status/{path_segment(job_id)}",
            query={**(params or {})},
            headers=headers,
        ).body

    def fhir_export_cancel(
        self,
        job_id: str,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Cancel an export and delete its files.

        ``DELETE /fhir/R4/$export-status/{jobId}``

        Credential: bearer.

        Args:
            job_id: Path parameter.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "DELETE",
            f"/fhir/R4/$export-status/{path_segment(job_id)}",
            query={**(params or {})},
            headers=headers,
        ).body

    def fhir_export_file(
        self,
        job_id: str,
        file: str,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Download an NDJSON output file of a completed export (the partner that asked only).

        ``GET /fhir/R4/$export-file/{jobId}/{file}``

        Credential: bearer.

        Args:
            job_id: Path parameter.
            file: Path parameter.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            f"/fhir/R4/$export-file/{path_segment(job_id)}/{path_segment(file)}",
            query={**(params or {})},
            headers=headers,
        ).body

    def fhir_patient_match(
        self,
        body: Any = None,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Patient $match by identity resolution: the caller’s Patients whose GPID matches, with search.score and match-grade (needs Patient search: cms.fhir.r4.read or a SMART Patient .read/.s scope).

        ``POST /fhir/R4/Patient/$match``

        Credential: bearer.

        Args:
            body: The request body (application/fhir+json): a dict or list, sent as JSON (form
                fields for a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            "/fhir/R4/Patient/$match",
            query={**(params or {})},
            body=body,
            content_type="application/fhir+json",
            headers=headers,
        ).body

    def fhir_search(
        self,
        resource_type: str,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Search with FHIR search parameters (cms.fhir.r4.read or a SMART .s/.read scope for the type).

        ``GET /fhir/R4/{resourceType}``

        Credential: bearer.

        Args:
            resource_type: Path parameter.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            f"/fhir/R4/{path_segment(resource_type)}",
            query={**(params or {})},
            headers=headers,
        ).body

    def fhir_update_conditional(
        self,
        resource_type: str,
        body: Any = None,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Conditional update: create when the query matches nothing, update the one match, 412 for several.

        ``PUT /fhir/R4/{resourceType}``

        Credential: bearer.

        Args:
            resource_type: Path parameter.
            body: The request body (application/fhir+json): a dict or list, sent as JSON (form
                fields for a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "PUT",
            f"/fhir/R4/{path_segment(resource_type)}",
            query={**(params or {})},
            body=body,
            content_type="application/fhir+json",
            headers=headers,
        ).body

    def fhir_create(
        self,
        resource_type: str,
        body: Any = None,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Create a resource (write scope required; If-None-Exist for a conditional create).

        ``POST /fhir/R4/{resourceType}``

        Credential: bearer.

        Args:
            resource_type: Path parameter.
            body: The request body (application/fhir+json): a dict or list, sent as JSON (form
                fields for a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            f"/fhir/R4/{path_segment(resource_type)}",
            query={**(params or {})},
            body=body,
            content_type="application/fhir+json",
            headers=headers,
        ).body

    def fhir_delete_conditional(
        self,
        resource_type: str,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Conditional delete of the one resource the query matches (412 for several).

        ``DELETE /fhir/R4/{resourceType}``

        Credential: bearer.

        Args:
            resource_type: Path parameter.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "DELETE",
            f"/fhir/R4/{path_segment(resource_type)}",
            query={**(params or {})},
            headers=headers,
        ).body

    def fhir_patch_conditional(
        self,
        resource_type: str,
        body: Any = None,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Conditional patch: the one resource the query matches (404 none, 412 several).

        ``PATCH /fhir/R4/{resourceType}``

        Credential: bearer.

        Args:
            resource_type: Path parameter.
            body: The request body (application/fhir+json): a dict or list, sent as JSON (form
                fields for a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "PATCH",
            f"/fhir/R4/{path_segment(resource_type)}",
            query={**(params or {})},
            body=body,
            content_type="application/fhir+json",
            headers=headers,
        ).body

    def fhir_search_post(
        self,
        resource_type: str,
        body: Any = None,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Search with parameters in a form-encoded body.

        ``POST /fhir/R4/{resourceType}/_search``

        Credential: bearer.

        Args:
            resource_type: Path parameter.
            body: The request body (application/fhir+json): a dict or list, sent as JSON (form
                fields for a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            f"/fhir/R4/{path_segment(resource_type)}/_search",
            query={**(params or {})},
            body=body,
            content_type="application/fhir+json",
            headers=headers,
        ).body

    def fhir_read(
        self,
        resource_type: str,
        id: str,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Read one resource by logical id (cms.fhir.r4.read or a SMART .r/.read scope for the type).

        ``GET /fhir/R4/{resourceType}/{id}``

        Credential: bearer.

        Args:
            resource_type: Path parameter.
            id: Path parameter.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            f"/fhir/R4/{path_segment(resource_type)}/{path_segment(id)}",
            query={**(params or {})},
            headers=headers,
        ).body

    def fhir_update(
        self,
        resource_type: str,
        id: str,
        body: Any = None,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Update an existing resource (If-Match for optimistic locking).

        ``PUT /fhir/R4/{resourceType}/{id}``

        Credential: bearer.

        Args:
            resource_type: Path parameter.
            id: Path parameter.
            body: The request body (application/fhir+json): a dict or list, sent as JSON (form
                fields for a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "PUT",
            f"/fhir/R4/{path_segment(resource_type)}/{path_segment(id)}",
            query={**(params or {})},
            body=body,
            content_type="application/fhir+json",
            headers=headers,
        ).body

    def fhir_delete(
        self,
        resource_type: str,
        id: str,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Delete a resource (soft: reads answer 410 afterwards).

        ``DELETE /fhir/R4/{resourceType}/{id}``

        Credential: bearer.

        Args:
            resource_type: Path parameter.
            id: Path parameter.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "DELETE",
            f"/fhir/R4/{path_segment(resource_type)}/{path_segment(id)}",
            query={**(params or {})},
            headers=headers,
        ).body

    def fhir_patch(
        self,
        resource_type: str,
        id: str,
        body: Any = None,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Patch a resource with a JSON Patch (application/json-patch+json; If-Match honoured).

        ``PATCH /fhir/R4/{resourceType}/{id}``

        Credential: bearer.

        Args:
            resource_type: Path parameter.
            id: Path parameter.
            body: The request body (application/fhir+json): a dict or list, sent as JSON (form
                fields for a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "PATCH",
            f"/fhir/R4/{path_segment(resource_type)}/{path_segment(id)}",
            query={**(params or {})},
            body=body,
            content_type="application/fhir+json",
            headers=headers,
        ).body

    def fhir_vread(
        self,
        resource_type: str,
        id: str,
        version_id: str,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Read one version of a resource.

        ``GET /fhir/R4/{resourceType}/{id}/_history/{versionId}``

        Credential: bearer.

        Args:
            resource_type: Path parameter.
            id: Path parameter.
            version_id: Path parameter.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            f"/fhir/R4/{path_segment(resource_type)}/{path_segment(id)}/_history/{path_segment(version_id)}",
            query={**(params or {})},
            headers=headers,
        ).body

    def fhir_history_instance(
        self,
        resource_type: str,
        id: str,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Every version of one resource, newest first.

        ``GET /fhir/R4/{resourceType}/{id}/_history``

        Credential: bearer.

        Args:
            resource_type: Path parameter.
            id: Path parameter.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            f"/fhir/R4/{path_segment(resource_type)}/{path_segment(id)}/_history",
            query={**(params or {})},
            headers=headers,
        ).body

    def fhir_history_type(
        self,
        resource_type: str,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Every version of every visible resource of a type, newest first.

        ``GET /fhir/R4/{resourceType}/_history``

        Credential: bearer.

        Args:
            resource_type: Path parameter.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            f"/fhir/R4/{path_segment(resource_type)}/_history",
            query={**(params or {})},
            headers=headers,
        ).body

    def fhir_bundle(
        self,
        body: Any = None,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Submit a transaction or batch Bundle (at most 1000 entries; each entry also needs its own interaction scope). With Prefer: respond-async, or an NDJSON body (application/fhir+ndjson), a durable sync job: 202 and Content-Location …/$sync-status/{jobId}.

        ``POST /fhir/R4``

        Credential: bearer; one of the scopes cms.fhir.bundle.push, system/*.write. Limits (`code`
        and `limit` name the one exceeded): A transaction or batch Bundle, synchronous or with
        Prefer: respond-async, carries at most 1,000 entries (bundle.entries, 413
        PAYLOAD_TOO_LARGE). An NDJSON push carries at most 10,000 resources (ndjson.lines) and each
        line at most 1,048,576 characters (ndjson.line_length), 413 PAYLOAD_TOO_LARGE naming the
        line. Any body at most 5 MiB (413 PAYLOAD_TOO_LARGE).

        Args:
            body: The request body (application/fhir+json): a dict or list, sent as JSON (form
                fields for a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            "/fhir/R4",
            query={**(params or {})},
            body=body,
            content_type="application/fhir+json",
            headers=headers,
        ).body

    def fhir_sync_status(
        self,
        job_id: str,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Poll an asynchronous Bundle or NDJSON submission: 202 with X-Progress while it runs, then its answer (the submitting partner only).

        ``GET /fhir/R4/$sync-status/{jobId}``

        Credential: bearer.

        Args:
            job_id: Path parameter.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            f"/fhir/R4/$sync-status/{path_segment(job_id)}",
            query={**(params or {})},
            headers=headers,
        ).body

    def catalog_routes(
        self,
        *,
        product: Optional[str] = None,
        implemented: Optional[str] = None,
        deprecated: Optional[str] = None,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Full route catalog; authentication required.

        ``GET /api/partner/routes``

        Credential: bearer. Rate limit: 30/min.

        Args:
            product: Only routes of this product. One of: partner-ecosystem, identity, fhir, tefca,
                analytics, clearinghouse, wearables, platform.
            implemented: Only routes that are (or are not yet) served. One of: true, false.
            deprecated: Only deprecated (or current) routes. One of: true, false.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            "/api/partner/routes",
            query={"product": product, "implemented": implemented, "deprecated": deprecated, **(params or {})},
            headers=headers,
        ).body

    def webhooks_list(
        self,
        *,
        partner_gpid: Optional[str] = None,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """List partner webhooks.

        ``GET /api/partner/webhooks``

        Credential: bearer; one of the scopes cms.webhooks.manage, cms.admin. Rate limit: 60/min.

        Args:
            partner_gpid: Operators: only this partner's webhooks (default: every partner's). A
                partner sees only its own.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            "/api/partner/webhooks",
            query={"partner_gpid": partner_gpid, **(params or {})},
            headers=headers,
        ).body

    def webhooks_register(
        self,
        body: Any,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Register a partner webhook (including TEFCA events).

        ``POST /api/partner/webhooks``

        Credential: bearer; one of the scopes cms.webhooks.manage, cms.admin. Rate limit: 10/min.

        Args:
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            "/api/partner/webhooks",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def webhooks_remove(
        self,
        body: Any = None,
        *,
        webhook_id: Optional[str] = None,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Remove a partner webhook (?webhook_id=whk_…).

        ``DELETE /api/partner/webhooks``

        Credential: bearer; one of the scopes cms.webhooks.manage, cms.admin. Rate limit: 30/min.

        Args:
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            webhook_id: The webhook to remove (or send it as webhook_id in a JSON body). Waiting
                deliveries are cancelled.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "DELETE",
            "/api/partner/webhooks",
            query={"webhook_id": webhook_id, **(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def certification_status(
        self,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """The caller's certification: both checklists, items, evidence and status.

        ``GET /api/partner/certification``

        Credential: bearer; one of the scopes cms.partner.read, cms.partner.write. Rate limit:
        30/min.

        Args:
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            "/api/partner/certification",
            query={**(params or {})},
            headers=headers,
        ).body

    def certification_submit(
        self,
        body: Any,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Submit certification to the server.

        ``POST /api/partner/certification``

        Credential: bearer; one of the scopes cms.partner.write. Rate limit: 10/min.

        Args:
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            "/api/partner/certification",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def certification_progress(
        self,
        body: Any,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Sync certification checklist progress.

        ``PUT /api/partner/certification/progress``

        Credential: bearer; one of the scopes cms.partner.write. Rate limit: 30/min.

        Args:
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "PUT",
            "/api/partner/certification/progress",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def sdk_catalog_live(
        self,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Live SDK catalog.

        ``GET /api/cms/sdk-catalog``

        Credential: bearer; one of the scopes cms.sdk.read. Rate limit: 60/min.

        Args:
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            "/api/cms/sdk-catalog",
            query={**(params or {})},
            headers=headers,
        ).body

    def openapi_download(
        self,
        spec: str,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Download an OpenAPI YAML specification.

        ``GET /api/openapi/{spec}``

        No credential needed. Rate limit: 60/min.

        Args:
            spec: Path parameter.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            f"/api/openapi/{path_segment(spec)}",
            query={**(params or {})},
            headers=headers,
            authenticated=False,
        ).body

    def openapi_postman(
        self,
        spec: str,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Download an OpenAPI specification as a Postman collection.

        ``GET /api/openapi/{spec}.postman.json``

        No credential needed. Rate limit: 60/min.

        Args:
            spec: An OpenAPI document name, as in GET /api/openapi/{spec}: a product, or all.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            f"/api/openapi/{path_segment(spec)}.postman.json",
            query={**(params or {})},
            headers=headers,
            authenticated=False,
        ).body

    def changelog_rss(
        self,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Changelog RSS feed.

        ``GET /api/changelog/rss``

        No credential needed. Rate limit: 60/min.

        Args:
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            "/api/changelog/rss",
            query={**(params or {})},
            headers=headers,
            authenticated=False,
        ).body

    def tefca_xca_retrieve(
        self,
        body: Any,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Document retrieve (ITI-39).

        ``POST /tefca/xca/retrieve``

        Credential: bearer; one of the scopes tefca.xca.retrieve.

        Args:
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            "/tefca/xca/retrieve",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def tefca_exchanges(
        self,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        direction: Optional[str] = None,
        partner_gpid: Optional[str] = None,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Partner audit log of TEFCA exchanges.

        ``GET /tefca/exchanges``

        Credential: bearer; one of the scopes tefca.xcpd.search, tefca.xcpd.discover,
        tefca.xca.search, tefca.xca.query, tefca.xca.retrieve.

        Args:
            limit: Page size (default 20).
            cursor: next_cursor of the previous page.
            direction: Only inbound or outbound exchanges. One of: inbound, outbound.
            partner_gpid: Operators: one partner's exchanges.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            "/tefca/exchanges",
            query={"limit": limit, "cursor": cursor, "direction": direction, "partner_gpid": partner_gpid, **(params or {})},
            headers=headers,
        ).body

    def tefca_communities(
        self,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """The TEFCA network directory: this community first, then its peers (credentials are never shown).

        ``GET /tefca/communities``

        Credential: bearer; one of the scopes tefca.xcpd.search, tefca.xcpd.discover,
        tefca.xca.search, tefca.xca.query, tefca.xca.retrieve.

        Args:
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            "/tefca/communities",
            query={**(params or {})},
            headers=headers,
        ).body

    def tefca_exchange(
        self,
        exchange_id: str,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """One exchange of the caller's TEFCA audit log (operators: any partner's).

        ``GET /tefca/exchanges/{exchange_id}``

        Credential: bearer; one of the scopes tefca.xcpd.search, tefca.xcpd.discover,
        tefca.xca.search, tefca.xca.query, tefca.xca.retrieve.

        Args:
            exchange_id: The exchange (xch_…), as an exchange answered it or GET /tefca/exchanges
                lists it.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            f"/tefca/exchanges/{path_segment(exchange_id)}",
            query={**(params or {})},
            headers=headers,
        ).body

    def tefca_xcpd_search(
        self,
        body: Any,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """TEFCA patient discovery, outbound.

        ``POST /tefca/xcpd/search``

        Credential: bearer; one of the scopes tefca.xcpd.search.

        Args:
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            "/tefca/xcpd/search",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def tefca_xcpd_discover(
        self,
        body: Any,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """TEFCA patient discovery, inbound.

        ``POST /tefca/xcpd/discover``

        Credential: bearer; one of the scopes tefca.xcpd.discover.

        Args:
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            "/tefca/xcpd/discover",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def tefca_xca_search(
        self,
        body: Any,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """TEFCA document query, outbound.

        ``POST /tefca/xca/search``

        Credential: bearer; one of the scopes tefca.xca.search.

        Args:
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            "/tefca/xca/search",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def tefca_xca_query(
        self,
        body: Any,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """TEFCA document query, inbound.

        ``POST /tefca/xca/query``

        Credential: bearer; one of the scopes tefca.xca.query.

        Args:
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            "/tefca/xca/query",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def wearables_ingest(
        self,
        wearable_product: str,
        body: Any,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Wearable event ingest: a batch of device readings stored as FHIR Observations by a sync job.

        ``POST /{wearableProduct}/v1/wearables/events``

        Credential: bearer; one of the scopes pulse.wearables.ingest, beacon.wearables.ingest. Rate
        limit: 120/min. Limits (`code` and `limit` name the one exceeded): At most 1,000 readings a
        batch (wearables.events, 413 PAYLOAD_TOO_LARGE); any body at most 5 MiB.

        Args:
            wearable_product: The wearable product (a source origin); any other answers 404. One of:
                pulse, beacon.
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            f"/{path_segment(wearable_product)}/v1/wearables/events",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def analytics_query_nl(
        self,
        body: Any,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Natural-language query step of a two-step flow; takes a purpose_of_use. Answers the reviewable structured query (query_id, explanation, expiry); an unreadable question is a 422 saying what was and was not understood..

        ``POST /analytics/v1/query/nl``

        Credential: bearer; one of the scopes analytics.query. Rate limit: 60/min.

        Args:
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            "/analytics/v1/query/nl",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def analytics_query_execute(
        self,
        body: Any,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Execute step of the two-step query flow: runs a stored query_id over the FHIR resources the caller may read (needs FHIR search scopes for the types it reads).

        ``POST /analytics/v1/query/execute``

        Credential: bearer; one of the scopes analytics.query. Rate limit: 30/min.

        Args:
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            "/analytics/v1/query/execute",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def analytics_score_compute(
        self,
        body: Any,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Score computation: the Charlson Comorbidity Index of a patient from its Condition codes, with the contributing conditions.

        ``POST /analytics/v1/analytics-score/compute``

        Credential: bearer; one of the scopes analytics.score. Rate limit: 120/min.

        Args:
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            "/analytics/v1/analytics-score/compute",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def analytics_v1_query(
        self,
        body: Any,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Legacy one-step analytics query: nl then execute in one call (body as /query/nl; the question may be sent as query).

        ``POST /analytics/v1/query`` (deprecated)

        Credential: bearer; one of the scopes analytics.query. Rate limit: 30/min. Deprecated since
        2026-06-12; sunset 2026-09-12 (410 Gone afterwards). Use POST /analytics/v1/query/nl or POST
        /analytics/v1/query/execute.

        Args:
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            "/analytics/v1/query",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def analytics_v1_risk_score(
        self,
        *,
        patient_id: str,
        weights: Optional[str] = None,
        age_adjusted: Optional[str] = None,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Legacy risk score: the score computation with query parameters.

        ``GET /analytics/v1/risk-score`` (deprecated)

        Credential: bearer; one of the scopes analytics.score. Rate limit: 120/min. Deprecated since
        2026-06-12; sunset 2026-09-12 (410 Gone afterwards). Use POST
        /analytics/v1/analytics-score/compute.

        Args:
            patient_id: Logical id of the Patient.
            weights: Default quan-2011. One of: quan-2011, charlson-1987.
            age_adjusted: Add age points. Default false. One of: true, false.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            "/analytics/v1/risk-score",
            query={"patient_id": patient_id, "weights": weights, "age_adjusted": age_adjusted, **(params or {})},
            headers=headers,
        ).body

    def tefca_v1_patient_discovery(
        self,
        body: Any,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Legacy TEFCA patient discovery.

        ``POST /tefca/v1/patient-discovery`` (deprecated)

        Credential: bearer; one of the scopes tefca.xcpd.search, tefca.xcpd.discover. Deprecated
        since 2026-06-12; sunset 2026-09-12 (410 Gone afterwards). Use POST /tefca/xcpd/search or
        POST /tefca/xcpd/discover.

        Args:
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            "/tefca/v1/patient-discovery",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def tefca_v1_document_query(
        self,
        body: Any,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Legacy TEFCA document query.

        ``POST /tefca/v1/document-query`` (deprecated)

        Credential: bearer; one of the scopes tefca.xca.search, tefca.xca.query. Deprecated since
        2026-06-12; sunset 2026-09-12 (410 Gone afterwards). Use POST /tefca/xca/search or POST
        /tefca/xca/query.

        Args:
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            "/tefca/v1/document-query",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def legal_documents_list(
        self,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Legal document catalog (MNDA, BAA, consent forms) with SHA-256 digests.

        ``GET /cms/legal/documents``

        No credential needed. Rate limit: 60/min.

        Args:
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            "/cms/legal/documents",
            query={**(params or {})},
            headers=headers,
            authenticated=False,
        ).body

    def legal_documents_download(
        self,
        file_name: str,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Download a legal document as text/plain; the ETag is its SHA-256.

        ``GET /cms/legal/documents/{file_name}``

        No credential needed. Rate limit: 60/min.

        Args:
            file_name: Path parameter.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            f"/cms/legal/documents/{path_segment(file_name)}",
            query={**(params or {})},
            headers=headers,
            authenticated=False,
        ).body

    def legal_baa_list(
        self,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """The caller's partner's BAA e-signatures.

        ``GET /cms/legal/baa/signatures``

        Credential: bearer; one of the scopes cms.partner.read, cms.partner.write. Rate limit:
        30/min.

        Args:
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            "/cms/legal/baa/signatures",
            query={**(params or {})},
            headers=headers,
        ).body

    def legal_baa_sign(
        self,
        body: Any,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """E-sign the Business Associate Agreement (immutable; a second signature of the same version is 409).

        ``POST /cms/legal/baa/signatures``

        Credential: bearer; one of the scopes cms.partner.write. Rate limit: 10/min.

        Args:
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            "/cms/legal/baa/signatures",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def clearinghouse_eligibility(
        self,
        body: Any,
        *,
        content_type: Optional[str] = None,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Eligibility and benefit inquiry (X12 270 → 271) against the sandbox payer; X12 or JSON both ways.

        ``POST /velocity/v1/clearinghouse/eligibility``

        Credential: bearer; one of the scopes velocity.clearinghouse.eligibility. Rate limit:
        120/min. Limits (`code` and `limit` name the one exceeded): An X12 270 may be at most
        100,000 bytes (x12.bytes, PAYLOAD_TOO_LARGE); 2,000 segments from ISA to IEA (x12.segments,
        TOO_MANY_SEGMENTS); 2,048 characters a segment (x12.segment_length, SEGMENT_TOO_LONG); 512
        characters an element (x12.element_length, ELEMENT_TOO_LONG); 99 repetitions of an element
        (x12.repetitions, TOO_MANY_REPETITIONS); 100 HL levels (x12.hl_levels, TOO_MANY_LOOPS); HL
        levels nested 4 deep (x12.hl_depth, NESTING_TOO_DEEP); 99 eligibility or benefit inquiries
        (EQ) per HL level (loop 2110C, x12.eq_per_level) (TOO_MANY_LOOPS); each refused with 413
        before a segment is built. The JSON form: at most 99 service_type_codes, every text field at
        most 80 characters (422 VALIDATION_ERROR naming the field).

        Args:
            body: The request body (application/json, application/edi-x12, text/plain): a dict or
                list, sent as JSON (form fields for a form media type), or str or bytes sent as they
                are.
            content_type: The body's media type, default application/json.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            "/velocity/v1/clearinghouse/eligibility",
            query={**(params or {})},
            body=body,
            content_type=content_type or "application/json",
            headers=headers,
        ).body

    def clearinghouse_claim_status(
        self,
        body: Any,
        *,
        content_type: Optional[str] = None,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Claim status inquiry (X12 276 → 277); claims submitted here are answered from their stored status.

        ``POST /velocity/v1/clearinghouse/claim-status``

        Credential: bearer; one of the scopes velocity.clearinghouse.claim-status. Rate limit:
        120/min. Limits (`code` and `limit` name the one exceeded): An X12 276 may be at most
        100,000 bytes (x12.bytes, PAYLOAD_TOO_LARGE); 2,000 segments from ISA to IEA (x12.segments,
        TOO_MANY_SEGMENTS); 2,048 characters a segment (x12.segment_length, SEGMENT_TOO_LONG); 512
        characters an element (x12.element_length, ELEMENT_TOO_LONG); 99 repetitions of an element
        (x12.repetitions, TOO_MANY_REPETITIONS); 100 HL levels (x12.hl_levels, TOO_MANY_LOOPS); HL
        levels nested 5 deep (x12.hl_depth, NESTING_TOO_DEEP); each refused with 413 before a
        segment is built. The JSON form: every text field at most 80 characters (422
        VALIDATION_ERROR naming the field).

        Args:
            body: The request body (application/json, application/edi-x12, text/plain): a dict or
                list, sent as JSON (form fields for a form media type), or str or bytes sent as they
                are.
            content_type: The body's media type, default application/json.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            "/velocity/v1/clearinghouse/claim-status",
            query={**(params or {})},
            body=body,
            content_type=content_type or "application/json",
            headers=headers,
        ).body

    def clearinghouse_claims_submit(
        self,
        body: Any,
        *,
        content_type: Optional[str] = None,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Professional claim submission (X12 837P), acknowledged with a 999 and, when ISA14 = 1, a TA1; claims stored as FHIR Claim/ClaimResponse; a resubmitted interchange answers its stored claims (200).

        ``POST /velocity/v1/clearinghouse/claims``

        Credential: bearer; one of the scopes velocity.clearinghouse.claims. Rate limit: 60/min.
        Limits (`code` and `limit` name the one exceeded): An X12 837P may be at most 5,000,000
        bytes (x12.bytes, PAYLOAD_TOO_LARGE); 200,000 segments from ISA to IEA (x12.segments,
        TOO_MANY_SEGMENTS); 2,048 characters a segment (x12.segment_length, SEGMENT_TOO_LONG); 512
        characters an element (x12.element_length, ELEMENT_TOO_LONG); 99 repetitions of an element
        (x12.repetitions, TOO_MANY_REPETITIONS); 15,000 HL levels (x12.hl_levels, TOO_MANY_LOOPS);
        HL levels nested 3 deep (x12.hl_depth, NESTING_TOO_DEEP); 5,000 claims (CLM) in all (loop
        2300, x12.claims), 100 claims (CLM) per HL level (loop 2300, x12.claims_per_level), 50
        service lines (LX) per claim (loop 2400, x12.lines_per_claim) (TOO_MANY_LOOPS); each refused
        with 413 before a segment is built. The JSON form: at most 100 claims (larger batches go as
        X12), 50 service_lines and 12 diagnosis_codes a claim, 4 modifiers a line, every text field
        at most 80 characters (422 VALIDATION_ERROR naming the field).

        Args:
            body: The request body (application/json, application/edi-x12, text/plain): a dict or
                list, sent as JSON (form fields for a form media type), or str or bytes sent as they
                are.
            content_type: The body's media type, default application/json.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            "/velocity/v1/clearinghouse/claims",
            query={**(params or {})},
            body=body,
            content_type=content_type or "application/json",
            headers=headers,
        ).body

    def clearinghouse_claims_get(
        self,
        claim_id: str,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """One of the partner's submitted claims with its current status.

        ``GET /velocity/v1/clearinghouse/claims/{claimId}``

        Credential: bearer; one of the scopes velocity.clearinghouse.claims,
        velocity.clearinghouse.claim-status. Rate limit: 120/min.

        Args:
            claim_id: Path parameter.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            f"/velocity/v1/clearinghouse/claims/{path_segment(claim_id)}",
            query={**(params or {})},
            headers=headers,
        ).body

    def portal_origin(
        self,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """The bare origin: a browser (Accept: text/html) gets 302 to the partner portal (/portal/); any other client gets the 404 problem document.

        ``GET /``

        No credential needed. Rate limit: 600/min.

        Args:
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            "/",
            query={**(params or {})},
            headers=headers,
            authenticated=False,
        ).body

    def portal_favicon(
        self,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """The portal's icon (SVG), where browsers look for it.

        ``GET /favicon.ico``

        No credential needed. Rate limit: 600/min.

        Args:
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            "/favicon.ico",
            query={**(params or {})},
            headers=headers,
            authenticated=False,
        ).body

    def portal_app(
        self,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """The partner portal (single-page app).

        ``GET /portal``

        No credential needed. Rate limit: 600/min.

        Args:
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            "/portal",
            query={**(params or {})},
            headers=headers,
            authenticated=False,
        ).body

    def portal_file(
        self,
        file: str,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """A file of the partner portal, or one of its pages (served index.html).

        ``GET /portal/{file}``

        No credential needed. Rate limit: 600/min.

        Args:
            file: A bundled file (hashed name), or a page such as webhooks.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            f"/portal/{path_segment(file)}",
            query={**(params or {})},
            headers=headers,
            authenticated=False,
        ).body

    def portal_session_read(
        self,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """The browser's portal session: whether signed in, and its CSRF token.

        ``GET /portal/session``

        No credential needed. Rate limit: 120/min.

        Args:
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            "/portal/session",
            query={**(params or {})},
            headers=headers,
            authenticated=False,
        ).body

    def portal_session_create(
        self,
        body: Any,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Sign in to the portal with e-mail and password: sets the session cookie.

        ``POST /portal/session``

        No credential needed. Rate limit: 10/min.

        Args:
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            "/portal/session",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
            authenticated=False,
        ).body

    def portal_session_delete(
        self,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Sign out: ends the portal session on the server and removes the cookie.

        ``DELETE /portal/session``

        Credential: bearer. Rate limit: 60/min.

        Args:
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "DELETE",
            "/portal/session",
            query={**(params or {})},
            headers=headers,
        ).body

    def portal_session_bearer(
        self,
        body: Any = None,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Sign in to the portal with a bearer the caller holds (an operator token): sets it as the session cookie.

        ``POST /portal/session/bearer``

        Credential: bearer. Rate limit: 10/min.

        Args:
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            "/portal/session/bearer",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def webhooks_get(
        self,
        webhook_id: str,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """One partner webhook.

        ``GET /api/partner/webhooks/{webhook_id}``

        Credential: bearer; one of the scopes cms.webhooks.manage, cms.admin. Rate limit: 60/min.

        Args:
            webhook_id: The endpoint (whk_…).
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            f"/api/partner/webhooks/{path_segment(webhook_id)}",
            query={**(params or {})},
            headers=headers,
        ).body

    def webhooks_update(
        self,
        webhook_id: str,
        body: Any,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Change an endpoint's URL, event types or description (same rules as registration).

        ``PATCH /api/partner/webhooks/{webhook_id}``

        Credential: bearer; one of the scopes cms.webhooks.manage, cms.admin. Rate limit: 60/min.

        Args:
            webhook_id: The endpoint (whk_…).
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "PATCH",
            f"/api/partner/webhooks/{path_segment(webhook_id)}",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def webhooks_sample(
        self,
        webhook_id: str,
        body: Any,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Queue a signed sample of any catalog event type to the endpoint (one attempt, "sample": true in the body); follow it in the delivery log.

        ``POST /api/partner/webhooks/{webhook_id}/samples``

        Credential: bearer; one of the scopes cms.webhooks.manage, cms.admin. Rate limit: 60/min.

        Args:
            webhook_id: The endpoint (whk_…).
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            f"/api/partner/webhooks/{path_segment(webhook_id)}/samples",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def webhooks_test(
        self,
        webhook_id: str,
        body: Any = None,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Queue a signed test.ping to the endpoint (one attempt); follow it in the delivery log.

        ``POST /api/partner/webhooks/{webhook_id}/test``

        Credential: bearer; one of the scopes cms.webhooks.manage, cms.admin. Rate limit: 60/min.

        Args:
            webhook_id: The endpoint (whk_…).
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            f"/api/partner/webhooks/{path_segment(webhook_id)}/test",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def webhooks_deliveries(
        self,
        webhook_id: str,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        status: Optional[str] = None,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """The delivery log of an endpoint, newest first (paged).

        ``GET /api/partner/webhooks/{webhook_id}/deliveries``

        Credential: bearer; one of the scopes cms.webhooks.manage, cms.admin. Rate limit: 60/min.

        Args:
            webhook_id: The endpoint (whk_…).
            limit: Items per page.
            cursor: next_cursor of the previous page.
            status: Only deliveries in this state. One of: pending, sending, succeeded, failed,
                cancelled.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            f"/api/partner/webhooks/{path_segment(webhook_id)}/deliveries",
            query={"limit": limit, "cursor": cursor, "status": status, **(params or {})},
            headers=headers,
        ).body

    def webhooks_delivery(
        self,
        webhook_id: str,
        delivery_id: str,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """One delivery with its body and attempt log.

        ``GET /api/partner/webhooks/{webhook_id}/deliveries/{delivery_id}``

        Credential: bearer; one of the scopes cms.webhooks.manage, cms.admin. Rate limit: 60/min.

        Args:
            webhook_id: The endpoint (whk_…).
            delivery_id: The delivery (dlv_…), one of this endpoint.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            f"/api/partner/webhooks/{path_segment(webhook_id)}/deliveries/{path_segment(delivery_id)}",
            query={**(params or {})},
            headers=headers,
        ).body

    def webhooks_redeliver(
        self,
        webhook_id: str,
        delivery_id: str,
        body: Any = None,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Send a finished delivery again (same delivery id, fresh retry schedule).

        ``POST /api/partner/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver``

        Credential: bearer; one of the scopes cms.webhooks.manage, cms.admin. Rate limit: 60/min.

        Args:
            webhook_id: The endpoint (whk_…).
            delivery_id: The delivery (dlv_…), one of this endpoint.
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            f"/api/partner/webhooks/{path_segment(webhook_id)}/deliveries/{path_segment(delivery_id)}/redeliver",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def webhooks_rotate_secret(
        self,
        webhook_id: str,
        body: Any,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Replace the signing secret (shown once); both signatures are sent during the overlap.

        ``POST /api/partner/webhooks/{webhook_id}/rotate-secret``

        Credential: bearer; one of the scopes cms.webhooks.manage, cms.admin. Rate limit: 60/min.

        Args:
            webhook_id: The endpoint (whk_…).
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            f"/api/partner/webhooks/{path_segment(webhook_id)}/rotate-secret",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def webhooks_enable(
        self,
        webhook_id: str,
        body: Any = None,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Enable an endpoint again after it was disabled (410 Gone, persistent failure, or by its partner).

        ``POST /api/partner/webhooks/{webhook_id}/enable``

        Credential: bearer; one of the scopes cms.webhooks.manage, cms.admin. Rate limit: 60/min.

        Args:
            webhook_id: The endpoint (whk_…).
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            f"/api/partner/webhooks/{path_segment(webhook_id)}/enable",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def webhooks_disable(
        self,
        webhook_id: str,
        body: Any = None,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Disable an endpoint: waiting deliveries are cancelled, nothing is sent until it is enabled again (a test ping still is).

        ``POST /api/partner/webhooks/{webhook_id}/disable``

        Credential: bearer; one of the scopes cms.webhooks.manage, cms.admin. Rate limit: 60/min.

        Args:
            webhook_id: The endpoint (whk_…).
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            f"/api/partner/webhooks/{path_segment(webhook_id)}/disable",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def webhooks_event_types(
        self,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Every event type a webhook can subscribe to, TEFCA exchange events included.

        ``GET /api/partner/webhook-event-types``

        Credential: bearer. Rate limit: 60/min.

        Args:
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            "/api/partner/webhook-event-types",
            query={**(params or {})},
            headers=headers,
        ).body

    def pipeline_sync_jobs_list(
        self,
        *,
        partner_gpid: Optional[str] = None,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """The partner's newest sync jobs (up to 20), newest first.

        ``GET /cms/pipeline/sync-jobs``

        Credential: bearer; one of the scopes cms.pipeline.read, cms.admin. Rate limit: 30/min.

        Args:
            partner_gpid: Operators: whose jobs (default: the caller's partner). Another partner's
                answers 404.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            "/cms/pipeline/sync-jobs",
            query={"partner_gpid": partner_gpid, **(params or {})},
            headers=headers,
        ).body

    def pipeline_sync_jobs_create(
        self,
        body: Any,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Record a sync job run by an external pipeline (queued, kind external).

        ``POST /cms/pipeline/sync-jobs``

        Credential: bearer; one of the scopes cms.fhir.bundle.push, cms.admin.

        Args:
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            "/cms/pipeline/sync-jobs",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def pipeline_sync_jobs_get(
        self,
        job_id: str,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """One sync job of your partner.

        ``GET /cms/pipeline/sync-jobs/{job_id}``

        Credential: bearer; one of the scopes cms.pipeline.read, cms.admin.

        Args:
            job_id: The sync job (job_…).
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            f"/cms/pipeline/sync-jobs/{path_segment(job_id)}",
            query={**(params or {})},
            headers=headers,
        ).body

    def pipeline_sync_jobs_complete(
        self,
        job_id: str,
        body: Any,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Mark an external sync job completed; emits pipeline.sync.completed (operators).

        ``POST /cms/pipeline/sync-jobs/{job_id}/complete``

        Credential: bearer; one of the scopes cms.admin.

        Args:
            job_id: The sync job (job_…).
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            f"/cms/pipeline/sync-jobs/{path_segment(job_id)}/complete",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def pipeline_sync_jobs_fail(
        self,
        job_id: str,
        body: Any,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Mark an external sync job failed after its retries; emits pipeline.sync.failed (operators).

        ``POST /cms/pipeline/sync-jobs/{job_id}/fail``

        Credential: bearer; one of the scopes cms.admin.

        Args:
            job_id: The sync job (job_…).
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            f"/cms/pipeline/sync-jobs/{path_segment(job_id)}/fail",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def events_list(
        self,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        types: Optional[str] = None,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """The event log, newest first: your partner's events (paged).

        ``GET /api/partner/events``

        Credential: bearer.

        Args:
            limit: Items per page.
            cursor: next_cursor of the previous page.
            types: Comma-separated event types to keep (e.g.
                pipeline.sync.completed,pipeline.sync.failed).
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            "/api/partner/events",
            query={"limit": limit, "cursor": cursor, "types": types, **(params or {})},
            headers=headers,
        ).body

    def events_replay(
        self,
        *,
        after: str,
        types: Optional[str] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Replay: the ids of the events recorded after a given one, oldest first (paged; the event must be under 24 hours old).

        ``GET /api/partner/events/replay``

        Credential: bearer.

        Args:
            after: The last event you processed. Unknown, not yours, or out of the window: 404.
            types: Comma-separated event types to keep (e.g.
                pipeline.sync.completed,pipeline.sync.failed).
            limit: Items per page.
            cursor: next_cursor of the previous page.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            "/api/partner/events/replay",
            query={"after": after, "types": types, "limit": limit, "cursor": cursor, **(params or {})},
            headers=headers,
        ).body

    def events_get(
        self,
        event_id: str,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """One event of your partner.

        ``GET /api/partner/events/{event_id}``

        Credential: bearer.

        Args:
            event_id: The event (evt_…).
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            f"/api/partner/events/{path_segment(event_id)}",
            query={**(params or {})},
            headers=headers,
        ).body

    def partners_application(
        self,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """The caller's partner's onboarding application: status, saved steps and decision.

        ``GET /api/partner/application``

        Credential: bearer; one of the scopes cms.partner.read, cms.partner.write. Rate limit:
        30/min.

        Args:
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            "/api/partner/application",
            query={**(params or {})},
            headers=headers,
        ).body

    def partners_applications_start(
        self,
        body: Any = None,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Start a partner application (no credential); keep the resume_token of the answer: it is shown once and authorizes the other applicant routes.

        ``POST /api/partner/applications``

        No credential needed. Rate limit: 10/min.

        Args:
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            "/api/partner/applications",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
            authenticated=False,
        ).body

    def partners_applications_get(
        self,
        application_id: str,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Resume a partner application: its status, saved steps and progress. The X-Svc-Resume-Token header carries the draft's resume token (no credential); an unknown id and a wrong token both answer 404.

        ``GET /api/partner/applications/{application_id}``

        No credential needed. Rate limit: 60/min.

        Args:
            application_id: The application (app_…).
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            f"/api/partner/applications/{path_segment(application_id)}",
            query={**(params or {})},
            headers=headers,
            authenticated=False,
        ).body

    def partners_applications_save_step(
        self,
        application_id: str,
        step: str,
        body: Any,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Save one step of a draft, valid or not, and get its problems. The X-Svc-Resume-Token header carries the draft's resume token (no credential); an unknown id and a wrong token both answer 404.

        ``PUT /api/partner/applications/{application_id}/steps/{step}``

        No credential needed. Rate limit: 60/min.

        Args:
            application_id: The application (app_…).
            step: The onboarding step: 1 organization, 2 integration, 3 account. One of:
                organization, integration, account.
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "PUT",
            f"/api/partner/applications/{path_segment(application_id)}/steps/{path_segment(step)}",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
            authenticated=False,
        ).body

    def partners_applications_submit(
        self,
        application_id: str,
        body: Any = None,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Submit a complete draft for review (422 lists the problems while a step has any; 409 once submitted). The X-Svc-Resume-Token header carries the draft's resume token (no credential); an unknown id and a wrong token both answer 404.

        ``POST /api/partner/applications/{application_id}/submit``

        No credential needed. Rate limit: 60/min.

        Args:
            application_id: The application (app_…).
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            f"/api/partner/applications/{path_segment(application_id)}/submit",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
            authenticated=False,
        ).body

    def partners_applications_sign_in(
        self,
        body: Any,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Open an application with the applicant's contact e-mail and portal password (no e-mail is sent): its status, history and a fresh resume_token (the previous one stops working). The same counters, lockout and answers as POST /cms/partner-login: 401 alike for an unknown e-mail and a wrong password, 423 and 429 with Retry-After.

        ``POST /api/partner/applications/sign-in``

        No credential needed. Rate limit: 10/min.

        Args:
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            "/api/partner/applications/sign-in",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
            authenticated=False,
        ).body

    def certification_checklists(
        self,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """The certification checklists and their items (definitions only; GET /api/partner/certification shows a partner's progress).

        ``GET /api/partner/certification/checklists``

        No credential needed. Rate limit: 60/min.

        Args:
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            "/api/partner/certification/checklists",
            query={**(params or {})},
            headers=headers,
            authenticated=False,
        ).body

    def scope_requests_list(
        self,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        status: Optional[str] = None,
        partner_gpid: Optional[str] = None,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Scope requests, newest first (paged): the partner's own; operators every partner's.

        ``GET /cms/scope-requests``

        Credential: bearer; one of the scopes cms.partner.read, cms.admin. Rate limit: 60/min.

        Args:
            limit: Items per page.
            cursor: next_cursor of the previous page.
            status: Only requests in this state. One of: pending, granted, refused.
            partner_gpid: Operators: one partner's requests. A partner naming another partner gets
                an empty page.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            "/cms/scope-requests",
            query={"limit": limit, "cursor": cursor, "status": status, "partner_gpid": partner_gpid, **(params or {})},
            headers=headers,
        ).body

    def scope_requests_create(
        self,
        body: Any,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Ask an operator for scopes the partner does not hold, with a reason.

        ``POST /cms/scope-requests``

        Credential: bearer; one of the scopes cms.partner.write. Rate limit: 10/min.

        Args:
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            "/cms/scope-requests",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def scope_requests_get(
        self,
        id: str,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """One scope request.

        ``GET /cms/scope-requests/{id}``

        Credential: bearer; one of the scopes cms.partner.read, cms.admin. Rate limit: 60/min.

        Args:
            id: The scope request (scr_…).
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            f"/cms/scope-requests/{path_segment(id)}",
            query={**(params or {})},
            headers=headers,
        ).body

    def scope_requests_grant(
        self,
        id: str,
        body: Any,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Grant a pending request: its scopes join the partner's grant (operators).

        ``POST /cms/scope-requests/{id}/grant``

        Credential: bearer; one of the scopes cms.admin. Rate limit: 30/min.

        Args:
            id: The scope request (scr_…).
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            f"/cms/scope-requests/{path_segment(id)}/grant",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def scope_requests_refuse(
        self,
        id: str,
        body: Any,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Refuse a pending request with a reason (operators).

        ``POST /cms/scope-requests/{id}/refuse``

        Credential: bearer; one of the scopes cms.admin. Rate limit: 30/min.

        Args:
            id: The scope request (scr_…).
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            f"/cms/scope-requests/{path_segment(id)}/refuse",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def requests_log(
        self,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        status_class: Optional[str] = None,
        method: Optional[str] = None,
        credential_id: Optional[str] = None,
        since: Optional[str] = None,
        until: Optional[str] = None,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Your partner's own recent API requests, newest first (paged, filterable; never bodies, query strings or secrets).

        ``GET /api/partner/requests``

        Credential: bearer; one of the scopes cms.tokens.manage, cms.pipeline.read. Rate limit:
        60/min.

        Args:
            limit: Items per page.
            cursor: next_cursor of the previous page.
            status_class: Only answers of one status class. One of: 2xx, 3xx, 4xx, 5xx.
            method: Only one HTTP method. One of: GET, POST, PUT, PATCH, DELETE.
            credential_id: Only the requests of one credential.
            since: Only requests at or after this instant.
            until: Only requests before this instant.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "GET",
            "/api/partner/requests",
            query={"limit": limit, "cursor": cursor, "status_class": status_class, "method": method, "credential_id": credential_id, "since": since, "until": until, **(params or {})},
            headers=headers,
        ).body

    def portal_password_resets_create(
        self,
        gpid: str,
        body: Any,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Issue a one-time password reset link for a partner's portal account (operators).

        ``POST /cms/partners/{gpid}/portal-password-resets``

        Credential: bearer; one of the scopes cms.admin. Rate limit: 10/min.

        Args:
            gpid: The partner whose portal account gets the link.
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            f"/cms/partners/{path_segment(gpid)}/portal-password-resets",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
        ).body

    def portal_password_resets_use(
        self,
        body: Any,
        *,
        params: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> Any:
        """Set a new portal password with a one-time reset link; ends every open portal session of the partner.

        ``POST /cms/portal-password-reset``

        No credential needed. Rate limit: 10/min.

        Args:
            body: The request body (application/json): a dict or list, sent as JSON (form fields for
                a form media type), or str or bytes sent as they are.
            params: Further query parameters, such as FHIR search parameters.
            headers: Further request headers, such as X-Svc-Source on identity writes or Prefer.

        Returns:
            The response body: JSON as dicts and lists, other media types as text, None when empty.

        Raises:
            ApiError: The API answered an error (429 and 503 are retried first).
        """
        return self._transport.send(
            "POST",
            "/cms/portal-password-reset",
            query={**(params or {})},
            body=body,
            content_type="application/json",
            headers=headers,
            authenticated=False,
        ).body
