"""The run folder, and the only code that knows its file names: `layout` (every name, spelt once, and where each file
goes), `files` (the one atomic writer and JSON reader), `writing` (the record, the trials, the leased devices),
`reading` (a run in progress and whole runs loaded for the after-run commands), `collection` (what was scheduled)."""
