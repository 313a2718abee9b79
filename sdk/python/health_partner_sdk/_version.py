"""The SDK's version: the version of the API document it was generated from."""

__version__ = "2.2.0"
