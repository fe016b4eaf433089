"""The competitions' HTTP API (``shared/API.md``): public reads, picks, arbitration and results."""
