"""Echo Desk as an MCP server for other clients (Claude Code, Cursor, VS Code, goose…).

``echo-desk gateway --client NAME`` serves MCP on stdio and relays, over a private Unix socket,
to the running app (``service.GatewayService``), where each call goes through the same
``Dispatcher.execute_tool`` as the chat: the catalog's switches and the client's profile, rules
(which can name the client), grants, the sandbox, the approval dialog headed with the client's
name, undo and the audit log. Qt-free; it never imports the UI (the app hands it its host).

Layout: ``protocol`` (the socket's JSON lines), ``local_socket`` (where, who may connect),
``service`` + ``session`` (the app's side), ``view`` (what a client sees), ``results`` (MCP
results), ``relay`` + ``backend`` + ``launch`` (the gateway's side), ``server`` + ``stdio`` +
``stdio_gateway`` (the MCP server a client talks to), ``http`` + ``tokens`` (streamable HTTP).
"""
