"""``run_command``: the shell tool, where it runs (sandbox or not) and the reaper that leaves
no process behind."""
