"""Shared test setup for the whole suite.

Kept small on purpose: a fixture or helper used by one folder's tests lives in that
folder's own conftest.py. Hypothesis picks its CI profile (derandomised, no deadline)
by itself when the CI environment variable is set.
"""
