"""The rules of Rommé: pure, typed, without I/O."""
