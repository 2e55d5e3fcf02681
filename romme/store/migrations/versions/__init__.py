"""One module per schema revision, oldest first (``r0001_...``)."""
