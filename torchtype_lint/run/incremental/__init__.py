"""Re-analysing an edited file by what the edit can change (the language server)."""
