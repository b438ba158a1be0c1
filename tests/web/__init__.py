"""Tests of the web layer: the JSON API and the pages, through the Flask test client."""
