"""The simulator: state, clock, ids, operations, pricing, webhooks, journal."""
