"""The file tools (read, list, write, edit, move, copy, delete, create a folder) and what they
share: workspace confinement, atomic writes, text decoding, diffs and the write lifecycle."""
