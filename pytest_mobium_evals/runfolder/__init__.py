"""Writing a run folder (atomically) and reading it back, transcripts included. Most of a run folder's file names are
spelled here; a few modules elsewhere still spell one of their own (issue 44 gathers them here)."""
