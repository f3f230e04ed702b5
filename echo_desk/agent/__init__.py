"""The engine: registry, schema factory, dispatcher, approval, scopes, breaker, audit, agent loop."""
