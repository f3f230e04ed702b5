"""``fetch_url`` and the check that asks first for a host on this computer or its network."""
