"""Python client of the Health Partner Platform API, generated from its OpenAPI document.

Standard library only (urllib, json); Python 3.9 or later.

    from health_partner_sdk import ApiError, Client

    client = Client("https://sandbox.example.com", token="...")
    routes = client.catalog_routes(product="identity")
"""

from ._transport import Response
from ._version import __version__
from .client import Client
from .errors import ApiError

__all__ = ["ApiError", "Client", "Response", "__version__"]
