"""What the engine asks the person: approve a tool call (diff, arguments, rules, sub-agent
grants), answer a question, approve an MCP server's first start."""
