"""The only code that knows a run folder's file names: writing a run (atomically) and reading it back, transcripts
included."""
