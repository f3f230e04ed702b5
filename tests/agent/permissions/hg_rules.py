"""The rule set the hg tests judge under: any hg command, writes only below ``out/`` — so what a
command reads or writes elsewhere (settings, folders, files) makes it ask."""

HG_ANY_WRITES_OUT = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "hg **"

[[rule]]
effect = "allow"
tool = "write"
pattern = "@workspace/out/**"
"""
