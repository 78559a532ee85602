"""Build side of the Inference Engine Map: reading, validating and formatting the data files, and the command line.

Runs on the pinned libraries (PyYAML, jsonschema); never shipped to the browser, which gets only :mod:`selector`.
"""
