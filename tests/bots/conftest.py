"""Helpers for the bot tests: playing matches and perturbing hidden cards."""
