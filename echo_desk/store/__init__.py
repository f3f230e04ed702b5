"""Storage: settings (versioned JSON), conversations and audit (SQLite), secrets (keyring)."""
